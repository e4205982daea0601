// dce: XLA's HloDCE (xla/hlo/transforms/simplifiers/hlo_dce.cc) without a
// call graph, as the GPU pipeline and CallInliner run it: in every
// computation reachable from the entry, each unused instruction that is not
// the root is removed with the operands it leaves unused, unless it is a
// parameter, has control edges, has side effects (XLA's HasSideEffect, called
// computations included), or is a `Sharding` custom call of a root, a
// parameter or a value with other users; then every computation that no live
// instruction calls (transitively from the entry) is removed. Only
// computations of the main execution thread are changed (the GPU compiler
// runs its pipelines on that thread). Not mirrored: unused multi-output
// fusion outputs (there are no fusions before the offloader) and the removal
// of dead entry parameters (off by default in XLA).
#ifndef HLO_OFFLOAD_PASSES_HLO_DCE_H_
#define HLO_OFFLOAD_PASSES_HLO_DCE_H_

#include "passes/pass.h"

namespace hloff {

// Runs XLA's HloDCE on `module`; returns true if anything was removed.
// Linear in the size of the module.
bool RunHloDce(Module& module);

class HloDce : public HloPass {
 public:
  explicit HloDce(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HLO_DCE_H_
