// Partition facts of a module (analysis/partitions.h).
#include "analysis/partitions.h"

#include "absl/strings/numbers.h"

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

const Instruction* FirstUnpartitionedSharding(const Module& module) {
  if (const Computation* entry = module.entry(); entry != nullptr) {
    for (const Instruction* param : entry->parameters()) {
      if (param->sharding().has_value()) return param;
    }
    if (entry->root() != nullptr && entry->root()->sharding().has_value()) {
      return entry->root();
    }
  }
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->key_instructions()) {
      if (!instr->IsDead() && instr->opcode() == HloOpcode::kCustomCall &&
          IsRemovedShardingTarget(instr->custom_call_target())) {
        return instr;
      }
    }
  }
  return nullptr;
}

}  // namespace hloff
