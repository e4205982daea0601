// The hlo-offload command line.
#include "tool/driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "diag/diagnostic.h"
#include "diag/docs.h"
#include "diag/render.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "text/parser.h"
#include "text/printer.h"

#ifndef HLOFF_VERSION
#define HLOFF_VERSION "0.0.0"
#endif

namespace hloff {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  auto buffer = TextBuffer::FromFile(path);
  if (!buffer.ok()) return buffer.status();
  return std::string((*buffer)->text());
}

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Open(
    const std::string& path) {
  std::filesystem::path target(path);
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl =
      (dir / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  std::unique_ptr<AtomicFileWriter> writer(new AtomicFileWriter());
  writer->path_ = path;
  writer->temp_.assign(tmpl.begin(), tmpl.end());
  writer->temp_.push_back('\0');
  writer->fd_ = mkstemp(writer->temp_.data());
  if (writer->fd_ < 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot create a temporary file next to '", path, "': ",
        std::strerror(errno)));
  }
  return writer;
}

absl::Status AtomicFileWriter::Fail(absl::string_view what) {
  int saved = errno;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  unlink(temp_.data());
  done_ = true;
  return absl::InternalError(
      absl::StrCat(what, " '", path_, "': ", std::strerror(saved)));
}

absl::Status AtomicFileWriter::Append(absl::string_view data) {
  if (done_) return absl::FailedPreconditionError("writer is closed");
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = write(fd_, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail("cannot write");
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Commit() {
  if (done_) return absl::FailedPreconditionError("writer is closed");
  // Keep the permissions of the file being replaced.
  struct stat st;
  if (stat(path_.c_str(), &st) == 0) {
    fchmod(fd_, st.st_mode & 07777);
  } else {
    fchmod(fd_, 0644);
  }
  if (fsync(fd_) != 0) return Fail("cannot sync");
  if (close(fd_) != 0) {
    fd_ = -1;
    return Fail("cannot close");
  }
  fd_ = -1;
  if (rename(temp_.data(), path_.c_str()) != 0) {
    return Fail("cannot rename onto");
  }
  done_ = true;
  return absl::OkStatus();
}

AtomicFileWriter::~AtomicFileWriter() {
  if (done_) return;
  if (fd_ >= 0) close(fd_);
  unlink(temp_.data());
}

absl::Status WriteFileAtomically(const std::string& path,
                                 absl::string_view contents) {
  auto writer = AtomicFileWriter::Open(path);
  if (!writer.ok()) return writer.status();
  if (auto s = (*writer)->Append(contents); !s.ok()) return s;
  return (*writer)->Commit();
}

std::vector<InputChunk> SplitInput(absl::string_view text, bool split) {
  std::vector<InputChunk> chunks;
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
    if (!current.empty() && current.back() == '\r') current.remove_suffix(1);
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
    chunks.push_back({text.substr(std::min(start, text.size())), start_line});
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
  OffloadOptions offload;
  // Threads for parsing one large module (all cores when one file is
  // checked; files of a batch are spread over the cores instead).
  int parse_threads = 1;
  // See SetLeaveModulesAtExit (only for a single file: a batch frees each
  // module before the next).
  bool leave_modules_at_exit = false;
};

bool leave_modules_at_exit = false;

// Keeps `module` until the process ends instead of freeing it now.
void LeaveAtExit(std::unique_ptr<Module> module) {
  static auto* const kept = new std::vector<std::unique_ptr<Module>>();
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  kept->push_back(std::move(module));
}

// Expands directories into their *.txt / *.hlo files (sorted).
absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && std::filesystem::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator(input, ec)) {
        std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".txt" || ext == ".hlo")) {
          found.push_back(entry.path().string());
        }
      }
      if (ec) {
        return absl::NotFoundError(absl::StrCat("cannot list '", input,
                                                "': ", ec.message()));
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
      continue;
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
  // What opt/fmt print: the module after the passes (printed at the end, in
  // pieces); fix prints `printed` instead.
  std::unique_ptr<Module> module;
  std::string printed;
};

