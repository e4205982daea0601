// The hlo-offload command line (docs/CLI.md): the flags (CLI11), one call
// into the library (pipeline/pipeline.h) per subcommand, the rendering and
// the exit status. What the flow does is in pipeline/; what is not about
// HLO (files, threads, byte sizes) is in support/.
#include "tool/driver.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <variant>

#include "CLI/CLI.hpp"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "diag/code_selection.h"
#include "diag/render.h"
#include "pipeline/choices.h"
#include "pipeline/pipeline.h"
#include "pipeline/xla_versions.h"
#include "support/byte_size.h"
#include "support/file_io.h"
#include "support/input_files.h"
#include "support/progress_line.h"

namespace hloff {
namespace {

// Every flag of every subcommand; only those of the parsed one are set.
struct Flags {
  std::vector<std::string> inputs;
  bool split_input_file = false;
  std::string format = "text";
  int trace_level = 0;
  std::string output;
  bool in_place = false;
  std::string passes;
  std::string pipeline = "xla";
  std::string backend;  // empty: not given (any)
  std::string xla_version;  // empty: the newest known
  bool no_lints = false;
  std::vector<std::string> disable_codes;
  std::vector<std::string> enable_codes;
  OffloadOptions offload;
  std::string pinned_host_budget;
  std::string fix_strategy;
  int64_t max_nodes = 400;
  std::string explain_code;
  std::string report_input;
  // Not a flag: the front end that reads some of the inputs (RunTool's).
  const FrontEnd* front_end = nullptr;
};

bool leave_modules_at_exit = false;

// Keeps `module` alive until the process exits (SetLeaveModulesAtExit).
void LeaveAtExit(std::unique_ptr<Module> module) {
  static auto* left = new std::vector<std::unique_ptr<Module>>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  left->push_back(std::move(module));
}

// LeaveAtExit for every module of `result`.
void LeaveModulesAtExit(PipelineResult& result) {
  for (ModuleResult& module : result.modules) {
    if (module.module != nullptr) LeaveAtExit(std::move(module.module));
  }
}

int UsageError(std::ostream& err, absl::string_view message) {
  err << "hlo-offload: error: " << message << "\n";
  return kExitUsage;
}

// The flags several subcommands share, each declared here once.
void AddSplitInputFlag(CLI::App* app, Flags& flags) {
  app->add_flag("--split-input-file", flags.split_input_file,
                "treat lines '// -----' as module separators");
}

void AddNoLintsFlag(CLI::App* app, Flags& flags) {
  app->add_flag("--no-lints", flags.no_lints,
                "report only what XLA's passes report (no HO3xxx lints)");
}

// --disable and --enable (diag/code_selection.h). Each takes one value per
// occurrence, so that `--disable HO3005 FILE` never takes FILE for a code.
void AddCodeFlags(CLI::App* app, Flags& flags) {
  app->add_option("--disable", flags.disable_codes,
                  "drop the diagnostics of these codes (comma-separated; a "
                  "prefix such as HO300 names every code it starts); only "
                  "HO2xxx and HO3xxx can be disabled: errors XLA raises, "
                  "input errors (HO0xxx) and HO9xxx are always reported")
      ->type_name("CODE[,CODE...]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--enable", flags.enable_codes,
                  "report only these codes among HO2xxx and HO3xxx (comma-"
                  "separated codes or prefixes); errors are always reported")
      ->type_name("CODE[,CODE...]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// The codes --disable and --enable select; INVALID_ARGUMENT for a code
// that is unknown or cannot be disabled.
absl::StatusOr<CodeSelection> CodesFrom(const Flags& flags) {
  CodeSelection codes;
  if (!flags.disable_codes.empty()) {
    auto disabled =
        ParseCodeList("--disable", flags.disable_codes, CodeListUse::kDisable);
    if (!disabled.ok()) return disabled.status();
    codes.disabled = *std::move(disabled);
  }
  if (!flags.enable_codes.empty()) {
    auto enabled =
        ParseCodeList("--enable", flags.enable_codes, CodeListUse::kEnable);
    if (!enabled.ok()) return enabled.status();
    codes.enabled = *std::move(enabled);
  }
  return codes;
}

void AddOutputFlag(CLI::App* app, Flags& flags, const std::string& description) {
  app->add_option("-o,--output", flags.output, description);
}

void AddInputs(CLI::App* app, Flags& flags, const std::string& description,
               bool one) {
  CLI::Option* option = app->add_option("FILE", flags.inputs, description)->required();
  if (one) option->expected(1);
}

// The passes' flags; `as_for_check`: report's shorter descriptions.
void AddOffloadFlags(CLI::App* app, Flags& flags, bool as_for_check) {
  OffloadOptions& offload = flags.offload;
  app->add_option("--pipeline", flags.pipeline,
                  as_for_check
                      ? "as for check: xla (default) or offload"
                      : "xla (default): XLA's GPU order up to the offloader, "
                        "with the passes before it that change what it sees; "
                        "offload: the three offloading passes alone")
      ->check(CLI::IsMember(PassPipelineNames()));
  app->add_option("--backend", flags.backend,
                  as_for_check
                      ? "as for check: tpu, gpu or any (default)"
                      : "the backend the module is compiled for: tpu, gpu "
                        "(cuda, rocm) or any (default: lints about one "
                        "backend's compiler, such as HO3005 for the GPU, are "
                        "reported)")
      ->check(CLI::IsMember(TargetBackendNames()));
  app->add_option("--xla-version", flags.xla_version,
                  as_for_check
                      ? "as for check: the XLA whose verdicts to reproduce"
                      : "the XLA whose verdicts to reproduce where versions "
                        "differ, PACKAGE-VERSION[,...] (default: "
                        "$HLO_OFFLOAD_XLA_VERSION, else the newest known; "
                        "another version gets the newest semantics and a "
                        "note). Known:\n" +
                            KnownXlaVersionsHelp())
      ->type_name("PKG-VER[,...]");
  app->add_flag("--disable-automatic-host-compute-offload",
                offload.disable_automatic_host_compute_offload,
                as_for_check
                    ? "as for check (xla_disable_automatic_host_compute_offload)"
                    : "fail instead of converting device compute on host data "
                      "into host compute (xla_disable_automatic_host_compute_offload)");
  app->add_flag(
      "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
      offload.allow_h2h_copy_when_automatic_host_compute_offload_disabled,
      as_for_check ? "as for check"
                   : "exempt same-shape host copies from the flag above "
                     "(xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled)");
  app->add_flag("--fix-entry-layout-unless-customized",
                offload.fix_entry_layout_unless_customized,
                as_for_check ? "as for check (XLA V4's entry-layout auto-fix)"
                             : "XLA V4 behaviour: set a non-customized entry "
                               "output layout to host memory instead of "
                               "raising E1200");
  if (as_for_check) return;
  // A flag, so that `--trace FILE...` never takes a file for the level;
  // `--trace=N` sets it.
  app->add_flag("--trace", flags.trace_level,
                "print the offloader's trace to standard error, as XLA's "
                "--vmodule=host_offloader=N (--trace=N; 1: walks and "
                "mutations, 2: memory-space assignments, 3+: every visited "
                "node)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            int level = 0;
            if (value == "true") return "";  // the bare flag: level 1
            if (absl::SimpleAtoi(value, &level) && level >= 0) return "";
            return "the trace level is a whole number, 0 or more (got '" +
                   value + "')";
          },
          ""));
}

// The library's options for what the flags say.
PipelineOptions OptionsFrom(const Flags& flags) {
  PipelineOptions options;
  options.split_input = flags.split_input_file;
  for (absl::string_view p : absl::StrSplit(flags.passes, ',', absl::SkipEmpty())) {
    options.passes.emplace_back(p);
  }
  options.pipeline =
      ParsePassPipeline(flags.pipeline).value_or(PassPipeline::kXla);
  options.lints = !flags.no_lints;
  options.lint.backend =
      ParseTargetBackend(flags.backend).value_or(TargetBackend::kAny);
  options.offload = flags.offload;
  options.trace_level = flags.trace_level;
  options.report_max_nodes = flags.max_nodes;
  return options;
}

// Writes what the modules printed to the output: standard output, or the
// file -o (--in-place) names, atomically.
int WriteOutput(Command command, const Flags& flags,
                const std::vector<std::string>& files,
                std::vector<PipelineResult>& results, std::ostream& out,
                std::ostream& err) {
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& result : results) all.push_back(&result);
  bool to_stdout = flags.output.empty() || flags.output == "-";
  bool unchanged = results.size() == 1 && results[0].unchanged;
  if (to_stdout) {
    WritePrintedModules(all, [&](absl::string_view text) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    });
    return kExitOk;
  }
  // A file fixed in place with nothing to fix is not touched.
  if (unchanged && flags.in_place) return kExitOk;
  std::string printed = PrintedModules(all);
  bool replaces_input = false;
  for (const std::string& file : files) {
    std::error_code ec;
    replaces_input |= std::filesystem::equivalent(file, flags.output, ec);
  }
  // Before a file is replaced by what was printed from it (`opt x -o x`):
  // the file it would replace is the only copy. (`fix` re-checks anyway.)
  if (replaces_input && command != Command::kFix && !unchanged) {
    if (auto s = CheckReadsBack(printed); !s.ok()) {
      err << "hlo-offload: error: internal error: " << s.message() << "\n";
      return kExitDiagnosed;
    }
  }
  if (auto s = WriteFileAtomically(flags.output, printed); !s.ok()) {
    return UsageError(err, s.message());
  }
  return kExitOk;
}

