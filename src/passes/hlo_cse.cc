// Layout-sensitive CSE.
#include "passes/hlo_cse.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"

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

// An instruction with its module-shared shape (equal shapes, layouts and
// memory spaces included, are one pointer) and the hash of everything that
// makes two instructions compute the same value: opcode, shape, operands,
// constant, tuple index, dynamic-slice sizes, every attribute but metadata
// (which says where a value came from, not what it is). The hash covers the
// cheap fields; CseEqual compares them all.
struct CseEntry {
  Instruction* instr;
  const Shape* shape;
  size_t hash;
};

bool CountsForCse(const Attribute& attr) {
  return attr.kind() == AttrKind::kRaw && attr.name() != "metadata";
}

size_t CseHash(const Instruction* instr, const Shape* shape) {
  size_t h = absl::HashOf(instr->opcode(), instr->opcode_spelling(), shape,
                          instr->literal_text(), instr->tuple_index());
  for (const Instruction* op : instr->operands()) h = absl::HashOf(h, op);
  // Attributes are left to CseEqual: instructions that agree on all of the
  // above are rare, and hashing every attribute of every instruction cost
  // more than the rest of the pass.
  return h;
}

bool CseEqual(const CseEntry& a, const CseEntry& b) {
  const Instruction* x = a.instr;
  const Instruction* y = b.instr;
  if (a.hash != b.hash || a.shape != b.shape || x->opcode() != y->opcode() ||
      x->opcode_spelling() != y->opcode_spelling() ||
      x->literal_text() != y->literal_text() ||
      x->tuple_index() != y->tuple_index()) {
    return false;
  }
  auto xo = x->operands();
  auto yo = y->operands();
  if (!std::equal(xo.begin(), xo.end(), yo.begin(), yo.end())) return false;
  auto xd = x->dynamic_slice_sizes();
  auto yd = y->dynamic_slice_sizes();
  if (!std::equal(xd.begin(), xd.end(), yd.begin(), yd.end())) return false;
  // Attributes in order, as the key text listed them.
  auto xa = x->attributes();
  auto ya = y->attributes();
  size_t i = 0, j = 0;
  while (true) {
    while (i < xa.size() && !CountsForCse(xa[i])) ++i;
    while (j < ya.size() && !CountsForCse(ya[j])) ++j;
    if (i == xa.size() || j == ya.size()) {
      if (i != xa.size() || j != ya.size()) return false;
      break;
    }
    if (xa[i].name() != ya[j].name() || xa[i].value() != ya[j].value()) {
      return false;
    }
    ++i;
    ++j;
  }
  return x->frontend_attributes() == y->frontend_attributes();
}

struct CseEntryHash {
  size_t operator()(const CseEntry& e) const { return e.hash; }
};
struct CseEntryEq {
  bool operator()(const CseEntry& a, const CseEntry& b) const {
    return CseEqual(a, b);
  }
};

}  // namespace

bool RunLayoutSensitiveCse(Module& module) {
  bool changed = false;
  for (const auto& comp : module.computations()) {
    absl::flat_hash_set<CseEntry, CseEntryHash, CseEntryEq> canonical;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->IsDead() || !Mergeable(instr)) continue;
      const Shape* shape = module.InternShape(instr->shape());
      auto [it, inserted] =
          canonical.insert(CseEntry{instr, shape, CseHash(instr, shape)});
      if (inserted) continue;
      instr->ReplaceAllUsesWith(it->instr);
      comp->RemoveInstruction(instr);
      changed = true;
    }
  }
  return changed;
}

}  // namespace hloff
