// host_compute_asyncifier: XLA's HostComputeAsyncifier
// (xla/core/host_offloading/host_compute_asyncifier.cc), which the GPU
// compiler runs in its "host-compute" pipeline right after the SPMD passes
// and before HostOffloadingPrepare (GpuCompiler::OptimizeHloModule in
// xla/service/gpu/gpu_compiler.cc); libtpu's before-host-offloader dumps show
// the same result. Each `call` that runs on the host becomes an async pair on
// the host thread:
//
//   %f.cloned.call-start = ((operands...), result, u32[]) async-start(...),
//       async_execution_thread="host", calls=%async_computation
//   %f.cloned.call-done = result async-done(%f.cloned.call-start)
//
// where %async_computation (execution thread "host") holds one parameter per
// operand and the call (`%f.cloned`) as its root, and the called computation
// moves to the host thread with every tile and memory space removed from its
// shapes. The call's metadata goes to both halves.
//
// A call runs on the host when the GPU compiler's backend config says
// DEVICE_TYPE_HOST (BackendConfigDeviceTypeIsHost), which its
// HloHostDeviceTypeCallWrapper pass gives every call tagged
// `_xla_compute_type="host"` (what jax.experimental.compute_on writes) before
// anything else runs; that pass also clears the tag inside the host
// computation (RecursivelyClearComputeTypeFrontendAttribute). Here the tag
// itself is read, and cleared from the call and inside the host computation.
//
// Not mirrored: the wrapper's grouping of single tagged instructions into new
// host calls (JAX tags the call), its moving of annotate_device_placement out
// of host computations, and the asyncifier's RemoveTupleParameters and
// MaterializeConstantsOnHostComputation, which change the host computation's
// signature but not what the offloading passes see of the device program.
#ifndef HLO_OFFLOAD_PASSES_HOST_COMPUTE_ASYNCIFIER_H_
#define HLO_OFFLOAD_PASSES_HOST_COMPUTE_ASYNCIFIER_H_

#include "passes/pass.h"

namespace hloff {

// Whether `instr` is a call the asyncifier turns into a host async pair: a
// `call` tagged `_xla_compute_type="host"` in a computation that runs on the
// main thread.
bool IsHostComputeCall(const Instruction* instr);

class HostComputeAsyncifier : public HloPass {
 public:
  explicit HostComputeAsyncifier(const PassContext& context)
      : context_(context) {}
  absl::string_view name() const override { return "host_compute_asyncifier"; }
  // Linear in the size of the module. Fails (HO9002) only on a call whose
  // computation does not take its operands or return its shape, which
  // XLA's RET_CHECKs refuse.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HOST_COMPUTE_ASYNCIFIER_H_