// The note for the after-pass dumps a directory input left out: how many,
// and how to check one anyway.
std::string SkippedDumpsNote(Command command, const SkippedDumps& skipped) {
  absl::string_view name = command == Command::kCheck ? "check"
                           : command == Command::kOpt ? "opt"
                           : command == Command::kFix ? "fix"
                                                      : "fmt";
  size_t n = skipped.files.size();
  return absl::StrCat(
      "hlo-offload: note: skipped ", n, n == 1 ? " file" : " files",
      " of the XLA dump folder '", skipped.directory,
      "' that XLA dumped after a pass (per-pass and after-optimizations "
      "dumps; the offloader has run on most of them); to read one anyway, "
      "name it: hlo-offload ", name,
      command == Command::kFix ? " --strategy=S " : " ", skipped.files.front(),
      "\n");
}

absl::string_view CommandName(Command command) {
  switch (command) {
    case Command::kCheck: return "check";
    case Command::kOpt: return "opt";
    case Command::kFix: return "fix";
    case Command::kFmt: return "fmt";
    case Command::kReport: return "report";
  }
  return "";
}

// A usage error about a front end's input, pointing at the subcommand's help.
int FrontEndUsageError(std::ostream& err, Command command,
                       absl::string_view message) {
  err << "hlo-offload: error: " << message << "\nRun 'hlo-offload "
      << CommandName(command) << " --help' for usage.\n";
  return kExitUsage;
}

