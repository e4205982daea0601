// CallInliner: calls replaced by copies of their computations.
#include "passes/call_inliner.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "passes/hlo_dce.h"
#include "passes/replace_instruction.h"

namespace hloff {

bool IsInlinedCall(const Instruction* instr,
                   bool parent_is_async_computation) {
  if (instr->opcode() != HloOpcode::kCall) return false;
  if (instr->called_computations().size() != 1) return false;
  if (auto config = instr->FindRawAttribute("backend_config");
      config && !config->value.empty() && config->value != "\"\"") {
    return false;
  }
  if (parent_is_async_computation) return false;
  if (auto policy = instr->GetFrontendAttribute("inlineable");
      policy && (*policy == "false" || *policy == "xla_late")) {
    return false;
  }
  if (auto type = instr->GetFrontendAttribute("_xla_compute_type");
      type && *type == "host") {
    return false;
  }
  return true;
}

namespace {

// Of XLA's PropagateCallMetadata::PropagateMetadataToInstruction
// (xla/hlo/transforms/propagate_call_metadata.cc), which XLA's CallInliner
// applies to each copy, the part diagnostics need: the call's stack frame
// becomes the parent of the copy's (UpdateStackFrame), so a copy with no
// location of its own reports the call's. The op_name prefix XLA also adds
// (UpdateOpName) is not: applying it parses every copy's metadata, which
// measured 22% more instructions on a check of the torax dump (953M against
// 782M, callgrind), for a change of op_name only. For diagnostics only: the
// printed metadata stays the callee's.
void PropagateCallLocation(const Instruction& call, Instruction& copy) {
  // Nothing to give without a call location (the call's metadata is parsed
  // once); a copy with a location of its own, the usual case, is decided
  // without parsing its metadata.
  const OpMetadata& from = call.metadata();
  if (from.stack_frame_id == 0 && from.source_line == 0) return;
  if (copy.HasMetadataLocation()) return;
  OpMetadata md = copy.metadata();
  if (md.stack_frame_id != 0 || md.source_line != 0 || !md.source_file.empty()) return;
  if (from.stack_frame_id != 0) {
    md.stack_frame_id = from.stack_frame_id;
  } else {
    md.source_file = from.source_file;
    md.source_line = from.source_line;
  }
  copy.set_diagnostic_metadata(md);
}

// Computations in XLA's CallGraph::VisitNodes order: from each computation
// nobody calls (in module order), callees (in order of their first call
// site) before callers, each once.
std::vector<Computation*> CalleesFirst(const Module& module) {
  absl::flat_hash_set<const Computation*> called;
  for (const auto& comp : module.computations()) {
    for (const Instruction* key : comp->key_instructions()) {
      if (key->IsDead()) continue;
      for (const Computation* c : key->called_computations()) called.insert(c);
    }
  }
  std::vector<Computation*> order;
  absl::flat_hash_set<const Computation*> seen;
  // (computation, next callee position, its callees).
  struct Frame {
    Computation* comp;
    size_t next = 0;
    std::vector<Computation*> callees;
  };
  auto callees_of = [](const Computation* comp) {
    std::vector<Computation*> out;
    absl::flat_hash_set<const Computation*> added;
    for (const Instruction* key : comp->key_instructions()) {
      if (key->IsDead()) continue;
      for (Computation* c : key->called_computations()) {
        if (added.insert(c).second) out.push_back(c);
      }
    }
    return out;
  };
  for (const auto& root : module.computations()) {
    if (called.contains(root.get()) || !seen.insert(root.get()).second) {
      continue;
    }
    std::vector<Frame> stack;
    stack.push_back(Frame{root.get(), 0, callees_of(root.get())});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next < top.callees.size()) {
        Computation* next = top.callees[top.next++];
        if (seen.insert(next).second) {
          stack.push_back(Frame{next, 0, callees_of(next)});
        }
        continue;
      }
      order.push_back(top.comp);
      stack.pop_back();
    }
  }
  return order;
}

// What each inlined call of a computation is replaced by; the uses move in
// one pass at the end, so that a user of many calls (a wide tuple) is
// rewritten once, not once per call.
using Replacements = absl::flat_hash_map<const Instruction*, Instruction*>;

