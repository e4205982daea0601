// HLO text parser. A character-level recursive-descent parser over one buffer:
// whitespace and comments are skipped between tokens, attribute values that
// no pass interprets are captured as balanced text, and all recursion is
// bounded by kMaxDepth so that hostile input cannot exhaust the stack.
#include "text/parser.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace hloff {

constexpr int kMaxDepth = kMaxNestingDepth;

bool IsIdentStart(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsIdentChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-';
}

class Parser {
 public:
  Parser(absl::string_view text, const ParseOptions& options)
      : text_(text), options_(options) {}

  absl::StatusOr<std::unique_ptr<Module>> ParseModule();
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
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
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
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      ++pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  // A name, with or without `%`. Empty on failure (error set).
  absl::StatusOr<absl::string_view> ParseName(absl::string_view what) {
    if (auto s = SkipSpace(); !s.ok()) return s;
    size_t start = pos_;
    bool percent = Peek() == '%';
    if (percent) ++pos_;
    if (percent) {
      // After `%` XLA accepts any identifier characters, digits first too.
      size_t s = pos_;
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
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
    if (auto s = SkipSpace(); !s.ok()) return s;
    size_t start = pos_;
    bool negative = false;
    if (Peek() == '-') {
      negative = true;
      ++pos_;
    }
    size_t digits = pos_;
    while (pos_ < text_.size() &&
           absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    if (pos_ == digits) {
      pos_ = start;
      if (AtEnd()) return Error("unexpected end of input, expected an integer");
      return Error("expected an integer");
    }
    absl::string_view num = text_.substr(digits, pos_ - digits);
    uint64_t value = 0;
    if (!absl::SimpleAtoi(num, &value)) {
      return ErrorAt(start, "integer out of range");
    }
    if (negative) {
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1) {
        return ErrorAt(start, "integer out of range");
      }
      return static_cast<int64_t>(0 - value);
    }
    return static_cast<int64_t>(value);
  }
  // A quoted string ('"' or '\''), returned with C escapes resolved.
  absl::StatusOr<std::string> ParseString() {
    if (auto s = SkipSpace(); !s.ok()) return s;
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
  // Skips a quoted string starting at pos_ (raw scan). Returns false if
  // unterminated.
  bool SkipQuoted() {
    char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }

  // Captures an attribute value as balanced text, whitespace outside strings
  // collapsed to one space and `//` comments dropped. Stops at a top-level
  // `,`, an unbalanced closer, or top-level whitespace not followed by `{`.
  absl::StatusOr<std::string> ParseRawValue(size_t* value_start = nullptr,
                                            absl::string_view attr = {}) {
    std::string expected =
        attr.empty() ? std::string("an attribute value")
                     : absl::StrCat("a value for attribute '", attr, "'");
    size_t value_pos = pos_;
    if (auto s = SkipSpace(); !s.ok()) return s;
    size_t start = pos_;
    if (value_start != nullptr) *value_start = start;
    if (AtEnd()) {
      return ErrorAt(value_pos, absl::StrCat("unexpected end of input, expected ", expected));
    }
    // A value never starts a new instruction: `x=` at the end of a line
    // followed by `ROOT y = ...` or `y = ...` is a missing value.
    if (start > value_pos && StartsInstruction(start)) {
      return ErrorAt(value_pos, absl::StrCat("expected ", expected));
    }
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
        if (auto s = SkipSpace(); !s.ok()) return s;
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
    if (out.empty()) return ErrorAt(value_pos, absl::StrCat("expected ", expected));
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
    bool is_type = !ident.empty() && ParsePrimitiveType(ident).has_value() &&
                   Peek() == '[';
    pos_ = save;
    return is_type;
  }

  // ---- module pieces ----
  absl::Status ParseHeader(Module& module);
  absl::Status ParseEntryLayout(Module& module);
  absl::Status ParseStackFrames(Module& module);
  absl::Status ParseComputation(Module& module);
  absl::Status ParseInstruction(Computation& comp, bool& saw_root);
  absl::Status ParseAttribute(Instruction& instr);
  absl::Status Finish(Module& module);
  // The shapes that flow unchanged through `instr` agree, ignoring layouts
  // (XLA's HloVerifier demands the same): get-tuple-element and its tuple
  // element, tuple and its operands, copy / opt-barrier / dynamic-update-slice
  // and their operand, while / call / conditional and their computations'
  // parameters and roots. The passes forward layouts and memory spaces along
  // these edges, and a mismatch made them write a layout of one rank onto a
  // shape of another. Runs after the structural checks of Finish.
  absl::Status CheckForwardedShapes(const Instruction& instr);

  absl::string_view text_;
  ParseOptions options_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
  size_t lines_scanned_to_ = 0;  // line_starts_ is complete below this
  absl::Status error_;
  bool show_source_line_ = true;  // false for binary input

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
    std::string name;
    size_t pos;
  };
  std::vector<PendingCall> pending_calls_;
  // Per computation while parsing.
  absl::flat_hash_map<absl::string_view, Instruction*> scope_;
  std::vector<PendingOperand> pending_operands_;
  std::vector<PendingOperand> pending_control_;
  // Operand shapes written in the text (`add(f32[4]{0} a, ...)`), checked
  // against the operands' own shapes once names are resolved.
  struct TypedOperand {
    Instruction* instr;
    size_t index;
    Shape shape;
    size_t pos;
  };
  std::vector<TypedOperand> typed_operands_;
  absl::flat_hash_map<const Instruction*, size_t> def_pos_;
  absl::flat_hash_map<const Instruction*, size_t> opcode_pos_;
  absl::flat_hash_map<const Computation*, size_t> comp_pos_;
  // Owned storage for names read out of attribute values.
  std::vector<std::unique_ptr<std::string>> new_names_;
};

absl::StatusOr<Shape> Parser::ParseShapeAt(int depth) {
  if (depth >= kMaxDepth) {
    return Error(absl::StrCat("shape nesting deeper than ", kMaxDepth));
  }
  if (auto s = SkipSpace(); !s.ok()) return s;
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
      if (auto s = Expect(')', "',' or ')' in tuple shape"); !s.ok()) return s;
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
      if (auto s = SkipSpace(); !s.ok()) return s;
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
      if (auto s = Expect(']', "',' or ']' in dimensions"); !s.ok()) return s;
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
  if (auto s = SkipSpace(); !s.ok()) return s;
  if (Peek() == '{') {
    size_t brace = pos_;
    ++pos_;
    if (auto s = SkipSpace(); !s.ok()) return s;
    char c = Peek();
    pos_ = brace;
    if (absl::ascii_isdigit(static_cast<unsigned char>(c)) || c == ':' ||
        (c == '}' && shape.dimensions.empty())) {
      if (!shape.IsArray()) return Error("token and opaque shapes have no layout");
      if (auto s = ParseLayout(shape); !s.ok()) return s;
      if (auto s = CheckArraySize(shape, start); !s.ok()) return s;
      return shape;
    }
  }
  pos_ = save;
  if (auto s = CheckArraySize(shape, start); !s.ok()) return s;
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
      if (auto s = SkipSpace(); !s.ok()) return s;
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
        if (auto s = Expect('(', "'('"); !s.ok()) return s;
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
          if (auto st = paren_body(ignored); !st.ok()) return st;
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
          if (auto s = Expect(')', "')' in tile"); !s.ok()) return s;
          layout.tiles.push_back(std::move(tile));
        }
      } else if (c == 'S') {
        ++pos_;
        if (auto s = paren_int(layout.memory_space); !s.ok()) return s;
      } else if (c == 'E') {
        ++pos_;
        if (auto s = paren_int(layout.element_size_in_bits); !s.ok()) return s;
      } else if (c == 'L') {
        ++pos_;
        if (auto s = paren_int(layout.tail_padding_alignment); !s.ok()) return s;
      } else if (c == 'M') {
        ++pos_;
        if (auto s = paren_int(layout.dynamic_shape_metadata_prefix_bytes);
            !s.ok()) {
          return s;
        }
      } else if (c == 'D') {
        ++pos_;
        if (auto s = paren_body(layout.dim_level_types); !s.ok()) return s;
      } else if (c == 'P') {
        ++pos_;
        if (auto s = paren_body(layout.physical_shape); !s.ok()) return s;
      } else if (c == '#') {
        ++pos_;
        if (auto s = paren_body(layout.index_primitive_type); !s.ok()) return s;
      } else if (c == '*') {
        ++pos_;
        if (auto s = paren_body(layout.pointer_primitive_type); !s.ok()) return s;
      } else {
        if (AtEnd()) return Error("unexpected end of input in layout");
        return Error("unexpected character in layout");
      }
    }
  }
  if (auto s = Expect('}', "'}' closing the layout"); !s.ok()) return s;
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
  auto shape = ParseShapeAt(0);
  if (!shape.ok()) return shape.status();
  if (auto s = SkipSpace(); !s.ok()) return s;
  if (!AtEnd()) return Error("unexpected text after shape");
  return shape;
}