// What the command line writes on standard error about a file the front end
// read, before its diagnostics: the front end's notes (not with check's
// --format=xla, which is XLA's status alone), a note on where a
// converted module's diagnostics are located (check, text and xla, when it
// reports any), and the front end's errors (text; xla: their statuses).
std::string FrontEndText(Command command, DiagnosticFormat format, bool several,
                         const PipelineResult& result,
                         const FrontEndInput& input) {
  if (!result.read_error.empty() || input.parse_error.has_value()) return "";
  std::string out;
  // --format=xla is XLA's status alone: no notes.
  if (format != DiagnosticFormat::kXla || command != Command::kCheck) {
    for (const std::string& note : input.notes) {
      absl::StrAppend(&out, "hlo-offload: note: ", result.path, ": ", note, "\n");
    }
  }
  bool reported = false;
  for (const ModuleResult& module : result.modules) {
    reported |= !module.diagnostics.empty();
  }
  bool text_or_xla =
      format == DiagnosticFormat::kText || format == DiagnosticFormat::kXla;
  if (command == Command::kCheck && text_or_xla && reported &&
      input.locate_in_source) {
    absl::StrAppend(
        &out, "hlo-offload: note: ", result.path,
        input.partitioned
            ? " was partitioned: a diagnostic is located at its line in your "
              "program where the module's metadata says it, then at its line in "
              "the partitioned module (not this file's line: the partitioned "
              "module is hlo_offload.check(pathlib.Path(FILE)).hlo_text)\n"
            : " is StableHLO: a diagnostic is located at its line in your program "
              "(or in the file), then at its line in the HLO module XLA compiles "
              "from it, which lies past the file's own lines\n");
  }
  if (format == DiagnosticFormat::kText || command != Command::kCheck) {
    SourceText source{result.path, absl::string_view(), {}};
    for (const Diagnostic& d : input.errors) out += RenderText(d, source);
  } else if (format == DiagnosticFormat::kXla) {
    for (const Diagnostic& d : input.errors) {
      if (d.severity != Severity::kError) continue;  // XLA's status alone
      absl::StrAppend(&out, several ? absl::StrCat(result.path, ": ") : "",
                      "INVALID_ARGUMENT: ", d.message, "\n");
    }
  }
  return out;
}

// A file with the front end's errors fails (exit status 1 at least), and
// nothing is written for it.
void TakeFrontEndErrors(PipelineResult& result, const FrontEndInput& input) {
  if (!input.HasErrors() || !result.read_error.empty()) return;
  result.exit_status = std::max(result.exit_status, kExitDiagnosed);
}

