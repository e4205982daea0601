// hlo_offload._core: the nanobind extension behind the Python package. It
// binds the library flow of pipeline/pipeline.h (check, opt, fix, fmt,
// report) and its renderers, which give byte for byte what the command line
// prints; hlo_offload/__init__.py builds the public API on it.
//
// Every call that works on a module releases the GIL. A file is read by the
// pipeline as the command line reads it (mapped); a text (a bytes object, or a
// str's UTF-8 form, which for ASCII text is the object's own storage) is
// handed over as a view of the object's buffer, without a copy
// (TextBuffer::FromView): the Outcome holds the object for as long as the
// modules parsed from it live.
// Only the results that Python asks for become Python objects, with the GIL
// held again. Bad input is never an exception here: it is a diagnostic, a
// read error or a parse error in the Outcome, which the Python layer turns
// into its exceptions; bad arguments raise ValueError or TypeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "diag/code_selection.h"
#include "diag/diagnostic.h"
#include "diag/group.h"
#include "diag/render.h"
#include "ir/hlo.h"
#include "ir/shape.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "pipeline/choices.h"
#include "pipeline/pipeline.h"
#include "text/parser.h"
#include "support/byte_size.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace hloff {
namespace {

// Bytes as a Python bytes object (one copy, into Python's memory).
nb::bytes ToBytes(absl::string_view text) {
  return nb::bytes(text.data(), text.size());
}

std::optional<Command> ParseCommand(absl::string_view name) {
  if (name == "check") return Command::kCheck;
  if (name == "opt") return Command::kOpt;
  if (name == "fix") return Command::kFix;
  if (name == "fmt") return Command::kFmt;
  if (name == "report") return Command::kReport;
  return std::nullopt;
}

// The memory space of each array leaf of `shape`, in leaf order (the order
// of PipelineOptions::output_paths); -1 for a token or opaque leaf.
void LeafMemorySpaces(const Shape& shape, std::vector<int64_t>& out) {
  // Iterative pre-order over the tuple tree (shapes are bounded in depth by
  // the parser, but no recursion is needed).
  std::vector<const Shape*> stack = {&shape};
  while (!stack.empty()) {
    const Shape* s = stack.back();
    stack.pop_back();
    if (s->IsTuple()) {
      for (auto it = s->tuple_shapes.rbegin(); it != s->tuple_shapes.rend(); ++it) {
        stack.push_back(&*it);
      }
      continue;
    }
    out.push_back(s->IsArray() ? s->memory_space() : -1);
  }
}

std::vector<int64_t> IndexVector(const ShapeIndex& index) {
  return std::vector<int64_t>(index.begin(), index.end());
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
  void Release() {
    PipelineResult empty;
    empty.command = result_.command;
    empty.path = result_.path;
    empty.file = result_.file;
    empty.exit_status = result_.exit_status;
    empty.read_error = result_.read_error;
    empty.unchanged = result_.unchanged;
    {
      nb::gil_scoped_release release;
      PipelineResult gone = std::move(result_);
      result_ = std::move(empty);
    }
    keepalive_ = nb::none();
    released_ = true;
  }
  bool released() const { return released_; }
  // Drops the input text (a mapped file is unmapped) and the modules, keeping
  // the diagnostics: what the JSON and SARIF renderers need. After it no
  // source line can be rendered and no module printed.
  void DropInput() {
    std::shared_ptr<const TextBuffer> input = std::move(result_.input);
    std::vector<std::unique_ptr<Module>> modules;
    for (ModuleResult& m : result_.modules) modules.push_back(std::move(m.module));
    {
      nb::gil_scoped_release release;
      modules.clear();
      input.reset();
    }
    keepalive_ = nb::none();
    input_dropped_ = true;
  }
  bool input_dropped() const { return input_dropped_; }

 private:
  // Declared first so that it is destroyed last: result_'s input views it.
  nb::object keepalive_;
  PipelineResult result_;
  bool released_ = false;
  bool input_dropped_ = false;
};

void RequireLive(const Outcome& o) {
  if (o.released()) {
    throw nb::value_error("this outcome was released; its modules are gone");
  }
}

struct RunArgs {
  std::string command;
  std::string path;
  bool split_input = false;
  bool lints = true;
  // ignore= / select=: codes and prefixes, as --disable / --enable take them.
  std::vector<std::string> ignore;
  std::vector<std::string> select;
  std::optional<int64_t> pinned_host_budget;
  std::vector<std::string> passes;
  std::string pipeline = "xla";  // PassPipeline: "xla" or "offload"
  std::string backend = "any";   // TargetBackend: "tpu", "gpu" or "any"
  bool locate_in_source = false;  // PipelineOptions::locate_in_source
  std::string strategy = "host-output";
  int64_t max_nodes = 400;
  std::vector<std::string> output_paths;
  std::vector<std::string> input_paths;
  bool disable_automatic_host_compute_offload = false;
  bool allow_h2h_copy = false;
  bool fix_entry_layout_unless_customized = false;
  int trace_level = 0;
  bool keep_modules = false;
  int parse_threads = 0;  // 0: every core
};

PipelineOptions MakeOptions(const RunArgs& a) {
  PipelineOptions options;
  options.path = a.path;
  options.split_input = a.split_input;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  options.parse_threads = a.parse_threads > 0 ? a.parse_threads
                                              : static_cast<int>(cores);
  options.passes = a.passes;
  options.pipeline = ParsePassPipeline(a.pipeline).value_or(PassPipeline::kXla);
  options.lints = a.lints;
  options.offload.disable_automatic_host_compute_offload =
      a.disable_automatic_host_compute_offload;
  options.offload.allow_h2h_copy_when_automatic_host_compute_offload_disabled =
      a.allow_h2h_copy;
  options.offload.fix_entry_layout_unless_customized =
      a.fix_entry_layout_unless_customized;
  options.lint.pinned_host_budget = a.pinned_host_budget;
  options.lint.backend =
      ParseTargetBackend(a.backend).value_or(TargetBackend::kAny);
  options.trace_level = a.trace_level;
  options.trace = nullptr;  // kept per module, printed by the renderers
  options.report_max_nodes = a.max_nodes;
  options.print_to_string = true;
  options.keep_modules = a.keep_modules;
  options.output_paths = a.output_paths;
  options.locate_in_source = a.locate_in_source;
  options.input_paths = a.input_paths;
  return options;
}

// run(command, text, file, ...): runs `command` on `text` (bytes or str)
// or, when `text` is None, on the file `file` (mapped, as the command line
// reads it). Usage errors of the caller (an unknown command, pass or
// strategy, a negative budget) raise ValueError; everything about the
// input is in the Outcome.
Outcome* Run(const std::string& command, nb::object text,
             std::optional<std::string> file, const RunArgs& args) {
  std::optional<Command> cmd = ParseCommand(command);
  if (!cmd) throw nb::value_error(("unknown command '" + command + "'").c_str());
  if (auto unknown = UnknownPass(args.passes)) {
    throw nb::value_error(
        ("unknown pass '" + *unknown + "' (see hlo_offload.passes())").c_str());
  }
  std::optional<FixStrategy> strategy = ParseFixStrategy(args.strategy);
  if (!strategy) {
    throw nb::value_error(("unknown fix strategy '" + args.strategy +
                           "' (host-output or move-to-device)")
                              .c_str());
  }
  if (args.pinned_host_budget && *args.pinned_host_budget < 0) {
    throw nb::value_error("pinned_host_budget is a number of bytes, 0 or more");
  }
  if (args.max_nodes < 0) throw nb::value_error("max_nodes is 0 or more");
  if (!ParseTargetBackend(args.backend)) {
    throw nb::value_error(("unknown backend '" + args.backend +
                           "' (tpu, gpu or any)")
                              .c_str());
  }
  CodeSelection codes;
  if (!args.ignore.empty()) {
    auto ignored = ParseCodeList("ignore", args.ignore, CodeListUse::kDisable);
    if (!ignored.ok()) {
      throw nb::value_error(std::string(ignored.status().message()).c_str());
    }
    codes.disabled = *std::move(ignored);
  }
  if (!args.select.empty()) {
    auto selected = ParseCodeList("select", args.select, CodeListUse::kEnable);
    if (!selected.ok()) {
      throw nb::value_error(std::string(selected.status().message()).c_str());
    }
    codes.enabled = *std::move(selected);
  }
  if (args.trace_level < 0) throw nb::value_error("trace is 0 or more");
  PipelineOptions options = MakeOptions(args);
  options.fix_strategy = *strategy;
  options.codes = std::move(codes);

  const char* data = nullptr;
  Py_ssize_t size = 0;
  if (text.is_none()) {
    if (!file) throw nb::type_error("run() needs text or a file");
  } else if (nb::isinstance<nb::bytes>(text)) {
    data = PyBytes_AS_STRING(text.ptr());
    size = PyBytes_GET_SIZE(text.ptr());
  } else if (nb::isinstance<nb::str>(text)) {
    // The UTF-8 form of a str: for ASCII text Python's own buffer, else
    // made once and cached on the object.
    data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
    if (data == nullptr) throw nb::python_error();
  } else {
    throw nb::type_error("text must be bytes or str");
  }

  PipelineResult result;
  {
    nb::gil_scoped_release release;
    if (text.is_none()) {
      result = RunPipelineOnFile(*cmd, *file, options);
    } else {
      result = RunPipeline(
          *cmd,
          TextBuffer::FromView(absl::string_view(data, static_cast<size_t>(size))),
          options);
    }
  }
  return new Outcome(std::move(result), text);
}

// parse_error(command, path, rendered, line, column, message): the Outcome
// of an input that a front end could not parse into an HLO module (StableHLO
// text MLIR refuses): one module that failed to parse, with its located
// HO0001 diagnostic, exit status 2, rendered by every renderer as an HLO
// parse error is (`rendered` is the complete text message, as the parser's
// own: `path:line:col: error: ...`, the source line and a caret). line and
// column are 1-based; 0 when unknown.
Outcome* ParseErrorOutcome(const std::string& command, const std::string& path,
                           const std::string& rendered, uint32_t line,
                           uint32_t column, const std::string& message) {
  std::optional<Command> cmd = ParseCommand(command);
  if (!cmd) throw nb::value_error(("unknown command '" + command + "'").c_str());
  PipelineResult result;
  result.command = *cmd;
  result.path = path;
  result.file = path;
  result.exit_status = kExitUsage;
  ModuleResult module;
  module.parse_failed = true;
  module.parse_error = rendered;
  Diagnostic d;
  d.code = DiagCode::kHO0001;
  d.severity = Severity::kError;
  d.message = message;
  if (line > 0) d.loc = {line, column};
  module.diagnostics.push_back(std::move(d));
  result.modules.push_back(std::move(module));
  return new Outcome(std::move(result), nb::none());
}

std::vector<const PipelineResult*> Results(const std::vector<Outcome*>& outcomes) {
  std::vector<const PipelineResult*> results;
  for (const Outcome* o : outcomes) {
    if (o == nullptr) throw nb::type_error("outcomes must not contain None");
    RequireLive(*o);
    results.push_back(&o->result());
  }
  return results;
}

// One module's facts, as a dict.
nb::dict ModuleInfo(const ModuleResult& m, const PipelineResult& result) {
  nb::dict d;
  d["name"] = m.module_name;
  d["parse_failed"] = m.parse_failed;
  d["failed"] = m.failed;
  d["unchanged"] = m.unchanged;
  d["report_error"] = ToBytes(m.report_error);
  if (m.parse_failed) {
    d["parse_error"] = ToBytes(m.parse_error);
    uint32_t line = 0, column = 0;
    std::string message;
    for (const Diagnostic& diag : m.diagnostics) {
      if (diag.code != DiagCode::kHO0001) continue;
      line = diag.loc.line;
      column = diag.loc.column;
      message = diag.message;
      break;
    }
    d["parse_line"] = line;
    d["parse_column"] = column;
    d["parse_message"] = ToBytes(message);
  }
  nb::list fixed;
  for (const ShapeIndex& index : m.fixed_outputs) {
    fixed.append(nb::tuple(nb::cast(IndexVector(index))));
  }
  d["fixed_outputs"] = fixed;
  d["fixed_output_paths"] = m.fixed_output_paths;
  if (m.module != nullptr) {
    const EntryComputationLayout& layout = m.module->entry_computation_layout();
    std::vector<int64_t> out_spaces;
    LeafMemorySpaces(layout.result, out_spaces);
    d["output_memory_spaces"] = out_spaces;
    d["result_is_tuple"] = layout.result.IsTuple();
    std::vector<int64_t> in_spaces;
    for (const Shape& p : layout.parameters) LeafMemorySpaces(p, in_spaces);
    d["input_memory_spaces"] = in_spaces;
  }
  return d;
}

// Every diagnostic of every module alone, rendered as text (with the source
// lines of the input), as one bytes object and the offset where each starts
// (plus its end): one Python object however many diagnostics there are; and
// the text the command line prints, where a group's diagnostics fold into
// its first (diag/group.h).
nb::tuple DiagnosticTexts(const Outcome& o) {
  std::string all;
  std::string folded;
  std::vector<size_t> offsets;
  {
    nb::gil_scoped_release release;
    const PipelineResult& result = o.result();
    SourceText source{result.path,
                      result.input ? result.input->text() : absl::string_view(),
                      {}};
    for (const ModuleResult& m : result.modules) {
      DiagnosticGroups groups(m.diagnostics);
      for (size_t i = 0; i < m.diagnostics.size(); ++i) {
        const Diagnostic& diag = m.diagnostics[i];
        offsets.push_back(all.size());
        if (m.parse_failed) continue;
        all += RenderText(diag, source);
        if (!groups.Folds(i)) {
          folded.append(all, offsets.back(), std::string::npos);
        } else if (groups.Leader(i) == i) {
          std::vector<const Diagnostic*> followers;
          for (size_t f : groups.Followers(i)) followers.push_back(&m.diagnostics[f]);
          folded += RenderText(diag, source, followers);
        }
      }
    }
    offsets.push_back(all.size());
  }
  return nb::make_tuple(ToBytes(all), nb::cast(offsets), ToBytes(folded));
}

// The summary line `check` ends with in text (CheckSummary) over `outcomes`,
// plus `front_errors` (codes of errors found before the core ran, e.g.
// HO0002) and `unread` inputs that could not be read at all. ValueError for
// an unknown code.
std::string CheckSummaryLine(const std::vector<const Outcome*>& outcomes,
                             const std::vector<std::string>& front_errors,
                             size_t unread) {
  CheckSummary summary;
  for (const Outcome* o : outcomes) summary.Add(o->result());
  for (const std::string& text : front_errors) {
    std::optional<DiagCode> code = ParseDiagCode(text);
    if (!code) throw nb::value_error(("unknown code '" + text + "'").c_str());
    summary.AddDiagnostic(Severity::kError, *code);
  }
  for (size_t i = 0; i < unread; ++i) summary.AddUnreadFile();
  return summary.Render();
}

// (errors, warnings, notes) over every module.
std::tuple<size_t, size_t, size_t> Counts(const Outcome& o) {
  size_t errors = 0, warnings = 0, notes = 0;
  for (const ModuleResult& m : o.result().modules) {
    for (const Diagnostic& d : m.diagnostics) {
      if (d.severity == Severity::kError) ++errors;
      else if (d.severity == Severity::kWarning) ++warnings;
      else ++notes;
    }
  }
  return {errors, warnings, notes};
}

template <typename Fn>
nb::bytes Rendered(Fn&& fn) {
  std::string text;
  {
    nb::gil_scoped_release release;
    text = fn();
  }
  return ToBytes(text);
}

}  // namespace
}  // namespace hloff

