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
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "analysis/partitions.h"
#include "diag/code_selection.h"
#include "diag/diagnostic.h"
#include "diag/group.h"
#include "diag/render.h"
#include "ir/hlo.h"
#include "ir/shape.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "pipeline/choices.h"
#include "pipeline/entry_memory_spaces.h"
#include "pipeline/front_end_input.h"
#include "pipeline/pipeline.h"
#include "pipeline/xla_versions.h"
#include "text/parser.h"
#include "support/byte_size.h"
#include "tool/driver.h"

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

// PipelineOptions as the package runs the pipeline: the parser may use
// every core, each module's trace is kept for the renderers, modules are
// freed when done and printed into the result.
PipelineOptions PackageOptions() {
  PipelineOptions options;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  options.parse_threads = static_cast<int>(cores);
  options.trace = nullptr;  // kept per module, printed by the renderers
  options.print_to_string = true;
  options.keep_modules = false;
  return options;
}

const char* PipelineName(PassPipeline pipeline) {
  return pipeline == PassPipeline::kOffload ? "offload" : "xla";
}

const char* BackendName(TargetBackend backend) {
  switch (backend) {
    case TargetBackend::kTpu: return "tpu";
    case TargetBackend::kGpu: return "gpu";
    case TargetBackend::kAny: return "any";
  }
  return "any";
}

const char* StrategyName(FixStrategy strategy) {
  return strategy == FixStrategy::kMoveToDevice ? "move-to-device" : "host-output";
}

