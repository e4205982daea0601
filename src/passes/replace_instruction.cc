// ReplaceInstruction and RemoveInstructionAndUnusedOperands as XLA's.
#include "passes/replace_instruction.h"

#include <vector>

#include "absl/container/flat_hash_set.h"

namespace hloff {

bool HasPrintedOpName(const Instruction* instr) {
  std::optional<RawAttribute> md = instr->FindRawAttribute("metadata");
  if (!md) return false;
  size_t at = md->value.find("op_name=\"");
  return at != absl::string_view::npos &&
         at + 9 < md->value.size() && md->value[at + 9] != '"';
}

void MoveUses(Computation* comp,
              const absl::flat_hash_map<const Instruction*, Instruction*>&
                  replaced) {
  absl::flat_hash_set<Instruction*> seen;
  std::vector<Instruction*> users;
  for (const auto& [old, _] : replaced) {
    for (Instruction* user : old->users()) {
      if (seen.insert(user).second) users.push_back(user);
    }
  }
  for (Instruction* user : users) user->ReplaceOperandsWith(replaced);
  if (auto it = replaced.find(comp->root()); it != replaced.end()) {
    comp->set_root(it->second);
  }
}

bool IsSafelyRemovable(const Instruction* instr) {
  return instr->opcode() != HloOpcode::kParameter &&
         instr->control_predecessors().empty() &&
         instr->control_successors().empty();
}

void RemoveInstructionAndUnusedOperands(Instruction* instr,
                                        SideEffects& side_effects) {
  Computation* comp = instr->parent();
  std::vector<Instruction*> worklist = {instr};
  while (!worklist.empty()) {
    Instruction* current = worklist.back();
    worklist.pop_back();
    if (current->IsDead() || current->user_count() != 0 ||
        current == comp->root() || !IsSafelyRemovable(current)) {
      continue;
    }
    if (current != instr && side_effects.Of(current)) continue;
    absl::Span<Instruction* const> operands = current->operands();
    std::vector<Instruction*> ops(operands.begin(), operands.end());
    comp->RemoveInstruction(current);
    for (Instruction* op : ops) worklist.push_back(op);
  }
}

bool PrepareReplacement(Instruction* old, Instruction* replacement,
                        const ReplaceOptions& options) {
  if (old == replacement) return false;
  if (!shape_util::Compatible(old->shape(), replacement->shape())) return false;
  std::optional<RawAttribute> old_sharding = old->sharding();
  std::optional<RawAttribute> new_sharding = replacement->sharding();
  if (options.preserve_sharding && old_sharding && new_sharding &&
      old_sharding->value != new_sharding->value) {
    return false;
  }
  bool old_has_control = !old->control_predecessors().empty() ||
                         !old->control_successors().empty();
  if (old_has_control) {
    if (!options.relay_control_dependency) return false;
    std::vector<Instruction*> preds(old->control_predecessors().begin(),
                                    old->control_predecessors().end());
    std::vector<Instruction*> succs(old->control_successors().begin(),
                                    old->control_successors().end());
    old->DropAllControlDeps();
    for (Instruction* p : preds) {
      if (p != replacement) p->AddControlDependencyTo(replacement);
    }
    for (Instruction* s : succs) {
      if (s != replacement) replacement->AddControlDependencyTo(s);
    }
  }
  // XLA gives `replacement` `old`'s metadata when it has no op_name. Not
  // when it stands for an input instruction with one (a MoveToHost made from
  // an annotation reports the annotation's line, not that of what it
  // replaces).
  if (!replacement->FindRawAttribute("metadata") && HasPrintedOpName(old) &&
      replacement->metadata().op_name.empty()) {
    replacement->set_metadata_from(*old);
  }
  if (!new_sharding && old_sharding) replacement->set_sharding(old_sharding);
  if (old->opcode() == replacement->opcode() &&
      (old->opcode() != HloOpcode::kCustomCall ||
       old->custom_call_target() == replacement->custom_call_target())) {
    replacement->set_name(old->name());
  }
  return true;
}

bool ReplaceInstruction(Instruction* old, Instruction* replacement,
                        const ReplaceOptions& options,
                        SideEffects& side_effects) {
  if (!PrepareReplacement(old, replacement, options)) return false;
  old->ReplaceAllUsesWith(replacement);
  if (options.remove_unused_operands) {
    RemoveInstructionAndUnusedOperands(old, side_effects);
  } else {
    old->parent()->RemoveInstruction(old);
  }
  return true;
}

}  // namespace hloff
