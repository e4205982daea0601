// TupleSimplifier: get-tuple-element of tuple, tuple of get-tuple-elements.
#include "passes/tuple_simplifier.h"

#include <vector>

#include "absl/container/flat_hash_map.h"

#include "analysis/side_effects.h"
#include "passes/replace_instruction.h"

namespace hloff {
namespace {

using Replacements = absl::flat_hash_map<const Instruction*, Instruction*>;

// What `instr` stands for once the replacements made so far in its
// computation take effect (their uses move at the end, in one pass).
Instruction* Resolve(const Replacements& replaced, Instruction* instr) {
  for (auto it = replaced.find(instr); it != replaced.end();
       it = replaced.find(instr)) {
    instr = it->second;
  }
  return instr;
}

// XLA's TupleSimplifier::RemoveWholeTuple: tuple(gte(x,0), ..., gte(x,n-1))
// with x of the tuple's shape is x.
Instruction* WholeTupleSource(const Instruction* tuple,
                              const Replacements& replaced) {
  Instruction* top = nullptr;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    Instruction* operand = Resolve(replaced, tuple->operand(i));
    if (operand->opcode() != HloOpcode::kGetTupleElement ||
        operand->operand_count() != 1 || operand->tuple_index() != i) {
      return nullptr;
    }
    Instruction* source = Resolve(replaced, operand->operand(0));
    if (top == nullptr) {
      top = source;
      if (!shape_util::Compatible(top->shape(), tuple->shape())) return nullptr;
    } else if (top != source) {
      return nullptr;
    }
  }
  return top;
}

// For a get-tuple-element chain gte(...gte(x, i1)..., in): the tuple element
// x{i1,...,in} when x and the levels below it are tuple instructions, else
// nullptr (XLA's LatestNonGteAncestorAndIndex, then the walk down the
// tuples).
Instruction* ElementOfTuple(Instruction* gte, const Replacements& replaced) {
  std::vector<int64_t> index;
  Instruction* ancestor = gte;
  while (ancestor->opcode() == HloOpcode::kGetTupleElement &&
         ancestor->operand_count() == 1) {
    index.push_back(ancestor->tuple_index());
    ancestor = Resolve(replaced, ancestor->operand(0));
  }
  Instruction* replacement = ancestor;
  for (auto it = index.rbegin(); it != index.rend(); ++it) {
    if (replacement->opcode() != HloOpcode::kTuple || *it < 0 ||
        *it >= replacement->operand_count()) {
      return nullptr;
    }
    replacement = Resolve(replaced, replacement->operand(*it));
  }
  return replacement;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (const auto& comp : module.computations()) {
    // Replacements are decided in post order as XLA's are, each seeing the
    // ones before it; the uses move at the end.
    Replacements replaced;
    std::vector<Instruction*> order;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      Instruction* replacement = nullptr;
      ReplaceOptions options;
      options.preserve_sharding = true;
      if (instr->opcode() == HloOpcode::kTuple) {
        replacement = WholeTupleSource(instr, replaced);
      } else if (instr->opcode() == HloOpcode::kGetTupleElement) {
        replacement = ElementOfTuple(instr, replaced);
        options.relay_control_dependency = true;
      }
      if (replacement == nullptr || replacement == instr) continue;
      if (!PrepareReplacement(instr, replacement, options)) continue;
      replaced[instr] = replacement;
      order.push_back(instr);
    }
    if (replaced.empty()) continue;
    MoveUses(comp.get(), replaced);
    for (Instruction* old : order) {
      if (!old->IsDead() && old->user_count() == 0 && !old->IsRoot()) {
        RemoveInstructionAndUnusedOperands(old, side_effects);
      }
    }
    changed = true;
  }
  return changed;
}

}  // namespace hloff
