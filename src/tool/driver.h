// The command-line driver of hlo-offload (docs/CLI.md): parses the command
// line with CLI11, calls the library (pipeline/pipeline.h), renders and
// returns the exit status. main.cc only calls RunTool (as LLVM's optMain /
// MLIR's MlirOptMain).
#ifndef HLO_OFFLOAD_TOOL_DRIVER_H_
#define HLO_OFFLOAD_TOOL_DRIVER_H_

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "pipeline/front_end_input.h"

namespace hloff {

// A front end that reads some input files itself (the Python package's
// console command, for StableHLO files): RunTool runs what it converts as it
// runs the files it reads, in input order, one file at a time.
struct FrontEnd {
  // Whether the front end reads `file` (a name as the command line gives it;
  // also asked about -o, which must not name such a file).
  std::function<bool(const std::string& file)> reads;
  // Converts `file`; `split_input`: --split-input-file was given.
  std::function<FrontEndInput(const std::string& file, bool split_input)> convert;
};

// Runs the tool with `args` (args[0] is the program name), writing to `out`
// and `err`. Returns the process exit status: 0 success, 1 a diagnosed error
// in the input, 2 a usage, I/O or parse error.
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);
// As above, with `front_end` reading the files it claims (may be null).
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err, const FrontEnd* front_end);

// When set, a module that the run no longer needs is left in memory for the
// process exit to reclaim at once, instead of being freed piece by piece.
// For main() only (a library caller would keep the memory); ignored under
// AddressSanitizer, whose leak check would report it.
void SetLeaveModulesAtExit(bool leave);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_DRIVER_H_
