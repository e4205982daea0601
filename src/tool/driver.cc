// The hlo-offload command line (docs/CLI.md): parses the arguments
// (tool/app.h, tool/arguments.h) and runs the subcommand (tool/commands.h),
// whose one call into the library (pipeline/pipeline.h) does the work. What
// is not about HLO (files, threads, byte sizes) is in support/.
#include "tool/driver.h"

#include <exception>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <ostream>

#include "pipeline/pipeline.h"
#include "tool/app.h"
#include "tool/arguments.h"
#include "tool/commands.h"
#include "tool/flags.h"
#include "tool/front_end_options.h"
#include "tool/output.h"

namespace hloff {
namespace {

// The subcommand that was parsed among those that read files, or nullopt.
std::optional<Command> ParsedCommand(const tool::Subcommands& subs) {
  if (subs.check->parsed()) return Command::kCheck;
  if (subs.opt->parsed()) return Command::kOpt;
  if (subs.fix->parsed()) return Command::kFix;
  if (subs.fmt->parsed()) return Command::kFmt;
  if (subs.report->parsed()) return Command::kReport;
  return std::nullopt;
}

// With a front end, before `command` reads any file: its options checked and
// taken (tool/front_end_options.h), then the front end's start. Returns the
// exit status, or -1 to go on.
int StartFrontEnd(Command command, tool::Flags& flags, std::ostream& err) {
  if (flags.front_end == nullptr) return -1;
  if (int status = tool::TakeFrontEndOptions(command, flags, err); status >= 0) {
    return status;
  }
  if (!flags.front_end->start) return -1;
  std::string error = flags.front_end->start(
      std::string(tool::CommandName(command)), flags.front_end_options);
  if (error.empty()) return -1;
  err << error;
  return kExitUsage;
}

// The run of what was parsed: --version, --list-passes, or the subcommand;
// with none, the usage as a usage error.
int RunParsed(const CLI::App& app, const tool::GlobalFlags& globals,
              const tool::Subcommands& subs, tool::Flags& flags,
              std::ostream& out, std::ostream& err) {
  if (globals.version) {
    out << "hlo-offload " << ToolVersion()
        << " (XLA host-offloading semantics: V6, openxla/xla 2026-07-26)\n";
    return kExitOk;
  }
  if (globals.list_passes) {
    for (const PassInfo& info : PassRegistry()) {
      out << info.name << "\n    " << info.description << "\n";
    }
    return kExitOk;
  }
  if (subs.explain->parsed()) return tool::RunExplain(flags, out, err);
  if (std::optional<Command> command = ParsedCommand(subs)) {
    if (int status = StartFrontEnd(*command, flags, err); status >= 0) {
      return status;
    }
  }
  if (subs.report->parsed()) return tool::RunReport(flags, out, err);
  if (subs.check->parsed()) return tool::RunCheck(flags, out, err);
  if (subs.fix->parsed()) return tool::RunFix(flags, out, err);
  if (subs.opt->parsed()) return tool::RunOpt(flags, subs.opt, out, err);
  if (subs.fmt->parsed()) return tool::RunFmt(flags, out, err);
  // No subcommand: usage, as a usage error.
  err << app.help();
  return kExitUsage;
}

// The front end's lines at the end of each help (FrontEnd::help).
void AddFrontEndHelp(CLI::App& app, const tool::Subcommands& subs,
                     const FrontEnd& front_end) {
  const std::map<std::string, CLI::App*> by_name = {
      {"", &app},          {"check", subs.check},   {"opt", subs.opt},
      {"fmt", subs.fmt},   {"fix", subs.fix},       {"explain", subs.explain},
      {"report", subs.report}};
  for (const auto& [name, text] : front_end.help) {
    auto it = by_name.find(name);
    if (it == by_name.end() || text.empty()) continue;
    it->second->footer(it->second->get_footer() + "\n\n" + text);
  }
}

// RunTool without its last line of defence against exceptions.
int RunToolImpl(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err, const FrontEnd* front_end) {
  CLI::App app{tool::kAppDescription};
  tool::GlobalFlags globals;
  tool::Flags flags;
  flags.front_end = front_end;
  tool::Subcommands subs = tool::AddSubcommands(app, globals, flags);
  if (front_end != nullptr) {
    tool::AddFrontEndOptions(subs, flags);
    AddFrontEndHelp(app, subs, *front_end);
    int status = tool::RefuseMisplacedFrontEndOptions(app, args, err);
    if (status >= 0) return status;
  }
  if (int status = tool::RefuseMisreadArguments(app, args, err); status >= 0) {
    return status;
  }
  if (int status = tool::ParseArguments(app, args, out, err); status >= 0) {
    return status;
  }
  if (int status = tool::RefuseEmptyValues(app, err); status >= 0) return status;
  return RunParsed(app, globals, subs, flags, out, err);
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
  tool::SetLeavingModulesAtExit(leave);
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
