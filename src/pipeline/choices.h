// The named choices of the command line and the Python module, each spelled
// in one place: the pass pipeline (`--pipeline`), the diagnostic and report
// formats (`--format` of check and of report), the fix strategy
// (`--strategy`) and the target backend (`--backend`); and the range of
// report's `--max-nodes`. For each choice, the names
// it accepts, in the order the help lists them, and the parse of one name;
// tool/ checks its flags against these names and python/core/ parses with
// these functions, so a name is added or renamed here alone. (The enums of
// the fix strategy and the backend belong to the layers that act on them,
// passes/ and lints/; their spellings are the front ends' business and live
// here with the others.)
#ifndef HLO_OFFLOAD_PIPELINE_CHOICES_H_
#define HLO_OFFLOAD_PIPELINE_CHOICES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "lints/offload_lints.h"
#include "passes/offload_fixes.h"

namespace hloff {

// Which passes run when PipelineOptions::passes names none (`--pipeline`).
enum class PassPipeline {
  // XLA's GPU compile order up to the offloader, with the passes of it that
  // change what the offloader sees (XlaPipeline(); `--pipeline=xla`).
  kXla,
  // The three offloading passes alone (DefaultPipeline();
  // `--pipeline=offload`), what XLA's pass unit tests exercise.
  kOffload,
};

// `--format` of check (and of opt/fix/fmt, which print text diagnostics).
enum class DiagnosticFormat { kText, kXla, kJson, kSarif };
// `--format` of report.
enum class ReportFormat { kText, kJson, kDot, kHtml };

// "xla", "offload".
const std::vector<std::string>& PassPipelineNames();
// The pipeline of one of PassPipelineNames(); nullopt for anything else.
std::optional<PassPipeline> ParsePassPipeline(absl::string_view name);

// "text", "xla", "json", "sarif".
const std::vector<std::string>& DiagnosticFormatNames();
// The format of one of DiagnosticFormatNames(); nullopt for anything else.
std::optional<DiagnosticFormat> ParseDiagnosticFormat(absl::string_view name);

// "text", "json", "dot", "html".
const std::vector<std::string>& ReportFormatNames();
// The format of one of ReportFormatNames(); nullopt for anything else.
std::optional<ReportFormat> ParseReportFormat(absl::string_view name);

// "host-output", "move-to-device".
const std::vector<std::string>& FixStrategyNames();
// The strategy of one of FixStrategyNames(); nullopt for anything else.
std::optional<FixStrategy> ParseFixStrategy(absl::string_view name);
// The name of `strategy`, as --strategy spells it.
absl::string_view FixStrategyName(FixStrategy strategy);

// "tpu", "gpu", "cuda", "rocm", "any" (cuda and rocm, JAX's platform names,
// are the GPU).
const std::vector<std::string>& TargetBackendNames();
// The backend of one of TargetBackendNames(); nullopt for anything else.
std::optional<TargetBackend> ParseTargetBackend(absl::string_view name);

// `--max-nodes` of report (PipelineOptions::report_max_nodes): the most
// path instructions the picture draws, from kMinReportMaxNodes to
// kMaxReportMaxNodes (2^30).
inline constexpr int64_t kMinReportMaxNodes = 1;
inline constexpr int64_t kMaxReportMaxNodes = int64_t{1} << 30;

}  // namespace hloff

#endif  // HLO_OFFLOAD_PIPELINE_CHOICES_H_