// check, opt, fix and fmt: every input file through the library, the
// diagnostics on standard error in input order, then the documents and the
// modules.
int RunModules(Command command, const Flags& flags, PipelineOptions options,
               std::ostream& out, std::ostream& err) {
  auto listed = ListInputFiles(flags.inputs);
  if (!listed.ok()) return UsageError(err, listed.status().message());
  const std::vector<std::string>* files = &listed->files;
  bool prints = command != Command::kCheck;
  // An output that cannot be written is refused before any work (and
  // before a fix reports what it fixed).
  if (prints && !flags.output.empty() && flags.output != "-") {
    std::error_code ec;
    std::filesystem::path target(flags.output);
    std::filesystem::path dir = target.parent_path();
    std::string problem;
    if (std::filesystem::is_directory(target, ec)) {
      problem = "it is a directory";
    } else if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      problem = "its folder does not exist";
    }
    if (!problem.empty()) {
      return UsageError(err, absl::StrCat("cannot write to '", flags.output,
                                          "': ", problem));
    }
  }
  const FrontEnd* front_end = flags.front_end;
  if (front_end != nullptr && prints && !flags.output.empty() &&
      front_end->reads(flags.output)) {
    // The front end would read the file back as its own kind of input.
    return FrontEndUsageError(
        err, command,
        absl::StrCat("-o: '", flags.output, "' would hold the HLO text ",
                     CommandName(command),
                     " writes, and a .mlir file is read as StableHLO; name it .hlo"));
  }
  bool to_stdout = flags.output.empty() || flags.output == "-";
  // A module printed straight to standard output needs no copy of its text.
  options.print_to_string = !(prints && to_stdout && command != Command::kFix);
  // Modules left for the process exit to reclaim: only when one file is
  // read, so that a batch frees each module as it goes.
  bool leave = leave_modules_at_exit && files->size() == 1;
  options.keep_modules = leave;
  DiagnosticFormat format =
      ParseDiagnosticFormat(flags.format).value_or(DiagnosticFormat::kText);
  bool documents = format == DiagnosticFormat::kJson || format == DiagnosticFormat::kSarif;
  int exit_status = kExitOk;
  std::vector<PipelineResult> kept;
  // check in text format ends with a summary line, as compilers do; the
  // other formats stay exactly what they were (xla: XLA's status alone).
  bool summarize = command == Command::kCheck && format == DiagnosticFormat::kText;
  CheckSummary summary;
  bool several = files->size() > 1;
  // `input`: what the front end made of the file, when it read it.
  auto take = [&](PipelineResult result, const FrontEndInput* input = nullptr) {
    if (input != nullptr) {
      err << FrontEndText(command, format, several, result, *input);
      TakeFrontEndErrors(result, *input);
    }
    err << RenderDiagnostics(result, format, {several});
    if (input != nullptr && !input->errors.empty() && !result.modules.empty()) {
      // In the documents and the summary, first among the file's own.
      auto& diagnostics = result.modules.front().diagnostics;
      diagnostics.insert(diagnostics.begin(), input->errors.begin(),
                         input->errors.end());
    }
    if (summarize) summary.Add(result);
    exit_status = std::max(exit_status, result.exit_status);
    if (documents || prints) {
      kept.push_back(std::move(result));
    } else if (leave) {
      LeaveModulesAtExit(result);
    }
  };
  // One file: its parse may use every core. Several: one file per core,
  // reported in input order as soon as each is done and all before it.
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (front_end != nullptr) {
    // The front end converts its files one at a time, in input order.
    if (files->size() == 1) options.parse_threads = static_cast<int>(cores);
    ProgressLine progress(err, files->size());
    for (size_t i = 0; i < files->size(); ++i) {
      const std::string& file = (*files)[i];
      if (!front_end->reads(file)) {
        PipelineResult result = RunPipelineOnFile(command, file, options);
        progress.Clear();
        take(std::move(result));
      } else {
        FrontEndInput input = front_end->convert(file, flags.split_input_file);
        PipelineResult result = RunPipelineOnFrontEndInput(
            command, file, input, options, !flags.backend.empty());
        progress.Clear();
        take(std::move(result), &input);
      }
      progress(i + 1);
    }
  } else if (files->size() == 1) {
    options.parse_threads = static_cast<int>(cores);
    take(RunPipelineOnFile(command, (*files)[0], options));
  } else {
    ProgressLine progress(err, files->size());
    RunPipelineOnFiles(
        command, *files, options, std::min<size_t>(cores, files->size()),
        [&](size_t, PipelineResult result) {
          progress.Clear();
          take(std::move(result));
        },
        [&](size_t done) { progress(done); });
  }
  for (const SkippedDumps& skipped : listed->skipped) {
    err << SkippedDumpsNote(command, skipped);
  }
  if (summarize) err << summary.Render();
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& result : kept) all.push_back(&result);
  if (format == DiagnosticFormat::kJson) out << RenderJson(all);
  if (format == DiagnosticFormat::kSarif) out << RenderSarif(all);
  if (prints && exit_status == kExitOk) {
    exit_status = WriteOutput(command, flags, *files, kept, out, err);
  }
  if (leave) {
    for (PipelineResult& result : kept) LeaveModulesAtExit(result);
  }
  return exit_status;
}

