// The check/opt/fix/fmt/report flow.
#include "pipeline/pipeline.h"

#include "pipeline/backend_limits.h"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "analysis/offload_utils.h"
#include "diag/docs.h"
#include "passes/host_offloader.h"
#include "support/file_io.h"
#include "support/input_files.h"
#include "support/thread_pool.h"
#include "text/parser.h"
#include "text/printer.h"

#ifndef HLOFF_VERSION
#define HLOFF_VERSION "0.0.0"
#endif

namespace hloff {
namespace {

// Whether a module run goes through the passes (check, opt, fix) or only
// the parser (fmt).
enum class PassRun { kParseOnly, kPasses };
// What a module run keeps of the resulting module for printing.
enum class PrintAs {
  kNothing,     // check: nothing is printed
  kString,      // ModuleResult::printed
  kKeepModule,  // ModuleResult::module, printed later in pieces
};

// Parses `chunk`, a piece of `buffer` when there is one (no copy of the
// text), else of text that lives only during the call.
absl::StatusOr<std::unique_ptr<Module>> ParseChunk(
    const InputChunk& chunk, const std::shared_ptr<const TextBuffer>& buffer,
    ParseOptions options) {
  if (buffer != nullptr) return ParseHloModule(buffer, chunk.text, options);
  return ParseHloModule(chunk.text, options);
}

ParseOptions ChunkParseOptions(const std::string& path, const InputChunk& chunk,
                               const PipelineOptions& options) {
  ParseOptions parse_options;
  parse_options.path = path;
  parse_options.line_offset = chunk.line_offset;
  parse_options.threads = options.parse_threads;
  return parse_options;
}

// A parse error status turned into a diagnostic (the parser's message starts
// with `path:line:col: error: `). A `.mlir` file gets a note saying who reads
// StableHLO text.
Diagnostic ParseErrorDiagnostic(const absl::Status& status,
                                const std::string& path) {
  Diagnostic d;
  d.code = DiagCode::kHO0001;
  d.severity = Severity::kError;
  if (absl::EndsWith(path, ".mlir")) {
    d.notes.push_back(Note{
        "this program reads HLO text; StableHLO (.mlir) is read by the Python "
        "package's command line (the hlo-offload of pip install '.[jax]', or "
        "python -m hlo_offload), which converts it as XLA does",
        {}});
  }
  absl::string_view message = status.message();
  absl::string_view first_line = message.substr(0, message.find('\n'));
  std::string prefix = path + ":";
  if (first_line.substr(0, prefix.size()) == prefix) {
    std::vector<absl::string_view> parts =
        absl::StrSplit(first_line.substr(prefix.size()), absl::MaxSplits(':', 2));
    uint32_t line = 0, column = 0;
    if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &line) &&
        absl::SimpleAtoi(parts[1], &column)) {
      d.loc = {line, column};
      absl::string_view rest = parts[2];
      constexpr absl::string_view kError = " error: ";
      if (rest.substr(0, kError.size()) == kError) rest.remove_prefix(kError.size());
      d.message = std::string(rest);
      return d;
    }
  }
  d.message = std::string(first_line);
  return d;
}

// The JAX names of a module's entry boundary (PipelineOptions::output_paths
// and input_paths), looked up by entry output index and parameter name.
class JaxNames {
 public:
  JaxNames(const Module& module, const PipelineOptions& options)
      : options_(options) {
    if (!options.output_paths.empty()) {
      int64_t leaf = 0;
      ShapeIndex index;
      shape_util::ForEachSubshape(
          module.entry_computation_layout().result,
          [&](const Shape& shape, const ShapeIndex& at) {
            if (!shape.IsTuple()) flat_output_[at] = leaf++;
          },
          index);
    }
    if (!options.input_paths.empty() && module.entry() != nullptr) {
      for (const Instruction* parameter : module.entry()->parameters()) {
        parameters_[parameter->name()] = parameter->parameter_number();
      }
    }
  }

