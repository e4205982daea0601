// Where the hlo-offload command line writes what the modules printed, and
// the modules it leaves for the process exit (tool/output.h).
#include "tool/output.h"

#include <filesystem>
#include <memory>
#include <mutex>
#include <ostream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "support/file_io.h"
#include "tool/arguments.h"

namespace hloff {
namespace tool {
namespace {

bool leave_modules_at_exit = false;

// Keeps `module` alive until the process exits (SetLeaveModulesAtExit).
void LeaveAtExit(std::unique_ptr<Module> module) {
  static auto* left = new std::vector<std::unique_ptr<Module>>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  left->push_back(std::move(module));
}

// Why -o cannot be written (a folder, or its folder is missing), or "".
std::string OutputProblem(const std::string& output) {
  std::error_code ec;
  std::filesystem::path target(output);
  std::filesystem::path dir = target.parent_path();
  if (std::filesystem::is_directory(target, ec)) return "it is a directory";
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
    return "its folder does not exist";
  }
  return "";
}

// Writes `printed` to -o (--in-place): checked first when it replaces an
// input, untouched when fixed in place with nothing to fix.
int WriteOutputFile(Command command, const Flags& flags,
                    const std::vector<std::string>& files,
                    std::vector<PipelineResult>& results, std::ostream& err) {
  bool unchanged = results.size() == 1 && results[0].unchanged;
  // A file fixed in place with nothing to fix is not touched.
  if (unchanged && flags.in_place) return kExitOk;
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& result : results) all.push_back(&result);
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

}  // namespace

bool LeavingModulesAtExit() { return leave_modules_at_exit; }

void SetLeavingModulesAtExit(bool leave) { leave_modules_at_exit = leave; }

void LeaveModulesAtExit(PipelineResult& result) {
  for (ModuleResult& module : result.modules) {
    if (module.module != nullptr) LeaveAtExit(std::move(module.module));
  }
}

int RefuseUnwritableOutput(Command command, const Flags& flags,
                           std::ostream& err) {
  if (!flags.output.empty() && flags.output != "-") {
    std::string problem = OutputProblem(flags.output);
    if (!problem.empty()) {
      return UsageError(err, absl::StrCat("cannot write to '", flags.output,
                                          "': ", problem));
    }
  }
  const FrontEnd* front_end = flags.front_end;
  if (front_end != nullptr && !flags.output.empty() &&
      front_end->reads(flags.output, flags.front_end_options)) {
    // The front end would read the file back as its own kind of input.
    return FrontEndUsageError(
        err, command,
        absl::StrCat("-o: '", flags.output, "' would hold the HLO text ",
                     CommandName(command),
                     " writes, and a .mlir file is read as StableHLO; name it .hlo"));
  }
  return -1;
}

int WriteOutput(Command command, const Flags& flags,
                const std::vector<std::string>& files,
                std::vector<PipelineResult>& results, std::ostream& out,
                std::ostream& err) {
  if (!flags.output.empty() && flags.output != "-") {
    return WriteOutputFile(command, flags, files, results, err);
  }
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& result : results) all.push_back(&result);
  WritePrintedModules(all, [&](absl::string_view text) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
  return kExitOk;
}

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

}  // namespace tool
}  // namespace hloff
