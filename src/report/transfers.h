// Host<->device transfers in a module after the host-offloading pipeline,
// attributed to the while loops they run in, with the loops' constant trip
// counts.
#ifndef HLO_OFFLOAD_REPORT_TRANSFERS_H_
#define HLO_OFFLOAD_REPORT_TRANSFERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/call_graph.h"
#include "ir/hlo.h"
#include "report/report.h"

namespace hloff {

// The trip count of while loop `while_loop` when it is a compile-time
// constant: the `known_trip_count` of its backend_config, or a condition
// `compare(get-tuple-element(param, k), constant)` (LT, LE, GT, GE, NE, either
// operand order) with a constant initial value of element k and a body that
// adds a constant to it. nullopt otherwise.
std::optional<int64_t> ConstantTripCount(const Instruction& while_loop);

// The innermost while loop each computation runs in, and how often a loop's
// body runs per execution of the entry computation. Memoised per
// computation, so asking for every computation is linear.
class LoopNesting {
 public:
  LoopNesting(const Module& module, const CallGraph& call_graph)
      : module_(module), call_graph_(call_graph) {}

  // The while loop whose body (or condition) `comp` is, directly or through
  // calls and conditionals; nullptr outside loops.
  const Instruction* InnermostLoop(const Computation* comp);

  // The product of the constant trip counts of `loop` and the loops around
  // it: how often its body runs per step; 1 for nullptr (no loop); nullopt
  // when one of them is not constant or the product overflows.
  std::optional<int64_t> Executions(const Instruction* loop);

 private:
  const Module& module_;
  const CallGraph& call_graph_;
  absl::flat_hash_map<const Computation*, const Instruction*> memo_;
};

// Fills report.transfers, report.loops and the copies_inserted counts from
// `module` after the pipeline: copies between memory spaces (inserted when
// their name is not in `input_copies`, the copies of the input), dynamic-slices
// from host to device memory and dynamic-update-slices from device data into
// host memory, each in the innermost while loop it runs in.
void CollectTransfers(const Module& module,
                      const absl::flat_hash_set<std::string>& input_copies,
                      Report& report);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_TRANSFERS_H_
