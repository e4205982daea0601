// The lint registry: one checker per HO30xx code, each in a file of its own
// in this folder named for the code's name in diag/codes.def, registered in
// one table with the code it emits, the phases it runs in and a factory, as
// passes/pass.h registers passes (Binaryen's pass registry, clang-tidy's
// checks).
//
// A phase is one traversal of the module (RunLintPhase): each checker's
// BeforeModule, then for each computation in module order and each live
// instruction in its order the OnInstruction of every checker that visits
// its opcode (LintChecker::Visits), then each checker's AfterModule; at each
// step the checkers go in their registry `order`. What several checkers need
// (the call graph, the computations that run as host compute, the loop
// counters of a while body, whether the module has offload annotations) is
// computed once, in the LintContext they share.
#ifndef HLO_OFFLOAD_LINTS_LINT_REGISTRY_H_
#define HLO_OFFLOAD_LINTS_LINT_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "analysis/call_graph.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"
#include "lints/offload_lints.h"

namespace hloff {

// What a phase runs on. Bits, so that a checker can take part in several
// (LintInfo::phases).
enum class LintPhase : uint8_t {
  kInput = 1,    // the module as read, before the pipeline (LintInput)
  kOutput = 2,   // the module the pipeline produced (LintOutput)
  kVerdict = 4,  // the passes' diagnostics; no traversal (LintVerdict)
};

// What the checkers of one phase share: the module, where they append, the
// input's facts, the traversal's position and the per-module analyses that
// several of them read, computed once.
class LintContext {
 public:
  // `facts` is read in every phase and, through `writable_facts` (the same
  // object; null outside kInput), written in kInput; `pass_diagnostics` is
  // set in kVerdict only.
  LintContext(LintPhase phase, const Module& module, const LintOptions& options,
              const LintInputFacts& facts, LintInputFacts* writable_facts,
              std::vector<Diagnostic>& out,
              const std::vector<Diagnostic>* pass_diagnostics = nullptr);

  LintPhase phase() const { return phase_; }
  const Module& module() const { return module_; }
  const LintOptions& options() const { return options_; }
  const EntryComputationLayout& layout() const {
    return module_.entry_computation_layout();
  }
  // Every diagnostic of the lints so far, those of LintInput included in the
  // later phases (HO3004 reads them); checkers append here.
  std::vector<Diagnostic>& out() { return out_; }
  // What the input phase found; checkers of kInput fill it in through
  // mutable_facts().
  const LintInputFacts& facts() const { return facts_; }
  LintInputFacts& mutable_facts() { return *writable_facts_; }
  // kVerdict: the diagnostics of the passes.
  const std::vector<Diagnostic>& pass_diagnostics() const { return *pass_diagnostics_; }

  // The traversal's position: the computation whose instructions are being
  // visited and whether it is the entry computation.
  const Computation* computation() const { return computation_; }
  bool in_entry() const { return in_entry_; }
  // kOutput: the computation is the body of exactly one caller, a while.
  bool in_loop_body() const { return in_loop_body_; }

  // kInput: some live instruction is an offload annotation
  // (IsOffloadAnnotation). Complete in AfterModule.
  bool has_annotations() const { return has_annotations_; }

  // kOutput: the module's call graph, built once before the traversal.
  const CallGraph& call_graph() const { return *call_graph_; }
  // kOutput: the computations that run as host compute (called, transitively,
  // by an instruction tagged _xla_compute_type="host"), each with that
  // instruction. Computed on the first call.
  const absl::flat_hash_map<const Computation*, const Instruction*>&
  host_computations();
  // The loop counters of while body `body`: the tuple elements its root sets
  // to element + constant (or - constant). Computed once per body.
  const absl::flat_hash_set<int64_t>& LoopCounters(const Computation* body);

 private:
  friend void RunLintPhase(LintContext& context);

  const LintPhase phase_;
  const Module& module_;
  const LintOptions& options_;
  const LintInputFacts& facts_;
  LintInputFacts* const writable_facts_;
  std::vector<Diagnostic>& out_;
  const std::vector<Diagnostic>* pass_diagnostics_;
  const Computation* computation_ = nullptr;
  bool in_entry_ = false;
  bool in_loop_body_ = false;
  bool has_annotations_ = false;
  std::optional<CallGraph> call_graph_;
  std::optional<absl::flat_hash_map<const Computation*, const Instruction*>>
      host_computations_;
  absl::flat_hash_map<const Computation*, absl::flat_hash_set<int64_t>> counters_;
};

// One lint: what it looks for in the phases it takes part in. A checker is
// made afresh for each phase of each module (its members are that run's
// state) and only appends to LintContext::out().
class LintChecker {
 public:
  virtual ~LintChecker() = default;
  // Whether OnInstruction is to be called for the instructions of `opcode`
  // in `phase`, as a clang-tidy check registers the nodes it matches: the
  // traversal calls each instruction's checkers only. A property of the
  // checker's kind, asked once per process, so it may depend on its two
  // arguments alone.
  virtual bool Visits(LintPhase phase, HloOpcode opcode) const { return false; }
  virtual void BeforeModule(LintContext& context) {}
  virtual void OnInstruction(const Instruction* instr, LintContext& context) {}
  virtual void AfterModule(LintContext& context) {}
};

// One row of the registry.
struct LintInfo {
  DiagCode code;
  // The code's name in codes.def in kebab-case
  // ("compute-on-host-before-move-to-device"); its file is the snake_case
  // form (compute_on_host_before_move_to_device.cc).
  absl::string_view name;
  // The LintPhase bits of the phases the checker takes part in.
  uint8_t phases;
  // Where its hooks run among those of the other checkers of a phase, lower
  // first. Diagnostics are appended in this order, so it keeps the order in
  // which the checks have always been made (lint_registry.cc says why).
  int order;
  std::unique_ptr<LintChecker> (*create)();

  bool RunsIn(LintPhase phase) const {
    return (phases & static_cast<uint8_t>(phase)) != 0;
  }
};

// Every lint, sorted by name.
const std::vector<LintInfo>& LintRegistry();
// The lint of `code`; null if there is none.
const LintInfo* FindLint(DiagCode code);
// The lints of `phase` in their order.
const std::vector<const LintInfo*>& LintsOfPhase(LintPhase phase);

// Runs the checkers of context.phase() on context.module() in one traversal
// (none in kVerdict). Linear in the module size.
void RunLintPhase(LintContext& context);

}  // namespace hloff

#endif  // HLO_OFFLOAD_LINTS_LINT_REGISTRY_H_
