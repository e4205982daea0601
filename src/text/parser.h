// The HLO text parser: every form XLA prints or reads (see
// shared/spec/hlo-text-grammar.md), with or without `%` prefixes, typed
// operands, computation signatures and `/*index=N*/` comments. Mirrors
// xla/hlo/parser/hlo_parser.cc in what it accepts; differs in that it keeps
// unknown attributes as text instead of rejecting them, allows forward
// references inside a computation, and reports every error with
// file:line:col instead of crashing.
#ifndef HLO_OFFLOAD_TEXT_PARSER_H_
#define HLO_OFFLOAD_TEXT_PARSER_H_

#include "absl/strings/string_view.h"
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ir/hlo.h"
#include "ir/text_buffer.h"

namespace hloff {

// What the parser accepts at most (README.md, "Limits"). Exceeding one is an
// INVALID_ARGUMENT error located where the limit was crossed, never a crash.
// Input size, in bytes: kMaxInputBytes (ir/text_buffer.h).
// Nesting depth of tuple shapes, of braces in constant literals and of
// brackets in attribute values. The parser's only recursion (tuple shapes)
// and every recursion over shapes afterwards are bounded by it.
inline constexpr int kMaxNestingDepth = 512;
// Operands of one instruction, and elements of one tuple shape.
inline constexpr int64_t kMaxOperands = int64_t{1} << 17;
inline constexpr int64_t kMaxTupleElements = int64_t{1} << 17;
// Dimensions of one array shape.
inline constexpr int64_t kMaxRank = 4096;
// Parameter numbers are below this (and below the number of parameters of
// their computation).
inline constexpr int64_t kMaxParameterNumber = int64_t{1} << 24;
// Every array shape's size in bits (elements, padded by its tiles, times the
// element size) must fit in a signed 64-bit integer, as XLA's shape
// validation demands.

struct ParseOptions {
  // Shown in error messages and kept on the module.
  std::string path = "<stdin>";
  // Added to every line number (for pieces of a --split-input-file input).
  uint32_t line_offset = 0;
  // Threads the parser may use for one large input (at least
  // min_bytes_per_thread of text each); the module, and any error, are the
  // same as with one.
  int threads = 1;
  size_t min_bytes_per_thread = size_t{4} << 20;
  // If set, receives the number of threads the parse used (1 when the text
  // was read sequentially, e.g. after ranges that did not fit).
  int* threads_used = nullptr;
};

// Parses one HLO module from `text`. `text` must stay alive only during the
// call (the module keeps a copy: its names point into it). Errors are
// INVALID_ARGUMENT statuses whose message is a complete GNU diagnostic:
// `path:line:col: error: <what>`, the source line and a caret. Each limit
// above that the input exceeds is such an error.
absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(
    absl::string_view text, const ParseOptions& options = {});

// As above without a copy: `text` lies within `buffer`, which the module
// keeps alive (several modules may share one buffer, e.g. the pieces of a
// --split-input-file input).
absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(
    std::shared_ptr<const TextBuffer> buffer, absl::string_view text,
    const ParseOptions& options = {});

// Parses a shape such as `f32[8,2]{1,0:S(5)}` or `(s32[], f32[4]{0})`.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TEXT_PARSER_H_
