// The one walk of an offloaded tensor (see host_path_walk.h).
#include "analysis/host_path_walk.h"

#include <algorithm>
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
  nodes_.clear();
  index_.clear();
  nodes_.push_back(Node{start, -1});
  index_.emplace(start, 0);
  // Breadth first: the nodes not visited yet are the queue.
  for (size_t next = 0; next < nodes_.size(); ++next) {
    const int64_t index = static_cast<int64_t>(next);
    // A copy: nodes_ grows below.
    const InstructionAndShapeIndex current = nodes_[next].value;
    const HostPathValue at{current,
                           StepOf(current.instruction,
                                  options_.copy_compares_memory_space),
                           index, nodes_[next].previous};
    ASSIGN_OR_RETURN(HostPathNext visit, observer.Visit(*this, at));
    if (visit == HostPathNext::kStop) continue;
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
      if (!observer.ShouldWalk(s)) continue;
      if (!index_.try_emplace(s, static_cast<int64_t>(nodes_.size())).second) {
        continue;
      }
      nodes_.push_back(Node{std::move(s), index});
    }
  }
  return absl::OkStatus();
}

const InstructionAndShapeIndex* HostPathWalk::Previous(
    const InstructionAndShapeIndex& value) const {
  auto it = index_.find(value);
  if (it == index_.end() || nodes_[it->second].previous < 0) return nullptr;
  return &nodes_[nodes_[it->second].previous].value;
}

std::vector<InstructionAndShapeIndex> HostPathWalk::PathTo(
    int64_t index, size_t max_hops, bool* truncated) const {
  std::vector<InstructionAndShapeIndex> path;
  bool cut = false;
  // Each link goes to an earlier index, so the path ends at the start.
  for (int64_t at = index; at >= 0; at = nodes_[at].previous) {
    if (max_hops != 0 && path.size() >= max_hops) {
      cut = true;
      break;
    }
    path.push_back(nodes_[at].value);
  }
  std::reverse(path.begin(), path.end());
  if (truncated != nullptr) *truncated = cut;
  return path;
}

std::vector<InstructionAndShapeIndex> HostPathWalk::PathTo(
    const InstructionAndShapeIndex& value, size_t max_hops,
    bool* truncated) const {
  auto it = index_.find(value);
  if (it == index_.end()) {
    if (truncated != nullptr) *truncated = false;
    return {value};
  }
  return PathTo(it->second, max_hops, truncated);
}

bool IsEntryRoot(const Instruction* instr, const Module& module) {
  return instr->parent() == module.entry() && instr->IsRoot();
}

bool IsCopyOrBitcastHop(const Instruction* instr) {
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
