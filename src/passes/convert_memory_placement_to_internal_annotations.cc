// ConvertMemoryPlacementToInternalAnnotations (main spec §3.1, addendum C7).
#include "passes/convert_memory_placement_to_internal_annotations.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"

namespace hloff {

absl::StatusOr<bool> ConvertMemoryPlacementToInternalAnnotations::Run(
    Module& module) {
  // Fusion computations are skipped, as in XLA. Only computations holding an
  // annotation need their post order (one scan finds them).
  absl::flat_hash_set<const Computation*> fused;
  absl::flat_hash_set<const Computation*> annotated;
  for (const auto& comp : module.computations()) {
    for (Instruction* instr : comp->key_instructions()) {
      if (instr->opcode() == HloOpcode::kFusion) {
        for (Computation* c : instr->called_computations()) fused.insert(c);
      } else if (instr->IsCustomCall(kDevicePlacementTarget)) {
        annotated.insert(comp.get());
      }
    }
  }
  bool changed = false;
  for (const auto& comp : module.computations()) {
    if (fused.contains(comp.get()) || !annotated.contains(comp.get())) continue;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->IsDead() || !instr->IsCustomCall(kDevicePlacementTarget)) {
        continue;
      }
      auto placement = instr->GetFrontendAttribute(kBufferPlacementAttr);
      if (!placement) continue;
      absl::string_view target;
      // What diagnostics call the new instruction: "<annotation> (<note>)".
      absl::string_view note;
      bool to_host = false;
      if (*placement == "pinned_host") {
        target = kMoveToHostTarget;
        note = "annotate_device_placement pinned_host";
        to_host = true;
      } else if (*placement == "unpinned_host") {
        target = kMoveToHostTarget;
        note = "annotate_device_placement unpinned_host";
        to_host = true;
      } else if (*placement == "device") {
        target = kMoveToDeviceTarget;
        note = "annotate_device_placement device";
      } else if (*placement == "vmem") {
        target = kPinToDeviceSramTarget;
        note = "annotate_device_placement vmem";
      } else if (*placement == "pinned_device") {
        target = kPinToDeviceTarget;
        note = "annotate_device_placement pinned_device";
      } else {
        continue;
      }
      if (to_host && instr->operand_count() != 1) {
        std::string message = absl::StrCat(
            "Custom calls with target annotate_device_placement must have "
            "exactly one operand. ",
            instr->name(), " has ", instr->operand_count(), ".");
        if (context_.diagnostics) {
          context_.diagnostics->Emit(
              MakeDiagnostic(DiagCode::kHO1009, message, instr));
        }
        return absl::InternalError(message);
      }
      if (instr->operand_count() < 1) continue;
      Instruction* operand = instr->operand(0);
      Instruction* call = comp->AddInstruction(
          HloOpcode::kCustomCall, operand->shape(), {operand}, "custom-call");
      InstructionBuilder::SetCustomCallTarget(call, std::string(target));
      call->set_sharding(instr->sharding());
      // Not printed (XLA does not copy it), but kept so that diagnostics can
      // name the user's line.
      call->set_origin_from(*instr, note);
      instr->ReplaceAllUsesWith(call);
      comp->RemoveInstructionAndUnusedOperands(instr);
      changed = true;
    }
    // The annotations' memory serves the next computation's new calls.
    comp->Sweep();
  }
  return changed;
}

}  // namespace hloff
