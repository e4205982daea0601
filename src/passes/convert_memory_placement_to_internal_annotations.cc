// ConvertMemoryPlacementToInternalAnnotations (main spec §3.1, addendum C7).
#include "passes/convert_memory_placement_to_internal_annotations.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"

namespace hloff {
namespace {

bool IsFloatingPoint(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16: case PrimitiveType::kBF16:
    case PrimitiveType::kF32: case PrimitiveType::kF64:
    case PrimitiveType::kF8E5M2: case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E4M3FN: case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E3M4: case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ: case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF6E3M2FN: case PrimitiveType::kF6E2M3FN:
    case PrimitiveType::kF4E2M1FN:
      return true;
    default:
      return false;
  }
}

// xla::ShapeUtil::CompatibleIgnoringFpPrecision, which XLA's
// ReplaceAllUsesWith RET_CHECKs: equal ignoring layouts and float widths.
bool CompatibleIgnoringFpPrecision(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (a.element_type != b.element_type ||
        a.tuple_shapes.size() != b.tuple_shapes.size()) {
      return false;
    }
    for (size_t i = 0; i < a.tuple_shapes.size(); ++i) {
      if (!CompatibleIgnoringFpPrecision(a.tuple_shapes[i], b.tuple_shapes[i])) {
        return false;
      }
    }
    return true;
  }
  if (a.element_type != b.element_type &&
      !(IsFloatingPoint(a.element_type) && IsFloatingPoint(b.element_type))) {
    return false;
  }
  return a.dimensions == b.dimensions;
}

}  // namespace

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
      bool to_host = false;
      if (*placement == "pinned_host") {
        target = kMoveToHostTarget;
        to_host = true;
      } else if (*placement == "unpinned_host") {
        target = kMoveToHostTarget;
        to_host = true;
      } else if (*placement == "device") {
        target = kMoveToDeviceTarget;
      } else if (*placement == "vmem") {
        target = kPinToDeviceSramTarget;
      } else if (*placement == "pinned_device") {
        target = kPinToDeviceTarget;
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
      // The new call takes the operand's shape; XLA's ReplaceAllUsesWith
      // then fails a RET_CHECK when the annotation declared another one.
      if (!CompatibleIgnoringFpPrecision(instr->shape(), operand->shape())) {
        std::string message = absl::StrCat(
            "The shape doesn't match when replacing '", instr->name(),
            "' with a ", target, " of its operand: ", instr->name(),
            " has shape ", ShapeToString(instr->shape()), ", its operand '",
            operand->name(), "' has shape ", ShapeToString(operand->shape()));
        if (context_.diagnostics) {
          context_.diagnostics->Emit(
              MakeDiagnostic(DiagCode::kHO1008, message, instr));
        }
        return absl::InternalError(message);
      }
      Instruction* call = comp->AddInstruction(
          HloOpcode::kCustomCall, operand->shape(), {operand}, "custom-call");
      InstructionBuilder::SetCustomCallTarget(call, std::string(target));
      call->set_sharding(instr->sharding());
      // Not printed (XLA does not copy it), but kept so that diagnostics can
      // name the user's line; printed when asked (OffloadOptions).
      call->set_origin_from(*instr);
      if (context_.options.print_annotation_metadata) call->set_metadata_from(*instr);
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
