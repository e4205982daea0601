// The arguments of the hlo-offload command line that are refused with a
// usage error (exit status 2), in the program's words: what CLI11 would
// misread, what it refuses itself, and the usage errors the subcommands
// raise.
#ifndef HLO_OFFLOAD_TOOL_ARGUMENTS_H_
#define HLO_OFFLOAD_TOOL_ARGUMENTS_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/string_view.h"
#include "pipeline/pipeline.h"

namespace hloff {
namespace tool {

// Writes `hlo-offload: error: MESSAGE`; returns the usage exit status.
int UsageError(std::ostream& err, absl::string_view message);
// The subcommand's name as the command line spells it.
absl::string_view CommandName(Command command);
// A usage error followed by a pointer at the subcommand's help (errors
// about a front end's input and its options); returns the usage status.
int FrontEndUsageError(std::ostream& err, Command command,
                       absl::string_view message);

// The arguments CLI11 would misread, refused with a usage error before it
// parses: an unknown subcommand (said as such, with the closest name) and
// `--name=` with nothing after '=' (CLI11 would take the next argument as
// the value: `opt --passes= in.hlo` would run the pass "in.hlo" on no
// input). Returns the exit status, or -1 to go on.
int RefuseMisreadArguments(const CLI::App& app,
                           const std::vector<std::string>& args,
                           std::ostream& err);

// Parses `args` with `app`: the help on `out` when asked for (exit status
// 0), CLI11's refusal as a usage error pointing at the help of the
// subcommand the mistake was made in (2). Returns the exit status, or -1
// to go on.
int ParseArguments(CLI::App& app, const std::vector<std::string>& args,
                   std::ostream& out, std::ostream& err);

// An empty value (`-o ""`, `--pinned-host-budget ""`) would otherwise mean
// the option's default (standard output, no budget). Returns the exit
// status, or -1 to go on.
int RefuseEmptyValues(const CLI::App& app, std::ostream& err);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_ARGUMENTS_H_
