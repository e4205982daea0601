// Runs Graphviz's `dot` (Debian's `graphviz` package) to turn the report's
// DOT into SVG for the HTML page.
#ifndef HLO_OFFLOAD_REPORT_GRAPHVIZ_H_
#define HLO_OFFLOAD_REPORT_GRAPHVIZ_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// The absolute path of `program` found on $PATH, or an empty string.
std::string FindOnPath(absl::string_view program);

// Runs `dot -Tsvg` on `dot_source` and returns the `<svg ...>...</svg>`
// element (the XML prologue and DOCTYPE removed, so it can be inlined in
// HTML). Errors: NOT_FOUND when `dot` is not on $PATH (the message says how
// to install it); INTERNAL when dot fails (with its first error line) or the
// temporary file cannot be written.
absl::StatusOr<std::string> RenderDotToSvg(absl::string_view dot_source);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_GRAPHVIZ_H_
