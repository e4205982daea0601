// The one walk of an offloaded tensor (see host_path_walk.h).
#include "analysis/host_path_walk.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "ir/opcode.h"
#include "support/status_macros.h"

namespace hloff {

HostPathStep HostPathWalk::StepOf(const Instruction* instr,
                                  bool copy_compares_memory_space) {
  if (IsMoveToHost(instr)) return HostPathStep::kMoveToHost;
  if (IsMoveToDevice(instr)) return HostPathStep::kMoveToDevice;
  const HloOpcode opcode = instr->opcode();
  if (opcode == HloOpcode::kDynamicUpdateSlice) {
    return HostPathStep::kDynamicUpdateSlice;
  }
  if (IsValidDuringPureMemoryOffload(opcode)) return HostPathStep::kPureMemory;
  if (opcode == HloOpcode::kDynamicSlice || opcode == HloOpcode::kSlice) {
    return HostPathStep::kSlice;
  }
  if (opcode == HloOpcode::kCopy) {
    const Shape& shape = instr->shape();
    const Shape& operand = instr->operand(0)->shape();
    const bool same = copy_compares_memory_space
                          ? shape == operand
                          : shape_util::EqualIgnoringMemorySpace(shape, operand);
    if (!same) return HostPathStep::kLayoutCopy;
  }
  return HostPathStep::kHostCompute;
}

absl::Status HostPathWalk::Run(const InstructionAndShapeIndex& start,
                               HostPathObserver& observer) {
  start_ = start;
  previous_.clear();
  absl::flat_hash_set<InstructionAndShapeIndex> seen = {start};
  std::deque<InstructionAndShapeIndex> queue = {start};
  while (!queue.empty()) {
    InstructionAndShapeIndex current = std::move(queue.front());
    queue.pop_front();
    ASSIGN_OR_RETURN(
        HostPathNext next,
        observer.Visit(*this, current,
                       StepOf(current.instruction,
                              options_.copy_compares_memory_space)));
    if (next == HostPathNext::kStop) continue;
    Instruction* offending = nullptr;
    auto successors = GetSuccessors(current, call_graph_,
                                    options_.skip_whole_tuple_reads, &offending);
    if (!successors.ok()) {
      RETURN_IF_ERROR(
          observer.SuccessorsFailed(current, successors.status(), offending));
      continue;
    }
    for (InstructionAndShapeIndex& s : *successors) {
      observer.Hop(current, s);
      if (!observer.ShouldWalk(s) || !seen.insert(s).second) continue;
      previous_.emplace(s, current);
      queue.push_back(std::move(s));
    }
  }
  return absl::OkStatus();
}

const InstructionAndShapeIndex* HostPathWalk::Previous(
    const InstructionAndShapeIndex& value) const {
  auto it = previous_.find(value);
  return it == previous_.end() ? nullptr : &it->second;
}

std::vector<InstructionAndShapeIndex> HostPathWalk::PathTo(
    const InstructionAndShapeIndex& value, size_t max_hops,
    bool* truncated) const {
  std::vector<InstructionAndShapeIndex> path = {value};
  bool cut = false;
  // First-discovery links end at the start, which has none; the bound only
  // guards against a value that was never reached from it.
  for (const InstructionAndShapeIndex* prev = Previous(value);
       prev != nullptr && path.size() <= previous_.size(); prev = Previous(*prev)) {
    if (max_hops != 0 && path.size() >= max_hops) {
      cut = true;
      break;
    }
    path.push_back(*prev);
  }
  std::reverse(path.begin(), path.end());
  if (truncated != nullptr) *truncated = cut;
  return path;
}

bool IsEntryRoot(const Instruction* instr, const Module& module) {
  return instr->parent() == module.entry() && instr->IsRoot();
}

bool IsHopBeforeWalkStart(const Instruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
      return true;
    case HloOpcode::kReshape:
      return shape_util::ReshapeIsBitcast(instr->operand(0)->shape(),
                                          instr->shape());
    default:
      return false;
  }
}

}  // namespace hloff
