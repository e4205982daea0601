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

namespace hloff {

// Runs the tool with `args` (args[0] is the program name), writing to `out`
// and `err`. Returns the process exit status: 0 success, 1 a diagnosed error
// in the input, 2 a usage, I/O or parse error.
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

// When a run checks, formats or optimises a single file, its module is left
// in memory when RunTool returns instead of being freed piece by piece:
// for a process that ends right after (main), the exit reclaims it at once.
// Off by default (a library caller would keep the memory).
void SetLeaveModulesAtExit(bool leave);

// Reads a whole file (or standard input for "-"). Errors: NOT_FOUND /
// PERMISSION_DENIED style statuses with the OS reason.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Writes `contents` to `path` atomically: a temporary file in the same
// directory, fsync, then rename over `path`. On error nothing at `path` is
// changed and the temporary file is removed.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// The same in pieces, for output too large to hold: Append as often as
// needed, then Commit. A writer destroyed without a successful Commit removes
// its temporary file and leaves `path` as it was.
class AtomicFileWriter {
 public:
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Open(
      const std::string& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();
  absl::Status Append(absl::string_view data);
  // Keeps the replaced file's permissions (0644 for a new one), syncs and
  // renames into place.
  absl::Status Commit();

 private:
  AtomicFileWriter() = default;
  absl::Status Fail(absl::string_view what);
  std::string path_;
  std::vector<char> temp_;
  int fd_ = -1;
  bool done_ = false;
};

// One module's text within an input file: the pieces of
// --split-input-file (lines that are exactly `// -----`), with the number of
// lines before each piece.
struct InputChunk {
  absl::string_view text;
  uint32_t line_offset = 0;
};
std::vector<InputChunk> SplitInput(absl::string_view text, bool split);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_DRIVER_H_