// Copies the body of `call`'s computation into the caller and records the
// call's replacement, the copy of the callee's root (XLA's
// SubcomputationInsertionVisitor).
absl::Status Inline(Instruction* call, absl::string_view callee_name,
                    Replacements& replaced) {
  Computation* caller = call->parent();
  Computation* callee = call->called_computations()[0];
  absl::flat_hash_map<const Instruction*, Instruction*> copies;
  std::vector<Instruction*> call_control(call->control_predecessors().begin(),
                                         call->control_predecessors().end());
  auto copy = [&](Instruction* instr) -> absl::Status {
    if (instr->opcode() == HloOpcode::kParameter) {
      int64_t number = instr->parameter_number();
      if (number < 0 || number >= call->operand_count()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "call '", call->name(), "' passes ", call->operand_count(),
            " operands to '", callee->name(), "', which reads parameter ",
            number));
      }
      copies[instr] = call->operand(number);
      return absl::OkStatus();
    }
    std::vector<Instruction*> operands;
    operands.reserve(instr->operand_count());
    for (Instruction* op : instr->operands()) operands.push_back(copies.at(op));
    Instruction* clone = caller->AddInstruction(instr->opcode(), instr->shape(),
                                                operands, instr->name());
    InstructionBuilder::CopyAttributes(*instr, clone);
    clone->set_input_from(*instr, callee_name);
    PropagateCallLocation(*call, *clone);
    for (Instruction* pred : instr->control_predecessors()) {
      copies.at(pred)->AddControlDependencyTo(clone);
    }
    for (Instruction* pred : call_control) pred->AddControlDependencyTo(clone);
    copies[instr] = clone;
    return absl::OkStatus();
  };
  // Post order from `start` (operands in order, then control predecessors),
  // skipping what is copied already; explicit stack.
  auto visit = [&](Instruction* start) -> absl::Status {
    if (copies.contains(start)) return absl::OkStatus();
    std::vector<std::pair<Instruction*, size_t>> stack = {{start, 0}};
    absl::flat_hash_set<const Instruction*> open = {start};
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      size_t operands = instr->operand_count();
      size_t children = operands + instr->control_predecessors().size();
      if (next < children) {
        Instruction* child = next < operands
                                 ? instr->operand(next)
                                 : instr->control_predecessors()[next - operands];
        ++next;
        if (!copies.contains(child) && open.insert(child).second) {
          stack.push_back({child, 0});
        }
        continue;
      }
      Instruction* done = instr;
      stack.pop_back();
      if (auto s = copy(done); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  Instruction* root = callee->root();
  for (const auto& owned : callee->raw_instructions()) {
    Instruction* instr = owned.get();
    if (instr->IsDead() || instr == root || instr->user_count() != 0 ||
        !instr->control_successors().empty()) {
      continue;
    }
    if (auto s = visit(instr); !s.ok()) return s;
  }
  if (auto s = visit(root); !s.ok()) return s;
  Instruction* new_root = copies.at(root);
  // A callee returning its parameter: the operand, itself maybe a call
  // inlined before (callees first, operands first).
  if (auto it = replaced.find(new_root); it != replaced.end()) {
    new_root = it->second;
  }
  ReplaceOptions options;
  options.relay_control_dependency = true;
  options.remove_unused_operands = false;
  if (PrepareReplacement(call, new_root, options)) {
    replaced[call] = new_root;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "call '", call->name(), "' has shape ", ShapeToString(call->shape()),
        " but the root of '", callee->name(), "' has shape ",
        ShapeToString(root->shape())));
  }
  return absl::OkStatus();
}

// Moves the uses of the inlined calls of `comp` to their replacements and
// removes the calls (XLA's ReplaceInstruction without removing operands).
void ApplyReplacements(Computation* comp, const Replacements& replaced) {
  MoveUses(comp, replaced);
  for (const auto& [call, _] : replaced) {
    comp->RemoveInstruction(const_cast<Instruction*>(call));
  }
}

}  // namespace

absl::StatusOr<bool> CallInliner::Run(Module& module) {
  absl::flat_hash_set<const Computation*> async_computations;
  for (const auto& comp : module.computations()) {
    for (const Instruction* key : comp->key_instructions()) {
      if (key->IsDead()) continue;
      HloOpcode op = key->opcode();
      if (op == HloOpcode::kAsyncStart || op == HloOpcode::kAsyncUpdate ||
          op == HloOpcode::kAsyncDone) {
        for (const Computation* c : key->called_computations()) {
          async_computations.insert(c);
        }
      }
    }
  }
  bool changed = false;
  absl::flat_hash_map<const Computation*, absl::string_view> names;
  for (Computation* comp : CalleesFirst(module)) {
    if (comp->execution_thread() != "main") continue;
    bool async = async_computations.contains(comp);
    std::vector<Instruction*> calls;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (IsInlinedCall(instr, async)) calls.push_back(instr);
    }
    Replacements replaced;
    for (Instruction* call : calls) {
      const Computation* callee = call->called_computations()[0];
      auto [it, added] = names.try_emplace(callee);
      if (added) it->second = module.arena().CopyString(callee->name());
      absl::Status s = Inline(call, it->second, replaced);
      if (!s.ok()) {
        Diagnostic d = MakeDiagnostic(
            DiagCode::kHO9002, absl::StrCat("call-inliner: ", s.message()),
            call);
        absl::Status status = ToXlaStatus(d);
        if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
        return status;
      }
      changed = true;
    }
    ApplyReplacements(comp, replaced);
  }
  if (changed) RunHloDce(module);
  return changed;
}

}  // namespace hloff