// OptionsFrom with the codes of --disable and --enable and the XLA of
// --xla-version (its notes printed), or the usage error's exit status.
std::variant<PipelineOptions, int> OptionsWithCodes(const Flags& flags,
                                                    std::ostream& err) {
  PipelineOptions options = OptionsFrom(flags);
  auto codes = CodesFrom(flags);
  if (!codes.ok()) return UsageError(err, codes.status().message());
  options.codes = *std::move(codes);
  // Without the flag, $HLO_OFFLOAD_XLA_VERSION (the Python package's console
  // command sets it to the installed libtpu and CUDA plugin).
  std::string spec = flags.xla_version;
  const char* env = std::getenv("HLO_OFFLOAD_XLA_VERSION");
  if (spec.empty() && env != nullptr) spec = env;
  auto xla = XlaSemantics::Parse(spec);
  if (!xla.ok()) {
    return UsageError(err, absl::StrCat(flags.xla_version.empty()
                                            ? "$HLO_OFFLOAD_XLA_VERSION: "
                                            : "--xla-version: ",
                                        xla.status().message()));
  }
  for (const std::string& note : xla->notes()) {
    err << "hlo-offload: note: " << note << "\n";
  }
  options.xla = *std::move(xla);
  return options;
}

int RunCheck(Flags& flags, std::ostream& out, std::ostream& err) {
  auto with_codes = OptionsWithCodes(flags, err);
  if (int* status = std::get_if<int>(&with_codes)) return *status;
  PipelineOptions options = std::get<PipelineOptions>(std::move(with_codes));
  if (!flags.pinned_host_budget.empty()) {
    auto budget = ParseByteSize(flags.pinned_host_budget);
    if (!budget.ok()) {
      return UsageError(err, absl::StrCat("--pinned-host-budget: ",
                                          budget.status().message()));
    }
    options.lint.pinned_host_budget = *budget;
  }
  return RunModules(Command::kCheck, flags, options, out, err);
}

int RunOpt(Flags& flags, const CLI::App* opt, std::ostream& out,
           std::ostream& err) {
  auto with_codes = OptionsWithCodes(flags, err);
  if (int* status = std::get_if<int>(&with_codes)) return *status;
  PipelineOptions options = std::get<PipelineOptions>(std::move(with_codes));
  if (auto unknown = UnknownPass(options.passes)) {
    return UsageError(err, absl::StrCat("unknown pass '", *unknown,
                                        "' (see --list-passes)"));
  }
  if (opt->count("--passes") > 0 && options.passes.empty()) {
    // `--passes=,` would otherwise run nothing and say nothing.
    return UsageError(err, "--passes names no pass (see --list-passes)");
  }
  return RunModules(Command::kOpt, flags, options, out, err);
}

int RunFix(Flags& flags, std::ostream& out, std::ostream& err) {
  auto with_codes = OptionsWithCodes(flags, err);
  if (int* status = std::get_if<int>(&with_codes)) return *status;
  PipelineOptions options = std::get<PipelineOptions>(std::move(with_codes));
  options.fix_strategy = *ParseFixStrategy(flags.fix_strategy);
  if (flags.in_place && flags.front_end != nullptr) {
    for (const std::string& input : flags.inputs) {
      if (!flags.front_end->reads(input)) continue;
      return FrontEndUsageError(
          err, Command::kFix,
          "--in-place would write HLO text into a StableHLO file; use -o");
    }
  }
  if (flags.in_place && !flags.output.empty()) {
    return UsageError(err, "-o and --in-place exclude each other");
  }
  if (flags.in_place) {
    std::error_code ec;
    if (flags.inputs.size() != 1 ||
        std::filesystem::is_directory(flags.inputs[0], ec)) {
      return UsageError(err, "--in-place needs exactly one file");
    }
    if (flags.inputs[0] == "-") {
      return UsageError(err, "--in-place needs a file, not -");
    }
    flags.output = flags.inputs[0];
  }
  return RunModules(Command::kFix, flags, options, out, err);
}

