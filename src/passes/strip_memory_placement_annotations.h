// StripMemoryPlacementAnnotations: removes annotate_device_placement,
// MoveToHost and MoveToDevice custom calls, replacing each by its operand (the
// sharding moves to the operand if it has none). This is what XLA's CPU
// compiler runs instead of host offloading (V6,
// xla/hlo/transforms/strip_memory_placement_annotations.cc); useful to see
// what a module computes without any offloading.
#ifndef HLO_OFFLOAD_PASSES_STRIP_MEMORY_PLACEMENT_ANNOTATIONS_H_
#define HLO_OFFLOAD_PASSES_STRIP_MEMORY_PLACEMENT_ANNOTATIONS_H_

#include "passes/pass.h"

namespace hloff {

class StripMemoryPlacementAnnotations : public HloPass {
 public:
  explicit StripMemoryPlacementAnnotations(const PassContext& context)
      : context_(context) {}
  absl::string_view name() const override {
    return "strip-memory-placement-annotations";
  }
  // Changed if an annotation was removed. Error (INTERNAL, HO1009): an
  // annotation without exactly one operand.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_STRIP_MEMORY_PLACEMENT_ANNOTATIONS_H_
