// The command-line driver of hlo-offload (docs/CLI.md): parses the command
// line with CLI11, calls the library (pipeline/pipeline.h), renders and
// returns the exit status. main.cc only calls RunTool (as LLVM's optMain /
// MLIR's MlirOptMain).
#ifndef HLO_OFFLOAD_TOOL_DRIVER_H_
#define HLO_OFFLOAD_TOOL_DRIVER_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace hloff {

// Runs the tool with `args` (args[0] is the program name), writing to `out`
// and `err`. Returns the process exit status: 0 success, 1 a diagnosed error
// in the input, 2 a usage, I/O or parse error.
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

// When set, a module that the run no longer needs is left in memory for the
// process exit to reclaim at once, instead of being freed piece by piece.
// For main() only (a library caller would keep the memory); ignored under
// AddressSanitizer, whose leak check would report it.
void SetLeaveModulesAtExit(bool leave);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_DRIVER_H_
