// The progress line of a batch.
#include "support/progress_line.h"

#include <unistd.h>

#include <iostream>

namespace hloff {

ProgressLine::ProgressLine(std::ostream& err, size_t total)
    : err_(err),
      total_(total),
      enabled_(&err == &std::cerr && isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

void ProgressLine::Clear() {
  if (!shown_) return;
  err_ << "\r\033[K" << std::flush;
  shown_ = false;
}

void ProgressLine::operator()(size_t done) {
  if (!enabled_) return;
  if (done >= total_) {
    Clear();
    return;
  }
  if (std::chrono::steady_clock::now() - start_ < std::chrono::seconds(1)) {
    return;
  }
  err_ << "\rhlo-offload: " << done << "/" << total_ << " files done"
       << std::flush;
  shown_ = true;
}

}  // namespace hloff
