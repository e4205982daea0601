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

// The files named by `inputs`, in order: a directory gives its *.hlo files
// and the *.txt files whose first line that is neither blank nor a `//`
// comment starts with `HloModule` or `ENTRY` (sorted); "-" (standard
// input) stands for itself. Errors: NOT_FOUND for a directory that cannot
// be listed or holds no module; INVALID_ARGUMENT when "-" is named twice.
absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs);

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_INPUT_FILES_H_
