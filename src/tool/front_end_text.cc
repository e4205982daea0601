// What the hlo-offload command line writes about a file a front end read:
// its notes, where a converted module's diagnostics are located, and its
// errors (tool/front_end_text.h).
#include "tool/front_end_text.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "diag/render.h"

namespace hloff {
namespace tool {
namespace {

// The note on where the diagnostics of a module the front end converted or
// partitioned are located (check, text and xla, when it reports any).
std::string LocationNote(Command command, DiagnosticFormat format,
                         const PipelineResult& result,
                         const FrontEndInput& input) {
  bool reported = false;
  for (const ModuleResult& module : result.modules) {
    reported |= !module.diagnostics.empty();
  }
  bool text_or_xla =
      format == DiagnosticFormat::kText || format == DiagnosticFormat::kXla;
  if (command != Command::kCheck || !text_or_xla || !reported ||
      !input.locate_in_source) {
    return "";
  }
  return absl::StrCat(
      "hlo-offload: note: ", result.path,
      input.partitioned
          ? " was partitioned: a diagnostic is located at its line in your "
            "program where the module's metadata says it, then at its line in "
            "the partitioned module (not this file's line: the partitioned "
            "module is hlo_offload.check(pathlib.Path(FILE)).hlo_text)\n"
          : " is StableHLO: a diagnostic is located at its line in your program "
            "(or in the file), then at its line in the HLO module XLA compiles "
            "from it, which lies past the file's own lines\n");
}

// The front end's errors: as text, or with check's --format=xla as XLA's
// statuses (errors only).
std::string FrontEndErrors(Command command, DiagnosticFormat format,
                           bool several, const PipelineResult& result,
                           const FrontEndInput& input) {
  std::string out;
  if (format == DiagnosticFormat::kText || command != Command::kCheck) {
    SourceText source{result.path, absl::string_view(), {}};
    for (const Diagnostic& d : input.errors) out += RenderText(d, source);
  } else if (format == DiagnosticFormat::kXla) {
    for (const Diagnostic& d : input.errors) {
      if (d.severity != Severity::kError) continue;  // XLA's status alone
      absl::StrAppend(&out, several ? absl::StrCat(result.path, ": ") : "",
                      "INVALID_ARGUMENT: ", d.message, "\n");
    }
  }
  return out;
}

}  // namespace

std::string FrontEndText(Command command, DiagnosticFormat format, bool several,
                         const PipelineResult& result,
                         const FrontEndInput& input) {
  if (!result.read_error.empty() || input.parse_error.has_value()) return "";
  std::string out;
  // --format=xla is XLA's status alone: no notes.
  if (format != DiagnosticFormat::kXla || command != Command::kCheck) {
    for (const std::string& note : input.notes) {
      absl::StrAppend(&out, "hlo-offload: note: ", result.path, ": ", note, "\n");
    }
  }
  out += LocationNote(command, format, result, input);
  out += FrontEndErrors(command, format, several, result, input);
  return out;
}

void TakeFrontEndErrors(PipelineResult& result, const FrontEndInput& input) {
  if (!input.HasErrors() || !result.read_error.empty()) return;
  result.exit_status = std::max(result.exit_status, kExitDiagnosed);
}

}  // namespace tool
}  // namespace hloff
