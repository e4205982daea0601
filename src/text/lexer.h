// The lexical layer of the HLO text format (shared/spec/hlo-text-grammar.md):
// character classes, comments, quoted strings and a token stream over them.
// The parser scans the text with these primitives directly (it needs no token
// stream: most of a line is kept as text); Lexer::Next() runs the same
// scanning as a stream of tokens, for tools and for measuring the cost of
// reading the text apart from building the IR.
#ifndef HLO_OFFLOAD_TEXT_LEXER_H_
#define HLO_OFFLOAD_TEXT_LEXER_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"

namespace hloff {
namespace lex {

// Character classes, one table lookup each.
enum CharClass : uint8_t {
  kIdentStart = 1,   // [A-Za-z_]
  kIdentChar = 2,    // [A-Za-z0-9_.-]
  kDigit = 4,        // [0-9]
  kSpace = 8,        // ' ' \t \n \r
  kRawSpecial = 16,  // what an attribute-value scan must stop at
};

constexpr std::array<uint8_t, 256> MakeCharClasses() {
  std::array<uint8_t, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kIdentStart | kIdentChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kIdentStart | kIdentChar;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kIdentChar | kDigit;
  t['_'] |= kIdentStart | kIdentChar;
  t['.'] |= kIdentChar;
  t['-'] |= kIdentChar;
  for (char c : {' ', '\t', '\n', '\r'}) t[static_cast<uint8_t>(c)] |= kSpace;
  for (char c : {' ', '\t', '\n', '\r', '"', '\'', '/', '\0', '(', ')', '[',
                 ']', '{', '}', ','}) {
    t[static_cast<uint8_t>(c)] |= kRawSpecial;
  }
  return t;
}
inline constexpr std::array<uint8_t, 256> kCharClasses = MakeCharClasses();

// True when `c` is in any of the classes `cls`.
inline bool Is(char c, uint8_t cls) {
  return kCharClasses[static_cast<uint8_t>(c)] & cls;
}

// One past the closing quote of the string whose opening quote (' or ") is
// at `pos`, honouring backslash escapes; npos if it is unterminated.
size_t QuotedEnd(absl::string_view text, size_t pos);

// The end of the comment starting at `pos` (`//` to the end of the line,
// `/* ... */`), or npos for an unterminated block comment.
size_t CommentEnd(absl::string_view text, size_t pos);

}  // namespace lex

enum class TokenKind {
  kEnd,
  kName,    // identifier, optionally with a `%` prefix
  kNumber,  // integer or floating-point literal (incl. sign and exponent)
  kString,  // quoted, escapes not resolved
  kPunct,   // one character: = , ( ) [ ] { } : etc.
  kError,   // NUL byte or unterminated string/comment
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  absl::string_view text;
};

// Splits HLO text into tokens, skipping whitespace and comments.
class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}
  // The next token; kEnd at the end of the text, kError (then kEnd) on a NUL
  // byte or an unterminated string or comment.
  Token Next();
  // Byte offset of the next unread character.
  size_t position() const { return pos_; }

 private:
  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_TEXT_LEXER_H_
