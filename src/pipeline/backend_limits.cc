// Backend limits after the offloading passes (pipeline/backend_limits.h).
#include "pipeline/backend_limits.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "text/printer.h"

namespace hloff {
namespace {

// XLA's message for `instr`, whose result is in `result_space` and one of
// whose operands is in `operand_space`, or "" when the verifier accepts the
// pair. The verifier compares layouts without their memory space
// (Layout::Equal().IgnoreMemorySpace()) except for a dynamic-slice or
// dynamic-update-slice (instructions LayoutAssignment keeps in their
// operands' layout), whose memory spaces HostOffloadInstructionCanChangeMemorySpace
// checks; a copy may change layout and is not compared.
std::string VerifierMessage(const Instruction& instr, int64_t operand_space,
                            int64_t result_space) {
  switch (instr.opcode()) {
    case HloOpcode::kDynamicSlice:
      if (operand_space == kDefaultMemorySpace && result_space == kHostMemorySpace) {
        return absl::StrCat(
            "DynamicSlice instruction shouldn't change layout memory space "
            "from device to host: ", InstructionToString(instr));
      }
      return "";
    case HloOpcode::kDynamicUpdateSlice:
      if (operand_space == kHostMemorySpace && result_space == kDefaultMemorySpace) {
        return absl::StrCat(
            "DynamicUpdateSlice instruction shouldn't change layout memory "
            "space from host to device: ", InstructionToString(instr));
      }
      return "";
    default:
      return "";
  }
}

}  // namespace

void CheckBackendLimits(const Module& module, TargetBackend backend,
                        std::vector<Diagnostic>& out) {
  if (backend == TargetBackend::kTpu) return;
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      const Shape& result = instr->shape();
      if ((instr->opcode() != HloOpcode::kDynamicSlice &&
           instr->opcode() != HloOpcode::kDynamicUpdateSlice) ||
          !result.IsArray() || !result.has_layout) {
        continue;
      }
      for (const Instruction* operand : instr->operands()) {
        const Shape& shape = operand->shape();
        if (!shape.IsArray() || !shape.has_layout ||
            shape.rank() != result.rank() ||
            shape.memory_space() == result.memory_space()) {
          continue;
        }
        std::string message =
            VerifierMessage(*instr, shape.memory_space(), result.memory_space());
        if (message.empty()) continue;
        Diagnostic d = MakeDiagnostic(DiagCode::kHO1012, std::move(message), instr);
        if (backend == TargetBackend::kAny) {
          d.severity = Severity::kWarning;
          d.message = absl::StrCat("on GPU: ", d.message,
                                   " (libtpu accepts it; --backend=gpu makes "
                                   "this an error, --backend=tpu drops it)");
        }
        out.push_back(std::move(d));
        break;  // one diagnostic per instruction, as the verifier stops
      }
    }
  }
}

}  // namespace hloff
