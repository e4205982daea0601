// Layout-sensitive common-subexpression elimination over a whole module: two
// instructions with the same opcode, shape (layout and memory space
// included), operands and attributes are merged into the first. HostOffloader
// ends with it, as XLA's does (HloCSE(is_layout_sensitive=true), main spec
// §3.4 step 9, §4.1 item 18), so duplicates unrelated to offloading are merged
// too. Mirrors xla/hlo/transforms/simplifiers/hlo_cse.cc, conservatively:
// parameters, instructions with side effects, custom calls, collectives,
// async ops, instructions that call computations and instructions with
// control dependencies are never merged.
#ifndef HLO_OFFLOAD_PASSES_HLO_CSE_H_
#define HLO_OFFLOAD_PASSES_HLO_CSE_H_

#include "ir/hlo.h"

namespace hloff {

// Returns true if anything was merged. Linear in the module size.
bool RunLayoutSensitiveCse(Module& module);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HLO_CSE_H_