int RunReport(const Flags& flags, std::ostream& out, std::ostream& err) {
  // The report shows the errors that stop the pipeline, which no code
  // selection drops; --disable and --enable are checked all the same.
  auto with_codes = OptionsWithCodes(flags, err);
  if (int* status = std::get_if<int>(&with_codes)) return *status;
  PipelineOptions options = std::get<PipelineOptions>(std::move(with_codes));
  const FrontEnd* front_end = flags.front_end;
  PipelineResult result;
  if (front_end != nullptr && front_end->reads(flags.report_input)) {
    FrontEndInput input =
        front_end->convert(flags.report_input, flags.split_input_file);
    result = RunPipelineOnFrontEndInput(Command::kReport, flags.report_input,
                                        input, options, !flags.backend.empty());
    err << FrontEndText(Command::kReport, DiagnosticFormat::kText,
                        /*several=*/false, result, input);
    if (input.HasErrors() && result.read_error.empty()) {
      // Nothing is reported about the module: the front end's error stands.
      err << RenderDiagnostics(result, DiagnosticFormat::kText);
      return std::max(result.exit_status, kExitDiagnosed);
    }
  } else {
    result = RunPipelineOnFile(Command::kReport, flags.report_input, options);
  }
  err << RenderDiagnostics(result, DiagnosticFormat::kText);
  if (result.exit_status != kExitOk) return kExitUsage;
  ReportFormat format =
      ParseReportFormat(flags.format).value_or(ReportFormat::kText);
  std::string rendered = RenderReports(result, format);
  if (flags.output.empty() || flags.output == "-") {
    out << rendered;
    return kExitOk;
  }
  if (auto s = WriteFileAtomically(flags.output, rendered); !s.ok()) {
    return UsageError(err, s.message());
  }
  return kExitOk;
}

int RunExplain(const Flags& flags, std::ostream& out, std::ostream& err) {
  auto code = ParseDiagCode(flags.explain_code);
  if (!code) {
    return UsageError(err, absl::StrCat("unknown diagnostic code '",
                                        flags.explain_code, "'"));
  }
  out << ExplainCode(*code);
  return kExitOk;
}

// Levenshtein distance between two short words (subcommand suggestions).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The arguments CLI11 would misread, refused with a usage error before it
// parses: an unknown subcommand (said as such, with the closest name) and
// `--name=` with nothing after '=' (CLI11 would take the next argument as
// the value: `opt --passes= in.hlo` would run the pass "in.hlo" on no
// input). Returns the exit status, or -1 to go on.
int RefuseMisreadArguments(const CLI::App& app,
                           const std::vector<std::string>& args,
                           std::ostream& err) {
  // The global options are flags: the first other argument names the
  // subcommand.
  std::string subcommand;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (!a.empty() && a[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) subcommand = a;
    }
    if (!subcommand.empty()) break;
    std::string closest;
    size_t best = 3;  // suggest only near misses
    for (const CLI::App* sub : app.get_subcommands({})) {
      size_t d = EditDistance(a, sub->get_name());
      if (d < best) {
        best = d;
        closest = sub->get_name();
      }
    }
    err << "hlo-offload: error: unknown subcommand '" << a << "'";
    if (!closest.empty()) err << " (did you mean '" << closest << "'?)";
    err << "\nRun 'hlo-offload --help' for usage.\n";
    return kExitUsage;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' &&
        a.find('=') == a.size() - 1) {
      err << "hlo-offload: error: '" << a << "' has nothing after '='\n"
          << "Run 'hlo-offload " << subcommand << (subcommand.empty() ? "" : " ")
          << "--help' for usage.\n";
      return kExitUsage;
    }
  }
  return -1;
}

// An empty value (`-o ""`, `--pinned-host-budget ""`) would otherwise mean
// the option's default (standard output, no budget). Returns the exit
// status, or -1 to go on.
int RefuseEmptyValues(const CLI::App& app, std::ostream& err) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->parsed()) continue;
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->nonpositional() || o->get_type_size() == 0 || o->count() == 0) {
        continue;
      }
      for (const std::string& r : o->results()) {
        if (!r.empty()) continue;
        const auto& long_names = o->get_lnames();
        err << "hlo-offload: error: "
            << (long_names.empty() ? o->get_name() : "--" + long_names.front())
            << " needs a value (it is empty)\n"
            << "Run 'hlo-offload " << sub->get_name() << " --help' for usage.\n";
        return kExitUsage;
      }
    }
  }
  return -1;
}

