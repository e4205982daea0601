// HLO text parser. A character-level recursive-descent parser over one buffer:
// whitespace and comments are skipped between tokens, attribute values that
// no pass interprets are captured as balanced text, and all recursion is
// bounded by kMaxDepth so that hostile input cannot exhaust the stack.
//
// Speed: the text is read once and nothing of it is copied in the common
// case. Names and attribute values are views into the buffer (an attribute is
// copied only when its whitespace needs normalising); a shape spelled as an
// earlier one is looked up by its text instead of parsed again; operands are
// resolved as they are read (definitions come first in printed HLO), with a
// fix-up pass only for the rare forward reference; line numbers are computed
// only for errors and diagnostics.
//
// Errors: the functions read once per instruction (ParseInstruction,
// ParseAttribute, shapes and layouts) check their StatusOr results by hand and
// read the value in place; ASSIGN_OR_RETURN's extra move of each Shape and
// operand cost 0.5% of `check`'s instructions on a 28.6 MB module
// (callgrind). The rest use the status macros; a sticky error_ is returned
// as the member it is.
#include "text/parser.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/verifier.h"
#include "support/status_macros.h"
#include "text/lexer.h"

namespace hloff {
namespace {

constexpr int kMaxDepth = kMaxNestingDepth;

using lex::Is;
using lex::kDigit;
using lex::kIdentChar;
using lex::kIdentStart;
using lex::kRawSpecial;
using lex::kSpace;

}  // namespace

// The attributes the parser reads (the others are kept as text only).
enum class KnownAttribute {
  kOther,
  kSingleComputation,  // to_apply, calls, condition, body, ...
  kComputationList,    // branch_computations, called_computations
  kControlPredecessors,
  kCustomCallTarget,
  kIndex,
  kFrontendAttributes,
  kDynamicSliceSizes,
  kSlice,
  kAsyncExecutionThread,
  kOutputToOperandAliasing,
};

KnownAttribute ClassifyAttribute(absl::string_view name) {
  using K = KnownAttribute;
  switch (name.size()) {
    case 4:
      return name == "body" ? K::kSingleComputation : K::kOther;
    case 5:
      if (name == "calls") return K::kSingleComputation;
      if (name == "index") return K::kIndex;
      if (name == "slice") return K::kSlice;
      return K::kOther;
    case 6:
      return name == "select" ? K::kSingleComputation : K::kOther;
    case 7:
      return name == "scatter" ? K::kSingleComputation : K::kOther;
    case 8:
      return name == "to_apply" ? K::kSingleComputation : K::kOther;
    case 9:
      return name == "condition" ? K::kSingleComputation : K::kOther;
    case 16:
      return name == "true_computation" ? K::kSingleComputation : K::kOther;
    case 17:
      return name == "false_computation" ? K::kSingleComputation : K::kOther;
    case 18:
      return name == "custom_call_target" ? K::kCustomCallTarget : K::kOther;
    case 19:
      if (name == "branch_computations" || name == "called_computations") {
        return K::kComputationList;
      }
      if (name == "frontend_attributes") return K::kFrontendAttributes;
      if (name == "dynamic_slice_sizes") return K::kDynamicSliceSizes;
      return K::kOther;
    case 20:
      return name == "control-predecessors" ? K::kControlPredecessors
                                            : K::kOther;
    case 22:
      return name == "async_execution_thread" ? K::kAsyncExecutionThread
                                              : K::kOther;
    case 26:
      return name == "output_to_operand_aliasing" ? K::kOutputToOperandAliasing
                                                  : K::kOther;
    default:
      return K::kOther;
  }
}

bool IsIdentStart(char c) { return Is(c, kIdentStart); }
bool IsIdentChar(char c) { return Is(c, kIdentChar); }

// A computation's instructions by name: open addressing on a fast hash of
// the name, with the name's place in the text kept in the slot (no copies).
// The parser does one insert per instruction and one lookup per operand.
class NameTable {
 public:
  NameTable() : slots_(kInitial) {}
  // Adds `instr` under `name` (a view that outlives the table); returns the
  // instruction that already has that name, or nullptr.
  Instruction* Insert(absl::string_view name, Instruction* instr) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    uint64_t h = Hash(name);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& slot = slots_[i];
      if (slot.instr == nullptr) {
        slot = Slot{name.data(), static_cast<uint32_t>(name.size()),
                    static_cast<uint32_t>(h >> 32), instr};
        ++size_;
        return nullptr;
      }
      if (Matches(slot, h, name)) return slot.instr;
    }
  }
  Instruction* Find(absl::string_view name) const {
    uint64_t h = Hash(name);
    for (size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (slot.instr == nullptr) return nullptr;
      if (Matches(slot, h, name)) return slot.instr;
    }
  }
  // Calls `fn(instr)` for every instruction, in no particular order.
  template <typename Fn>
  void ForEach(Fn fn) const {
    for (const Slot& slot : slots_) {
      if (slot.instr != nullptr) fn(slot.instr);
    }
  }

 private:
  static constexpr size_t kInitial = 16;
  struct Slot {
    const char* data = nullptr;
    uint32_t size = 0;
    uint32_t tag = 0;  // high bits of the hash
    Instruction* instr = nullptr;
  };
  static uint64_t Hash(absl::string_view s) {
    constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
    uint64_t h = s.size() * kMul;
    const char* p = s.data();
    size_t n = s.size();
    while (n >= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
      p += 8;
      n -= 8;
    }
    if (n > 0) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      h = (h ^ w) * kMul;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
  }
  static bool Matches(const Slot& slot, uint64_t h, absl::string_view name) {
    return slot.tag == static_cast<uint32_t>(h >> 32) &&
           slot.size == name.size() &&
           std::memcmp(slot.data, name.data(), name.size()) == 0;
  }
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.instr == nullptr) continue;
      uint64_t h = Hash(absl::string_view(slot.data, slot.size));
      size_t i = h & (slots_.size() - 1);
      while (slots_[i].instr != nullptr) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = slot;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

namespace {
// The error for an input over kMaxInputBytes: without the usual source
// excerpt, which would scan the whole input.
absl::Status InputTooLarge(const ParseOptions& options) {
  return absl::InvalidArgumentError(absl::StrCat(
      options.path, ":", 1 + options.line_offset,
      ":1: error: input larger than ", kMaxInputBytes, " bytes (2 GiB)"));
}
}  // namespace

class Parser {
 public:
  Parser(absl::string_view text, const ParseOptions& options)
      : text_(text), options_(options) {}

  absl::StatusOr<std::unique_ptr<Module>> ParseModule(
      std::shared_ptr<const TextBuffer> buffer);
  // The same with `threads` threads (see ParseHloModule).
  absl::StatusOr<std::unique_ptr<Module>> ParseModuleInParallel(
      std::shared_ptr<const TextBuffer> buffer, int threads, int* used);
  absl::StatusOr<Shape> ParseStandaloneShape();

 private:
  // ---- positions and errors ----
  SourceLoc LocAt(size_t pos) {
    // The table of line starts grows only as far as the positions asked for
    // (mostly increasing), so an early error costs nothing per byte after it.
    if (line_starts_.empty()) line_starts_.push_back(0);
    while (lines_scanned_to_ <= pos && lines_scanned_to_ < text_.size()) {
      const void* nl = std::memchr(text_.data() + lines_scanned_to_, '\n',
                                   text_.size() - lines_scanned_to_);
      if (nl == nullptr) {
        lines_scanned_to_ = text_.size();
        break;
      }
      lines_scanned_to_ = static_cast<const char*>(nl) - text_.data() + 1;
      line_starts_.push_back(lines_scanned_to_);
    }
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    size_t line = static_cast<size_t>(it - line_starts_.begin());
    size_t col = pos - line_starts_[line - 1] + 1;
    return SourceLoc{static_cast<uint32_t>(line + options_.line_offset),
                     static_cast<uint32_t>(col)};
  }
  absl::Status ErrorAt(size_t pos, absl::string_view message) {
    if (!error_.ok()) return error_;
    pos = std::min(pos, text_.size());
    std::string what(message);
    if (what.find("end of input") == std::string::npos &&
        what.find("the input is empty") == std::string::npos) {
      size_t rest = pos;
      while (rest < text_.size() &&
             (text_[rest] == ' ' || text_[rest] == '\t' ||
              text_[rest] == '\n' || text_[rest] == '\r')) {
        ++rest;
      }
      if (rest >= text_.size()) what = absl::StrCat("unexpected end of input, ", what);
    }
    message = what;
    SourceLoc loc = LocAt(pos);
    size_t line_start = pos;
    while (line_start > 0 && text_[line_start - 1] != '\n') --line_start;
    size_t line_end = pos;
    while (line_end < text_.size() && text_[line_end] != '\n') ++line_end;
    absl::string_view line = text_.substr(line_start, line_end - line_start);
    if (line.size() > 200) {
      size_t from = pos - line_start > 100 ? pos - line_start - 100 : 0;
      line = line.substr(from, 200);
      line_start += from;
    }
    std::string caret(pos - line_start, ' ');
    for (size_t i = 0; i < caret.size() && line_start + i < text_.size(); ++i) {
      if (text_[line_start + i] == '\t') caret[i] = '\t';
    }
    std::string shown;
    for (char c : line) {
      shown += (c == '\0' || static_cast<unsigned char>(c) < 0x20) && c != '\t'
                   ? ' '
                   : c;
    }
    if (!show_source_line_) {
      error_ = absl::InvalidArgumentError(absl::StrCat(
          options_.path, ":", loc.line, ":", loc.column, ": error: ", message));
      return error_;
    }
    error_ = absl::InvalidArgumentError(
        absl::StrCat(options_.path, ":", loc.line, ":", loc.column,
                     ": error: ", message, "\n", shown, "\n", caret, "^"));
    return error_;
  }
  absl::Status Error(absl::string_view message) { return ErrorAt(pos_, message); }

