// Pipelined host writes: the shape collective pipelining (and pipelined host
// offloading) leaves a scan's offload in. Instead of writing iteration i's
// value into the host stack in iteration i, the loop carries the value to the
// next iteration and writes it there, at index i - 1; the last iteration's
// value is written after the loop (the peeled epilogue). Nothing in XLA names
// this; the report counts these writes and the lints explain them.
#ifndef HLO_OFFLOAD_ANALYSIS_PIPELINED_WRITES_H_
#define HLO_OFFLOAD_ANALYSIS_PIPELINED_WRITES_H_

#include <cstdint>
#include <vector>

#include "analysis/call_graph.h"
#include "ir/hlo.h"

namespace hloff {

// One write of a loop-carried value into a host stack, one iteration late.
struct PipelinedHostWrite {
  // The dynamic-update-slice in the loop body; its result is in host memory.
  const Instruction* write = nullptr;
  // The while loop whose body holds `write`.
  const Instruction* loop = nullptr;
  // The loop-tuple element the written value is carried in (the update is a
  // get-tuple-element of the body parameter at this index, through copies
  // and bitcasts).
  int64_t carried_index = -1;
  // The loop counter's tuple element and the index operand that writes at
  // counter + `offset` (offset < 0: -1 for i - 1).
  int64_t counter_index = -1;
  const Instruction* index = nullptr;
  int64_t offset = 0;
  // Host dynamic-update-slices after the loop that write the loop's last
  // carried value (element `carried_index` of the while's result).
  std::vector<const Instruction*> peeled;
};

// Every pipelined host write of `module`, in module order. Reads memory
// spaces, so call it on the module after the host-offloading pipeline (the
// written stack is S(5) and the update is not). Linear in the module size.
std::vector<PipelinedHostWrite> FindPipelinedHostWrites(
    const Module& module, const CallGraph& call_graph);

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_PIPELINED_WRITES_H_
