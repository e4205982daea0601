// gather_expander: XLA's GatherExpander (xla/service/gather_expander.cc) in
// the mode the GPU compiler's "simplification" pipeline runs it in,
// kEliminateSimpleGathers (RunOptimizationPasses,
// xla/service/gpu/gpu_compiler.cc): a gather whose loop would run once (one
// index vector: GatherLoopTripCount == 1) becomes a dynamic-slice of its
// operand with the gather's slice sizes, reshaped to the gather's shape.
// With constant indices (what this pass handles), the starts are constants,
// as XLA's constant folding leaves them, and the layout-insensitive
// AlgebraicSimplifier that runs next in the same pipeline makes the
// dynamic-slice a slice (HandleDynamicSlice). So `gather(a, constant({3}))`
// of a pinned_host `a` reaches the HostOffloader as a slice, which a
// MoveToDevice may follow, and is not host compute; a deviceless compile of
// such a gather on both backends shows `slice(...), slice={[3:4], ...}` in
// the before_host-offloader dump and no host-compute warning. A gather of
// several index vectors stays a gather (host compute when its operand is in
// host memory, as XLA converts it).
//
// The instructions are named after the gather (`g.1`, ...) and carry its
// metadata. Not modelled: single-index gathers with non-constant indices
// (XLA slices the index out of the indices tensor), gathers with batching
// dimensions, and GatherIsBroadcast (slice sizes equal to the operand's
// dimensions, which XLA makes a broadcast).
#ifndef HLO_OFFLOAD_PASSES_GATHER_EXPANDER_H_
#define HLO_OFFLOAD_PASSES_GATHER_EXPANDER_H_

#include "passes/pass.h"

namespace hloff {

class GatherExpander : public HloPass {
 public:
  explicit GatherExpander(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "gather_expander"; }
  // Linear in the size of the module; never fails (a gather whose
  // attributes it cannot read is left as it is).
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_GATHER_EXPANDER_H_
