// Layout-sensitive CSE.
#include "passes/hlo_cse.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace {

bool Mergeable(const Instruction* instr) {
  if (!instr->called_computations().empty() ||
      !instr->control_predecessors().empty()) {
    return false;
  }
  switch (instr->opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kCustomCall:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return false;
    default:
      return true;
  }
}

// Everything that makes two instructions compute the same value.
std::string Key(const Instruction* instr) {
  std::string key = absl::StrCat(instr->opcode_spelling(), "|",
                                 ShapeToString(instr->shape()), "|");
  for (const Instruction* op : instr->operands()) {
    absl::StrAppend(&key, reinterpret_cast<uintptr_t>(op), ",");
  }
  absl::StrAppend(&key, "|", instr->literal_text(), "|", instr->tuple_index(),
                  "|");
  for (int64_t s : instr->dynamic_slice_sizes()) absl::StrAppend(&key, s, ",");
  for (const Attribute& attr : instr->attributes()) {
    // Metadata says where a value came from, not what it is.
    if (attr.kind() != AttrKind::kRaw || attr.name() == "metadata") continue;
    absl::StrAppend(&key, "|", attr.name(), "=", attr.value());
  }
  for (const auto& [k, v] : instr->frontend_attributes()) {
    absl::StrAppend(&key, "|fa:", k, "=", v);
  }
  return key;
}

}  // namespace

bool RunLayoutSensitiveCse(Module& module) {
  bool changed = false;
  for (const auto& comp : module.computations()) {
    absl::flat_hash_map<std::string, Instruction*> canonical;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->IsDead() || !Mergeable(instr)) continue;
      auto [it, inserted] = canonical.emplace(Key(instr), instr);
      if (inserted) continue;
      instr->ReplaceAllUsesWith(it->second);
      comp->RemoveInstruction(instr);
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloff
