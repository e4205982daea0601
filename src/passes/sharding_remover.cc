// ShardingRemover: sharding custom-calls give their uses to their operand.
#include "passes/sharding_remover.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "passes/replace_instruction.h"

namespace hloff {

absl::StatusOr<bool> ShardingRemover::Run(Module& module) {
  if (NumPartitions(module) > 1) return false;
  bool changed = false;
  for (const auto& comp : module.computations()) {
    // In post order an operand comes first, so a chain of removed
    // custom-calls maps each one straight to the value above the chain.
    absl::flat_hash_map<const Instruction*, Instruction*> replaced;
    std::vector<Instruction*> removed;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->opcode() != HloOpcode::kCustomCall ||
          !IsRemovedShardingTarget(instr->custom_call_target())) {
        continue;
      }
      std::string error;
      if (instr->operand_count() != 1) {
        error = absl::StrCat("custom-call '", instr->name(), "' with target ",
                             instr->custom_call_target(), " has ",
                             instr->operand_count(),
                             " operands; a sharding custom-call has one");
      } else if (!shape_util::Compatible(instr->shape(),
                                         instr->operand(0)->shape())) {
        error = absl::StrCat("custom-call '", instr->name(), "' with target ",
                             instr->custom_call_target(), " has shape ",
                             ShapeToString(instr->shape()),
                             " but its operand has ",
                             ShapeToString(instr->operand(0)->shape()));
      }
      if (!error.empty()) {
        Diagnostic d = MakeDiagnostic(
            DiagCode::kHO9002, absl::StrCat("sharding-remover: ", error), instr);
        absl::Status status = ToXlaStatus(d);
        if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
        return status;
      }
      Instruction* operand = instr->operand(0);
      if (auto it = replaced.find(operand); it != replaced.end()) {
        operand = it->second;
      }
      replaced[instr] = operand;
      removed.push_back(instr);
    }
    if (replaced.empty()) continue;
    MoveUses(comp.get(), replaced);
    for (Instruction* instr : removed) {
      if (instr->user_count() == 0 && !instr->IsRoot() &&
          IsSafelyRemovable(instr)) {
        comp->RemoveInstruction(instr);
      }
    }
    changed = true;
  }
  return changed;
}

}  // namespace hloff
