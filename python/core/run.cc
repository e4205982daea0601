// run() and its Outcome: the pipeline of pipeline/pipeline.h on a text or
// a file, with what Python reads of the result (each module's facts, the
// diagnostics rendered as text, the counts), and parse_error(), the Outcome
// of an input a front end could not parse.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/bindings.h"
#include "diag/diagnostic.h"
#include "diag/group.h"
#include "diag/render.h"
#include "ir/hlo.h"
#include "ir/shape.h"
#include "pipeline/front_end_input.h"
#include "pipeline/pipeline.h"

namespace hloff {
namespace python {

using namespace nb::literals;

void Outcome::Release() {
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

void Outcome::DropInput() {
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

void RequireLive(const Outcome& o) {
  if (o.released()) {
    throw nb::value_error("this outcome was released; its modules are gone");
  }
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

namespace {

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

// run(command, text, file, options): runs `command` on `text` (bytes or
// str) or, when `text` is None, on the file `file` (mapped, as the command
// line reads it), with `options` (PipelineOptions, bound as they are). Usage
// errors of the caller (an unknown command or pass, a negative budget) raise
// ValueError; everything about the input is in the Outcome.
Outcome* Run(const std::string& command, nb::object text,
             std::optional<std::string> file, const PipelineOptions& options) {
  std::optional<Command> cmd = ParseCommand(command);
  if (!cmd) throw nb::value_error(("unknown command '" + command + "'").c_str());
  if (auto unknown = UnknownPass(options.passes)) {
    throw nb::value_error(
        ("unknown pass '" + *unknown + "' (see hlo_offload.passes())").c_str());
  }
  if (options.lint.pinned_host_budget && *options.lint.pinned_host_budget < 0) {
    throw nb::value_error("pinned_host_budget is a number of bytes, 0 or more");
  }
  if (options.report_max_nodes < 0) throw nb::value_error("max_nodes is 0 or more");
  if (options.trace_level < 0) throw nb::value_error("trace is 0 or more");
  if (options.parse_threads < 1) throw nb::value_error("parse_threads is 1 or more");

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
  return new Outcome(
      FrontEndParseError(*cmd, path, rendered, line, column, message),
      nb::none());
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

}  // namespace

void BindRun(nb::module_& m) {
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
           "module was kept.",
           nb::sig("def modules(self) -> list[dict[str, typing.Any]]"))
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
           "(bytes, offsets, folded): each diagnostic as the command line prints "
           "it, diagnostic i being bytes[offsets[i]:offsets[i+1]]; folded: the "
           "text with repeated diagnostics folded.",
           nb::sig("def diagnostic_texts(self) -> tuple[bytes, list[int], bytes]"))
      .def("counts", [](const Outcome& o) { return Counts(o); },
           "(errors, warnings, notes) over every module.")
      .def("drop_input", &Outcome::DropInput,
           "Frees the input text and the modules, keeping the diagnostics.")
      .def("release", &Outcome::Release,
           "Frees the modules and the input now.");

  m.def("run", &Run, "command"_a, "text"_a.none(), "file"_a.none(), "options"_a,
        nb::rv_policy::take_ownership,
        "Runs check/opt/fix/fmt/report on text (bytes or str) or a file; the "
        "GIL is released meanwhile.");
  m.def("parse_error", &ParseErrorOutcome, "command"_a, "path"_a, "rendered"_a,
        "line"_a, "column"_a, "message"_a, nb::rv_policy::take_ownership,
        "The Outcome of an input a front end could not parse (StableHLO text "
        "MLIR refuses): one HO0001 diagnostic at line:column, exit status 2.");
}

}  // namespace python
}  // namespace hloff
