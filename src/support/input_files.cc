// The inputs of a run and the pieces of one input.
#include "support/input_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hloff {

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

}  // namespace

bool IsAfterPassDumpName(absl::string_view file_name) {
  // XLA names a dump `[PREFIX.]module_NNNN[.MODULE_NAME].SUFFIX`
  // (FilenameFor in xla/service/dump.cc): the suffix follows the first
  // `module_` + digits + '.'.
  size_t at = 0;
  absl::string_view suffix;
  while ((at = file_name.find("module_", at)) != absl::string_view::npos) {
    size_t digits = at + 7;
    size_t end = digits;
    while (end < file_name.size() && absl::ascii_isdigit(file_name[end])) ++end;
    bool starts_part = at == 0 || file_name[at - 1] == '.';
    if (starts_part && end > digits && end < file_name.size() &&
        file_name[end] == '.') {
      suffix = file_name.substr(end);  // with its leading '.'
      break;
    }
    at = digits;
  }
  if (suffix.empty() || absl::EndsWith(suffix, ".before_optimizations.txt")) {
    return false;
  }
  // `.after_PASS.before_PASS.txt`, `.after_optimizations.txt`,
  // `.after_codegen.txt`, and the backends' `.cpu_after_optimizations.txt`,
  // `.sm_9.0a_gpu_after_optimizations.txt`.
  return absl::StrContains(suffix, ".after_") ||
         absl::StrContains(suffix, "_after_optimizations");
}

absl::StatusOr<InputFiles> ListInputFiles(const std::vector<std::string>& inputs) {
  InputFiles listed;
  std::vector<std::string>& files = listed.files;
  for (const std::string& input : inputs) {
    std::error_code ec;
    if (input != "-" && std::filesystem::is_directory(input, ec)) {
      std::vector<std::string> found;
      std::vector<std::string> after_pass;
      // The error_code overloads throughout: a directory that changes or
      // cannot be read while it is listed is an error, not an exception.
      std::filesystem::directory_iterator it(input, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        std::string ext = it->path().extension().string();
        bool module = false;
        if (it->is_regular_file(type_ec) &&
            (ext == ".hlo" || (ext == ".txt" && LooksLikeHloText(it->path())))) {
          module = true;
        } else if (ext == ".hlo" && it->is_symlink(type_ec) &&
                   !it->exists(type_ec)) {
          // A *.hlo link to nothing is an input that cannot be read, not
          // one to skip without a word.
          module = true;
        }
        if (!module) continue;
        if (IsAfterPassDumpName(it->path().filename().string())) {
          after_pass.push_back(it->path().string());
        } else {
          found.push_back(it->path().string());
        }
      }
      if (ec) {
        return absl::NotFoundError(absl::StrCat("cannot list '", input,
                                                "': ", ec.message()));
      }
      std::sort(after_pass.begin(), after_pass.end());
      if (found.empty() && !after_pass.empty()) {
        // Only dumps after a pass: nothing XLA's pipeline starts from.
        return absl::NotFoundError(absl::StrCat(
            "no HLO modules from before optimization in '", input, "': its ",
            after_pass.size(),
            after_pass.size() == 1 ? " module is an XLA dump" : " modules are XLA dumps",
            " taken after a pass (per-pass or after-optimizations), which a "
            "directory input skips; to read one anyway, name it on the "
            "command line (e.g. ",
            after_pass.front(), ")"));
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
      if (!after_pass.empty()) {
        listed.skipped.push_back(SkippedDumps{input, std::move(after_pass)});
      }
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
  return listed;
}

absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs) {
  auto listed = ListInputFiles(inputs);
  if (!listed.ok()) return listed.status();
  return std::move(listed->files);
}

}  // namespace hloff
