// OffloadLayoutAssignment: the layout of a MoveToHost that is reshaped.
#include "passes/offload_layout_assignment.h"

#include <vector>

#include "analysis/offload_utils.h"
#include "passes/algebraic_simplifier.h"

namespace hloff {
namespace {

// A layout of `shape`'s rank with `minor_to_major`, the rest of `like`.
Layout WithMinorToMajor(const Layout& like, std::vector<int64_t> minor_to_major) {
  Layout layout = like;
  layout.minor_to_major = std::move(minor_to_major);
  return layout;
}

// Whether a layout is plain: a dimension order and a memory space, nothing
// else (no tiles, element size or other tail), so that changing the order is
// all a new layout means.
bool IsPlain(const Shape& shape) {
  if (!shape.has_layout) return true;
  Layout order_only;
  order_only.minor_to_major = shape.layout.minor_to_major;
  order_only.memory_space = shape.layout.memory_space;
  return shape.layout == order_only;
}

// Instructions whose result layout XLA's layout assignment chooses freely
// from their users' constraints. Those that keep a layout of their own
// (parameters, tuple plumbing, bitcasts, whose meaning is their layouts,
// constants, calls and loops, whose computations share it, fusions and
// custom-calls, whose layouts are fixed by their bodies or targets) are not.
bool LayoutIsFree(const Instruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kBitcast:
    case HloOpcode::kConstant:
    case HloOpcode::kCall:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kFusion:
    case HloOpcode::kCustomCall:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kOptimizationBarrier:
      return false;
    default:
      return instr->shape().IsArray() && IsPlain(instr->shape()) &&
             instr->control_predecessors().empty();
  }
}

}  // namespace

std::optional<Layout> OperandLayoutForBitcastReshape(const Shape& operand,
                                                     const Shape& output) {
  if (!operand.IsArray() || !output.IsArray() ||
      operand.element_type != output.element_type ||
      operand.ElementCount() != output.ElementCount()) {
    return std::nullopt;
  }
  Shape out = output;
  if (!out.has_layout ||
      static_cast<int64_t>(out.layout.minor_to_major.size()) != out.rank()) {
    out.has_layout = true;
    out.layout.minor_to_major = DefaultMinorToMajor(out.rank());
  }
  const Layout base = operand.has_layout ? operand.layout : Layout();
  std::vector<std::vector<int64_t>> candidates;
  // Only size-1 dimensions inserted or deleted: the dimensions above 1 of
  // both, in logical order, have the same sizes.
  std::vector<int64_t> in_big, out_big;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (operand.dimensions[d] != 1) in_big.push_back(d);
  }
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (out.dimensions[d] != 1) out_big.push_back(d);
  }
  bool same_sizes = in_big.size() == out_big.size();
  for (size_t i = 0; same_sizes && i < in_big.size(); ++i) {
    same_sizes = operand.dimensions[in_big[i]] == out.dimensions[out_big[i]];
  }
  if (same_sizes) {
    std::vector<int64_t> to_operand(out.rank(), -1);
    for (size_t i = 0; i < out_big.size(); ++i) to_operand[out_big[i]] = in_big[i];
    std::vector<int64_t> m2m;
    for (int64_t d : out.layout.minor_to_major) {
      if (d >= 0 && d < out.rank() && to_operand[d] >= 0) m2m.push_back(to_operand[d]);
    }
    for (int64_t d = operand.rank() - 1; d >= 0; --d) {
      if (operand.dimensions[d] == 1) m2m.push_back(d);
    }
    candidates.push_back(std::move(m2m));
  }
  candidates.push_back(DefaultMinorToMajor(operand.rank()));
  if (operand.rank() == out.rank()) candidates.push_back(out.layout.minor_to_major);
  for (std::vector<int64_t>& m2m : candidates) {
    if (static_cast<int64_t>(m2m.size()) != operand.rank()) continue;
    Shape with = operand;
    with.has_layout = true;
    with.layout = WithMinorToMajor(base, std::move(m2m));
    if (XlaReshapeIsBitcast(with, out)) return with.layout;
  }
  return std::nullopt;
}

absl::StatusOr<bool> OffloadLayoutAssignment::Run(Module& module) {
  bool changed = false;
  for (const auto& comp : module.computations()) {
    for (Instruction* move : comp->instructions()) {
      if (!move->IsCustomCall(kMoveToHostTarget) || move->operand_count() != 1 ||
          !move->shape().IsArray() || !IsPlain(move->shape()) ||
          move->user_count() == 0) {
        continue;
      }
      Instruction* operand = move->operand(0);
      if (!LayoutIsFree(operand) ||
          !shape_util::Compatible(operand->shape(), move->shape())) {
        continue;
      }
      // The one operand layout every user, a reshape, asks for.
      std::optional<Layout> wanted;
      bool agree = true;
      for (const Instruction* user : move->users()) {
        std::optional<Layout> layout;
        if (user->opcode() == HloOpcode::kReshape && IsPlain(user->shape())) {
          layout = OperandLayoutForBitcastReshape(move->shape(), user->shape());
        }
        if (!layout || (wanted && wanted->minor_to_major != layout->minor_to_major)) {
          agree = false;
          break;
        }
        wanted = layout;
      }
      if (!agree || !wanted) continue;
      if (MinorToMajorOrDefault(move->shape()) == wanted->minor_to_major &&
          MinorToMajorOrDefault(operand->shape()) == wanted->minor_to_major) {
        continue;
      }
      for (Instruction* instr : {operand, move}) {
        Shape* shape = instr->mutable_shape();
        const int64_t space = shape->has_layout ? shape->layout.memory_space
                                                : kDefaultMemorySpace;
        shape->has_layout = true;
        shape->layout = WithMinorToMajor(shape->layout, wanted->minor_to_major);
        shape->layout.memory_space = space;
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloff
