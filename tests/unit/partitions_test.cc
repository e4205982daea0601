// FirstUnpartitionedSharding (analysis/partitions.h): what says that a module
// of several partitions is from before SPMD partitioning, and what says that
// it is partitioned already (the corpus's llama3 dumps are partitioned and
// keep their entry shardings; the after_optimizations dumps are scheduled).
#include "analysis/partitions.h"

#include <string>

#include "gtest/gtest.h"
#include "text/parser.h"

namespace hloff {
namespace {

std::string FirstName(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "<parse error>";
  const Instruction* instr = FirstUnpartitionedSharding(**module);
  return instr == nullptr ? "" : std::string(instr->input_name());
}

constexpr char kShardedParameter[] = R"(
HloModule m, num_partitions=4

ENTRY e {
  p = f32[16,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT n = f32[16,8]{1,0} negate(p)
}
)";

TEST(PartitionsTest, ShardedEntryParameter) {
  EXPECT_EQ(FirstName(kShardedParameter), "p");
}

TEST(PartitionsTest, AShardedParameterBeforeAReplicatedOne) {
  EXPECT_EQ(FirstName(R"(
HloModule m, num_partitions=4

ENTRY e {
  w = f32[16,8]{1,0} parameter(0), sharding={replicated}
  x = f32[16,8]{1,0} parameter(1), sharding={devices=[4,1]<=[4]}
  ROOT a = f32[16,8]{1,0} add(w, x)
}
)"),
            "x");
}

TEST(PartitionsTest, ShardingCustomCallWithoutEntryShardings) {
  EXPECT_EQ(FirstName(R"(
HloModule m, num_partitions=4

ENTRY e {
  p = f32[16,8]{1,0} parameter(0)
  ROOT s = f32[16,8]{1,0} custom-call(p), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
}
)"),
            "s");
}

TEST(PartitionsTest, ScheduledModuleIsPartitioned) {
  EXPECT_EQ(FirstName(R"(
HloModule m, is_scheduled=true, num_partitions=4

ENTRY e {
  p = f32[4,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT n = f32[4,8]{1,0} negate(p)
}
)"),
            "");
}

TEST(PartitionsTest, PartitionerCollectivesWithoutShardingCallsArePartitioned) {
  EXPECT_EQ(FirstName(R"(
HloModule m, num_partitions=4

ENTRY e {
  p = f32[4,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT g = f32[16,8]{1,0} all-gather(p), channel_id=1, replica_groups=[1,4]<=[4], dimensions={0}, use_global_device_ids=true
}
)"),
            "");
  EXPECT_EQ(FirstName(R"(
HloModule m, num_partitions=4

ENTRY e {
  p = f32[4,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  i = u32[] partition-id()
  ROOT n = f32[4,8]{1,0} negate(p)
}
)"),
            "");
}

// A collective inside a shard_map region: the region's custom-calls say the
// module is from before partitioning.
TEST(PartitionsTest, ShardMapCollectiveBeforePartitioning) {
  EXPECT_EQ(FirstName(R"(
HloModule m, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[16,8]{1,0} parameter(0), sharding={devices=[4,1]<=[4]}
  l = f32[4,8]{1,0} custom-call(p), custom_call_target="SPMDFullToShardShape", sharding={manual}
  r = f32[4,8]{1,0} all-reduce(l), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=add, sharding={manual}
  ROOT g = f32[16,8]{1,0} custom-call(r), custom_call_target="SPMDShardToFullShape", sharding={devices=[4,1]<=[4]}
}
)"),
            "p");
}

}  // namespace
}  // namespace hloff
