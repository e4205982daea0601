// Reading inputs and writing outputs atomically.
#include "support/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "support/status_macros.h"

namespace hloff {

absl::StatusOr<std::shared_ptr<const TextBuffer>> ReadInputBuffer(
    const std::string& path, size_t max_bytes) {
  return TextBuffer::FromFile(path, max_bytes);
}

absl::StatusOr<std::string> ReadInput(const std::string& path,
                                      size_t max_bytes) {
  ASSIGN_OR_RETURN(auto buffer, ReadInputBuffer(path, max_bytes));
  return std::string(buffer->text());
}

bool WriteAll(int fd, absl::string_view contents) {
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

namespace {
// The temporary file WriteFileAtomically is writing, for the handlers of
// the signals that end a run from outside (Ctrl-C, kill, a closed terminal)
// to remove before the process ends. Plain memory: a signal handler may read
// it, and unlink is async-signal-safe.
char pending_temporary[4096];
volatile sig_atomic_t has_pending_temporary = 0;
void (*before_rename_for_testing)() = nullptr;

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void RemovePendingTemporaryAndReraise(int signal_number) {
  if (has_pending_temporary) unlink(pending_temporary);
  // Die of the signal as if it had not been caught (exit status, core).
  struct sigaction restore {};
  restore.sa_handler = SIG_DFL;
  sigemptyset(&restore.sa_mask);
  sigaction(signal_number, &restore, nullptr);
  raise(signal_number);
}

// While alive: the temporary file `name` is removed if one of
// kCleanupSignals ends the process; the previous handlers are restored after.
class PendingTemporaryFile {
 public:
  explicit PendingTemporaryFile(const char* name) {
    size_t n = std::min(std::strlen(name), sizeof(pending_temporary) - 1);
    std::memcpy(pending_temporary, name, n);
    pending_temporary[n] = '\0';
    has_pending_temporary = 1;
    struct sigaction action {};
    action.sa_handler = RemovePendingTemporaryAndReraise;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      sigaction(kCleanupSignals[i], nullptr, &previous_[i]);
      // A signal the caller ignores (nohup) stays ignored.
      if (previous_[i].sa_handler == SIG_IGN) continue;
      sigaction(kCleanupSignals[i], &action, nullptr);
    }
  }
  ~PendingTemporaryFile() {
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      sigaction(kCleanupSignals[i], &previous_[i], nullptr);
    }
    has_pending_temporary = 0;
  }
  PendingTemporaryFile(const PendingTemporaryFile&) = delete;
  PendingTemporaryFile& operator=(const PendingTemporaryFile&) = delete;

 private:
  struct sigaction previous_[std::size(kCleanupSignals)];
};

}  // namespace

void SetBeforeRenameHookForTesting(void (*hook)()) {
  before_rename_for_testing = hook;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot write to '", path, "': it is a directory"));
  }
  // A device, FIFO or socket (`/dev/null`, `/dev/stdout`, `>(cmd)`) is
  // written to as it is: replacing it would destroy it.
  struct stat existing;
  if (stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot write to '", path, "': ", std::strerror(errno)));
    }
    bool ok = WriteAll(fd, contents);
    int saved = errno;
    if (close(fd) != 0 && ok) {
      ok = false;
      saved = errno;
    }
    if (!ok) {
      return absl::InternalError(absl::StrCat("cannot write to '", path,
                                              "': ", std::strerror(saved)));
    }
    return absl::OkStatus();
  }
  std::filesystem::path target(path);
  // Through a symbolic link, replace the file it names and keep the link.
  if (std::filesystem::is_symlink(target, ec)) {
    std::filesystem::path resolved = std::filesystem::canonical(target, ec);
    if (!ec) target = resolved;
  }
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot create a temporary file next to '", path, "': ",
        std::strerror(errno)));
  }
  PendingTemporaryFile pending(name.data());
  auto fail = [&](absl::string_view what) {
    int saved = errno;
    close(fd);
    unlink(name.data());
    return absl::InternalError(absl::StrCat(what, " '", path, "': ",
                                            std::strerror(saved)));
  };
  if (!WriteAll(fd, contents)) return fail("cannot write");
  // Keep the permissions (and, where allowed, the owner and group) of the
  // file being replaced; a new file gets what the umask allows of 0666, as
  // if it had been created with open().
  struct stat st;
  if (stat(target.c_str(), &st) == 0) {
    if (fchown(fd, st.st_uid, st.st_gid) != 0) {
      // Not allowed for another owner: the new file is the writer's.
    }
    fchmod(fd, st.st_mode & 07777);
  } else {
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
  }
  if (fsync(fd) != 0) return fail("cannot sync");
  if (close(fd) != 0) {
    int saved = errno;
    unlink(name.data());
    return absl::InternalError(absl::StrCat("cannot close '", path, "': ",
                                            std::strerror(saved)));
  }
  if (before_rename_for_testing != nullptr) before_rename_for_testing();
  if (rename(name.data(), target.c_str()) != 0) {
    int saved = errno;
    unlink(name.data());
    return absl::InternalError(absl::StrCat("cannot rename onto '", path,
                                            "': ", std::strerror(saved)));
  }
  // Make the rename itself durable.
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return absl::OkStatus();
}

}  // namespace hloff
