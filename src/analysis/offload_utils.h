// Dataflow over (instruction, shape index) pairs for host offloading: the
// successor and predecessor relations of xla/service/host_offload_utils.cc
// (GetSuccessors, GetPredecessors) as of the newest XLA (V6), using a call
// graph built once instead of one per query. Analyses never mutate.
#ifndef HLO_OFFLOAD_ANALYSIS_OFFLOAD_UTILS_H_
#define HLO_OFFLOAD_ANALYSIS_OFFLOAD_UTILS_H_

#include "absl/strings/string_view.h"
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "analysis/call_graph.h"
#include "ir/hlo.h"

namespace hloff {

// Custom-call targets of xla/service/memory_annotations.h.
inline constexpr absl::string_view kMoveToHostTarget = "MoveToHost";
inline constexpr absl::string_view kMoveToDeviceTarget = "MoveToDevice";
inline constexpr absl::string_view kPinToDeviceTarget = "PinToDevice";
inline constexpr absl::string_view kPinToDeviceSramTarget = "PinToDeviceSram";
inline constexpr absl::string_view kAllocateBufferTarget = "AllocateBuffer";
inline constexpr absl::string_view kDevicePlacementTarget =
    "annotate_device_placement";
inline constexpr absl::string_view kX64SplitLowTarget = "X64SplitLow";
inline constexpr absl::string_view kX64SplitHighTarget = "X64SplitHigh";
inline constexpr absl::string_view kBufferPlacementAttr = "_xla_buffer_placement";
inline constexpr absl::string_view kComputeTypeAttr = "_xla_compute_type";
inline constexpr absl::string_view kComputeTypeHost = "host";

// (instruction, shape index): xla::host_offload_utils::InstructionAndShapeIndex.
struct InstructionAndShapeIndex {
  Instruction* instruction = nullptr;
  ShapeIndex shape_index;

