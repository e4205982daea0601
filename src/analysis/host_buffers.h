// Host-memory buffers: which host-resident values share storage, the way
// XLA's HloAliasAnalysis (xla/service/hlo_alias_analysis.cc) groups the
// values of HloDataflowAnalysis into HloBuffers, restricted to what the
// host-memory accounting needs: forwarding through tuple, get-tuple-element,
// bitcast, opt-barrier, the buffer operand of dynamic-update-slice,
// while/call/conditional/async operands, parameters and results, and custom
// calls with output_to_operand_aliasing. A scan's stacked loop buffer is one
// buffer. The report's host intermediates (report/host_buffers.h) and the
// HO3012 lint (lints/pinned_host_budget_exceeded.cc) both count these.
#ifndef HLO_OFFLOAD_ANALYSIS_HOST_BUFFERS_H_
#define HLO_OFFLOAD_ANALYSIS_HOST_BUFFERS_H_

#include <cstdint>
#include <vector>

#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "ir/hlo.h"

namespace hloff {

// Every array leaf in host memory (memory space 5) of the live instructions
// of `module`, as (instruction, full shape index): computation by
// computation, instructions in their order, leaves in ForEachSubshape order.
// Each leaf appears once. Linear in the number of subshapes of the module.
std::vector<InstructionAndShapeIndex> HostArrayLeaves(const Module& module);

// How IntermediateHostBufferGroups links values; the defaults are those of
// a module after the HostOffloader.
struct HostBufferOptions {
  // Whether a MoveToHost or MoveToDevice annotation whose operand (at the
  // same shape index) is one of the host leaves shares its operand's
  // storage: an annotation on data already in host memory moves nothing.
  // For the module before the HostOffloader, where annotations remain.
  bool annotations_on_host_data_forward = false;
  // The order in which values are discovered from the host leaves: breadth
  // first (the leaves' links first) or depth first (the last leaf's chain
  // first). Groups, their order and their bytes do not depend on it; it
  // decides only which producer names a buffer that several values define
  // (HostBufferGroup::defining).
  enum class Discovery { kBreadthFirst, kDepthFirst };
  Discovery discovery = Discovery::kBreadthFirst;
};

// One host buffer that is neither a host entry parameter nor a host entry
// output: values that share one storage, at least one of them in host memory.
struct HostBufferGroup {
  // The value that defines the buffer: the first one discovered that
  // forwards no other value's storage (a MoveToHost, an AllocateBuffer, a
  // broadcast), or the first value of the group when every value forwards one.
  InstructionAndShapeIndex defining;
  // The first of its values in host memory, in the order of the host leaves.
  InstructionAndShapeIndex first_host;
  // The buffer's size in bytes: the largest of its values' array sizes (they
  // are equal in a well-formed module).
  int64_t bytes = 0;
  // Whether a while loop carries it (one of its values is a while's element).
  bool loop_carried = false;
};

// Groups `host_leaves` (array leaves in host memory, as (instruction, full
// shape index); duplicates allowed) with every value that shares their
// storage, looking towards producers as XLA's alias analysis does, and
// returns the groups that are neither a host entry parameter nor a host entry
// output (memory space 5 of entry_computation_layout), in the order their
// first value appears in `host_leaves`. A union-find over the values reached
// from the leaves: linear in the number of values reached (times the callers
// of a called computation's parameters), with hash lookups.
std::vector<HostBufferGroup> IntermediateHostBufferGroups(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves,
    const HostBufferOptions& options = {});

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_HOST_BUFFERS_H_