  // The pytree path of entry output `index`, or "".
  std::string OutputPath(const ShapeIndex& index) const {
    auto it = flat_output_.find(index);
    if (it == flat_output_.end()) return "";
    return Named(options_.output_paths, it->second);
  }

  // Sets output_path and input_path on `d` where names are given.
  void Name(Diagnostic& d) const {
    if (d.output_index.has_value()) {
      d.output_path = OutputPath(*d.output_index);
    } else if (d.about_output.has_value()) {
      d.output_path = OutputPath(*d.about_output);
    }
    if (parameters_.empty()) return;
    for (absl::string_view name :
         {absl::string_view(d.start), absl::string_view(d.instruction),
          d.path.empty() ? absl::string_view() : absl::string_view(d.path[0].instruction)}) {
      auto it = parameters_.find(name);
      if (name.empty() || it == parameters_.end()) continue;
      d.input_path = Named(options_.input_paths, it->second);
      return;
    }
  }

 private:
  static std::string Named(const std::vector<std::string>& names, int64_t i) {
    if (i < 0 || i >= static_cast<int64_t>(names.size())) return "";
    return names[i];
  }

  const PipelineOptions& options_;
  absl::flat_hash_map<ShapeIndex, int64_t> flat_output_;
  absl::flat_hash_map<std::string, int64_t> parameters_;
};

bool HasJaxNames(const PipelineOptions& options) {
  return !options.output_paths.empty() || !options.input_paths.empty();
}

// The options the passes of `command` run with: check and fix report every
// faulty entry output.
OffloadOptions OffloadOptionsFor(Command command, const PipelineOptions& options) {
  OffloadOptions offload = options.offload;
  if (command == Command::kCheck || command == Command::kFix) {
    offload.report_all_output_errors = true;
  }
  return offload;
}

// The passes a module runs; the pipeline choice is made here alone. Those
// PipelineOptions::passes names when `named_passes` lets them count and it
// names some (check, opt, fix); else XLA's order or the offloading passes
// alone (`--pipeline`), the latter either way for an input the offloader has
// run on already (HO3015), on which XLA's passes would only undo the
// offloading.
std::vector<absl::string_view> PassesToRun(const Module& module,
                                           const PipelineOptions& options,
                                           bool named_passes) {
  if (named_passes && !options.passes.empty()) {
    return std::vector<absl::string_view>(options.passes.begin(),
                                          options.passes.end());
  }
  bool offload_only = options.pipeline == PassPipeline::kOffload ||
                      FindEarlierOffloading(module).has_value();
  return offload_only ? DefaultPipeline() : XlaPipeline();
}

// What the passes gave on one module (RunModulePasses).
struct PassesRun {
  // OK, or the status of the pass that failed.
  absl::Status status;
  // The passes' diagnostics, in the order they were emitted.
  std::vector<Diagnostic> diagnostics;
  // Set when a pass failed without an error-level diagnostic of its own (an
  // input XLA fails a CHECK on): HO9002 with the failure's message.
  std::optional<Diagnostic> unreported_failure;
};

// Runs `passes` on `module` (RunPasses, with `instrumentation`'s hooks),
// collecting their diagnostics, and applies the one rule for a pass that
// fails without saying why (HO9002). `context.diagnostics` is replaced.
PassesRun RunModulePasses(Module& module,
                          const std::vector<absl::string_view>& passes,
                          PassContext context,
                          PassInstrumentation* instrumentation) {
  DiagnosticSink sink;
  context.diagnostics = &sink;
  PassesRun run;
  run.status = RunPasses(module, passes, context, instrumentation).status();
  run.diagnostics = std::move(sink.mutable_diagnostics());
  if (run.status.ok()) return run;
  for (const Diagnostic& d : run.diagnostics) {
    if (d.severity == Severity::kError) return run;
  }
  Diagnostic d;
  d.code = DiagCode::kHO9002;
  d.message = std::string(run.status.message());
  run.unreported_failure = std::move(d);
  return run;
}

