// The hlo-offload command line as a CLI11 application (tool/app.h): each
// subcommand with its flags, in the help's order, and each help's footer.
#include "tool/app.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "pipeline/choices.h"

namespace hloff {
namespace tool {
namespace {

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

CLI::App* AddCheck(CLI::App& app, Flags& flags) {
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
  return check;
}

CLI::App* AddOpt(CLI::App& app, Flags& flags) {
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
  return opt;
}

CLI::App* AddFmt(CLI::App& app, Flags& flags) {
  CLI::App* fmt = app.add_subcommand(
      "fmt", "parse and print the module unchanged (the round trip)");
  AddOutputFlag(fmt, flags, "write the module here (atomically) instead of stdout");
  AddSplitInputFlag(fmt, flags);
  AddInputs(fmt, flags, "HLO text file, a directory of them, or -", /*one=*/true);
  return fmt;
}

CLI::App* AddFix(CLI::App& app, Flags& flags) {
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
  return fix;
}

CLI::App* AddExplain(CLI::App& app, Flags& flags) {
  CLI::App* explain = app.add_subcommand(
      "explain", "print the documentation of a diagnostic code (e.g. E1200)");
  explain->add_option("CODE", flags.explain_code, "the code")->required();
  return explain;
}

CLI::App* AddReport(CLI::App& app, Flags& flags) {
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
  return report;
}

// Each subcommand's help ends with its own exit statuses; the pass list
// only where passes are chosen.
void SetFooters(const Subcommands& subs, const std::string& passes_footer) {
  subs.check->footer("\nExit status: 0 no error (warnings allowed), 1 an error "
                     "diagnosed in the input, 2 usage, I/O or parse error.");
  subs.opt->footer(passes_footer +
                   "\nExit status: 0 ok, 1 an error diagnosed in the input (nothing "
                   "is printed), 2 usage, I/O or parse error.");
  subs.fmt->footer("\nExit status: 0 ok, 2 usage, I/O or parse error.");
  subs.fix->footer("\nExit status: 0 fixed (or nothing to fix), 1 could not fix, 2 "
                   "usage, I/O or parse error.");
  subs.explain->footer("\nExit status: 0 ok, 2 unknown code.");
  subs.report->footer("\nExit status: 0 reported (a failing pipeline is part of the "
                      "report), 2 usage, I/O or parse error.");
}

}  // namespace

Subcommands AddSubcommands(CLI::App& app, GlobalFlags& globals, Flags& flags) {
  app.require_subcommand(0, 1);
  app.add_flag("--list-passes", globals.list_passes, "list the passes and exit");
  app.add_flag("--version", globals.version, "print the version and exit");
  const std::string passes_footer = PassesFooter();
  app.footer(passes_footer +
             "\nExit status: 0 ok, 1 an error diagnosed in the input, 2 usage, "
             "I/O or parse error.\n");
  Subcommands subs;
  subs.check = AddCheck(app, flags);
  subs.opt = AddOpt(app, flags);
  subs.fmt = AddFmt(app, flags);
  subs.fix = AddFix(app, flags);
  subs.explain = AddExplain(app, flags);
  subs.report = AddReport(app, flags);
  SetFooters(subs, passes_footer);
  return subs;
}

}  // namespace tool
}  // namespace hloff
