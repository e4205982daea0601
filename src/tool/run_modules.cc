// check, opt, fix and fmt (tool/commands.h): every input file through the
// library, the diagnostics on standard error in input order, then the
// documents and the modules. One file's parse may use every core; several
// files run one per core; a front end's files run one at a time.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <system_error>
#include <thread>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "pipeline/choices.h"
#include "pipeline/front_end_input.h"
#include "support/byte_size.h"
#include "support/input_files.h"
#include "support/progress_line.h"
#include "tool/arguments.h"
#include "tool/commands.h"
#include "tool/front_end_text.h"
#include "tool/output.h"
#include "tool/xla_step.h"

namespace hloff {
namespace tool {
namespace {

// The results of one run of check, opt, fix or fmt, taken in input order:
// what each writes on standard error as it comes, and what is kept for the
// documents and the modules written at the end.
class ModuleRun {
 public:
  ModuleRun(Command command, const Flags& flags, size_t files)
      : command_(command),
        flags_(flags),
        format_(ParseDiagnosticFormat(flags.format)
                    .value_or(DiagnosticFormat::kText)),
        several_(files > 1),
        // Modules left for the process exit to reclaim: only when one file
        // is read, so that a batch frees each module as it goes.
        leave_(LeavingModulesAtExit() && files == 1),
        xla_(WantsXlaStep(flags)) {}

  // Whether the modules are left for the process exit (keep_modules).
  bool leave() const { return leave_; }

  // Takes one file's result: writes what the front end (`input`, when it
  // read the file) and the pipeline say about it, and keeps what the end of
  // the run needs.
  void Take(PipelineResult result, const FrontEndInput* input, std::ostream& err);

  // The end of the run: the notes on skipped dumps, the summary, the
  // document and the modules. Returns the exit status.
  int Finish(const InputFiles& listed, std::ostream& out, std::ostream& err);

 private:
  bool prints() const { return command_ != Command::kCheck; }
  bool documents() const {
    return format_ == DiagnosticFormat::kJson ||
           format_ == DiagnosticFormat::kSarif;
  }
  // check --xla gives the front end each file's object of the JSON
  // document, whatever the format.
  bool keeps() const {
    return documents() || prints() || (xla_ && command_ == Command::kCheck);
  }
  // The documents (check) and the modules (opt, fix, fmt), and the --xla
  // step after them. Returns the exit status.
  int WriteResults(const InputFiles& listed, std::ostream& out,
                   std::ostream& err);
  // check in text format ends with a summary line, as compilers do; the
  // other formats stay exactly what they were (xla: XLA's status alone).
  bool summarize() const {
    return command_ == Command::kCheck && format_ == DiagnosticFormat::kText;
  }

