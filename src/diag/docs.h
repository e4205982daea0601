// Documentation pages of the diagnostic codes (docs/errors/<CODE>.md),
// embedded into the library at build time so that `hlo-offload explain`
// works wherever the binary is.
#ifndef HLO_OFFLOAD_DIAG_DOCS_H_
#define HLO_OFFLOAD_DIAG_DOCS_H_

#include "absl/strings/string_view.h"
#include <string_view>

#include "diag/diagnostic.h"

namespace hloff {

// The Markdown page of `code`; empty if the project has none.
absl::string_view DiagnosticDocumentation(DiagCode code);

}  // namespace hloff

#endif  // HLO_OFFLOAD_DIAG_DOCS_H_
