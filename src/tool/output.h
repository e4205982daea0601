// Where the hlo-offload command line writes the modules opt, fix and fmt
// print, what it notes about the files a folder left out, and the modules
// it leaves for the process exit to reclaim (SetLeaveModulesAtExit).
#ifndef HLO_OFFLOAD_TOOL_OUTPUT_H_
#define HLO_OFFLOAD_TOOL_OUTPUT_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "support/input_files.h"
#include "tool/flags.h"

namespace hloff {
namespace tool {

// Whether modules are left for the process exit (SetLeaveModulesAtExit).
bool LeavingModulesAtExit();
// Sets what LeavingModulesAtExit returns.
void SetLeavingModulesAtExit(bool leave);
// Keeps every module of `result` alive until the process exits.
void LeaveModulesAtExit(PipelineResult& result);

// An output that cannot be written (-o names a folder, or a file in a
// folder that does not exist), refused before any work (and before a fix
// reports what it fixed); also -o naming a file the front end would read.
// Returns the exit status, or -1 to go on.
int RefuseUnwritableOutput(Command command, const Flags& flags,
                           std::ostream& err);

// Writes what the modules printed to the output: standard output, or the
// file -o (--in-place) names, atomically. Returns the exit status.
int WriteOutput(Command command, const Flags& flags,
                const std::vector<std::string>& files,
                std::vector<PipelineResult>& results, std::ostream& out,
                std::ostream& err);

// The note for the after-pass dumps a directory input left out: how many,
// and how to check one anyway.
std::string SkippedDumpsNote(Command command, const SkippedDumps& skipped);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_OUTPUT_H_
