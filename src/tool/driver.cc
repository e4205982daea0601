// The hlo-offload command line.
#include "tool/driver.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <thread>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "diag/diagnostic.h"
#include "diag/docs.h"
#include "diag/render.h"
#include "analysis/offload_utils.h"
#include "passes/offload_fixes.h"
#include "passes/offload_lints.h"
#include "passes/pass.h"
#include "text/parser.h"
#include "text/printer.h"
#include "tool/report_command.h"

#ifndef HLOFF_VERSION
#define HLOFF_VERSION "0.0.0"
#endif

namespace hloff {

absl::StatusOr<std::shared_ptr<const TextBuffer>> ReadInputBuffer(
    const std::string& path) {
  return TextBuffer::FromFile(path, kMaxInputBytes);
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  auto buffer = ReadInputBuffer(path);
  if (!buffer.ok()) return buffer.status();
  return std::string((*buffer)->text());
}

namespace {

// Writes all of `contents` to `fd`.
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

std::vector<InputChunk> SplitInput(absl::string_view text, bool split) {
  std::vector<InputChunk> chunks;
  // A UTF-8 byte order mark (some Windows editors write one) is not text.
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");
  if (!split) {
    chunks.push_back({text, 0});
    return chunks;
  }
  size_t start = 0, pos = 0;
  uint32_t line = 0, start_line = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) end = text.size();
    absl::string_view current = text.substr(pos, end - pos);
    // Trailing blanks (and a CR) after the marker are allowed.
    current = absl::StripTrailingAsciiWhitespace(current);
    if (current == "// -----") {
      chunks.push_back({text.substr(start, pos - start), start_line});
      start = end + 1;
      start_line = line + 1;
    }
    ++line;
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (start <= text.size()) {
    absl::string_view rest = text.substr(std::min(start, text.size()));
    // After a last marker, nothing but blank lines and comments starts no
    // module (a file that ends with `// -----`).
    bool empty = true;
    for (absl::string_view l : absl::StrSplit(rest, '\n')) {
      l = absl::StripAsciiWhitespace(l);
      if (!l.empty() && !absl::StartsWith(l, "//")) {
        empty = false;
        break;
      }
    }
    if (!empty || chunks.empty()) chunks.push_back({rest, start_line});
  }
  return chunks;
}

namespace {

enum class ExitCode { kOk = 0, kDiagnosed = 1, kUsage = 2 };

struct CommonOptions {
  std::vector<std::string> inputs;
  bool split_input_file = false;
  std::string format = "text";
  int trace_level = 0;
  std::string output;
  bool in_place = false;
  std::string passes;
  // --pipeline: "xla" (XlaPipeline) or "offload" (DefaultPipeline).
  std::string pipeline = "xla";
  bool no_lints = false;
  OffloadOptions offload;
  // Threads the parser may use for one large module.
  int parse_threads = 1;
  // Keep modules to print (ModuleResult::module) instead of their text: a
  // module printed straight to standard output needs no copy of its text.
  bool print_later = false;
  // Leave modules for the process exit to reclaim (SetLeaveModulesAtExit):
  // only when one file is read, so that a batch frees each module as it goes.
  bool leave_modules = false;
  LintOptions lint;
};

bool leave_modules_at_exit = false;

// Keeps `module` alive until the process exits (SetLeaveModulesAtExit).
void LeaveAtExit(std::unique_ptr<Module> module) {
  static std::vector<std::unique_ptr<Module>>* left =
      new std::vector<std::unique_ptr<Module>>();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  left->push_back(std::move(module));
}

// Runs work(i) for i in [0, n) on `threads` threads and calls
// deliver(i, result) on the calling thread in input order, each as soon as it
// and every earlier one are done. `progress(done)` is called on the calling
// thread after each delivery and once more with n at the end.
template <typename T>
void RunInInputOrder(size_t n, size_t threads,
                     const std::function<std::unique_ptr<T>(size_t)>& work,
                     const std::function<void(size_t, std::unique_ptr<T>)>& deliver,
                     const std::function<void(size_t)>& progress) {
  std::vector<std::unique_ptr<T>> results(n);
  std::vector<bool> ready(n, false);
  std::mutex mutex;
  std::condition_variable done;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) {
      std::unique_ptr<T> result = work(i);
      std::lock_guard<std::mutex> lock(mutex);
      results[i] = std::move(result);
      ready[i] = true;
      done.notify_one();
    }
  };
  std::vector<std::thread> pool;
  if (threads <= 1) {
    worker();
  } else {
    for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  for (size_t i = 0; i < n; ++i) {
    std::unique_ptr<T> result;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // With a pool the calling thread only delivers; waiting wakes on
      // every finished file, or after a while to refresh the progress line.
      while (!ready[i]) done.wait_for(lock, std::chrono::milliseconds(250));
      result = std::move(results[i]);
    }
    deliver(i, std::move(result));
    progress(i + 1);
  }
  for (std::thread& t : pool) t.join();
  progress(n);
}

