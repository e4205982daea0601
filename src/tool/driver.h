// The command-line driver of hlo-offload (docs/CLI.md): parses the command
// line with CLI11 and calls the library. Everything testable lives here, not
// in main.cc (as LLVM's optMain / MLIR's MlirOptMain).
#ifndef HLO_OFFLOAD_TOOL_DRIVER_H_
#define HLO_OFFLOAD_TOOL_DRIVER_H_

#include "absl/strings/string_view.h"
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/text_buffer.h"

namespace hloff {

// Runs the tool with `args` (args[0] is the program name), writing to `out`
// and `err`. Returns the process exit status: 0 success, 1 a diagnosed error
// in the input, 2 a usage, I/O or parse error.
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

// Reads a whole file (or standard input for "-"), opened for reading only.
// Errors: NOT_FOUND with the OS reason, INVALID_ARGUMENT for a directory,
// RESOURCE_EXHAUSTED for more than kMaxInputBytes (text/parser.h).
absl::StatusOr<std::string> ReadInput(const std::string& path);
// As ReadInput, without a copy: a regular file is mapped, and the modules
// parsed from it keep the buffer alive (text/parser.h).
absl::StatusOr<std::shared_ptr<const TextBuffer>> ReadInputBuffer(
    const std::string& path);

// When set, a module that the run no longer needs is left in memory for the
// process exit to reclaim at once, instead of being freed piece by piece.
// For main() only (a library caller would keep the memory); ignored under
// AddressSanitizer, whose leak check would report it.
void SetLeaveModulesAtExit(bool leave);

// Writes `contents` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`, fsync of the directory. A symbolic
// link is followed (the file it names is replaced, the link kept); the
// permissions of a replaced file are kept. On error nothing at `path` is
// changed and the temporary file is removed; a directory is refused. A run
// ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT while the file is written
// removes the temporary file before it dies of the signal.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Tests only: `hook` runs in WriteFileAtomically just before the rename
// (nullptr: none).
void SetBeforeRenameHookForTesting(void (*hook)());

// One module's text within an input file: the pieces of
// --split-input-file (lines that are exactly `// -----`), with the number of
// lines before each piece. A leading UTF-8 byte order mark is dropped.
struct InputChunk {
  absl::string_view text;
  uint32_t line_offset = 0;
};
std::vector<InputChunk> SplitInput(absl::string_view text, bool split);

// A byte size as the command line spells it: a number (decimals allowed,
// rounded down) with an optional unit, case-insensitive: B; K, KiB, M, MiB,
// G, GiB, T, TiB (powers of 1024); kB, MB, GB, TB (powers of 1000). "16GiB"
// is 17179869184. INVALID_ARGUMENT for anything else, OUT_OF_RANGE from
// 8 EiB up.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_DRIVER_H_
