// The three phases of the host-offloading lints (HO3xxx), each the
// registry's checkers of that phase in one traversal (lint_registry.h).
#include "lints/offload_lints.h"

#include "lints/lint_registry.h"

namespace hloff {

LintInputFacts LintInput(const Module& module, std::vector<Diagnostic>& out,
                         const LintOptions& options) {
  LintInputFacts facts;
  // The entry root as read, before the pipeline may replace it.
  facts.entry_root = std::string(module.entry()->root()->name());
  facts.entry_root_loc = module.entry()->root()->loc();
  LintContext context(LintPhase::kInput, module, options, facts, &facts, out);
  RunLintPhase(context);
  return facts;
}

void LintOutput(const Module& module, const LintInputFacts& facts,
                std::vector<Diagnostic>& out, const LintOptions& options) {
  LintContext context(LintPhase::kOutput, module, options, facts, nullptr, out);
  RunLintPhase(context);
}

void LintVerdict(const Module& module, const LintInputFacts& facts,
                 const std::vector<Diagnostic>& diagnostics,
                 std::vector<Diagnostic>& out) {
  static const LintOptions kNoOptions;
  LintContext context(LintPhase::kVerdict, module, kNoOptions, facts, nullptr,
                      out, &diagnostics);
  RunLintPhase(context);
}

}  // namespace hloff
