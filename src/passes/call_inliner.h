// call-inliner: XLA's CallInliner (xla/service/call_inliner.cc) with the
// options the GPU compiler gives it (xla/service/gpu/gpu_compiler.cc,
// RunPreSPMDPartitionerPasses and RunOptimizationPasses: every call site, no
// domain update, no composite kept). Each `call` is replaced by a copy of
// its computation's body, callees before callers, then dce runs (as XLA's
// CallInliner::RunWithInlineMap does), which removes the computations left
// uncalled.
//
// Calls XLA keeps (CallInliner::IsInlineableCallOp, InlineInstructionAllowed):
//  - a call with a backend_config;
//  - a call inside an asynchronous computation (called by async-start);
//  - a call with frontend attribute inlineable="false" or "xla_late" (what
//    jax.jit(inline=...) and compute_on("device") write);
//  - a host-compute call, `_xla_compute_type="host"`: before CallInliner the
//    GPU compiler runs HloHostDeviceTypeCallWrapper
//    (xla/core/host_offloading/hlo_host_device_type_call_wrapper.cc, the
//    "annotate-host-compute" pipeline), which gives such calls a backend
//    config (device type host), so the first rule keeps them.
// Side-effecting calls are inlined (XLA's CallInliner does not look at side
// effects). Not mirrored: shard_map bodies kept under the Shardy partitioner
// (a module option the text does not carry; by the time the offloader runs,
// the SPMD partitioner has flattened them), and the metadata XLA gives the
// copies (PropagateCallMetadata: the call's op_name as the prefix of theirs,
// the call's stack frame as the parent of theirs), except that a copy with
// no location of its own reports the call's in diagnostics (JAX 0.11 lowers
// jnp.take's gather inside a function with only a name location, and XLA's
// dumps give it the call's line).
//
// Copies are made in XLA's visiting order (HloComputation::Accept: the
// unused instructions first, then from the root, operands in order) and
// named as XLA names them: the callee instruction's name, made unique in the
// module (`multiply.3` becomes `multiply.4` when taken). Diagnostics report a
// copy as the callee's instruction it copies (its name, computation, line
// and column; Instruction::set_input_from).
#ifndef HLO_OFFLOAD_PASSES_CALL_INLINER_H_
#define HLO_OFFLOAD_PASSES_CALL_INLINER_H_

#include "passes/pass.h"

namespace hloff {

// Whether XLA's CallInliner, as the GPU compiler runs it, inlines `instr`
// (a call not kept by the rules above).
bool IsInlinedCall(const Instruction* instr,
                   bool parent_is_async_computation);

class CallInliner : public HloPass {
 public:
  explicit CallInliner(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "call-inliner"; }
  // Linear in the size of the module after inlining. Fails (HO9002) only
  // on a malformed call (a callee whose root does not have the call's
  // shape, which XLA's verifier refuses).
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_CALL_INLINER_H_
