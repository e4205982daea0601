// HO3001 ComputeOnHostBeforeMoveToDevice (docs/errors/HO3001.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// "computation/instruction": names an instruction across the pipeline, which
// keeps names but not instruction objects.
std::string Key(const Instruction* instr) {
  return absl::StrCat(instr->parent()->name(), "/", instr->name());
}

// Detects device compute on host data whose every user moves the result to
// device: an operation the pipeline turned into host compute right before
// its MoveToDevice, almost always a device_put written one line too late.
// XLA's HostOffloader accepts it: it converts the operation into host compute
// and only logs that it did (host_offloader.cc, HO2001 here); it does not say
// that swapping the two would run the operation on device. In the input
// phase it remembers the instructions tagged host compute already, which are
// meant to run there.
class ComputeOnHostBeforeMoveToDevice : public LintChecker {
 public:
  // Any instruction may be tagged host compute; after the pipeline,
  // dynamic-slices, dynamic-update-slices and copies are transfers, not
  // compute.
  bool Visits(LintPhase phase, HloOpcode opcode) const override {
    return phase == LintPhase::kInput ||
           (opcode != HloOpcode::kDynamicSlice &&
            opcode != HloOpcode::kDynamicUpdateSlice && opcode != HloOpcode::kCopy);
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (context.phase() == LintPhase::kInput) {
      if (ComputeTypeIsHost(instr)) {
        context.mutable_facts().preexisting_host_compute.insert(Key(instr));
      }
      return;
    }
    if (!ComputeTypeIsHost(instr) ||
        context.facts().preexisting_host_compute.contains(Key(instr)) ||
        instr->operand_count() < 1 || instr->users().empty()) {
      return;
    }
    bool all_to_device = true;
    for (const Instruction* user : instr->users()) {
      all_to_device &= user->opcode() == HloOpcode::kCopy &&
                       user->shape().memory_space() == kDefaultMemorySpace;
    }
    const Instruction* input = nullptr;
    for (const Instruction* op : instr->operands()) {
      if (op->shape().memory_space() == kHostMemorySpace) input = op;
    }
    if (!all_to_device || input == nullptr) return;
    const Module& module = context.module();
    int64_t now = shape_util::ByteSizeOf(instr->shape());
    int64_t after = shape_util::ByteSizeOf(input->shape());
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3001,
        absl::StrCat("\"", instr->name(), "\" (", instr->opcode_spelling(), ")",
                     SourceSuffix(module, instr),
                     " computes on host data right before it is moved to "
                     "device, so XLA runs it on the host"),
        instr);
    d.fixes.push_back(Fix{
        "swap",
        absl::StrCat("move the device_put before it (e.g. ",
                     instr->opcode_spelling(), "(device_put(x)) instead of "
                     "device_put(", instr->opcode_spelling(),
                     "(x))) so that it runs on device; the transfer "
                     "changes from ",
                     LintBytes(now), " to ", LintBytes(after))});
    context.out().push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewComputeOnHostBeforeMoveToDevice() {
  return std::make_unique<ComputeOnHostBeforeMoveToDevice>();
}

}  // namespace hloff
