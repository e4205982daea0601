// HO3015 ModuleAlreadyOffloaded (docs/errors/HO3015.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects an input that is HostOffloader's output already: S(5) on
// instructions other than entry parameters, or AllocateBuffer custom calls,
// and no offload annotation left (an after-optimization dump). XLA's
// HostOffloader (xla/hlo/transforms/host_offloader.cc) clears S(5) from every
// instruction before it starts, so running the passes again is a second
// offloading whose findings say nothing about how the module was compiled;
// XLA never sees such an input and has no word for it. Once reported,
// HO3004 does not add that nothing ends in host memory.
class ModuleAlreadyOffloaded : public LintChecker {
 public:
  void AfterModule(LintContext& context) override {
    if (context.has_annotations()) return;
    const Module& module = context.module();
    auto signs = FindEarlierOffloading(module);
    if (!signs) return;
    context.mutable_facts().already_offloaded = true;
    context.out().push_back(MakeDiagnostic(
        DiagCode::kHO3015,
        absl::StrCat(
            "the module looks offloaded already: it has ",
            DescribeEarlierOffloading(*signs), " (\"", signs->first->input_name(),
            "\" first) and no offload annotation left, as after "
            "HostOffloader; the passes clear S(5) from every instruction "
            "before they start, as XLA's do, so what they report for it "
            "(and what opt prints) is a second offloading of an offloaded "
            "module, not how this module was offloaded; check the module "
            "from before optimization (the *.before_optimizations.txt "
            "dump, or the program itself: hlo_offload.check(jax.jit(f), *args))"),
        signs->first));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewModuleAlreadyOffloaded() {
  return std::make_unique<ModuleAlreadyOffloaded>();
}

}  // namespace hloff
