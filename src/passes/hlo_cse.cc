// Layout-sensitive CSE.
#include "passes/hlo_cse.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "analysis/side_effects.h"

namespace hloff {
namespace {

bool Mergeable(const Instruction* instr, SideEffects& side_effects) {
  if (!instr->control_predecessors().empty() ||
      !instr->control_successors().empty()) {
    return false;
  }
  switch (instr->opcode()) {
    // Left out although XLA may merge them (see hlo_cse.h).
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCopyStart:
    case HloOpcode::kCopyDone:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDomain:
    case HloOpcode::kAddDependency:
    case HloOpcode::kAfterAll:
      return false;
    default:
      break;
  }
  if (instr->operand_count() == 0 && instr->opcode() != HloOpcode::kConstant &&
      instr->opcode() != HloOpcode::kPartitionId &&
      instr->opcode() != HloOpcode::kReplicaId &&
      !instr->GetFrontendAttribute("_xla_cse_safe_zero_operand").has_value()) {
    return false;
  }
  if (instr->GetFrontendAttribute("MUST_FUSE").has_value()) return false;
  return !side_effects.Of(instr);
}

bool IsBinaryCommutative(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMulhi:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

// XLA's eq_instructions for operands: the same instruction, or two iotas
// alike (shape and layout, iota_dimension).
bool SameOperand(const Instruction* a, const Instruction* b) {
  if (a == b) return true;
  if (a->opcode() != HloOpcode::kIota || b->opcode() != HloOpcode::kIota) {
    return false;
  }
  auto da = a->FindRawAttribute("iota_dimension");
  auto db = b->FindRawAttribute("iota_dimension");
  return a->shape() == b->shape() &&
         (da ? da->value : "") == (db ? db->value : "");
}

// What an operand contributes to the hash: alike iotas hash alike.
size_t OperandHash(const Instruction* op) {
  if (op->opcode() != HloOpcode::kIota) return absl::HashOf(op);
  auto d = op->FindRawAttribute("iota_dimension");
  return absl::HashOf(HloOpcode::kIota, op->shape().element_type,
                      d ? d->value : absl::string_view());
}

// An instruction with its module-shared shape (equal shapes, layouts and
// memory spaces included, are one pointer) and the hash of everything that
// makes two instructions compute the same value: opcode, shape, operands
// (in either order for commutative ones), constant, tuple index, custom-call
// target, called computations. The hash covers the cheap fields; CseEqual
// compares them all, and every attribute but metadata (which says where a
// value came from, not what it is).
// Duplicates found so far in the computation, each to the instruction that
// stays; operands are compared through it (replacements are made once the
// whole computation is done, so that a wide user is rewritten once).
using Replacements = absl::flat_hash_map<const Instruction*, Instruction*>;

const Instruction* Canonical(const Instruction* op, const Replacements& r) {
  auto it = r.find(op);
  return it == r.end() ? op : it->second;
}

struct CseEntry {
  Instruction* instr;
  const Shape* shape;
  size_t hash;
  const Replacements* replaced;
};

bool CountsForCse(const Attribute& attr) {
  return attr.kind() == AttrKind::kRaw && attr.name() != "metadata";
}

size_t CseHash(const Instruction* instr, const Shape* shape,
               const Replacements& replaced) {
  size_t h = absl::HashOf(instr->opcode(), instr->opcode_spelling(), shape,
                          instr->literal_text(), instr->tuple_index());
  if (instr->opcode() == HloOpcode::kCustomCall) {
    h = absl::HashOf(h, instr->custom_call_target());
  }
  auto operands = instr->operands();
  if (IsBinaryCommutative(instr->opcode()) && operands.size() == 2) {
    // Order-independent.
    h = absl::HashOf(h, OperandHash(Canonical(operands[0], replaced)) +
                            OperandHash(Canonical(operands[1], replaced)));
  } else {
    for (const Instruction* op : operands) {
      h = absl::HashOf(h, OperandHash(Canonical(op, replaced)));
    }
  }
  for (const Computation* c : instr->called_computations()) {
    h = absl::HashOf(h, c);
  }
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
  if (x->opcode() == HloOpcode::kCustomCall &&
      x->custom_call_target() != y->custom_call_target()) {
    return false;
  }
  auto xo = x->operands();
  auto yo = y->operands();
  if (xo.size() != yo.size()) return false;
  const Replacements& r = *a.replaced;
  auto same = [&](const Instruction* p, const Instruction* q) {
    return SameOperand(Canonical(p, r), Canonical(q, r));
  };
  bool in_order = true;
  for (size_t i = 0; i < xo.size() && in_order; ++i) {
    in_order = same(xo[i], yo[i]);
  }
  if (!in_order) {
    if (!(IsBinaryCommutative(x->opcode()) && xo.size() == 2 &&
          same(xo[0], yo[1]) && same(xo[1], yo[0]))) {
      return false;
    }
  }
  auto xc = x->called_computations();
  auto yc = y->called_computations();
  if (!std::equal(xc.begin(), xc.end(), yc.begin(), yc.end())) return false;
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
  SideEffects side_effects;
  // The module's shared shape for each shape object met: instructions share
  // a few distinct shape objects, so each is interned (hashed whole) once.
  absl::flat_hash_map<const Shape*, const Shape*> interned;
  for (const auto& comp : module.computations()) {
    Replacements replaced;
    std::vector<Instruction*> duplicates;  // in post order
    absl::flat_hash_set<CseEntry, CseEntryHash, CseEntryEq> canonical;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->IsDead() || !Mergeable(instr, side_effects)) continue;
      auto [slot, fresh] = interned.try_emplace(&instr->shape(), nullptr);
      if (fresh) slot->second = module.InternShape(instr->shape());
      const Shape* shape = slot->second;
      auto [it, inserted] = canonical.insert(
          CseEntry{instr, shape, CseHash(instr, shape, replaced), &replaced});
      if (!inserted) {
        replaced.emplace(instr, it->instr);
        duplicates.push_back(instr);
      }
    }
    if (replaced.empty()) continue;
    changed = true;
    for (const auto& instr : comp->raw_instructions()) {
      if (!instr->IsDead() && !replaced.contains(instr.get())) {
        instr->ReplaceOperandsWith(replaced);
      }
    }
    if (auto it = replaced.find(comp->root()); it != replaced.end()) {
      comp->set_root(it->second);
    }
    // Users before their operands: a duplicate used only by duplicates has
    // no users left when its turn comes.
    for (auto it = duplicates.rbegin(); it != duplicates.rend(); ++it) {
      (*it)->ReplaceAllUsesWith(replaced.at(*it));
      comp->RemoveInstruction(*it);
    }
  }
  return changed;
}

}  // namespace hloff
