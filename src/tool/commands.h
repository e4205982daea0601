// The subcommands of the hlo-offload command line (docs/CLI.md): one
// function each, which calls the library (pipeline/pipeline.h), writes what
// it renders and returns the exit status.
#ifndef HLO_OFFLOAD_TOOL_COMMANDS_H_
#define HLO_OFFLOAD_TOOL_COMMANDS_H_

#include <iosfwd>

#include "CLI/CLI.hpp"
#include "tool/flags.h"

namespace hloff {
namespace tool {

// check: every input file through the pipeline and the lints; the
// diagnostics (text, xla, or a json or sarif document).
int RunCheck(Flags& flags, std::ostream& out, std::ostream& err);
// opt: the pipeline (or --passes, as `opt` counts them) and the module.
int RunOpt(Flags& flags, const CLI::App* opt, std::ostream& out,
           std::ostream& err);
// fix: the module with every E1200 fixed by --strategy, re-checked.
int RunFix(Flags& flags, std::ostream& out, std::ostream& err);
// fmt: the module parsed and printed unchanged.
int RunFmt(Flags& flags, std::ostream& out, std::ostream& err);
// report: what is offloaded, in --format's form (run_report.cc).
int RunReport(const Flags& flags, std::ostream& out, std::ostream& err);
// explain: the documentation of a diagnostic code (run_report.cc).
int RunExplain(const Flags& flags, std::ostream& out, std::ostream& err);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_COMMANDS_H_
