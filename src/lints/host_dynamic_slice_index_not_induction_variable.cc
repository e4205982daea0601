// HO3005 HostDynamicSliceIndexNotInductionVariable (docs/errors/HO3005.md).
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects, in a while body after the pipeline, a dynamic-slice of a host
// buffer indexed by a function of the loop counter (`n - 1 - i`, `i + 1`)
// rather than the counter itself. The offloading passes handle it correctly,
// but on GPU HostMemoryTransferAsyncifier
// (xla/service/host_memory_transfer_asyncifier.cc) and the dynamic-slice
// analysis after it substituted the raw counter for such an index and read
// the wrong slab (openxla/xla pull request 46231, not in the XLA followed
// here), so the results are worth comparing against a run without
// offloading. A GPU risk: not reported for --backend=tpu.
class HostDynamicSliceIndexNotInductionVariable : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kDynamicSlice;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (context.options().backend == TargetBackend::kTpu ||
        !context.in_loop_body() ||
        instr->operand(0)->shape().memory_space() != kHostMemorySpace) {
      return;
    }
    for (int64_t i = 1; i < instr->operand_count(); ++i) {
      const Instruction* index = instr->operand(i);
      if (index->opcode() == HloOpcode::kConstant ||
          index->opcode() == HloOpcode::kGetTupleElement) {
        continue;
      }
      // Does it depend on the loop counter (a GTE of the body parameter at
      // an index the root increments by a constant)?
      std::vector<const Instruction*> stack = {index};
      absl::flat_hash_set<const Instruction*> seen;
      bool depends = false;
      const absl::flat_hash_set<int64_t>& counters =
          context.LoopCounters(context.computation());
      while (!stack.empty() && !depends && seen.size() < 64) {
        const Instruction* at = stack.back();
        stack.pop_back();
        if (!seen.insert(at).second) continue;
        if (at->opcode() == HloOpcode::kGetTupleElement &&
            at->operand(0)->opcode() == HloOpcode::kParameter &&
            counters.contains(at->tuple_index())) {
          depends = true;
        }
        for (const Instruction* op : at->operands()) stack.push_back(op);
      }
      if (!depends) continue;
      context.out().push_back(MakeDiagnostic(
          DiagCode::kHO3005,
          absl::StrCat("dynamic-slice \"", instr->input_name(), "\" reads host "
                       "buffer \"", instr->operand(0)->input_name(),
                       "\" at index \"", index->input_name(), "\" (",
                       index->opcode_spelling(),
                       "), a function of the loop counter rather than the "
                       "counter itself; this shape was behind a known GPU "
                       "miscompile of offloaded scan residuals: compare "
                       "the results against a run without offloading"),
          instr));
      break;
    }
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewHostDynamicSliceIndexNotInductionVariable() {
  return std::make_unique<HostDynamicSliceIndexNotInductionVariable>();
}

}  // namespace hloff