// Parses `chunk` (a piece of `buffer`) and, when `run_passes`, runs the
// pipeline. When `keep` the module is returned for printing.
ModuleResult ProcessChunk(const std::string& path,
                          const std::shared_ptr<const TextBuffer>& buffer,
                          const InputChunk& chunk, const CommonOptions& options,
                          bool run_passes, bool keep, std::ostream& trace) {
  ModuleResult result;
  result.file = path;
  ParseOptions parse_options;
  parse_options.path = path;
  parse_options.line_offset = chunk.line_offset;
  parse_options.threads = options.parse_threads;
  auto module = ParseHloModule(buffer, chunk.text, parse_options);
  if (!module.ok()) {
    result.parse_failed = true;
    result.parse_error = std::string(module.status().message());
    result.diagnostics.push_back(ParseErrorDiagnostic(module.status(), path));
    return result;
  }
  result.module_name = (*module)->name();
  if (run_passes) {
    DiagnosticSink sink;
    PassContext context;
    context.options = options.offload;
    context.diagnostics = &sink;
    context.trace_level = options.trace_level;
    context.trace = options.trace_level > 0 ? &trace : nullptr;
    std::vector<absl::string_view> passes;
    if (options.passes.empty()) {
      passes = DefaultPipeline();
    } else {
      for (absl::string_view p : absl::StrSplit(options.passes, ',')) {
        passes.push_back(p);
      }
    }
    auto changed = RunPasses(**module, passes, context);
    result.diagnostics = std::move(sink.mutable_diagnostics());
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
  if (keep) {
    result.module = std::move(*module);
  } else if (options.leave_modules_at_exit) {
    LeaveAtExit(std::move(*module));
  }
  return result;
}

void AddOffloadFlags(CLI::App* app, CommonOptions& options) {
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
  app->add_option("--trace", options.trace_level,
                  "print the offloader's trace to standard error, as XLA's "
                  "--vmodule=host_offloader=N (1: walks and mutations, 2: "
                  "memory-space assignments, 3+: every visited node)")
      ->expected(0, 1)
      ->default_str("1");
}

// `hlo-offload fix`: finds every E1200 of the chunk, applies `strategy` to
// a fresh parse of the input, and re-checks the result. On success
// `result.printed` holds the fixed module.
ModuleResult FixChunk(const std::string& path,
                      const std::shared_ptr<const TextBuffer>& buffer,
                      const InputChunk& chunk, const CommonOptions& options,
                      FixStrategy strategy, std::ostream& err) {
  CommonOptions check_options = options;
  check_options.offload.report_all_output_errors = true;
  ModuleResult found =
      ProcessChunk(path, buffer, chunk, check_options, true, false, err);
  if (found.parse_failed) return found;
  std::vector<ShapeIndex> outputs;
  for (const Diagnostic& d : found.diagnostics) {
    if (d.severity != Severity::kError) continue;
    if (d.code != DiagCode::kE1200 || !d.output_index.has_value()) {
      // Only E1200 has a fix; report what stands in the way.
      found.pass_failed = true;
      return found;
    }
    if (std::find(outputs.begin(), outputs.end(), *d.output_index) ==
        outputs.end()) {
      outputs.push_back(*d.output_index);
    }
  }
  ParseOptions parse_options;
  parse_options.path = path;
  parse_options.line_offset = chunk.line_offset;
  auto module = ParseHloModule(buffer, chunk.text, parse_options);
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
  auto fixed = TextBuffer::FromString(result.printed);
  ModuleResult recheck =
      ProcessChunk(path, fixed, InputChunk{fixed->text(), 0}, check_options,
                   true, false, err);
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

// Everything one input file produces, already rendered, so that files
// processed in parallel are reported in input order.
struct FileOutcome {
  std::string err;  // I/O errors, traces and text/xla diagnostics
  std::vector<nlohmann::json> json_files;
  std::vector<FileDiagnostics> sarif;
  // What opt/fmt/fix print, one entry per module.
  struct Printed {
    bool separator = false;  // `// -----` before it
    std::unique_ptr<Module> module;
    std::string text;  // when module is null
  };
  std::vector<Printed> printed;
  int exit_code = 0;
};

FileOutcome ProcessFile(const std::string& file, const CommonOptions& options,
                        bool run_passes, bool print,
                        std::optional<FixStrategy> strategy) {
  FileOutcome outcome;
  auto buffer = TextBuffer::FromFile(file);
  if (!buffer.ok()) {
    absl::StrAppend(&outcome.err, "hlo-offload: error: ",
                    buffer.status().message(), "\n");
    outcome.exit_code = 2;
    return outcome;
  }
  std::string display = file == "-" ? "<stdin>" : file;
  absl::string_view text = (*buffer)->text();
  auto chunks = SplitInput(text, options.split_input_file);
  for (size_t c = 0; c < chunks.size(); ++c) {
    std::ostringstream trace;
    ModuleResult result =
        strategy ? FixChunk(display, *buffer, chunks[c], options, *strategy,
                            trace)
                 : ProcessChunk(display, *buffer, chunks[c], options,
                                run_passes, print, trace);
    outcome.err += trace.str();
    SourceText source{display, text};
    if (result.parse_failed) {
      outcome.exit_code = std::max(outcome.exit_code, 2);
    } else if (result.pass_failed) {
      outcome.exit_code = std::max(outcome.exit_code, 1);
    }
    if (options.format == "json") {
      nlohmann::json diags = nlohmann::json::array();
      for (const Diagnostic& d : result.diagnostics) {
        diags.push_back(DiagnosticToJson(d));
      }
      outcome.json_files.push_back({{"file", display},
                                    {"module", result.module_name},
                                    {"diagnostics", diags}});
    } else if (options.format == "sarif") {
      outcome.sarif.push_back(
          {display, result.module_name, std::move(result.diagnostics)});
    } else if (result.parse_failed) {
      absl::StrAppend(&outcome.err, result.parse_error, "\n");
    } else if (options.format == "xla") {
      for (const Diagnostic& d : result.diagnostics) {
        if (d.severity != Severity::kError) continue;
        absl::StrAppend(&outcome.err, RenderXla(d), "\n");
        break;
      }
    } else {
      for (const Diagnostic& d : result.diagnostics) {
        outcome.err += RenderText(d, source);
      }
    }
    if (print && !result.parse_failed && !result.pass_failed) {
      FileOutcome::Printed printed;
      printed.separator = c > 0;
      printed.module = std::move(result.module);
      printed.text = std::move(result.printed);
      outcome.printed.push_back(std::move(printed));
    }
  }
  return outcome;
}

// Runs `process` on every file, on all cores when there are several, and
// hands the outcomes to `take` in input order as soon as each is ready.
// While a batch that has run for more than a second is still going, a
// progress line is kept on standard error when that is a terminal.
template <typename Process, typename Take>
void RunInOrder(const std::vector<std::string>& files, Process process,
                Take take, std::ostream& err) {
  const size_t n = files.size();
  size_t workers = std::max<size_t>(1, std::thread::hardware_concurrency());
  workers = std::min(workers, n);
  if (n <= 1) {
    for (const std::string& file : files) {
      FileOutcome outcome = process(file);
      take(outcome);
    }
    return;
  }
  std::mutex mu;
  std::condition_variable ready;
  std::vector<std::optional<FileOutcome>> slots(n);
  std::atomic<size_t> next{0};
  size_t finished = 0;
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      while (true) {
        size_t i = next.fetch_add(1);
        if (i >= n) return;
        FileOutcome outcome = process(files[i]);
        std::lock_guard<std::mutex> lock(mu);
        slots[i] = std::move(outcome);
        ++finished;
        ready.notify_all();
      }
    });
  }
  const bool show_progress = isatty(STDERR_FILENO) != 0 &&
                             err.rdbuf() == std::cerr.rdbuf();
  const auto start = std::chrono::steady_clock::now();
  bool progress_shown = false;
  auto clear_progress = [&] {
    if (!progress_shown) return;
    err << "\r\033[K" << std::flush;
    progress_shown = false;
  };
  for (size_t i = 0; i < n; ++i) {
    std::optional<FileOutcome> outcome;
    {
      std::unique_lock<std::mutex> lock(mu);
      while (!slots[i].has_value()) {
        ready.wait_for(lock, std::chrono::milliseconds(100));
        if (show_progress && !slots[i].has_value() &&
            std::chrono::steady_clock::now() - start >
                std::chrono::seconds(1)) {
          size_t done = finished;
          lock.unlock();
          err << "\rhlo-offload: " << done << "/" << n << " files checked"
              << std::flush;
          progress_shown = true;
          lock.lock();
        }
      }
      outcome = std::move(slots[i]);
      slots[i].reset();
    }
    // The progress line goes away only when something is written below it.
    if (!outcome->err.empty()) clear_progress();
    take(*outcome);
  }
  clear_progress();
  for (std::thread& t : threads) t.join();
}