// Shows the report the HostOffloader's input: the module just before the
// pass runs (ReportBuilder::OffloaderInput). And has the rewrite of each walk
// that reaches an entry output in device memory made all the same, which XLA
// leaves out: what the pipeline would insert once the fault is fixed is
// shown.
class ReportObserver : public PassInstrumentation,
                       public DeviceOutputWalkObserver {
 public:
  explicit ReportObserver(ReportBuilder& builder) : builder_(builder) {}

  void RunBeforePass(absl::string_view pass, Module& module) override {
    if (pass == "host-offloader") builder_.OffloaderInput(module);
  }

  absl::Status Reached(DeviceOutputWalk& walk) override {
    return walk.Rewrite();
  }

 private:
  ReportBuilder& builder_;
};

// Whether `op_name` (JAX's name stack) accepts `code` inline: a component
// `hlo_offload_ignore_HO3014` (codes joined by `_`, as
// `jax.named_scope("hlo_offload_ignore_HO3014_HO2001")` writes them) names
// it. Only codes that --disable may drop (CanBeDisabled): XLA's errors stay.
bool AcceptedInline(absl::string_view op_name, DiagCode code) {
  constexpr absl::string_view kMarker = "hlo_offload_ignore_";
  if (!CanBeDisabled(code)) return false;
  absl::string_view want = DiagCodeString(code);
  for (size_t at = op_name.find(kMarker); at != absl::string_view::npos;
       at = op_name.find(kMarker, at + 1)) {
    size_t begin = at + kMarker.size();
    size_t end = op_name.find_first_of("/()[]", begin);
    absl::string_view codes = op_name.substr(
        begin, end == absl::string_view::npos ? absl::string_view::npos : end - begin);
    for (absl::string_view c : absl::StrSplit(codes, '_')) {
      if (c == want) return true;
    }
  }
  return false;
}

// Runs the passes and the lints on `module` (PassRun::kPasses) and keeps
// what `print` asks for. Every faulty entry output
// (PassContext::faulty_entry_outputs) is added to `faulty_outputs` when it
// is not null.
ModuleResult RunOnParsedModule(std::unique_ptr<Module> module,
                               const PipelineOptions& options,
                               const OffloadOptions& offload, PassRun run,
                               PrintAs print, std::ostream* trace,
                               std::vector<ShapeIndex>* faulty_outputs) {
  ModuleResult result;
  result.module_name = module->name();
  if (run == PassRun::kPasses) {
    std::vector<Diagnostic> lints;
    LintInputFacts facts;
    bool lint = options.lints && options.passes.empty();
    if (lint) {
      LintOptions lint_options = options.lint;
      lint_options.fix_entry_layout_unless_customized =
          offload.fix_entry_layout_unless_customized;
      facts = LintInput(*module, lints, lint_options);
    }
    // What the backend refuses in the module as given (HO1014).
    std::vector<Diagnostic> refused;
    if (options.passes.empty()) {
      CheckBackendInput(*module, options.lint.backend, refused);
    }
    PassContext context;
    context.options = offload;
    // The passes keep the entry result's shape, so the names of its leaves
    // are looked up once, before them.
    std::optional<JaxNames> names;
    if (HasJaxNames(options)) {
      names.emplace(*module, options);
      context.output_path = [&names](const ShapeIndex& index) {
        return names->OutputPath(index);
      };
    }
    context.faulty_entry_outputs = faulty_outputs;
    context.trace_level = options.trace_level;
    context.trace = options.trace_level > 0 ? trace : nullptr;
    PassesRun run = RunModulePasses(
        *module, PassesToRun(*module, options, /*named_passes=*/true), context,
        /*instrumentation=*/nullptr);
    const bool passed = run.status.ok();
    result.diagnostics = std::move(run.diagnostics);
    for (Diagnostic& d : refused) result.diagnostics.push_back(std::move(d));
    if (passed && options.passes.empty()) {
      // What the backend's compiler refuses after the offloader.
      CheckBackendLimits(*module, options.lint.backend, options.xla,
                         result.diagnostics);
    }
    if (passed && lint) LintOutput(*module, facts, lints, options.lint);
    if (lint) LintVerdict(*module, facts, result.diagnostics, lints);
    for (Diagnostic& d : lints) result.diagnostics.push_back(std::move(d));
    // Findings the user accepted in their program: a jax.named_scope named
    // hlo_offload_ignore_<CODE>[_<CODE>...] around the line puts the marker
    // into the instructions' op_name (AcceptedInline).
    {
      std::vector<Diagnostic>& all = result.diagnostics;
      all.erase(std::remove_if(all.begin(), all.end(),
                               [](const Diagnostic& d) {
                                 return d.source.has_value() &&
                                        AcceptedInline(d.source->op_name, d.code);
                               }),
                all.end());
    }
    if (!options.codes.ReportsAll()) {
      std::vector<Diagnostic>& all = result.diagnostics;
      all.erase(std::remove_if(all.begin(), all.end(),
                               [&](const Diagnostic& d) {
                                 return !options.codes.Reports(d.code);
                               }),
                all.end());
    }
    if (names.has_value()) {
      for (Diagnostic& d : result.diagnostics) names->Name(d);
    }
    if (options.locate_in_source) {
      for (Diagnostic& d : result.diagnostics) {
        if (d.source.has_value() && !d.source->file.empty() &&
            d.source->line > 0) {
          d.primary_file = d.source->file;
          d.primary_line = d.source->line;
        }
      }
    }
    for (const Diagnostic& d : result.diagnostics) {
      if (d.severity == Severity::kError && d.code != DiagCode::kE1200 &&
          passed) {
        result.failed = true;  // an error-level lint
      }
    }
    if (!passed) {
      result.failed = true;
      // Last, after the lints (which report no error when a pass fails).
      if (run.unreported_failure.has_value()) {
        result.diagnostics.push_back(*std::move(run.unreported_failure));
      }
      return result;
    }
  }
  if (print == PrintAs::kKeepModule) {
    result.module = std::move(module);
    return result;
  }
  if (print == PrintAs::kString) result.printed = ModuleToString(*module);
  if (options.keep_modules) result.module = std::move(module);
  return result;
}