  // ---- lexical helpers ----
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  // Skips whitespace and comments. Returns an error for an unterminated
  // block comment or a NUL byte.
  absl::Status SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (Is(c, kSpace)) {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        const void* nl =
            std::memchr(text_.data() + pos_, '\n', text_.size() - pos_);
        pos_ = nl == nullptr ? text_.size()
                             : static_cast<const char*>(nl) - text_.data();
      } else if (c == '/' && Peek(1) == '*') {
        size_t end = text_.find("*/", pos_ + 2);
        if (end == absl::string_view::npos) {
          return Error("unterminated block comment");
        }
        pos_ = end + 2;
      } else if (c == '\0') {
        return Error("NUL byte in input");
      } else {
        break;
      }
    }
    return absl::OkStatus();
  }
  // Skips space and reports whether the next character is `c` (not consumed).
  bool Next(char c) {
    if (!SkipSpace().ok()) return false;
    return Peek() == c;
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    if (!Next(c)) return false;
    ++pos_;
    return true;
  }
  absl::Status Expect(char c, absl::string_view what) {
    if (!error_.ok()) return error_;
    if (Consume(c)) return absl::OkStatus();
    if (!error_.ok()) return error_;
    if (AtEnd()) {
      return Error(absl::StrCat("unexpected end of input, expected ", what));
    }
    return Error(absl::StrCat("expected ", what));
  }
  bool ConsumeWord(absl::string_view word) {
    if (!SkipSpace().ok()) return false;
    if (text_.substr(pos_, word.size()) != word) return false;
    char after = Peek(word.size());
    if (IsIdentChar(after)) return false;
    pos_ += word.size();
    return true;
  }
  // An identifier (IDENT_START IDENT_CHAR*), without skipping space first.
  absl::string_view RawIdent() {
    size_t start = pos_;
    const size_t n = text_.size();
    if (pos_ < n && Is(text_[pos_], kIdentStart)) {
      ++pos_;
      while (pos_ < n && Is(text_[pos_], kIdentChar)) ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  // A name, with or without `%`. Empty on failure (error set).
  absl::StatusOr<absl::string_view> ParseName(absl::string_view what) {
    RETURN_IF_ERROR(SkipSpace());
    size_t start = pos_;
    bool percent = Peek() == '%';
    if (percent) {
      ++pos_;
      // After `%` XLA accepts any identifier characters, digits first too.
      size_t s = pos_;
      while (pos_ < text_.size() && Is(text_[pos_], kIdentChar)) ++pos_;
      if (pos_ == s) return ErrorAt(start, absl::StrCat("expected ", what));
      return text_.substr(s, pos_ - s);
    }
    absl::string_view ident = RawIdent();
    if (ident.empty()) {
      if (AtEnd()) {
        return Error(absl::StrCat("unexpected end of input, expected ", what));
      }
      return Error(absl::StrCat("expected ", what));
    }
    return ident;
  }
  absl::StatusOr<int64_t> ParseInt() {
    RETURN_IF_ERROR(SkipSpace());
    size_t start = pos_;
    bool negative = false;
    if (Peek() == '-') {
      negative = true;
      ++pos_;
    }
    size_t digits = pos_;
    while (pos_ < text_.size() && Is(text_[pos_], kDigit)) ++pos_;
    if (pos_ == digits) {
      pos_ = start;
      if (AtEnd()) return Error("unexpected end of input, expected an integer");
      return Error("expected an integer");
    }
    absl::string_view num = text_.substr(digits, pos_ - digits);
    uint64_t value = 0;
    if (num.size() <= 18) {
      for (char c : num) value = value * 10 + static_cast<uint64_t>(c - '0');
    } else if (!absl::SimpleAtoi(num, &value)) {
      return ErrorAt(start, "integer out of range");
    }
    if (negative) {
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
        return ErrorAt(start, "integer out of range");
      }
      return static_cast<int64_t>(0 - value);
    }
    // Above INT64_MAX the value wraps (callers reject negative sizes).
    return static_cast<int64_t>(value);
  }
  // A quoted string ('"' or '\''), returned with C escapes resolved.
  absl::StatusOr<std::string> ParseString() {
    RETURN_IF_ERROR(SkipSpace());
    size_t start = pos_;
    char quote = Peek();
    if (quote != '"' && quote != '\'') return Error("expected a string");
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return ErrorAt(start, "unterminated string");
    absl::string_view body = text_.substr(start + 1, pos_ - start - 1);
    ++pos_;
    std::string out;
    std::string err;
    if (!absl::CUnescape(body, &out, &err)) {
      return ErrorAt(start, absl::StrCat("invalid escape in string: ", err));
    }
    return out;
  }
  // The end of the quoted string starting at `pos` (one past the closing
  // quote), or npos if it is unterminated.
  size_t QuotedEnd(size_t pos) const { return lex::QuotedEnd(text_, pos); }
  // Skips a quoted string starting at pos_ (raw scan). Returns false if
  // unterminated.
  bool SkipQuoted() {
    size_t end = QuotedEnd(pos_);
    if (end == absl::string_view::npos) {
      pos_ = text_.size();
      return false;
    }
    pos_ = end;
    return true;
  }

  // Captures an attribute value as balanced text, whitespace outside strings
  // collapsed to one space and `//` comments dropped. Stops at a top-level
  // `,`, an unbalanced closer, or top-level whitespace not followed by `{`.
  // The result is a view into the input when no normalisation is needed (the
  // usual case), else into the module's arena. `*value_start` receives where
  // the value starts (after space); `attr` names the attribute in errors.
  absl::StatusOr<absl::string_view> ParseRawValue(size_t* value_start = nullptr,
                                                  absl::string_view attr = {}) {
    size_t value_pos = pos_;
    RETURN_IF_ERROR(SkipSpace());
    size_t start = pos_;
    if (value_start != nullptr) *value_start = start;
    if (AtEnd()) {
      return ErrorAt(value_pos, absl::StrCat("unexpected end of input, expected ",
                                             ExpectedValue(attr)));
    }
    // A value never starts a new instruction: `x=` at the end of a line
    // followed by `ROOT y = ...` or `y = ...` is a missing value.
    if (start > value_pos && StartsInstruction(start)) {
      return ErrorAt(value_pos, absl::StrCat("expected ", ExpectedValue(attr)));
    }
    size_t end = ScanPlainRawValue(start);
    if (end != absl::string_view::npos) {
      pos_ = end;
      return text_.substr(start, end - start);
    }
    ASSIGN_OR_RETURN(auto slow, ParseRawValueSlow(value_pos, attr));
    if (slow == text_.substr(start, slow.size())) {
      return text_.substr(start, slow.size());
    }
    return Keep(slow);
  }
  // The end of the raw value at `start` if its normalised form is exactly
  // its text: single spaces only where normalisation keeps them, no comments,
  // no errors. npos otherwise (ParseRawValueSlow then decides).
  size_t ScanPlainRawValue(size_t start) {
    const char* data = text_.data();
    const size_t n = text_.size();
    size_t i = start;
    size_t depth = 0;
    while (true) {
      while (i < n && !Is(data[i], kRawSpecial)) ++i;
      if (i >= n) return absl::string_view::npos;  // unbalanced or empty
      char c = data[i];
      switch (c) {
        case '"':
        case '\'': {
          size_t e = QuotedEnd(i);
          if (e == absl::string_view::npos) return e;
          i = e;
          continue;
        }
        case ' ':
        case '\t':
        case '\n':
        case '\r': {
          // Kept as is only where normalisation would keep it: one space
          // inside brackets before something other than a closer, or at the
          // top level before '{'. At the top level other whitespace ends the
          // value.
          if (i == start) return absl::string_view::npos;
          size_t j = i;
          while (j < n && Is(data[j], kSpace)) ++j;
          char next = j < n ? data[j] : '\0';
          if (next == '/' || next == '\0') return absl::string_view::npos;
          bool single = c == ' ' && j == i + 1;
          if (depth == 0) {
            if (next != '{') return i;
            if (!single) return absl::string_view::npos;
          } else if (!single || next == '}' || next == ']' || next == ')') {
            return absl::string_view::npos;
          }
          ++i;
          continue;
        }
        case '(':
        case '[':
        case '{':
          if (depth >= kMaxDepth) return absl::string_view::npos;
          raw_stack_[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
          ++i;
          continue;
        case ')':
        case ']':
        case '}':
          if (depth == 0) return i == start ? absl::string_view::npos : i;
          if (raw_stack_[depth - 1] != c) return absl::string_view::npos;
          --depth;
          ++i;
          continue;
        case ',':
          if (depth == 0) return i == start ? absl::string_view::npos : i;
          ++i;
          continue;
        default:  // / NUL
          return absl::string_view::npos;
      }
    }
  }
  static std::string ExpectedValue(absl::string_view attr) {
    return attr.empty() ? std::string("an attribute value")
                        : absl::StrCat("a value for attribute '", attr, "'");
  }
  absl::StatusOr<std::string> ParseRawValueSlow(size_t value_pos,
                                                absl::string_view attr) {
    size_t start = pos_;
    std::string out;
    std::vector<char> stack;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '"' || c == '\'') {
        size_t s = pos_;
        if (!SkipQuoted()) return ErrorAt(s, "unterminated string");
        absl::StrAppend(&out, text_.substr(s, pos_ - s));
        continue;
      }
      if (c == '\0') return Error("NUL byte in input");
      bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
      bool line_comment = c == '/' && Peek(1) == '/';
      if (space || line_comment) {
        size_t save = pos_;
        RETURN_IF_ERROR(SkipSpace());
        if (stack.empty()) {
          if (Peek() == '{' && !out.empty()) {
            out += ' ';
            continue;
          }
          pos_ = save;
          break;
        }
        if (!out.empty() && out.back() != ' ' && Peek() != '}' &&
            Peek() != ']' && Peek() != ')') {
          out += ' ';
        }
        continue;
      }
      if (c == '/' && Peek(1) == '*') {
        size_t end = text_.find("*/", pos_ + 2);
        if (end == absl::string_view::npos) {
          return Error("unterminated block comment");
        }
        absl::StrAppend(&out, text_.substr(pos_, end + 2 - pos_));
        pos_ = end + 2;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        if (stack.size() >= kMaxDepth) {
          return Error(absl::StrCat("attribute value nesting deeper than ",
                                    kMaxDepth));
        }
        stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      } else if (c == ')' || c == ']' || c == '}') {
        if (stack.empty()) break;
        if (stack.back() != c) {
          return Error(absl::StrCat("unbalanced '", std::string(1, c),
                                    "' in attribute value"));
        }
        stack.pop_back();
      } else if (c == ',' && stack.empty()) {
        break;
      }
      out += c;
      ++pos_;
    }
    if (!stack.empty()) {
      return ErrorAt(start, "unexpected end of input inside attribute value");
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (out.empty()) {
      return ErrorAt(value_pos, absl::StrCat("expected ", ExpectedValue(attr)));
    }
    return out;
  }
  // True when the text at `at` reads `ROOT ...` or `name = ...`.
  bool StartsInstruction(size_t at) {
    size_t save = pos_;
    pos_ = at;
    bool result = false;
    if (ConsumeWord("ROOT")) {
      result = true;
    } else {
      if (Peek() == '%') ++pos_;
      absl::string_view ident = RawIdent();
      if (!ident.empty()) {
        while (Peek() == ' ' || Peek() == '\t') ++pos_;
        result = Peek() == '=' && Peek(1) != '=';
      }
    }
    pos_ = save;
    return result;
  }
  // Text that must outlive the parse: copied into the module's arena.
  absl::string_view Keep(absl::string_view text) {
    return module_->arena().CopyString(text);
  }

  // ---- shapes ----
  absl::StatusOr<Shape> ParseShapeAt(int depth);
  absl::Status ParseLayout(Shape& shape);
  // A located error at `start` when the array `shape` has more than
  // INT64_MAX bits (XLA's shape validation refuses those too).
  absl::Status CheckArraySize(const Shape& shape, size_t start);
  // True when the next significant text starts a shape.
  bool LooksLikeShape() {
    if (!SkipSpace().ok()) return false;
    if (Peek() == '(') return true;
    size_t save = pos_;
    absl::string_view ident = RawIdent();
    bool is_type = !ident.empty() && Peek() == '[' &&
                   ParsePrimitiveType(ident).has_value();
    pos_ = save;
    return is_type;
  }
  // The end of the shape text at `start` as ParseShapeAt would read it, or
  // npos when the text is unusual (comments, line breaks) or malformed.
  size_t ScanShapeExtent(size_t start) const;
  // A shape seen before with the same spelling, consumed; nullptr if none.
  Shape* FindSharedShape();
  // Whether a layout starts after the dimensions that end before `pos`.
  bool LayoutFollows(size_t pos, bool empty_dims) const;
  void Remember(absl::string_view text, Shape* shape);
  // Parses the shape at pos_ (which must look like one) into the module,
  // sharing it with later identical text.
  absl::StatusOr<Shape*> ParseSharedShape();

  // ---- module pieces ----
  absl::Status ParseHeader(Module& module);
  absl::Status ParseEntryLayout(Module& module);
  absl::Status ParseStackFrames(Module& module);
  absl::Status ParseComputation(Module& module);
  struct BodyState;
  // The computation's name, signature and '{'; registers it in `module`.
  absl::Status ParseComputationHead(Module& module, BodyState& body);
  // Instructions until the closing '}' (consumed: *closed) or, between two
  // instructions, the offset `stop`.
  absl::Status ParseBody(BodyState& body, size_t stop, bool* closed);
  // Resolves what the body left pending and checks the computation;
  // `more` are its later parts read by other threads.
  absl::Status FinishBody(BodyState& body, absl::Span<BodyState* const> more);
  // The get-tuple-element instructions of the body's compact operands, each
  // placed before its first user and named as XLA names them (`x#i`
  // sanitized: `x_i`); sets *made when it made any.
  absl::Status MakeCompactGtes(
      BodyState& body, absl::Span<BodyState* const> more,
      absl::FunctionRef<Instruction*(absl::string_view)> lookup, bool* made);
  absl::Status ParseExecutionThread(Computation& comp);
  absl::Status ParseInstruction(Computation& comp);
  absl::Status ParseAttribute(Instruction& instr);
  absl::Status Finish(Module& module);
  // The header and stack-frame tables, into `module`.
  absl::Status ParseModuleStart(Module& module,
                                std::shared_ptr<const TextBuffer> buffer);
  // Where `ranges` threads start reading the text after `from`: line starts
  // of instruction lines, near equal shares.
  std::vector<size_t> SplitPoints(size_t from, int ranges) const;
  // Where the name of `instr` starts (after `ROOT`), for errors.
  size_t NamePos(const Instruction* instr);
  // Where the opcode of `instr` starts, for errors (read again from the
  // text: only errors need it).
  size_t OpcodePos(const Instruction* instr);
  // Sugared async ops (`custom-call-start(...)`) wrap their op in a
  // computation that the text leaves out; builds it, as XLA's parser does.
  absl::Status BuildWrappedComputations(Module& module);
  absl::Status CheckCycles(Computation& comp);

  absl::string_view text_;
  ParseOptions options_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
  size_t lines_scanned_to_ = 0;  // line_starts_ is complete below this
  absl::Status error_;
  bool show_source_line_ = true;  // false for binary input
  Module* module_ = nullptr;
  std::array<char, kMaxDepth> raw_stack_;

  // Pending name resolutions.
  struct PendingOperand {
    Instruction* instr;
    size_t index;
    absl::string_view name;
    size_t pos;
  };
  struct PendingCall {
    Instruction* instr;
    size_t index;
    absl::string_view name;
    size_t pos;
  };
  std::vector<PendingCall> pending_calls_;
  // A computation while its body is read. A body split between parallel
  // ranges has one BodyState per range, merged by FinishBody.
  // An operand shape written in the text (`add(f32[4]{0} a, ...)`) that is
  // not the operand's own shared shape, checked once names are resolved.
  struct TypedOperand {
    Instruction* instr;
    size_t index;
    const Shape* shape;
    size_t pos;
  };
  // A compact get-tuple-element operand `%x#i#j` (XLA's compact_gte print
  // option): the get-tuple-element instructions it stands for are made when
  // the body is finished, as XLA's parser makes them (ParseOperands).
  struct CompactGte {
    Instruction* instr;
    size_t index;
    absl::string_view name;      // x
    absl::string_view spelling;  // x#i#j, as written
    std::vector<int64_t> indices;
    size_t pos;
  };
  struct BodyState {
    Computation* comp = nullptr;
    NameTable scope;
    std::vector<PendingOperand> pending_operands;
    std::vector<CompactGte> compact_gtes;
    std::vector<PendingOperand> pending_control;
    std::vector<TypedOperand> typed_operands;
    bool needs_cycle_check = false;
    bool saw_root = false;
    size_t start = 0;  // offset of the computation's header
    // The result shape of the header's signature `(p: T, ...) -> R`, and
    // where R starts; checked against the root as XLA's parser does.
    std::optional<Shape> signature_result;
    size_t signature_result_pos = 0;
  };
  BodyState* body_ = nullptr;

  // What one thread read of a range of the text (ParseModuleInParallel).
  struct RangeResult {
    // Computations whose header is in the range (null for the first range,
    // which reads into the module itself).
    std::unique_ptr<Module> module;
    // The end of a computation begun in an earlier range, read into a
    // placeholder computation (null for the first range).
    std::unique_ptr<Computation> placeholder;
    std::unique_ptr<BodyState> continuation;
    bool continuation_closed = false;
    // A computation begun in the range and still open at its end.
    std::unique_ptr<BodyState> tail;
    size_t first_item_pos = 0;
    size_t final_pos = 0;
    bool ends_in_body = false;
    std::vector<PendingCall> pending_calls;
    absl::Status status;
  };
  // Reads computations from pos_ up to the first item boundary at or after
  // `stop`, starting inside result.continuation's body if it is set.
  absl::Status ParseRange(Module& module, size_t stop, RangeResult& result);
  absl::flat_hash_map<absl::string_view, Shape*> shapes_by_text_;
  struct RecentShape {
    absl::string_view text;
    Shape* shape = nullptr;
    bool ends_with_dims = false;  // no layout: one may follow in other text
    bool empty_dims = false;
  };
  std::array<RecentShape, 8> recent_shapes_;
  size_t recent_next_ = 0;
  // Scratch space of the instruction being parsed.
  std::vector<Instruction*> operand_scratch_;
  std::vector<Attribute> attr_scratch_;
  size_t called_count_ = 0;
};

