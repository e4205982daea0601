// HO3009 NestedHostStack (docs/errors/HO3009.md).
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/host_path_walk.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

using shape_util::MemorySpaceName;

// Reports the dynamic-update-slice `outer` of a loop body when its update is
// the host stack an inner loop built, with the memory spaces that disagree
// around it after the pipeline.
void LintNestedHostStack(const Module& module, const CallGraph& call_graph,
                         const Instruction* outer,
                         std::vector<Diagnostic>& out) {
  constexpr int kMaxHops = 16;
  std::vector<const Instruction*> hops;  // from the update up
  const Instruction* at = outer->operand(1);
  while (static_cast<int>(hops.size()) < kMaxHops && IsCopyOrBitcastHop(at)) {
    hops.push_back(at);
    at = at->operand(0);
  }
  if (at->opcode() != HloOpcode::kGetTupleElement ||
      at->operand(0)->opcode() != HloOpcode::kWhile) {
    return;
  }
  const Instruction* inner = at->operand(0);
  const Computation* inner_body = inner->while_body();
  const int64_t k = at->tuple_index();
  if (inner_body == nullptr ||
      inner_body->root()->opcode() != HloOpcode::kTuple ||
      k >= inner_body->root()->operand_count()) {
    return;
  }
  const Instruction* stacked = inner_body->root()->operand(k);
  for (int i = 0; i < kMaxHops && IsCopyOrBitcastHop(stacked); ++i) {
    stacked = stacked->operand(0);
  }
  if (stacked->opcode() != HloOpcode::kDynamicUpdateSlice ||
      stacked->shape().memory_space() != kHostMemorySpace) {
    return;
  }
  Diagnostic d = MakeDiagnostic(
      DiagCode::kHO3009,
      absl::StrCat(
          "dynamic-update-slice \"", outer->input_name(),
          "\" writes the host stack of while \"", inner->input_name(),
          "\" (built by \"", stacked->input_name(), "\" in ",
          inner_body->name(), ")", SourceSuffix(module, stacked),
          " into a stacked buffer of the enclosing loop: a stacked host "
          "buffer nested in a stacked buffer is a known-risky pattern; the "
          "pipeline leaves memory spaces that disagree around it, which "
          "later compilation rejects (e.g. \"bad bitcast\")"),
      outer);
  // What disagrees after the pipeline.
  const int64_t space = outer->shape().memory_space();
  const int64_t update_space = outer->operand(1)->shape().memory_space();
  if (space != update_space) {
    d.notes.push_back(Note{
        absl::StrCat("\"", outer->input_name(), "\" is in ", MemorySpaceName(space),
                     " but its update \"", outer->operand(1)->input_name(),
                     "\" is in ", MemorySpaceName(update_space)),
        outer->loc()});
  }
  // The outer stack is element p of the loop tuple: the body reads it from
  // its parameter and writes `outer` back to the same element (looked up
  // directly, not by scanning the root's operands).
  const Instruction* buffer = outer->operand(0);
  for (int i = 0; i < kMaxHops && IsCopyOrBitcastHop(buffer); ++i) {
    buffer = buffer->operand(0);
  }
  const Computation* body = outer->parent();
  const Instruction* root = body->root();
  if (buffer->opcode() == HloOpcode::kGetTupleElement &&
      buffer->operand(0)->opcode() == HloOpcode::kParameter &&
      root->opcode() == HloOpcode::kTuple &&
      buffer->tuple_index() < root->operand_count() &&
      root->operand(buffer->tuple_index()) == outer) {
    const int64_t p = buffer->tuple_index();
    const Shape* element = shape_util::TryGetSubshape(root->shape(), {p});
    if (element != nullptr && element->IsArray() &&
        element->memory_space() != space) {
      d.notes.push_back(Note{
          absl::StrCat("\"", root->input_name(), "\" element {", p, "} is in ",
                       MemorySpaceName(element->memory_space()),
                       " but its operand \"", outer->input_name(), "\" is in ",
                       MemorySpaceName(space)),
          root->loc()});
    }
    for (const Instruction* loop : call_graph.CallersOf(body)) {
      if (loop->opcode() != HloOpcode::kWhile || loop->while_body() != body ||
          loop->operand_count() != 1) {
        continue;
      }
      const Shape* carried = shape_util::TryGetSubshape(loop->shape(), {p});
      const Instruction* init = loop->operand(0);
      const Instruction* passed =
          init->opcode() == HloOpcode::kTuple && p < init->operand_count()
              ? init->operand(p)
              : nullptr;
      const Shape* given =
          passed != nullptr ? &passed->shape()
                            : shape_util::TryGetSubshape(init->shape(), {p});
      if (carried == nullptr || given == nullptr || !carried->IsArray() ||
          !given->IsArray() ||
          carried->memory_space() == given->memory_space()) {
        continue;
      }
      d.notes.push_back(Note{
          absl::StrCat("while \"", loop->input_name(), "\" element {", p,
                       "} is in ", MemorySpaceName(carried->memory_space()),
                       " but its operand \"", init->input_name(), "\" passes ",
                       passed != nullptr
                           ? absl::StrCat("\"", passed->input_name(), "\"")
                           : absl::StrCat("element {", p, "}"),
                       " in ", MemorySpaceName(given->memory_space())),
          loop->loc()});
    }
  }
  // The host path through both loops and the joining hops.
  auto hop = [](const Instruction* instr, ShapeIndex index) {
    return PathHop{std::string(instr->input_name()),
                   std::string(instr->input_computation()), std::move(index),
                   instr->loc()};
  };
  d.path.push_back(hop(stacked, {}));
  d.path.push_back(hop(inner_body->root(), {k}));
  d.path.push_back(hop(inner, {k}));
  d.path.push_back(hop(at, {}));
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    d.path.push_back(hop(*it, {}));
  }
  d.path.push_back(hop(outer, {}));
  d.fixes.push_back(Fix{
      "annotate-outer-stack",
      absl::StrCat(
          "annotate the outer stack instead: keep the inner scan's values on "
          "device and move the finished block (or the outer scan's stacked "
          "output) to pinned_host; or unroll the inner scan, whose ",
          LintBytes(shape_util::ByteSizeOf(stacked->shape())),
          " stack then stays in device memory")});
  out.push_back(std::move(d));
}

// Detects, after the pipeline, a loop's host stack (a dynamic-update-slice
// into a loop-carried buffer in host memory) written as the update of a
// dynamic-update-slice of the loop around it: a stacked host buffer nested in
// a stacked buffer. HostOffloader (xla/hlo/transforms/host_offloader.cc)
// follows the offloaded value into the outer write's update but never walks
// the outer buffer, so it leaves memory spaces that disagree around the outer
// write and says nothing; a later step of a real compiler rejects the module
// (a "bad bitcast" was seen on TPU).
class NestedHostStack : public LintChecker {
 public:
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kDynamicUpdateSlice;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (!context.in_loop_body() || instr->operand_count() < 2) {
      return;
    }
    LintNestedHostStack(context.module(), context.call_graph(), instr,
                        context.out());
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewNestedHostStack() {
  return std::make_unique<NestedHostStack>();
}

}  // namespace hloff
