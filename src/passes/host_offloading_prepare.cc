// HostOffloadingPrepare: a host async call's `call` becomes a HostExecute
// custom call; MoveToHosts feeding a host async call are elided.
#include "passes/host_offloading_prepare.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"

namespace hloff {

bool IsHostAsyncCallStart(const Instruction* instr) {
  if (instr->opcode() != HloOpcode::kAsyncStart || instr->IsDead() ||
      instr->async_execution_thread() != "host" ||
      instr->called_computations().empty()) {
    return false;
  }
  const Instruction* root = instr->called_computations()[0]->root();
  return root != nullptr && root->opcode() == HloOpcode::kCall;
}

namespace {

// The host async starts of the module, in module order.
std::vector<Instruction*> HostAsyncCallStarts(const Module& module) {
  std::vector<Instruction*> out;
  for (const auto& comp : module.computations()) {
    for (Instruction* key : comp->key_instructions()) {
      if (IsHostAsyncCallStart(key)) out.push_back(key);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<bool> HostOffloadingPrepare::Run(Module& module) {
  bool changed = false;
  for (Instruction* start : HostAsyncCallStarts(module)) {
    if (rewrite_ == Rewrite::kElideMoveToHost) {
      // RemoveSurroundingMoveCustomCalls: only direct operands (XLA's TODO:
      // not through a bitcast or a tuple).
      for (int64_t i = 0; i < start->operand_count(); ++i) {
        Instruction* operand = start->operand(i);
        if (!IsMoveToHost(operand) || operand->IsDead() ||
            operand->operand_count() != 1) {
          continue;
        }
        context_.Trace(1, absl::StrCat("Replacing ", operand->name(), " with ",
                                       operand->operand(0)->name()));
        operand->ReplaceAllUsesWith(operand->operand(0));
        operand->parent()->RemoveInstruction(operand);
        changed = true;
      }
      continue;
    }
    Computation* async = start->called_computations()[0];
    Instruction* call = async->root();
    Computation* host = call->CalledComputation("to_apply");
    if (host == nullptr) continue;
    std::vector<Instruction*> operands(call->operands().begin(),
                                       call->operands().end());
    Instruction* custom = async->AddInstruction(HloOpcode::kCustomCall,
                                                call->shape(), operands,
                                                "custom-call");
    InstructionBuilder::SetCustomCallTarget(custom, "HostExecute");
    InstructionBuilder::SetCalledComputations(custom, "called_computations",
                                              {host}, /*is_list=*/true);
    for (const Instruction* inner : host->instructions()) {
      if (inner->opcode() != HloOpcode::kCustomCall) continue;
      const auto& attrs = inner->frontend_attributes();
      if (attrs.empty()) continue;
      for (const auto& [key, value] : attrs) {
        absl::string_view v = value;
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
          v = v.substr(1, v.size() - 2);
        }
        custom->AddFrontendAttribute(key, v);
      }
      break;
    }
    InstructionBuilder::CopyOutputToOperandAliasing(*call, custom);
    // Diagnostics name the call of the input, not its clone.
    custom->set_origin(call->metadata(), call->loc(), call->origin_name());
    async->set_root(custom);
    async->RemoveInstruction(call);
    changed = true;
  }
  return changed;
}

}  // namespace hloff
