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
#include "tool/xla_step.h"

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
  if (front_end == nullptr ||
      !front_end->reads(flags.report_input, flags.front_end_options)) {
    return RunPipelineOnFile(Command::kReport, flags.report_input, options);
  }
  FrontEndInput input = front_end->convert(
      flags.report_input, flags.split_input_file, flags.front_end_options);
  PipelineResult result = RunPipelineOnFrontEndInput(
      Command::kReport, flags.report_input, input, options, !flags.backend.empty());
  err << FrontEndText(Command::kReport, DiagnosticFormat::kText,
                      /*several=*/false, result, input);
  // Nothing is reported about the module: the front end's error stands.
  front_end_failed = input.HasErrors() && result.read_error.empty();
  return result;
}

// Writes `rendered` to standard output, or to the file -o names
// (atomically). Returns the exit status.
int WriteReport(const Flags& flags, const std::string& rendered,
                std::ostream& out, std::ostream& err) {
  if (flags.output.empty() || flags.output == "-") {
    out << rendered;
    return kExitOk;
  }
  if (auto s = WriteFileAtomically(flags.output, rendered); !s.ok()) {
    return UsageError(err, s.message());
  }
  return kExitOk;
}

// report --xla: the report as without the option (--format=text), or the
// JSON report with XLA's verdict in it (--format=json); see xla_step.h.
int WriteReportWithXla(const Flags& flags, const PipelineResult& result,
                       ReportFormat format, std::ostream& out,
                       std::ostream& err) {
  auto write = [&](const std::string& rendered) {
    return WriteReport(flags, rendered, out, err);
  };
  if (format == ReportFormat::kJson) {
    return RunReportXlaSteps(flags, RenderReports(result, format),
                             /*json_format=*/true, write, err);
  }
  if (int status = write(RenderReports(result, format)); status != kExitOk) {
    return status;
  }
  return RunReportXlaSteps(flags, RenderReports(result, ReportFormat::kJson),
                           /*json_format=*/false, write, err);
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
  if (WantsXlaStep(flags)) {
    return WriteReportWithXla(flags, result, format, out, err);
  }
  return WriteReport(flags, RenderReports(result, format), out, err);
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
