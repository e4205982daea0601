// The bytes of an HLO text input, shared by the modules parsed from it: the
// parser keeps names and attribute text as views into this buffer instead of
// copying them, so a Module holds a reference that keeps it alive. A file is
// mapped into memory when it can be (no copy, pages shared with the page
// cache) and read otherwise.
#ifndef HLO_OFFLOAD_IR_TEXT_BUFFER_H_
#define HLO_OFFLOAD_IR_TEXT_BUFFER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// The most bytes one input may have (2 GiB; README.md, "Limits"): what the
// parser accepts (text/parser.h) and what is read of a file
// (support/file_io.h). Kept with the buffer an input is read into, so that
// both see it without one depending on the other.
inline constexpr size_t kMaxInputBytes = size_t{1} << 31;

class TextBuffer {
 public:
  // A buffer that owns `text`.
  static std::shared_ptr<const TextBuffer> FromString(std::string text);
  // A buffer that views `text` without copying it: the caller keeps those
  // bytes alive and unchanged for as long as the buffer and every module
  // parsed from it live (the Python binding views a bytes or str object it
  // holds for that long).
  static std::shared_ptr<const TextBuffer> FromView(absl::string_view text);
  // The contents of the file at `path` ("-" reads standard input). Regular
  // files are mapped read-only; pipes and the like are read, never past
  // `max_bytes`. Errors: NOT_FOUND (with the OS reason) when the file cannot
  // be opened, INVALID_ARGUMENT for a directory, RESOURCE_EXHAUSTED for more
  // than `max_bytes` bytes, DATA_LOSS when reading fails.
  static absl::StatusOr<std::shared_ptr<const TextBuffer>> FromFile(
      const std::string& path, size_t max_bytes = SIZE_MAX);

  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  ~TextBuffer();

  absl::string_view text() const { return text_; }

 private:
  TextBuffer() = default;
  std::string owned_;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  absl::string_view text_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_TEXT_BUFFER_H_
