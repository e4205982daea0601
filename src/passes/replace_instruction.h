// Replacing one instruction by another the way XLA's passes do it, and
// removing an instruction with the operands it leaves unused, as the
// simplification passes (call-inliner, tuple-simplifier, algsimp, dce) need
// it. Mirrors xla/hlo/ir/hlo_computation.cc: ReplaceInstruction /
// ReplaceInstructionWithDifferentShape and RemoveInstructionAndUnusedOperands
// (with IsSafelyRemovable).
#ifndef HLO_OFFLOAD_PASSES_REPLACE_INSTRUCTION_H_
#define HLO_OFFLOAD_PASSES_REPLACE_INSTRUCTION_H_

#include "absl/container/flat_hash_map.h"
#include "analysis/side_effects.h"
#include "ir/hlo.h"

namespace hloff {

// XLA's ReplaceInstruction arguments.
struct ReplaceOptions {
  // Refuse (return false) when both carry shardings that differ.
  bool preserve_sharding = false;
  // Move `old`'s control edges to `replacement`; without it an `old` with
  // control edges is not replaced.
  bool relay_control_dependency = false;
  // Remove `old` and, transitively, the operands it leaves unused;
  // otherwise `old` alone.
  bool remove_unused_operands = true;
};

// Replaces every use of `old` (the root included) by `replacement` and
// removes `old`, as XLA does: `replacement` takes `old`'s metadata when it has
// no op_name of its own and `old`'s sharding when it has none, and `old`'s
// name when both have the same opcode (and custom-call target). Frontend
// attributes are not copied (XLA copies them to a replacement without any;
// no offloading pass reads them there). Returns false, changing nothing, when
// the shapes are not compatible (XLA fails a RET_CHECK) or the options
// refuse; `side_effects` decides which unused operands stay.
bool ReplaceInstruction(Instruction* old, Instruction* replacement,
                        const ReplaceOptions& options,
                        SideEffects& side_effects);

// What ReplaceInstruction does besides moving the uses and removing `old`:
// the checks (false: nothing is changed), the control edges, metadata,
// sharding and name. For passes that move many uses at once
// (Instruction::ReplaceOperandsWith).
bool PrepareReplacement(Instruction* old, Instruction* replacement,
                        const ReplaceOptions& options);

// Moves every use (the root included) of each key of `replaced`, an
// instruction of `comp`, to its value, rewriting each user once however many
// of its operands move: what a pass that replaces many instructions does
// instead of one ReplaceInstruction each, which would rescan a wide user (a
// tuple of 10^5 operands) once per operand. The keys stay, unused, for the
// caller to remove.
void MoveUses(Computation* comp,
              const absl::flat_hash_map<const Instruction*, Instruction*>&
                  replaced);

// Whether the printed `metadata` of `instr` has a non-empty op_name (read
// from its text; nothing is parsed).
bool HasPrintedOpName(const Instruction* instr);

// Whether XLA's HloComputation::IsSafelyRemovable (without a call graph)
// holds: not a parameter, no control edges.
bool IsSafelyRemovable(const Instruction* instr);

// Removes `instr` (which must be unused and not a root) and then every
// operand left unused that is safely removable and has no side effects
// (xla::HloComputation::RemoveInstructionAndUnusedOperands). Linear in what
// it removes.
void RemoveInstructionAndUnusedOperands(Instruction* instr,
                                        SideEffects& side_effects);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_REPLACE_INSTRUCTION_H_
