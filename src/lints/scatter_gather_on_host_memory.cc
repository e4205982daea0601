// HO3002 ScatterGatherOnHostMemory (docs/errors/HO3002.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects a scatter or gather, after the pipeline, with an operand or result
// in host memory or turned into host compute: indexing or updating an
// offloaded table with an array of indices. XLA's offloading passes accept it
// (xla/hlo/transforms/host_offloader.cc converts it into host compute like
// any other operation on host data), but the backends that compile the
// result do not support a host scatter or gather and fail later without
// saying why; hence an error. Except a gather for --backend=gpu: the GPU
// compile accepts the host computation (deviceless compiles of the JAX
// programs host_take_to_device and host_take_no_put: the CUDA plugin compiles
// them with a host-compute warning on the gather, libtpu fails in its CPU
// thunk emitter), so HO2001 says all there is.
class ScatterGatherOnHostMemory : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kScatter || opcode == HloOpcode::kGather;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (instr->opcode() == HloOpcode::kGather &&
        context.options().backend == TargetBackend::kGpu) {
      return;
    }
    bool host = HasHostLeaf(instr->shape()) || ComputeTypeIsHost(instr);
    for (const Instruction* op : instr->operands()) {
      host |= HasHostLeaf(op->shape());
    }
    if (!host) return;
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3002,
        absl::StrCat(instr->opcode_spelling(), " \"", instr->input_name(), "\"",
                     SourceSuffix(context.module(), instr),
                     " reads or writes a host-memory buffer; XLA's "
                     "backends do not support this and fail"),
        instr);
    d.severity = Severity::kError;
    d.fixes.push_back(Fix{
        "move-to-device",
        "bring the buffer to device first (jax.device_put(x, "
        "x.sharding.with_memory_kind(\"device\"))), do the "
        "scatter/gather there, and offload the result afterwards"});
    context.out().push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewScatterGatherOnHostMemory() {
  return std::make_unique<ScatterGatherOnHostMemory>();
}

}  // namespace hloff