absl::Status Parser::ParseEntryLayout(Module& module) {
  EntryComputationLayout& layout = module.entry_layout_;
  layout.from_header = true;
  if (auto s = Expect('{', "'{' starting entry_computation_layout"); !s.ok()) {
    return s;
  }
  if (auto s = Expect('(', "'(' starting the parameter layouts"); !s.ok()) {
    return s;
  }
  if (!Consume(')')) {
    if (!error_.ok()) return error_;
    while (true) {
      auto shape = ParseShapeAt(0);
      if (!shape.ok()) return shape.status();
      layout.parameters.push_back(std::move(*shape));
      if (Consume(',')) continue;
      if (auto s = Expect(')', "',' or ')'"); !s.ok()) return s;
      break;
    }
  }
  if (auto s = SkipSpace(); !s.ok()) return s;
  if (!(Peek() == '-' && Peek(1) == '>')) return Error("expected '->'");
  pos_ += 2;
  auto result = ParseShapeAt(0);
  if (!result.ok()) return result.status();
  layout.result = std::move(*result);
  return Expect('}', "'}' closing entry_computation_layout");
}

absl::Status Parser::ParseHeader(Module& module) {
  auto name = ParseName("a module name");
  if (!name.ok()) return name.status();
  module.name_ = std::string(*name);
  absl::flat_hash_set<std::string> seen;
  while (Consume(',')) {
    if (auto s = SkipSpace(); !s.ok()) return s;
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
      if (auto s = ParseEntryLayout(module); !s.ok()) return s;
      continue;
    }
    auto value = ParseRawValue();
    if (!value.ok()) return value.status();
    module.header_attributes_.push_back(
        RawAttribute{std::string(attr), std::move(*value)});
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
      if (auto s = SkipSpace(); !s.ok()) return s;
      if (!absl::ascii_isdigit(static_cast<unsigned char>(Peek()))) break;
      size_t id_pos = pos_;
      auto id = ParseInt();
      if (!id.ok()) return id.status();
      if (*id != expected) {
        return ErrorAt(id_pos, absl::StrCat("expected id ", expected, " in ",
                                            table));
      }
      ++expected;
      if (auto s = row(); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  auto quoted_raw = [&](std::vector<std::string>& into) -> absl::Status {
    if (auto s = SkipSpace(); !s.ok()) return s;
    size_t start = pos_;
    if (Peek() != '"') return Error("expected a string");
    if (!SkipQuoted()) return ErrorAt(start, "unterminated string");
    into.emplace_back(text_.substr(start + 1, pos_ - start - 2));
    return absl::OkStatus();
  };
  auto fields = [&](std::vector<std::pair<absl::string_view, int64_t*>> f)
      -> absl::Status {
    if (auto s = Expect('{', "'{'"); !s.ok()) return s;
    while (!Next('}')) {
      if (!error_.ok()) return error_;
      absl::string_view key = RawIdent();
      if (key.empty() || !Consume('=')) return Error("expected 'key='");
      auto v = ParseInt();
      if (!v.ok()) return v.status();
      for (auto& [k, p] : f) {
        if (k == key) *p = *v;
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
  if (auto s = SkipSpace(); !s.ok()) return s;
  size_t attr_pos = pos_;
  absl::string_view attr = RawIdent();
  if (attr.empty()) return Error("expected an attribute name");
  if (!Consume('=')) {
    if (!error_.ok()) return error_;
    return Error(absl::StrCat("expected '=' after attribute name '", attr, "'"));
  }
  for (const AttrSlot& slot : instr.attr_slots_) {
    if (slot.name == attr) {
      return ErrorAt(attr_pos, absl::StrCat("duplicate attribute '", attr, "'"));
    }
  }
  size_t value_pos = pos_;
  auto value = ParseRawValue(&value_pos, attr);
  if (!value.ok()) return value.status();
  absl::string_view v = *value;

  // Sub-parser over the captured value text.
  auto names_in = [&](absl::string_view list) {
    std::vector<std::string> names;
    std::string current;
    for (char c : list) {
      if (c == '{' || c == '}' || c == ',' || c == ' ' || c == '%') {
        if (!current.empty()) names.push_back(std::move(current));
        current.clear();
        continue;
      }
      current += c;
    }
    if (!current.empty()) names.push_back(std::move(current));
    return names;
  };
  auto bad = [&](absl::string_view what) {
    return ErrorAt(value_pos,
                   absl::StrCat("malformed ", attr, " attribute: ", what));
  };

  static const char* const kSingleComputation[] = {
      "to_apply", "calls", "condition", "body", "true_computation",
      "false_computation", "select", "scatter"};
  for (const char* name : kSingleComputation) {
    if (attr != name) continue;
    if (v.front() == '{' && attr != "calls") {
      return bad("inline computations are not supported");
    }
    auto names = names_in(v);
    if (names.size() != 1 && !(attr == "calls" && !names.empty())) {
      return bad("expected one computation name");
    }
    AttrSlot slot{AttrKind::kCalledComputations, std::string(attr)};
    slot.first = instr.called_computations_.size();
    slot.count = names.size();
    slot.is_list = v.front() == '{';
    for (auto& n : names) {
      pending_calls_.push_back(PendingCall{&instr,
                                           instr.called_computations_.size(),
                                           n, value_pos});
      instr.called_computations_.push_back(nullptr);
    }
    instr.attr_slots_.push_back(std::move(slot));
    return absl::OkStatus();
  }
  if (attr == "branch_computations" || attr == "called_computations") {
    if (v.front() != '{') return bad("expected '{'");
    auto names = names_in(v);
    AttrSlot slot{AttrKind::kCalledComputations, std::string(attr)};
    slot.first = instr.called_computations_.size();
    slot.count = names.size();
    slot.is_list = true;
    for (auto& n : names) {
      pending_calls_.push_back(PendingCall{&instr,
                                           instr.called_computations_.size(),
                                           n, value_pos});
      instr.called_computations_.push_back(nullptr);
    }
    instr.attr_slots_.push_back(std::move(slot));
    return absl::OkStatus();
  }
  if (attr == "control-predecessors") {
    if (v.front() != '{') return bad("expected '{'");
    for (auto& n : names_in(v)) {
      // Keep a view into the value text: store it in an owned buffer.
      pending_control_.push_back(PendingOperand{
          &instr, 0, *new_names_.emplace_back(std::make_unique<std::string>(n)),
          value_pos});
    }
    instr.attr_slots_.push_back(
        AttrSlot{AttrKind::kControlPredecessors, std::string(attr)});
    return absl::OkStatus();
  }
  if (attr == "custom_call_target") {
    if (v.front() != '"' && v.front() != '\'') return bad("expected a string");
    std::string out, err;
    if (!absl::CUnescape(v.substr(1, v.size() - 2), &out, &err)) {
      return bad(err);
    }
    instr.custom_call_target_ = std::move(out);
    instr.attr_slots_.push_back(
        AttrSlot{AttrKind::kCustomCallTarget, std::string(attr)});
    return absl::OkStatus();
  }
  if (attr == "index" && instr.opcode_ == HloOpcode::kGetTupleElement) {
    int64_t index = 0;
    if (!absl::SimpleAtoi(v, &index) || index < 0) {
      return bad("expected a non-negative integer");
    }
    instr.tuple_index_ = index;
    instr.attr_slots_.push_back(AttrSlot{AttrKind::kIndex, std::string(attr)});
    return absl::OkStatus();
  }
  if (attr == "frontend_attributes") {
    if (v.front() != '{' || v.back() != '}') return bad("expected '{...}'");
    // key=value pairs; values are strings or balanced {...} blobs.
    size_t i = 1;
    absl::string_view body = v.substr(0, v.size() - 1);
    while (i < body.size()) {
      while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
      if (i >= body.size()) break;
      size_t key_start = i;
      while (i < body.size() && body[i] != '=' && body[i] != ' ') ++i;
      std::string key(body.substr(key_start, i - key_start));
      while (i < body.size() && body[i] == ' ') ++i;
      if (i >= body.size() || body[i] != '=' || key.empty()) {
        return bad("expected key=value");
      }
      ++i;
      while (i < body.size() && body[i] == ' ') ++i;
      size_t value_start = i;
      if (i < body.size() && (body[i] == '"' || body[i] == '\'')) {
        char q = body[i++];
        while (i < body.size() && body[i] != q) {
          if (body[i] == '\\') ++i;
          ++i;
        }
        ++i;
      } else if (i < body.size() && body[i] == '{') {
        int depth = 0;
        while (i < body.size()) {
          char c = body[i];
          if (c == '"') {
            ++i;
            while (i < body.size() && body[i] != '"') {
              if (body[i] == '\\') ++i;
              ++i;
            }
          } else if (c == '{') {
            ++depth;
          } else if (c == '}') {
            if (--depth == 0) {
              ++i;
              break;
            }
          }
          ++i;
        }
      } else {
        return bad("expected a string value");
      }
      i = std::min(i, body.size());
      instr.frontend_attributes_.emplace_back(
          std::move(key), std::string(body.substr(value_start, i - value_start)));
    }
    instr.raw_attributes_.push_back(RawAttribute{std::string(attr), *value});
    instr.attr_slots_.push_back(
        AttrSlot{AttrKind::kFrontendAttributes, std::string(attr),
                 instr.raw_attributes_.size() - 1});
    return absl::OkStatus();
  }

  // Everything else is printed back from its text; some are also read.
  if (attr == "metadata") {
    // Space- or comma-separated key=value items.
    size_t i = 1;
    while (i + 1 < v.size()) {
      while (i < v.size() && (v[i] == ' ' || v[i] == ',')) ++i;
      size_t key_start = i;
      while (i < v.size() && v[i] != '=' && v[i] != ' ' && v[i] != '}') ++i;
      absl::string_view key = v.substr(key_start, i - key_start);
      if (i >= v.size() || v[i] != '=') break;
      ++i;
      size_t value_start = i;
      std::string text;
      if (i < v.size() && (v[i] == '"' || v[i] == '\'')) {
        char q = v[i++];
        while (i < v.size() && v[i] != q) {
          if (v[i] == '\\') ++i;
          ++i;
        }
        ++i;
        absl::string_view quoted = v.substr(value_start + 1, i - value_start - 2);
        // On a bad escape CUnescape leaves partial output (NUL bytes
        // included); the text as written is the better report.
        if (!absl::CUnescape(quoted, &text)) text = std::string(quoted);
      } else if (i < v.size() && v[i] == '{') {
        while (i < v.size() && v[i] != '}') ++i;
        ++i;
      } else {
        while (i < v.size() && v[i] != ' ' && v[i] != ',' && v[i] != '}') ++i;
        text = std::string(v.substr(value_start, i - value_start));
      }
      int64_t number = 0;
      if (key == "op_name") instr.metadata_.op_name = text;
      if (key == "op_type") instr.metadata_.op_type = text;
      if (key == "source_file") instr.metadata_.source_file = text;
      if (key == "source_line" && absl::SimpleAtoi(text, &number)) {
        instr.metadata_.source_line = number;
      }
      if (key == "stack_frame_id" && absl::SimpleAtoi(text, &number)) {
        instr.metadata_.stack_frame_id = number;
      }
    }
  } else if (attr == "dynamic_slice_sizes") {
    for (auto& n : names_in(v)) {
      int64_t size = 0;
      if (!absl::SimpleAtoi(n, &size)) return bad("expected integers");
      instr.dynamic_slice_sizes_.push_back(size);
    }
  } else if (attr == "slice") {
    // {[a:b], [a:b:s]}
    size_t i = 0;
    while ((i = v.find('[', i)) != absl::string_view::npos) {
      size_t close = v.find(']', i);
      if (close == absl::string_view::npos) return bad("expected ']'");
      absl::string_view range = v.substr(i + 1, close - i - 1);
      std::vector<int64_t> parts;
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
      instr.slice_dims_.push_back(
          {parts[0], parts[1], parts.size() == 3 ? parts[2] : 1});
      i = close + 1;
    }
  } else if (attr == "async_execution_thread") {
    if (v.size() < 2 || (v.front() != '"' && v.front() != '\'')) {
      return bad("expected a string");
    }
    instr.async_execution_thread_ = std::string(v.substr(1, v.size() - 2));
  } else if (attr == "output_to_operand_aliasing") {
    // {{out}: (operand, {in}), ...}
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
      for (auto& n : names_in(v.substr(open, close - open + 1))) {
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
      for (auto& n : names_in(inner.substr(comma + 1))) {
        int64_t x;
        if (!absl::SimpleAtoi(n, &x)) return bad("expected integers");
        alias.operand_index.push_back(x);
      }
      instr.output_to_operand_aliasing_.push_back(std::move(alias));
      i = paren_close + 1;
    }
  }
  instr.raw_attributes_.push_back(RawAttribute{std::string(attr), *value});
  instr.attr_slots_.push_back(AttrSlot{AttrKind::kRaw, std::string(attr),
                                       instr.raw_attributes_.size() - 1});
  if (attr == "sharding") instr.sharding_ = instr.raw_attributes_.back();
  return absl::OkStatus();
}

absl::Status Parser::ParseInstruction(Computation& comp, bool& saw_root) {
  if (auto s = SkipSpace(); !s.ok()) return s;
  size_t start = pos_;
  bool is_root = ConsumeWord("ROOT");
  if (auto s = SkipSpace(); !s.ok()) return s;
  size_t name_pos = pos_;
  auto name = ParseName("an instruction name");
  if (!name.ok()) return name.status();
  if (!Consume('=')) {
    if (!error_.ok()) return error_;
    if (AtEnd()) return Error("unexpected end of input, expected '='");
    return Error(absl::StrCat("expected '=' after instruction name '", *name,
                              "'"));
  }
  auto owned = std::make_unique<Instruction>();
  Instruction* instr = owned.get();
  instr->name_ = std::string(*name);
  instr->parent_ = &comp;
  instr->loc_ = LocAt(is_root ? start : name_pos);
  if (scope_.contains(instr->name_)) {
    return ErrorAt(name_pos, absl::StrCat("duplicate instruction name '",
                                          *name, "' in computation '",
                                          comp.name_, "'"));
  }
  scope_[instr->name_] = instr;
  def_pos_[instr] = name_pos;
  comp.parent_->ReserveName(instr->name_);
  if (is_root) {
    if (saw_root) {
      return ErrorAt(start, absl::StrCat("computation '", comp.name_,
                                         "' has more than one ROOT"));
    }
    saw_root = true;
    comp.root_ = instr;
  }

  if (!LooksLikeShape()) {
    if (!error_.ok()) return error_;
    if (AtEnd()) return Error("unexpected end of input, expected the instruction's shape");
    size_t type_pos = pos_;
    absl::string_view word = RawIdent();
    if (!word.empty() && AtEnd()) {
      return ErrorAt(type_pos, absl::StrCat("unexpected end of input in the shape '",
                                            word, "'"));
    }
    if (!word.empty() && Peek() == '[') {
      return ErrorAt(type_pos, absl::StrCat("unknown element type '", word, "'"));
    }
    pos_ = type_pos;
    return Error("expected the instruction's shape");
  }
  auto shape = ParseShapeAt(0);
  if (!shape.ok()) return shape.status();
  instr->shape_ = std::move(*shape);

  if (auto s = SkipSpace(); !s.ok()) return s;
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
  instr->opcode_spelling_ = std::string(spelling);
  opcode_pos_[instr] = opcode_pos;

  if (auto s = Expect('(', "'(' after the opcode"); !s.ok()) return s;
  if (instr->opcode_ == HloOpcode::kParameter) {
    size_t num_pos = pos_;
    auto number = ParseInt();
    if (!number.ok()) return number.status();
    if (*number < 0 || *number >= kMaxParameterNumber) {
      return ErrorAt(num_pos, "parameter number out of range");
    }
    instr->parameter_number_ = *number;
    if (auto s = Expect(')', "')'"); !s.ok()) return s;
  } else if (instr->opcode_ == HloOpcode::kConstant) {
    if (auto s = SkipSpace(); !s.ok()) return s;
    // The literal: balanced text up to the matching ')'.
    size_t lit_start = pos_;
    std::string literal;
    int depth = 0;
    while (true) {
      if (pos_ >= text_.size()) {
        return ErrorAt(lit_start, "unexpected end of input in constant literal");
      }
      char c = text_[pos_];
      if (c == '"' || c == '\'') {
        size_t s = pos_;
        if (!SkipQuoted()) return ErrorAt(s, "unterminated string");
        absl::StrAppend(&literal, text_.substr(s, pos_ - s));
        continue;
      }
      if (c == '\0') return Error("NUL byte in input");
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' ||
          (c == '/' && (Peek(1) == '/' || Peek(1) == '*'))) {
        if (c == '/' && Peek(1) == '*') {
          size_t end = text_.find("*/", pos_ + 2);
          if (end == absl::string_view::npos) {
            return Error("unterminated block comment");
          }
          absl::StrAppend(&literal, text_.substr(pos_, end + 2 - pos_));
          pos_ = end + 2;
          continue;
        }
        if (auto s = SkipSpace(); !s.ok()) return s;
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
      literal += c;
      ++pos_;
    }
    while (!literal.empty() && literal.back() == ' ') literal.pop_back();
    instr->literal_text_ = std::move(literal);
    ++pos_;  // ')'
  } else if (!Consume(')')) {
    if (!error_.ok()) return error_;
    while (true) {
      std::optional<Shape> typed;
      size_t typed_pos = pos_;
      if (LooksLikeShape()) {
        typed_pos = pos_;
        auto operand_shape = ParseShapeAt(0);
        if (!operand_shape.ok()) return operand_shape.status();
        typed = std::move(*operand_shape);
      }
      if (!error_.ok()) return error_;
      if (auto s = SkipSpace(); !s.ok()) return s;
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
        return Error(
            "compact get-tuple-element operands ('%x#0') are not supported; "
            "print the module without compact_gte");
      }
      if (typed) {
        typed_operands_.push_back(
            TypedOperand{instr, instr->operands_.size(), std::move(*typed), typed_pos});
      }
      pending_operands_.push_back(PendingOperand{
          instr, instr->operands_.size(), *operand, operand_pos});
      instr->operands_.push_back(nullptr);
      if (instr->operand_count() > kMaxOperands) {
        return ErrorAt(operand_pos, absl::StrCat("more than ", kMaxOperands,
                                                 " operands"));
      }
      if (Consume(',')) continue;
      if (auto s = Expect(')', "',' or ')' in the operand list"); !s.ok()) {
        return s;
      }
      break;
    }
  }
  while (Consume(',')) {
    if (auto s = ParseAttribute(*instr); !s.ok()) return s;
  }
  if (!error_.ok()) return error_;
  if (instr->opcode_ == HloOpcode::kGetTupleElement && instr->tuple_index_ < 0) {
    return ErrorAt(opcode_pos, "get-tuple-element needs an index= attribute");
  }
  if (instr->opcode_ == HloOpcode::kCustomCall &&
      instr->custom_call_target_.empty() &&
      instr->FindRawAttribute("custom_call_target") == nullptr) {
    bool has_target = false;
    for (const AttrSlot& slot : instr->attr_slots_) {
      has_target |= slot.kind == AttrKind::kCustomCallTarget;
    }
    if (!has_target) {
      return ErrorAt(opcode_pos, "custom-call needs a custom_call_target");
    }
  }
  comp.instructions_.push_back(std::move(owned));
  return absl::OkStatus();
}

absl::Status Parser::ParseComputation(Module& module) {
  if (auto s = SkipSpace(); !s.ok()) return s;
  size_t start = pos_;
  bool is_entry = ConsumeWord("ENTRY");
  auto name = ParseName("a computation name");
  if (!name.ok()) return name.status();
  auto comp = std::make_unique<Computation>();
  comp->name_ = std::string(*name);
  comp->parent_ = &module;
  comp->loc_ = LocAt(start);
  if (module.computation_by_name_.contains(comp->name_)) {
    return ErrorAt(start, absl::StrCat("duplicate computation name '", *name,
                                       "'"));
  }
  // Optional signature: (p: T, ...) -> R. Informational only.
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
    if (auto s = SkipSpace(); !s.ok()) return s;
    if (!(Peek() == '-' && Peek(1) == '>')) {
      return Error("expected '->' after the computation's parameters");
    }
    pos_ += 2;
    auto result = ParseShapeAt(0);
    if (!result.ok()) return result.status();
  }
  if (!error_.ok()) return error_;
  if (auto s = Expect('{', "'{' starting the computation body"); !s.ok()) {
    return s;
  }
  Computation* raw = comp.get();
  module.computation_by_name_[raw->name_] = raw;
  comp_pos_[raw] = start;
  module.computations_.push_back(std::move(comp));
  if (is_entry) {
    if (module.entry_ != nullptr) {
      return ErrorAt(start, "more than one ENTRY computation");
    }
    module.entry_ = raw;
  }
  scope_.clear();
  pending_operands_.clear();
  pending_control_.clear();
  typed_operands_.clear();
  bool saw_root = false;
  while (true) {
    if (auto s = SkipSpace(); !s.ok()) return s;
    if (Peek() == '}') {
      ++pos_;
      break;
    }
    if (AtEnd()) {
      return Error(absl::StrCat("unexpected end of input in computation '",
                                raw->name_, "' (missing '}')"));
    }
    if (auto s = ParseInstruction(*raw, saw_root); !s.ok()) return s;
  }
  if (raw->instructions_.empty()) {
    return ErrorAt(start, absl::StrCat("computation '", raw->name_,
                                       "' has no instructions"));
  }
  if (raw->root_ == nullptr) raw->root_ = raw->instructions_.back().get();
  // Resolve operands within this computation.
  for (const PendingOperand& p : pending_operands_) {
    auto it = scope_.find(p.name);
    if (it == scope_.end()) {
      return ErrorAt(p.pos, absl::StrCat("use of undefined instruction '",
                                         p.name, "' in computation '",
                                         raw->name_, "'"));
    }
    p.instr->operands_[p.index] = it->second;
    // An instruction's operands are resolved one after the other, so a
    // repeated operand finds its user last in the list; checking only the
    // last entry keeps a value with 10^5 users linear (AddUser would scan).
    std::vector<Instruction*>& users = it->second->users_;
    if (users.empty() || users.back() != p.instr) users.push_back(p.instr);
  }
  for (const TypedOperand& t : typed_operands_) {
    const Instruction* operand = t.instr->operands_[t.index];
    Shape written = t.shape;
    shape_util::SetDefaultLayoutsWhereMissing(written);
    if (!shape_util::Compatible(written, operand->shape_)) {
      return ErrorAt(t.pos, absl::StrCat("operand ", t.index, " is written as ",
                                         ShapeToString(t.shape), " but '",
                                         operand->name_, "' has shape ",
                                         ShapeToString(operand->shape_)));
    }
  }
  for (const PendingOperand& p : pending_control_) {
    auto it = scope_.find(p.name);
    if (it == scope_.end()) {
      return ErrorAt(p.pos, absl::StrCat("undefined control predecessor '",
                                         p.name, "'"));
    }
    p.instr->control_predecessors_.push_back(it->second);
    it->second->control_successors_.push_back(p.instr);
  }
  // Parameters: numbers 0..n-1, each once.
  int64_t num_params = 0;
  for (const auto& instr : raw->instructions_) {
    num_params += instr->opcode_ == HloOpcode::kParameter;
  }
  std::vector<Instruction*> params(num_params, nullptr);
  for (const auto& instr : raw->instructions_) {
    if (instr->opcode_ != HloOpcode::kParameter) continue;
    int64_t n = instr->parameter_number_;
    // Numbers are 0..n-1, so the table never grows past the instructions.
    if (n >= num_params) {
      return ErrorAt(def_pos_[instr.get()],
                     absl::StrCat("parameter number ", n, " in computation '",
                                  raw->name_, "', which has ", num_params,
                                  " parameter", num_params == 1 ? "" : "s"));
    }
    if (params[n] != nullptr) {
      return ErrorAt(def_pos_[instr.get()],
                     absl::StrCat("duplicate parameter number ", n,
                                  " in computation '", raw->name_, "'"));
    }
    params[n] = instr.get();
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] == nullptr) {
      return ErrorAt(start, absl::StrCat("computation '", raw->name_,
                                         "' has no parameter(", i, ")"));
    }
  }
  raw->params_ = std::move(params);
  // Cycle check (operands and control edges), iterative.
  {
    absl::flat_hash_map<const Instruction*, uint8_t> state;
    for (const auto& owned : raw->instructions_) {
      if (state.contains(owned.get())) continue;
      std::vector<std::pair<Instruction*, size_t>> stack = {{owned.get(), 0}};
      state[owned.get()] = 1;
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        size_t n_ctrl = node->control_predecessors_.size();
        if (next < n_ctrl + node->operands_.size()) {
          Instruction* dep = next < n_ctrl ? node->control_predecessors_[next]
                                           : node->operands_[next - n_ctrl];
          ++next;
          auto it = state.find(dep);
          if (it == state.end()) {
            state[dep] = 1;
            stack.emplace_back(dep, 0);
          } else if (it->second == 1) {
            std::vector<std::string> cycle;
            bool in = false;
            for (auto& [n, unused] : stack) {
              in |= n == dep;
              if (in) cycle.push_back(n->name_);
            }
            cycle.push_back(dep->name_);
            return ErrorAt(def_pos_[dep],
                           absl::StrCat("cycle in computation '", raw->name_,
                                        "': ", absl::StrJoin(cycle, " -> ")));
          }
          continue;
        }
        state[node] = 2;
        stack.pop_back();
      }
    }
  }
  // Optional `, execution_thread="host"` after the closing brace.
  size_t save = pos_;
  if (Consume(',')) {
    if (auto s = SkipSpace(); !s.ok()) return s;
    absl::string_view attr = RawIdent();
    if (attr != "execution_thread" || !Consume('=')) {
      if (!error_.ok()) return error_;
      pos_ = save;
      return Error("expected execution_thread= after ','");
    }
    auto thread = ParseString();
    if (!thread.ok()) return thread.status();
    raw->execution_thread_ = std::move(*thread);
  }
  return absl::OkStatus();
}

