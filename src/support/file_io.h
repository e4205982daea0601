// Reading inputs and writing outputs the way a compiler tool must: an input
// is mapped (or read from a pipe) once, with a size limit; an output is
// replaced atomically, so that a failed or interrupted run leaves the old
// file and no temporary behind. Mirrors LLVM's MemoryBuffer::getFileOrSTDIN
// and ToolOutputFile / sys::fs::TempFile.
#ifndef HLO_OFFLOAD_SUPPORT_FILE_IO_H_
#define HLO_OFFLOAD_SUPPORT_FILE_IO_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/text_buffer.h"

namespace hloff {

// The contents of `path` (or standard input for "-"), opened for reading
// only, without a copy: a regular file is mapped, and the modules parsed
// from it keep the buffer alive (text/parser.h). Errors: NOT_FOUND with the
// OS reason, INVALID_ARGUMENT for a directory, RESOURCE_EXHAUSTED for more
// than `max_bytes` (by default kMaxInputBytes, ir/text_buffer.h).
absl::StatusOr<std::shared_ptr<const TextBuffer>> ReadInputBuffer(
    const std::string& path, size_t max_bytes = kMaxInputBytes);
// As ReadInputBuffer, as a string (a copy).
absl::StatusOr<std::string> ReadInput(const std::string& path,
                                      size_t max_bytes = kMaxInputBytes);

// Writes all of `contents` to the file descriptor `fd`, retrying after
// EINTR and short writes. False on an error (errno says which).
bool WriteAll(int fd, absl::string_view contents);

// Writes `contents` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`, fsync of the directory. A symbolic
// link is followed (the file it names is replaced, the link kept); the
// permissions of a replaced file are kept; a device, FIFO or socket is
// written to as it is. On error nothing at `path` is changed and the
// temporary file is removed; a directory is refused (INVALID_ARGUMENT). A
// run ended by SIGINT, SIGTERM, SIGHUP or SIGQUIT while the file is written
// removes the temporary file before it dies of the signal. Errors:
// PERMISSION_DENIED when the file or its temporary cannot be created,
// INTERNAL when writing, syncing or renaming fails.
absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents);

// Tests only: `hook` runs in WriteFileAtomically just before the rename
// (nullptr: none).
void SetBeforeRenameHookForTesting(void (*hook)());

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_FILE_IO_H_
