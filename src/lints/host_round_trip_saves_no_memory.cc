// HO3014 HostRoundTripSavesNoMemory (docs/errors/HO3014.md).
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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
// The entry output `instr` is (the entry root, or an operand of a tuple
// root), or nullopt.
std::optional<ShapeIndex> EntryOutputOf(const Instruction* instr,
                                        const LintContext& context) {
  if (!context.in_entry()) return std::nullopt;
  const Instruction* root = context.computation()->root();
  if (root == instr) return ShapeIndex{};
  if (root->opcode() != HloOpcode::kTuple) return std::nullopt;
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    if (root->operand(i) == instr) return ShapeIndex{i};
  }
  return std::nullopt;
}

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
    // A move back that is an entry output is the placement JAX adds for an
    // output's out_shardings (memory kind "device"): its metadata names the
    // line that traced the function, not the program, so it is named by the
    // output instead.
    std::optional<ShapeIndex> output = EntryOutputOf(back, context);
    std::string back_text =
        output.has_value()
            ? absl::StrCat("the placement of entry output {",
                           absl::StrJoin(*output, ","), "} in device memory (\"",
                           back->input_name(), "\", from out_shardings)")
            : absl::StrCat("\"", back->input_name(), "\"",
                           SourceSuffix(module, back));
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3014,
        absl::StrCat("\"", instr->input_name(), "\"", SourceSuffix(module, instr),
                     " moves \"", value->input_name(), "\" (", bytes,
                     ") to host and ", back_text,
                     " moves it straight back to device: the round trip "
                     "saves no device memory (the move back is the only "
                     "use of the host copy, so nothing in the program "
                     "waits for the value while it is away) and costs "
                     "two ",
                     bytes, " transfers"),
        instr);
    d.about_output = output;
    d.fixes.push_back(Fix{
        "remove",
        output.has_value()
            ? "if the output is meant to stay in host memory, give its "
              "out_shardings entry memory_kind=\"pinned_host\"; otherwise drop "
              "the device_put to host"
            : "drop both device_puts, or offload the value where it is produced "
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