  bool operator==(const InstructionAndShapeIndex& o) const {
    return instruction == o.instruction && shape_index == o.shape_index;
  }
  template <typename H>
  friend H AbslHashValue(H h, const InstructionAndShapeIndex& v) {
    return H::combine(std::move(h), v.instruction, v.shape_index);
  }
  // `{Instr: name, ShapeIndex: {1,0}}`, XLA's ToString.
  std::string ToString() const;
};

bool IsMoveToHost(const Instruction* instr);
bool IsMoveToDevice(const Instruction* instr);
// An async-start running on the host thread (IsHostAsyncStart).
bool IsHostAsyncStart(const Instruction* instr);
// True for a copy whose operand and result both have layouts and exactly one
// of them is in host memory (IsSynchronousCopyFromOrToHost).
bool IsSynchronousCopyFromOrToHost(const Instruction* instr);
bool ComputeTypeIsHost(const Instruction* instr);
// Whether custom call `instr` writes its output into operand `operand_index`
// (MoveToHost/MoveToDevice, or listed in output_to_operand_aliasing).
bool CustomCallReusesBuffer(const Instruction* instr, int64_t operand_index);

// Successors of a tracked value (main spec §3.3 GetSuccessors). Errors:
// INTERNAL when a custom call aliases two operands to the output;
// UNIMPLEMENTED where XLA would fail a CHECK (a get-tuple-element reached
// with an empty shape index, a conditional's branch selector tracked).
// With `skip_whole_tuple_reads`, a get-tuple-element reached with an empty
// shape index is skipped instead of being an error (the tolerance newest
// HostOffloadLegalize relies on for multi-output ops such as sort).
// On error, `*offending` (if given) is set to the instruction at fault.
absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetSuccessors(
    const InstructionAndShapeIndex& value, const CallGraph& call_graph,
    bool skip_whole_tuple_reads = false, Instruction** offending = nullptr);

// The message prefix of the error GetSuccessors returns when a
// get-tuple-element reads a tracked value as a whole (XLA: a CHECK failure).
inline constexpr absl::string_view kWholeTupleReadError = "get-tuple-element \"";

// Predecessors (V6 GetPredecessors, conditionals included). `operand_index`
// picks the operand of multi-operand instructions. Errors: UNIMPLEMENTED where
// XLA would fail a CHECK (tuple with empty index, several operands and no
// operand index).
absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetPredecessors(
    const InstructionAndShapeIndex& value, const CallGraph& call_graph,
    std::optional<int64_t> operand_index = std::nullopt);

// A MoveToHost whose value reaches a dynamic-update-slice through reshape,
// broadcast or transpose users (IsMoveToHostWithDynamicUpdateSlice).
bool IsMoveToHostWithDynamicUpdateSlice(const Instruction* instr);
// A MoveToDevice fed by a dynamic-slice through reshape, broadcast or
// transpose operands (IsMoveToDeviceWithDynamicSlice).
bool IsMoveToDeviceWithDynamicSlice(const Instruction* instr);

// For a while loop whose body offloads through DUS/DS (one of the two
// predicates above holds for a body instruction): the loop-tuple indices whose
// get-tuple-elements flow, through copy/add/subtract/multiply/divide, into
// the index operands of the body's DS and DUS. Empty otherwise. Mirrors V6
// host_offload_utils CollectDynamicVariableTupleIndices.
absl::flat_hash_set<int64_t> CollectDynamicVariableTupleIndices(
    const Instruction* while_loop);

// The hops allowed between a host slice/dynamic-slice and its MoveToDevice
// (HostOffloader::InstructionIsAllowedBetweenDsAndMoveToDevice, V5+): bitcast,
// copy, a bitcast reshape, a reduce that keeps the number of non-degenerate
// dimensions, and the loop plumbing (tuple, opt-barrier, get-tuple-element,
// parameter, while).
bool IsAllowedBetweenSliceAndMoveToDevice(const Instruction* instr);

// What the walk from a slice of a host value found
// (SliceLeadsToMoveToDevice).
struct SliceWalk {
  // Every path from the slice, through the hops that
  // IsAllowedBetweenSliceAndMoveToDevice allows, ends in a MoveToDevice.
  bool leads = true;
  // With `record_paths` and `leads`: each MoveToDevice reached, with the
  // instructions from the slice's first user to it (in walk order).
  std::vector<std::pair<const Instruction*, std::vector<const Instruction*>>>
      move_to_devices;
};

// The HostOffloader's SliceLeadsToMoveToDevice (host_offloader.cc, V5+): a
// breadth-first walk of GetSuccessors from `slice` (a slice or dynamic-slice
// of a value in host memory) that stops at MoveToDevices and fails at the
// first instruction that is not an allowed hop. The offloader turns a slice
// that does not lead into host compute (HO2002); the report records the
// paths. Errors: GetSuccessors' (`offending` receives the instruction).
absl::StatusOr<SliceWalk> SliceLeadsToMoveToDevice(
    const Instruction* slice, const CallGraph& call_graph, bool record_paths,
    Instruction** offending = nullptr);

// The MoveToHosts in the order HostOffloader processes them: the post order
// of the entry computation, descending depth-first into called computations
// where they are called, each computation once (host_offloader.cc RunImpl's
// ProcessNextMoveToHostInstr loop, without its rescans). Linear in the module.
std::vector<Instruction*> MoveToHostsInOffloaderOrder(const Module& module);

// An offload annotation: MoveToHost, MoveToDevice, PinToDevice,
// PinToDeviceSram or annotate_device_placement custom calls.
bool IsOffloadAnnotation(const Instruction* instr);

// What a module that HostOffloader has already run on shows: instructions
// other than entry parameters whose shape has an array leaf in host memory
// (S(5)), or AllocateBuffer custom calls, and no offload annotation left
// (annotate_device_placement, MoveToHost, MoveToDevice, PinToDevice*). Such a
// module is an after-optimization dump: the passes clear S(5) from every
// instruction before they start (as XLA's do) and find nothing to offload.
struct EarlierOffloading {
  int64_t allocate_buffers = 0;   // whatever their memory space
  int64_t host_instructions = 0;  // the others with S(5) in their shape
  // The first AllocateBuffer in text order, else the first instruction with
  // S(5).
  const Instruction* first = nullptr;
};
// The signs above, or nullopt when the module has an offload annotation or
// none of the signs. Linear in the module.
std::optional<EarlierOffloading> FindEarlierOffloading(const Module& module);
// "1 AllocateBuffer custom call and 8 other instructions with host memory
// space S(5)" (either part left out when its count is 0).
std::string DescribeEarlierOffloading(const EarlierOffloading& signs);

// True when the subshape at `index` is an array in host memory (memory
// space 5), or a tuple whose array leaves all are and that has at least one:
// the HostOffloader's test of the entry computation layout
// (host_offloader.cc's checks of ComputationLayout::result_layout).
bool SubshapeIsHost(const Shape& shape, const ShapeIndex& index);

// The value of a scalar integer constant (`s32[] constant(4)`); nullopt for
// anything else.
std::optional<int64_t> ScalarIntegerConstant(const Instruction* instr);

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_OFFLOAD_UTILS_H_
