// TupleSimplifier: get-tuple-element of tuple, tuple of get-tuple-elements.
#include "passes/tuple_simplifier.h"

#include <vector>

#include "analysis/side_effects.h"
#include "passes/replace_instruction.h"

namespace hloff {
namespace {

// XLA's TupleSimplifier::RemoveWholeTuple: tuple(gte(x,0), ..., gte(x,n-1))
// with x of the tuple's shape is x.
bool RemoveWholeTuple(Instruction* tuple, SideEffects& side_effects) {
  Instruction* top = nullptr;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    const Instruction* operand = tuple->operand(i);
    if (operand->opcode() != HloOpcode::kGetTupleElement ||
        operand->tuple_index() != i) {
      return false;
    }
    if (top == nullptr) {
      top = operand->operand(0);
      if (!shape_util::Compatible(top->shape(), tuple->shape())) return false;
    } else if (top != operand->operand(0)) {
      return false;
    }
  }
  if (top == nullptr) return false;
  ReplaceOptions options;
  options.preserve_sharding = true;
  return ReplaceInstruction(tuple, top, options, side_effects);
}

// For a get-tuple-element chain gte(...gte(x, i1)..., in): the tuple element
// x{i1,...,in} when x and the levels below it are tuple instructions, else
// nullptr (XLA's LatestNonGteAncestorAndIndex, then the walk down the
// tuples).
Instruction* ElementOfTuple(Instruction* gte) {
  std::vector<int64_t> index;
  Instruction* ancestor = gte;
  while (ancestor->opcode() == HloOpcode::kGetTupleElement &&
         ancestor->operand_count() == 1) {
    index.push_back(ancestor->tuple_index());
    ancestor = ancestor->operand(0);
  }
  Instruction* replacement = ancestor;
  for (auto it = index.rbegin(); it != index.rend(); ++it) {
    if (replacement->opcode() != HloOpcode::kTuple || *it < 0 ||
        *it >= replacement->operand_count()) {
      return nullptr;
    }
    replacement = replacement->operand(*it);
  }
  return replacement;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (const auto& comp : module.computations()) {
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->IsDead()) continue;
      if (instr->opcode() == HloOpcode::kTuple) {
        changed |= RemoveWholeTuple(instr, side_effects);
        continue;
      }
      if (instr->opcode() != HloOpcode::kGetTupleElement) continue;
      Instruction* replacement = ElementOfTuple(instr);
      if (replacement == nullptr || replacement == instr) continue;
      ReplaceOptions options;
      options.preserve_sharding = true;
      options.relay_control_dependency = true;
      changed |= ReplaceInstruction(instr, replacement, options, side_effects);
    }
  }
  return changed;
}

}  // namespace hloff
