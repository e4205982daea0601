// The report's host-resident intermediates: analysis/host_buffers.h's groups
// of host-resident values that share storage, in the report's terms (the
// defining instruction as the user wrote it, the shape, the bytes).
#ifndef HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_
#define HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_

#include <vector>

#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "ir/hlo.h"
#include "report/report.h"

namespace hloff {

// The host buffers of IntermediateHostBufferGroups for `host_leaves` (array
// leaves in host memory, as (instruction, full shape index)), discovered
// breadth first, an annotation on host data sharing its operand's storage
// (the module before the HostOffloader has them): those that are neither a
// host entry parameter nor a host entry output, in the order their first
// value appears in `host_leaves`. Linear in the values reached.
std::vector<HostBuffer> IntermediateHostBuffers(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_HOST_BUFFERS_H_