size_t Parser::ScanShapeExtent(size_t start) const {
  const char* data = text_.data();
  const size_t n = text_.size();
  constexpr size_t npos = absl::string_view::npos;
  size_t i = start;
  if (i >= n) return npos;
  if (data[i] == '(') {
    // A tuple ends at its matching parenthesis; the parser reads nothing
    // after it.
    int depth = 0;
    for (; i < n; ++i) {
      char c = data[i];
      if (c == '(') {
        ++depth;
      } else if (c == ')') {
        if (--depth == 0) return i + 1;
      } else if (c == '\n' || c == '"' || c == '\'' ||
                 (c == '/' && i + 1 < n && data[i + 1] == '/')) {
        return npos;
      }
    }
    return npos;
  }
  if (!Is(data[i], kIdentStart)) return npos;
  ++i;
  while (i < n && Is(data[i], kIdentChar)) ++i;
  if (i >= n || data[i] != '[') return npos;
  ++i;
  bool empty = true;
  for (; i < n && data[i] != ']'; ++i) {
    char c = data[i];
    if (c == '/' || c == '\n' || c == '\0' || c == '(' || c == '{') return npos;
    if (c != ' ') empty = false;
  }
  if (i >= n) return npos;
  ++i;  // ']'
  const size_t after_dims = i;
  // As ParseShapeAt: a '{' after the dimensions is a layout only if an
  // integer, ':' or (for a scalar) '}' follows.
  while (i < n && Is(data[i], kSpace)) ++i;
  if (i < n && data[i] == '/') return npos;
  if (i >= n || data[i] != '{') return after_dims;
  ++i;
  while (i < n && Is(data[i], kSpace)) ++i;
  if (i < n && data[i] == '/') return npos;
  char c = i < n ? data[i] : '\0';
  if (!(Is(c, kDigit) || c == ':' || (c == '}' && empty))) return after_dims;
  for (; i < n; ++i) {
    char d = data[i];
    if (d == '}') return i + 1;
    if (d == '/' || d == '\n' || d == '"' || d == '{' || d == '\0') return npos;
  }
  return npos;
}

bool Parser::LayoutFollows(size_t pos, bool empty_dims) const {
  const char* data = text_.data();
  const size_t n = text_.size();
  size_t i = pos;
  while (i < n && Is(data[i], kSpace)) ++i;
  if (i < n && data[i] == '/') return true;  // unknown: take the slow path
  if (i >= n || data[i] != '{') return false;
  ++i;
  while (i < n && Is(data[i], kSpace)) ++i;
  if (i < n && data[i] == '/') return true;
  char c = i < n ? data[i] : '\0';
  return Is(c, kDigit) || c == ':' || (c == '}' && empty_dims);
}

Shape* Parser::FindSharedShape() {
  if (!SkipSpace().ok()) return nullptr;
  const char* p = text_.data() + pos_;
  const size_t left = text_.size() - pos_;
  if (left == 0) return nullptr;
  // The few shapes seen last: a compare, no scan or hash (typed operands
  // repeat the shapes of the instructions just defined).
  for (const RecentShape& r : recent_shapes_) {
    if (r.shape == nullptr || r.text.size() > left || r.text[0] != *p ||
        std::memcmp(r.text.data(), p, r.text.size()) != 0) {
      continue;
    }
    size_t end = pos_ + r.text.size();
    if (r.ends_with_dims && LayoutFollows(end, r.empty_dims)) continue;
    pos_ = end;
    return r.shape;
  }
  size_t end = ScanShapeExtent(pos_);
  if (end == absl::string_view::npos) return nullptr;
  absl::string_view text = text_.substr(pos_, end - pos_);
  auto it = shapes_by_text_.find(text);
  if (it == shapes_by_text_.end()) return nullptr;
  pos_ = end;
  Remember(text, it->second);
  return it->second;
}

void Parser::Remember(absl::string_view text, Shape* shape) {
  RecentShape& r = recent_shapes_[recent_next_];
  recent_next_ = (recent_next_ + 1) % recent_shapes_.size();
  r.text = text;
  r.shape = shape;
  r.ends_with_dims = text.back() == ']';
  r.empty_dims = text.size() >= 2 && text[text.size() - 2] == '[';
}

absl::StatusOr<Shape*> Parser::ParseSharedShape() {
  RETURN_IF_ERROR(SkipSpace());
  size_t start = pos_;
  size_t end = ScanShapeExtent(start);
  auto shape = ParseShapeAt(0);
  if (!shape.ok()) return shape.status();
  auto owned = std::make_unique<Shape>(std::move(*shape));
  Shape* raw = owned.get();
  module_->shapes_.push_back(std::move(owned));
  if (end != absl::string_view::npos && pos_ == end) {
    shapes_by_text_.emplace(text_.substr(start, end - start), raw);
    Remember(text_.substr(start, end - start), raw);
  }
  return raw;
}

absl::StatusOr<Shape> Parser::ParseShapeAt(int depth) {
  if (depth > kMaxDepth) {  // depth: the tuples around this shape
    return Error(absl::StrCat("shape nesting deeper than ", kMaxDepth));
  }
  RETURN_IF_ERROR(SkipSpace());
  Shape shape;
  if (Peek() == '(') {
    ++pos_;
    shape.element_type = PrimitiveType::kTuple;
    if (Consume(')')) return shape;
    while (true) {
      auto sub = ParseShapeAt(depth + 1);
      if (!sub.ok()) return sub.status();
      shape.tuple_shapes.push_back(std::move(*sub));
      if (static_cast<int64_t>(shape.tuple_shapes.size()) > kMaxTupleElements) {
        return Error(absl::StrCat("tuple shape with more than ",
                                  kMaxTupleElements, " elements"));
      }
      if (Consume(',')) continue;
      RETURN_IF_ERROR(Expect(')', "',' or ')' in tuple shape"));
      return shape;
    }
  }
  size_t start = pos_;
  absl::string_view ident = RawIdent();
  if (ident.empty()) {
    if (AtEnd()) return Error("unexpected end of input, expected a shape");
    return Error("expected a shape");
  }
  auto type = ParsePrimitiveType(ident);
  if (!type) {
    return ErrorAt(start, absl::StrCat("unknown element type '", ident, "'"));
  }
  shape.element_type = *type;
  if (Peek() != '[') return ErrorAt(pos_, "expected '[' after element type");
  ++pos_;
  if (!Consume(']')) {
    if (!error_.ok()) return error_;
    while (true) {
      RETURN_IF_ERROR(SkipSpace());
      bool dynamic = false;
      int64_t size = 0;
      if (Peek() == '?') {
        ++pos_;
        dynamic = true;
        size = -1;
      } else {
        if (Peek() == '<' && Peek(1) == '=') {
          pos_ += 2;
          dynamic = true;
        }
        size_t dim_pos = pos_;
        auto value = ParseInt();
        if (!value.ok()) return value.status();
        if (*value < 0) return ErrorAt(dim_pos, "negative dimension size");
        size = *value;
      }
      if (dynamic) {
        shape.dynamic_dimensions.resize(shape.dimensions.size(), false);
        shape.dynamic_dimensions.push_back(true);
      } else if (!shape.dynamic_dimensions.empty()) {
        shape.dynamic_dimensions.push_back(false);
      }
      shape.dimensions.push_back(size);
      if (shape.rank() > kMaxRank) {
        return Error(absl::StrCat("array shape with more than ", kMaxRank,
                                  " dimensions"));
      }
      if (Consume(',')) continue;
      RETURN_IF_ERROR(Expect(']', "',' or ']' in dimensions"));
      break;
    }
  }
  if (!shape.dynamic_dimensions.empty()) {
    shape.dynamic_dimensions.resize(shape.dimensions.size(), false);
  }
  if ((shape.IsToken() || shape.IsOpaque()) && !shape.dimensions.empty()) {
    return ErrorAt(start, absl::StrCat(ident, " shapes have no dimensions"));
  }
  // A '{' is a layout only if an integer or ':' follows.
  size_t save = pos_;
  RETURN_IF_ERROR(SkipSpace());
  if (Peek() == '{') {
    size_t brace = pos_;
    ++pos_;
    RETURN_IF_ERROR(SkipSpace());
    char c = Peek();
    pos_ = brace;
    if (absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == ':' ||
        (c == '}' && shape.dimensions.empty())) {
      if (!shape.IsArray()) return Error("token and opaque shapes have no layout");
      RETURN_IF_ERROR(ParseLayout(shape));
      RETURN_IF_ERROR(CheckArraySize(shape, start));
      return shape;
    }
  }
  pos_ = save;
  RETURN_IF_ERROR(CheckArraySize(shape, start));
  return shape;
}

absl::Status Parser::CheckArraySize(const Shape& shape, size_t start) {
  if (shape_util::ArrayBitSize(shape).has_value()) return absl::OkStatus();
  return ErrorAt(start, absl::StrCat("shape ", ShapeToString(shape),
                                     " is too large: its size in bits does "
                                     "not fit in 64 bits"));
}

