// The flow a user runs, as a library: `check`, `opt`, `fix`, `fmt` and
// `report` on the text of one input (one module, or several separated by
// `// -----` lines), with a structured result, and the renderers that turn
// results into exactly what the command line prints. The command line
// (tool/), the fuzzers, the benchmarks and the Python module all call this;
// none of them rebuilds the flow. Modelled on MLIR's MlirOptMain (the flow
// behind mlir-opt, callable by other front ends) over the non-HLO helpers
// of support/.
//
// A run never throws for bad input and never writes files: parse errors,
// pass failures and lints are diagnostics in the result, and the exit
// status the command line would return is part of it.
#ifndef HLO_OFFLOAD_PIPELINE_PIPELINE_H_
#define HLO_OFFLOAD_PIPELINE_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "diag/code_selection.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"
#include "ir/text_buffer.h"
#include "lints/offload_lints.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "pipeline/choices.h"
#include "pipeline/xla_versions.h"
#include "report/report.h"

namespace hloff {

// The subcommands of docs/CLI.md that work on modules.
enum class Command {
  kCheck,   // run the default pipeline and the lints; print no module
  kOpt,     // run the pipeline (or PipelineOptions::passes); print the module
  kFix,     // find every E1200, apply PipelineOptions::fix_strategy, re-check
  kFmt,     // parse and print the module unchanged
  kReport,  // the offload report (report/report.h) of each module
};

// Exit statuses, as the command line returns them (docs/CLI.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitDiagnosed = 1;  // an error diagnosed in the input
inline constexpr int kExitUsage = 2;      // usage, I/O or parse error

struct PipelineOptions {
  // The name diagnostics and reports show for the input ("<stdin>" for
  // standard input), as ParseOptions::path.
  std::string path = "<stdin>";
  // Added to every line number (the input is a piece of a larger file).
  uint32_t line_offset = 0;
  // Treat lines that are exactly `// -----` as module separators
  // (--split-input-file); otherwise the input is one module.
  bool split_input = false;
  // Threads the parser may use for one large module (ParseOptions::threads).
  int parse_threads = 1;
  // check and opt: the passes to run, by registry name (passes/pass.h), in
  // order; empty: those of `pipeline`. Naming passes turns the lints off.
  // Unknown names are a usage error of the caller: see UnknownPass().
  std::vector<std::string> passes;
  // check, opt, fix and report, when `passes` is empty. An input the
  // offloader has run on already (HO3015) gets the offloading passes alone
  // either way, as XLA's passes on it would only undo the offloading.
  PassPipeline pipeline = PassPipeline::kXla;
  // The XLA whose verdicts to reproduce where versions differ
  // (`--xla-version`; pipeline/xla_versions.h): the newest known by default.
  XlaSemantics xla;
  // check, opt and fix: run the HO3xxx lints (`--no-lints` clears it).
  bool lints = true;
  // The codes reported (`--disable`, `--enable`; diag/code_selection.h): a
  // diagnostic of another code is dropped from the result before anything
  // looks at it, so it is printed in no format and fails no run.
  CodeSelection codes;
  // The passes' options. check and fix always report every faulty entry
  // output (report_all_output_errors is set for them).
  OffloadOptions offload;
  // The lints' options, the pinned-host budget (HO3012) among them;
  // fix_entry_layout_unless_customized is taken from `offload`.
  LintOptions lint;
  // The offloader's trace level (`--trace=N`, XLA's
  // --vmodule=host_offloader=N); 0: none.
  int trace_level = 0;
  // Where the trace goes as it is written. Null with trace_level > 0: each
  // module's trace is kept in ModuleResult::trace, and RenderDiagnostics
  // prints it where the command line does.
  std::ostream* trace = nullptr;
  // fix: the strategy (`--strategy`).
  FixStrategy fix_strategy = FixStrategy::kHostOutput;
  // report: the most path instructions drawn (`--max-nodes`).
  int64_t report_max_nodes = 400;
  // opt, fix and fmt: also print each resulting module into
  // ModuleResult::printed. When false the module is kept in
  // ModuleResult::module only and WritePrintedModules prints it in pieces
  // (no copy of a large module's text). fix always prints.
  bool print_to_string = true;
  // Keep each resulting module in ModuleResult::module. When false, check
  // frees each module as soon as it is done with it; opt, fix and fmt keep
  // theirs only where WritePrintedModules needs them (print_to_string
  // false).
  bool keep_modules = true;
  // Optional JAX names. output_paths[i]: the pytree path of flat entry
  // output i (the i-th leaf of the entry result shape, in order), e.g.
  // "result['opt_state']['mu']"; input_paths[n]: that of entry parameter n,
  // e.g. "params['w']". Empty strings and indices past the end mean no name.
  // Named diagnostics carry Diagnostic::output_path / input_path, shown in
  // the JSON and as a note in the text; without names nothing printed
  // changes.
  std::vector<std::string> output_paths;
  std::vector<std::string> input_paths;
  // report: the program's checkpoint names, when a front end read them
  // (ReportOptions::checkpoint_names).
  std::vector<CheckpointName> checkpoint_names;
  // The module was converted from the user's own file (the Python front end
  // sets it for StableHLO text and JAX programs): a diagnostic whose source
  // (metadata) names a file and line is located there first
  // (Diagnostic::primary_file), the converted module's line after it.
  bool locate_in_source = false;
};

// What one module of the input gave.
struct ModuleResult {
  // The module's name (`HloModule NAME`); empty when it did not parse.
  std::string module_name;
  // Every diagnostic in the order the command line prints them: the
  // passes', then the lints'. A parse error is one HO0001 diagnostic
  // located at the error.
  std::vector<Diagnostic> diagnostics;
  // The module did not parse (exit status 2); `parse_error` is the
  // parser's complete message (`path:line:col: error: ...`, the source line
  // and a caret), as the command line prints it.
  bool parse_failed = false;
  std::string parse_error;
  // A pass failed or an error-level diagnostic was reported (exit status
  // 1); nothing is printed for the module.
  bool failed = false;
  // report: BuildReport's error (printed as `hlo-offload: error: PATH: ...`).
  std::string report_error;
  // The trace of this module when PipelineOptions::trace was null.
  std::string trace;
  // The resulting module (after the passes for check/opt, as parsed for
  // fmt, the fixed module for fix); null when parsing or the passes failed,
  // and for report.
  std::unique_ptr<Module> module;
  // opt/fmt with print_to_string, and fix: the module as printed text
  // (ends with a newline). fix with nothing to fix: the module's input
  // text, as it was.
  std::string printed;
  // fix: the module had nothing to fix (no entry output raises E1200).
  bool unchanged = false;
  // fix: the entry outputs the fix changed (shape indices into the entry
  // result), and their pytree paths where PipelineOptions::output_paths
  // names them (else empty strings), in the same order.
  std::vector<ShapeIndex> fixed_outputs;
  std::vector<std::string> fixed_output_paths;
  // report: the module's offload report.
  std::optional<Report> report;
};

// What a run over one input gave.
struct PipelineResult {
  Command command = Command::kCheck;
  // PipelineOptions::path: the name shown for the input.
  std::string path;
  // RunPipelineOnFile: the file as named ("-" for standard input).
  std::string file;
  // 0, 1 or 2, as the command line's exit status for this input alone.
  int exit_status = kExitOk;
  // The input could not be read (RunPipelineOnFile): the reason; then
  // `modules` is empty and exit_status is 2.
  std::string read_error;
  // One per module of the input, in order. report stops after the first
  // module that fails.
  std::vector<ModuleResult> modules;
  // fix: no module had anything to fix (the input is printed as it was).
  bool unchanged = false;
  // The trace was kept in ModuleResult::trace (PipelineOptions::trace was
  // null and trace_level > 0).
  bool trace_kept = false;
  // The XLA semantics the run used (XlaSemantics::Describe of
  // PipelineOptions::xla), for the JSON and the report.
  std::string xla_semantics;
  // The input text (kept alive: the modules' names point into it).
  std::shared_ptr<const TextBuffer> input;
};

// Runs `command` on `input`. The result's modules share `input`.
PipelineResult RunPipeline(Command command,
                           std::shared_ptr<const TextBuffer> input,
                           const PipelineOptions& options);
// As above on a copy of `text`.
PipelineResult RunPipeline(Command command, absl::string_view text,
                           const PipelineOptions& options);
// As above on the file at `file` ("-": standard input), read as the
// command line reads it (support/file_io.h: mapped, at most
// kMaxInputBytes). options.path is replaced by the name shown for the file
// (`file`, or "<stdin>"). A file that cannot be read gives read_error and
// exit status 2.
PipelineResult RunPipelineOnFile(Command command, const std::string& file,
                                 PipelineOptions options);
// Runs `command` on a module already parsed (split_input and line_offset do
// not apply). check and opt run on the module itself; fmt, fix and report
// work on its printed text (their locations are those of that text).
PipelineResult RunPipelineOnModule(Command command,
                                   std::unique_ptr<Module> module,
                                   const PipelineOptions& options);

// Runs `command` on each of `files` (RunPipelineOnFile) on up to `threads`
// threads, one file per thread (options.parse_threads applies to each), and
// calls deliver(i, result) on the calling thread in input order, each as
// soon as it and every earlier file are done; progress(done) after each
// delivery and once more at the end (support/thread_pool.h). An exception
// in a worker (out of memory) becomes that file's error, exit status 2.
void RunPipelineOnFiles(
    Command command, const std::vector<std::string>& files,
    const PipelineOptions& options, size_t threads,
    const std::function<void(size_t, PipelineResult)>& deliver,
    const std::function<void(size_t)>& progress = nullptr);

// The offload report of `module` (report/report.h), as `report` builds it:
// the passes of PipelineOptions::pipeline (PipelineOptions::passes does not
// apply) run on it with PipelineOptions::offload, every faulty output
// reported, while the report observes the HostOffloader's input
// (ReportBuilder). `file` is the name the report shows. A pipeline failure
// is part of the report, not an error; errors are INTERNAL for a module
// without an entry computation.
absl::StatusOr<Report> BuildReport(std::unique_ptr<Module> module,
                                   absl::string_view file,
                                   const PipelineOptions& options = PipelineOptions());

// The first of `passes` that the registry does not know, if any (the
// command line's "unknown pass" usage error).
std::optional<std::string> UnknownPass(const std::vector<std::string>& passes);

// How the renderers name files.
struct RenderOptions {
  // Several files are rendered together: xla lines start with `PATH: ` and
  // each traced file's trace starts with `hlo-offload: trace of PATH:`.
  bool several_files = false;
};

// What the command line writes on standard error for `result` in `format`:
// the read error, each module's trace, and for text and xla its parse
// error or diagnostics (text: every diagnostic, GNU style with the source
// line and caret, a group of diagnostics with one cause (diag/group.h)
// printed once with the outputs of the others in a note; xla: the first
// error as XLA's status). json and sarif put
// the diagnostics in the document instead. For report: the read, parse or
// report error. `str(result)` in Python is the kText form.
std::string RenderDiagnostics(const PipelineResult& result,
                              DiagnosticFormat format,
                              const RenderOptions& render = {});

// The `--format=json` document of check (docs/CLI.md): `{"version": 1,
// "files": [...], "xla_semantics": "libtpu 0.0.52, ..."}`, one entry per module (an unreadable file: one entry
// with "error"), indented, ending with a newline. Every diagnostic has its
// entry; those of a group (diag/group.h) also have `group` (the index of
// the group's first diagnostic in the same `diagnostics` array) and
// `group_size`.
std::string RenderJson(const std::vector<const PipelineResult*>& results);
std::string RenderJson(const PipelineResult& result);
// The `--format=sarif` document (SARIF 2.1.0), ending with a newline.
std::string RenderSarif(const std::vector<const PipelineResult*>& results);
std::string RenderSarif(const PipelineResult& result);

// The line `check` writes last on standard error in text format, as
// compilers do: "hlo-offload: 3 files checked: 2 errors (E1200 x2), 1
// warning (HO2001), 1 note (HO3013)", "hlo-offload: 1 file checked: no
// errors, no warnings". It counts every diagnostic as --format=json lists
// it (a folded group counts each of its diagnostics), per severity and per
// code in the order of codes.def; notes only when there are some; files
// that could not be read as "N could not be read" before the errors.
class CheckSummary {
 public:
  // Counts `result`'s input and its diagnostics.
  void Add(const PipelineResult& result);
  // Counts one diagnostic found outside a PipelineResult (the Python front
  // end's HO0002 for a JAX lowering for the CPU).
  void AddDiagnostic(Severity severity, DiagCode code);
  // Counts an input that could not be read before the pipeline ran.
  void AddUnreadFile();
  // The summary line, ending with a newline.
  std::string Render() const;

