// What a module says about its partitions, for the passes (sharding-remover)
// and the lints (HO3017).
#ifndef HLO_OFFLOAD_ANALYSIS_PARTITIONS_H_
#define HLO_OFFLOAD_ANALYSIS_PARTITIONS_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "ir/hlo.h"

namespace hloff {

// Whether `target` is a custom-call target that stands for a sharding before
// SPMD partitioning: the ones XLA's ShardingRemover removes with one
// partition (Sharding, SPMDShardToFullShape, SPMDFullToShardShape, and
// Shardy's xla.sdy.ShardingGroup, xla.sdy.PropagationBarrier,
// xla.sdy.FuncResultSharding, ShardBarrierFrom, ShardBarrierTo: the names of
// xla/service/spmd/shardy/constants.h and spmd_partitioner_util.h), which the
// SPMD partitioner and Shardy's import consume with several.
bool IsRemovedShardingTarget(absl::string_view target);

// The module header's num_partitions (1 when absent or unreadable).
int64_t NumPartitions(const Module& module);

// What says that the module is from before SPMD partitioning: the first
// custom-call, in computation and instruction order, whose target
// IsRemovedShardingTarget (XLA's partitioner and Shardy's import consume each
// of them; the partitioned module has none), else an entry parameter or the
// entry root with a `sharding` attribute (JAX's in_shardings and
// out_shardings), unless the module shows that it is partitioned already.
// XLA keeps the entry's shardings on the partitioned module, so those alone
// do not tell; a module is taken as partitioned when its header says
// is_scheduled=true (XLA schedules after partitioning: an after_optimizations
// dump) or, without sharding custom-calls, it has a partition-id or a
// collective (the instructions the partitioner inserts; before partitioning
// they occur only inside shard_map regions, which the custom-calls bound).
// nullptr when nothing says so (a module already partitioned, or one without
// shardings). The entry's parameter is preferred to the custom-call when both
// are there, as the one a user set, and among them one that is not
// `{replicated}`.
const Instruction* FirstUnpartitionedSharding(const Module& module);

}  // namespace hloff

#endif  // HLO_OFFLOAD_ANALYSIS_PARTITIONS_H_