// A progress line for a batch of `total` files on standard error: shown only
// when `err` is standard error, that is a terminal, and the batch has run
// for more than a second; erased before anything else is written and at the
// end.
class ProgressLine {
 public:
  ProgressLine(std::ostream& err, size_t total)
      : err_(err),
        total_(total),
        enabled_(&err == &std::cerr && isatty(STDERR_FILENO) == 1),
        start_(std::chrono::steady_clock::now()) {}
  // Erases the line, if shown, so that the caller can write.
  void Clear() {
    if (!shown_) return;
    err_ << "\r\033[K" << std::flush;
    shown_ = false;
  }
  void operator()(size_t done) {
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

 private:
  std::ostream& err_;
  size_t total_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

// Parses `chunk`, a piece of `buffer` when there is one (no copy of the
// text), else of text that lives only during the call.
absl::StatusOr<std::unique_ptr<Module>> ParseChunk(
    const InputChunk& chunk, const std::shared_ptr<const TextBuffer>& buffer,
    ParseOptions options) {
  if (buffer != nullptr) return ParseHloModule(buffer, chunk.text, options);
  return ParseHloModule(chunk.text, options);
}

// Expands directories into their *.txt / *.hlo files (sorted).
// True when the first line of `path` that is neither blank nor a `//`
// comment starts with `HloModule` or `ENTRY`. XLA's dump folders hold other
// `*.txt` files (buffer assignments, memory-usage reports) beside modules.
bool LooksLikeHloText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int lines = 0; lines < 10000 && std::getline(in, line); ++lines) {
    absl::string_view text = line;
    if (lines == 0) absl::ConsumePrefix(&text, "\xEF\xBB\xBF");  // as SplitInput
    text = absl::StripAsciiWhitespace(text);
    if (text.empty() || absl::StartsWith(text, "//")) continue;
    return absl::StartsWith(text, "HloModule") || absl::StartsWith(text, "ENTRY");
  }
  return false;
}

absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && std::filesystem::is_directory(input, ec)) {
      std::vector<std::string> found;
      // The error_code overloads throughout: a directory that changes or
      // cannot be read while it is listed is an error, not an exception.
      std::filesystem::directory_iterator it(input, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        std::string ext = it->path().extension().string();
        if (it->is_regular_file(type_ec) &&
            (ext == ".hlo" || (ext == ".txt" && LooksLikeHloText(it->path())))) {
          found.push_back(it->path().string());
        } else if (ext == ".hlo" && it->is_symlink(type_ec) &&
                   !it->exists(type_ec)) {
          // A *.hlo link to nothing is an input that cannot be read, not
          // one to skip without a word.
          found.push_back(it->path().string());
        }
      }
      if (ec) {
        return absl::NotFoundError(absl::StrCat("cannot list '", input,
                                                "': ", ec.message()));
      }
      if (found.empty()) {
        // A check pointed at the wrong folder must not pass.
        return absl::NotFoundError(absl::StrCat(
            "no HLO modules in '", input,
            "' (it has no *.hlo file and no *.txt file that starts with "
            "HloModule or ENTRY)"));
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
      continue;
    }
    if (input == "-" &&
        std::find(files.begin(), files.end(), "-") != files.end()) {
      // Standard input can be read once; the second read would be empty.
      return absl::InvalidArgumentError(
          "standard input ('-') can be named once");
    }
    files.push_back(input);
  }
  return files;
}

// A parse error status turned into a diagnostic (the parser's message starts
// with `path:line:col: error: `).
Diagnostic ParseErrorDiagnostic(const absl::Status& status,
                                const std::string& path) {
  Diagnostic d;
  d.code = DiagCode::kHO0001;
  d.severity = Severity::kError;
  absl::string_view message = status.message();
  absl::string_view first_line = message.substr(0, message.find('\n'));
  std::string prefix = path + ":";
  if (first_line.substr(0, prefix.size()) == prefix) {
    std::vector<absl::string_view> parts =
        absl::StrSplit(first_line.substr(prefix.size()), absl::MaxSplits(':', 2));
    uint32_t line = 0, column = 0;
    if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &line) &&
        absl::SimpleAtoi(parts[1], &column)) {
      d.loc = {line, column};
      absl::string_view rest = parts[2];
      constexpr absl::string_view kError = " error: ";
      if (rest.substr(0, kError.size()) == kError) rest.remove_prefix(kError.size());
      d.message = std::string(rest);
      return d;
    }
  }
  d.message = std::string(first_line);
  return d;
}

struct ModuleResult {
  std::string file;
  std::string module_name;
  std::vector<Diagnostic> diagnostics;
  bool parse_failed = false;
  std::string parse_error;  // rendered
  bool pass_failed = false;
  std::string printed;       // the module after the passes (opt/fmt)
  // Instead of `printed` with CommonOptions::print_later: the module, to be
  // printed in pieces once the whole run is known to succeed.
  std::unique_ptr<Module> module;
  // fix: the module had nothing to fix; `printed` is its input text as it was.
  bool unchanged = false;
  // Every entry output that raised E1200 (PassContext::faulty_entry_outputs).
  std::vector<ShapeIndex> faulty_entry_outputs;
};

