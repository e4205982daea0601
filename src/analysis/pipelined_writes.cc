// Pipelined host writes (pipelined_writes.h).
#include "analysis/pipelined_writes.h"

#include <limits>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "analysis/offload_utils.h"

namespace hloff {
namespace {

// Hops followed between a value and the write that stores it.
constexpr int kMaxHops = 16;

// Copies, bitcasts, bitcast reshapes and placement annotations: the value
// passes through them unchanged.
bool IsValueHop(const Instruction* instr) {
  if (instr->operand_count() != 1) return false;
  switch (instr->opcode()) {
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
      return true;
    case HloOpcode::kReshape:
      return shape_util::ReshapeIsBitcast(instr->operand(0)->shape(),
                                          instr->shape());
    case HloOpcode::kCustomCall:
      return IsMoveToHost(instr) || IsMoveToDevice(instr) ||
             instr->IsCustomCall(kDevicePlacementTarget);
    default:
      return false;
  }
}

const Instruction* SkipHopsUp(const Instruction* instr) {
  for (int i = 0; i < kMaxHops && IsValueHop(instr); ++i) {
    instr = instr->operand(0);
  }
  return instr;
}

// The tuple index when `instr` is get-tuple-element(`param`, index).
std::optional<int64_t> ElementOf(const Instruction* instr,
                                 const Instruction* param) {
  if (instr->opcode() != HloOpcode::kGetTupleElement ||
      instr->operand(0) != param) {
    return std::nullopt;
  }
  return instr->tuple_index();
}

// The loop counters of `body`: the tuple elements its root sets to
// element + constant.
absl::flat_hash_set<int64_t> Counters(const Computation& body) {
  absl::flat_hash_set<int64_t> counters;
  const Instruction* root = body.root();
  if (root->opcode() != HloOpcode::kTuple || body.num_parameters() != 1) {
    return counters;
  }
  const Instruction* param = body.parameter(0);
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const Instruction* next = root->operand(i);
    if (next->opcode() != HloOpcode::kAdd || next->operand_count() != 2) continue;
    for (int side = 0; side < 2; ++side) {
      if (ElementOf(next->operand(side), param) == i &&
          ScalarIntegerConstant(next->operand(1 - side)).has_value()) {
        counters.insert(i);
      }
    }
  }
  return counters;
}

}  // namespace

std::vector<PipelinedHostWrite> FindPipelinedHostWrites(
    const Module& module, const CallGraph& call_graph) {
  std::vector<PipelinedHostWrite> writes;
  // Per while loop, its get-tuple-element users by index (built once).
  absl::flat_hash_map<const Instruction*,
                      absl::flat_hash_map<int64_t, std::vector<const Instruction*>>>
      elements_of;
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>,
                      std::vector<const Instruction*>>
      peeled_of;
  for (const auto& comp : module.computations()) {
    std::vector<Instruction*> callers = call_graph.CallersOf(comp.get());
    if (callers.size() != 1 || callers[0]->opcode() != HloOpcode::kWhile ||
        callers[0]->while_body() != comp.get() || comp->num_parameters() != 1 ||
        comp->root()->opcode() != HloOpcode::kTuple) {
      continue;
    }
    const Instruction* loop = callers[0];
    const Instruction* param = comp->parameter(0);
    const Instruction* root = comp->root();
    std::optional<absl::flat_hash_set<int64_t>> counters;
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* dus = owned.get();
      if (dus->IsDead() || dus->opcode() != HloOpcode::kDynamicUpdateSlice ||
          dus->operand_count() < 3 ||
          dus->shape().memory_space() != kHostMemorySpace ||
          dus->operand(1)->shape().memory_space() == kHostMemorySpace) {
        continue;
      }
      // The update is the value carried in from the previous iteration, and
      // the body carries a new one out (not the same element unchanged).
      std::optional<int64_t> carried = ElementOf(SkipHopsUp(dus->operand(1)), param);
      if (!carried.has_value() || *carried >= root->operand_count() ||
          ElementOf(root->operand(*carried), param) == carried) {
        continue;
      }
      if (!counters.has_value()) counters = Counters(*comp);
      PipelinedHostWrite write;
      for (int64_t i = 2; i < dus->operand_count() && write.index == nullptr; ++i) {
        const Instruction* index = dus->operand(i);
        if ((index->opcode() != HloOpcode::kSubtract &&
             index->opcode() != HloOpcode::kAdd) ||
            index->operand_count() != 2) {
          continue;
        }
        std::optional<int64_t> counter = ElementOf(index->operand(0), param);
        std::optional<int64_t> amount = ScalarIntegerConstant(index->operand(1));
        // (INT64_MIN has no negation.)
        if (!counter.has_value() || !amount.has_value() ||
            *amount == std::numeric_limits<int64_t>::min() ||
            !counters->contains(*counter)) {
          continue;
        }
        int64_t offset =
            index->opcode() == HloOpcode::kSubtract ? -*amount : *amount;
        if (offset >= 0) continue;
        write.index = index;
        write.counter_index = *counter;
        write.offset = offset;
      }
      if (write.index == nullptr) continue;
      write.write = dus;
      write.loop = loop;
      write.carried_index = *carried;
      // The peeled write: the loop's last carried value stored into a host
      // buffer after the loop.
      auto [it, added] = elements_of.try_emplace(loop);
      if (added) {
        for (const Instruction* user : loop->users()) {
          if (user->opcode() == HloOpcode::kGetTupleElement) {
            it->second[user->tuple_index()].push_back(user);
          }
        }
      }
      // Cached per element: several writes of one carried value share it.
      auto [peeled, first] = peeled_of.try_emplace({loop, *carried});
      auto element = it->second.find(*carried);
      if (first && element != it->second.end()) {
        for (const Instruction* value : element->second) {
          std::vector<std::pair<const Instruction*, int>> stack = {{value, 0}};
          while (!stack.empty()) {
            auto [at, depth] = stack.back();
            stack.pop_back();
            for (const Instruction* user : at->users()) {
              if (user->opcode() == HloOpcode::kDynamicUpdateSlice &&
                  user->operand_count() > 1 && user->operand(1) == at &&
                  user->shape().memory_space() == kHostMemorySpace) {
                peeled->second.push_back(user);
              } else if (IsValueHop(user) && depth < kMaxHops) {
                stack.push_back({user, depth + 1});
              }
            }
          }
        }
      }
      write.peeled = peeled->second;
      writes.push_back(std::move(write));
    }
  }
  return writes;
}

}  // namespace hloff