// Parses `chunk` and runs RunOnParsedModule on it.
ModuleResult ProcessChunk(const std::string& path, const InputChunk& chunk,
                          const std::shared_ptr<const TextBuffer>& buffer,
                          const PipelineOptions& options,
                          const OffloadOptions& offload, PassRun run,
                          PrintAs print, std::ostream* trace,
                          std::vector<ShapeIndex>* faulty_outputs) {
  auto module = ParseChunk(chunk, buffer, ChunkParseOptions(path, chunk, options));
  if (!module.ok()) {
    ModuleResult result;
    result.parse_failed = true;
    result.parse_error = std::string(module.status().message());
    result.diagnostics.push_back(ParseErrorDiagnostic(module.status(), path));
    return result;
  }
  return RunOnParsedModule(*std::move(module), options, offload, run, print,
                           trace, faulty_outputs);
}

// `fix` of one module: finds every E1200 of the chunk, applies the strategy
// to a fresh parse of the input, and re-checks the result.
ModuleResult FixChunk(const std::string& path, const InputChunk& chunk,
                      const std::shared_ptr<const TextBuffer>& buffer,
                      const PipelineOptions& options, std::ostream* trace) {
  OffloadOptions offload = OffloadOptionsFor(Command::kFix, options);
  // Every faulty output, those past check's report cap included.
  std::vector<ShapeIndex> outputs;
  ModuleResult found = ProcessChunk(path, chunk, buffer, options, offload,
                                    PassRun::kPasses, PrintAs::kNothing, trace,
                                    &outputs);
  found.module = nullptr;
  if (found.parse_failed) return found;
  for (const Diagnostic& d : found.diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (d.code != DiagCode::kE1200 || !d.output_index.has_value()) {
      // Only E1200 has a fix; report what stands in the way.
      found.failed = true;
      return found;
    }
  }
  if (outputs.empty()) {
    // Nothing to fix: the module stays as it was written, comments and all.
    ModuleResult result;
    result.module_name = found.module_name;
    result.printed = std::string(chunk.text);
    if (!result.printed.empty() && result.printed.back() != '\n') {
      result.printed += '\n';
    }
    result.unchanged = true;
    Diagnostic d;
    d.severity = Severity::kNote;
    d.code = DiagCode::kE1200;
    d.message = "nothing to fix: no entry output raises E1200; the module is "
                "left as it was";
    result.diagnostics.push_back(std::move(d));
    return result;
  }
  auto module = ParseChunk(chunk, buffer, ChunkParseOptions(path, chunk, options));
  if (!module.ok()) {
    found.parse_failed = true;
    return found;
  }
  if (auto s = ApplyE1200Fix(**module, options.fix_strategy, outputs); !s.ok()) {
    Diagnostic d;
    d.code = DiagCode::kE1200;
    d.message = absl::StrCat("cannot apply the fix: ", s.message());
    found.diagnostics = {d};
    found.failed = true;
    return found;
  }
  ModuleResult result;
  result.module_name = found.module_name;
  result.printed = ModuleToString(**module);
  // Re-check the fixed module.
  ModuleResult recheck =
      ProcessChunk(path, InputChunk{result.printed, 0}, nullptr, options,
                   offload, PassRun::kPasses, PrintAs::kNothing, trace, nullptr);
  if (recheck.parse_failed || recheck.failed) {
    result.failed = true;
    result.diagnostics = std::move(recheck.diagnostics);
    for (Diagnostic& d : result.diagnostics) {
      d.notes.push_back(Note{"this remains after the fix was applied", {}});
      d.loc = {};
      for (PathHop& hop : d.path) hop.loc = {};
      for (Note& note : d.notes) note.loc = {};
    }
    return result;
  }
  std::optional<JaxNames> names;
  if (HasJaxNames(options)) names.emplace(**module, options);
  for (const ShapeIndex& index : outputs) {
    Diagnostic d;
    d.severity = Severity::kNote;
    d.code = DiagCode::kE1200;
    d.message = absl::StrCat("fixed entry output ", ShapeIndexToString(index),
                             " (", FixStrategyName(options.fix_strategy), ")");
    result.diagnostics.push_back(std::move(d));
    result.fixed_output_paths.push_back(names ? names->OutputPath(index) : "");
  }
  result.fixed_outputs = std::move(outputs);
  if (options.keep_modules) result.module = std::move(*module);
  return result;
}

