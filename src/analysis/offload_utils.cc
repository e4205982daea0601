// Successor/predecessor relations for host-offload dataflow.
#include "analysis/offload_utils.h"

#include <algorithm>
#include <deque>
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "support/status_macros.h"

namespace hloff {

std::string InstructionAndShapeIndex::ToString() const {
  return absl::StrCat("{Instr: ", instruction ? instruction->name() : "null",
                      ", ShapeIndex: ", ShapeIndexToString(shape_index), "}");
}

bool IsMoveToHost(const Instruction* instr) {
  return instr->IsCustomCall(kMoveToHostTarget);
}
bool IsMoveToDevice(const Instruction* instr) {
  return instr->IsCustomCall(kMoveToDeviceTarget);
}

bool IsHostAsyncStart(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kAsyncStart &&
         instr->async_execution_thread() == "host";
}

bool IsSynchronousCopyFromOrToHost(const Instruction* instr) {
  if (instr->opcode() != HloOpcode::kCopy) return false;
  const Shape& out = instr->shape();
  const Shape& in = instr->operand(0)->shape();
  if (!out.IsArray() || !in.IsArray() || !out.has_layout || !in.has_layout) {
    return false;
  }
  return (out.memory_space() == kHostMemorySpace) !=
         (in.memory_space() == kHostMemorySpace);
}

bool ComputeTypeIsHost(const Instruction* instr) {
  auto value = instr->GetFrontendAttribute(kComputeTypeAttr);
  return value.has_value() && *value == kComputeTypeHost;
}

bool CustomCallReusesBuffer(const Instruction* instr, int64_t operand_index) {
  if (IsMoveToHost(instr) || IsMoveToDevice(instr)) return true;
  for (const auto& alias : instr->output_to_operand_aliasing()) {
    if (alias.operand == operand_index) return true;
  }
  return false;
}

absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetSuccessors(
    const InstructionAndShapeIndex& value, const CallGraph& call_graph,
    bool skip_whole_tuple_reads, Instruction** offending) {
  std::vector<InstructionAndShapeIndex> out;
  auto blame = [&](Instruction* instr) {
    if (offending != nullptr) *offending = instr;
  };
  Instruction* instr = value.instruction;
  const ShapeIndex& index = value.shape_index;
  if (instr->IsRoot()) {
    for (Instruction* caller : call_graph.CallersOf(instr->parent())) {
      out.push_back({caller, index});
    }
  }
  for (Instruction* user : instr->users()) {
    switch (user->opcode()) {
      case HloOpcode::kTuple:
        for (int64_t p : user->OperandIndices(instr)) {
          ShapeIndex next = {p};
          next.insert(next.end(), index.begin(), index.end());
          out.push_back({user, next});
        }
        break;
      case HloOpcode::kGetTupleElement:
        if (index.empty()) {
          if (skip_whole_tuple_reads) break;
          blame(user);
          return absl::UnimplementedError(absl::StrCat(
              "get-tuple-element \"", user->name(),
              "\" reads a tracked value as a whole (empty shape index); "
              "XLA's host offloader fails a CHECK here"));
        }
        if (index.front() == user->tuple_index()) {
          out.push_back({user, ShapeIndex(index.begin() + 1, index.end())});
        }
        break;
      case HloOpcode::kCall:
        for (int64_t p : user->OperandIndices(instr)) {
          out.push_back({user->called_computations()[0]->parameter(p), index});
        }
        break;
      case HloOpcode::kWhile: {
        Computation* condition = user->while_condition();
        Computation* body = user->while_body();
        if (body == nullptr || condition == nullptr) break;
        for (int64_t p : user->OperandIndices(instr)) {
          if (p < body->num_parameters()) out.push_back({body->parameter(p), index});
          if (p < condition->num_parameters()) {
            out.push_back({condition->parameter(p), index});
          }
        }
        break;
      }
      case HloOpcode::kConditional:
        for (int64_t p : user->OperandIndices(instr)) {
          if (p == 0) {
            blame(user);
            return absl::UnimplementedError(absl::StrCat(
                "the branch selector of conditional \"", user->name(),
                "\" is host data; XLA's host offloader maps it to branch -1 "
                "and fails"));
          }
          const auto& branches = user->called_computations();
          if (p - 1 < static_cast<int64_t>(branches.size()) &&
              branches[p - 1]->num_parameters() > 0) {
            out.push_back({branches[p - 1]->parameter(0), index});
          }
        }
        break;
      case HloOpcode::kAsyncStart: {
        if (user->called_computations().empty()) break;
        Computation* wrapped = user->called_computations()[0];
        for (int64_t p : user->OperandIndices(instr)) {
          if (p < wrapped->num_parameters()) {
            out.push_back({wrapped->parameter(p), index});
          }
        }
        break;
      }
      case HloOpcode::kCustomCall: {
        bool found = false;
        for (int64_t p : user->OperandIndices(instr)) {
          if (!CustomCallReusesBuffer(user, p)) continue;
          if (found) {
            blame(user);
            return absl::InternalError(
                "Found multiple operands of a custom call that reuse the same "
                "output buffer.");
          }
          found = true;
          out.push_back({user, index});
        }
        break;
      }
      default:
        out.push_back({user, index});
    }
  }
  return out;
}

absl::StatusOr<std::vector<InstructionAndShapeIndex>> GetPredecessors(
    const InstructionAndShapeIndex& value, const CallGraph& call_graph,
    std::optional<int64_t> operand_index) {
  std::vector<InstructionAndShapeIndex> out;
  Instruction* instr = value.instruction;
  const ShapeIndex& index = value.shape_index;
  auto operand_at = [&](int64_t i) -> absl::Status {
    if (i < 0 || i >= instr->operand_count()) {
      return absl::UnimplementedError(
          absl::StrCat("instruction \"", instr->name(), "\" has no operand ", i));
    }
    out.push_back({instr->operand(i), index});
    return absl::OkStatus();
  };
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement: {
      ShapeIndex next = {instr->tuple_index()};
      next.insert(next.end(), index.begin(), index.end());
      out.push_back({instr->operand(0), next});
      return out;
    }
    case HloOpcode::kTuple: {
      if (index.empty() || index.front() >= instr->operand_count()) {
        return absl::UnimplementedError(absl::StrCat(
            "tuple \"", instr->name(),
            "\" is tracked as a whole; XLA's host offloader fails a CHECK here"));
      }
      out.push_back({instr->operand(index.front()),
                     ShapeIndex(index.begin() + 1, index.end())});
      return out;
    }
    case HloOpcode::kCall:
      out.push_back({instr->called_computations()[0]->root(), index});
      return out;
    case HloOpcode::kParameter: {
      for (Instruction* caller : call_graph.CallersOf(instr->parent())) {
        if (caller->opcode() == HloOpcode::kConditional) {
          const auto& branches = caller->called_computations();
          for (size_t b = 0; b < branches.size(); ++b) {
            if (branches[b] == instr->parent() &&
                static_cast<int64_t>(b + 1) < caller->operand_count()) {
              out.push_back({caller->operand(b + 1), index});
            }
          }
          continue;
        }
        if (instr->parameter_number() < caller->operand_count()) {
          out.push_back({caller->operand(instr->parameter_number()), index});
        }
      }
      return out;
    }
    case HloOpcode::kConditional:
      for (Computation* branch : instr->called_computations()) {
        out.push_back({branch->root(), index});
      }
      return out;
    case HloOpcode::kWhile: {
      Computation* body = instr->while_body();
      if (body == nullptr) return out;
      out.push_back({body->root(), index});
      return out;
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
      RETURN_IF_ERROR(operand_at(operand_index.value_or(0)));
      return out;
    case HloOpcode::kPad:
    case HloOpcode::kSend:
      RETURN_IF_ERROR(operand_at(0));
      return out;
    default:
      if (operand_index.has_value()) {
        RETURN_IF_ERROR(operand_at(*operand_index));
        return out;
      }
      if (instr->operand_count() != 1) {
        return absl::UnimplementedError(absl::StrCat(
            "instruction \"", instr->name(), "\" has ", instr->operand_count(),
            " operands where one was expected; XLA's host offloader fails a "
            "CHECK here"));
      }
      out.push_back({instr->operand(0), index});
      return out;
  }
}

namespace {
bool IsReshapeBroadcastOrTranspose(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kReshape ||
         instr->opcode() == HloOpcode::kBroadcast ||
         instr->opcode() == HloOpcode::kTranspose;
}

// Searches from `start` along users (or operands) through
// reshape/broadcast/transpose for an instruction with opcode `target`.
bool ReachesThroughReshapes(const Instruction* start, HloOpcode target,
                            bool along_users) {
  std::vector<const Instruction*> stack = {start};
  absl::flat_hash_set<const Instruction*> visited;
  while (!stack.empty()) {
    const Instruction* current = stack.back();
    stack.pop_back();
    if (!visited.insert(current).second) continue;
    const auto& next = along_users ? current->users() : current->operands();
    for (const Instruction* n : next) {
      if (n->opcode() == target) return true;
      if (IsReshapeBroadcastOrTranspose(n)) stack.push_back(n);
    }
  }
  return false;
}
}  // namespace

bool IsMoveToHostWithDynamicUpdateSlice(const Instruction* instr) {
  return IsMoveToHost(instr) &&
         ReachesThroughReshapes(instr, HloOpcode::kDynamicUpdateSlice, /*along_users=*/true);
}

bool IsMoveToDeviceWithDynamicSlice(const Instruction* instr) {
  return IsMoveToDevice(instr) &&
         ReachesThroughReshapes(instr, HloOpcode::kDynamicSlice, /*along_users=*/false);
}

absl::flat_hash_set<int64_t> CollectDynamicVariableTupleIndices(
    const Instruction* while_loop) {
  absl::flat_hash_set<int64_t> indices;
  if (while_loop->opcode() != HloOpcode::kWhile) return indices;
  const Computation* body = while_loop->while_body();
  if (body == nullptr) return indices;
  bool offloads = false;
  for (const auto& instr : body->raw_instructions()) {
    if (instr->IsDead()) continue;
    if (IsMoveToHostWithDynamicUpdateSlice(instr.get()) ||
        IsMoveToDeviceWithDynamicSlice(instr.get())) {
      offloads = true;
      break;
    }
  }
  if (!offloads) return indices;
  for (const auto& instr : body->raw_instructions()) {
    if (instr->IsDead()) continue;
    int64_t first_index;
    if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
      first_index = 2;
    } else if (instr->opcode() == HloOpcode::kDynamicSlice) {
      first_index = 1;
    } else {
      continue;
    }
    for (int64_t i = first_index; i < instr->operand_count(); ++i) {
      std::vector<const Instruction*> stack = {instr->operand(i)};
      absl::flat_hash_set<const Instruction*> visited;
      while (!stack.empty()) {
        const Instruction* value = stack.back();
        stack.pop_back();
        if (!visited.insert(value).second) continue;
        switch (value->opcode()) {
          case HloOpcode::kGetTupleElement:
            indices.insert(value->tuple_index());
            break;
          case HloOpcode::kCopy:
          case HloOpcode::kAdd:
          case HloOpcode::kSubtract:
          case HloOpcode::kMultiply:
          case HloOpcode::kDivide:
            for (const Instruction* op : value->operands()) stack.push_back(op);
            break;
          default:
            break;
        }
      }
    }
  }
  return indices;
}

