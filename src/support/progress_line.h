// A progress line for a batch of files on standard error.
#ifndef HLO_OFFLOAD_SUPPORT_PROGRESS_LINE_H_
#define HLO_OFFLOAD_SUPPORT_PROGRESS_LINE_H_

#include <chrono>
#include <cstddef>
#include <iosfwd>

namespace hloff {

// `hlo-offload: DONE/TOTAL files done`, rewritten in place: shown only when
// `err` is std::cerr, standard error is a terminal, and the batch has run
// for more than a second; erased before anything else is written (Clear)
// and at the end.
class ProgressLine {
 public:
  ProgressLine(std::ostream& err, size_t total);
  // Erases the line, if shown, so that the caller can write.
  void Clear();
  // `done` of the files are done; at `total` the line is erased.
  void operator()(size_t done);

 private:
  std::ostream& err_;
  size_t total_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_PROGRESS_LINE_H_
