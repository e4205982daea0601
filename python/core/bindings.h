// What the parts of the extension hlo_offload._core share: the Outcome that
// run() returns (the result of one run, owned by Python), the helpers that
// turn the core's results into Python objects, and the function of each
// part that adds its names to the module. python/_core.cc calls the
// functions in order; each part is one topic:
//   choices.cc       the named choices of pipeline/choices.h as enums
//   options.cc       OffloadOptions, LintOptions, PipelineOptions
//   command_line.cc  FrontEndInput and run_command_line (the console command)
//   run.cc           Outcome, run, parse_error
//   render.cc        the renderers of outcomes and check's summary line
//   codes.cc         diagnostic codes and severities (diag/codes.def) as
//                    enums, passes, XLA versions, the version
//   text.cc          byte sizes, shapes and the entry layout of HLO text
//
// Every call that works on a module releases the GIL. A file is read by the
// pipeline as the command line reads it (mapped); a text (a bytes object, or
// a str's UTF-8 form, which for ASCII text is the object's own storage) is
// handed over as a view of the object's buffer, without a copy
// (TextBuffer::FromView): the Outcome holds the object for as long as the
// modules parsed from it live. Only the results that Python asks for become
// Python objects, with the GIL held again. Bad input is never an exception
// here: it is a diagnostic, a read error or a parse error in the Outcome,
// which the Python layer turns into its exceptions; bad arguments raise
// ValueError or TypeError.
#ifndef HLO_OFFLOAD_PYTHON_CORE_BINDINGS_H_
#define HLO_OFFLOAD_PYTHON_CORE_BINDINGS_H_

#include <nanobind/nanobind.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"
#include "ir/text_buffer.h"
#include "pipeline/choices.h"
#include "pipeline/pipeline.h"

namespace hloff {
namespace python {

namespace nb = nanobind;

// One named choice of pipeline/choices.h, as the bindings use it: its table
// of names (aliases after the name they stand for) and its parse. Every
// spelling, enum member and list of names the module gives comes from it.
template <typename T>
struct Choice {
  // What the choice is, as error messages name it ("fix strategy").
  const char* what;
  const std::vector<std::string>& (*names)();
  std::optional<T> (*parse)(absl::string_view);

  // The names that are not aliases: the first name of each value.
  std::vector<std::string> Canonical() const {
    std::vector<std::string> out;
    std::vector<T> seen;
    for (const std::string& name : names()) {
      T value = *parse(name);
      if (std::find(seen.begin(), seen.end(), value) != seen.end()) continue;
      seen.push_back(value);
      out.push_back(name);
    }
    return out;
  }
  // The name of `value` ("host-output").
  std::string Spelling(T value) const {
    for (const std::string& name : names()) {
      if (parse(name) == value) return name;
    }
    return std::string();
  }
  // The value `name` spells; ValueError naming the choice and its names
  // ("unknown fix strategy 'x' (host-output or move-to-device)").
  T Parse(const std::string& name) const {
    if (std::optional<T> value = parse(name)) return *value;
    std::vector<std::string> canonical = Canonical();
    std::string alternatives = canonical.back();
    if (canonical.size() > 1) {
      canonical.pop_back();
      alternatives = absl::StrJoin(canonical, ", ") + " or " + alternatives;
    }
    throw nb::value_error(
        ("unknown " + std::string(what) + " '" + name + "' (" + alternatives + ")")
            .c_str());
  }
};

inline constexpr Choice<PassPipeline> kPipelineChoice{
    "pipeline", PassPipelineNames, ParsePassPipeline};
inline constexpr Choice<DiagnosticFormat> kDiagnosticFormatChoice{
    "format", DiagnosticFormatNames, ParseDiagnosticFormat};
inline constexpr Choice<ReportFormat> kReportFormatChoice{
    "report format", ReportFormatNames, ParseReportFormat};
inline constexpr Choice<FixStrategy> kFixStrategyChoice{
    "fix strategy", FixStrategyNames, ParseFixStrategy};
inline constexpr Choice<TargetBackend> kBackendChoice{
    "backend", TargetBackendNames, ParseTargetBackend};

// "error", "warning", "note", as diagnostics name a severity.
absl::string_view SeveritySpelling(Severity severity);

// Bytes as a Python bytes object (one copy, into Python's memory).
inline nb::bytes ToBytes(absl::string_view text) {
  return nb::bytes(text.data(), text.size());
}

// The bytes `fn` renders, made with the GIL released.
template <typename Fn>
nb::bytes Rendered(Fn&& fn) {
  std::string text;
  {
    nb::gil_scoped_release release;
    text = fn();
  }
  return ToBytes(text);
}

// The result of one run, owned by Python. `keepalive` holds the text object
// the pipeline was given, whose buffer the result's input views.
class Outcome {
 public:
  Outcome(PipelineResult result, nb::object keepalive)
      : keepalive_(std::move(keepalive)), result_(std::move(result)) {}
  Outcome(const Outcome&) = delete;
  Outcome& operator=(const Outcome&) = delete;

  const PipelineResult& result() const { return result_; }
  PipelineResult& mutable_result() { return result_; }
  // Frees the modules and the input now instead of when Python collects the
  // object; the Outcome keeps only what was already rendered.
  void Release();
  bool released() const { return released_; }
  // Drops the input text (a mapped file is unmapped) and the modules, keeping
  // the diagnostics: what the JSON and SARIF renderers need. After it no
  // source line can be rendered and no module printed.
  void DropInput();
  bool input_dropped() const { return input_dropped_; }

 private:
  // Declared first so that it is destroyed last: result_'s input views it.
  nb::object keepalive_;
  PipelineResult result_;
  bool released_ = false;
  bool input_dropped_ = false;
};

// ValueError when `o` was released.
void RequireLive(const Outcome& o);

// The results of `outcomes`, for the renderers; TypeError for a None,
// ValueError for a released outcome.
std::vector<const PipelineResult*> Results(const std::vector<Outcome*>& outcomes);

// The parts of the module, in the order python/_core.cc adds them.
void BindChoices(nb::module_& m);
void BindOptions(nb::module_& m);
void BindFrontEndInput(nb::module_& m);
void BindRun(nb::module_& m);
void BindCommandLine(nb::module_& m);
void BindRenderers(nb::module_& m);
void BindCodes(nb::module_& m);
void BindText(nb::module_& m);

}  // namespace python
}  // namespace hloff

#endif  // HLO_OFFLOAD_PYTHON_CORE_BINDINGS_H_
