// Which files a run reads, and the pieces of one file: the command line's
// inputs with directories expanded (XLA's dump folders), and the pieces of
// --split-input-file (as mlir-opt's splitAndProcessBuffer in
// ToolUtilities).
#ifndef HLO_OFFLOAD_SUPPORT_INPUT_FILES_H_
#define HLO_OFFLOAD_SUPPORT_INPUT_FILES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// One module's text within an input file: the pieces of
// --split-input-file (lines that are exactly `// -----`, trailing blanks
// allowed), with the number of lines before each piece.
struct InputChunk {
  absl::string_view text;
  uint32_t line_offset = 0;
};
// The pieces of `text` (one, the whole text, unless `split`). A leading
// UTF-8 byte order mark is dropped; after a last marker, nothing but blank
// lines and comments starts no piece. Views into `text`.
std::vector<InputChunk> SplitInput(absl::string_view text, bool split);

// Whether `file_name` (a name without its folder) is that of a module XLA
// dumped after a pass (`XLA_FLAGS=--xla_dump_to`, xla/service/dump.cc): a
// per-pass dump (`module_0001.jit_step.0003.pipeline.after_a.before_b.txt`)
// or one after the optimizations (`module_0001.jit_step.after_optimizations.txt`,
// `....sm_9.0a_gpu_after_optimizations.txt`, `....after_codegen.txt`). The
// offloader has run on most of them (HO3015), and the others repeat the
// module at each step. `*.before_optimizations.txt` is not one.
bool IsAfterPassDumpName(absl::string_view file_name);

// The after-pass dumps (IsAfterPassDumpName) one directory input left out.
struct SkippedDumps {
  std::string directory;           // as named on the command line
  std::vector<std::string> files;  // their paths, sorted
};

// The files a run reads and what its directories left out.
struct InputFiles {
  std::vector<std::string> files;
  std::vector<SkippedDumps> skipped;  // one per directory that left any out
};

// The files named by `inputs`, in order: a directory gives its *.hlo files
// and the *.txt files whose first line that is neither blank nor a `//`
// comment starts with `HloModule` or `ENTRY` (sorted), except XLA's
// after-pass dumps (IsAfterPassDumpName), which `skipped` lists; a file
// named itself is always read; "-" (standard input) stands for itself.
// Errors: NOT_FOUND for a directory that cannot be listed or holds no
// module (or only after-pass dumps: the message says how to check one);
// INVALID_ARGUMENT when "-" is named twice.
absl::StatusOr<InputFiles> ListInputFiles(const std::vector<std::string>& inputs);

// ListInputFiles(inputs).files.
absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs);

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_INPUT_FILES_H_
