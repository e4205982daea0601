// Side effects as XLA's HloInstruction::HasSideEffect decides them.
#include "analysis/side_effects.h"

#include <utility>
#include <vector>

namespace hloff {

bool HasSideEffectNoRecurse(const Instruction* instr) {
  switch (instr->opcode()) {
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
      return true;
    case HloOpcode::kAllToAll:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllReduce:
    case HloOpcode::kReduceScatter:
      if (auto c = instr->FindRawAttribute("constrain_layout");
          c && c->value == "true") {
        return true;
      }
      [[fallthrough]];
    case HloOpcode::kCollectivePermute:
      return instr->FindRawAttribute("channel_id").has_value();
    case HloOpcode::kCustomCall: {
      auto effect = instr->FindRawAttribute("custom_call_has_side_effect");
      return effect && effect->value == "true";
    }
    default:
      return false;
  }
}

bool SideEffects::Of(const Instruction* instr) {
  if (HasSideEffectNoRecurse(instr)) return true;
  for (const Computation* c : instr->called_computations()) {
    if (OfComputation(c)) return true;
  }
  return false;
}

bool SideEffects::OfComputation(const Computation* root) {
  if (auto it = memo_.find(root); it != memo_.end()) return it->second;
  // (computation, callees pushed); a computation is decided once all its
  // callees are (the parser rejects recursive computations).
  std::vector<std::pair<const Computation*, bool>> stack = {{root, false}};
  while (!stack.empty()) {
    auto [comp, expanded] = stack.back();
    if (memo_.contains(comp)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const auto& instr : comp->raw_instructions()) {
        if (instr->IsDead()) continue;
        for (const Computation* c : instr->called_computations()) {
          if (!memo_.contains(c)) stack.push_back({c, false});
        }
      }
      continue;
    }
    stack.pop_back();
    bool any = false;
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead()) continue;
      if (HasSideEffectNoRecurse(instr.get())) any = true;
      for (const Computation* c : instr->called_computations()) {
        auto it = memo_.find(c);
        if (it != memo_.end() && it->second) any = true;
      }
      if (any) break;
    }
    memo_[comp] = any;
  }
  return memo_.at(root);
}

}  // namespace hloff
