// sharding-remover: XLA's ShardingRemover (xla/service/sharding_remover.cc,
// ShardingRemover::RunImpl), which GPU's "sharding-removal" pipeline runs when
// the module has one partition (RunSPMDPasses in
// xla/service/gpu/gpu_compiler.cc, between RunPreSPMDPartitionerPasses and the
// optimization passes). Every custom-call with one of the targets XLA lists
// (Sharding, SPMDShardToFullShape, SPMDFullToShardShape, and Shardy's
// xla.sdy.ShardingGroup, xla.sdy.PropagationBarrier,
// xla.sdy.FuncResultSharding, ShardBarrierFrom, ShardBarrierTo, the names
// of xla/service/spmd/shardy/constants.h and spmd_partitioner_util.h) has its
// uses, the entry root included, moved to its operand, and is removed.
//
// XLA moves the uses (HloInstruction::ReplaceAllUsesWith: the operand keeps
// its own name, metadata and sharding, so a diagnostic names the user's
// instruction) and then swaps the custom-call for an unused copy that the
// pipeline's HloDCE deletes; removing it here leaves the same module. Like
// XLA's ReplaceInstruction, one with control edges stays, unused. XLA fails a
// CHECK on such a custom-call without exactly one operand and a RET_CHECK
// when the operand's shape differs; both are refused here (HO9002).
//
// XLA runs the pass only with one partition (`num_partitions` absent or 1 in
// the module header); with more, RunSPMDPasses runs the SPMD partitioner (and
// Shardy's import, which folds xla.sdy.FuncResultSharding into the result's
// sharding) instead, which is not modelled: there the pass changes nothing.
#ifndef HLO_OFFLOAD_PASSES_SHARDING_REMOVER_H_
#define HLO_OFFLOAD_PASSES_SHARDING_REMOVER_H_

#include "analysis/partitions.h"
#include "passes/pass.h"

namespace hloff {

class ShardingRemover : public HloPass {
 public:
  explicit ShardingRemover(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "sharding-remover"; }
  // Linear: one post-order walk per computation, each user rewritten once.
  // Changes nothing when NumPartitions(module) > 1. Fails (HO9002) on a removed custom-call without exactly one operand or
  // whose operand has another shape.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_SHARDING_REMOVER_H_
