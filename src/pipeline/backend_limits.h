// What one backend's compiler refuses after the offloading passes, on the
// module they leave (`--backend`, lints/offload_lints.h TargetBackend).
#ifndef HLOFF_PIPELINE_BACKEND_LIMITS_H_
#define HLOFF_PIPELINE_BACKEND_LIMITS_H_

#include <vector>

#include "diag/diagnostic.h"
#include "ir/hlo.h"
#include "lints/offload_lints.h"
#include "pipeline/xla_versions.h"

namespace hloff {

// The GPU compile's HLO verifier after the HostOffloader
// (xla/service/hlo_verifier.cc, InstructionVerifier::Postprocess and
// HostOffloadInstructionCanChangeMemorySpace): a dynamic-slice whose result
// is in host memory and an operand of the same rank in device memory, or a
// dynamic-update-slice whose result is in device memory and such an operand
// in host memory, is refused (other instructions are compared without their
// memory spaces). HO1012,
// an error for kGpu; for kAny a warning that names the GPU (libtpu accepts
// such modules); nothing for kTpu.
// libtpu's async slices (the dynamic-slice the offloader leaves between host
// memory and device becomes a `dynamic-slice-start`): where `xla` has
// XlaBehaviour::kTpuAsyncSliceOneDimension (libtpu 0.0.42), one that slices
// more than one dimension (slice size below the operand's dimension) is
// UNIMPLEMENTED. HO1013, an error for kTpu, a warning naming the TPU for
// kAny, nothing for kGpu (the CUDA plugin compiles it).
// Appends to `out`; linear in the module.
void CheckBackendLimits(const Module& module, TargetBackend backend,
                        const XlaSemantics& xla, std::vector<Diagnostic>& out);

// What a backend refuses in the module as given, before the passes: a GPU
// device has no unpinned host memory (XLA's StreamExecutorGpuClient attaches
// device and pinned_host memory only, xla/pjrt/gpu/se_gpu_pjrt_client.cc;
// JAX 0.11.2 on an H200 refuses the memory kind before XLA compiles), so an
// entry parameter or result in S(6) or an annotate_device_placement to
// "unpinned_host" is HO1014, for kGpu only: unpinned host memory is a TPU's
// (and the CPU's), so a module that uses it reads as made for one of those
// when the backend is not given. Appends to `out`; linear in the module.
void CheckBackendInput(const Module& module, TargetBackend backend,
                       std::vector<Diagnostic>& out);

}  // namespace hloff

#endif  // HLOFF_PIPELINE_BACKEND_LIMITS_H_
