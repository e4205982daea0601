// HO3011 LargeConditionalPassThroughOnHost (docs/errors/HO3011.md).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Bytes that conditional branch `branch` returns unchanged from its
// parameter: all of it when the root is the parameter, the elements that
// are the parameter or its get-tuple-elements when the root is a tuple.
int64_t PassThroughBytes(const Computation& branch) {
  if (branch.num_parameters() != 1) return 0;
  const Instruction* param = branch.parameter(0);
  const Instruction* root = branch.root();
  if (root == param) return shape_util::ByteSizeOf(root->shape());
  if (root->opcode() != HloOpcode::kTuple) return 0;
  int64_t bytes = 0;
  for (const Instruction* op : root->operands()) {
    if (op == param || (op->opcode() == HloOpcode::kGetTupleElement &&
                        op->operand(0) == param)) {
      bytes = shape_util::SaturatingAdd(bytes, shape_util::ByteSizeOf(op->shape()));
    }
  }
  return bytes;
}

// What HO3011 computes once per branch computation and per host-compute
// call, since several conditionals may share them.
struct HostConditionalMemo {
  absl::flat_hash_map<const Computation*, int64_t> pass_through_bytes;
  absl::flat_hash_map<const Instruction*, std::string> device_inputs;
};

// Reports conditional `cond`, which runs as host compute, when a branch
// passes a large operand through unchanged. `host_computations` maps each
// computation that runs as host compute to the instruction that makes it so.
void LintHostConditional(
    const Module& module,
    const absl::flat_hash_map<const Computation*, const Instruction*>&
        host_computations,
    const Instruction* cond, HostConditionalMemo& memo,
    std::vector<Diagnostic>& out) {
  const auto& branches = cond->called_computations();
  if (cond->operand_count() != static_cast<int64_t>(branches.size()) + 1) return;
  std::vector<std::string> passing;
  int64_t largest = 0;
  for (size_t b = 0; b < branches.size(); ++b) {
    auto [known, added] = memo.pass_through_bytes.try_emplace(branches[b]);
    if (added) known->second = PassThroughBytes(*branches[b]);
    const int64_t bytes = known->second;
    if (bytes < kLargePassThroughBytes) continue;
    largest = std::max(largest, bytes);
    passing.push_back(absl::StrCat("\"", branches[b]->name(), "\" (",
                                   LintBytes(bytes), " of operand \"",
                                   cond->operand(b + 1)->input_name(), "\")"));
  }
  if (passing.empty()) return;
  Diagnostic d = MakeDiagnostic(
      DiagCode::kHO3011,
      absl::StrCat(
          "conditional \"", cond->input_name(), "\"", SourceSuffix(module, cond),
          " runs as host compute and passes a large operand through "
          "unchanged in branch", passing.size() == 1 ? " " : "es ",
          absl::StrJoin(passing, ", "),
          ": the result of a host conditional is a buffer of its own, so a "
          "pass-through of ", LintBytes(largest),
          " is likely an extra copy, even of a donated buffer"),
      cond);
  // What crosses into the branches.
  std::vector<std::string> crossing;
  for (size_t b = 0; b < branches.size(); ++b) {
    const Instruction* operand = cond->operand(b + 1);
    crossing.push_back(absl::StrCat(
        "\"", operand->input_name(), "\" (",
        LintBytes(shape_util::ByteSizeOf(operand->shape())), ") into \"",
        branches[b]->name(), "\""));
  }
  d.notes.push_back(Note{absl::StrCat("operands entering the branches: ",
                                      absl::StrJoin(crossing, ", ")),
                         cond->loc()});
  // Device data that enters the host computation holding the conditional.
  auto host = host_computations.find(cond->parent());
  if (host != host_computations.end()) {
    const Instruction* caller = host->second;
    auto [inputs, added] = memo.device_inputs.try_emplace(caller);
    if (added) {
      std::vector<std::string> device;
      for (const Instruction* op : caller->operands()) {
        int64_t bytes = shape_util::ByteSizeOf(op->shape());
        if (HasHostLeaf(op->shape()) || bytes == 0) continue;
        device.push_back(
            absl::StrCat("\"", op->input_name(), "\" (", LintBytes(bytes), ")"));
      }
      inputs->second = absl::StrJoin(device, ", ");
    }
    if (!inputs->second.empty()) {
      d.notes.push_back(Note{
          absl::StrCat("device data crossing into the host computation of \"",
                       caller->origin_name(), "\": ", inputs->second),
          caller->loc()});
    }
  }
  d.fixes.push_back(Fix{
      "select",
      "compute the update unconditionally and choose with a select "
      "(jnp.where(ok, new_state, state), or lax.select) instead of lax.cond: "
      "a select is elementwise, so it can write the donated buffer in place "
      "where the pass-through branch copies it"});
  out.push_back(std::move(d));
}

// Detects, after the pipeline, a conditional that runs as host compute (in a
// computation called with _xla_compute_type="host", tagged itself, or with a
// host result) whose branch returns at least kLargePassThroughBytes of its
// operand unchanged, such as the state of a skipped optimizer step. XLA
// accepts it: the result of a conditional is a buffer of its own, so the
// branch that does nothing copies the whole operand, a donated buffer
// included, and nothing in XLA's host offloading says so.
class LargeConditionalPassThroughOnHost : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kConditional;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    const auto& host_computations = context.host_computations();
    if (!host_computations.contains(context.computation()) &&
        !ComputeTypeIsHost(instr) && !HasHostLeaf(instr->shape())) {
      return;
    }
    LintHostConditional(context.module(), host_computations, instr, memo_,
                        context.out());
  }

 private:
  HostConditionalMemo memo_;
};

}  // namespace

std::unique_ptr<LintChecker> NewLargeConditionalPassThroughOnHost() {
  return std::make_unique<LargeConditionalPassThroughOnHost>();
}

}  // namespace hloff
