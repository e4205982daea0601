// algsimp: the rewrites of XLA's AlgebraicSimplifier
// (xla/hlo/transforms/simplifiers/algebraic_simplifier.cc) in the
// layout-sensitive mode the GPU compiler runs it in after layout assignment
// (GetAlgebraicSimplifierOptions, kPostLayoutAssignment), limited to those
// that change what the host offloader sees: which data movement is a
// bitcast. On a host path a bitcast is allowed and a reshape, transpose or
// copy that moves bytes is host compute, so a reshape that only adds a
// size-1 dimension (a scan's stacking) must become a bitcast first.
//  - reshape (HandleReshape): of an operand of the same shape, layout
//    included: the operand; else a bitcast when the reshape, or the chain of
//    reshapes and copies above it, is a bitcast
//    (BitcastingOperandOfReshapeOrCopyChain, ShapeUtil::ReshapeIsBitcast);
//  - transpose (HandleTranspose): with an identity permutation: its operand;
//    a bitcast when the layouts make it one (ShapeUtil::TransposeIsBitcast);
//  - copy (HandleCopy): of a copy: one copy (none when the outer copy has
//    the inner operand's shape); of an operand of the same shape, layout
//    included: the operand (not the sharded entry root); else, within one
//    memory space, a bitcast when the chain of copies and reshapes is one;
//  - bitcast (HandleBitcast): of a bitcast: one bitcast; of an operand of
//    the same shape, layout included: the operand.
// The input's layouts stand for the assigned ones (XLA's layout assignment
// keeps the layouts the module states); an array without a layout counts
// as the default (descending) layout. Instructions with control
// predecessors are left alone, as XLA does. Every other rewrite of XLA's
// AlgebraicSimplifier is not done.
#ifndef HLO_OFFLOAD_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define HLO_OFFLOAD_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include <vector>

#include "ir/shape.h"
#include "passes/pass.h"

namespace hloff {

// The default (descending) minor_to_major of a rank: {rank-1, ..., 0}.
std::vector<int64_t> DefaultMinorToMajor(int64_t rank);
// minor_to_major of `shape`, the default one when it has no layout (or one
// of another rank).
std::vector<int64_t> MinorToMajorOrDefault(const Shape& shape);

// xla::ShapeUtil::ReshapeIsBitcast: same element type and count, and every
// unit index of either shape lands at the same physical offset in the
// other (layouts as above; tiles ignored, as XLA's IndexUtil does).
bool XlaReshapeIsBitcast(const Shape& input, const Shape& output);

// xla::ShapeUtil::TransposeIsBitcast for `transpose` with `dimensions`
// (output dimension i is input dimension dimensions[i]).
bool XlaTransposeIsBitcast(const Shape& input, const Shape& output,
                           absl::Span<const int64_t> dimensions);

class AlgebraicSimplifier : public HloPass {
 public:
  static constexpr int kMaxChain = 64;
  // `layout_sensitive`: algsimp (after layout assignment); otherwise
  // algsimp-layout-insensitive (before it).
  explicit AlgebraicSimplifier(const PassContext& context,
                               bool layout_sensitive = true)
      : context_(context), layout_sensitive_(layout_sensitive) {}
  absl::string_view name() const override {
    return layout_sensitive_ ? "algsimp" : "algsimp-layout-insensitive";
  }
  // One visit of each instruction in post order. Linear: the walk up a
  // chain of reshapes and copies stops after kMaxChain links (XLA walks the
  // whole chain; a longer chain of non-bitcast reshapes and copies is left
  // as it is).
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
  bool layout_sensitive_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_ALGEBRAIC_SIMPLIFIER_H_
