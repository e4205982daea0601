// HloDCE: dead instructions, then dead computations.
#include "passes/hlo_dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analysis/side_effects.h"
#include "passes/replace_instruction.h"

namespace hloff {
namespace {

// XLA's CanRemoveInstruction (hlo_dce.cc) for an unused instruction.
bool CanRemove(const Instruction* instr, SideEffects& side_effects) {
  if (instr->user_count() != 0 || instr->IsRoot()) return false;
  if (!IsSafelyRemovable(instr)) return false;
  if (instr->IsCustomCall("Sharding") && instr->operand_count() > 0) {
    const Instruction* operand = instr->operand(0);
    if (operand->IsRoot() || operand->opcode() == HloOpcode::kParameter ||
        operand->user_count() != 1) {
      return false;
    }
  }
  // XLA lets a side-effecting while go when nothing in its computations has
  // side effects, which is when side_effects.Of says none already.
  return !side_effects.Of(instr);
}

}  // namespace

bool RunHloDce(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  // Callers before callees, each computation once (XLA's agenda).
  absl::flat_hash_set<const Computation*> reached = {module.entry()};
  std::vector<Computation*> agenda = {module.entry()};
  while (!agenda.empty()) {
    Computation* comp = agenda.back();
    agenda.pop_back();
    std::vector<Instruction*> dead_roots;
    // The GPU compiler runs its pipelines on the main execution thread.
    bool main_thread = comp->execution_thread() == "main";
    for (const auto& owned : comp->raw_instructions()) {
      if (!main_thread) break;
      Instruction* instr = owned.get();
      if (!instr->IsDead() && CanRemove(instr, side_effects)) {
        dead_roots.push_back(instr);
      }
    }
    for (Instruction* instr : dead_roots) {
      if (instr->IsDead()) continue;
      RemoveInstructionAndUnusedOperands(instr, side_effects);
      changed = true;
    }
    for (const auto& owned : comp->raw_instructions()) {
      if (owned->IsDead()) continue;
      for (Computation* called : owned->called_computations()) {
        if (reached.insert(called).second) agenda.push_back(called);
      }
    }
  }
  size_t before = module.computations().size();
  module.RemoveComputations(
      [&](const Computation* comp) {
        return comp->execution_thread() == "main" && !reached.contains(comp);
      });
  changed |= module.computations().size() != before;
  return changed;
}

absl::StatusOr<bool> HloDce::Run(Module& module) { return RunHloDce(module); }

}  // namespace hloff
