// report and explain (tool/commands.h): one input's offload report in the
// format asked for, and a diagnostic code's documentation.
#include <algorithm>
#include <ostream>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "diag/render.h"
#include "pipeline/choices.h"
#include "pipeline/front_end_input.h"
#include "support/file_io.h"
#include "tool/arguments.h"
#include "tool/commands.h"
#include "tool/front_end_text.h"

namespace hloff {
namespace tool {
namespace {

// The report's input run through the pipeline: read by the front end when
// it claims the file (its text written to `err`). Sets `front_end_failed`
// when the front end's errors stand for the report.
PipelineResult RunReportInput(const Flags& flags,
                              const PipelineOptions& options,
                              std::ostream& err, bool& front_end_failed) {
  const FrontEnd* front_end = flags.front_end;
  if (front_end == nullptr || !front_end->reads(flags.report_input)) {
    return RunPipelineOnFile(Command::kReport, flags.report_input, options);
  }
  FrontEndInput input =
      front_end->convert(flags.report_input, flags.split_input_file);
  PipelineResult result = RunPipelineOnFrontEndInput(
      Command::kReport, flags.report_input, input, options, !flags.backend.empty());
  err << FrontEndText(Command::kReport, DiagnosticFormat::kText,
                      /*several=*/false, result, input);
  // Nothing is reported about the module: the front end's error stands.
  front_end_failed = input.HasErrors() && result.read_error.empty();
  return result;
}

}  // namespace

int RunReport(const Flags& flags, std::ostream& out, std::ostream& err) {
  // The report shows the errors that stop the pipeline, which no code
  // selection drops; --disable and --enable are checked all the same.
  auto with_codes = OptionsWithCodes(flags, err);
  if (int* status = std::get_if<int>(&with_codes)) return *status;
  PipelineOptions options = std::get<PipelineOptions>(std::move(with_codes));
  bool front_end_failed = false;
  PipelineResult result = RunReportInput(flags, options, err, front_end_failed);
  err << RenderDiagnostics(result, DiagnosticFormat::kText);
  if (front_end_failed) return std::max(result.exit_status, kExitDiagnosed);
  if (result.exit_status != kExitOk) return kExitUsage;
  ReportFormat format =
      ParseReportFormat(flags.format).value_or(ReportFormat::kText);
  std::string rendered = RenderReports(result, format);
  if (flags.output.empty() || flags.output == "-") {
    out << rendered;
    return kExitOk;
  }
  if (auto s = WriteFileAtomically(flags.output, rendered); !s.ok()) {
    return UsageError(err, s.message());
  }
  return kExitOk;
}

int RunExplain(const Flags& flags, std::ostream& out, std::ostream& err) {
  auto code = ParseDiagCode(flags.explain_code);
  if (!code) {
    return UsageError(err, absl::StrCat("unknown diagnostic code '",
                                        flags.explain_code, "'"));
  }
  out << ExplainCode(*code);
  return kExitOk;
}

}  // namespace tool
}  // namespace hloff
