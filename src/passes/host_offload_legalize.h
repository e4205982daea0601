// HostOffloadLegalize: moves layout-changing copies out of host-offload
// segments. A copy on a host path is pushed down past the MoveToDevice (to the
// device side, through bitcasts, slices, dynamic-slices and while loops), or,
// when it cannot go down (it reaches the entry root or a host call), swapped
// above its MoveToHost. Mirrors xla/hlo/transforms/host_offload_legalize.cc
// (unchanged from V5 to V6), with errors reported instead of CHECK crashes.
#ifndef HLO_OFFLOAD_PASSES_HOST_OFFLOAD_LEGALIZE_H_
#define HLO_OFFLOAD_PASSES_HOST_OFFLOAD_LEGALIZE_H_

#include "passes/pass.h"

namespace hloff {

class HostOffloadLegalize : public HloPass {
 public:
  explicit HostOffloadLegalize(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "host-offload-legalize"; }
  // Changed if a copy moved or was swapped. Errors: INVALID_ARGUMENT (HO1010)
  // when a loop body on the path is not called by exactly one while, and the
  // INTERNAL / UNIMPLEMENTED texts of XLA's copy-movement (HO1011), e.g. a
  // bitcast that changes more than the major-most size-1 dimension.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HOST_OFFLOAD_LEGALIZE_H_
