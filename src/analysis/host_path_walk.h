// The walk of an offloaded tensor: from a MoveToHost or a host-memory entry
// parameter, breadth first over (instruction, shape index) pairs by
// GetSuccessors, until each path is moved back to device, consumed by host
// compute, or reaches the entry computation's root. It is the loop of
// HostOffloader::WalkDownHostMemoryOffloadPaths (and, from a MoveToHost, of
// GetStartingInstructions) in xla/hlo/transforms/host_offloader.cc, defined
// once and observable: the walk finds the values, says which of XLA's cases
// each one is (HostPathStep) and keeps the first-discovery path to it; an
// observer (like MLIR's RewriterBase::Listener) decides what each case
// means. The HostOffloader rewrites through it, the report and the E1200
// path notes record through it. The walk never mutates the module.
#ifndef HLO_OFFLOAD_ANALYSIS_HOST_PATH_WALK_H_
#define HLO_OFFLOAD_ANALYSIS_HOST_PATH_WALK_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "ir/hlo.h"

namespace hloff {

// Which of WalkDownHostMemoryOffloadPaths' cases a value of a tensor in host
// memory is, in XLA's order of tests.
enum class HostPathStep {
  kMoveToHost,          // a MoveToHost of data already in host memory: a no-op
  kMoveToDevice,        // back to device: this path ends
  kDynamicUpdateSlice,  // a write into a host buffer (through its update
                        // operand, host compute: HandleDynamicUpdateSlices)
  kPureMemory,          // passes the data on unchanged
                        // (IsValidDuringPureMemoryOffload)
  kSlice,               // slice or dynamic-slice: back to device when
                        // SliceLeadsToMoveToDevice, else host compute
  kLayoutCopy,          // a copy that changes the layout: host to host
  kHostCompute,         // anything else computes on host data
};

// What the walk's observer does with a value it was shown.
enum class HostPathNext {
  kSuccessors,  // walk on to the value's successors
  kStop,        // this value ends its path
};

class HostPathWalk;

// A value the walk reached, as its observer is shown it.
struct HostPathValue {
  const InstructionAndShapeIndex& value;
  HostPathStep step;  // its case
  // Its place in discovery order, which is visiting order; 0 is the start.
  int64_t index;
  // The index of the value it was first reached from; -1 for the start.
  int64_t previous;
};

// Told of every value a HostPathWalk reaches and of every hop it finds. The
// walk calls, in breadth-first order: Visit for each value (the start
// first), then, when Visit says kSuccessors, Hop and ShouldWalk for each of
// the value's successors.
class HostPathObserver {
 public:
  virtual ~HostPathObserver() = default;
  // `at.value` was reached (first by the path `walk.PathTo(at.index)`). A
  // non-OK status stops the walk and is Run's result.
  virtual absl::StatusOr<HostPathNext> Visit(const HostPathWalk& walk,
                                             const HostPathValue& at) = 0;
  // `to` is a successor of `from`, whether or not it is walked.
  virtual void Hop(const InstructionAndShapeIndex& from,
                   const InstructionAndShapeIndex& to) {}
  // Whether successor `to` is walked (once; a value reached again is not
  // visited again). The HostOffloader skips values an earlier walk already
  // put in host memory.
  virtual bool ShouldWalk(const InstructionAndShapeIndex& to) { return true; }
  // GetSuccessors failed at `value` (`offending`: the instruction at fault,
  // or null). A non-OK result stops the walk and is Run's result; OK goes on
  // without the value's successors.
  virtual absl::Status SuccessorsFailed(const InstructionAndShapeIndex& value,
                                        absl::Status status,
                                        Instruction* offending) {
    return status;
  }
};

// Options of a walk.
struct HostPathWalkOptions {
  // GetSuccessors' skip_whole_tuple_reads.
  bool skip_whole_tuple_reads = false;
  // A copy is a kLayoutCopy when its shape differs from its operand's,
  // memory space included (the HostOffloader: the memory spaces are the
  // ones it has set so far); false compares them ignoring memory space (a
  // walk over the module as read, whose memory spaces are not the walk's).
  bool copy_compares_memory_space = true;
};

// One breadth-first walk of a tensor in host memory. Linear in the values
// and hops it reaches: each value is visited once, and the values are kept in
// discovery order with the index of the one each was reached from, so that a
// path is followed without lookups.
class HostPathWalk {
 public:
  explicit HostPathWalk(const CallGraph& call_graph,
                        HostPathWalkOptions options = {})
      : call_graph_(call_graph), options_(options) {}

  // Walks from `start` (visited first, with the case of its instruction).
  // Returns the first non-OK status of the observer, else OK.
  absl::Status Run(const InstructionAndShapeIndex& start,
                   HostPathObserver& observer);

  // The value the walk started from.
  const InstructionAndShapeIndex& start() const { return nodes_[0].value; }
  // The value of discovery index `index` (HostPathValue::index; 0 <= index <
  // the number of values reached).
  const InstructionAndShapeIndex& value(int64_t index) const {
    return nodes_[index].value;
  }

  // The value `value` was first reached from; null for the start and for a
  // value not reached.
  const InstructionAndShapeIndex* Previous(
      const InstructionAndShapeIndex& value) const;

  // The first-discovery (shortest) path from the start to the value of
  // discovery index `index` (HostPathValue::index), both included, start
  // first. With `max_hops` > 0 at most that many values, the nearest to the
  // value; `*truncated` (when given) says whether the start was left out.
  std::vector<InstructionAndShapeIndex> PathTo(int64_t index,
                                               size_t max_hops = 0,
                                               bool* truncated = nullptr) const;
  // The same for a value reached by the walk (else just the value).
  std::vector<InstructionAndShapeIndex> PathTo(
      const InstructionAndShapeIndex& value, size_t max_hops = 0,
      bool* truncated = nullptr) const;

  // The case of `instr` in WalkDownHostMemoryOffloadPaths.
  static HostPathStep StepOf(const Instruction* instr,
                             bool copy_compares_memory_space);

 private:
  struct Node {
    InstructionAndShapeIndex value;
    int64_t previous;  // index in nodes_, -1 for the start
  };
  const CallGraph& call_graph_;
  HostPathWalkOptions options_;
  std::vector<Node> nodes_;  // discovery order; the queue is its tail
  absl::flat_hash_map<InstructionAndShapeIndex, int64_t> index_;
};

// True for the entry computation's root.
bool IsEntryRoot(const Instruction* instr, const Module& module);

// A hop a value passes through unchanged: bitcast, copy, and a reshape that
// is a bitcast. They are the hops GetStartingInstructions lets a MoveToHost's
// value take while it is still on device.
bool IsCopyOrBitcastHop(const Instruction* instr);

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_HOST_PATH_WALK_H_
