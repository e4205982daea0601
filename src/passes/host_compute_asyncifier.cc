// HostComputeAsyncifier: host-compute calls become async pairs on the host
// thread.
#include "passes/host_compute_asyncifier.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"
#include "passes/replace_instruction.h"

namespace hloff {
namespace {

// Every computation `root` calls, transitively, `root` included.
std::vector<Computation*> Reachable(Computation* root) {
  std::vector<Computation*> out = {root};
  absl::flat_hash_set<Computation*> seen = {root};
  for (size_t i = 0; i < out.size(); ++i) {
    for (const Instruction* key : out[i]->key_instructions()) {
      if (key->IsDead()) continue;
      for (Computation* c : key->called_computations()) {
        if (seen.insert(c).second) out.push_back(c);
      }
    }
  }
  return out;
}

// RemoveTilesAndMemorySpaces: the host computation runs with plain layouts.
void ClearTilesAndMemorySpaces(Instruction* instr) {
  bool tiled_or_placed = false;
  ShapeIndex index;
  shape_util::ForEachSubshape(instr->shape(), [&](const Shape& s, const ShapeIndex&) {
    if (s.IsArray() && s.has_layout &&
        (!s.layout.tiles.empty() || s.layout.memory_space != kDefaultMemorySpace)) {
      tiled_or_placed = true;
    }
  }, index);
  if (!tiled_or_placed) return;
  shape_util::ForEachMutableSubshape(*instr->mutable_shape(), [](Shape& s, const ShapeIndex&) {
    if (!s.IsArray() || !s.has_layout) return;
    s.layout.tiles.clear();
    s.layout.memory_space = kDefaultMemorySpace;
  }, index);
}

}  // namespace

bool IsHostComputeCall(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kCall && !instr->IsDead() &&
         instr->parent()->execution_thread() == "main" &&
         instr->CalledComputation("to_apply") != nullptr &&
         ComputeTypeIsHost(instr);
}

absl::StatusOr<bool> HostComputeAsyncifier::Run(Module& module) {
  // The host calls, outermost first: a tagged call inside a host computation
  // runs there (XLA's wrapper clears its tag and CallInliner inlines it).
  std::vector<Instruction*> calls;
  for (const auto& comp : module.computations()) {
    if (comp->execution_thread() != "main") continue;
    for (Instruction* key : comp->key_instructions()) {
      if (IsHostComputeCall(key)) calls.push_back(key);
    }
  }
  // What each call runs on the host, walked once.
  std::vector<std::vector<Computation*>> runs_on_host;
  absl::flat_hash_set<const Computation*> on_host;
  for (Instruction* call : calls) {
    runs_on_host.push_back(Reachable(call->CalledComputation("to_apply")));
    on_host.insert(runs_on_host.back().begin(), runs_on_host.back().end());
  }

  bool changed = false;
  for (size_t k = 0; k < calls.size(); ++k) {
    Instruction* call = calls[k];
    Computation* parent = call->parent();
    if (on_host.contains(parent)) continue;
    Computation* host = call->CalledComputation("to_apply");
    if (call->operand_count() != host->num_parameters() ||
        !shape_util::Compatible(host->root()->shape(), call->shape())) {
      Diagnostic d = MakeDiagnostic(
          DiagCode::kHO9002,
          absl::StrCat("host_compute_asyncifier: host call \"", call->name(),
                       "\" does not match its computation \"", host->name(),
                       "\" (operands against parameters, or result shape)"),
          call);
      absl::Status status = ToXlaStatus(d);
      if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
      return status;
    }
    // CreateAsyncInstructions(call, {u32[]}, "host", replace, override_names).
    Computation* async = module.AddComputation("async_computation", "host", parent);
    std::vector<Instruction*> params;
    std::vector<Shape> operand_shapes;
    for (int64_t i = 0; i < call->operand_count(); ++i) {
      const Shape& shape = call->operand(i)->shape();
      params.push_back(async->AddParameter(shape, absl::StrCat("param_", i)));
      operand_shapes.push_back(shape);
    }
    Instruction* clone = async->AddInstruction(
        HloOpcode::kCall, call->shape(), params, absl::StrCat(call->name(), ".cloned"));
    InstructionBuilder::CopyAttributes(*call, clone);
    clone->RemoveFrontendAttribute(kComputeTypeAttr);
    clone->set_origin_from(*call);
    async->set_root(clone);

    Shape start_shape;
    start_shape.element_type = PrimitiveType::kTuple;
    Shape operands;
    operands.element_type = PrimitiveType::kTuple;
    operands.tuple_shapes = std::move(operand_shapes);
    Shape context;
    context.element_type = PrimitiveType::kU32;
    start_shape.tuple_shapes = {std::move(operands), call->shape(), std::move(context)};
    std::vector<Instruction*> call_operands(call->operands().begin(),
                                            call->operands().end());
    Instruction* start = parent->AddInstruction(
        HloOpcode::kAsyncStart, start_shape, call_operands,
        absl::StrCat(clone->name(), ".call-start"));
    InstructionBuilder::SetAsyncExecutionThread(start, "host");
    InstructionBuilder::SetCalledComputations(start, "calls", {async}, false);
    Instruction* done = parent->AddInstruction(
        HloOpcode::kAsyncDone, call->shape(), {start},
        absl::StrCat(clone->name(), ".call-done"));
    for (Instruction* half : {start, done}) {
      half->set_metadata_from(*call);
      half->set_origin_from(*call);
    }
    for (Instruction* pred : call->control_predecessors()) {
      pred->AddControlDependencyTo(start);
    }
    for (Instruction* succ : call->control_successors()) {
      done->AddControlDependencyTo(succ);
    }
    call->DropAllControlDeps();
    call->ReplaceAllUsesWith(done);
    parent->RemoveInstruction(call);

    for (Computation* c : runs_on_host[k]) {
      c->set_execution_thread("host");
      for (const auto& instr : c->raw_instructions()) {
        if (instr->IsDead()) continue;
        ClearTilesAndMemorySpaces(instr.get());
        instr->RemoveFrontendAttribute(kComputeTypeAttr);
      }
    }
    if (context_.TraceOn(1)) {
      context_.Trace(1, absl::StrCat("Turning ", clone->name(),
                                     " into an async instruction ", done->name()));
    }
    changed = true;
  }
  return changed;
}

}  // namespace hloff