// `report` of one module.
ModuleResult ReportChunk(const std::string& path, const InputChunk& chunk,
                         const std::shared_ptr<const TextBuffer>& buffer,
                         const PipelineOptions& options) {
  ModuleResult result;
  ParseOptions parse_options = ChunkParseOptions(path, chunk, options);
  auto module = ParseChunk(chunk, buffer, parse_options);
  if (!module.ok()) {
    result.parse_failed = true;
    result.parse_error = std::string(module.status().message());
    result.diagnostics.push_back(ParseErrorDiagnostic(module.status(), path));
    return result;
  }
  result.module_name = (*module)->name();
  auto report = BuildReport(std::move(*module), path, options);
  if (!report.ok()) {
    result.failed = true;
    result.report_error = std::string(report.status().message());
    return result;
  }
  result.report = std::move(*report);
  return result;
}

// One module of `command`.
ModuleResult RunChunk(Command command, const std::string& path,
                      const InputChunk& chunk,
                      const std::shared_ptr<const TextBuffer>& buffer,
                      const PipelineOptions& options, std::ostream* trace) {
  PrintAs print = options.print_to_string ? PrintAs::kString : PrintAs::kKeepModule;
  switch (command) {
    case Command::kCheck:
      return ProcessChunk(path, chunk, buffer, options,
                          OffloadOptionsFor(command, options), PassRun::kPasses,
                          PrintAs::kNothing, trace, nullptr);
    case Command::kOpt:
      return ProcessChunk(path, chunk, buffer, options,
                          OffloadOptionsFor(command, options), PassRun::kPasses,
                          print, trace, nullptr);
    case Command::kFmt:
      return ProcessChunk(path, chunk, buffer, options,
                          OffloadOptionsFor(command, options), PassRun::kParseOnly,
                          print, trace, nullptr);
    case Command::kFix:
      return FixChunk(path, chunk, buffer, options, trace);
    case Command::kReport:
      return ReportChunk(path, chunk, buffer, options);
  }
  return ModuleResult();
}

