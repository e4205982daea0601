// Which instructions have side effects, as XLA's HloInstruction::
// HasSideEffect decides it (called computations included). Shared by the
// passes that must keep such instructions (CSE, DCE, the call inliner).
#ifndef HLO_OFFLOAD_ANALYSIS_SIDE_EFFECTS_H_
#define HLO_OFFLOAD_ANALYSIS_SIDE_EFFECTS_H_

#include "absl/container/flat_hash_map.h"
#include "ir/hlo.h"

namespace hloff {

// XLA's HloInstruction::HasSideEffectNoRecurse. A collective with a
// channel_id is side-effecting in XLA only outside SPMD partitioning, which
// the text does not say; it is treated as side-effecting.
bool HasSideEffectNoRecurse(const Instruction* instr);

// Whether an instruction, or a computation it calls (transitively), has a
// side-effecting instruction (XLA's HloInstruction::HasSideEffect); memoized
// per computation, so the answers stay valid only while the computations
// are not changed. Callees are visited with an explicit stack: a chain of
// 10^4 calls must not exhaust the native one.
class SideEffects {
 public:
  bool Of(const Instruction* instr);
  // Whether `computation` has a side-effecting instruction, or calls one.
  bool OfComputation(const Computation* computation);

 private:
  absl::flat_hash_map<const Computation*, bool> memo_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_SIDE_EFFECTS_H_
