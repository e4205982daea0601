// Partition facts of a module (analysis/partitions.h).
#include "analysis/partitions.h"

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

// An entry parameter or the entry root with a sharding attribute.
const Instruction* ShardedEntryValue(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return nullptr;
  for (const Instruction* param : entry->parameters()) {
    if (param->sharding().has_value()) return param;
  }
  if (entry->root() != nullptr && entry->root()->sharding().has_value()) {
    return entry->root();
  }
  return nullptr;
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
