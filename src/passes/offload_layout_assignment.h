// offload-layout-assignment: the layout XLA's LayoutAssignment
// (xla/service/layout_assignment.cc) gives a value moved to host memory that
// is then reshaped, modelled for that one case, since the module's own
// layouts (those the StableHLO import writes) stand for the assigned ones
// everywhere else (algebraic_simplifier.h).
//
// LayoutAssignment propagates layouts from users to operands. For a reshape
// it picks the operand layout that makes the reshape a bitcast
// (ChooseOperandLayoutFromOutputLayout: ShapeUtil::AlignLayouts of the
// output's layout), and a MoveToHost custom-call, which cannot change layout,
// passes that layout on to its own operand. So when a value is moved to host
// and reshaped (a scan writing it into its stack: reshape to [1, ...], then a
// dynamic-update-slice), XLA's module before the HostOffloader has the
// MoveToHost in the layout that makes the reshape a bitcast, and the layout
// change happens on the device before it (a transpose that is no bitcast,
// or a GEMM that writes the transposed product). Seen in XLA's dumps
// before host-offloader on GPU (a real H200 with JAX 0.11.2, and the CUDA
// plugin's deviceless compiles) and TPU (libtpu's deviceless compiles):
// `custom-call(...), custom_call_target="MoveToHost"` in {1,0}, then a
// bitcast into the stack.
//
// The pass: for each MoveToHost whose users are all reshapes that one
// operand layout makes bitcasts, gives that layout to the MoveToHost and to
// its operand when the operand is an instruction whose layout is XLA's to
// choose (not a parameter, get-tuple-element, bitcast, constant, call, loop,
// fusion or custom-call, which keep theirs); otherwise it changes nothing.
// It runs in the xla pipeline where XLA's layout assignment runs, before
// host-offload-legalize.
#ifndef HLO_OFFLOAD_PASSES_OFFLOAD_LAYOUT_ASSIGNMENT_H_
#define HLO_OFFLOAD_PASSES_OFFLOAD_LAYOUT_ASSIGNMENT_H_

#include <optional>

#include "ir/shape.h"
#include "passes/pass.h"

namespace hloff {

// The layout of `operand` (an array shape; its own layout is ignored) that
// makes a reshape of it to `output` a bitcast, the output without a layout
// standing for the default one, or nullopt when none is found. Tried in
// order: for a reshape that only inserts or deletes size-1 dimensions, the
// output's dimension order on the operand's dimensions of size above 1 (its
// size-1 dimensions most major); then the operand's default layout; then,
// at equal rank, the output's layout. Each candidate is checked with
// XlaReshapeIsBitcast. A subset of xla::ShapeUtil::AlignLayouts.
std::optional<Layout> OperandLayoutForBitcastReshape(const Shape& operand,
                                                     const Shape& output);

class OffloadLayoutAssignment : public HloPass {
 public:
  explicit OffloadLayoutAssignment(const PassContext& context)
      : context_(context) {}
  absl::string_view name() const override {
    return "offload-layout-assignment";
  }
  // One look at each instruction; linear in the module.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_OFFLOAD_LAYOUT_ASSIGNMENT_H_