// The exit status a module contributes.
int ModuleExitStatus(Command command, const ModuleResult& module) {
  if (module.parse_failed) return kExitUsage;
  if (module.failed) return command == Command::kReport ? kExitUsage : kExitDiagnosed;
  return kExitOk;
}

}  // namespace

absl::StatusOr<Report> BuildReport(std::unique_ptr<Module> module,
                                   absl::string_view file,
                                   const PipelineOptions& options) {
  if (module == nullptr || module->entry() == nullptr) {
    return absl::InternalError("the module has no entry computation");
  }
  ReportOptions report_options;
  report_options.max_graph_nodes = options.report_max_nodes;
  report_options.checkpoint_names = options.checkpoint_names;
  ReportBuilder builder(*module, file, report_options);
  // Every faulty output, and the rewrite of a walk that reaches a device
  // output made all the same (ReportObserver).
  PassContext context;
  context.options = options.offload;
  context.options.report_all_output_errors = true;
  ReportObserver observer(builder);
  context.device_output_walks = &observer;
  PassesRun run = RunModulePasses(
      *module, PassesToRun(*module, options, /*named_passes=*/false), context,
      &observer);
  PipelineOutcome outcome;
  outcome.ok = run.status.ok();
  if (!outcome.ok) {
    for (Diagnostic& d : run.diagnostics) {
      if (d.severity == Severity::kError) outcome.errors.push_back(std::move(d));
    }
    if (run.unreported_failure.has_value()) {
      outcome.errors.push_back(*std::move(run.unreported_failure));
    }
  }
  absl::StatusOr<Report> report = std::move(builder).Finish(*module, std::move(outcome));
  if (report.ok()) report->xla_semantics = options.xla.Describe();
  return report;
}

PipelineResult RunPipeline(Command command,
                           std::shared_ptr<const TextBuffer> input,
                           const PipelineOptions& options) {
  PipelineResult result;
  result.command = command;
  result.path = options.path;
  result.xla_semantics = options.xla.Describe();
  result.unchanged = command == Command::kFix;
  result.trace_kept = options.trace == nullptr && options.trace_level > 0 &&
                      command != Command::kReport;
  std::vector<InputChunk> chunks = SplitInput(input->text(), options.split_input);
  for (InputChunk& chunk : chunks) chunk.line_offset += options.line_offset;
  for (const InputChunk& chunk : chunks) {
    std::ostringstream kept_trace;
    std::ostream* trace = result.trace_kept ? &kept_trace : options.trace;
    ModuleResult module = RunChunk(command, options.path, chunk, input, options, trace);
    if (result.trace_kept) module.trace = std::move(kept_trace).str();
    int status = ModuleExitStatus(command, module);
    result.exit_status = std::max(result.exit_status, status);
    result.unchanged &= module.unchanged;
    result.modules.push_back(std::move(module));
    // A report is all or nothing: the first failure ends it.
    if (command == Command::kReport && status != kExitOk) break;
  }
  result.input = std::move(input);
  return result;
}

PipelineResult RunPipeline(Command command, absl::string_view text,
                           const PipelineOptions& options) {
  return RunPipeline(command, TextBuffer::FromString(std::string(text)), options);
}