absl::Status Parser::ParseLayout(Shape& shape) {
  size_t start = pos_;
  ++pos_;  // '{'
  Layout& layout = shape.layout;
  shape.has_layout = true;
  if (!Next(':') && !Next('}')) {
    while (true) {
      auto dim = ParseInt();
      if (!dim.ok()) return dim.status();
      layout.minor_to_major.push_back(*dim);
      if (Consume(',')) continue;
      break;
    }
  }
  if (Consume(':')) {
    // Tail items, accepted in any order.
    while (true) {
      RETURN_IF_ERROR(SkipSpace());
      char c = Peek();
      if (c == '}') break;
      auto paren_body = [&](std::string& into) -> absl::Status {
        if (Peek() != '(') return Error("expected '('");
        size_t open = pos_;
        int depth = 0;
        while (pos_ < text_.size()) {
          char ch = text_[pos_++];
          if (ch == '(') ++depth;
          if (ch == ')' && --depth == 0) break;
        }
        if (depth != 0) return ErrorAt(open, "unbalanced '(' in layout");
        into = std::string(text_.substr(open + 1, pos_ - open - 2));
        return absl::OkStatus();
      };
      auto paren_int = [&](int64_t& into) -> absl::Status {
        RETURN_IF_ERROR(Expect('(', "'('"));
        auto v = ParseInt();
        if (!v.ok()) return v.status();
        into = *v;
        return Expect(')', "')'");
      };
      if (c == 'S' && Peek(1) == 'C') {
        pos_ += 2;
        size_t s = pos_;
        while (Peek() == '(') {
          std::string ignored;
          RETURN_IF_ERROR(paren_body(ignored));
        }
        layout.split_configs = std::string(text_.substr(s, pos_ - s));
      } else if (c == 'T') {
        ++pos_;
        while (Next('(')) {
          ++pos_;
          Tile tile;
          if (!Next(')')) {
            while (true) {
              if (Next('*')) {
                ++pos_;
                tile.dimensions.push_back(-1);
              } else {
                size_t tile_pos = pos_;
                auto v = ParseInt();
                if (!v.ok()) return v.status();
                if (*v <= 0) {
                  return ErrorAt(tile_pos,
                                 "a tile dimension is a positive integer or '*'");
                }
                tile.dimensions.push_back(*v);
              }
              if (Consume(',')) continue;
              break;
            }
          }
          RETURN_IF_ERROR(Expect(')', "')' in tile"));
          layout.tiles.push_back(std::move(tile));
        }
      } else if (c == 'S') {
        ++pos_;
        RETURN_IF_ERROR(paren_int(layout.memory_space));
      } else if (c == 'E') {
        ++pos_;
        RETURN_IF_ERROR(paren_int(layout.element_size_in_bits));
      } else if (c == 'L') {
        ++pos_;
        RETURN_IF_ERROR(paren_int(layout.tail_padding_alignment));
      } else if (c == 'M') {
        ++pos_;
        if (auto s = paren_int(layout.dynamic_shape_metadata_prefix_bytes);
            !s.ok()) {
          return s;
        }
      } else if (c == 'D') {
        ++pos_;
        RETURN_IF_ERROR(paren_body(layout.dim_level_types));
      } else if (c == 'P') {
        ++pos_;
        RETURN_IF_ERROR(paren_body(layout.physical_shape));
      } else if (c == '#') {
        ++pos_;
        RETURN_IF_ERROR(paren_body(layout.index_primitive_type));
      } else if (c == '*') {
        ++pos_;
        RETURN_IF_ERROR(paren_body(layout.pointer_primitive_type));
      } else {
        if (AtEnd()) return Error("unexpected end of input in layout");
        return Error("unexpected character in layout");
      }
    }
  }
  RETURN_IF_ERROR(Expect('}', "'}' closing the layout"));
  // Validate: minor_to_major is a permutation of the dimensions.
  const auto& m2m = layout.minor_to_major;
  if (static_cast<int64_t>(m2m.size()) != shape.rank()) {
    return ErrorAt(start, absl::StrCat("layout has ", m2m.size(),
                                       " dimensions but the shape has rank ",
                                       shape.rank()));
  }
  std::vector<bool> seen(m2m.size(), false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= shape.rank() || seen[d]) {
      return ErrorAt(start, "layout minor_to_major is not a permutation of the "
                            "shape's dimensions");
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Parser::ParseStandaloneShape() {
  ASSIGN_OR_RETURN(auto shape, ParseShapeAt(0));
  RETURN_IF_ERROR(SkipSpace());
  if (!AtEnd()) return Error("unexpected text after shape");
  return shape;
}

absl::Status Parser::ParseEntryLayout(Module& module) {
  EntryComputationLayout& layout = module.entry_layout_;
  layout.from_header = true;
  RETURN_IF_ERROR(Expect('{', "'{' starting entry_computation_layout"));
  RETURN_IF_ERROR(Expect('(', "'(' starting the parameter layouts"));
  if (!Consume(')')) {
    if (!error_.ok()) return error_;
    while (true) {
      ASSIGN_OR_RETURN(auto shape, ParseShapeAt(0));
      layout.parameters.push_back(std::move(shape));
      if (Consume(',')) continue;
      RETURN_IF_ERROR(Expect(')', "',' or ')'"));
      break;
    }
  }
  RETURN_IF_ERROR(SkipSpace());
  if (!(Peek() == '-' && Peek(1) == '>')) return Error("expected '->'");
  pos_ += 2;
  ASSIGN_OR_RETURN(layout.result, ParseShapeAt(0));
  return Expect('}', "'}' closing entry_computation_layout");
}

absl::Status Parser::ParseHeader(Module& module) {
  ASSIGN_OR_RETURN(auto name, ParseName("a module name"));
  module.name_ = std::string(name);
  absl::flat_hash_set<std::string> seen;
  while (Consume(',')) {
    RETURN_IF_ERROR(SkipSpace());
    size_t attr_pos = pos_;
    absl::string_view attr = RawIdent();
    if (attr.empty()) return Error("expected a module attribute name");
    if (!Consume('=')) {
      if (!error_.ok()) return error_;
      return Error(absl::StrCat("expected '=' after '", attr, "'"));
    }
    if (!seen.insert(std::string(attr)).second) {
      return ErrorAt(attr_pos,
                     absl::StrCat("duplicate module attribute '", attr, "'"));
    }
    if (attr == "entry_computation_layout") {
      module.entry_layout_position_ = module.header_attributes_.size();
      RETURN_IF_ERROR(ParseEntryLayout(module));
      continue;
    }
    ASSIGN_OR_RETURN(auto value, ParseRawValue());
    module.header_attributes_.push_back(RawAttribute{attr, value});
  }
  if (!module.entry_layout_.from_header) {
    // XLA prints it right after these attributes.
    static const char* const kBefore[] = {"is_scheduled", "input_output_alias",
                                          "buffer_donor",
                                          "alias_passthrough_params"};
    size_t position = 0;
    for (size_t i = 0; i < module.header_attributes_.size(); ++i) {
      for (const char* b : kBefore) {
        if (module.header_attributes_[i].name == b) position = i + 1;
      }
    }
    module.entry_layout_position_ = position;
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseStackFrames(Module& module) {
  StackFrameIndex& index = module.stack_frames_;
  auto parse_table = [&](absl::string_view table, auto&& row) -> absl::Status {
    if (!ConsumeWord(table)) return absl::OkStatus();
    int64_t expected = 1;
    while (true) {
      RETURN_IF_ERROR(SkipSpace());
      if (!absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) break;
      size_t id_pos = pos_;
      ASSIGN_OR_RETURN(auto id, ParseInt());
      if (id != expected) {
        return ErrorAt(id_pos, absl::StrCat("expected id ", expected, " in ",
                                            table));
      }
      ++expected;
      RETURN_IF_ERROR(row());
    }
    return absl::OkStatus();
  };
  auto quoted_raw = [&](std::vector<std::string>& into) -> absl::Status {
    RETURN_IF_ERROR(SkipSpace());
    size_t start = pos_;
    if (Peek() != '"') return Error("expected a string");
    if (!SkipQuoted()) return ErrorAt(start, "unterminated string");
    into.emplace_back(text_.substr(start + 1, pos_ - start - 2));
    return absl::OkStatus();
  };
  auto fields = [&](std::vector<std::pair<absl::string_view, int64_t*>> f)
      -> absl::Status {
    RETURN_IF_ERROR(Expect('{', "'{'"));
    while (!Next('}')) {
      if (!error_.ok()) return error_;
      absl::string_view key = RawIdent();
      if (key.empty() || !Consume('=')) return Error("expected 'key='");
      ASSIGN_OR_RETURN(auto v, ParseInt());
      for (auto& [k, p] : f) {
        if (k == key) *p = v;
      }
      Consume(',');
    }
    return Expect('}', "'}'");
  };
  if (auto s = parse_table("FileNames", [&] { return quoted_raw(index.file_names); });
      !s.ok()) {
    return s;
  }
  if (auto s = parse_table("FunctionNames",
                           [&] { return quoted_raw(index.function_names); });
      !s.ok()) {
    return s;
  }
  if (auto s = parse_table("FileLocations", [&]() -> absl::Status {
        StackFrameIndex::FileLocation loc{};
        auto st = fields({{"file_name_id", &loc.file_name_id},
                          {"function_name_id", &loc.function_name_id},
                          {"line", &loc.line},
                          {"end_line", &loc.end_line},
                          {"column", &loc.column},
                          {"end_column", &loc.end_column}});
        index.file_locations.push_back(loc);
        return st;
      });
      !s.ok()) {
    return s;
  }
  return parse_table("StackFrames", [&]() -> absl::Status {
    StackFrameIndex::Frame frame{};
    auto st = fields({{"file_location_id", &frame.file_location_id},
                      {"parent_frame_id", &frame.parent_frame_id}});
    index.frames.push_back(frame);
    return st;
  });
}

absl::Status Parser::ParseAttribute(Instruction& instr) {
  RETURN_IF_ERROR(SkipSpace());
  size_t attr_pos = pos_;
  absl::string_view attr = RawIdent();
  if (attr.empty()) return Error("expected an attribute name");
  if (!Consume('=')) {
    if (!error_.ok()) return error_;
    return Error(absl::StrCat("expected '=' after attribute name '", attr, "'"));
  }
  for (const Attribute& a : attr_scratch_) {
    if (a.name() == attr) {
      return ErrorAt(attr_pos, absl::StrCat("duplicate attribute '", attr, "'"));
    }
  }
  if (attr.size() > 0xffff) return ErrorAt(attr_pos, "attribute name too long");
  size_t value_pos = pos_;
  auto value = ParseRawValue(&value_pos, attr);
  if (!value.ok()) return value.status();
  absl::string_view v = *value;

  // Sub-parser over the captured value text: the names in a list.
  auto names_in = [](absl::string_view list) {
    absl::InlinedVector<absl::string_view, 4> names;
    size_t begin = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
      char c = i < list.size() ? list[i] : ' ';
      if (c == '{' || c == '}' || c == ',' || c == ' ' || c == '%') {
        if (i > begin) names.push_back(list.substr(begin, i - begin));
        begin = i + 1;
      }
    }
    return names;
  };
  auto bad = [&](absl::string_view what) {
    return ErrorAt(value_pos,
                   absl::StrCat("malformed ", attr, " attribute: ", what));
  };
  // The attribute as printed text, `name=value`: a view into the input when
  // it is spelled that way there.
  auto as_text = [&](AttrKind kind) {
    absl::string_view text;
    if (attr.data() + attr.size() + 1 == v.data() &&
        v.data() >= text_.data() && v.data() + v.size() <= text_.data() + text_.size()) {
      text = absl::string_view(attr.data(), attr.size() + 1 + v.size());
    } else {
      text = Keep(absl::StrCat(attr, "=", v));
    }
    return Attribute::Text(text, attr.size(), kind);
  };
  auto add_called = [&](absl::string_view name, bool is_list,
                        absl::Span<const absl::string_view> names) {
    auto* called = module_->arena().New<Attribute::Called>();
    called->name = name;
    called->first = static_cast<uint32_t>(called_count_);
    called->count = static_cast<uint32_t>(names.size());
    called->is_list = is_list;
    for (absl::string_view n : names) {
      pending_calls_.push_back(PendingCall{&instr, called_count_++, n, value_pos});
    }
    attr_scratch_.push_back(Attribute::CalledList(called));
  };

  const KnownAttribute known = ClassifyAttribute(attr);
  if (known == KnownAttribute::kSingleComputation) {
    if (v.front() == '{' && attr != "calls") {
      return bad("inline computations are not supported");
    }
    auto names = names_in(v);
    if (names.size() != 1 && !(attr == "calls" && !names.empty())) {
      return bad("expected one computation name");
    }
    add_called(attr, v.front() == '{', names);
    return absl::OkStatus();
  }
  if (known == KnownAttribute::kComputationList) {
    if (v.front() != '{') return bad("expected '{'");
    add_called(attr, /*is_list=*/true, names_in(v));
    return absl::OkStatus();
  }
  if (known == KnownAttribute::kControlPredecessors) {
    if (v.front() != '{') return bad("expected '{'");
    for (absl::string_view n : names_in(v)) {
      body_->pending_control.push_back(PendingOperand{&instr, 0, n, value_pos});
    }
    body_->needs_cycle_check = true;
    attr_scratch_.push_back(
        Attribute::Named(attr, AttrKind::kControlPredecessors));
    return absl::OkStatus();
  }
  if (known == KnownAttribute::kCustomCallTarget) {
    if (v.front() != '"' && v.front() != '\'') return bad("expected a string");
    absl::string_view body = v.substr(1, v.size() - 2);
    if (body.find('\\') == absl::string_view::npos) {
      absl::string_view known = WellKnownCustomCallTarget(body);
      instr.payload().custom_call_target = known.empty() ? body : known;
    } else {
      std::string out, err;
      if (!absl::CUnescape(body, &out, &err)) return bad(err);
      instr.payload().custom_call_target = Keep(out);
    }
    attr_scratch_.push_back(Attribute::Named(attr, AttrKind::kCustomCallTarget));
    return absl::OkStatus();
  }
  if (known == KnownAttribute::kIndex &&
      instr.opcode_ == HloOpcode::kGetTupleElement) {
    int64_t index = 0;
    if (!absl::SimpleAtoi(v, &index) || index < 0) {
      return bad("expected a non-negative integer");
    }
    instr.index_ = index;
    attr_scratch_.push_back(Attribute::Named(attr, AttrKind::kIndex));
    return absl::OkStatus();
  }
  if (known == KnownAttribute::kFrontendAttributes) {
    // Validated here; the pairs are split when first asked for.
    const char* error = nullptr;
    if (!SplitFrontendAttributes(
            v, [](absl::string_view, absl::string_view) {}, &error)) {
      return bad(error);
    }
    attr_scratch_.push_back(as_text(AttrKind::kFrontendAttributes));
    return absl::OkStatus();
  }

  // Everything else is printed back from its text; some are also read.
  if (known == KnownAttribute::kDynamicSliceSizes) {
    absl::InlinedVector<int64_t, 8> sizes;
    for (absl::string_view n : names_in(v)) {
      int64_t size = 0;
      if (!absl::SimpleAtoi(n, &size)) return bad("expected integers");
      sizes.push_back(size);
    }
    Instruction::Payload& p = instr.payload();
    p.dynamic_slice_sizes = module_->arena().CopyArray(sizes.data(), sizes.size());
    p.dynamic_slice_size_count = static_cast<uint32_t>(sizes.size());
  } else if (known == KnownAttribute::kSlice) {
    // {[a:b], [a:b:s]}
    absl::InlinedVector<Instruction::SliceDim, 4> dims;
    size_t i = 0;
    while ((i = v.find('[', i)) != absl::string_view::npos) {
      size_t close = v.find(']', i);
      if (close == absl::string_view::npos) return bad("expected ']'");
      absl::string_view range = v.substr(i + 1, close - i - 1);
      absl::InlinedVector<int64_t, 3> parts;
      size_t start = 0;
      while (start <= range.size()) {
        size_t colon = range.find(':', start);
        if (colon == absl::string_view::npos) colon = range.size();
        int64_t number = 0;
        if (!absl::SimpleAtoi(range.substr(start, colon - start), &number)) {
          return bad("expected [start:limit(:stride)]");
        }
        parts.push_back(number);
        start = colon + 1;
      }
      if (parts.size() < 2 || parts.size() > 3) {
        return bad("expected [start:limit(:stride)]");
      }
      dims.push_back({parts[0], parts[1], parts.size() == 3 ? parts[2] : 1});
      i = close + 1;
    }
    Instruction::Extra& e = instr.extra();
    e.slice_dims = module_->arena().CopyArray(dims.data(), dims.size());
    e.slice_dim_count = static_cast<uint32_t>(dims.size());
  } else if (known == KnownAttribute::kAsyncExecutionThread) {
    if (v.size() < 2 || (v.front() != '"' && v.front() != '\'')) {
      return bad("expected a string");
    }
    instr.extra().async_execution_thread = v.substr(1, v.size() - 2);
  } else if (known == KnownAttribute::kOutputToOperandAliasing) {
    // {{out}: (operand, {in}), ...}
    std::vector<Instruction::Aliasing> aliasing;
    size_t i = 1;
    while (true) {
      size_t open = v.find('{', i);
      if (open == absl::string_view::npos) break;
      size_t close = v.find('}', open);
      size_t paren = v.find('(', close);
      size_t paren_close = v.find(')', paren);
      if (close == absl::string_view::npos || paren == absl::string_view::npos ||
          paren_close == absl::string_view::npos) {
        return bad("expected {index}: (operand, {index})");
      }
      Instruction::Aliasing alias;
      for (absl::string_view n : names_in(v.substr(open, close - open + 1))) {
        int64_t x;
        if (!absl::SimpleAtoi(n, &x)) return bad("expected integers");
        alias.output.push_back(x);
      }
      absl::string_view inner = v.substr(paren + 1, paren_close - paren - 1);
      size_t comma = inner.find(',');
      if (comma == absl::string_view::npos ||
          !absl::SimpleAtoi(absl::StripAsciiWhitespace(inner.substr(0, comma)),
                            &alias.operand)) {
        return bad("expected (operand, {index})");
      }
      for (absl::string_view n : names_in(inner.substr(comma + 1))) {
        int64_t x;
        if (!absl::SimpleAtoi(n, &x)) return bad("expected integers");
        alias.operand_index.push_back(x);
      }
      aliasing.push_back(std::move(alias));
      i = paren_close + 1;
    }
    if (!aliasing.empty()) instr.rare().aliasing = std::move(aliasing);
  }
  attr_scratch_.push_back(as_text(AttrKind::kRaw));
  return absl::OkStatus();
}

size_t Parser::NamePos(const Instruction* instr) {
  size_t save = pos_;
  pos_ = instr->offset_;
  if (instr->flags_ & Instruction::kParsedAsRoot) {
    pos_ += 4;  // "ROOT"
    (void)SkipSpace();
  }
  size_t name_pos = pos_;
  pos_ = save;
  return name_pos;
}

size_t Parser::OpcodePos(const Instruction* instr) {
  size_t save = pos_;
  pos_ = NamePos(instr);
  size_t opcode_pos = pos_;
  // The instruction was read from here before: name, '=', shape.
  if (error_.ok() && instr->offset_ != Instruction::kNoOffset &&
      ParseName("an instruction name").ok() && Consume('=') &&
      ParseShapeAt(0).ok() && SkipSpace().ok()) {
    opcode_pos = pos_;
  }
  pos_ = save;
  return opcode_pos;
}

absl::Status Parser::ParseInstruction(Computation& comp) {
  RETURN_IF_ERROR(SkipSpace());
  size_t start = pos_;
  bool is_root = ConsumeWord("ROOT");
  RETURN_IF_ERROR(SkipSpace());
  size_t name_pos = pos_;
  auto name = ParseName("an instruction name");
  if (!name.ok()) return name.status();
  if (!Consume('=')) {
    if (!error_.ok()) return error_;
    if (AtEnd()) return Error("unexpected end of input, expected '='");
    return Error(absl::StrCat("expected '=' after instruction name '", *name,
                              "'"));
  }
  Instruction* instr = new (module_->arena().Allocate(
      sizeof(Instruction), alignof(Instruction))) Instruction();
  comp.instructions_.push_back(InstructionPtr(instr));
  instr->SetName(*name);
  instr->parent_ = &comp;
  instr->offset_ = static_cast<uint32_t>(is_root ? start : name_pos);
  if (is_root) instr->flags_ |= Instruction::kParsedAsRoot;
  if (body_->scope.Insert(*name, instr) != nullptr) {
    return ErrorAt(name_pos, absl::StrCat("duplicate instruction name '",
                                          *name, "' in computation '",
                                          comp.name_, "'"));
  }
  if (is_root) {
    if (body_->saw_root) {
      return ErrorAt(start, absl::StrCat("computation '", comp.name_,
                                         "' has more than one ROOT"));
    }
    body_->saw_root = true;
    comp.root_ = instr;
  }

  Shape* shape = FindSharedShape();
  if (shape == nullptr) {
    if (!error_.ok()) return error_;
    if (!LooksLikeShape()) {
      if (!error_.ok()) return error_;
      if (AtEnd()) {
        return Error("unexpected end of input, expected the instruction's shape");
      }
      size_t type_pos = pos_;
      absl::string_view word = RawIdent();
      if (!word.empty() && AtEnd()) {
        return ErrorAt(type_pos, absl::StrCat(
                                     "unexpected end of input in the shape '",
                                     word, "'"));
      }
      if (!word.empty() && Peek() == '[') {
        return ErrorAt(type_pos,
                       absl::StrCat("unknown element type '", word, "'"));
      }
      pos_ = type_pos;
      return Error("expected the instruction's shape");
    }
    auto parsed = ParseSharedShape();
    if (!parsed.ok()) return parsed.status();
    shape = *parsed;
  }
  instr->SetShape(shape, /*owned=*/false);

  RETURN_IF_ERROR(SkipSpace());
  size_t opcode_pos = pos_;
  absl::string_view spelling = RawIdent();
  if (spelling.empty()) {
    if (AtEnd()) return Error("unexpected end of input, expected an opcode");
    return Error("expected an opcode");
  }
  auto opcode = StringToHloOpcode(spelling);
  if (!opcode) {
    // Async sugar: `<op>-start`, `<op>-update`, `<op>-done`.
    static const std::pair<absl::string_view, HloOpcode> kSuffixes[] = {
        {"-start", HloOpcode::kAsyncStart},
        {"-update", HloOpcode::kAsyncUpdate},
        {"-done", HloOpcode::kAsyncDone}};
    for (const auto& [suffix, async_op] : kSuffixes) {
      if (spelling.size() > suffix.size() &&
          spelling.substr(spelling.size() - suffix.size()) == suffix &&
          StringToHloOpcode(
              spelling.substr(0, spelling.size() - suffix.size()))) {
        opcode = async_op;
      }
    }
  }
  if (!opcode) {
    if (AtEnd()) {
      return ErrorAt(opcode_pos, absl::StrCat("unexpected end of input after '",
                                              spelling, "'"));
    }
    return ErrorAt(opcode_pos, absl::StrCat("unknown opcode '", spelling, "'"));
  }
  instr->opcode_ = *opcode;
  if (spelling != HloOpcodeString(*opcode)) {
    instr->extra().opcode_spelling = spelling;
  }

  RETURN_IF_ERROR(Expect('(', "'(' after the opcode"));
  operand_scratch_.clear();
  if (instr->opcode_ == HloOpcode::kParameter) {
    size_t num_pos = pos_;
    auto number = ParseInt();
    if (!number.ok()) return number.status();
    if (*number < 0 || *number >= kMaxParameterNumber) {
      return ErrorAt(num_pos, "parameter number out of range");
    }
    instr->index_ = *number;
    RETURN_IF_ERROR(Expect(')', "')'"));
  } else if (instr->opcode_ == HloOpcode::kConstant) {
    RETURN_IF_ERROR(SkipSpace());
    // The literal: balanced text up to the matching ')'. Kept as a view when
    // it needs no normalisation.
    size_t lit_start = pos_;
    std::string literal;
    bool plain = true;  // literal == text_[lit_start, pos_)
    int depth = 0;
    while (true) {
      if (pos_ >= text_.size()) {
        return ErrorAt(lit_start, "unexpected end of input in constant literal");
      }
      char c = text_[pos_];
      if (c == '"' || c == '\'') {
        size_t s = pos_;
        if (!SkipQuoted()) return ErrorAt(s, "unterminated string");
        if (!plain) absl::StrAppend(&literal, text_.substr(s, pos_ - s));
        continue;
      }
      if (c == '\0') return Error("NUL byte in input");
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
          (c == '/' && (Peek(1) == '/' || Peek(1) == '*'))) {
        if (plain) {
          literal.assign(text_.data() + lit_start, pos_ - lit_start);
          plain = false;
        }
        if (c == '/' && Peek(1) == '*') {
          size_t end = text_.find("*/", pos_ + 2);
          if (end == absl::string_view::npos) {
            return Error("unterminated block comment");
          }
          absl::StrAppend(&literal, text_.substr(pos_, end + 2 - pos_));
          pos_ = end + 2;
          continue;
        }
        RETURN_IF_ERROR(SkipSpace());
        if (!literal.empty() && literal.back() != ' ') literal += ' ';
        continue;
      }
      if (c == '(' || c == '{' || c == '[') {
        if (++depth > kMaxDepth) {
          return Error(absl::StrCat("literal nesting deeper than ", kMaxDepth));
        }
      } else if (c == ')' || c == '}' || c == ']') {
        if (depth == 0) {
          if (c != ')') return Error("unbalanced literal");
          break;
        }
        --depth;
      }
      if (!plain) literal += c;
      ++pos_;
    }
    if (plain) {
      instr->payload().literal = text_.substr(lit_start, pos_ - lit_start);
    } else {
      while (!literal.empty() && literal.back() == ' ') literal.pop_back();
      instr->payload().literal = Keep(literal);
    }
    ++pos_;  // ')'
  } else if (!Consume(')')) {
    if (!error_.ok()) return error_;
    while (true) {
      // A typed operand: its shape is checked against the operand's once
      // the computation is read (at once when it is the operand's own
      // shared shape), then dropped.
      RETURN_IF_ERROR(SkipSpace());
      size_t typed_pos = pos_;
      const Shape* typed = FindSharedShape();
      if (typed == nullptr) {
        if (!error_.ok()) return error_;
        if (LooksLikeShape()) {
          typed_pos = pos_;
          auto operand_shape = ParseSharedShape();
          if (!operand_shape.ok()) return operand_shape.status();
          typed = *operand_shape;
        }
      }
      if (!error_.ok()) return error_;
      RETURN_IF_ERROR(SkipSpace());
      size_t operand_pos = pos_;
      auto operand = ParseName("an operand name");
      if (!operand.ok()) return operand.status();
      if (Peek() == '[') {
        return ErrorAt(operand_pos,
                       absl::StrCat("unknown element type '", *operand, "'"));
      }
      if (Next('(')) {
        return ErrorAt(operand_pos,
                       "nested instructions as operands are not supported");
      }
      if (Next('#')) {
        CompactGte gte{instr, operand_scratch_.size(), *operand, {}, {},
                       operand_pos};
        while (Next('#')) {
          ++pos_;
          RETURN_IF_ERROR(SkipSpace());
          size_t index_pos = pos_;
          if (pos_ >= text_.size() || !Is(text_[pos_], kDigit)) {
            return ErrorAt(index_pos, "expected a tuple index after '#'");
          }
          ASSIGN_OR_RETURN(int64_t index, ParseInt());
          gte.indices.push_back(index);
        }
        gte.spelling = text_.substr(operand_pos, pos_ - operand_pos);
        if (typed != nullptr) {
          body_->typed_operands.push_back(
              TypedOperand{instr, operand_scratch_.size(), typed, typed_pos});
        }
        // Its base defined later (or in another part of a parallel read):
        // the edges are checked for a cycle once the body is finished.
        if (body_->scope.Find(*operand) == nullptr) body_->needs_cycle_check = true;
        body_->compact_gtes.push_back(std::move(gte));
        operand_scratch_.push_back(nullptr);
        if (Consume(',')) continue;
        RETURN_IF_ERROR(Expect(')', "',' or ')' in the operand list"));
        break;
      }
      Instruction* def = body_->scope.Find(*operand);
      if (typed != nullptr &&
          (def == nullptr || def == instr || def->shape_ != typed)) {
        body_->typed_operands.push_back(
            TypedOperand{instr, operand_scratch_.size(), typed, typed_pos});
      }
      if (def != nullptr && def != instr) {
        operand_scratch_.push_back(def);
        // Users in first-use order, each once: a repeat can only be this
        // instruction, just added.
        if (def->users_.empty() || def->users_.back() != instr) {
          def->users_.push_back(instr);
        }
      } else {
        // Defined later (or a self reference): resolved at the end of the
        // computation.
        body_->pending_operands.push_back(PendingOperand{
            instr, operand_scratch_.size(), *operand, operand_pos});
        operand_scratch_.push_back(nullptr);
        body_->needs_cycle_check = true;
      }
      if (static_cast<int64_t>(operand_scratch_.size()) > kMaxOperands) {
        return ErrorAt(operand_pos, absl::StrCat("more than ", kMaxOperands,
                                                 " operands"));
      }
      if (Consume(',')) continue;
      RETURN_IF_ERROR(Expect(')', "',' or ')' in the operand list"));
      break;
    }
  }
  instr->operands_ = module_->arena().CopyArray(operand_scratch_.data(),
                                                operand_scratch_.size());
  instr->operand_count_ = static_cast<uint32_t>(operand_scratch_.size());
  attr_scratch_.clear();
  called_count_ = 0;
  while (Consume(',')) {
    RETURN_IF_ERROR(ParseAttribute(*instr));
  }
  if (!error_.ok()) return error_;
  if (attr_scratch_.size() > 0xffff) return Error("too many attributes");
  instr->attributes_ = module_->arena().CopyArray(attr_scratch_.data(),
                                                  attr_scratch_.size());
  instr->attribute_count_ = static_cast<uint16_t>(attr_scratch_.size());
  if (called_count_ > 0) {
    Instruction::Payload& p = instr->payload();
    p.called = module_->arena().NewArray<Computation*>(called_count_);
    p.called_count = static_cast<uint32_t>(called_count_);
  }
  comp.NoteKeyInstruction(instr);
  if (instr->opcode_ == HloOpcode::kGetTupleElement && instr->index_ < 0) {
    return ErrorAt(opcode_pos, "get-tuple-element needs an index= attribute");
  }
  if (instr->opcode_ == HloOpcode::kCustomCall) {
    bool has_target = false;
    for (const Attribute& a : instr->attributes()) {
      has_target |= a.kind() == AttrKind::kCustomCallTarget;
    }
    if (!has_target) {
      return ErrorAt(opcode_pos, "custom-call needs a custom_call_target");
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckCycles(Computation& comp) {
  // Operands and control edges, iterative DFS over the traversal marks.
  const uint32_t open = comp.NewTraversal();
  const uint32_t done = open + 1;
  std::vector<std::pair<Instruction*, size_t>> stack;
  for (const auto& owned : comp.instructions_) {
    if (owned->mark_ >= open) continue;
    stack.assign(1, {owned.get(), 0});
    owned->mark_ = open;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      absl::Span<Instruction* const> ctrl = node->control_predecessors();
      size_t n_ctrl = ctrl.size();
      if (next < n_ctrl + node->operand_count_) {
        Instruction* dep =
            next < n_ctrl ? ctrl[next] : node->operands_[next - n_ctrl];
        ++next;
        if (dep->mark_ < open) {
          dep->mark_ = open;
          stack.emplace_back(dep, 0);
        } else if (dep->mark_ == open) {
          std::vector<absl::string_view> cycle;
          bool in = false;
          for (auto& [n, unused] : stack) {
            in |= n == dep;
            if (in) cycle.push_back(n->name());
          }
          cycle.push_back(dep->name());
          return ErrorAt(NamePos(dep),
                         absl::StrCat("cycle in computation '", comp.name_,
                                      "': ", absl::StrJoin(cycle, " -> ")));
        }
        continue;
      }
      node->mark_ = done;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseComputationHead(Module& module, BodyState& body) {
  RETURN_IF_ERROR(SkipSpace());
  size_t start = pos_;
  bool is_entry = ConsumeWord("ENTRY");
  // Text without a header whose start is not a computation is most likely
  // not HLO at all: say what a module starts with.
  const bool first_without_header =
      !module.has_header_ && module.computations_.empty() && !is_entry;
  auto not_hlo = [&] {
    return ErrorAt(start,
                   "expected 'HloModule' or a computation ('name {' or "
                   "'ENTRY name {') at the start of the module");
  };
  auto name = ParseName("a computation name");
  if (!name.ok()) {
    if (!first_without_header) return name.status();
    error_ = absl::OkStatus();  // replaced by the more telling message
    return not_hlo();
  }
  auto comp = std::make_unique<Computation>();
  comp->name_ = std::string(*name);
  comp->parent_ = &module;
  comp->offset_ = static_cast<uint32_t>(start);
  if (module.computation_by_name_.contains(comp->name_)) {
    return ErrorAt(start, absl::StrCat("duplicate computation name '", *name,
                                       "'"));
  }
  // Optional signature: (p: T, ...) -> R. R must agree with the root
  // (FinishBody); the parameters are not checked.
  if (Next('(')) {
    int depth = 0;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '"' || c == '\'') {
        if (!SkipQuoted()) return Error("unterminated string");
        continue;
      }
      ++pos_;
      if (c == '(') ++depth;
      if (c == ')' && --depth == 0) break;
    }
    if (depth != 0) {
      return ErrorAt(start, "unexpected end of input in computation signature");
    }
    RETURN_IF_ERROR(SkipSpace());
    if (!(Peek() == '-' && Peek(1) == '>')) {
      return Error("expected '->' after the computation's parameters");
    }
    pos_ += 2;
    RETURN_IF_ERROR(SkipSpace());
    body.signature_result_pos = pos_;
    ASSIGN_OR_RETURN(body.signature_result, ParseShapeAt(0));
  }
  if (!error_.ok()) return error_;
  // Text without a header whose first word does not start a computation is
  // most likely not HLO at all: say what a module starts with.
  if (first_without_header && !body.signature_result.has_value() &&
      Peek() != '{') {
    return not_hlo();
  }
  RETURN_IF_ERROR(Expect('{', "'{' starting the computation body"));
  Computation* raw = comp.get();
  module.computations_.push_back(std::move(comp));
  module.computation_by_name_[raw->name_] = raw;
  if (is_entry) {
    if (module.entry_ != nullptr) {
      return ErrorAt(start, "more than one ENTRY computation");
    }
    module.entry_ = raw;
  }
  body.comp = raw;
  body.start = start;
  return absl::OkStatus();
}

absl::Status Parser::ParseBody(BodyState& body, size_t stop, bool* closed) {
  body_ = &body;
  *closed = false;
  while (true) {
    RETURN_IF_ERROR(SkipSpace());
    if (pos_ >= stop) return absl::OkStatus();
    if (Peek() == '}') {
      ++pos_;
      *closed = true;
      return absl::OkStatus();
    }
    if (AtEnd()) {
      return Error(absl::StrCat("unexpected end of input in computation '",
                                body.comp->name_, "' (missing '}')"));
    }
    RETURN_IF_ERROR(ParseInstruction(*body.comp));
  }
}

absl::Status Parser::MakeCompactGtes(
    BodyState& body, absl::Span<BodyState* const> more,
    absl::FunctionRef<Instruction*(absl::string_view)> lookup, bool* made) {
  Computation* raw = body.comp;
  // One instruction per spelling (`x#0` used twice is one get-tuple-element).
  absl::flat_hash_map<std::string, Instruction*> by_spelling;
  absl::flat_hash_set<std::string> names;
  // The new instructions to print before each user.
  absl::flat_hash_map<const Instruction*, std::vector<Instruction*>> before;
  auto make = [&](const CompactGte& use) -> absl::Status {
    Instruction* current = lookup(use.name);
    if (current == nullptr) {
      return ErrorAt(use.pos,
                     absl::StrCat("instruction does not exist: ", use.name));
    }
    std::string spelling(use.name);
    for (int64_t index : use.indices) {
      const Shape& shape = current->shape();
      if (!shape.IsTuple()) {
        return ErrorAt(use.pos,
                       absl::StrCat("GTE operand must be tuple, but has shape: ",
                                    ShapeToString(shape)));
      }
      if (index < 0 || index >= static_cast<int64_t>(shape.tuple_shapes.size())) {
        return ErrorAt(use.pos, absl::StrCat("GTE index ", index,
                                             " out of bounds for shape: ",
                                             ShapeToString(shape)));
      }
      absl::StrAppend(&spelling, "#", index);
      auto [it, inserted] = by_spelling.try_emplace(spelling, nullptr);
      if (inserted) {
        Instruction* gte = new (module_->arena().Allocate(
            sizeof(Instruction), alignof(Instruction))) Instruction();
        std::string name = spelling;
        std::replace(name.begin(), name.end(), '#', '_');
        // Unique in the computation, as XLA's name uniquer makes it.
        std::string unique = name;
        for (int n = 1; lookup(unique) != nullptr || names.contains(unique); ++n) {
          unique = absl::StrCat(name, ".", n);
        }
        names.insert(unique);
        gte->SetName(module_->arena().CopyString(unique));
        gte->SetShape(module_->InternShape(shape.tuple_shapes[index]),
                      /*owned=*/false);
        gte->opcode_ = HloOpcode::kGetTupleElement;
        gte->parent_ = raw;
        InstructionBuilder::SetTupleIndex(gte, index);
        gte->offset_ = use.instr->offset_;
        Instruction* operand[] = {current};
        gte->operands_ = module_->arena().CopyArray(operand, 1);
        gte->operand_count_ = 1;
        before[use.instr].push_back(gte);
        it->second = gte;
      }
      current = it->second;
    }
    use.instr->operands_[use.index] = current;
    return absl::OkStatus();
  };
  for (const CompactGte& use : body.compact_gtes) RETURN_IF_ERROR(make(use));
  for (BodyState* part : more) {
    for (const CompactGte& use : part->compact_gtes) RETURN_IF_ERROR(make(use));
  }
  if (before.empty()) return absl::OkStatus();
  std::vector<InstructionPtr> ordered;
  ordered.reserve(raw->instructions_.size() + by_spelling.size());
  for (InstructionPtr& owned : raw->instructions_) {
    auto it = before.find(owned.get());
    if (it != before.end()) {
      for (Instruction* gte : it->second) ordered.push_back(InstructionPtr(gte));
    }
    ordered.push_back(std::move(owned));
  }
  raw->instructions_ = std::move(ordered);
  *made = true;
  return absl::OkStatus();
}

absl::Status Parser::FinishBody(BodyState& body,
                                absl::Span<BodyState* const> more) {
  Computation* raw = body.comp;
  // Parts read by other threads: their instructions join the computation,
  // in text order.
  int roots = body.saw_root ? 1 : 0;
  for (BodyState* part : more) {
    for (auto& owned : part->comp->instructions_) {
      owned->parent_ = raw;
      raw->instructions_.push_back(std::move(owned));
    }
    part->comp->instructions_.clear();
    for (Instruction* key : part->comp->key_instructions_) {
      raw->key_instructions_.push_back(key);
    }
    part->comp->key_instructions_.clear();
    if (part->saw_root) {
      ++roots;
      raw->root_ = part->comp->root_;
    }
  }
  if (roots > 1) return absl::InvalidArgumentError("more than one ROOT");
  if (raw->instructions_.empty()) {
    return ErrorAt(body.start, absl::StrCat("computation '", raw->name_,
                                            "' has no instructions"));
  }
  if (raw->root_ == nullptr) raw->root_ = raw->instructions_.back().get();
  // Names are looked up in every part; a name defined in two parts is the
  // duplicate a sequential read reports.
  auto lookup = [&](absl::string_view name) -> Instruction* {
    if (Instruction* found = body.scope.Find(name)) return found;
    for (BodyState* part : more) {
      if (Instruction* found = part->scope.Find(name)) return found;
    }
    return nullptr;
  };
  for (size_t k = 0; k < more.size(); ++k) {
    bool duplicate = false;
    more[k]->scope.ForEach([&](const Instruction* instr) {
      if (duplicate) return;
      duplicate = body.scope.Find(instr->name()) != nullptr;
      for (size_t e = 0; e < k && !duplicate; ++e) {
        duplicate = more[e]->scope.Find(instr->name()) != nullptr;
      }
    });
    if (duplicate) {
      return absl::InvalidArgumentError("duplicate instruction name");
    }
  }
  // Operands defined after their use (or, between parts, in another part).
  bool resolved_any = false;
  bool needs_cycle_check = body.needs_cycle_check;
  auto resolve = [&](const BodyState& part) -> absl::Status {
    for (const PendingOperand& p : part.pending_operands) {
      Instruction* def = lookup(p.name);
      if (def == nullptr) {
        return ErrorAt(p.pos, absl::StrCat("use of undefined instruction '",
                                           p.name, "' in computation '",
                                           raw->name_, "'"));
      }
      p.instr->operands_[p.index] = def;
      resolved_any = true;
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(resolve(body));
  for (BodyState* part : more) {
    RETURN_IF_ERROR(resolve(*part));
    // A reference across parts may point forward: check for cycles.
    needs_cycle_check |= !part->pending_operands.empty() ||
                         part->needs_cycle_check;
  }
  RETURN_IF_ERROR(MakeCompactGtes(body, more, lookup, &resolved_any));
  if (resolved_any) {
    // Users in first-use order: rebuild them in text order.
    for (const auto& instr : raw->instructions_) instr->users_.clear();
    for (const auto& instr : raw->instructions_) {
      for (Instruction* op : instr->operands()) {
        if (op->users_.empty() || op->users_.back() != instr.get()) {
          op->users_.push_back(instr.get());
        }
      }
    }
  }
  // Written operand shapes, in text order.
  auto check_typed = [&](const BodyState& part) -> absl::Status {
    for (const TypedOperand& t : part.typed_operands) {
      const Instruction* operand = t.instr->operands_[t.index];
      if (operand->shape_ == t.shape ||
          shape_util::Compatible(*t.shape, operand->shape())) {
        continue;
      }
      return ErrorAt(t.pos, absl::StrCat("operand ", t.index, " is written as ",
                                         ShapeToString(*t.shape), " but '",
                                         operand->name(), "' has shape ",
                                         ShapeToString(operand->shape())));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(check_typed(body));
  for (BodyState* part : more) {
    RETURN_IF_ERROR(check_typed(*part));
  }
  auto resolve_control = [&](const BodyState& part) -> absl::Status {
    for (const PendingOperand& p : part.pending_control) {
      Instruction* def = lookup(p.name);
      if (def == nullptr) {
        return ErrorAt(p.pos, absl::StrCat("undefined control predecessor '",
                                           p.name, "'"));
      }
      p.instr->rare().control_predecessors.push_back(def);
      def->rare().control_successors.push_back(p.instr);
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(resolve_control(body));
  for (BodyState* part : more) {
    RETURN_IF_ERROR(resolve_control(*part));
  }
  // Parameters: numbers 0..n-1, each once.
  int64_t num_params = 0;
  for (const auto& instr : raw->instructions_) {
    num_params += instr->opcode_ == HloOpcode::kParameter;
  }
  std::vector<Instruction*> params(num_params, nullptr);
  for (const auto& instr : raw->instructions_) {
    if (instr->opcode_ != HloOpcode::kParameter) continue;
    int64_t n = instr->index_;
    // Numbers are 0..n-1, so the table never grows past the instructions.
    if (n >= num_params) {
      return ErrorAt(NamePos(instr.get()),
                     absl::StrCat("parameter number ", n, " in computation '",
                                  raw->name_, "', which has ", num_params,
                                  " parameter", num_params == 1 ? "" : "s"));
    }
    if (params[n] != nullptr) {
      return ErrorAt(NamePos(instr.get()),
                     absl::StrCat("duplicate parameter number ", n,
                                  " in computation '", raw->name_, "'"));
    }
    params[n] = instr.get();
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] == nullptr) {
      return ErrorAt(body.start, absl::StrCat("computation '", raw->name_,
                                              "' has no parameter(", i, ")"));
    }
  }
  raw->params_ = std::move(params);
  // Without forward references or control edges every edge points to an
  // earlier instruction: no cycle is possible.
  if (needs_cycle_check) {
    RETURN_IF_ERROR(CheckCycles(*raw));
  }
  if (body.signature_result.has_value() &&
      !shape_util::Compatible(raw->root_->shape(), *body.signature_result)) {
    return ErrorAt(
        body.signature_result_pos,
        absl::StrCat("Shape of computation ", raw->name_, ", ",
                     ShapeToString(*body.signature_result, /*print_layout=*/false),
                     ", is not compatible with that of its root instruction ",
                     raw->root_->name(), ", ",
                     ShapeToString(raw->root_->shape(), /*print_layout=*/false)));
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseExecutionThread(Computation& comp) {
  // Optional `, execution_thread="host"` after the closing brace.
  size_t save = pos_;
  if (Consume(',')) {
    RETURN_IF_ERROR(SkipSpace());
    absl::string_view attr = RawIdent();
    if (attr != "execution_thread" || !Consume('=')) {
      if (!error_.ok()) return error_;
      pos_ = save;
      return Error("expected execution_thread= after ','");
    }
    ASSIGN_OR_RETURN(comp.execution_thread_, ParseString());
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseComputation(Module& module) {
  BodyState body;
  RETURN_IF_ERROR(ParseComputationHead(module, body));
  bool closed = false;
  RETURN_IF_ERROR(ParseBody(body, absl::string_view::npos, &closed));
  RETURN_IF_ERROR(FinishBody(body, {}));
  return ParseExecutionThread(*body.comp);
}

absl::Status Parser::ParseRange(Module& module, size_t stop,
                                RangeResult& result) {
  result.tail.reset();
  std::unique_ptr<BodyState> begun;  // a computation begun in this range
  BodyState* body = result.continuation.get();
  if (body != nullptr) {
    RETURN_IF_ERROR(SkipSpace());
    result.first_item_pos = pos_;
  }
  while (true) {
    if (body != nullptr) {
      bool closed = false;
      RETURN_IF_ERROR(ParseBody(*body, stop, &closed));
      if (!closed) {
        result.final_pos = pos_;
        result.ends_in_body = true;
        result.tail = std::move(begun);
        return absl::OkStatus();
      }
      if (body == result.continuation.get()) {
        // The end of a computation begun in an earlier range: finished when
        // the ranges are merged.
        result.continuation_closed = true;
      } else {
        RETURN_IF_ERROR(FinishBody(*body, {}));
      }
      RETURN_IF_ERROR(ParseExecutionThread(*body->comp));
      begun.reset();
      body = nullptr;
      continue;
    }
    RETURN_IF_ERROR(SkipSpace());
    if (AtEnd() || pos_ >= stop) {
      result.final_pos = pos_;
      result.ends_in_body = false;
      return absl::OkStatus();
    }
    if (text_.substr(pos_, 9) == "HloModule" && !IsIdentChar(Peek(9))) {
      return Error(
          "a second 'HloModule' header: this file holds several modules; "
          "split it with --split-input-file (separator lines '// -----')");
    }
    begun = std::make_unique<BodyState>();
    RETURN_IF_ERROR(ParseComputationHead(module, *begun));
    body = begun.get();
  }
}

absl::Status Parser::BuildWrappedComputations(Module& module) {
  std::vector<std::unique_ptr<Computation>> wrapped;
  // A shape of the module, given default layouts with the others in Finish.
  auto shape_of = [&](const Shape& shape) {
    module.shapes_.push_back(std::make_unique<Shape>(shape));
    return module.shapes_.back().get();
  };
  for (const auto& comp : module.computations_) {
    // Async starts are key instructions, listed in text order.
    for (Instruction* start : comp->key_instructions_) {
      if (start->opcode_ != HloOpcode::kAsyncStart ||
          !start->called_computations().empty()) {
        continue;
      }
      absl::string_view spelling = start->opcode_spelling();
      constexpr absl::string_view kStart = "-start";
      std::optional<HloOpcode> wrapped_opcode;
      if (spelling.size() > kStart.size()) {
        wrapped_opcode =
            StringToHloOpcode(spelling.substr(0, spelling.size() - kStart.size()));
      }
      const Shape& shape = start->shape();
      if (!wrapped_opcode || !shape.IsTuple() || shape.tuple_shapes.size() < 2 ||
          !shape.tuple_shapes[0].IsTuple() ||
          shape.tuple_shapes[0].tuple_shapes.size() !=
              static_cast<size_t>(start->operand_count())) {
        return ErrorAt(NamePos(start),
                       absl::StrCat("'", start->name(), "': the shape of ",
                                    spelling, " must be ((operand shapes...), "
                                    "result shape, context...)"));
      }
      auto comp_owned = std::make_unique<Computation>();
      Computation* body = comp_owned.get();
      body->name_ = absl::StrCat(start->name(), ".wrapped_computation");
      body->parent_ = &module;
      body->synthesized_ = true;
      body->execution_thread_ = std::string(start->async_execution_thread());
      // The instructions report the place of the start.
      auto add = [&](absl::string_view name, const Shape& shape) {
        Instruction* instr = module.NewInstruction();
        body->instructions_.push_back(InstructionPtr(instr));
        instr->SetName(module.arena().CopyString(name));
        instr->SetShape(shape_of(shape), /*owned=*/false);
        instr->parent_ = body;
        instr->offset_ = start->offset_;
        instr->flags_ |= start->flags_ & Instruction::kParsedAsRoot;
        return instr;
      };
      std::vector<Instruction*> params;
      for (int64_t i = 0; i < start->operand_count(); ++i) {
        Instruction* param = add(absl::StrCat("param_", i),
                                 shape.tuple_shapes[0].tuple_shapes[i]);
        param->opcode_ = HloOpcode::kParameter;
        param->index_ = i;
        body->NoteKeyInstruction(param);
        params.push_back(param);
      }
      Instruction* root =
          add(absl::StrCat(start->name(), ".wrapped"), shape.tuple_shapes[1]);
      InstructionBuilder::CopyAttributes(*start, root);
      root->opcode_ = *wrapped_opcode;
      if (root->payload_ != nullptr && root->payload_->extra != nullptr) {
        root->payload_->extra->opcode_spelling = {};
      }
      root->operands_ = module.arena().CopyArray(params.data(), params.size());
      root->operand_count_ = static_cast<uint32_t>(params.size());
      for (Instruction* p : params) p->users_.push_back(root);
      body->NoteKeyInstruction(root);
      body->root_ = root;
      body->params_ = params;
      Instruction::Payload& p = start->payload();
      p.called = module.arena().NewArray<Computation*>(1);
      p.called[0] = body;
      p.called_count = 1;
      wrapped.push_back(std::move(comp_owned));
    }
  }
  for (auto& comp : wrapped) module.computations_.push_back(std::move(comp));
  return absl::OkStatus();
}

absl::Status Parser::Finish(Module& module) {
  if (module.computations_.empty()) {
    return Error("the module has no computations");
  }
  if (module.entry_ == nullptr) module.entry_ = module.computations_.back().get();
  if (!module.has_header_) {
    module.name_ = absl::StrCat("module_", module.entry_->name_);
  }
  for (const PendingCall& call : pending_calls_) {
    Computation* callee = module.FindComputation(call.name);
    if (callee == nullptr) {
      return ErrorAt(call.pos, absl::StrCat("use of undefined computation '",
                                            call.name, "'"));
    }
    call.instr->payload_->called[call.index] = callee;
  }
  RETURN_IF_ERROR(BuildWrappedComputations(module));
  // The verifier's rules (ir/verifier.h), after the one normalization they
  // depend on: a predicate conditional's branches in [true, false] order.
  for (const auto& comp : module.computations_) {
    for (const auto& owned : comp->instructions_) {
      Instruction* instr = owned.get();
      if (instr->opcode_ == HloOpcode::kConditional) {
        Attribute::Called* t = nullptr;
        Attribute::Called* f = nullptr;
        for (const Attribute& a : instr->attributes()) {
          if (a.kind() != AttrKind::kCalledComputations) continue;
          auto* called = static_cast<Attribute::Called*>(
              const_cast<void*>(a.data_));
          if (a.name() == "true_computation") t = called;
          if (a.name() == "false_computation") f = called;
        }
        if (t != nullptr && f != nullptr && t->first > f->first) {
          std::swap(instr->payload_->called[t->first],
                    instr->payload_->called[f->first]);
          std::swap(t->first, f->first);
        }
      }
      if (auto error = VerifyInstruction(*instr)) {
        return ErrorAt(error->site == VerifierSite::kOpcode ? OpcodePos(instr)
                                                            : NamePos(instr),
                       error->message);
      }
    }
  }
  // Recursion check over the call graph (iterative DFS).
  {
    absl::flat_hash_map<const Computation*, uint8_t> state;
    auto callees = [](const Computation* c) {
      std::vector<Computation*> out;
      for (const Instruction* instr : c->key_instructions_) {
        for (Computation* callee : instr->called_computations()) {
          out.push_back(callee);
        }
      }
      return out;
    };
    for (const auto& comp : module.computations_) {
      if (state.contains(comp.get())) continue;
      std::vector<std::pair<const Computation*, std::vector<Computation*>>>
          stack;
      stack.emplace_back(comp.get(), callees(comp.get()));
      state[comp.get()] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (!next.empty()) {
          Computation* callee = next.back();
          next.pop_back();
          auto it = state.find(callee);
          if (it == state.end()) {
            state[callee] = 1;
            stack.emplace_back(callee, callees(callee));
          } else if (it->second == 1) {
            return ErrorAt(callee->offset_,
                           absl::StrCat("computation '", callee->name_,
                                        "' calls itself (directly or through "
                                        "other computations)"));
          }
          continue;
        }
        state[node] = 2;
        stack.pop_back();
      }
    }
  }
  // Arrays without a layout get the default one, as XLA's parser does (on
  // each shape once: instructions share them).
  for (auto& shape : module.shapes_) {
    shape_util::SetDefaultLayoutsWhereMissing(*shape);
  }
  EntryComputationLayout& layout = module.entry_layout_;
  Computation* entry = module.entry_;
  if (layout.from_header) {
    for (Shape& s : layout.parameters) shape_util::SetDefaultLayoutsWhereMissing(s);
    shape_util::SetDefaultLayoutsWhereMissing(layout.result);
    if (layout.parameters.size() != entry->params_.size()) {
      return ErrorAt(entry->offset_,
                     absl::StrCat("entry_computation_layout has ",
                                  layout.parameters.size(),
                                  " parameters but the entry computation '",
                                  entry->name_, "' has ",
                                  entry->params_.size()));
    }
    for (size_t i = 0; i < layout.parameters.size(); ++i) {
      if (!shape_util::Compatible(layout.parameters[i],
                                  entry->params_[i]->shape())) {
        return ErrorAt(NamePos(entry->params_[i]),
                       absl::StrCat("parameter ", i, " has shape ",
                                    ShapeToString(entry->params_[i]->shape()),
                                    " but entry_computation_layout says ",
                                    ShapeToString(layout.parameters[i])));
      }
    }
    if (!shape_util::Compatible(layout.result, entry->root_->shape())) {
      return ErrorAt(NamePos(entry->root_),
                     absl::StrCat("the entry root has shape ",
                                  ShapeToString(entry->root_->shape()),
                                  " but entry_computation_layout says ",
                                  ShapeToString(layout.result)));
    }
  } else {
    for (Instruction* param : entry->params_) {
      layout.parameters.push_back(param->shape());
    }
    layout.result = entry->root_->shape();
  }
  return absl::OkStatus();
}

absl::Status Parser::ParseModuleStart(Module& module,
                                      std::shared_ptr<const TextBuffer> buffer) {
  if (text_.size() > kMaxInputBytes) return InputTooLarge(options_);
  // Control bytes early on mean the input is not text at all; a NUL byte
  // anywhere is an error (XLA's lexer rejects it).
  for (size_t i = 0; i < std::min<size_t>(text_.size(), 4096); ++i) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if ((c < 0x20 && c != 0 && c != '\n' && c != '\r' && c != '\t' &&
         c != '\f' && c != '\v') ||
        c == 0x7f) {
      show_source_line_ = false;
      return ErrorAt(0, absl::StrCat("the input is not HLO text (binary data: "
                                     "byte 0x",
                                     absl::Hex(c, absl::kZeroPad2),
                                     " at offset ", i, ")"));
    }
  }
  size_t nul = text_.find('\0');
  if (nul != absl::string_view::npos) {
    return ErrorAt(nul, "NUL byte in input (is this a binary file?)");
  }
  module_ = &module;
  module.buffers_.push_back(std::move(buffer));
  module.source_text_ = text_;
  module.source_path_ = options_.path;
  module.line_offset_ = options_.line_offset;
  RETURN_IF_ERROR(SkipSpace());
  if (AtEnd()) return Error("the input is empty: expected an HLO module");
  if (ConsumeWord("HloModule")) {
    RETURN_IF_ERROR(ParseHeader(module));
    RETURN_IF_ERROR(ParseStackFrames(module));
  } else {
    module.has_header_ = false;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModule(
    std::shared_ptr<const TextBuffer> buffer) {
  auto module = std::make_unique<Module>();
  RETURN_IF_ERROR(ParseModuleStart(*module, std::move(buffer)));
  while (true) {
    RETURN_IF_ERROR(SkipSpace());
    if (AtEnd()) break;
    if (text_.substr(pos_, 9) == "HloModule" && !IsIdentChar(Peek(9))) {
      return Error(
          "a second 'HloModule' header: this file holds several modules; "
          "split it with --split-input-file (separator lines '// -----')");
    }
    RETURN_IF_ERROR(ParseComputation(*module));
  }
  RETURN_IF_ERROR(Finish(*module));
  return module;
}

std::vector<size_t> Parser::SplitPoints(size_t from, int ranges) const {
  std::vector<size_t> splits;
  const size_t n = text_.size();
  size_t last = from;
  for (int k = 1; k < ranges; ++k) {
    size_t p = std::max(last + 1, from + (n - from) / ranges * k);
    // The start of a line that starts an instruction: "\n  name".
    while (true) {
      p = text_.find("\n  ", p);
      if (p == absl::string_view::npos || p + 3 >= n) return splits;
      char c = text_[p + 3];
      if (c == '%' || Is(c, kIdentStart)) break;
      ++p;
    }
    last = p + 1;
    splits.push_back(last);
  }
  return splits;
}

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModuleInParallel(
    std::shared_ptr<const TextBuffer> buffer, int threads, int* used) {
  auto module = std::make_unique<Module>();
  RETURN_IF_ERROR(ParseModuleStart(*module, std::move(buffer)));
  RETURN_IF_ERROR(SkipSpace());
  std::vector<size_t> splits = SplitPoints(pos_, threads);
  const size_t ranges = splits.size() + 1;
  *used = static_cast<int>(ranges);
  std::vector<RangeResult> results(ranges);
  std::vector<std::thread> workers;
  for (size_t k = 1; k < ranges; ++k) {
    RangeResult& r = results[k];
    r.module = std::make_unique<Module>();
    r.placeholder = std::make_unique<Computation>();
    r.placeholder->parent_ = r.module.get();
    r.continuation = std::make_unique<BodyState>();
    r.continuation->comp = r.placeholder.get();
    r.continuation->start = splits[k - 1];
    size_t stop = k + 1 < ranges ? splits[k] : absl::string_view::npos;
    workers.emplace_back([this, &r, start = splits[k - 1], stop] {
      Parser parser(text_, options_);
      parser.module_ = r.module.get();
      parser.pos_ = start;
      r.status = parser.ParseRange(*r.module, stop, r);
      r.pending_calls = std::move(parser.pending_calls_);
    });
  }
  results[0].status = ParseRange(*module, ranges > 1 ? splits[0]
                                                     : absl::string_view::npos,
                                 results[0]);
  for (std::thread& t : workers) t.join();

  // The ranges fit when each ended inside a body exactly where the next one
  // started reading; then the text was read as one sequential pass reads it.
  auto mismatch = absl::InvalidArgumentError("ranges do not fit");
  for (size_t k = 0; k < ranges; ++k) {
    if (!results[k].status.ok()) return results[k].status;
    bool last = k + 1 == ranges;
    if (last ? results[k].ends_in_body
             : !results[k].ends_in_body ||
                   results[k].final_pos != results[k + 1].first_item_pos) {
      return mismatch;
    }
  }
  // Computations begun in later ranges join the module, in text order.
  for (size_t k = 1; k < ranges; ++k) {
    Module& part = *results[k].module;
    for (auto& comp : part.computations_) {
      if (module->computation_by_name_.contains(comp->name_)) return mismatch;
      comp->parent_ = module.get();
      module->computation_by_name_[comp->name_] = comp.get();
      module->computations_.push_back(std::move(comp));
    }
    if (part.entry_ != nullptr) {
      if (module->entry_ != nullptr) return mismatch;
      module->entry_ = part.entry_;
    }
    for (auto& shape : part.shapes_) module->shapes_.push_back(std::move(shape));
    module->adopted_arenas_.push_back(
        std::make_unique<Arena>(std::move(part.arena_)));
    for (const PendingCall& call : results[k].pending_calls) {
      pending_calls_.push_back(call);
    }
  }
  // Computations read by several ranges are finished whole.
  BodyState* open = results[0].tail.get();
  std::vector<BodyState*> parts;
  for (size_t k = 1; k < ranges; ++k) {
    if (open == nullptr) return mismatch;
    parts.push_back(results[k].continuation.get());
    if (!results[k].continuation_closed) {
      if (results[k].tail != nullptr) return mismatch;
      continue;
    }
    open->comp->execution_thread_ = results[k].placeholder->execution_thread_;
    RETURN_IF_ERROR(FinishBody(*open, parts));
    parts.clear();
    open = results[k].tail.get();
  }
  if (open != nullptr) return mismatch;
  RETURN_IF_ERROR(Finish(*module));
  return module;
}

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(
    absl::string_view text, const ParseOptions& options) {
  // Refused before it is copied (or read at all).
  if (text.size() > kMaxInputBytes) return InputTooLarge(options);
  // The module's names point into the text: keep a copy with it.
  std::shared_ptr<const TextBuffer> buffer =
      TextBuffer::FromString(std::string(text));
  absl::string_view copy = buffer->text();
  return ParseHloModule(std::move(buffer), copy, options);
}

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(
    std::shared_ptr<const TextBuffer> buffer, absl::string_view text,
    const ParseOptions& options) {
  // Large inputs are read by several threads, each from a line that starts
  // an instruction; the result is what one thread reads. Anything unusual
  // (an error, ranges that do not fit) makes a sequential read decide.
  if (text.size() > kMaxInputBytes) return InputTooLarge(options);
  size_t per_thread = std::max<size_t>(1, options.min_bytes_per_thread);
  int threads = static_cast<int>(
      std::min<size_t>(std::max(options.threads, 1), text.size() / per_thread));
  if (options.threads_used != nullptr) *options.threads_used = 1;
  if (threads > 1) {
    Parser parser(text, options);
    int used = 0;
    auto module = parser.ParseModuleInParallel(buffer, threads, &used);
    if (module.ok()) {
      if (options.threads_used != nullptr) *options.threads_used = used;
      return module;
    }
  }
  Parser parser(text, options);
  return parser.ParseModule(std::move(buffer));
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  Parser parser(text, ParseOptions{"<shape>", 0});
  return parser.ParseStandaloneShape();
}

}  // namespace hloff
