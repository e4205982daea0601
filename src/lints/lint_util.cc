// Message pieces the lint checkers share.
#include "lints/lint_util.h"

#include "absl/strings/str_cat.h"

namespace hloff {

std::string SourceSuffix(const Module& module, const Instruction* instr) {
  auto pos = module.ResolveSource(instr->metadata());
  if (!pos || pos->file.empty()) return "";
  std::string file = pos->file;
  size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return absl::StrCat(" (", file, ":", pos->line, ")");
}

}  // namespace hloff