PipelineResult RunPipelineOnFile(Command command, const std::string& file,
                                 PipelineOptions options) {
  options.path = file == "-" ? "<stdin>" : file;
  auto buffer = ReadInputBuffer(file);
  if (!buffer.ok()) {
    PipelineResult result;
    result.command = command;
    result.path = options.path;
    result.file = file;
    result.exit_status = kExitUsage;
    result.read_error = std::string(buffer.status().message());
    return result;
  }
  PipelineResult result = RunPipeline(command, *std::move(buffer), options);
  result.file = file;
  return result;
}

PipelineResult RunPipelineOnModule(Command command,
                                   std::unique_ptr<Module> module,
                                   const PipelineOptions& options) {
  // fmt prints the module's text, fix and report start from a fresh parse
  // of it; check and opt run on the module itself.
  if (command != Command::kCheck && command != Command::kOpt) {
    PipelineOptions text_options = options;
    text_options.split_input = false;
    text_options.line_offset = 0;
    return RunPipeline(command, ModuleToString(*module), text_options);
  }
  PipelineResult result;
  result.command = command;
  result.path = options.path;
  result.xla_semantics = options.xla.Describe();
  result.trace_kept = options.trace == nullptr && options.trace_level > 0;
  std::ostringstream kept_trace;
  std::ostream* trace = result.trace_kept ? &kept_trace : options.trace;
  PrintAs print = command == Command::kCheck ? PrintAs::kNothing
                  : options.print_to_string  ? PrintAs::kString
                                             : PrintAs::kKeepModule;
  ModuleResult out = RunOnParsedModule(std::move(module), options,
                                       OffloadOptionsFor(command, options),
                                       PassRun::kPasses, print, trace, nullptr);
  if (result.trace_kept) out.trace = std::move(kept_trace).str();
  result.exit_status = ModuleExitStatus(command, out);
  result.modules.push_back(std::move(out));
  return result;
}

void RunPipelineOnFiles(
    Command command, const std::vector<std::string>& files,
    const PipelineOptions& options, size_t threads,
    const std::function<void(size_t, PipelineResult)>& deliver,
    const std::function<void(size_t)>& progress) {
  RunInInputOrder<PipelineResult>(
      files.size(), threads,
      [&](size_t i) {
        auto result = std::make_unique<PipelineResult>();
        // An exception must not end a worker thread.
        try {
          *result = RunPipelineOnFile(command, files[i], options);
        } catch (const std::bad_alloc&) {
          *result = PipelineResult();
          result->read_error = "out of memory";
        } catch (const std::exception& e) {
          *result = PipelineResult();
          result->read_error = absl::StrCat("internal error: ", e.what());
        }
        if (!result->read_error.empty() && result->modules.empty()) {
          result->command = command;
          result->file = files[i];
          result->path = files[i] == "-" ? "<stdin>" : files[i];
          result->exit_status = kExitUsage;
        }
        return result;
      },
      [&](size_t i, std::unique_ptr<PipelineResult> result) {
        deliver(i, std::move(*result));
      },
      progress);
}

std::optional<std::string> UnknownPass(const std::vector<std::string>& passes) {
  for (const std::string& pass : passes) {
    if (FindPass(pass) == nullptr) return pass;
  }
  return std::nullopt;
}

absl::Status CheckReadsBack(absl::string_view printed) {
  for (const InputChunk& chunk : SplitInput(printed, /*split=*/true)) {
    auto module = ParseHloModule(chunk.text, ParseOptions{"<output>", 0});
    if (!module.ok()) {
      absl::string_view why = module.status().message();
      return absl::InternalError(absl::StrCat(
          "the rewritten module does not parse, so the input is left as it "
          "was (please report this): ",
          why.substr(0, why.find('\n'))));
    }
  }
  return absl::OkStatus();
}

std::string ExplainCode(DiagCode code) {
  absl::string_view page = DiagnosticDocumentation(code);
  if (!page.empty()) return std::string(page);
  return absl::StrCat("# ", DiagCodeString(code), ": ", DiagCodeName(code),
                      "\n\n", DiagCodeSummary(code), "\n");
}

absl::string_view ToolVersion() { return HLOFF_VERSION; }

}  // namespace hloff