bool IsAllowedBetweenSliceAndMoveToDevice(const Instruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kTuple:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kParameter:
    case HloOpcode::kWhile:
      return true;
    case HloOpcode::kReshape:
      return shape_util::ReshapeIsBitcast(instr->operand(0)->shape(),
                                          instr->shape());
    case HloOpcode::kReduce:
      return shape_util::TrueRank(instr->operand(0)->shape()) ==
             shape_util::TrueRank(instr->shape());
    default:
      return false;
  }
}

// MoveToHosts in the HostOffloader's order: the post order of the entry
// computation, descending depth-first into called computations where they
// are called, each computation once (host_offloader.cc RunImpl's
// ProcessNextMoveToHostInstr loop, without its rescans).
std::vector<Instruction*> MoveToHostsInOffloaderOrder(const Module& module) {
  std::vector<Instruction*> move_to_hosts;
  Computation* entry = module.entry();
  // Only computations that hold a MoveToHost or call one that does are
  // ordered: the others cannot add to the list (found from each
  // computation's key instructions, calls and custom calls among them).
  absl::flat_hash_map<const Computation*, std::vector<const Computation*>> callers;
  std::vector<const Computation*> worklist;
  for (const auto& comp : module.computations()) {
    bool holds = false;
    for (Instruction* instr : comp->key_instructions()) {
      if (instr->IsDead()) continue;
      holds |= IsMoveToHost(instr);
      for (Computation* callee : instr->called_computations()) {
        callers[callee].push_back(comp.get());
      }
    }
    if (holds) worklist.push_back(comp.get());
  }
  absl::flat_hash_set<const Computation*> reaching;
  while (!worklist.empty()) {
    const Computation* comp = worklist.back();
    worklist.pop_back();
    if (!reaching.insert(comp).second) continue;
    auto it = callers.find(comp);
    if (it == callers.end()) continue;
    for (const Computation* caller : it->second) worklist.push_back(caller);
  }
  if (entry == nullptr || !reaching.contains(entry)) return move_to_hosts;
  absl::flat_hash_set<const Computation*> expanded = {entry};
  struct Frame {
    std::vector<Instruction*> order;
    size_t next = 0;
    size_t callee = 0;
  };
  std::vector<Frame> stack;
  stack.push_back({entry->MakeInstructionPostOrder()});
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next >= frame.order.size()) {
      stack.pop_back();
      continue;
    }
    Instruction* instr = frame.order[frame.next];
    if (frame.callee == 0 && IsMoveToHost(instr)) move_to_hosts.push_back(instr);
    if (frame.callee < instr->called_computations().size()) {
      Computation* callee = instr->called_computations()[frame.callee++];
      if (reaching.contains(callee) && expanded.insert(callee).second) {
        stack.push_back({callee->MakeInstructionPostOrder()});
      }
      continue;
    }
    frame.callee = 0;
    ++frame.next;
  }
  return move_to_hosts;
}

