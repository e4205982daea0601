// HLO lexical primitives and the token stream.
#include "text/lexer.h"

#include <cstring>

namespace hloff {
namespace lex {

size_t QuotedEnd(absl::string_view text, size_t pos) {
  const char quote = text[pos];
  const char* data = text.data();
  const size_t n = text.size();
  // The next quote is searched again only when an escape consumed it, so
  // every byte is looked at a bounded number of times however many escapes
  // the string has.
  auto find_quote = [&](size_t from) {
    if (from >= n) return absl::string_view::npos;
    const void* q = std::memchr(data + from, quote, n - from);
    return q == nullptr ? absl::string_view::npos
                        : static_cast<size_t>(static_cast<const char*>(q) - data);
  };
  size_t i = pos + 1;
  size_t qi = find_quote(i);
  while (qi != absl::string_view::npos) {
    const void* bs = std::memchr(data + i, '\\', qi - i);
    if (bs == nullptr) return qi + 1;
    // An escape before the quote: step over the escaped character.
    i = static_cast<size_t>(static_cast<const char*>(bs) - data) + 2;
    if (i > qi) qi = find_quote(i);  // the escaped character was the quote
  }
  return absl::string_view::npos;
}

size_t CommentEnd(absl::string_view text, size_t pos) {
  if (text[pos + 1] == '/') {
    const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
    return nl == nullptr ? text.size()
                         : static_cast<const char*>(nl) - text.data();
  }
  size_t end = text.find("*/", pos + 2);
  return end == absl::string_view::npos ? end : end + 2;
}

}  // namespace lex

Token Lexer::Next() {
  const char* data = text_.data();
  const size_t n = text_.size();
  while (pos_ < n) {
    char c = data[pos_];
    if (lex::Is(c, lex::kSpace)) {
      ++pos_;
      continue;
    }
    if (c == '/' && pos_ + 1 < n && (data[pos_ + 1] == '/' || data[pos_ + 1] == '*')) {
      size_t end = lex::CommentEnd(text_, pos_);
      if (end == absl::string_view::npos) {
        Token error{TokenKind::kError, text_.substr(pos_)};
        pos_ = n;
        return error;
      }
      pos_ = end;
      continue;
    }
    break;
  }
  if (pos_ >= n) return Token{TokenKind::kEnd, {}};
  const size_t start = pos_;
  char c = data[pos_];
  if (c == '"' || c == '\'') {
    size_t end = lex::QuotedEnd(text_, pos_);
    if (end == absl::string_view::npos) {
      pos_ = n;
      return Token{TokenKind::kError, text_.substr(start)};
    }
    pos_ = end;
    return Token{TokenKind::kString, text_.substr(start, end - start)};
  }
  if (c == '%' || lex::Is(c, lex::kIdentStart)) {
    ++pos_;
    while (pos_ < n && lex::Is(data[pos_], lex::kIdentChar)) ++pos_;
    return Token{TokenKind::kName, text_.substr(start, pos_ - start)};
  }
  if (lex::Is(c, lex::kDigit) ||
      (c == '-' && pos_ + 1 < n && lex::Is(data[pos_ + 1], lex::kDigit))) {
    ++pos_;
    while (pos_ < n) {
      char d = data[pos_];
      // Exponent signs belong to the number: 1e-06.
      if (lex::Is(d, lex::kIdentChar) ||
          ((d == '+' || d == '-') && (data[pos_ - 1] == 'e' || data[pos_ - 1] == 'E'))) {
        ++pos_;
        continue;
      }
      break;
    }
    return Token{TokenKind::kNumber, text_.substr(start, pos_ - start)};
  }
  if (c == '\0') {
    pos_ = n;
    return Token{TokenKind::kError, text_.substr(start, 1)};
  }
  ++pos_;
  return Token{TokenKind::kPunct, text_.substr(start, 1)};
}

}  // namespace hloff
