// Writes memory spaces into a module's entry computation layout
// (entry_memory_spaces.h).
#include "pipeline/entry_memory_spaces.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "ir/shape.h"
#include "text/parser.h"

namespace hloff {
namespace {

constexpr absl::string_view kLayoutKey = "entry_computation_layout=";

absl::Status Invalid(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// The index of the bracket that closes the one at `open_at` (`{`, `(` or
// `[`), skipping quoted strings.
absl::StatusOr<size_t> MatchingClose(absl::string_view text, size_t open_at) {
  auto closer = [](char c) { return c == '{' ? '}' : c == '(' ? ')' : ']'; };
  std::string stack(1, closer(text[open_at]));
  for (size_t i = open_at + 1; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '{' || c == '(' || c == '[') {
      stack.push_back(closer(c));
    } else if (c == '}' || c == ')' || c == ']') {
      if (c != stack.back()) {
        return Invalid(absl::StrCat("unbalanced '", std::string(1, c),
                                    "' in the entry computation layout"));
      }
      stack.pop_back();
      if (stack.empty()) return i;
    }
  }
  return Invalid("the entry computation layout is not closed");
}

// The comma-separated items of `text` at bracket depth 0, stripped.
std::vector<std::string> SplitTop(absl::string_view text) {
  std::vector<std::string> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      items.emplace_back(absl::StripAsciiWhitespace(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  absl::string_view last = absl::StripAsciiWhitespace(text.substr(start));
  if (!last.empty() || !items.empty()) items.emplace_back(last);
  return items;
}

// `text` without its `/* ... */` comments.
std::string WithoutComments(absl::string_view text) {
  std::string out;
  while (true) {
    size_t open = text.find("/*");
    if (open == absl::string_view::npos) break;
    size_t close = text.find("*/", open + 2);
    if (close == absl::string_view::npos) break;
    absl::StrAppend(&out, text.substr(0, open));
    text.remove_prefix(close + 2);
  }
  absl::StrAppend(&out, text);
  return out;
}

// One entry value's shape text with memory space `space`.
absl::StatusOr<std::string> WithMemorySpace(const std::string& text,
                                            int64_t space) {
  if (absl::StartsWith(text, "token[") || absl::StartsWith(text, "opaque[")) {
    return text;
  }
  absl::StatusOr<Shape> parsed = ParseShape(text);
  if (!parsed.ok() || !parsed->IsArray()) {
    if (space == 0) return text;
    return Invalid(absl::StrCat("a memory kind on a non-array entry value: ", text));
  }
  Shape& shape = *parsed;
  if (shape.memory_space() == space) return text;
  if (!shape.has_layout) {
    // The default layout, as LayoutModeToXlaShape's default mode chooses it.
    shape.has_layout = true;
    shape.layout = Layout();
    for (int64_t d = shape.rank() - 1; d >= 0; --d) {
      shape.layout.minor_to_major.push_back(d);
    }
  }
  shape.layout.memory_space = space;
  return ShapeToString(shape);
}

absl::Status CheckCount(absl::string_view what, size_t have, size_t want) {
  if (have == want) return absl::OkStatus();
  return Invalid(absl::StrCat("the entry computation layout has ", have, " ", what,
                              " but the module's main function has ", want));
}

// `items` each with its memory space, joined as the printer joins them.
absl::StatusOr<std::string> JoinWithSpaces(const std::vector<std::string>& items,
                                           const std::vector<int64_t>& spaces) {
  std::vector<std::string> out;
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StatusOr<std::string> item = WithMemorySpace(items[i], spaces[i]);
    if (!item.ok()) return item.status();
    out.push_back(*std::move(item));
  }
  return absl::StrJoin(out, ", ");
}

// Where the layout's braces are in `header`: {open, close}.
absl::StatusOr<std::pair<size_t, size_t>> FindLayout(absl::string_view header) {
  if (!absl::StartsWith(header, "HloModule ")) {
    return Invalid("not an HLO module: the text does not start with HloModule");
  }
  size_t at = header.find(kLayoutKey);
  if (at == absl::string_view::npos) {
    return Invalid("the HloModule line has no entry_computation_layout");
  }
  size_t open_at = at + kLayoutKey.size();
  if (open_at >= header.size() || header[open_at] != '{') {
    return Invalid("malformed entry_computation_layout");
  }
  absl::StatusOr<size_t> close_at = MatchingClose(header, open_at);
  if (!close_at.ok()) return close_at.status();
  return std::make_pair(open_at, *close_at);
}

}  // namespace

absl::StatusOr<std::string> EntryLayoutText(absl::string_view hlo_text) {
  absl::string_view header = hlo_text.substr(0, hlo_text.find('\n'));
  absl::StatusOr<std::pair<size_t, size_t>> layout = FindLayout(header);
  if (!layout.ok()) return layout.status();
  return std::string(header.substr(layout->first, layout->second - layout->first + 1));
}

absl::StatusOr<std::string> SetEntryMemorySpaces(
    absl::string_view hlo_text, const std::vector<int64_t>& input_spaces,
    const std::vector<int64_t>& output_spaces, bool tuple_args) {
  size_t nl = hlo_text.find('\n');
  absl::string_view header = hlo_text.substr(0, nl);
  absl::StatusOr<std::pair<size_t, size_t>> layout = FindLayout(header);
  if (!layout.ok()) return layout.status();
  auto [open_at, close_at] = *layout;
  // The printer numbers long tuples with /*index=N*/ comments.
  std::string body =
      WithoutComments(header.substr(open_at + 1, close_at - open_at - 1));
  if (!absl::StartsWith(body, "(")) {
    return Invalid("malformed entry_computation_layout");
  }
  absl::StatusOr<size_t> params_close = MatchingClose(body, 0);
  if (!params_close.ok()) return params_close.status();
  std::vector<std::string> params =
      SplitTop(absl::string_view(body).substr(1, *params_close - 1));
  absl::string_view arrow = absl::string_view(body).substr(*params_close + 1);
  if (!absl::ConsumePrefix(&arrow, "->")) {
    return Invalid("malformed entry_computation_layout: no ->");
  }
  std::string result(absl::StripAsciiWhitespace(arrow));

  std::string new_params;
  if (tuple_args) {
    if (params.size() != 1 || !absl::StartsWith(params[0], "(")) {
      return Invalid("tuple_args, but the entry does not take one tuple");
    }
    std::vector<std::string> elements =
        SplitTop(absl::string_view(params[0]).substr(1, params[0].size() - 2));
    if (auto s = CheckCount("arguments", elements.size(), input_spaces.size()); !s.ok()) {
      return s;
    }
    absl::StatusOr<std::string> joined = JoinWithSpaces(elements, input_spaces);
    if (!joined.ok()) return joined.status();
    new_params = absl::StrCat("(", *joined, ")");
  } else {
    if (auto s = CheckCount("arguments", params.size(), input_spaces.size()); !s.ok()) {
      return s;
    }
    absl::StatusOr<std::string> joined = JoinWithSpaces(params, input_spaces);
    if (!joined.ok()) return joined.status();
    new_params = *std::move(joined);
  }

  std::string new_result;
  if (absl::StartsWith(result, "(")) {
    std::vector<std::string> elements =
        SplitTop(absl::string_view(result).substr(1, result.size() - 2));
    if (auto s = CheckCount("outputs", elements.size(), output_spaces.size()); !s.ok()) {
      return s;
    }
    absl::StatusOr<std::string> joined = JoinWithSpaces(elements, output_spaces);
    if (!joined.ok()) return joined.status();
    new_result = absl::StrCat("(", *joined, ")");
  } else {
    if (auto s = CheckCount("outputs", 1, output_spaces.size()); !s.ok()) return s;
    absl::StatusOr<std::string> one = WithMemorySpace(result, output_spaces[0]);
    if (!one.ok()) return one.status();
    new_result = *std::move(one);
  }

  return absl::StrCat(header.substr(0, open_at), "{(", new_params, ")->", new_result,
                      "}", header.substr(close_at + 1),
                      nl == absl::string_view::npos ? "" : hlo_text.substr(nl));
}

}  // namespace hloff