NB_MODULE(_core, m) {
  using namespace hloff;
  m.doc() =
      "The C++ core of hlo_offload (pipeline/pipeline.h). Use the functions of "
      "the hlo_offload package; this module's interface may change.";

  nb::class_<RunArgs>(m, "RunArgs",
                      "Options of run(), as PipelineOptions (pipeline/pipeline.h).")
      .def(nb::init<>())
      .def_rw("path", &RunArgs::path)
      .def_rw("split_input", &RunArgs::split_input)
      .def_rw("lints", &RunArgs::lints)
      .def_rw("backend", &RunArgs::backend)
      .def_rw("locate_in_source", &RunArgs::locate_in_source)
      .def_rw("ignore", &RunArgs::ignore)
      .def_rw("select", &RunArgs::select)
      .def_rw("pinned_host_budget", &RunArgs::pinned_host_budget)
      .def_rw("passes", &RunArgs::passes)
      .def_rw("pipeline", &RunArgs::pipeline)
      .def_rw("strategy", &RunArgs::strategy)
      .def_rw("max_nodes", &RunArgs::max_nodes)
      .def_rw("output_paths", &RunArgs::output_paths)
      .def_rw("input_paths", &RunArgs::input_paths)
      .def_rw("disable_automatic_host_compute_offload",
              &RunArgs::disable_automatic_host_compute_offload)
      .def_rw("allow_h2h_copy", &RunArgs::allow_h2h_copy)
      .def_rw("fix_entry_layout_unless_customized",
              &RunArgs::fix_entry_layout_unless_customized)
      .def_rw("trace_level", &RunArgs::trace_level)
      .def_rw("keep_modules", &RunArgs::keep_modules)
      .def_rw("parse_threads", &RunArgs::parse_threads);

  nb::class_<Outcome>(m, "Outcome",
                      "What one run gave (pipeline/pipeline.h PipelineResult).")
      .def_prop_ro("exit_status",
                   [](const Outcome& o) { return o.result().exit_status; })
      .def_prop_ro("read_error",
                   [](const Outcome& o) { return ToBytes(o.result().read_error); })
      .def_prop_ro("path", [](const Outcome& o) { return o.result().path; })
      .def_prop_ro("unchanged", [](const Outcome& o) { return o.result().unchanged; })
      .def_prop_ro("module_count",
                   [](const Outcome& o) { return o.result().modules.size(); })
      .def("modules",
           [](const Outcome& o) {
             RequireLive(o);
             nb::list list;
             for (const ModuleResult& mr : o.result().modules) {
               list.append(ModuleInfo(mr, o.result()));
             }
             return list;
           },
           "A dict per module: name, parse_failed (+ parse_error, parse_line, "
           "parse_column, parse_message), failed, unchanged, fixed_outputs, "
           "fixed_output_paths, the entry layout's leaf memory spaces when the "
           "module was kept.")
      .def("diagnostics",
           [](const Outcome& o, const std::string& format, bool several) {
             RequireLive(o);
             if (o.input_dropped()) throw nb::value_error("the input was dropped");
             auto f = ParseDiagnosticFormat(format);
             if (!f) throw nb::value_error(("unknown format '" + format + "'").c_str());
             return Rendered([&] {
               return RenderDiagnostics(o.result(), *f, RenderOptions{several});
             });
           },
           "format"_a = "text", "several"_a = false,
           "What the command line writes on standard error (RenderDiagnostics).")
      .def("diagnostic_texts",
           [](const Outcome& o) {
             RequireLive(o);
             if (o.input_dropped()) throw nb::value_error("the input was dropped");
             return DiagnosticTexts(o);
           },
           "(bytes, offsets): each diagnostic as the command line prints it, "
           "diagnostic i being bytes[offsets[i]:offsets[i+1]].")
      .def("counts", [](const Outcome& o) { return Counts(o); },
           "(errors, warnings, notes) over every module.")
      .def("drop_input", &Outcome::DropInput,
           "Frees the input text and the modules, keeping the diagnostics.")
      .def("release", &Outcome::Release,
           "Frees the modules and the input now.");

  m.def("run", &Run, "command"_a, "text"_a.none(), "file"_a.none(), "args"_a,
        nb::rv_policy::take_ownership,
        "Runs check/opt/fix/fmt/report on text (bytes or str) or a file; the "
        "GIL is released meanwhile.");
  m.def("parse_error", &ParseErrorOutcome, "command"_a, "path"_a, "rendered"_a,
        "line"_a, "column"_a, "message"_a, nb::rv_policy::take_ownership,
        "The Outcome of an input a front end could not parse (StableHLO text "
        "MLIR refuses): one HO0001 diagnostic at line:column, exit status 2.");
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
  m.def("explain",
        [](const std::string& code) -> std::optional<std::string> {
          auto parsed = ParseDiagCode(code);
          if (!parsed) return std::nullopt;
          return ExplainCode(*parsed);
        },
        "The documentation page of a diagnostic code, or None if unknown.");
  m.def("check_summary",
        [](const std::vector<const Outcome*>& outcomes,
           const std::vector<std::string>& front_errors, size_t unread) {
          for (const Outcome* o : outcomes) RequireLive(*o);
          return CheckSummaryLine(outcomes, front_errors, unread);
        },
        "outcomes"_a, "front_errors"_a = std::vector<std::string>(), "unread"_a = 0,
        "The line `check` ends with in text: inputs, errors and warnings per code "
        "(CheckSummary), counting front_errors (codes of the front end's errors) and "
        "`unread` inputs that could not be read.");
  m.def("codes",
        [] {
          std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
          for (DiagCode c : AllDiagCodes()) {
            Severity s = DiagCodeSeverity(c);
            out.emplace_back(std::string(DiagCodeString(c)),
                             std::string(DiagCodeName(c)),
                             s == Severity::kError     ? "error"
                             : s == Severity::kWarning ? "warning"
                                                       : "note",
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
  m.def("parse_byte_size",
        [](const std::string& text) -> nb::object {
          auto bytes = ParseByteSize(text);
          if (!bytes.ok()) return nb::str(std::string(bytes.status().message()).c_str());
          return nb::int_(*bytes);
        },
        "A byte size as --pinned-host-budget spells it ('16GiB'): an int, or "
        "the reason it is not one (a str).");
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
        "The codes --disable (disable=True) or --enable takes from `items` "
        "(codes or prefixes, comma-separated): a list of codes, or the "
        "reason they are not valid (a str, naming `option`).");
  m.def("version", [] { return std::string(ToolVersion()); });
  m.attr("MAX_INPUT_BYTES") = kMaxInputBytes;
}
