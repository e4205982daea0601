// Diagnostic codes and XLA status formatting.
#include "diag/diagnostic.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace {
struct CodeInfo {
  DiagCode code;
  absl::string_view text, name;
  absl::StatusCode status;
  Severity severity;
  absl::string_view summary;
};
using absl::StatusCode;
constexpr Severity kError = Severity::kError;
constexpr Severity kWarning = Severity::kWarning;
constexpr Severity kNote = Severity::kNote;
constexpr StatusCode kOk = StatusCode::kOk;
constexpr StatusCode kInvalidArgument = StatusCode::kInvalidArgument;
constexpr StatusCode kUnimplemented = StatusCode::kUnimplemented;
constexpr StatusCode kInternal = StatusCode::kInternal;
constexpr CodeInfo kCodes[] = {
#define X(code, name, status, severity, summary) \
  {DiagCode::k##code, #code, #name, status, severity, summary},
#include "diag/codes.def"
#undef X
};
const CodeInfo& Info(DiagCode code) { return kCodes[static_cast<int>(code)]; }
}  // namespace

absl::string_view DiagCodeString(DiagCode code) { return Info(code).text; }
absl::string_view DiagCodeName(DiagCode code) { return Info(code).name; }
absl::string_view DiagCodeSummary(DiagCode code) { return Info(code).summary; }
absl::StatusCode DiagCodeStatus(DiagCode code) { return Info(code).status; }
Severity DiagCodeSeverity(DiagCode code) { return Info(code).severity; }
bool IsXlaErrorCode(DiagCode code) { return Info(code).text[0] == 'E'; }

std::optional<DiagCode> ParseDiagCode(absl::string_view text) {
  for (const CodeInfo& info : kCodes) {
    if (absl::EqualsIgnoreCase(info.text, text)) return info.code;
    // XLA's pages say error_1200: "1200" means E1200.
    if (info.text[0] == 'E' && info.text.substr(1) == text) return info.code;
  }
  return std::nullopt;
}

std::vector<DiagCode> AllDiagCodes() {
  std::vector<DiagCode> out;
  for (const CodeInfo& info : kCodes) out.push_back(info.code);
  return out;
}

std::string DiagCodeHelpUri(DiagCode code) {
  absl::string_view text = DiagCodeString(code);
  if (IsXlaErrorCode(code)) {
    return absl::StrCat("https://openxla.org/xla/errors/error_", text.substr(1));
  }
  return absl::StrCat("docs/errors/", text, ".md");
}

bool DiagnosticSink::HasErrors() const {
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

absl::Status ToXlaStatus(const Diagnostic& diagnostic) {
  absl::StatusCode status =
      diagnostic.status_code.value_or(DiagCodeStatus(diagnostic.code));
  if (status == absl::StatusCode::kOk) return absl::OkStatus();
  if (!IsXlaErrorCode(diagnostic.code)) {
    return absl::Status(status, diagnostic.message);
  }
  return absl::Status(
      status, absl::StrCat(DiagCodeString(diagnostic.code), ": ",
                           DiagCodeName(diagnostic.code), ":\n",
                           diagnostic.message, "\nSee ",
                           DiagCodeHelpUri(diagnostic.code),
                           " for more details."));
}

Diagnostic MakeDiagnostic(DiagCode code, std::string message,
                          const Instruction* instr) {
  Diagnostic d;
  d.code = code;
  d.severity = DiagCodeSeverity(code);
  d.message = std::move(message);
  if (instr != nullptr) {
    d.loc = instr->loc();
    // As the instruction stood in the input (a clone made by inlining is
    // reported as the callee's instruction it copies).
    d.instruction = std::string(instr->input_name());
    if (instr->parent() != nullptr) {
      d.computation = std::string(instr->input_computation());
      // A lint names the user's line of the instruction it quotes (from its
      // metadata), as XLA's own diagnostics here do.
      const Module* module = instr->parent()->parent();
      if (module != nullptr &&
          absl::StartsWith(DiagCodeString(code), "HO3")) {
        if (auto pos = module->ResolveSource(instr->metadata());
            pos.has_value() && !pos->file.empty()) {
          d.source =
              ProgramSource{pos->file, pos->line, instr->metadata().op_name};
        }
      }
    }
  }
  return d;
}

}  // namespace hloff
