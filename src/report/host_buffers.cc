// Host buffers (host_buffers.h): analysis/host_buffers.h's groups as the
// report's HostBuffer records.
#include "report/host_buffers.h"

#include <string>
#include <utility>

#include "analysis/host_buffers.h"
#include "report/report_util.h"

namespace hloff {

std::vector<HostBuffer> IntermediateHostBuffers(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves) {
  HostBufferOptions options;
  options.annotations_on_host_data_forward = true;
  options.discovery = HostBufferOptions::Discovery::kBreadthFirst;
  std::vector<HostBuffer> buffers;
  for (const HostBufferGroup& group :
       IntermediateHostBufferGroups(module, call_graph, host_leaves, options)) {
    const Instruction* defining = group.defining.instruction;
    const InstructionAndShapeIndex& host = group.first_host;
    HostBuffer buffer;
    buffer.defined_by = report_util::Ref(defining);
    buffer.defined_by_opcode =
        defining->opcode() == HloOpcode::kCustomCall
            ? std::string(defining->custom_call_target())
            : std::string(HloOpcodeString(defining->opcode()));
    buffer.shape = report_util::ShapeAt(host.instruction->shape(), host.shape_index);
    buffer.bytes = group.bytes;
    buffer.loop_carried = group.loop_carried;
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

}  // namespace hloff
