// HO3006 LayoutChangeOnHostPath (docs/errors/HO3006.md).
#include <optional>

#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects, in the input, a layout-changing copy (a transpose) between a move
// to host and an entry output declared in host memory. XLA accepts it:
// HostOffloadLegalize (xla/hlo/transforms/host_offload_legalize.cc) cannot
// move the copy past the output, so it hoists it above the MoveToHost, where
// it runs on device into an extra device buffer of the full size; the offload
// then costs the device memory it was meant to save.
class LayoutChangeOnHostPath : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kCopy;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (!context.in_entry() ||
        !IsToHostAnnotation(instr->operand(0)) ||
        instr->shape().layout.minor_to_major ==
            instr->operand(0)->shape().layout.minor_to_major) {
      return;
    }
    std::optional<ShapeIndex> output;
    if (instr->IsRoot()) {
      output = ShapeIndex{};
    } else {
      for (const Instruction* user : instr->users()) {
        if (user->IsRoot() && user->opcode() == HloOpcode::kTuple) {
          output = ShapeIndex{user->OperandIndices(instr).front()};
        }
      }
    }
    const EntryComputationLayout& layout = context.layout();
    const Shape* declared =
        output ? shape_util::TryGetSubshape(layout.result, *output) : nullptr;
    if (declared == nullptr || !HasHostLeaf(*declared)) return;
    const Instruction* value = instr->operand(0)->operand(0);
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3006,
        absl::StrCat(
            "\"", value->input_name(), "\"", SourceSuffix(context.module(), value),
            " is offloaded with layout ",
            ShapeToString(instr->operand(0)->shape()),
            " but returned in host memory as ", ShapeToString(instr->shape()),
            ": the ", LintBytes(shape_util::ByteSizeOf(instr->shape())),
            " layout change is a transpose; HostOffloadLegalize cannot "
            "move it past the output, so it hoists it above the "
            "MoveToHost onto the device (an extra ",
            LintBytes(shape_util::ByteSizeOf(instr->shape())),
            " device buffer)"),
        instr);
    d.fixes.push_back(Fix{"layout",
                          "give the value the output's layout before the "
                          "device_put (or make the output layout match), "
                          "so that no transpose is needed"});
    context.out().push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewLayoutChangeOnHostPath() {
  return std::make_unique<LayoutChangeOnHostPath>();
}

}  // namespace hloff
