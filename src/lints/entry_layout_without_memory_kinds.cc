// HO3016 EntryLayoutWithoutMemoryKinds (docs/errors/HO3016.md).
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Detects an E1200 on an input that reads as JAX's
// Lowered.as_text(dialect="hlo"): the module is named as JAX names a jitted
// function's (`jit_step`: pxla.py lower_sharding_computation names it
// "jit(step)", which MLIR's symbol names spell `jit_step`; a run of JAX
// 0.10.2), no leaf of entry_computation_layout has a memory space and no
// instruction has metadata. Hand-written modules (lit tests) are not named
// so and get no HO3016. That text is not what XLA
// compiles: JAX keeps memory kinds as `mhlo.memory_kind` on the StableHLO
// function and only PJRT writes them into the entry layout before XLA
// compiles (xla/pjrt/utils.cc), so in that text a correct `pinned_host`
// output reads as E1200 (docs/JAX.md, a run of JAX 0.10.2). XLA never sees
// the text and cannot say so. The input phase finds what the text looks
// like (LintInputFacts::reads_as_jax_lowered_text); the verdict phase, after
// the passes, counts the faulty outputs of their E1200s.
class EntryLayoutWithoutMemoryKinds : public LintChecker {
 public:
  bool Visits(LintPhase phase, HloOpcode) const override {
    return phase == LintPhase::kInput;
  }

  void BeforeModule(LintContext& context) override {
    if (context.phase() != LintPhase::kInput) return;
    const EntryComputationLayout& layout = context.layout();
    auto note_memory_space = [&](const Shape& shape) {
      ShapeIndex index;
      shape_util::ForEachSubshape(
          shape,
          [&](const Shape& subshape, const ShapeIndex&) {
            layout_has_memory_space_ |= subshape.memory_space() != kDefaultMemorySpace;
          },
          index);
    };
    for (const Shape& parameter : layout.parameters) note_memory_space(parameter);
    note_memory_space(layout.result);
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    has_metadata_ = has_metadata_ || instr->FindRawAttribute("metadata").has_value();
  }

  void AfterModule(LintContext& context) override {
    if (context.phase() == LintPhase::kInput) {
      context.mutable_facts().reads_as_jax_lowered_text =
          absl::StartsWith(context.module().name(), "jit_") &&
          !layout_has_memory_space_ && !has_metadata_;
      return;
    }
    const LintInputFacts& facts = context.facts();
    if (!facts.reads_as_jax_lowered_text) return;
    // One E1200 per (walk start, output): count the outputs.
    absl::flat_hash_set<std::string> faulty_outputs;
    for (const Diagnostic& d : context.pass_diagnostics()) {
      if (d.code == DiagCode::kE1200 && d.severity == Severity::kError) {
        faulty_outputs.insert(d.output_index ? ShapeIndexToString(*d.output_index) : "");
      }
    }
    if (faulty_outputs.empty()) return;
    const int64_t outputs = static_cast<int64_t>(faulty_outputs.size());
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.code = DiagCode::kHO3016;
    d.instruction = facts.entry_root;
    d.computation = std::string(context.module().entry()->name());
    d.loc = facts.entry_root_loc;
    d.message = absl::StrCat(
        "entry_computation_layout declares no memory space although ", outputs,
        outputs == 1 ? " entry output receives a tensor moved to host"
                     : " entry outputs receive tensors moved to host",
        ", and the module has no metadata: it reads as JAX's "
        "Lowered.as_text(dialect=\"hlo\"), which leaves out the memory kinds that "
        "PJRT writes into the entry layout before XLA compiles, so the E1200 may "
        "be an artefact of the text; check the program with "
        "hlo_offload.check(jax.jit(f), *args), or XLA's own dump "
        "(--xla_dump_to, *.before_optimizations.txt)");
    context.out().push_back(std::move(d));
  }

 private:
  bool layout_has_memory_space_ = false;  // kInput
  bool has_metadata_ = false;             // kInput
};

}  // namespace

std::unique_ptr<LintChecker> NewEntryLayoutWithoutMemoryKinds() {
  return std::make_unique<EntryLayoutWithoutMemoryKinds>();
}

}  // namespace hloff
