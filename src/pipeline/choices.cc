// The named choices (choices.h): one table of names per choice, from which
// both the list of names and the parse are made.
#include "pipeline/choices.h"

#include <utility>

namespace hloff {
namespace {

// One accepted name of a choice and what it means.
template <typename T>
struct Named {
  absl::string_view name;
  T value;
};

constexpr Named<PassPipeline> kPassPipelines[] = {
    {"xla", PassPipeline::kXla},
    {"offload", PassPipeline::kOffload},
};

constexpr Named<DiagnosticFormat> kDiagnosticFormats[] = {
    {"text", DiagnosticFormat::kText},
    {"xla", DiagnosticFormat::kXla},
    {"json", DiagnosticFormat::kJson},
    {"sarif", DiagnosticFormat::kSarif},
};

constexpr Named<ReportFormat> kReportFormats[] = {
    {"text", ReportFormat::kText},
    {"json", ReportFormat::kJson},
    {"dot", ReportFormat::kDot},
    {"html", ReportFormat::kHtml},
};

constexpr Named<FixStrategy> kFixStrategies[] = {
    {"host-output", FixStrategy::kHostOutput},
    {"move-to-device", FixStrategy::kMoveToDevice},
};

constexpr Named<TargetBackend> kTargetBackends[] = {
    {"tpu", TargetBackend::kTpu},
    {"gpu", TargetBackend::kGpu},
    {"cuda", TargetBackend::kGpu},
    {"rocm", TargetBackend::kGpu},
    {"any", TargetBackend::kAny},
};

template <typename T, size_t N>
std::vector<std::string> NamesOf(const Named<T> (&table)[N]) {
  std::vector<std::string> names;
  names.reserve(N);
  for (const Named<T>& entry : table) names.emplace_back(entry.name);
  return names;
}

template <typename T, size_t N>
std::optional<T> Find(const Named<T> (&table)[N], absl::string_view name) {
  for (const Named<T>& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& PassPipelineNames() {
  static const std::vector<std::string> kNames = NamesOf(kPassPipelines);
  return kNames;
}

std::optional<PassPipeline> ParsePassPipeline(absl::string_view name) {
  return Find(kPassPipelines, name);
}

const std::vector<std::string>& DiagnosticFormatNames() {
  static const std::vector<std::string> kNames = NamesOf(kDiagnosticFormats);
  return kNames;
}

std::optional<DiagnosticFormat> ParseDiagnosticFormat(absl::string_view name) {
  return Find(kDiagnosticFormats, name);
}

const std::vector<std::string>& ReportFormatNames() {
  static const std::vector<std::string> kNames = NamesOf(kReportFormats);
  return kNames;
}

std::optional<ReportFormat> ParseReportFormat(absl::string_view name) {
  return Find(kReportFormats, name);
}

const std::vector<std::string>& FixStrategyNames() {
  static const std::vector<std::string> kNames = NamesOf(kFixStrategies);
  return kNames;
}

std::optional<FixStrategy> ParseFixStrategy(absl::string_view name) {
  return Find(kFixStrategies, name);
}

absl::string_view FixStrategyName(FixStrategy strategy) {
  for (const Named<FixStrategy>& entry : kFixStrategies) {
    if (entry.value == strategy) return entry.name;
  }
  return "";
}

const std::vector<std::string>& TargetBackendNames() {
  static const std::vector<std::string> kNames = NamesOf(kTargetBackends);
  return kNames;
}

std::optional<TargetBackend> ParseTargetBackend(absl::string_view name) {
  return Find(kTargetBackends, name);
}

}  // namespace hloff
