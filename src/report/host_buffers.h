// Host-memory buffers: which host-resident values share storage, the way
// XLA's HloAliasAnalysis groups values into buffers, restricted to what the
// report needs (forwarding through tuples, get-tuple-element, bitcast,
// opt-barrier, the buffer operand of dynamic-update-slice, while/call/
// conditional/async operands, parameters and results, and custom calls with
// output_to_operand_aliasing). A stacked loop buffer is one buffer.
#ifndef HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_
#define HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_

#include <vector>

#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "ir/hlo.h"
#include "report/report.h"

namespace hloff {

// Groups `host_leaves` (array leaves in host memory, as (instruction, full
// shape index)) with every value that shares their storage, in linear time
// (a union-find over the values reached), and returns the groups that are
// neither a host entry parameter nor a host entry output, in the order their
// first value appears in `host_leaves`. Each buffer's bytes are the largest
// of its values' (they are equal in a well-formed module).
std::vector<HostBuffer> IntermediateHostBuffers(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_