// The codes ignore= (--disable) and select= (--enable) name, as
// PipelineOptions::codes; ValueError for a code that is unknown or cannot be
// disabled.
CodeSelection SelectCodes(const std::vector<std::string>& ignore,
                          const std::vector<std::string>& select) {
  CodeSelection codes;
  if (!ignore.empty()) {
    auto ignored = ParseCodeList("ignore", ignore, CodeListUse::kDisable);
    if (!ignored.ok()) {
      throw nb::value_error(std::string(ignored.status().message()).c_str());
    }
    codes.disabled = *std::move(ignored);
  }
  if (!select.empty()) {
    auto selected = ParseCodeList("select", select, CodeListUse::kEnable);
    if (!selected.ok()) {
      throw nb::value_error(std::string(selected.status().message()).c_str());
    }
    codes.enabled = *std::move(selected);
  }
  return codes;
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

// run_command_line(args, reads, convert): the hlo-offload command line
// (tool/driver.h RunTool) on `args` (args[0] the program's name), writing to
// this process's standard output and error, with the files `reads` claims
// converted by `convert` (the console command's StableHLO files). Returns
// the exit status. The GIL is released, and taken again for each callback.
int RunCommandLine(const std::vector<std::string>& args,
                   std::function<bool(const std::string&)> reads,
                   std::function<FrontEndInput(const std::string&, bool)> convert) {
  FrontEnd front_end{std::move(reads), std::move(convert)};
  int status = 0;
  {
    nb::gil_scoped_release release;
    status = RunTool(args, std::cout, std::cerr, &front_end);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  // The callbacks hold Python objects: released with the GIL held.
  front_end = FrontEnd();
  return status;
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

  nb::class_<OffloadOptions>(
      m, "OffloadOptions",
      "The passes' options that mirror XLA's debug flags (passes/pass.h).")
      .def(nb::init<>())
      .def_rw("disable_automatic_host_compute_offload",
              &OffloadOptions::disable_automatic_host_compute_offload,
              "xla_disable_automatic_host_compute_offload.")
      .def_rw("allow_h2h_copy_when_automatic_host_compute_offload_disabled",
              &OffloadOptions::allow_h2h_copy_when_automatic_host_compute_offload_disabled,
              "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled.")
      .def_rw("fix_entry_layout_unless_customized",
              &OffloadOptions::fix_entry_layout_unless_customized,
              "XLA V4's entry-layout auto-fix.")
      .def_rw("print_annotation_metadata",
              &OffloadOptions::print_annotation_metadata,
              "The annotation conversion prints each annotation's metadata on the "
              "MoveToHost / MoveToDevice it creates (for the partition step).");

  nb::class_<LintOptions>(m, "LintOptions",
                          "The lints' options (lints/offload_lints.h).")
      .def(nb::init<>())
      .def_rw("pinned_host_budget", &LintOptions::pinned_host_budget,
              nb::arg("bytes").none(),
              "HO3012's budget in bytes (--pinned-host-budget); None: not checked.")
      .def_prop_rw(
          "backend", [](const LintOptions& o) { return std::string(BackendName(o.backend)); },
          [](LintOptions& o, const std::string& name) {
            std::optional<TargetBackend> backend = ParseTargetBackend(name);
            if (!backend) {
              throw nb::value_error(
                  ("unknown backend '" + name + "' (tpu, gpu or any)").c_str());
            }
            o.backend = *backend;
          },
          "The backend compiled for (--backend): tpu, gpu (cuda, rocm) or any.");

  nb::class_<PipelineOptions>(
      m, "PipelineOptions",
      "The options of run() (pipeline/pipeline.h), bound as they are, with the "
      "package's defaults: the parser may use every core, modules are not kept.")
      .def("__init__",
           [](PipelineOptions* options) { new (options) PipelineOptions(PackageOptions()); })
      .def_rw("path", &PipelineOptions::path, "The name diagnostics show for the input.")
      .def_rw("split_input", &PipelineOptions::split_input, "--split-input-file.")
      .def_rw("parse_threads", &PipelineOptions::parse_threads,
              "Threads the parser may use for one large module.")
      .def_rw("passes", &PipelineOptions::passes,
              "opt's passes (--passes); empty: those of the pipeline.")
      .def_prop_rw(
          "pipeline",
          [](const PipelineOptions& o) { return std::string(PipelineName(o.pipeline)); },
          [](PipelineOptions& o, const std::string& name) {
            std::optional<PassPipeline> pipeline = ParsePassPipeline(name);
            if (!pipeline) {
              throw nb::value_error(
                  ("unknown pipeline '" + name + "' (xla or offload)").c_str());
            }
            o.pipeline = *pipeline;
          },
          "--pipeline: xla or offload.")
      .def_prop_rw(
          "xla_version",
          [](const PipelineOptions& o) { return o.xla.Describe(); },
          [](PipelineOptions& o, const std::string& spec) {
            absl::StatusOr<XlaSemantics> xla = XlaSemantics::Parse(spec);
            if (!xla.ok()) throw nb::value_error(std::string(xla.status().message()).c_str());
            o.xla = *std::move(xla);
          },
          "--xla-version (pipeline/xla_versions.h): set with PACKAGE-VERSION[,...] "
          "('libtpu-0.0.52', '' or 'newest' for the newest known); reads back the "
          "semantics chosen ('libtpu 0.0.52, jax-cuda-plugin 0.11.2'). ValueError for "
          "an unknown package or a malformed version.")
      .def_prop_ro(
          "xla_version_notes", [](const PipelineOptions& o) { return o.xla.notes(); },
          "One line per version given that the table does not know (it got the newest "
          "known semantics).")
      .def_rw("lints", &PipelineOptions::lints, "The HO3xxx lints (--no-lints clears it).")
      .def(
          "select_codes",
          [](PipelineOptions& o, const std::vector<std::string>& ignore,
             const std::vector<std::string>& select) { o.codes = SelectCodes(ignore, select); },
          "ignore"_a, "select"_a,
          "Reports only the codes select= names among those that can be disabled "
          "(--enable; empty: all), less those ignore= names (--disable); codes or "
          "prefixes. ValueError for an unknown code or one that cannot be disabled.")
      .def_rw("offload", &PipelineOptions::offload, "The passes' options.")
      .def_rw("lint", &PipelineOptions::lint, "The lints' options.")
      .def_rw("trace_level", &PipelineOptions::trace_level,
              "The offloader's trace level (--trace=N); 0: none.")
      .def_prop_rw(
          "fix_strategy",
          [](const PipelineOptions& o) { return std::string(StrategyName(o.fix_strategy)); },
          [](PipelineOptions& o, const std::string& name) {
            std::optional<FixStrategy> strategy = ParseFixStrategy(name);
            if (!strategy) {
              throw nb::value_error(("unknown fix strategy '" + name +
                                     "' (host-output or move-to-device)")
                                        .c_str());
            }
            o.fix_strategy = *strategy;
          },
          "fix's strategy (--strategy): host-output or move-to-device.")
      .def_rw("report_max_nodes", &PipelineOptions::report_max_nodes,
              "report's most path instructions drawn (--max-nodes).")
      .def_rw("keep_modules", &PipelineOptions::keep_modules,
              "Keep each resulting module in the result (opt, fix, fmt).")
      .def_rw("output_paths", &PipelineOptions::output_paths,
              "The pytree path of each flat entry output.")
      .def_rw("input_paths", &PipelineOptions::input_paths,
              "The pytree path of each entry parameter.")
      .def_rw("locate_in_source", &PipelineOptions::locate_in_source,
              "Locate diagnostics in the user's file first (a converted module).")
      .def_prop_rw(
          "checkpoint_names",
          [](const PipelineOptions& o) {
            std::vector<std::tuple<std::string, int64_t, std::string, std::string>> out;
            for (const CheckpointName& n : o.checkpoint_names) {
              out.emplace_back(n.file, n.line, n.op, n.name);
            }
            return out;
          },
          [](PipelineOptions& o,
             const std::vector<std::tuple<std::string, int64_t, std::string,
                                          std::string>>& names) {
            o.checkpoint_names.clear();
            for (const auto& [file, line, op, name] : names) {
              o.checkpoint_names.push_back({file, line, op, name});
            }
          },
          "report: (file, line, primitive, name) of each checkpoint_name the "
          "front end read from the jaxpr (ReportOptions::checkpoint_names).");

  nb::class_<FrontEndInput>(
      m, "FrontEndInput",
      "What the console command's front end made of one input file, for "
      "run_command_line (pipeline/front_end_input.h): an error, a parse "
      "error, or the converted HLO module with its pytree names.")
      .def(nb::init<>())
      .def_rw("error", &FrontEndInput::error,
              "Why the file could not be converted (reported as a read error).")
      .def_rw("text", &FrontEndInput::text, "The converted HLO module.")
      .def_rw("output_paths", &FrontEndInput::output_paths,
              "The pytree path of each flat entry output.")
      .def_rw("input_paths", &FrontEndInput::input_paths,
              "The pytree path of each entry parameter.")
      .def_rw("notes", &FrontEndInput::notes,
              "Written before the file's diagnostics as `hlo-offload: note: "
              "FILE: NOTE`.")
      .def_rw("partitioned", &FrontEndInput::partitioned,
              "The text is the HLO file's module as XLA's SPMD partitioner "
              "gives it (not a StableHLO conversion).")
      .def_rw("locate_in_source", &FrontEndInput::locate_in_source,
              "Diagnostics are located in the user's program first (False: "
              "the text is the file's own).")
      .def_rw("partition_failed", &FrontEndInput::partition_failed,
              "XLA's partitioner failed on the input: its note says so, and HO3017 "
              "is not reported.")
      .def_prop_rw(
          "backend",
          [](const FrontEndInput& input) -> std::optional<std::string> {
            if (!input.backend) return std::nullopt;
            switch (*input.backend) {
              case TargetBackend::kTpu: return std::string("tpu");
              case TargetBackend::kGpu: return std::string("gpu");
              case TargetBackend::kAny: return std::string("any");
            }
            return std::nullopt;
          },
          [](FrontEndInput& input, std::optional<std::string> name) {
            if (!name) {
              input.backend = std::nullopt;
              return;
            }
            auto backend = ParseTargetBackend(*name);
            if (!backend) {
              throw nb::value_error(
                  ("unknown backend '" + *name + "' (tpu, gpu or any)").c_str());
            }
            input.backend = *backend;
          },
          nb::arg("name").none(),
          "What the file was made for (--backend unless given): tpu, gpu, any "
          "or None.")
      .def(
          "set_parse_error",
          [](FrontEndInput& input, const std::string& rendered, uint32_t line,
             uint32_t column, const std::string& message) {
            input.parse_error = rendered;
            input.parse_line = line;
            input.parse_column = column;
            input.parse_message = message;
          },
          "rendered"_a, "line"_a, "column"_a, "message"_a,
          "The file did not parse: the complete message, where (1-based; 0 "
          "when unknown) and what was expected.")
      .def(
          "add_error",
          [](FrontEndInput& input, const std::string& code,
             const std::string& message, const std::vector<std::string>& notes,
             bool warning) {
            std::optional<DiagCode> parsed = ParseDiagCode(code);
            if (!parsed) throw nb::value_error(("unknown code '" + code + "'").c_str());
            input.errors.push_back(FrontEndError(
                *parsed, message, notes,
                warning ? Severity::kWarning : Severity::kError));
          },
          "code"_a, "message"_a, "notes"_a = std::vector<std::string>(),
          "warning"_a = false,
          "Adds an error (a warning with warning=True) of the front end about the "
          "whole file (HO0002), reported before the module's diagnostics.");

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

  m.def("run", &Run, "command"_a, "text"_a.none(), "file"_a.none(), "options"_a,
        nb::rv_policy::take_ownership,
        "Runs check/opt/fix/fmt/report on text (bytes or str) or a file; the "
        "GIL is released meanwhile.");
  m.def("parse_error", &ParseErrorOutcome, "command"_a, "path"_a, "rendered"_a,
        "line"_a, "column"_a, "message"_a, nb::rv_policy::take_ownership,
        "The Outcome of an input a front end could not parse (StableHLO text "
        "MLIR refuses): one HO0001 diagnostic at line:column, exit status 2.");
  m.def("run_command_line", &RunCommandLine, "args"_a, "reads"_a, "convert"_a,
        "Runs the hlo-offload command line on args (args[0] is the program's "
        "name) in this process, writing to its standard output and error; "
        "the files reads(file) claims are converted by convert(file, "
        "split_input) into a FrontEndInput. Returns the exit status.");
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
        nb::sig("def parse_byte_size(text: str) -> int | str"),
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
        nb::sig("def parse_codes(option: str, items: Sequence[str], disable: bool) "
                "-> list[str] | str"),
        "The codes --disable (disable=True) or --enable takes from `items` "
        "(codes or prefixes, comma-separated): a list of codes, or the "
        "reason they are not valid (a str, naming `option`).");
  m.def(
      "set_entry_memory_spaces",
      [](const std::string& text, const std::vector<int64_t>& input_spaces,
         const std::vector<int64_t>& output_spaces, bool tuple_args) {
        absl::StatusOr<std::string> out =
            SetEntryMemorySpaces(text, input_spaces, output_spaces, tuple_args);
        if (!out.ok()) throw nb::value_error(std::string(out.status().message()).c_str());
        return *std::move(out);
      },
      "text"_a, "input_spaces"_a, "output_spaces"_a, "tuple_args"_a = false,
      "The module text with the memory spaces in its entry computation layout, as "
      "PJRT applies JAX's memory kinds (pipeline/entry_memory_spaces.h); ValueError "
      "when the layout cannot take them.");
  m.def(
      "entry_layout_text",
      [](const std::string& text) {
        absl::StatusOr<std::string> out = EntryLayoutText(text);
        if (!out.ok()) throw nb::value_error(std::string(out.status().message()).c_str());
        return *std::move(out);
      },
      "text"_a, "The entry_computation_layout of the module's HloModule line, braces "
      "included; ValueError when it has none.");
  m.def(
      "partitioning",
      [](nb::bytes text) -> nb::object {
        absl::string_view view(text.c_str(), text.size());
        // A module whose HloModule line does not say num_partitions is not
        // parsed: it has one partition.
        absl::string_view header = view.substr(0, view.find('\n'));
        if (!absl::StrContains(header, "num_partitions=")) {
          return nb::make_tuple(int64_t{1}, std::string());
        }
        absl::StatusOr<std::unique_ptr<Module>> module;
        {
          nb::gil_scoped_release release;
          module = ParseHloModule(view);
        }
        if (!module.ok()) return nb::none();
        const Instruction* sharding = FirstUnpartitionedSharding(**module);
        return nb::make_tuple(NumPartitions(**module),
                              sharding == nullptr ? std::string()
                                                  : std::string(sharding->input_name()));
      },
      "text"_a,
      nb::sig("def partitioning(text: bytes) -> tuple[int, str] | None"),
      "(num_partitions of the module's header, the name of the first instruction "
      "that says it is not SPMD-partitioned yet, \"\" when none: "
      "analysis/partitions.h FirstUnpartitionedSharding), or None when the text "
      "does not parse.");
  m.def(
      "shape_bytes_by_memory_space",
      [](const std::string& text, bool tiles) {
        absl::StatusOr<Shape> shape = ParseShape(text);
        if (!shape.ok()) throw nb::value_error(std::string(shape.status().message()).c_str());
        std::map<int64_t, int64_t> bytes;
        ShapeIndex scratch;
        shape_util::ForEachSubshape(
            *shape,
            [&](const Shape& leaf, const ShapeIndex&) {
              if (!leaf.IsArray()) return;
              if (tiles || leaf.layout.tiles.empty()) {
                bytes[leaf.memory_space()] += shape_util::ByteSizeOf(leaf);
                return;
              }
              Shape dense = leaf;
              dense.layout.tiles.clear();
              bytes[leaf.memory_space()] += shape_util::ByteSizeOf(dense);
            },
            scratch);
        return bytes;
      },
      "shape"_a, "tiles"_a = true,
      nb::sig("def shape_bytes_by_memory_space(shape: str, tiles: bool = True) -> dict[int, int]"),
      "Bytes of the array leaves of `shape` (HLO shape text such as "
      "`(f32[8,128]{1,0:T(8,128)S(5)}, bf16[4]{0})`, a tuple for the parameters of an "
      "entry computation layout) per memory space (0 device, 5 host), with the "
      "padding of the layout's tiles (shape_util::ByteSizeOf, as XLA's "
      "ShapeUtil::ByteSizeOf with a TPU layout), or, with tiles=False, without it (the "
      "dense size). ValueError when the text is not a shape.");
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
  m.attr("MAX_INPUT_BYTES") = kMaxInputBytes;
}