std::string DocsForCode(DiagCode code) {
  absl::string_view page = DiagnosticDocumentation(code);
  if (!page.empty()) return std::string(page);
  return absl::StrCat("# ", DiagCodeString(code), ": ", DiagCodeName(code),
                      "\n\n", DiagCodeSummary(code), "\n");
}

}  // namespace

void SetLeaveModulesAtExit(bool leave) {
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer does not look into the module's mapped arena blocks and
  // would report what they point to: free the module as usual.
  leave = false;
#endif
  leave_modules_at_exit = leave;
}

int RunTool(const std::vector<std::string>& args, std::ostream& out,
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
  absl::StrAppend(&footer, "\nDefault pipeline: ");
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
  AddOffloadFlags(opt, opt_opts);
  opt->add_option("FILE", opt_opts.inputs, "HLO text file or -")
      ->required()
      ->expected(1);

  CLI::App* fmt = app.add_subcommand(
      "fmt", "parse and print the module unchanged (the round trip)");
  fmt->add_option("-o,--output", fmt_opts.output,
                  "write the module here (atomically) instead of stdout");
  fmt->add_flag("--split-input-file", fmt_opts.split_input_file,
                "treat lines '// -----' as module separators");
  fmt->add_option("FILE", fmt_opts.inputs, "HLO text file or -")
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
  fix->add_option("FILE", fix_opts.inputs, "HLO text file or -")
      ->required()
      ->expected(1);

  std::string explain_code;
  CLI::App* explain = app.add_subcommand(
      "explain", "print the documentation of a diagnostic code (e.g. E1200)");
  explain->add_option("CODE", explain_code, "the code")->required();

  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "hlo-offload: error: " << e.what() << "\n"
        << "Run 'hlo-offload --help' for usage.\n";
    return static_cast<int>(ExitCode::kUsage);
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

  CommonOptions* options = nullptr;
  bool run_passes = false, print = false;
  std::optional<FixStrategy> strategy;
  if (check->parsed()) {
    options = &check_opts;
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
    for (absl::string_view p : absl::StrSplit(opt_opts.passes, ',', absl::SkipEmpty())) {
      if (FindPass(p) == nullptr) {
        err << "hlo-offload: error: unknown pass '" << p
            << "' (see --list-passes)\n";
        return static_cast<int>(ExitCode::kUsage);
      }
    }
  } else if (fmt->parsed()) {
    options = &fmt_opts;
    print = true;
  } else {
    out << app.help();
    return 0;
  }

  auto files = ExpandInputs(options->inputs);
  if (!files.ok()) {
    err << "hlo-offload: error: " << files.status().message() << "\n";
    return static_cast<int>(ExitCode::kUsage);
  }
  options->parse_threads =
      files->size() == 1
          ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
          : 1;
  options->leave_modules_at_exit = leave_modules_at_exit && files->size() == 1;
  const CommonOptions& opts = *options;
  auto process_file = [&](const std::string& file) {
    return ProcessFile(file, opts, run_passes, print, strategy);
  };
  int exit_code = 0;
  std::vector<FileDiagnostics> collected;
  nlohmann::json json_files = nlohmann::json::array();
  std::vector<FileOutcome::Printed> to_print;
  // Printed modules are left for the process exit too (see
  // SetLeaveModulesAtExit), after they are printed.
  struct LeavePrinted {
    std::vector<FileOutcome::Printed>& printed;
    bool leave;
    ~LeavePrinted() {
      if (!leave) return;
      for (FileOutcome::Printed& p : printed) {
        if (p.module != nullptr) LeaveAtExit(std::move(p.module));
      }
    }
  } leave_printed{to_print, opts.leave_modules_at_exit};
  auto take = [&](FileOutcome& outcome) {
    err << outcome.err;
    exit_code = std::max(exit_code, outcome.exit_code);
    for (auto& j : outcome.json_files) json_files.push_back(std::move(j));
    for (auto& f : outcome.sarif) collected.push_back(std::move(f));
    for (auto& p : outcome.printed) to_print.push_back(std::move(p));
  };
  RunInOrder(*files, process_file, take, err);

  if (opts.format == "json") {
    out << nlohmann::json({{"version", 1}, {"files", json_files}}).dump(2)
        << "\n";
  } else if (opts.format == "sarif") {
    out << RenderSarif(collected, HLOFF_VERSION).dump(2) << "\n";
  }
  if (print && exit_code == 0) {
    if (opts.output.empty() || opts.output == "-") {
      for (const FileOutcome::Printed& p : to_print) {
        if (p.separator) out << "// -----\n";
        if (p.module != nullptr) {
          PrintModule(*p.module, [&](absl::string_view piece) {
            out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
          });
        } else {
          out << p.text;
        }
      }
      return exit_code;
    }
    auto writer = AtomicFileWriter::Open(opts.output);
    absl::Status status = writer.status();
    for (const FileOutcome::Printed& p : to_print) {
      if (!status.ok()) break;
      if (p.separator) status = (*writer)->Append("// -----\n");
      if (!status.ok()) break;
      if (p.module != nullptr) {
        PrintModule(*p.module, [&](absl::string_view piece) {
          if (status.ok()) status = (*writer)->Append(piece);
        });
      } else {
        status = (*writer)->Append(p.text);
      }
    }
    if (status.ok()) status = (*writer)->Commit();
    if (!status.ok()) {
      err << "hlo-offload: error: " << status.message() << "\n";
      return static_cast<int>(ExitCode::kUsage);
    }
  }
  return exit_code;
}

}  // namespace hloff