// Parses `chunk` and, unless `passes` is empty and `run_passes` false, runs
// the pipeline.
ModuleResult ProcessChunk(const std::string& path, const InputChunk& chunk,
                          const std::shared_ptr<const TextBuffer>& buffer,
                          const CommonOptions& options, bool run_passes,
                          bool print, std::ostream& trace) {
  ModuleResult result;
  result.file = path;
  ParseOptions parse_options;
  parse_options.path = path;
  parse_options.line_offset = chunk.line_offset;
  parse_options.threads = options.parse_threads;
  auto module = ParseChunk(chunk, buffer, parse_options);
  if (!module.ok()) {
    result.parse_failed = true;
    result.parse_error = std::string(module.status().message());
    result.diagnostics.push_back(ParseErrorDiagnostic(module.status(), path));
    return result;
  }
  result.module_name = (*module)->name();
  std::vector<Diagnostic> lints;
  LintInputFacts facts;
  bool lint = run_passes && !options.no_lints && options.passes.empty();
  if (lint) {
    LintOptions lint_options = options.lint;
    lint_options.fix_entry_layout_unless_customized =
        options.offload.fix_entry_layout_unless_customized;
    facts = LintInput(**module, lints, lint_options);
  }
  if (run_passes) {
    DiagnosticSink sink;
    PassContext context;
    context.options = options.offload;
    context.diagnostics = &sink;
    context.faulty_entry_outputs = &result.faulty_entry_outputs;
    context.trace_level = options.trace_level;
    context.trace = options.trace_level > 0 ? &trace : nullptr;
    std::vector<absl::string_view> passes;
    if (options.passes.empty()) {
      // An input the offloader has run on already (HO3015) gets the
      // offloading passes alone, as before --pipeline existed.
      bool offload_only = options.pipeline == "offload" ||
                          FindEarlierOffloading(**module).has_value();
      passes = offload_only ? DefaultPipeline() : XlaPipeline();
    } else {
      for (absl::string_view p :
           absl::StrSplit(options.passes, ',', absl::SkipEmpty())) {
        passes.push_back(p);
      }
    }
    auto changed = RunPasses(**module, passes, context);
    result.diagnostics = std::move(sink.mutable_diagnostics());
    if (changed.ok() && lint) LintOutput(**module, facts, lints, options.lint);
    for (Diagnostic& d : lints) result.diagnostics.push_back(std::move(d));
    for (const Diagnostic& d : result.diagnostics) {
      if (d.severity == Severity::kError && d.code != DiagCode::kE1200 &&
          changed.ok()) {
        result.pass_failed = true;  // an error-level lint
      }
    }
    if (!changed.ok()) {
      result.pass_failed = true;
      bool reported = false;
      for (const Diagnostic& d : result.diagnostics) {
        reported |= d.severity == Severity::kError;
      }
      if (!reported) {
        Diagnostic d;
        d.code = DiagCode::kHO9002;
        d.message = std::string(changed.status().message());
        result.diagnostics.push_back(std::move(d));
      }
      return result;
    }
  }
  if (print && options.print_later) {
    result.module = std::move(*module);
    return result;
  }
  if (print) result.printed = ModuleToString(**module);
  if (options.leave_modules) LeaveAtExit(std::move(*module));
  return result;
}

}  // namespace

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "' is not a byte size (a number with an optional unit: "
        "B, KiB, MiB, GiB, TiB, K, M, G, T (powers of 1024) or kB, MB, GB, "
        "TB (powers of 1000), e.g. 16GiB)"));
  };
  auto too_large = [&] {
    return absl::OutOfRangeError(absl::StrCat(
        "'", text, "' is larger than the largest byte size, 2^63-1 bytes (8 EiB)"));
  };
  absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  size_t end = 0;
  bool fraction = false;
  while (end < trimmed.size() &&
         (absl::ascii_isdigit(trimmed[end]) || trimmed[end] == '.')) {
    fraction |= trimmed[end] == '.';
    ++end;
  }
  absl::string_view number = trimmed.substr(0, end);
  absl::string_view unit = absl::StripAsciiWhitespace(trimmed.substr(end));
  if (number.empty()) return invalid();
  struct Unit {
    absl::string_view name;
    int64_t factor;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},
      {"b", 1},
      {"k", int64_t{1} << 10},
      {"kib", int64_t{1} << 10},
      {"kb", 1000},
      {"m", int64_t{1} << 20},
      {"mib", int64_t{1} << 20},
      {"mb", 1000 * 1000},
      {"g", int64_t{1} << 30},
      {"gib", int64_t{1} << 30},
      {"gb", int64_t{1000} * 1000 * 1000},
      {"t", int64_t{1} << 40},
      {"tib", int64_t{1} << 40},
      {"tb", int64_t{1000} * 1000 * 1000 * 1000}};
  const Unit* found = nullptr;
  for (const Unit& u : kUnits) {
    if (absl::EqualsIgnoreCase(u.name, unit)) found = &u;
  }
  if (found == nullptr) return invalid();
  if (!fraction) {
    // Whole numbers exactly, up to 2^63-1 bytes.
    uint64_t value = 0;
    if (!absl::SimpleAtoi(number, &value)) {
      return number.size() > 18 ? too_large() : invalid();
    }
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) /
                    static_cast<uint64_t>(found->factor)) {
      return too_large();
    }
    return static_cast<int64_t>(value) * found->factor;
  }
  double value = 0;
  if (!absl::SimpleAtod(number, &value) || value < 0) return invalid();
  double bytes = value * static_cast<double>(found->factor);
  if (!(bytes < 0x1p63)) return too_large();
  return static_cast<int64_t>(bytes);  // rounded down
}

