// Renderers for diagnostics: GNU text with the source line and a caret (LLVM
// SMDiagnostic style) and indented notes, XLA's status text, JSON (the
// contract of docs/CLI.md) and SARIF 2.1.0.
#ifndef HLO_OFFLOAD_DIAG_RENDER_H_
#define HLO_OFFLOAD_DIAG_RENDER_H_

#include "absl/strings/string_view.h"
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "diag/diagnostic.h"
#include "nlohmann/json.hpp"

namespace hloff {

// The text a diagnostic points into, to show source lines.
struct SourceText {
  std::string path;
  absl::string_view text;  // the whole file
  // Offsets of the line starts found so far: built as far as the lines asked
  // for, once, so that rendering many diagnostics costs one scan of the text.
  mutable std::vector<size_t> line_starts;
};

// `path:line:col: error: E1200: Name: message`, the source line, a caret,
// then `  path:line:col: note: ...` lines and the documentation link.
// `folded`: the other diagnostics of its group (diag/group.h), which are not
// printed; a note lists their outputs (FoldedOutputsNote), after the JAX
// output note when there is one, else after the diagnostic's own notes.
std::string RenderText(const Diagnostic& diagnostic, const SourceText& source,
                       absl::Span<const Diagnostic* const> folded = {});

// What XLA's status prints, e.g. "INVALID_ARGUMENT: E1200: ...:\n...\nSee ...".
std::string RenderXla(const Diagnostic& diagnostic);

// One diagnostic as a JSON object (keys of docs/CLI.md).
nlohmann::json DiagnosticToJson(const Diagnostic& diagnostic);

// A whole SARIF 2.1.0 log for the given files' diagnostics.
// In SARIF, the results of a group (diag/group.h) carry `group` (the
// position of the group's first result among the results of its file: the
// results of consecutive FileDiagnostics with the same `file`) and
// `group_size` in their properties.
struct FileDiagnostics {
  std::string file;
  std::string module;
  std::vector<Diagnostic> diagnostics;
};
nlohmann::json RenderSarif(const std::vector<FileDiagnostics>& files,
                           absl::string_view tool_version);

// A shape index as a JSON array of integers (`{1,0}` is [1, 0]), for
// nlohmann::json or nlohmann::ordered_json.
template <typename Json = nlohmann::json>
Json ShapeIndexToJson(const ShapeIndex& index) {
  Json out = Json::array();
  for (int64_t i : index) out.push_back(i);
  return out;
}

// `json` as indented text. Strings from the input (file names, metadata) need
// not be UTF-8: invalid bytes are written as U+FFFD instead of failing.
std::string DumpJson(const nlohmann::json& json);

}  // namespace hloff

#endif  // HLO_OFFLOAD_DIAG_RENDER_H_
