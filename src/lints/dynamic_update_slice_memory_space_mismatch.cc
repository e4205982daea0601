// HO3007 DynamicUpdateSliceMemorySpaceMismatch (docs/errors/HO3007.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects, after the pipeline, a dynamic-update-slice whose update is in host
// memory and whose result is not: outside the one cross-memory-space form
// offloading supports (a device update into a host buffer). HostOffloader
// (xla/hlo/transforms/host_offloader.cc) turns it into host compute and
// leaves its result in device memory without a word beyond the host-compute
// warning; a verifier later in a real compiler rejects the mismatch far from
// its cause.
class DynamicUpdateSliceMemorySpaceMismatch : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kDynamicUpdateSlice;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    int64_t buffer = instr->operand(0)->shape().memory_space();
    int64_t update = instr->operand(1)->shape().memory_space();
    int64_t result = instr->shape().memory_space();
    if (update != kHostMemorySpace || result == kHostMemorySpace) return;
    const Instruction* source = instr->operand(1);
    context.out().push_back(MakeDiagnostic(
        DiagCode::kHO3007,
        absl::StrCat("dynamic-update-slice \"", instr->input_name(),
                     "\" writes host value \"", source->input_name(), "\"",
                     SourceSuffix(context.module(), source), " into ",
                     buffer == kHostMemorySpace ? "a host" : "a device",
                     " buffer and stays in device memory: XLA turns it "
                     "into host compute; move the update back to device "
                     "first (annotate it with \"device\" / "
                     "jax.device_put(x, x.sharding.with_memory_kind("
                     "\"device\"))), the sanctioned form is a device "
                     "update into a host buffer"),
        instr));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewDynamicUpdateSliceMemorySpaceMismatch() {
  return std::make_unique<DynamicUpdateSliceMemorySpaceMismatch>();
}

}  // namespace hloff
