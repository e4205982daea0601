// The call graph of a module: for every computation, the instructions that
// call it (while, call, conditional, fusion, async-start, reduce, ...). Built
// once in O(instructions); the host-offloading passes never add call edges,
// so it stays valid while they run. Mirrors the caller queries of
// xla/hlo/analysis/call_graph.h that host_offload_utils.cc uses, without
// XLA's rebuild on every query.
#ifndef HLO_OFFLOAD_ANALYSIS_CALL_GRAPH_H_
#define HLO_OFFLOAD_ANALYSIS_CALL_GRAPH_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/hlo.h"

namespace hloff {

class CallGraph {
 public:
  explicit CallGraph(const Module& module);

  // Call sites of `computation`, in module order, each instruction once.
  // Dead instructions are skipped.
  std::vector<Instruction*> CallersOf(const Computation* computation) const;

 private:
  absl::flat_hash_map<const Computation*, std::vector<Instruction*>> callers_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_CALL_GRAPH_H_
