// The core's tables: the diagnostic codes (diag/codes.def) with their
// pages and the code lists of --disable / --enable, the registered passes
// and the default pipeline, the XLA versions whose verdicts are known, and
// the version of the project. The codes and their severities are also the
// enums Code (a member per code of codes.def, in its order: Code.E1200) and
// Severity, for the Python package to name them without spelling them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "core/bindings.h"
#include "diag/code_selection.h"
#include "diag/diagnostic.h"
#include "passes/pass.h"
#include "pipeline/pipeline.h"
#include "pipeline/xla_versions.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

struct NamedSeverity {
  absl::string_view name;
  Severity severity;
};

// Each severity and its word, in the order of diag/diagnostic.h.
constexpr NamedSeverity kSeverities[] = {
    {"error", Severity::kError},
    {"warning", Severity::kWarning},
    {"note", Severity::kNote},
};

}  // namespace

absl::string_view SeveritySpelling(Severity severity) {
  for (const NamedSeverity& named : kSeverities) {
    if (named.severity == severity) return named.name;
  }
  return "";
}

void BindCodes(nb::module_& m) {
  nb::enum_<Severity> severities(
      m, "Severity",
      "How bad a diagnostic is: an error (check exits with status 1), a warning or "
      "a note.");
  for (const NamedSeverity& named : kSeverities) {
    severities.value(absl::AsciiStrToUpper(named.name).c_str(), named.severity);
  }
  severities.def_prop_ro(
      "spelling", [](Severity s) { return std::string(SeveritySpelling(s)); },
      "The word diagnostics use for it ('warning').");

  nb::enum_<DiagCode> codes(
      m, "Code",
      "The diagnostic codes (diag/codes.def), in its order: XLA's own (E####) and "
      "the project's (HO####).");
  for (DiagCode code : AllDiagCodes()) {
    codes.value(std::string(DiagCodeString(code)).c_str(), code,
                std::string(DiagCodeSummary(code)).c_str());
  }
  codes
      .def_prop_ro(
          "spelling", [](DiagCode c) { return std::string(DiagCodeString(c)); },
          "The code as diagnostics show it ('E1200').")
      .def_prop_ro(
          "title", [](DiagCode c) { return std::string(DiagCodeName(c)); },
          "The code's name ('CompileTimeHostOffloadOutputLocationMismatch').")
      .def_prop_ro("severity", &DiagCodeSeverity, "The severity it is reported with.")
      .def_prop_ro(
          "summary", [](DiagCode c) { return std::string(DiagCodeSummary(c)); },
          "What it means, in one line.")
      .def_prop_ro("help_uri", &DiagCodeHelpUri,
                   "Its documentation page: XLA's for E####, the project's for HO####.")
      .def_static(
          "parse", [](const std::string& text) { return ParseDiagCode(text); }, "text"_a,
                  "The code `text` spells (case-insensitive), or None.");

  m.def("explain",
        [](const std::string& code) -> std::optional<std::string> {
          auto parsed = ParseDiagCode(code);
          if (!parsed) return std::nullopt;
          return ExplainCode(*parsed);
        },
        "The documentation page of a diagnostic code, or None if unknown.");
  m.def("codes",
        [] {
          std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
          for (DiagCode c : AllDiagCodes()) {
            out.emplace_back(std::string(DiagCodeString(c)),
                             std::string(DiagCodeName(c)),
                             std::string(SeveritySpelling(DiagCodeSeverity(c))),
                             std::string(DiagCodeSummary(c)));
          }
          return out;
        },
        "(code, name, severity, summary) of every diagnostic code.");
  m.def("passes",
        [] {
          std::vector<std::tuple<std::string, std::string>> out;
          for (const PassInfo& info : PassRegistry()) {
            out.emplace_back(std::string(info.name), std::string(info.description));
          }
          return out;
        },
        "(name, description) of every registered pass.");
  m.def("default_pipeline", [] {
    std::vector<std::string> out;
    for (absl::string_view p : DefaultPipeline()) out.emplace_back(p);
    return out;
  });
  m.def("parse_codes",
        [](const std::string& option, const std::vector<std::string>& items,
           bool disable) -> nb::object {
          auto codes = ParseCodeList(
              option, items, disable ? CodeListUse::kDisable : CodeListUse::kEnable);
          if (!codes.ok()) return nb::str(std::string(codes.status().message()).c_str());
          nb::list out;
          for (DiagCode code : *codes) {
            out.append(nb::str(std::string(DiagCodeString(code)).c_str()));
          }
          return out;
        },
        "option"_a, "items"_a, "disable"_a,
        nb::sig("def parse_codes(option: str, items: Sequence[str], disable: bool) "
                "-> list[str] | str"),
        "The codes --disable (disable=True) or --enable takes from `items` "
        "(codes or prefixes, comma-separated): a list of codes, or the "
        "reason they are not valid (a str, naming `option`).");
  m.def("version", [] { return std::string(ToolVersion()); });
  m.def(
      "known_xla_versions",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> out;
        for (const KnownXlaVersion& v : KnownXlaVersions()) {
          out.emplace_back(std::string(XlaPackageName(v.package)), std::string(v.series),
                           std::string(v.measured_on));
        }
        return out;
      },
      "The XLA versions whose verdicts are known (pipeline/xla_versions.h), oldest "
      "first per package: (package, series, what the table was measured on).");
}

}  // namespace python
}  // namespace hloff
