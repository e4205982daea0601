// Graphviz through a child process: the DOT goes to a temporary file, `dot`
// writes SVG to a pipe, its diagnostics to a second temporary file (two pipes
// read in turn could deadlock).
#include "report/graphviz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "support/file_io.h"

extern char** environ;

namespace hloff {
namespace {

// A temporary file removed when this goes out of scope.
class TempFile {
 public:
  TempFile() {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec) dir = "/tmp";
    std::string pattern = (dir / "hlo-offload-XXXXXX").string();
    path_.assign(pattern.begin(), pattern.end());
    path_.push_back('\0');
    fd_ = mkstemp(path_.data());
  }
  ~TempFile() {
    if (fd_ >= 0) {
      close(fd_);
      unlink(path_.data());
    }
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const char* path() const { return path_.data(); }

 private:
  std::vector<char> path_;
  int fd_ = -1;
};

}  // namespace

std::string FindOnPath(absl::string_view program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", program);
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

absl::StatusOr<std::string> RenderDotToSvg(absl::string_view dot_source) {
  std::string dot = FindOnPath("dot");
  if (dot.empty()) {
    return absl::NotFoundError(
        "Graphviz's `dot` is not installed; install it with `apt-get install "
        "graphviz` (Debian, Ubuntu), `dnf install graphviz` or `brew install "
        "graphviz`, then run the report again, or render the DOT below with "
        "`dot -Tsvg`");
  }
  TempFile input, diagnostics;
  if (!input.ok() || !diagnostics.ok() || !WriteAll(input.fd(), dot_source)) {
    return absl::InternalError(
        absl::StrCat("cannot write a temporary file: ", std::strerror(errno)));
  }
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot create a pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, diagnostics.fd(), STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  std::string format = "-Tsvg";
  std::vector<char*> argv = {dot.data(), format.data(),
                             const_cast<char*>(input.path()), nullptr};
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, dot.c_str(), &actions, nullptr, argv.data(),
                            environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return absl::InternalError(
        absl::StrCat("cannot run ", dot, ": ", std::strerror(spawned)));
  }
  std::string svg;
  char buffer[65536];
  while (true) {
    ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    svg.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(diagnostics.path());
    std::string first_line;
    std::getline(in, first_line);
    return absl::InternalError(absl::StrCat(
        "dot failed", first_line.empty() ? "" : ": ", first_line));
  }
  size_t start = svg.find("<svg");
  if (start == std::string::npos) {
    return absl::InternalError("dot wrote no <svg> element");
  }
  return svg.substr(start);
}

}  // namespace hloff