absl::Status Parser::CheckForwardedShapes(const Instruction& instr) {
  std::string mismatch = ForwardedShapeMismatch(instr);
  if (mismatch.empty()) return absl::OkStatus();
  return ErrorAt(def_pos_[&instr],
                 absl::StrCat("'", instr.name_, "': ", mismatch));
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
    call.instr->called_computations_[call.index] = callee;
  }
  // Sugared async ops (`custom-call-start(...)`) wrap their op in a
  // computation that the text leaves out; build it, as XLA's parser does.
  std::vector<std::unique_ptr<Computation>> wrapped;
  for (const auto& comp : module.computations_) {
    for (const auto& owned : comp->instructions_) {
      Instruction* start = owned.get();
      if (start->opcode_ != HloOpcode::kAsyncStart ||
          !start->called_computations_.empty()) {
        continue;
      }
      absl::string_view spelling = start->opcode_spelling_;
      auto wrapped_opcode = StringToHloOpcode(
          spelling.substr(0, spelling.size() - std::string_view("-start").size()));
      const Shape& shape = start->shape_;
      if (!wrapped_opcode || !shape.IsTuple() || shape.tuple_shapes.size() < 2 ||
          !shape.tuple_shapes[0].IsTuple() ||
          shape.tuple_shapes[0].tuple_shapes.size() !=
              static_cast<size_t>(start->operand_count())) {
        return ErrorAt(def_pos_[start],
                       absl::StrCat("'", start->name_, "': the shape of ",
                                    spelling, " must be ((operand shapes...), "
                                    "result shape, context...)"));
      }
      auto comp_owned = std::make_unique<Computation>();
      Computation* body = comp_owned.get();
      body->name_ = absl::StrCat(start->name_, ".wrapped_computation");
      body->parent_ = &module;
      body->synthesized_ = true;
      body->execution_thread_ = start->async_execution_thread_;
      std::vector<Instruction*> params;
      for (int64_t i = 0; i < start->operand_count(); ++i) {
        auto param = std::make_unique<Instruction>();
        param->opcode_ = HloOpcode::kParameter;
        param->opcode_spelling_ = "parameter";
        param->name_ = absl::StrCat("param_", i);
        param->shape_ = shape.tuple_shapes[0].tuple_shapes[i];
        param->parameter_number_ = i;
        param->parent_ = body;
        param->loc_ = start->loc_;
        params.push_back(param.get());
        body->instructions_.push_back(std::move(param));
      }
      auto root = std::make_unique<Instruction>();
      InstructionBuilder::CopyAttributes(*start, root.get());
      root->opcode_ = *wrapped_opcode;
      root->opcode_spelling_ = std::string(HloOpcodeString(*wrapped_opcode));
      root->name_ = absl::StrCat(start->name_, ".wrapped");
      root->shape_ = shape.tuple_shapes[1];
      root->parent_ = body;
      root->loc_ = start->loc_;
      root->operands_ = params;
      for (Instruction* p : params) p->AddUser(root.get());
      body->root_ = root.get();
      body->params_ = params;
      body->instructions_.push_back(std::move(root));
      start->called_computations_.push_back(body);
      wrapped.push_back(std::move(comp_owned));
    }
  }
  for (auto& comp : wrapped) module.computations_.push_back(std::move(comp));

  // Structural checks the passes rely on.
  for (const auto& comp : module.computations_) {
    for (const auto& owned : comp->instructions_) {
      Instruction* instr = owned.get();
      auto fail = [&](std::string what) {
        return ErrorAt(def_pos_[instr], absl::StrCat("'", instr->name_, "': ", what));
      };
      auto need_operands = [&](int64_t n) -> absl::Status {
        if (instr->operand_count() == n) return absl::OkStatus();
        return ErrorAt(opcode_pos_[instr], absl::StrCat(instr->opcode_spelling_, " expects ", n,
                                 " operand", n == 1 ? "" : "s", ", got ",
                                 instr->operand_count()));
      };
      absl::Status st = absl::OkStatus();
      switch (instr->opcode_) {
        case HloOpcode::kWhile: {
          Computation* body = instr->while_body();
          Computation* cond = instr->while_condition();
          if (body == nullptr || cond == nullptr) {
            return fail("while needs condition= and body=");
          }
          st = need_operands(1);
          if (st.ok() && (body->num_parameters() != 1 || cond->num_parameters() != 1)) {
            return fail("while body and condition must take exactly one parameter");
          }
          break;
        }
        case HloOpcode::kCall: {
          Computation* callee = instr->CalledComputation("to_apply");
          if (callee == nullptr) return fail("call needs to_apply=");
          st = need_operands(callee->num_parameters());
          break;
        }
        case HloOpcode::kConditional: {
          int64_t branches = static_cast<int64_t>(instr->called_computations_.size());
          if (branches == 0) return fail("conditional needs branch computations");
          // Branch order is [true, false] for a predicate conditional.
          const AttrSlot* t = nullptr;
          const AttrSlot* f = nullptr;
          for (AttrSlot& slot : instr->attr_slots_) {
            if (slot.name == "true_computation") t = &slot;
            if (slot.name == "false_computation") f = &slot;
          }
          if (t != nullptr && f != nullptr && t->first > f->first) {
            std::swap(instr->called_computations_[t->first],
                      instr->called_computations_[f->first]);
            std::swap(const_cast<AttrSlot*>(t)->first,
                      const_cast<AttrSlot*>(f)->first);
          }
          st = need_operands(branches + 1);
          for (Computation* branch : instr->called_computations_) {
            if (st.ok() && branch->num_parameters() != 1) {
              return fail(absl::StrCat("branch computation '", branch->name_,
                                       "' must take exactly one parameter"));
            }
          }
          break;
        }
        case HloOpcode::kFusion:
          if (instr->called_computations_.empty()) return fail("fusion needs calls=");
          break;
        case HloOpcode::kAsyncStart:
          if (!instr->called_computations_.empty() &&
              instr->operand_count() !=
                  instr->called_computations_[0]->num_parameters()) {
            return fail(absl::StrCat(
                "async-start has ", instr->operand_count(),
                " operands but its computation '",
                instr->called_computations_[0]->name_, "' has ",
                instr->called_computations_[0]->num_parameters(),
                " parameters"));
          }
          break;
        case HloOpcode::kAbs: case HloOpcode::kCeil: case HloOpcode::kFloor:
        case HloOpcode::kNegate: case HloOpcode::kNot: case HloOpcode::kSign:
        case HloOpcode::kExponential: case HloOpcode::kExponentialMinusOne:
        case HloOpcode::kLog: case HloOpcode::kLogPlusOne:
        case HloOpcode::kLogistic: case HloOpcode::kSqrt: case HloOpcode::kRsqrt:
        case HloOpcode::kCbrt: case HloOpcode::kTanh: case HloOpcode::kSine:
        case HloOpcode::kCosine: case HloOpcode::kTan: case HloOpcode::kErf:
        case HloOpcode::kIsFinite: case HloOpcode::kRoundNearestAfz:
        case HloOpcode::kRoundNearestEven: case HloOpcode::kCountLeadingZeros:
        case HloOpcode::kPopcnt: case HloOpcode::kReal: case HloOpcode::kImag:
        case HloOpcode::kConvert: case HloOpcode::kBitcastConvert:
        case HloOpcode::kReducePrecision: case HloOpcode::kTranspose:
        case HloOpcode::kReverse: case HloOpcode::kAcos: case HloOpcode::kAcosh:
        case HloOpcode::kAsin: case HloOpcode::kAsinh: case HloOpcode::kAtanh:
        case HloOpcode::kCosh: case HloOpcode::kSinh:
          st = need_operands(1);
          break;
        case HloOpcode::kAdd: case HloOpcode::kSubtract: case HloOpcode::kMultiply:
        case HloOpcode::kDivide: case HloOpcode::kMaximum: case HloOpcode::kMinimum:
        case HloOpcode::kPower: case HloOpcode::kRemainder: case HloOpcode::kAnd:
        case HloOpcode::kOr: case HloOpcode::kXor: case HloOpcode::kCompare:
        case HloOpcode::kAtan2: case HloOpcode::kShiftLeft:
        case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical:
        case HloOpcode::kComplex: case HloOpcode::kMulhi:
          st = need_operands(2);
          break;
        case HloOpcode::kSelect:
        case HloOpcode::kClamp:
          st = need_operands(3);
          break;
        case HloOpcode::kGetTupleElement: {
          st = need_operands(1);
          if (!st.ok()) break;
          const Shape& tuple = instr->operands_[0]->shape_;
          if (!tuple.IsTuple() ||
              instr->tuple_index_ >= static_cast<int64_t>(tuple.tuple_shapes.size())) {
            return fail(absl::StrCat("index ", instr->tuple_index_,
                                     " is out of range for operand shape ",
                                     ShapeToString(tuple)));
          }
          break;
        }
        case HloOpcode::kCopy:
        case HloOpcode::kBitcast:
        case HloOpcode::kReshape:
        case HloOpcode::kBroadcast:
        case HloOpcode::kSlice:
          st = need_operands(1);
          break;
        case HloOpcode::kDynamicSlice:
          if (instr->operand_count() < 1) st = fail("dynamic-slice needs an operand");
          break;
        case HloOpcode::kDynamicUpdateSlice:
          if (instr->operand_count() < 2) {
            st = fail("dynamic-update-slice needs a buffer and an update");
          }
          break;
        default:
          break;
      }
      if (!st.ok()) return st;
      if (auto s = CheckForwardedShapes(*instr); !s.ok()) return s;
    }
  }
  // Recursion check over the call graph (iterative DFS).
  {
    absl::flat_hash_map<const Computation*, uint8_t> state;
    auto callees = [](const Computation* c) {
      std::vector<Computation*> out;
      for (const auto& instr : c->instructions_) {
        for (Computation* callee : instr->called_computations_) {
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
            return ErrorAt(comp_pos_[callee],
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
  // Arrays without a layout get the default one, as XLA's parser does.
  for (auto& comp : module.computations_) {
    for (auto& instr : comp->instructions_) {
      shape_util::SetDefaultLayoutsWhereMissing(instr->shape_);
    }
  }
  EntryComputationLayout& layout = module.entry_layout_;
  Computation* entry = module.entry_;
  if (layout.from_header) {
    for (Shape& s : layout.parameters) shape_util::SetDefaultLayoutsWhereMissing(s);
    shape_util::SetDefaultLayoutsWhereMissing(layout.result);
    if (layout.parameters.size() != entry->params_.size()) {
      return ErrorAt(comp_pos_[entry],
                     absl::StrCat("entry_computation_layout has ",
                                  layout.parameters.size(),
                                  " parameters but the entry computation '",
                                  entry->name_, "' has ",
                                  entry->params_.size()));
    }
    for (size_t i = 0; i < layout.parameters.size(); ++i) {
      if (!shape_util::Compatible(layout.parameters[i],
                                  entry->params_[i]->shape_)) {
        return ErrorAt(def_pos_[entry->params_[i]],
                       absl::StrCat("parameter ", i, " has shape ",
                                    ShapeToString(entry->params_[i]->shape_),
                                    " but entry_computation_layout says ",
                                    ShapeToString(layout.parameters[i])));
      }
    }
    if (!shape_util::Compatible(layout.result, entry->root_->shape_)) {
      return ErrorAt(def_pos_[entry->root_],
                     absl::StrCat("the entry root has shape ",
                                  ShapeToString(entry->root_->shape_),
                                  " but entry_computation_layout says ",
                                  ShapeToString(layout.result)));
    }
  } else {
    for (Instruction* param : entry->params_) {
      layout.parameters.push_back(param->shape_);
    }
    layout.result = entry->root_->shape_;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Module>> Parser::ParseModule() {
  if (text_.size() > kMaxInputBytes) {
    // Without the usual source excerpt, which would scan the whole input.
    return absl::InvalidArgumentError(absl::StrCat(
        options_.path, ":", 1 + options_.line_offset, ":1: error: input larger than ",
        kMaxInputBytes, " bytes (2 GiB)"));
  }
  // Control bytes early on mean the input is not text at all; a NUL byte
  // anywhere is an error (XLA's lexer rejects it).
  for (size_t i = 0; i < std::min<size_t>(text_.size(), 4096); ++i) {
    unsigned char c = static_cast<unsigned char>(text_[i]);
    if ((c < 0x20 && c != 0 && c != '\n' && c != '\r' && c != '\t' &&
         c != '\f' && c != '\v') ||
        c == 0x7f) {
      show_source_line_ = false;
      return ErrorAt(0, absl::StrCat("the input is not HLO text (binary data: byte 0x",
                                     absl::Hex(c, absl::kZeroPad2), " at offset ", i, ")"));
    }
  }
  size_t nul = text_.find('\0');
  if (nul != absl::string_view::npos) {
    return ErrorAt(nul, "NUL byte in input (is this a binary file?)");
  }
  auto module = std::make_unique<Module>();
  module->source_path_ = options_.path;
  module->line_offset_ = options_.line_offset;
  if (auto s = SkipSpace(); !s.ok()) return s;
  if (AtEnd()) return Error("the input is empty: expected an HLO module");
  if (ConsumeWord("HloModule")) {
    if (auto s = ParseHeader(*module); !s.ok()) return s;
    if (auto s = ParseStackFrames(*module); !s.ok()) return s;
  } else {
    module->has_header_ = false;
  }
  while (true) {
    if (auto s = SkipSpace(); !s.ok()) return s;
    if (AtEnd()) break;
    if (text_.substr(pos_, 9) == "HloModule" && !IsIdentChar(Peek(9))) {
      return Error(
          "a second 'HloModule' header: this file holds several modules; "
          "split it with --split-input-file (separator lines '// -----')");
    }
    if (auto s = ParseComputation(*module); !s.ok()) return s;
  }
  if (auto s = Finish(*module); !s.ok()) return s;
  return module;
}

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(
    absl::string_view text, const ParseOptions& options) {
  Parser parser(text, options);
  return parser.ParseModule();
}

absl::StatusOr<Shape> ParseShape(absl::string_view text) {
  Parser parser(text, ParseOptions{"<shape>", 0});
  return parser.ParseStandaloneShape();
}

}  // namespace hloff
