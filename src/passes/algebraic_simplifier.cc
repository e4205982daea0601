// AlgebraicSimplifier, layout-sensitive bitcast rewrites.
#include "passes/algebraic_simplifier.h"

#include <vector>

#include "absl/container/flat_hash_map.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "analysis/side_effects.h"
#include "passes/replace_instruction.h"

namespace hloff {

std::vector<int64_t> DefaultMinorToMajor(int64_t rank) {
  std::vector<int64_t> m2m(rank);
  for (int64_t i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

std::vector<int64_t> MinorToMajorOrDefault(const Shape& shape) {
  if (shape.has_layout &&
      static_cast<int64_t>(shape.layout.minor_to_major.size()) ==
          shape.rank()) {
    return shape.layout.minor_to_major;
  }
  return DefaultMinorToMajor(shape.rank());
}

namespace {

// xla::IndexUtil::MultidimensionalIndexToLinearIndex with `minor_to_major`.
int64_t PhysicalIndex(const Shape& shape, const std::vector<int64_t>& m2m,
                      const std::vector<int64_t>& index) {
  int64_t linear = 0, scale = 1;
  for (int64_t dim : m2m) {
    linear += index[dim] * scale;
    scale *= shape.dimensions[dim];
  }
  return linear;
}

// One direction of XLA's check: each unit index of `a` and the index of `b`
// with the same row-major (logical) position have the same physical offset.
bool UnitIndicesAgree(const Shape& a, const Shape& b) {
  std::vector<int64_t> a_m2m = MinorToMajorOrDefault(a), b_m2m = MinorToMajorOrDefault(b);
  const int64_t a_rank = a.rank(), b_rank = b.rank();
  for (int64_t dim = 0; dim < a_rank; ++dim) {
    if (a.dimensions[dim] <= 1) continue;
    std::vector<int64_t> unit(a_rank, 0);
    unit[dim] = 1;
    // Row-major linear index of the unit index in `a`.
    int64_t logical = 0;
    for (int64_t d = 0; d < a_rank; ++d) {
      logical = logical * a.dimensions[d] + unit[d];
    }
    // The index of `b` at that row-major position.
    std::vector<int64_t> b_index(b_rank, 0);
    for (int64_t d = b_rank - 1; d >= 0; --d) {
      int64_t size = b.dimensions[d];
      b_index[d] = size == 0 ? 0 : logical % size;
      logical = size == 0 ? 0 : logical / size;
    }
    if (PhysicalIndex(a, a_m2m, unit) != PhysicalIndex(b, b_m2m, b_index)) {
      return false;
    }
  }
  return true;
}

bool Static(const Shape& shape) {
  if (!shape.IsArray()) return false;
  for (size_t d = 0; d < shape.dimensions.size(); ++d) {
    if (shape.dimensions[d] < 0 || shape.IsDynamicDimension(d)) return false;
  }
  return true;
}

// xla::ShapeUtil::Equal, layouts included; a missing layout counts as the
// default one.
bool SameShape(const Shape& a, const Shape& b) {
  if (a == b) return true;
  Shape x = a, y = b;
  shape_util::SetDefaultLayoutsWhereMissing(x);
  shape_util::SetDefaultLayoutsWhereMissing(y);
  return x == y;
}

class Simplifier {
 public:
  explicit Simplifier(Module& module) : module_(module) {}

  // The layout-insensitive rewrites (algsimp-layout-insensitive).
  bool VisitLayoutInsensitive(Instruction* instr) {
    if (instr->IsDead() || !instr->control_predecessors().empty()) return false;
    if (instr->opcode() == HloOpcode::kSelect && instr->operand_count() == 3) {
      Instruction* on_true = Operand(instr, 1);
      return on_true == Operand(instr, 2) &&
             shape_util::Compatible(instr->shape(), on_true->shape()) &&
             Replace(instr, on_true);
    }
    if (instr->opcode() == HloOpcode::kDynamicSlice) {
      return HandleDynamicSlice(instr);
    }
    return false;
  }

  // Moves the uses of what was replaced in `comp` and removes it, with the
  // operands it leaves unused (the end of XLA's ReplaceInstruction, once
  // per computation: see MoveUses).
  void Finish(Computation* comp) {
    if (replaced_.empty()) return;
    MoveUses(comp, replaced_);
    for (Instruction* old : order_) {
      if (!old->IsDead() && old->user_count() == 0 && !old->IsRoot()) {
        RemoveInstructionAndUnusedOperands(old, side_effects_);
      }
    }
    replaced_.clear();
    order_.clear();
  }

  bool Visit(Instruction* instr) {
    if (instr->IsDead() || !instr->control_predecessors().empty() ||
        instr->operand_count() != 1) {
      return false;
    }
    switch (instr->opcode()) {
      case HloOpcode::kReshape:
        return HandleReshape(instr);
      case HloOpcode::kTranspose:
        return HandleTranspose(instr);
      case HloOpcode::kCopy:
        return HandleCopy(instr);
      case HloOpcode::kBitcast:
        return HandleBitcast(instr);
      default:
        return false;
    }
  }

 private:
  // What `instr` stands for once the replacements made so far take effect.
  Instruction* Resolve(Instruction* instr) const {
    for (auto it = replaced_.find(instr); it != replaced_.end();
         it = replaced_.find(instr)) {
      instr = it->second;
    }
    return instr;
  }
  Instruction* Operand(const Instruction* instr, int64_t i = 0) const {
    return Resolve(instr->operand(i));
  }

  // XLA's ReplaceInstruction, its uses moved in Finish.
  bool Replace(Instruction* old, Instruction* replacement,
               const ReplaceOptions& options = ReplaceOptions()) {
    if (!PrepareReplacement(old, replacement, options)) return false;
    replaced_[old] = replacement;
    order_.push_back(old);
    return true;
  }

  // XLA's ReplaceInstructionIfCompatible (layout-sensitive SameShape).
  bool ReplaceIfSameShape(Instruction* old, Instruction* replacement) {
    if (!SameShape(old->shape(), replacement->shape())) return false;
    ReplaceOptions options;
    options.preserve_sharding = true;
    return Replace(old, replacement, options);
  }

  // A new instruction of `opcode` and `old`'s shape on `operand`, put in
  // `old`'s place (XLA's ReplaceWithNewInstruction / ReplaceWithBitcast).
  // Diagnostics report it as `old` stood in the input.
  bool ReplaceWithNew(Instruction* old, HloOpcode opcode,
                      Instruction* operand) {
    if (opcode == HloOpcode::kBitcast) {
      // What XLA's fixed point (HloPassFix) does with the new bitcast next:
      // a bitcast of a bitcast is one bitcast (HandleBitcast), and one of
      // its operand's shape is the operand.
      while (operand->opcode() == HloOpcode::kBitcast &&
             operand->operand_count() == 1) {
        operand = Operand(operand);
      }
      if (SameShape(old->shape(), operand->shape())) {
        return Replace(old, operand);
      }
    }
    Computation* comp = old->parent();
    Instruction* fresh = comp->AddInstruction(
        opcode, old->shape(), {operand}, HloOpcodeString(opcode));
    // XLA's ReplaceInstruction gives the new instruction `old`'s metadata.
    if (HasPrintedOpName(old)) fresh->set_metadata_from(*old);
    fresh->set_input_from(*old, old->input_computation());
    if (!Replace(old, fresh)) {
      comp->RemoveInstruction(fresh);
      return false;
    }
    return true;
  }

  // XLA's BitcastingOperandOfReshapeOrCopyChain (layout-sensitive).
  Instruction* BitcastingOperand(Instruction* instr) {
    Instruction* operand = Operand(instr);
    for (int links = 0; links < AlgebraicSimplifier::kMaxChain; ++links) {
      if (Bitcastable(operand->shape(), instr->shape())) return operand;
      if ((operand->opcode() != HloOpcode::kReshape &&
           operand->opcode() != HloOpcode::kCopy) ||
          operand->operand_count() != 1) {
        return nullptr;
      }
      operand = Operand(operand);
    }
    return nullptr;
  }

  static bool Bitcastable(const Shape& from, const Shape& to) {
    return Static(from) && Static(to) && XlaReshapeIsBitcast(from, to);
  }

  bool HandleReshape(Instruction* reshape) {
    Instruction* operand = Operand(reshape);
    if (SameShape(reshape->shape(), operand->shape()) &&
        Replace(reshape, operand)) {
      return true;
    }
    if (Instruction* source = BitcastingOperand(reshape)) {
      return ReplaceWithNew(reshape, HloOpcode::kBitcast, source);
    }
    return false;
  }

  bool HandleDynamicSlice(Instruction* ds) {
    if (ds->operand_count() < 1 || !ds->shape().IsArray()) return false;
    Instruction* operand = Operand(ds);
    const Shape& os = operand->shape();
    if (ds->shape().rank() == 0 || shape_util::Compatible(os, ds->shape())) {
      return shape_util::Compatible(os, ds->shape()) && Replace(ds, operand);
    }
    if (operand->opcode() == HloOpcode::kConstant || !os.IsArray() ||
        ds->operand_count() != os.rank() + 1 || ds->shape().rank() != os.rank()) {
      return false;
    }
    std::vector<Instruction::SliceDim> dims;
    for (int64_t d = 0; d < os.rank(); ++d) {
      const Instruction* start = Operand(ds, d + 1);
      if (start->opcode() != HloOpcode::kConstant ||
          !IsIntegralType(start->shape().element_type)) {
        return false;
      }
      // Literal::GetFirstInteger.
      auto values = ParseIntegers(start->literal_text());
      if (!values || values->empty() || values->front() < 0) return false;
      const int64_t offset = values->front();
      const int64_t size = ds->shape().dimensions[d];
      const int64_t begin = std::min(os.dimensions[d] - size, offset);
      dims.push_back({begin, begin + size, 1});
    }
    Computation* comp = ds->parent();
    Instruction* slice = comp->AddInstruction(HloOpcode::kSlice, ds->shape(),
                                              {operand}, ds->name());
    InstructionBuilder::SetSliceDims(slice, dims);
    if (HasPrintedOpName(ds)) slice->set_metadata_from(*ds);
    slice->set_input_from(*ds, ds->input_computation());
    if (!Replace(ds, slice)) {
      comp->RemoveInstruction(slice);
      return false;
    }
    return true;
  }

  bool HandleTranspose(Instruction* transpose) {
    Instruction* operand = Operand(transpose);
    auto attr = transpose->FindRawAttribute("dimensions");
    std::optional<std::vector<int64_t>> parsed;
    if (attr) parsed = ParseIntegers(attr->value);
    if (!parsed || static_cast<int64_t>(parsed->size()) != transpose->shape().rank()) {
      return false;
    }
    const std::vector<int64_t>& dims = *parsed;
    bool identity = true;
    for (size_t i = 0; i < dims.size(); ++i) identity &= dims[i] == int64_t(i);
    if (identity) return Replace(transpose, operand);
    if (Static(operand->shape()) && Static(transpose->shape()) &&
        operand->shape().element_type == transpose->shape().element_type &&
        XlaTransposeIsBitcast(operand->shape(), transpose->shape(), dims)) {
      return ReplaceWithNew(transpose, HloOpcode::kBitcast, operand);
    }
    return false;
  }

  bool HandleCopy(Instruction* copy) {
    Instruction* operand = Operand(copy);
    if (operand->opcode() == HloOpcode::kCopy &&
        operand->operand_count() == 1) {
      Instruction* inner = Operand(operand);
      if (SameShape(inner->shape(), copy->shape())) return Replace(copy, inner);
      return ReplaceWithNew(copy, HloOpcode::kCopy, inner);
    }
    const Instruction* entry_root = module_.entry()->root();
    if ((!copy->sharding() || entry_root != copy) &&
        ReplaceIfSameShape(copy, operand)) {
      return true;
    }
    if (copy->shape().memory_space() != operand->shape().memory_space()) {
      return false;
    }
    if (Instruction* source = BitcastingOperand(copy)) {
      return ReplaceWithNew(copy, HloOpcode::kBitcast, source);
    }
    return false;
  }

  bool HandleBitcast(Instruction* bitcast) {
    Instruction* operand = Operand(bitcast);
    if (operand->opcode() == HloOpcode::kBitcast &&
        operand->operand_count() == 1) {
      // Post order: the inner bitcast is simplified already.
      return ReplaceWithNew(bitcast, HloOpcode::kBitcast, Operand(operand));
    }
    if (bitcast->shape().element_type != operand->shape().element_type) {
      return false;
    }
    return ReplaceIfSameShape(bitcast, operand);
  }

  Module& module_;
  SideEffects side_effects_;
  absl::flat_hash_map<const Instruction*, Instruction*> replaced_;
  std::vector<Instruction*> order_;
};

}  // namespace

bool XlaReshapeIsBitcast(const Shape& input, const Shape& output) {
  if (!input.IsArray() || !output.IsArray()) return false;
  if (input.element_type != output.element_type) return false;
  if (input.ElementCount() != output.ElementCount()) return false;
  if (input.ElementCount() == 0) return true;
  return UnitIndicesAgree(input, output) && UnitIndicesAgree(output, input);
}

bool XlaTransposeIsBitcast(const Shape& input, const Shape& output,
                           absl::Span<const int64_t> dimensions) {
  std::vector<int64_t> in = MinorToMajorOrDefault(input), out = MinorToMajorOrDefault(output);
  if (in.size() != out.size() || dimensions.size() != out.size()) return false;
  // ComposePermutations(dimensions, out)[i] = dimensions[out[i]].
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 0 || out[i] >= static_cast<int64_t>(dimensions.size()) ||
        dimensions[out[i]] != in[i]) {
      return false;
    }
  }
  return true;
}

absl::StatusOr<bool> AlgebraicSimplifier::Run(Module& module) {
  bool changed = false;
  Simplifier simplifier(module);
  for (const auto& comp : module.computations()) {
    if (!layout_sensitive_ && comp->execution_thread() != "main") continue;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      changed |= layout_sensitive_ ? simplifier.Visit(instr)
                                   : simplifier.VisitLayoutInsensitive(instr);
    }
    simplifier.Finish(comp.get());
  }
  return changed;
}

}  // namespace hloff
