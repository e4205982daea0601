// host-offloading-prepare: XLA's HostOffloadingPrepare
// (xla/hlo/transforms/host_offloading_prepare.cc), one pass per rewrite, with
// XLA's names:
//
//  - host-offloading-prepare-convert-to-custom-call (kConvertToCustomCall):
//    the call inside each host async computation (an async-start on the host
//    thread that wraps a `call`, IsHostAsyncStart) becomes
//    `custom-call(...), custom_call_target="HostExecute",
//    called_computations={%host computation}` with the call's shape, operands
//    and output_to_operand_aliasing, and the frontend attributes of the first
//    custom call inside the host computation that has some. The GPU compiler
//    runs it right after HostComputeAsyncifier (its "host-compute" pipeline,
//    xla/service/gpu/gpu_compiler.cc); libtpu runs it too (its
//    before-host-offloader dumps show HostExecute). From then on the
//    HostOffloader's walk stops at the host computation's inputs: a
//    HostExecute reuses no operand's buffer (GetSuccessors,
//    xla/service/host_offload_utils.cc), so nothing inside the host
//    computation is ever tracked or converted into host compute.
//
//  - host-offloading-prepare-elide-move-to-host (kElideMoveToHost): a
//    MoveToHost that is an operand of such an async-start is removed, its
//    uses going to its operand (the runtime copies the device buffer into the
//    host computation's input when the call starts). Not in the default
//    pipeline: the GPU compiler does not run it, and what libtpu does is not
//    public; run it with --passes.
#ifndef HLO_OFFLOAD_PASSES_HOST_OFFLOADING_PREPARE_H_
#define HLO_OFFLOAD_PASSES_HOST_OFFLOADING_PREPARE_H_

#include "passes/pass.h"

namespace hloff {

// An async-start on the host thread whose wrapped computation's root is a
// `call` (XLA's IsHostAsyncStart in host_offloading_prepare.cc).
bool IsHostAsyncCallStart(const Instruction* instr);

class HostOffloadingPrepare : public HloPass {
 public:
  enum class Rewrite { kElideMoveToHost, kConvertToCustomCall };
  HostOffloadingPrepare(const PassContext& context, Rewrite rewrite)
      : context_(context), rewrite_(rewrite) {}
  absl::string_view name() const override {
    return rewrite_ == Rewrite::kElideMoveToHost
               ? "host-offloading-prepare-elide-move-to-host"
               : "host-offloading-prepare-convert-to-custom-call";
  }
  // Linear in the size of the module; never fails on a verified module.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
  Rewrite rewrite_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HOST_OFFLOADING_PREPARE_H_