 private:
  size_t files_ = 0;
  size_t unread_ = 0;
  // (severity, code) to count, both as their enum's integer.
  std::map<std::pair<int, int>, size_t> counts_;
};

// What `report --format=...` writes for the modules' reports (empty unless
// every result has exit status 0).
std::string RenderReports(const std::vector<const PipelineResult*>& results,
                          ReportFormat format);
std::string RenderReports(const PipelineResult& result, ReportFormat format);

// What opt, fix or fmt writes as output: the modules, separated by
// `// -----` lines (also between inputs); for one fix input with nothing
// to fix, the input's text as it was. Nothing unless every result has exit
// status 0. `sink` receives the bytes in order.
void WritePrintedModules(const std::vector<const PipelineResult*>& results,
                         const std::function<void(absl::string_view)>& sink);
std::string PrintedModules(const std::vector<const PipelineResult*>& results);
std::string PrintedModules(const PipelineResult& result);

// Checks that printed module text parses again (each `// -----` piece):
// done before a file is replaced by what was printed from it. INTERNAL
// "the rewritten module does not parse, ..." otherwise.
absl::Status CheckReadsBack(absl::string_view printed);

// `hlo-offload explain CODE`: the code's documentation page (docs/errors/),
// or its name and summary where it has none.
std::string ExplainCode(DiagCode code);

// The version the command line and SARIF report.
absl::string_view ToolVersion();

}  // namespace hloff

#endif  // HLO_OFFLOAD_PIPELINE_PIPELINE_H_
