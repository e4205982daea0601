// ConvertMemoryPlacementToInternalAnnotations: turns JAX's
// `annotate_device_placement` custom calls (frontend attribute
// `_xla_buffer_placement`) into the internal MoveToHost / MoveToDevice /
// PinToDevice / PinToDeviceSram custom calls. Mirrors
// xla/hlo/transforms/convert_memory_placement_to_internal_annotations.cc
// (V6: the sharding is copied onto every new call).
#ifndef HLO_OFFLOAD_PASSES_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_
#define HLO_OFFLOAD_PASSES_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_

#include "passes/pass.h"

namespace hloff {

class ConvertMemoryPlacementToInternalAnnotations : public HloPass {
 public:
  explicit ConvertMemoryPlacementToInternalAnnotations(const PassContext& context)
      : context_(context) {}
  absl::string_view name() const override {
    return "convert-memory-placement-to-internal-annotations";
  }
  // Changed if any annotation was rewritten. Error (INTERNAL, HO1009): a
  // to-host annotation without exactly one operand.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_CONVERT_MEMORY_PLACEMENT_TO_INTERNAL_ANNOTATIONS_H_