// The help's list of passes and the default pipeline.
std::string PassesFooter() {
  std::string footer = "\nPasses (for opt --passes=P1,P2,...):\n";
  for (const PassInfo& info : PassRegistry()) {
    absl::StrAppend(&footer, "  ", info.name, "\n      ", info.description, "\n");
  }
  absl::StrAppend(&footer, "\nDefault pipeline (--pipeline=xla): ");
  for (size_t i = 0; i < XlaPipeline().size(); ++i) {
    absl::StrAppend(&footer, i ? ", " : "", XlaPipeline()[i]);
  }
  absl::StrAppend(&footer, "\n--pipeline=offload: ");
  for (size_t i = 0; i < DefaultPipeline().size(); ++i) {
    absl::StrAppend(&footer, i ? ", " : "", DefaultPipeline()[i]);
  }
  return footer;
}

// RunTool without its last line of defence against exceptions.
int RunToolImpl(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, const FrontEnd* front_end) {
  CLI::App app{
      "hlo-offload: XLA's host-memory-offloading passes on HLO text, with "
      "diagnostics that explain every fault"};
  app.require_subcommand(0, 1);
  bool list_passes = false;
  bool version = false;
  app.add_flag("--list-passes", list_passes, "list the passes and exit");
  app.add_flag("--version", version, "print the version and exit");
  const std::string passes_footer = PassesFooter();
  app.footer(passes_footer +
             "\nExit status: 0 ok, 1 an error diagnosed in the input, 2 usage, "
             "I/O or parse error.\n");
  Flags flags;
  flags.front_end = front_end;

  CLI::App* check = app.add_subcommand(
      "check", "run the host-offloading pipeline and report what it finds; "
               "writes no module");
  check->add_option("--format", flags.format,
                    "text (default), xla (XLA's status), json or sarif")
      ->check(CLI::IsMember(DiagnosticFormatNames()));
  AddSplitInputFlag(check, flags);
  AddNoLintsFlag(check, flags);
  AddCodeFlags(check, flags);
  check->add_option("--pinned-host-budget", flags.pinned_host_budget,
                    "warn (HO3012) when the host-memory bytes at the entry "
                    "boundary exceed BYTES (e.g. 16GiB, 64GB, 1073741824)")
      ->type_name("BYTES");
  AddOffloadFlags(check, flags, /*as_for_check=*/false);
  AddInputs(check, flags,
            "HLO text files, directories of *.txt/*.hlo, or - for standard input",
            /*one=*/false);

  CLI::App* opt = app.add_subcommand(
      "opt", "run the pipeline (or --passes) and print the resulting module");
  opt->add_option("--passes", flags.passes,
                  "comma-separated pass names to run instead of the pipeline");
  AddOutputFlag(opt, flags, "write the module here (atomically) instead of stdout");
  AddSplitInputFlag(opt, flags);
  AddNoLintsFlag(opt, flags);
  AddCodeFlags(opt, flags);
  AddOffloadFlags(opt, flags, /*as_for_check=*/false);
  AddInputs(opt, flags, "HLO text file, a directory of them, or -", /*one=*/true);

  CLI::App* fmt = app.add_subcommand(
      "fmt", "parse and print the module unchanged (the round trip)");
  AddOutputFlag(fmt, flags, "write the module here (atomically) instead of stdout");
  AddSplitInputFlag(fmt, flags);
  AddInputs(fmt, flags, "HLO text file, a directory of them, or -", /*one=*/true);

  CLI::App* fix = app.add_subcommand(
      "fix", "rewrite the module so that every E1200 goes away, by the chosen "
             "strategy, then re-check it");
  fix->add_option("--strategy", flags.fix_strategy,
                  "host-output (declare the output in host memory) or "
                  "move-to-device (move the value back before returning it)")
      ->required()
      ->check(CLI::IsMember(FixStrategyNames()));
  AddOutputFlag(fix, flags, "write the fixed module here (atomically)");
  fix->add_flag("--in-place", flags.in_place,
                "replace FILE with the fixed module (atomically)");
  AddSplitInputFlag(fix, flags);
  AddCodeFlags(fix, flags);
  AddOffloadFlags(fix, flags, /*as_for_check=*/false);
  AddInputs(fix, flags, "HLO text file, a directory of them, or -", /*one=*/true);

  CLI::App* explain = app.add_subcommand(
      "explain", "print the documentation of a diagnostic code (e.g. E1200)");
  explain->add_option("CODE", flags.explain_code, "the code")->required();

  CLI::App* report = app.add_subcommand(
      "report",
      "what is offloaded: every offloaded tensor, its bytes, where each path "
      "ends, host bytes at the entry boundary, transfers, a picture");
  report->add_option("--format", flags.format,
                     "text (default), json, dot (Graphviz) or html (one "
                     "self-contained page with the picture)")
      ->check(CLI::IsMember(ReportFormatNames()));
  AddOutputFlag(report, flags, "write the report here (atomically) instead of stdout");
  AddSplitInputFlag(report, flags);
  report->add_option("--max-nodes", flags.max_nodes,
                     "draw at most this many path instructions (default 400)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30)
                 .description("a whole number of nodes, 1 or more"));
  AddCodeFlags(report, flags);
  AddOffloadFlags(report, flags, /*as_for_check=*/true);
  report->add_option("FILE", flags.report_input, "HLO text file or -")->required();

  // Each subcommand's help ends with its own exit statuses; the pass list
  // only where passes are chosen.
  check->footer("\nExit status: 0 no error (warnings allowed), 1 an error "
                "diagnosed in the input, 2 usage, I/O or parse error.");
  opt->footer(passes_footer +
              "\nExit status: 0 ok, 1 an error diagnosed in the input (nothing "
              "is printed), 2 usage, I/O or parse error.");
  fmt->footer("\nExit status: 0 ok, 2 usage, I/O or parse error.");
  fix->footer("\nExit status: 0 fixed (or nothing to fix), 1 could not fix, 2 "
              "usage, I/O or parse error.");
  explain->footer("\nExit status: 0 ok, 2 unknown code.");
  report->footer("\nExit status: 0 reported (a failing pipeline is part of the "
                 "report), 2 usage, I/O or parse error.");

  if (int status = RefuseMisreadArguments(app, args, err); status >= 0) {
    return status;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Point at the help of the subcommand the mistake was made in.
    std::string help = "hlo-offload --help";
    std::string subcommand;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->parsed()) subcommand = sub->get_name();
    }
    if (!subcommand.empty()) help = "hlo-offload " + subcommand + " --help";
    std::string message = e.what();
    // Several files where one is taken: said in the program's words.
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
        absl::StartsWith(message, "FILE:") && !subcommand.empty()) {
      message = absl::StrCat(subcommand,
                             " takes one FILE (a file, a directory, or -); "
                             "check takes several");
    }
    err << "hlo-offload: error: " << message << "\n"
        << "Run '" << help << "' for usage.\n";
    return kExitUsage;
  }
  if (int status = RefuseEmptyValues(app, err); status >= 0) return status;

  if (version) {
    out << "hlo-offload " << ToolVersion()
        << " (XLA host-offloading semantics: V6, openxla/xla 2026-07-26)\n";
    return kExitOk;
  }
  if (list_passes) {
    for (const PassInfo& info : PassRegistry()) {
      out << info.name << "\n    " << info.description << "\n";
    }
    return kExitOk;
  }
  if (explain->parsed()) return RunExplain(flags, out, err);
  if (report->parsed()) return RunReport(flags, out, err);
  if (check->parsed()) return RunCheck(flags, out, err);
  if (fix->parsed()) return RunFix(flags, out, err);
  if (opt->parsed()) return RunOpt(flags, opt, out, err);
  if (fmt->parsed()) return RunModules(Command::kFmt, flags, OptionsFrom(flags), out, err);
  // No subcommand: usage, as a usage error.
  err << app.help();
  return kExitUsage;
}

}  // namespace

void SetLeaveModulesAtExit(bool leave) {
#if defined(__SANITIZE_ADDRESS__)
  leave = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  leave = false;
#endif
#endif
  leave_modules_at_exit = leave;
}

int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  return RunTool(args, out, err, nullptr);
}

int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err, const FrontEnd* front_end) {
  // Errors are statuses; this is the last line of defence for what is not
  // (memory exhaustion, a library that throws), so that the exit status
  // stays within the contract.
  try {
    return RunToolImpl(args, out, err, front_end);
  } catch (const std::bad_alloc&) {
    err << "hlo-offload: error: out of memory\n";
  } catch (const std::exception& e) {
    err << "hlo-offload: error: internal error: " << e.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace hloff
