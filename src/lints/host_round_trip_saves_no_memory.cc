// HO3014 HostRoundTripSavesNoMemory (docs/errors/HO3014.md).
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Notes listed one by one before the rest are summed up in one: a generated
// or unrolled module can hold 10^5 of them.
constexpr int64_t kMaxRoundTripNotes = 20;

// Notes, in the input, a move to host whose only user moves the value
// straight back to device. The pipeline turns the pair into a copy to host
// and a copy to device (xla/hlo/transforms/host_offloader.cc) and accepts
// it, but nothing in the program waits for the value while it is away, so
// the round trip lowers no device memory peak and costs two transfers. The
// value is what was on device before the (possibly repeated) moves to host;
// a host entry parameter moved to device is a transfer in, not a round trip.
class HostRoundTripSavesNoMemory : public LintChecker {
 public:
  // A move to host is a custom call.
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kCustomCall;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (!IsToHostAnnotation(instr)) return;
    const Instruction* value =
        instr->operand_count() == 1 ? instr->operand(0) : nullptr;
    for (int hops = 0; value != nullptr && hops < 16 &&
                       IsToHostAnnotation(value) && value->operand_count() == 1;
         ++hops) {
      value = value->operand(0);
    }
    if (value == nullptr || instr->user_count() != 1 || !IsToDeviceAnnotation(instr->users()[0]) ||
        IsToHostAnnotation(value) ||
        (value->opcode() == HloOpcode::kParameter && context.in_entry() &&
         HasHostLeaf(context.layout().parameters[value->parameter_number()]))) {
      return;
    }
    const Module& module = context.module();
    const Instruction* back = instr->users()[0];
    int64_t byte_count = shape_util::ByteSizeOf(value->shape());
    if (++round_trips_ > kMaxRoundTripNotes) {
      unlisted_bytes_ += byte_count;
      return;
    }
    std::string bytes = LintBytes(byte_count);
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3014,
        absl::StrCat("\"", instr->input_name(), "\"", SourceSuffix(module, instr),
                     " moves \"", value->input_name(), "\" (", bytes,
                     ") to host and \"", back->input_name(), "\"",
                     SourceSuffix(module, back),
                     " moves it straight back to device: the round trip "
                     "saves no device memory (the move back is the only "
                     "use of the host copy, so nothing in the program "
                     "waits for the value while it is away) and costs "
                     "two ",
                     bytes, " transfers"),
        instr);
    d.fixes.push_back(Fix{
        "remove",
        "drop both device_puts, or offload the value where it is produced "
        "and bring it back right before it is used, so that its device "
        "memory is free in between"});
    context.out().push_back(std::move(d));
  }

  void AfterModule(LintContext& context) override {
    if (round_trips_ <= kMaxRoundTripNotes) return;
    Diagnostic d;
    d.code = DiagCode::kHO3014;
    d.severity = DiagCodeSeverity(DiagCode::kHO3014);
    d.message = absl::StrCat(
        round_trips_ - kMaxRoundTripNotes,
        " more moves to host go straight back to device (",
        LintBytes(unlisted_bytes_), " in all); the first ", kMaxRoundTripNotes,
        " are listed above");
    context.out().push_back(std::move(d));
  }

 private:
  int64_t round_trips_ = 0;
  int64_t unlisted_bytes_ = 0;
};

}  // namespace

std::unique_ptr<LintChecker> NewHostRoundTripSavesNoMemory() {
  return std::make_unique<HostRoundTripSavesNoMemory>();
}

}  // namespace hloff
