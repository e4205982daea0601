// The two fixes for E1200 (an offloaded tensor reaching an entry output whose
// layout is not host memory), described for diagnostics and applied by
// `hlo-offload fix`:
//   host-output    — declare that output in host memory (memory space 5 in the
//                    entry computation layout; in JAX, out_shardings with
//                    memory_kind="pinned_host");
//   move-to-device — bring the value back to device memory before it is
//                    returned (a MoveToDevice on the value feeding that
//                    output; in JAX, jax.device_put(x, memory_kind="device")).
// These go beyond XLA, which only names the walk's start instruction.
#ifndef HLO_OFFLOAD_PASSES_OFFLOAD_FIXES_H_
#define HLO_OFFLOAD_PASSES_OFFLOAD_FIXES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"

namespace hloff {

// The fix `hlo-offload fix --strategy` applies (its names and their parse:
// pipeline/choices.h).
enum class FixStrategy { kHostOutput, kMoveToDevice };

// The instruction whose value is returned at entry output `index`, found by
// following root tuples: `producer` is returned through operand
// `operand_index` of `consumer` (nullptr when the producer is the root
// itself), and `rest` is the index still to go inside the producer.
struct OutputValue {
  Instruction* producer = nullptr;
  Instruction* consumer = nullptr;
  int64_t operand_index = -1;
  ShapeIndex rest;
};
OutputValue FindOutputValue(const Module& module, const ShapeIndex& index);

// Both fixes for an E1200 at entry output `index`, in plain words with the
// exact new entry_computation_layout and the JAX spelling. `output_path` is
// the output's JAX pytree path where a front end knows it
// ("result['opt']['mu']"): the out_shardings entry is then named by it
// (`out_shardings['opt']['mu']`) instead of by the flat index.
std::vector<Fix> E1200Fixes(const Module& module, const ShapeIndex& index,
                            absl::string_view output_path = {});

// How a JAX user names the out_shardings entry of the output whose pytree
// path is `output_path`: JAX writes result paths as "result" followed by the
// key path (`DebugInfo.set_result_paths`, jax/_src/linear_util.py), and
// out_shardings has the structure of the result, so "result['opt']['mu']"
// is `out_shardings['opt']['mu']` and "result" is `out_shardings`. A path
// not of that form gives "the out_shardings entry of PATH".
std::string OutShardingsEntry(absl::string_view output_path);

// Rewrites `module` so that the given entry outputs stop raising E1200.
// host-output sets memory space 5 on those leaves of the entry computation
// layout; move-to-device wraps the value feeding each output in a MoveToDevice
// custom call. Errors: FAILED_PRECONDITION when an index does not exist.
absl::Status ApplyE1200Fix(Module& module, FixStrategy strategy,
                           const std::vector<ShapeIndex>& outputs);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_OFFLOAD_FIXES_H_