bool IsOffloadAnnotation(const Instruction* instr) {
  if (instr->opcode() != HloOpcode::kCustomCall) return false;
  absl::string_view target = instr->custom_call_target();
  return target == kMoveToHostTarget || target == kMoveToDeviceTarget ||
         target == kPinToDeviceTarget || target == kPinToDeviceSramTarget ||
         target == kDevicePlacementTarget;
}

std::optional<EarlierOffloading> FindEarlierOffloading(const Module& module) {
  EarlierOffloading signs;
  const Computation* entry = module.entry();
  for (const auto& comp : module.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      if (IsOffloadAnnotation(instr)) return std::nullopt;
      if (instr->opcode() == HloOpcode::kParameter && comp.get() == entry) {
        continue;
      }
      bool allocate = instr->IsCustomCall(kAllocateBufferTarget);
      bool host = shape_util::AnyArrayLeafInMemorySpace(instr->shape(),
                                                        kHostMemorySpace);
      if (!allocate && !host) continue;
      signs.host_instructions += host && !allocate;
      if (signs.first == nullptr ||
          (allocate && signs.allocate_buffers == 0)) {
        signs.first = instr;
      }
      signs.allocate_buffers += allocate;
    }
  }
  if (signs.first == nullptr) return std::nullopt;
  return signs;
}

