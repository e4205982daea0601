// The options of the command line that are a front end's (tool/driver.h
// FrontEndOptions): --platform, --no-partition, --xla and --xla-topology,
// registered only when RunTool is given a front end, with the usage errors
// the Python package's console command has always given for them.
#ifndef HLO_OFFLOAD_TOOL_FRONT_END_OPTIONS_H_
#define HLO_OFFLOAD_TOOL_FRONT_END_OPTIONS_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "tool/app.h"
#include "tool/flags.h"

namespace hloff {
namespace tool {

// Adds the front end's options to the subcommands that take them:
// --platform to check, opt, fix, fmt and report; --no-partition to check and
// report; --xla and --xla-topology to check, fix and report.
void AddFrontEndOptions(const Subcommands& subs, Flags& flags);

// Before CLI11 parses (and unless help is asked for): a front end's option
// given to a subcommand that does not take it, or without a value, or --xla
// with another value than tpu or cuda, or --xla-topology without --xla, as
// the console command has always refused them. Returns the exit status, or
// -1 to go on.
int RefuseMisplacedFrontEndOptions(const CLI::App& app,
                                   const std::vector<std::string>& args,
                                   std::ostream& err);

// After CLI11 parses, for `command`: sets flags.front_end_options from the
// options given, refuses --xla with what it does not work with
// (--split-input-file, check's --format=sarif, report's dot and html, a
// --backend for another backend) and, with --xla and no --backend, sets the
// backend XLA compiles for (tpu, or gpu for cuda), as the command line then
// checks for it. Returns the exit status, or -1 to go on.
int TakeFrontEndOptions(Command command, Flags& flags, std::ostream& err);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_FRONT_END_OPTIONS_H_
