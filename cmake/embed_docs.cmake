# Writes OUTPUT: a C++ file that defines hloff::DiagnosticDocumentation from
# the Markdown pages in DOCS_DIR (one per diagnostic code, named <CODE>.md).
file(GLOB pages ${DOCS_DIR}/*.md)
list(SORT pages)
set(body "")
foreach(page ${pages})
  get_filename_component(code ${page} NAME_WE)
  file(READ ${page} text)
  string(APPEND body "  {\"${code}\", R\"hloffdoc(${text})hloffdoc\"},\n")
endforeach()
file(WRITE ${OUTPUT}.tmp "// Generated from docs/errors/*.md; do not edit.
#include \"diag/docs.h\"

#include \"absl/strings/string_view.h\"
#include <utility>

namespace hloff {
namespace {
constexpr std::pair<absl::string_view, absl::string_view> kPages[] = {
${body}  {\"\", \"\"},
};
}  // namespace

absl::string_view DiagnosticDocumentation(DiagCode code) {
  absl::string_view name = DiagCodeString(code);
  for (const auto& [page_code, text] : kPages) {
    if (page_code == name) return text;
  }
  return {};
}

}  // namespace hloff
")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
