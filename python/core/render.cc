// The renderers of outcomes, each giving byte for byte what the command
// line prints: check's JSON and SARIF documents, report's formats, the
// modules opt, fix and fmt print, and the summary line check ends with.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bindings.h"
#include "diag/diagnostic.h"
#include "pipeline/choices.h"
#include "pipeline/pipeline.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

// The summary line `check` ends with in text (CheckSummary) over `outcomes`,
// plus `front_errors` (codes of errors found before the core ran, e.g.
// HO0002) and `unread` inputs that could not be read at all. ValueError for
// an unknown code.
std::string CheckSummaryLine(const std::vector<const Outcome*>& outcomes,
                             const std::vector<std::string>& front_errors,
                             size_t unread,
                             const std::vector<std::string>& front_warnings) {
  CheckSummary summary;
  for (const Outcome* o : outcomes) summary.Add(o->result());
  for (const auto& [codes, severity] :
       {std::pair{&front_errors, Severity::kError},
        std::pair{&front_warnings, Severity::kWarning}}) {
    for (const std::string& text : *codes) {
      std::optional<DiagCode> code = ParseDiagCode(text);
      if (!code) throw nb::value_error(("unknown code '" + text + "'").c_str());
      summary.AddDiagnostic(severity, *code);
    }
  }
  for (size_t i = 0; i < unread; ++i) summary.AddUnreadFile();
  return summary.Render();
}

}  // namespace

void BindRenderers(nb::module_& m) {
  m.def("render_json",
        [](const std::vector<Outcome*>& outcomes) {
          auto results = Results(outcomes);
          return Rendered([&] { return RenderJson(results); });
        },
        "The `check --format=json` document of the outcomes.");
  m.def("render_sarif",
        [](const std::vector<Outcome*>& outcomes) {
          auto results = Results(outcomes);
          return Rendered([&] { return RenderSarif(results); });
        },
        "The `check --format=sarif` document of the outcomes.");
  m.def("render_reports",
        [](const std::vector<Outcome*>& outcomes, const std::string& format) {
          auto f = ParseReportFormat(format);
          if (!f) throw nb::value_error(("unknown report format '" + format + "'").c_str());
          auto results = Results(outcomes);
          return Rendered([&] { return RenderReports(results, *f); });
        },
        "outcomes"_a, "format"_a, "What `report --format=FORMAT` writes.");
  m.def("printed_modules",
        [](const std::vector<Outcome*>& outcomes) {
          auto results = Results(outcomes);
          return Rendered([&] { return PrintedModules(results); });
        },
        "What opt, fix or fmt writes as output.");
  m.def("check_summary",
        [](const std::vector<const Outcome*>& outcomes,
           const std::vector<std::string>& front_errors, size_t unread,
           const std::vector<std::string>& front_warnings) {
          for (const Outcome* o : outcomes) RequireLive(*o);
          return CheckSummaryLine(outcomes, front_errors, unread, front_warnings);
        },
        "outcomes"_a, "front_errors"_a = std::vector<std::string>(), "unread"_a = 0,
        "front_warnings"_a = std::vector<std::string>(),
        "The line `check` ends with in text: inputs, errors and warnings per code "
        "(CheckSummary), counting front_errors and front_warnings (codes of the front "
        "end's errors and warnings) and `unread` inputs that could not be read.");
}

}  // namespace python
}  // namespace hloff