namespace {

// Before a file is replaced by what was printed from it (`opt x -o x`),
// checks that the text reads back: a module that does not parse is a defect
// of hlo-offload, and the file it would replace is the only copy. (`fix`
// re-checks its output anyway.)
absl::Status CheckReadsBack(absl::string_view printed) {
  for (const InputChunk& chunk : SplitInput(printed, true)) {
    auto module = ParseHloModule(chunk.text, ParseOptions{"<output>", 0});
    if (!module.ok()) {
      absl::string_view why = module.status().message();
      return absl::InternalError(absl::StrCat(
          "the rewritten module does not parse, so the input is left as it "
          "was (please report this): ",
          why.substr(0, why.find('\n'))));
    }
  }
  return absl::OkStatus();
}

void AddOffloadFlags(CLI::App* app, CommonOptions& options) {
  app->add_option("--pipeline", options.pipeline,
                  "xla (default): XLA's GPU order up to the offloader, with "
                  "the passes before it that change what it sees; offload: "
                  "the three offloading passes alone")
      ->check(CLI::IsMember({"xla", "offload"}));
  app->add_flag("--disable-automatic-host-compute-offload",
                options.offload.disable_automatic_host_compute_offload,
                "fail instead of converting device compute on host data into "
                "host compute (xla_disable_automatic_host_compute_offload)");
  app->add_flag(
      "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
      options.offload.allow_h2h_copy_when_automatic_host_compute_offload_disabled,
      "exempt same-shape host copies from the flag above "
      "(xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled)");
  app->add_flag("--fix-entry-layout-unless-customized",
                options.offload.fix_entry_layout_unless_customized,
                "XLA V4 behaviour: set a non-customized entry output layout to "
                "host memory instead of raising E1200");
  // A flag, so that `--trace FILE...` never takes a file for the level;
  // `--trace=N` sets it.
  app->add_flag("--trace", options.trace_level,
                "print the offloader's trace to standard error, as XLA's "
                "--vmodule=host_offloader=N (--trace=N; 1: walks and "
                "mutations, 2: memory-space assignments, 3+: every visited "
                "node)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            int level = 0;
            if (value == "true") return "";  // the bare flag: level 1
            if (absl::SimpleAtoi(value, &level) && level >= 0) return "";
            return "the trace level is a whole number, 0 or more (got '" +
                   value + "')";
          },
          ""));
}

// `hlo-offload fix`: finds every E1200 of the chunk, applies `strategy` to
// a fresh parse of the input, and re-checks the result. On success
// `result.printed` holds the fixed module.
ModuleResult FixChunk(const std::string& path, const InputChunk& chunk,
                      const std::shared_ptr<const TextBuffer>& buffer,
                      const CommonOptions& options, FixStrategy strategy,
                      std::ostream& err) {
  CommonOptions check_options = options;
  check_options.offload.report_all_output_errors = true;
  ModuleResult found =
      ProcessChunk(path, chunk, buffer, check_options, true, false, err);
  if (found.parse_failed) return found;
  for (const Diagnostic& d : found.diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (d.code != DiagCode::kE1200 || !d.output_index.has_value()) {
      // Only E1200 has a fix; report what stands in the way.
      found.pass_failed = true;
      return found;
    }
  }
  // Every faulty output, those past check's report cap included.
  std::vector<ShapeIndex> outputs = std::move(found.faulty_entry_outputs);
  if (outputs.empty()) {
    // Nothing to fix: the module stays as it was written, comments and all.
    ModuleResult result;
    result.file = path;
    result.module_name = found.module_name;
    result.printed = std::string(chunk.text);
    if (!result.printed.empty() && result.printed.back() != '\n') {
      result.printed += '\n';
    }
    result.unchanged = true;
    Diagnostic d;
    d.severity = Severity::kNote;
    d.code = DiagCode::kE1200;
    d.message = "nothing to fix: no entry output raises E1200; the module is "
                "left as it was";
    result.diagnostics.push_back(std::move(d));
    return result;
  }
  ParseOptions parse_options;
  parse_options.path = path;
  parse_options.line_offset = chunk.line_offset;
  parse_options.threads = options.parse_threads;
  auto module = ParseChunk(chunk, buffer, parse_options);
  if (!module.ok()) {
    found.parse_failed = true;
    return found;
  }
  if (auto s = ApplyE1200Fix(**module, strategy, outputs); !s.ok()) {
    Diagnostic d;
    d.code = DiagCode::kE1200;
    d.message = absl::StrCat("cannot apply the fix: ", s.message());
    found.diagnostics = {d};
    found.pass_failed = true;
    return found;
  }
  ModuleResult result;
  result.file = path;
  result.module_name = found.module_name;
  result.printed = ModuleToString(**module);
  // Re-check the fixed module.
  ModuleResult recheck = ProcessChunk(path, InputChunk{result.printed, 0}, nullptr,
                                      check_options, true, false, err);
  if (recheck.parse_failed || recheck.pass_failed) {
    result.pass_failed = true;
    result.diagnostics = std::move(recheck.diagnostics);
    for (Diagnostic& d : result.diagnostics) {
      d.notes.push_back(Note{"this remains after the fix was applied", {}});
      d.loc = {};
      for (PathHop& hop : d.path) hop.loc = {};
      for (Note& note : d.notes) note.loc = {};
    }
    return result;
  }
  for (const ShapeIndex& index : outputs) {
    Diagnostic d;
    d.severity = Severity::kNote;
    d.code = DiagCode::kE1200;
    d.message = absl::StrCat("fixed entry output ", ShapeIndexToString(index),
                             " (", strategy == FixStrategy::kHostOutput
                                       ? "host-output"
                                       : "move-to-device",
                             ")");
    result.diagnostics.push_back(std::move(d));
  }
  return result;
}

