// Input buffers: memory-mapped files, read pipes, owned strings.
#include "ir/text_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace hloff {

std::shared_ptr<const TextBuffer> TextBuffer::FromString(std::string text) {
  std::shared_ptr<TextBuffer> buffer(new TextBuffer());
  buffer->owned_ = std::move(text);
  buffer->text_ = buffer->owned_;
  return buffer;
}

std::shared_ptr<const TextBuffer> TextBuffer::FromView(absl::string_view text) {
  std::shared_ptr<TextBuffer> buffer(new TextBuffer());
  buffer->text_ = text;
  return buffer;
}

namespace {

enum class ReadResult { kOk, kError, kTooLarge };

// Reads all of `fd` into `out`, at most `max_bytes`.
ReadResult ReadAll(int fd, std::string& out, size_t size_hint,
                   size_t max_bytes) {
  size_t used = 0;
  out.resize(size_hint > 0 ? std::min(size_hint, max_bytes) + 1
                           : size_t{1} << 16);
  while (true) {
    if (used > max_bytes) return ReadResult::kTooLarge;
    if (used == out.size()) out.resize(std::min(out.size() * 2, max_bytes + 1));
    ssize_t n = read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadResult::kError;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  out.resize(used);
  return used > max_bytes ? ReadResult::kTooLarge : ReadResult::kOk;
}

absl::Status TooLarge(const std::string& path, size_t max_bytes) {
  return absl::ResourceExhaustedError(
      absl::StrCat("'", path, "' is larger than ", max_bytes,
                   " bytes, the largest input hlo-offload reads"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<const TextBuffer>> TextBuffer::FromFile(
    const std::string& path, size_t max_bytes) {
  std::shared_ptr<TextBuffer> buffer(new TextBuffer());
  if (path == "-") {
    ReadResult read = ReadAll(STDIN_FILENO, buffer->owned_, 0, max_bytes);
    if (read == ReadResult::kTooLarge) return TooLarge("-", max_bytes);
    if (read == ReadResult::kError) {
      return absl::DataLossError("error reading standard input");
    }
    buffer->text_ = buffer->owned_;
    return buffer;
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot read '", path, "': ", std::strerror(errno)));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int saved = errno;
    close(fd);
    return absl::NotFoundError(
        absl::StrCat("cannot read '", path, "': ", std::strerror(saved)));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is a directory"));
  }
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    close(fd);
    return TooLarge(path, max_bytes);
  }
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    size_t size = static_cast<size_t>(st.st_size);
    // Not MAP_POPULATE: faults (64 KiB at a time) are taken by the threads
    // that read each part of the text, in parallel.
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      close(fd);
      madvise(p, size, MADV_SEQUENTIAL);
      buffer->mapping_ = p;
      buffer->mapping_size_ = size;
      buffer->text_ = absl::string_view(static_cast<const char*>(p), size);
      return buffer;
    }
  }
  ReadResult read = ReadAll(
      fd, buffer->owned_,
      S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0, max_bytes);
  close(fd);
  if (read == ReadResult::kTooLarge) return TooLarge(path, max_bytes);
  if (read == ReadResult::kError) {
    return absl::DataLossError(absl::StrCat("error reading '", path, "'"));
  }
  buffer->text_ = buffer->owned_;
  return buffer;
}

TextBuffer::~TextBuffer() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
}

}  // namespace hloff
