// HO3008 LeakedHostMemorySpace (docs/errors/HO3008.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects, in an input with offload annotations, S(5) in the shape of an
// instruction other than an entry parameter, an annotation or an
// AllocateBuffer: the trace of a layout-assignment bug that leaked a
// parameter's memory space. Before HostOffloader only entry parameters and
// annotations say where a value lives; HostOffloader
// (xla/hlo/transforms/host_offloader.cc) clears S(5) from every instruction
// before it starts and so ignores the leak without a word. Reported once,
// at the first such instruction, with the count of the others.
class LeakedHostMemorySpace : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode) const override { return true; }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    bool legit = (instr->opcode() == HloOpcode::kParameter && context.in_entry()) ||
                 IsOffloadAnnotation(instr) ||
                 instr->IsCustomCall(kAllocateBufferTarget);
    if (legit || !HasHostLeaf(instr->shape())) return;
    if (first_leak_ == nullptr) first_leak_ = instr;
    ++leaks_;
  }

  void AfterModule(LintContext& context) override {
    // Without annotations S(5) on instructions is a module offloaded
    // already (HO3015).
    if (first_leak_ == nullptr || !context.has_annotations()) return;
    context.out().push_back(MakeDiagnostic(
        DiagCode::kHO3008,
        absl::StrCat("\"", first_leak_->input_name(), "\" carries host memory space ",
                     "S(5) in its shape ", ShapeToString(first_leak_->shape()),
                     leaks_ > 1 ? absl::StrCat(" (and ", leaks_ - 1, " more ",
                                               leaks_ == 2 ? "instruction)"
                                                           : "instructions)")
                                : std::string(),
                     "; before HostOffloader only entry parameters and "
                     "annotations may say where a value lives, so the passes "
                     "clear it (this is how a layout-assignment leak shows up)"),
        first_leak_));
  }

 private:
  const Instruction* first_leak_ = nullptr;
  int64_t leaks_ = 0;
};

}  // namespace

std::unique_ptr<LintChecker> NewLeakedHostMemorySpace() {
  return std::make_unique<LeakedHostMemorySpace>();
}

}  // namespace hloff