std::string DocsForCode(DiagCode code) {
  absl::string_view page = DiagnosticDocumentation(code);
  if (!page.empty()) return std::string(page);
  return absl::StrCat("# ", DiagCodeString(code), ": ", DiagCodeName(code),
                      "\n\n", DiagCodeSummary(code), "\n");
}

}  // namespace

namespace {

// Levenshtein distance between two short words (subcommand suggestions).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// RunTool without its last line of defence against exceptions.
int RunToolImpl(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  CLI::App app{
      "hlo-offload: XLA's host-memory-offloading passes on HLO text, with "
      "diagnostics that explain every fault"};
  app.require_subcommand(0, 1);
  bool list_passes = false;
  bool version = false;
  app.add_flag("--list-passes", list_passes, "list the passes and exit");
  app.add_flag("--version", version, "print the version and exit");
  std::string footer = "\nPasses (for opt --passes=P1,P2,...):\n";
  for (const PassInfo& info : PassRegistry()) {
    absl::StrAppend(&footer, "  ", info.name, "\n      ", info.description, "\n");
  }
  absl::StrAppend(&footer, "\nDefault pipeline (--pipeline=xla): ");
  for (size_t i = 0; i < XlaPipeline().size(); ++i) {
    absl::StrAppend(&footer, i ? ", " : "", XlaPipeline()[i]);
  }
  absl::StrAppend(&footer, "\n--pipeline=offload: ");
  for (size_t i = 0; i < DefaultPipeline().size(); ++i) {
    absl::StrAppend(&footer, i ? ", " : "", DefaultPipeline()[i]);
  }
  absl::StrAppend(&footer, "\nExit status: 0 ok, 1 an error diagnosed in the "
                           "input, 2 usage, I/O or parse error.\n");
  app.footer(footer);

  CommonOptions check_opts, opt_opts, fmt_opts;
  CLI::App* check = app.add_subcommand(
      "check", "run the host-offloading pipeline and report what it finds; "
               "writes no module");
  check->add_option("--format", check_opts.format,
                    "text (default), xla (XLA's status), json or sarif")
      ->check(CLI::IsMember({"text", "xla", "json", "sarif"}));
  check->add_flag("--split-input-file", check_opts.split_input_file,
                  "treat lines '// -----' as module separators");
  check->add_flag("--no-lints", check_opts.no_lints,
                  "report only what XLA's passes report (no HO3xxx lints)");
  std::string pinned_host_budget;
  check->add_option("--pinned-host-budget", pinned_host_budget,
                    "warn (HO3012) when the host-memory bytes at the entry "
                    "boundary exceed BYTES (e.g. 16GiB, 64GB, 1073741824)")
      ->type_name("BYTES");
  AddOffloadFlags(check, check_opts);
  check->add_option("FILE", check_opts.inputs,
                    "HLO text files, directories of *.txt/*.hlo, or - for "
                    "standard input")
      ->required();

  CLI::App* opt = app.add_subcommand(
      "opt", "run the pipeline (or --passes) and print the resulting module");
  opt->add_option("--passes", opt_opts.passes,
                  "comma-separated pass names to run instead of the pipeline");
  opt->add_option("-o,--output", opt_opts.output,
                  "write the module here (atomically) instead of stdout");
  opt->add_flag("--split-input-file", opt_opts.split_input_file,
                "treat lines '// -----' as module separators");
  opt->add_flag("--no-lints", opt_opts.no_lints,
                "report only what XLA's passes report (no HO3xxx lints)");
  AddOffloadFlags(opt, opt_opts);
  opt->add_option("FILE", opt_opts.inputs,
                  "HLO text file, a directory of them, or -")
      ->required()
      ->expected(1);

  CLI::App* fmt = app.add_subcommand(
      "fmt", "parse and print the module unchanged (the round trip)");
  fmt->add_option("-o,--output", fmt_opts.output,
                  "write the module here (atomically) instead of stdout");
  fmt->add_flag("--split-input-file", fmt_opts.split_input_file,
                "treat lines '// -----' as module separators");
  fmt->add_option("FILE", fmt_opts.inputs, "HLO text file, a directory of them, or -")
      ->required()
      ->expected(1);

  CommonOptions fix_opts;
  std::string fix_strategy;
  CLI::App* fix = app.add_subcommand(
      "fix", "rewrite the module so that every E1200 goes away, by the chosen "
             "strategy, then re-check it");
  fix->add_option("--strategy", fix_strategy,
                  "host-output (declare the output in host memory) or "
                  "move-to-device (move the value back before returning it)")
      ->required()
      ->check(CLI::IsMember({"host-output", "move-to-device"}));
  fix->add_option("-o,--output", fix_opts.output,
                  "write the fixed module here (atomically)");
  fix->add_flag("--in-place", fix_opts.in_place,
                "replace FILE with the fixed module (atomically)");
  fix->add_flag("--split-input-file", fix_opts.split_input_file,
                "treat lines '// -----' as module separators");
  AddOffloadFlags(fix, fix_opts);
  fix->add_option("FILE", fix_opts.inputs, "HLO text file, a directory of them, or -")
      ->required()
      ->expected(1);

  std::string explain_code;
  CLI::App* explain = app.add_subcommand(
      "explain", "print the documentation of a diagnostic code (e.g. E1200)");
  explain->add_option("CODE", explain_code, "the code")->required();

  ReportCommandOptions report_opts;
  CLI::App* report = AddReportSubcommand(app, report_opts);

  // Each subcommand's help ends with its own exit statuses; the pass list
  // only where passes are chosen.
  std::string passes_footer = footer.substr(0, footer.find("\nExit status:"));
  check->footer("\nExit status: 0 no error (warnings allowed), 1 an error "
                "diagnosed in the input, 2 usage, I/O or parse error.");
  opt->footer(passes_footer +
              "\nExit status: 0 ok, 1 an error diagnosed in the input (nothing "
              "is printed), 2 usage, I/O or parse error.");
  fmt->footer("\nExit status: 0 ok, 2 usage, I/O or parse error.");
  fix->footer("\nExit status: 0 fixed (or nothing to fix), 1 could not fix, 2 "
              "usage, I/O or parse error.");
  explain->footer("\nExit status: 0 ok, 2 unknown code.");
  report->footer("\nExit status: 0 reported (a failing pipeline is part of the "
                 "report), 2 usage, I/O or parse error.");

  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  // The global options are flags: the first other argument names the
  // subcommand. An unknown one is said as such (CLI11 would list it among
  // "arguments not expected", after the file).
  std::string subcommand;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (!a.empty() && a[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) subcommand = a;
    }
    if (!subcommand.empty()) break;
    std::string closest;
    size_t best = 3;  // suggest only near misses
    for (const CLI::App* sub : app.get_subcommands({})) {
      size_t d = EditDistance(a, sub->get_name());
      if (d < best) {
        best = d;
        closest = sub->get_name();
      }
    }
    err << "hlo-offload: error: unknown subcommand '" << a << "'";
    if (!closest.empty()) err << " (did you mean '" << closest << "'?)";
    err << "\nRun 'hlo-offload --help' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  const std::string help_hint =
      absl::StrCat("Run 'hlo-offload ", subcommand, subcommand.empty() ? "" : " ",
                   "--help' for usage.\n");
  // CLI11 reads `--name=` (nothing after '=') as `--name` and takes the next
  // argument as its value: `opt --passes= in.hlo` would run the pass
  // "in.hlo" on no input, `-o`-like options would take an input file as
  // their output. Refused here instead.
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' &&
        a.find('=') == a.size() - 1) {
      err << "hlo-offload: error: '" << a << "' has nothing after '='\n"
          << help_hint;
      return static_cast<int>(ExitCode::kUsage);
    }
  }
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    // Point at the help of the subcommand the mistake was made in.
    std::string help = "hlo-offload --help";
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->parsed()) help = "hlo-offload " + sub->get_name() + " --help";
    }
    err << "hlo-offload: error: " << e.what() << "\n"
        << "Run '" << help << "' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
  }

  // An empty value (`-o ""`, `--pinned-host-budget ""`) would otherwise mean
  // the option's default (standard output, no budget).
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->parsed()) continue;
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->nonpositional() || o->get_type_size() == 0 || o->count() == 0) {
        continue;
      }
      for (const std::string& r : o->results()) {
        if (!r.empty()) continue;
        const auto& long_names = o->get_lnames();
        err << "hlo-offload: error: "
            << (long_names.empty() ? o->get_name() : "--" + long_names.front())
            << " needs a value (it is empty)\n"
            << "Run 'hlo-offload " << sub->get_name() << " --help' for usage.\n";
        return static_cast<int>(ExitCode::kUsage);
      }
    }
  }

  if (version) {
    out << "hlo-offload " << HLOFF_VERSION
        << " (XLA host-offloading semantics: V6, openxla/xla 2026-07-26)\n";
    return 0;
  }
  if (list_passes) {
    for (const PassInfo& info : PassRegistry()) {
      out << info.name << "\n    " << info.description << "\n";
    }
    return 0;
  }

  if (explain->parsed()) {
    auto code = ParseDiagCode(explain_code);
    if (!code) {
      err << "hlo-offload: error: unknown diagnostic code '" << explain_code
          << "'\n";
      return static_cast<int>(ExitCode::kUsage);
    }
    out << DocsForCode(*code);
    return 0;
  }

  if (report->parsed()) return RunReportCommand(report_opts, out, err);

  CommonOptions* options = nullptr;
  bool run_passes = false, print = false;
  std::optional<FixStrategy> strategy;
  if (check->parsed()) {
    options = &check_opts;
    if (!pinned_host_budget.empty()) {
      auto budget = ParseByteSize(pinned_host_budget);
      if (!budget.ok()) {
        err << "hlo-offload: error: --pinned-host-budget: "
            << budget.status().message() << "\n";
        return static_cast<int>(ExitCode::kUsage);
      }
      check_opts.lint.pinned_host_budget = *budget;
    }
    run_passes = true;
    // Every faulty output at once; --format=xla prints XLA's (the first).
    check_opts.offload.report_all_output_errors = true;
  } else if (fix->parsed()) {
    options = &fix_opts;
    print = true;
    strategy = ParseFixStrategy(fix_strategy);
    if (fix_opts.in_place && !fix_opts.output.empty()) {
      err << "hlo-offload: error: -o and --in-place exclude each other\n";
      return static_cast<int>(ExitCode::kUsage);
    }
    if (fix_opts.in_place) {
      std::error_code ec;
      if (fix_opts.inputs.size() != 1 ||
          std::filesystem::is_directory(fix_opts.inputs[0], ec)) {
        err << "hlo-offload: error: --in-place needs exactly one file\n";
        return static_cast<int>(ExitCode::kUsage);
      }
      if (fix_opts.inputs[0] == "-") {
        err << "hlo-offload: error: --in-place needs a file, not -\n";
        return static_cast<int>(ExitCode::kUsage);
      }
      fix_opts.output = fix_opts.inputs[0];
    }
  } else if (opt->parsed()) {
    options = &opt_opts;
    run_passes = true;
    print = true;
    size_t named = 0;
    for (absl::string_view p : absl::StrSplit(opt_opts.passes, ',', absl::SkipEmpty())) {
      if (FindPass(p) == nullptr) {
        err << "hlo-offload: error: unknown pass '" << p
            << "' (see --list-passes)\n";
        return static_cast<int>(ExitCode::kUsage);
      }
      ++named;
    }
    if (opt->count("--passes") > 0 && named == 0) {
      // `--passes=,` would otherwise run nothing and say nothing.
      err << "hlo-offload: error: --passes names no pass (see --list-passes)\n";
      return static_cast<int>(ExitCode::kUsage);
    }
  } else if (fmt->parsed()) {
    options = &fmt_opts;
    print = true;
  } else {
    // No subcommand: usage, as a usage error.
    err << app.help();
    return static_cast<int>(ExitCode::kUsage);
  }

  auto files = ExpandInputs(options->inputs);
  if (!files.ok()) {
    err << "hlo-offload: error: " << files.status().message() << "\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  // An output that cannot be written is refused before any work (and
  // before a fix reports what it fixed).
  if (print && !options->output.empty() && options->output != "-") {
    std::error_code ec;
    std::filesystem::path target(options->output);
    std::filesystem::path dir = target.parent_path();
    std::string problem;
    if (std::filesystem::is_directory(target, ec)) {
      problem = "it is a directory";
    } else if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      problem = "its folder does not exist";
    }
    if (!problem.empty()) {
      err << "hlo-offload: error: cannot write to '" << options->output
          << "': " << problem << "\n";
      return static_cast<int>(ExitCode::kUsage);
    }
  }
  int exit_code = 0;
  std::vector<FileDiagnostics> collected;
  nlohmann::json json_files = nlohmann::json::array();
  // What to print, in input order: text, or a module printed in pieces.
  struct PrintedPiece {
    std::string text;
    std::unique_ptr<Module> module;
  };
  std::vector<PrintedPiece> pieces;
  bool to_stdout = options->output.empty() || options->output == "-";
  options->print_later = print && to_stdout && !strategy;
  options->leave_modules = leave_modules_at_exit && files->size() == 1;
  // What one input file gives: everything is kept per file so that files
  // checked in parallel report in input order.
  struct FileOutcome {
    std::ostringstream err;
    int exit_code = 0;
    nlohmann::json json_files = nlohmann::json::array();
    std::vector<FileDiagnostics> sarif;
    std::vector<PrintedPiece> printed;
    // fix: no module of the file had anything to fix; the file's text.
    bool unchanged = false;
    std::shared_ptr<const TextBuffer> input;
  };
  auto process_file = [&](const std::string& file, FileOutcome& outcome) {
    std::ostream& err = outcome.err;
    auto buffer = ReadInputBuffer(file);
    if (!buffer.ok()) {
      err << "hlo-offload: error: " << buffer.status().message() << "\n";
      outcome.exit_code = std::max(outcome.exit_code, 2);
      if (options->format == "json") {
        // Scripts reading the JSON see every input, the unreadable ones too.
        outcome.json_files.push_back(
            {{"file", file},
             {"error", std::string(buffer.status().message())},
             {"diagnostics", nlohmann::json::array()}});
      }
      return;
    }
    absl::string_view text = (*buffer)->text();
    std::string display = file == "-" ? "<stdin>" : file;
    auto chunks = SplitInput(text, options->split_input_file);
    SourceText source{display, text, {}};
    outcome.unchanged = strategy.has_value();
    outcome.input = *buffer;
    // With several files, each file's trace and XLA-format statuses say
    // which file they are about (text diagnostics carry it already).
    bool several = files->size() > 1;
    if (several && options->trace_level > 0) {
      err << "hlo-offload: trace of " << display << ":\n";
    }
    for (size_t c = 0; c < chunks.size(); ++c) {
      ModuleResult result =
          strategy ? FixChunk(display, chunks[c], *buffer, *options, *strategy, err)
                   : ProcessChunk(display, chunks[c], *buffer, *options,
                                  run_passes, print, err);
      if (result.parse_failed) {
        outcome.exit_code = std::max(outcome.exit_code, 2);
      } else if (result.pass_failed) {
        outcome.exit_code = std::max(outcome.exit_code, 1);
      }
      if (options->format == "json") {
        nlohmann::json diags = nlohmann::json::array();
        for (const Diagnostic& d : result.diagnostics) {
          diags.push_back(DiagnosticToJson(d));
        }
        outcome.json_files.push_back({{"file", display},
                                      {"module", result.module_name},
                                      {"diagnostics", diags}});
      } else if (options->format == "sarif") {
        outcome.sarif.push_back(
            {display, result.module_name, result.diagnostics});
      } else if (result.parse_failed) {
        err << result.parse_error << "\n";
      } else if (options->format == "xla") {
        for (const Diagnostic& d : result.diagnostics) {
          if (d.severity != Severity::kError) continue;
          if (several) err << display << ": ";
          err << RenderXla(d) << "\n";
          break;
        }
      } else {
        for (const Diagnostic& d : result.diagnostics) {
          err << RenderText(d, source);
        }
      }
      outcome.unchanged &= result.unchanged;
      if (print && !result.parse_failed && !result.pass_failed) {
        if (c > 0) outcome.printed.push_back({"// -----\n", nullptr});
        outcome.printed.push_back(
            {std::move(result.printed), std::move(result.module)});
      }
    }
  };
  // fix of one file with nothing to fix: the file's own text is the output,
  // and a file fixed in place is not touched. (Of several files, each module
  // with nothing to fix is printed as its text.)
  std::shared_ptr<const TextBuffer> unchanged_input;
  auto take = [&](FileOutcome& outcome) {
    if (outcome.unchanged && outcome.exit_code == 0 && files->size() == 1) {
      unchanged_input = outcome.input;
    }
    err << outcome.err.str();
    exit_code = std::max(exit_code, outcome.exit_code);
    for (auto& j : outcome.json_files) json_files.push_back(std::move(j));
    for (auto& f : outcome.sarif) collected.push_back(std::move(f));
    // Modules of several files are separated as --split-input-file reads.
    if (!pieces.empty() && !outcome.printed.empty()) {
      pieces.push_back({"// -----\n", nullptr});
    }
    for (auto& piece : outcome.printed) pieces.push_back(std::move(piece));
  };
  // One file: its parse may use every core. Several: one file per core,
  // reported in input order as soon as each is done and all before it.
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  if (files->size() == 1) {
    options->parse_threads = static_cast<int>(cores);
    FileOutcome outcome;
    process_file((*files)[0], outcome);
    take(outcome);
  } else {
    ProgressLine progress(err, files->size());
    RunInInputOrder<FileOutcome>(
        files->size(), std::min<size_t>(cores, files->size()),
        [&](size_t i) {
          auto outcome = std::make_unique<FileOutcome>();
          // An exception must not end a worker thread (RunTool catches
          // those of the calling thread only).
          try {
            process_file((*files)[i], *outcome);
          } catch (const std::bad_alloc&) {
            outcome->err << "hlo-offload: error: out of memory\n";
            outcome->exit_code = 2;
          } catch (const std::exception& e) {
            outcome->err << "hlo-offload: error: internal error: " << e.what()
                         << "\n";
            outcome->exit_code = 2;
          }
          return outcome;
        },
        [&](size_t, std::unique_ptr<FileOutcome> outcome) {
          progress.Clear();
          take(*outcome);
        },
        [&](size_t done) { progress(done); });
  }
  if (options->format == "json") {
    out << DumpJson(nlohmann::json({{"version", 1}, {"files", json_files}}))
        << "\n";
  } else if (options->format == "sarif") {
    out << DumpJson(RenderSarif(collected, HLOFF_VERSION)) << "\n";
  }
  if (print && exit_code == 0 && unchanged_input != nullptr) {
    absl::string_view text = unchanged_input->text();
    if (to_stdout) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      return exit_code;
    }
    if (fix_opts.in_place) return exit_code;
    if (auto s = WriteFileAtomically(options->output, text); !s.ok()) {
      err << "hlo-offload: error: " << s.message() << "\n";
      return static_cast<int>(ExitCode::kUsage);
    }
    return exit_code;
  }
  if (print && exit_code == 0) {
    if (to_stdout) {
      for (PrintedPiece& piece : pieces) {
        out << piece.text;
        if (piece.module == nullptr) continue;
        PrintModule(*piece.module, [&](absl::string_view text) {
          out.write(text.data(), static_cast<std::streamsize>(text.size()));
        });
        if (options->leave_modules) LeaveAtExit(std::move(piece.module));
      }
      return exit_code;
    }
    std::string printed;
    for (const PrintedPiece& piece : pieces) printed += piece.text;
    bool replaces_input = false;
    for (const std::string& file : *files) {
      std::error_code ec;
      replaces_input |= std::filesystem::equivalent(file, options->output, ec);
    }
    if (replaces_input && !strategy) {
      if (auto s = CheckReadsBack(printed); !s.ok()) {
        err << "hlo-offload: error: internal error: " << s.message() << "\n";
        return static_cast<int>(ExitCode::kDiagnosed);
      }
    }
    if (auto s = WriteFileAtomically(options->output, printed); !s.ok()) {
      err << "hlo-offload: error: " << s.message() << "\n";
      return static_cast<int>(ExitCode::kUsage);
    }
  }
  return exit_code;
}

}  // namespace

void SetLeaveModulesAtExit(bool leave) {
#if defined(__SANITIZE_ADDRESS__)
  leave = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  leave = false;
#endif
#endif
  leave_modules_at_exit = leave;
}

int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  // Errors are statuses; this is the last line of defence for what is not
  // (memory exhaustion, a library that throws), so that the exit status
  // stays within the contract.
  try {
    return RunToolImpl(args, out, err);
  } catch (const std::bad_alloc&) {
    err << "hlo-offload: error: out of memory\n";
  } catch (const std::exception& e) {
    err << "hlo-offload: error: internal error: " << e.what() << "\n";
  }
  return static_cast<int>(ExitCode::kUsage);
}

}  // namespace hloff
