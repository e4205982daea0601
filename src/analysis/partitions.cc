// Partition facts of a module (analysis/partitions.h).
#include "analysis/partitions.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "ir/opcode.h"

namespace hloff {

bool IsRemovedShardingTarget(absl::string_view target) {
  return target == "Sharding" || target == "SPMDShardToFullShape" ||
         target == "SPMDFullToShardShape" || target == "xla.sdy.ShardingGroup" ||
         target == "xla.sdy.PropagationBarrier" ||
         target == "xla.sdy.FuncResultSharding" ||
         target == "ShardBarrierFrom" || target == "ShardBarrierTo";
}

int64_t NumPartitions(const Module& module) {
  for (const RawAttribute& attr : module.header_attributes()) {
    if (attr.name != "num_partitions") continue;
    int64_t n = 0;
    return absl::SimpleAtoi(attr.value, &n) ? n : 1;
  }
  return 1;
}

namespace {

bool HeaderSaysScheduled(const Module& module) {
  for (const RawAttribute& attr : module.header_attributes()) {
    if (attr.name == "is_scheduled") return attr.value == "true";
  }
  return false;
}

bool IsReplicated(const RawAttribute& sharding) {
  return sharding.value == "{replicated}";
}

// An entry parameter or the entry root with a sharding attribute: the first
// one that is not `{replicated}` (what the notes call sharded), else the
// first one at all.
const Instruction* ShardedEntryValue(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return nullptr;
  const Instruction* first = nullptr;
  auto consider = [&](const Instruction* instr) {
    std::optional<RawAttribute> sharding = instr->sharding();
    if (!sharding.has_value()) return false;
    if (first == nullptr) first = instr;
    return !IsReplicated(*sharding);
  };
  for (const Instruction* param : entry->parameters()) {
    if (consider(param)) return param;
  }
  if (entry->root() != nullptr && consider(entry->root())) return entry->root();
  return first;
}

// Whether a live instruction is a partition-id or a collective.
bool HasPartitionerOutput(const Module& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instr : computation->raw_instructions()) {
      if (instr->IsDead()) continue;
      if (instr->opcode() == HloOpcode::kPartitionId || IsCollective(instr->opcode())) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

const Instruction* FirstUnpartitionedSharding(const Module& module) {
  if (HeaderSaysScheduled(module)) return nullptr;
  const Instruction* custom_call = nullptr;
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->key_instructions()) {
      if (!instr->IsDead() && instr->opcode() == HloOpcode::kCustomCall &&
          IsRemovedShardingTarget(instr->custom_call_target())) {
        custom_call = instr;
        break;
      }
    }
    if (custom_call != nullptr) break;
  }
  const Instruction* entry_value = ShardedEntryValue(module);
  if (custom_call == nullptr &&
      (entry_value == nullptr || HasPartitionerOutput(module))) {
    return nullptr;
  }
  return entry_value != nullptr ? entry_value : custom_call;
}

}  // namespace hloff
