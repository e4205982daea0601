// StripMemoryPlacementAnnotations (addendum C9).
#include "passes/strip_memory_placement_annotations.h"

#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"
#include "text/printer.h"

namespace hloff {

absl::StatusOr<bool> StripMemoryPlacementAnnotations::Run(Module& module) {
  bool changed = false;
  for (const auto& comp : module.computations()) {
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (!instr->IsCustomCall(kDevicePlacementTarget) && !IsMoveToHost(instr) &&
          !IsMoveToDevice(instr)) {
        continue;
      }
      if (instr->operand_count() != 1) {
        std::string message = absl::StrCat(
            "Memory placement custom call should have exactly one operand: ",
            InstructionToString(*instr));
        if (context_.diagnostics) {
          context_.diagnostics->Emit(
              MakeDiagnostic(DiagCode::kHO1009, message, instr));
        }
        return absl::InternalError(message);
      }
      Instruction* operand = instr->operand(0);
      if (instr->sharding() && !operand->sharding()) {
        operand->set_sharding(instr->sharding());
      }
      instr->ReplaceAllUsesWith(operand);
      comp->RemoveInstruction(instr);
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloff
