// The lint registry, the context the checkers of a phase share, and the one
// traversal of a phase.
#include "lints/lint_registry.h"

#include <algorithm>
#include <array>

#include "analysis/offload_utils.h"
#include "lints/lint_util.h"

namespace hloff {

namespace {
constexpr uint8_t kInput = static_cast<uint8_t>(LintPhase::kInput);
constexpr uint8_t kOutput = static_cast<uint8_t>(LintPhase::kOutput);
constexpr uint8_t kVerdict = static_cast<uint8_t>(LintPhase::kVerdict);
}  // namespace

// The order of the checkers is the order in which the checks have always
// been made, so that the diagnostics come out as they always have:
// - input, after the traversal: HO3015 (only without annotations), HO3013,
//   HO3008, then HO3014's summary of the round trips it did not list, then
//   HO3017;
// - input, per instruction: HO3014 before HO3004 (an instruction can be both
//   a round trip and the entry root in host memory), then HO3006;
// - output, per instruction: HO3001, HO3002, HO3005, HO3009, HO3011, HO3007;
// - output, after the traversal: HO3010, HO3012, then HO3004's "nothing
//   ended in host memory", which reads what the others reported.
// Checkers that only gather facts in a phase (HO3001 and HO3016 in the
// input) emit nothing there, so their place in it does not matter.
const std::vector<LintInfo>& LintRegistry() {
  static const std::vector<LintInfo>* const kRegistry = [] {
    auto* registry = new std::vector<LintInfo>{
        {DiagCode::kHO3015, "module-already-offloaded", kInput, 10,
         NewModuleAlreadyOffloaded},
        {DiagCode::kHO3013, "offload-in-manual-sharding-region", kInput, 20,
         NewOffloadInManualShardingRegion},
        {DiagCode::kHO3008, "leaked-host-memory-space", kInput, 30,
         NewLeakedHostMemorySpace},
        {DiagCode::kHO3014, "host-round-trip-saves-no-memory", kInput, 40,
         NewHostRoundTripSavesNoMemory},
        {DiagCode::kHO3001, "compute-on-host-before-move-to-device",
         kInput | kOutput, 50, NewComputeOnHostBeforeMoveToDevice},
        {DiagCode::kHO3002, "scatter-gather-on-host-memory", kOutput, 60,
         NewScatterGatherOnHostMemory},
        {DiagCode::kHO3005, "host-dynamic-slice-index-not-induction-variable",
         kOutput, 70, NewHostDynamicSliceIndexNotInductionVariable},
        {DiagCode::kHO3009, "nested-host-stack", kOutput, 80, NewNestedHostStack},
        {DiagCode::kHO3011, "large-conditional-pass-through-on-host", kOutput, 90,
         NewLargeConditionalPassThroughOnHost},
        {DiagCode::kHO3007, "dynamic-update-slice-memory-space-mismatch", kOutput,
         100, NewDynamicUpdateSliceMemorySpaceMismatch},
        {DiagCode::kHO3010, "pipelined-host-write", kOutput, 110,
         NewPipelinedHostWrite},
        {DiagCode::kHO3012, "pinned-host-budget-exceeded", kOutput, 120,
         NewPinnedHostBudgetExceeded},
        {DiagCode::kHO3004, "host-memory-request-not-honored", kInput | kOutput,
         130, NewHostMemoryRequestNotHonored},
        {DiagCode::kHO3006, "layout-change-on-host-path", kInput, 140,
         NewLayoutChangeOnHostPath},
        {DiagCode::kHO3016, "entry-layout-without-memory-kinds",
         kInput | kVerdict, 150, NewEntryLayoutWithoutMemoryKinds},
        {DiagCode::kHO3017, "sharded-module-checked-as-one-partition", kInput, 160,
         NewShardedModuleCheckedAsOnePartition},
    };
    std::sort(registry->begin(), registry->end(),
              [](const LintInfo& a, const LintInfo& b) { return a.name < b.name; });
    return registry;
  }();
  return *kRegistry;
}

const LintInfo* FindLint(DiagCode code) {
  for (const LintInfo& info : LintRegistry()) {
    if (info.code == code) return &info;
  }
  return nullptr;
}

namespace {

constexpr size_t kOpcodeCount = 0
#define X(name, spelling, historical) +1
#include "ir/opcodes.def"
#undef X
    ;

// The lints of a phase in their order, and per opcode the ones whose
// OnInstruction the traversal calls (indices into `lints`, in order):
// those of opcode k are visitors[begin[k]] up to visitors[begin[k + 1]].
struct PhasePlan {
  std::vector<const LintInfo*> lints;
  std::vector<uint8_t> visitors;
  std::array<uint32_t, kOpcodeCount + 1> begin{};
};

PhasePlan MakePlan(LintPhase phase) {
  PhasePlan plan;
  for (const LintInfo& info : LintRegistry()) {
    if (info.RunsIn(phase)) plan.lints.push_back(&info);
  }
  std::sort(plan.lints.begin(), plan.lints.end(),
            [](const LintInfo* a, const LintInfo* b) { return a->order < b->order; });
  std::vector<std::unique_ptr<LintChecker>> checkers;
  for (const LintInfo* info : plan.lints) checkers.push_back(info->create());
  for (size_t op = 0; op < kOpcodeCount; ++op) {
    plan.begin[op] = static_cast<uint32_t>(plan.visitors.size());
    for (size_t i = 0; i < checkers.size(); ++i) {
      if (checkers[i]->Visits(phase, static_cast<HloOpcode>(op))) {
        plan.visitors.push_back(static_cast<uint8_t>(i));
      }
    }
  }
  plan.begin[kOpcodeCount] = static_cast<uint32_t>(plan.visitors.size());
  return plan;
}

const PhasePlan& PlanOf(LintPhase phase) {
  static const PhasePlan kInputPlan = MakePlan(LintPhase::kInput);
  static const PhasePlan kOutputPlan = MakePlan(LintPhase::kOutput);
  static const PhasePlan kVerdictPlan = MakePlan(LintPhase::kVerdict);
  switch (phase) {
    case LintPhase::kInput:
      return kInputPlan;
    case LintPhase::kOutput:
      return kOutputPlan;
    case LintPhase::kVerdict:
      break;
  }
  return kVerdictPlan;
}

}  // namespace

const std::vector<const LintInfo*>& LintsOfPhase(LintPhase phase) {
  return PlanOf(phase).lints;
}

LintContext::LintContext(LintPhase phase, const Module& module,
                         const LintOptions& options,
                         const LintInputFacts& facts,
                         LintInputFacts* writable_facts,
                         std::vector<Diagnostic>& out,
                         const std::vector<Diagnostic>* pass_diagnostics)
    : phase_(phase),
      module_(module),
      options_(options),
      facts_(facts),
      writable_facts_(writable_facts),
      out_(out),
      pass_diagnostics_(pass_diagnostics) {}

const absl::flat_hash_map<const Computation*, const Instruction*>&
LintContext::host_computations() {
  if (host_computations_.has_value()) return *host_computations_;
  auto& host = host_computations_.emplace();
  std::vector<const Computation*> work;
  for (const auto& comp : module_.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      // A call tagged host compute, or the async-start that
      // host_compute_asyncifier made of one.
      if (instr->IsDead() || !(ComputeTypeIsHost(instr) || IsHostAsyncStart(instr))) {
        continue;
      }
      for (const Computation* called : instr->called_computations()) {
        if (host.emplace(called, instr).second) work.push_back(called);
      }
    }
  }
  while (!work.empty()) {
    const Computation* comp = work.back();
    work.pop_back();
    const Instruction* caller = host.at(comp);
    for (const auto& owned : comp->raw_instructions()) {
      if (owned->IsDead()) continue;
      for (const Computation* called : owned->called_computations()) {
        if (host.emplace(called, caller).second) work.push_back(called);
      }
    }
  }
  return host;
}

const absl::flat_hash_set<int64_t>& LintContext::LoopCounters(
    const Computation* body) {
  auto [it, inserted] = counters_.try_emplace(body);
  if (!inserted) return it->second;
  const Instruction* root = body->root();
  if (root->opcode() != HloOpcode::kTuple || body->num_parameters() != 1) {
    return it->second;
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const Instruction* next = root->operand(i);
    if (next->opcode() != HloOpcode::kAdd &&
        next->opcode() != HloOpcode::kSubtract) {
      continue;
    }
    bool has_self = false, has_constant = false;
    for (const Instruction* op : next->operands()) {
      has_self |= op->opcode() == HloOpcode::kGetTupleElement &&
                  op->operand(0) == body->parameter(0) &&
                  op->tuple_index() == i;
      has_constant |= op->opcode() == HloOpcode::kConstant;
    }
    if (has_self && has_constant) it->second.insert(i);
  }
  return it->second;
}

void RunLintPhase(LintContext& context) {
  const LintPhase phase = context.phase();
  const Module& module = context.module();
  const PhasePlan& plan = PlanOf(phase);
  std::vector<std::unique_ptr<LintChecker>> owned;
  std::vector<LintChecker*> checkers;
  for (const LintInfo* info : plan.lints) {
    owned.push_back(info->create());
    checkers.push_back(owned.back().get());
  }
  if (phase == LintPhase::kOutput) context.call_graph_.emplace(module);
  for (LintChecker* checker : checkers) checker->BeforeModule(context);
  if (phase != LintPhase::kVerdict) {
    const Computation* entry = module.entry();
    for (const auto& comp : module.computations()) {
      context.computation_ = comp.get();
      context.in_entry_ = comp.get() == entry;
      if (phase == LintPhase::kOutput) {
        std::vector<Instruction*> callers = context.call_graph_->CallersOf(comp.get());
        context.in_loop_body_ = callers.size() == 1 &&
                                callers[0]->opcode() == HloOpcode::kWhile &&
                                callers[0]->while_body() == comp.get();
      }
      for (const auto& instruction : comp->raw_instructions()) {
        const Instruction* instr = instruction.get();
        if (instr->IsDead()) continue;
        if (phase == LintPhase::kInput) {
          context.has_annotations_ |= IsOffloadAnnotation(instr);
        }
        const size_t op = static_cast<size_t>(instr->opcode());
        for (uint32_t i = plan.begin[op]; i < plan.begin[op + 1]; ++i) {
          checkers[plan.visitors[i]]->OnInstruction(instr, context);
        }
      }
    }
    context.computation_ = nullptr;
    context.in_entry_ = false;
    context.in_loop_body_ = false;
  }
  for (LintChecker* checker : checkers) checker->AfterModule(context);
}

}  // namespace hloff
