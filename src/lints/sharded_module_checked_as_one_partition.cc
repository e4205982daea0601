// HO3017 ShardedModuleCheckedAsOnePartition (docs/errors/HO3017.md).
#include "absl/strings/str_cat.h"
#include "analysis/partitions.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// A module of several partitions that XLA has not partitioned yet: its
// header says num_partitions > 1 and it still has the sharding custom-calls
// the SPMD partitioner and Shardy's import consume. XLA partitions it before
// the offloader (xla/service/gpu/gpu_spmd_pipeline.cc; libtpu likewise), which
// gives every value its per-device shape and may put collectives on host
// paths, where the HostOffloader turns them into host compute. The command
// line has no partitioner: it checks the module as written, as one
// partition, and says so here (the Python package runs XLA's own
// partitioner first for such HLO files and for JAX and StableHLO sources,
// docs/SHARDED.md).
class ShardedModuleCheckedAsOnePartition : public LintChecker {
 public:
  bool Visits(LintPhase phase, HloOpcode opcode) const override {
    return phase == LintPhase::kInput && opcode == HloOpcode::kCustomCall;
  }
  void BeforeModule(LintContext& context) override {
    partitions_ = NumPartitions(context.module());
  }
  // The first sharding custom-call of the traversal, in a module of several
  // partitions.
  void OnInstruction(const Instruction* instr, LintContext&) override {
    if (partitions_ > 1 && sharding_ == nullptr &&
        IsRemovedShardingTarget(instr->custom_call_target())) {
      sharding_ = instr;
    }
  }
  void AfterModule(LintContext& context) override {
    if (sharding_ == nullptr) return;
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3017,
        absl::StrCat(
            "the module has ", partitions_,
            " partitions and is not partitioned yet (\"", sharding_->input_name(),
            "\" is a ", sharding_->custom_call_target(),
            " custom-call): XLA runs the SPMD partitioner before the offloader, "
            "which gives each value its per-device shape and may put "
            "collectives on host paths, which the offloader runs on the host; it is checked "
            "here as written, as one partition, so those are not seen and "
            "byte figures are global"),
        sharding_);
    d.severity = Severity::kNote;
    d.notes.push_back(Note{
        "for the partitioned check, run the Python package with jax installed "
        "on this file (python -m hlo_offload check FILE, or "
        "hlo_offload.check(pathlib.Path(FILE))), on the JAX program or on its "
        "StableHLO: it runs XLA's own SPMD partitioner first "
        "(docs/SHARDED.md); or check XLA's dump after spmd-partitioning "
        "(--xla_dump_to with --xla_dump_hlo_pass_re=spmd-partitioning)",
        {}});
    context.out().push_back(std::move(d));
  }

 private:
  int64_t partitions_ = 1;
  const Instruction* sharding_ = nullptr;
};

}  // namespace

std::unique_ptr<LintChecker> NewShardedModuleCheckedAsOnePartition() {
  return std::make_unique<ShardedModuleCheckedAsOnePartition>();
}

}  // namespace hloff