std::string DescribeEarlierOffloading(const EarlierOffloading& signs) {
  std::string out;
  if (signs.allocate_buffers > 0) {
    absl::StrAppend(&out, signs.allocate_buffers, " AllocateBuffer custom call",
                    signs.allocate_buffers == 1 ? "" : "s");
  }
  if (signs.host_instructions > 0) {
    absl::StrAppend(&out, out.empty() ? "" : " and ", signs.host_instructions,
                    signs.allocate_buffers > 0 ? " other" : "",
                    signs.host_instructions == 1 ? " instruction" : " instructions",
                    " with host memory space S(5)");
  }
  return out;
}

bool SubshapeIsHost(const Shape& shape, const ShapeIndex& index) {
  return shape_util::AllArrayLeavesInMemorySpace(shape, index, kHostMemorySpace);
}

std::optional<int64_t> ScalarIntegerConstant(const Instruction* instr) {
  if (instr->opcode() != HloOpcode::kConstant || instr->shape().rank() != 0) {
    return std::nullopt;
  }
  int64_t value = 0;
  if (!absl::SimpleAtoi(instr->literal_text(), &value)) return std::nullopt;
  return value;
}

absl::StatusOr<SliceWalk> SliceLeadsToMoveToDevice(
    const Instruction* slice, const CallGraph& call_graph, bool record_paths,
    Instruction** offending) {
  using IAS = InstructionAndShapeIndex;
  SliceWalk result;
  std::deque<IAS> queue;
  absl::flat_hash_set<IAS> seen;
  absl::flat_hash_map<IAS, IAS> previous;
  const IAS origin = {const_cast<Instruction*>(slice), {}};
  auto enqueue = [&](const IAS& from) -> absl::Status {
    ASSIGN_OR_RETURN(auto successors,
                     GetSuccessors(from, call_graph,
                                   /*skip_whole_tuple_reads=*/false, offending));
    for (const IAS& s : successors) {
      if (!seen.insert(s).second) continue;
      if (record_paths) previous.emplace(s, from);
      queue.push_back(s);
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(enqueue(origin));
  while (!queue.empty()) {
    IAS current = queue.front();
    queue.pop_front();
    const Instruction* instr = current.instruction;
    if (IsMoveToDevice(instr)) {
      if (!record_paths) continue;
      std::vector<const Instruction*> path = {instr};
      for (auto it = previous.find(current);
           it != previous.end() && !(it->second == origin);
           it = previous.find(it->second)) {
        if (path.back() != it->second.instruction) {
          path.push_back(it->second.instruction);
        }
      }
      std::reverse(path.begin(), path.end());
      result.move_to_devices.emplace_back(instr, std::move(path));
      continue;
    }
    if (!IsAllowedBetweenSliceAndMoveToDevice(instr)) {
      result.leads = false;
      result.move_to_devices.clear();
      return result;
    }
    RETURN_IF_ERROR(enqueue(current));
  }
  return result;
}

}  // namespace hloff