  Command command_;
  const Flags& flags_;
  DiagnosticFormat format_;
  bool several_;
  bool leave_;
  bool xla_;
  int exit_status_ = kExitOk;
  std::vector<PipelineResult> kept_;
  CheckSummary summary_;
};

void ModuleRun::Take(PipelineResult result, const FrontEndInput* input,
                     std::ostream& err) {
  if (input != nullptr) {
    err << FrontEndText(command_, format_, several_, result, *input);
    TakeFrontEndErrors(result, *input);
  }
  err << RenderDiagnostics(result, format_, {several_});
  if (input != nullptr && !input->errors.empty() && !result.modules.empty()) {
    // In the documents and the summary, first among the file's own.
    auto& diagnostics = result.modules.front().diagnostics;
    diagnostics.insert(diagnostics.begin(), input->errors.begin(),
                       input->errors.end());
  }
  if (summarize()) summary_.Add(result);
  exit_status_ = std::max(exit_status_, result.exit_status);
  if (keeps()) {
    kept_.push_back(std::move(result));
  } else if (leave_) {
    LeaveModulesAtExit(result);
  }
}

int ModuleRun::Finish(const InputFiles& listed, std::ostream& out,
                      std::ostream& err) {
  for (const SkippedDumps& skipped : listed.skipped) {
    err << SkippedDumpsNote(command_, skipped);
  }
  if (summarize()) err << summary_.Render();
  int exit_status = WriteResults(listed, out, err);
  if (leave_) {
    for (PipelineResult& result : kept_) LeaveModulesAtExit(result);
  }
  return exit_status;
}

int ModuleRun::WriteResults(const InputFiles& listed, std::ostream& out,
                            std::ostream& err) {
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& result : kept_) all.push_back(&result);
  bool json = format_ == DiagnosticFormat::kJson;
  // check --xla: XLA's verdict decides the exit status of a run that got
  // as far as a verdict of its own (0 or 1).
  if (xla_ && command_ == Command::kCheck && exit_status_ <= kExitDiagnosed) {
    return RunCheckXlaSteps(flags_, RenderJson(all), json, out, err);
  }
  if (json) out << RenderJson(all);
  if (format_ == DiagnosticFormat::kSarif) out << RenderSarif(all);
  if (!prints() || exit_status_ != kExitOk) return exit_status_;
  int exit_status = WriteOutput(command_, flags_, listed.files, kept_, out, err);
  if (xla_ && command_ == Command::kFix && exit_status == kExitOk) {
    return RunFixXlaStep(flags_, PrintedModules(all), err);
  }
  return exit_status;
}

unsigned Cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// The front end converts its files one at a time, in input order; the
// others run as the command line reads them.
void RunWithFrontEnd(Command command, const Flags& flags,
                     const std::vector<std::string>& files,
                     PipelineOptions options, ModuleRun& run,
                     std::ostream& err) {
  const FrontEnd& front_end = *flags.front_end;
  if (files.size() == 1) options.parse_threads = static_cast<int>(Cores());
  ProgressLine progress(err, files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    if (!front_end.reads(file, flags.front_end_options)) {
      PipelineResult result = RunPipelineOnFile(command, file, options);
      progress.Clear();
      run.Take(std::move(result), nullptr, err);
    } else {
      FrontEndInput input = front_end.convert(file, flags.split_input_file,
                                              flags.front_end_options);
      PipelineResult result = RunPipelineOnFrontEndInput(
          command, file, input, options, !flags.backend.empty());
      progress.Clear();
      run.Take(std::move(result), &input, err);
    }
    progress(i + 1);
  }
}

// Several files: one file per core, reported in input order as soon as each
// is done and all before it.
void RunInParallel(Command command, const std::vector<std::string>& files,
                   const PipelineOptions& options, ModuleRun& run,
                   std::ostream& err) {
  ProgressLine progress(err, files.size());
  RunPipelineOnFiles(
      command, files, options, std::min<size_t>(Cores(), files.size()),
      [&](size_t, PipelineResult result) {
        progress.Clear();
        run.Take(std::move(result), nullptr, err);
      },
      [&](size_t done) { progress(done); });
}

// Whether the front end reads any of `files` (else they run as without it).
bool FrontEndReadsAny(const Flags& flags, const std::vector<std::string>& files) {
  if (flags.front_end == nullptr) return false;
  return std::any_of(files.begin(), files.end(), [&](const std::string& file) {
    return flags.front_end->reads(file, flags.front_end_options);
  });
}

int RunModules(Command command, const Flags& flags, PipelineOptions options,
               std::ostream& out, std::ostream& err) {
  auto listed = ListInputFiles(flags.inputs);
  if (!listed.ok()) return UsageError(err, listed.status().message());
  const std::vector<std::string>& files = listed->files;
  bool prints = command != Command::kCheck;
  if (prints) {
    if (int status = RefuseUnwritableOutput(command, flags, err); status >= 0) {
      return status;
    }
  }
  bool to_stdout = flags.output.empty() || flags.output == "-";
  // A module printed straight to standard output needs no copy of its text.
  options.print_to_string = !(prints && to_stdout && command != Command::kFix);
  ModuleRun run(command, flags, files.size());
  options.keep_modules = run.leave();
  if (FrontEndReadsAny(flags, files)) {
    RunWithFrontEnd(command, flags, files, options, run, err);
  } else if (files.size() == 1) {
    // One file: its parse may use every core.
    options.parse_threads = static_cast<int>(Cores());
    run.Take(RunPipelineOnFile(command, files[0], options), nullptr, err);
  } else {
    RunInParallel(command, files, options, run, err);
  }
  return run.Finish(*listed, out, err);
}

}  // namespace

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
      if (!flags.front_end->reads(input, flags.front_end_options)) continue;
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

int RunFmt(Flags& flags, std::ostream& out, std::ostream& err) {
  return RunModules(Command::kFmt, flags, OptionsFrom(flags), out, err);
}

}  // namespace tool
}  // namespace hloff
