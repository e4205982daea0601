// Layout-sensitive common-subexpression elimination over a whole module: two
// instructions with the same opcode, shape (layout and memory space
// included), operands and attributes are merged into the first. HostOffloader
// ends with it, as XLA's does (HloCSE(is_layout_sensitive=true), main spec
// §3.4 step 9, §4.1 item 18), so duplicates unrelated to offloading are merged
// too. Mirrors xla/service/hlo_cse.cc (HloCSE::RunOnComputation and
// ShouldEliminateInstruction): instructions without operands are left alone
// except constants (XLA's CombineConstants), partition-id, replica-id and
// those marked _xla_cse_safe_zero_operand; MUST_FUSE and side-effecting
// instructions (XLA's HasSideEffect, called computations included) and
// instructions with control dependencies are never merged; the two operands
// of add, multiply, mulhi, maximum, minimum, and, or and xor match in either
// order; identical iotas count as the same operand. Differences, all on the
// side of merging less: called computations must be the same computation
// (XLA also merges structurally equal ones), collectives with a channel_id,
// async, copy-start/-done, optimization-barrier, domain and add-dependency
// instructions are not merged, and iotas repeated as operands of one
// instruction are not folded into one.
#ifndef HLO_OFFLOAD_PASSES_HLO_CSE_H_
#define HLO_OFFLOAD_PASSES_HLO_CSE_H_

#include "ir/hlo.h"

namespace hloff {

// Returns true if anything was merged. Linear in the module size.
bool RunLayoutSensitiveCse(Module& module);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HLO_CSE_H_
