// The one walk of an offloaded tensor (analysis/host_path_walk.h): what it
// tells its observer, in which order, the cases it gives each value, and the
// first-discovery paths it keeps.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/call_graph.h"
#include "analysis/host_path_walk.h"
#include "text/parser.h"

namespace hloff {
namespace {

using IAS = InstructionAndShapeIndex;

std::unique_ptr<Module> Parse(const char* text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

Instruction* Find(const Module& module, absl::string_view name) {
  for (const auto& comp : module.computations()) {
    for (Instruction* instr : comp->instructions()) {
      if (instr->name() == name) return instr;
    }
  }
  return nullptr;
}

absl::string_view StepName(HostPathStep step) {
  switch (step) {
    case HostPathStep::kMoveToHost:
      return "move-to-host";
    case HostPathStep::kMoveToDevice:
      return "move-to-device";
    case HostPathStep::kDynamicUpdateSlice:
      return "dus";
    case HostPathStep::kPureMemory:
      return "memory";
    case HostPathStep::kSlice:
      return "slice";
    case HostPathStep::kLayoutCopy:
      return "layout-copy";
    case HostPathStep::kHostCompute:
      return "compute";
  }
  return "";
}

// Writes down everything it is told; skips `skip`, fails at `fail_at`.
class Log : public HostPathObserver {
 public:
  absl::StatusOr<HostPathNext> Visit(const HostPathWalk& walk,
                                     const HostPathValue& at) override {
    const IAS& value = at.value;
    const HostPathStep step = at.step;
    // Discovery order is visiting order, and a value is reached from an
    // earlier one.
    EXPECT_EQ(at.index, static_cast<int64_t>(visits.size()));
    EXPECT_LT(at.previous, at.index);
    EXPECT_TRUE(walk.value(at.index) == value);
    std::vector<std::string> path;
    for (const IAS& hop : walk.PathTo(at.index)) {
      path.push_back(absl::StrCat(hop.instruction->name(),
                                  ShapeIndexToString(hop.shape_index)));
    }
    visits.push_back(absl::StrCat(value.instruction->name(),
                                  ShapeIndexToString(value.shape_index), " ",
                                  StepName(step), " [",
                                  absl::StrJoin(path, " "), "]"));
    if (value.instruction->name() == fail_at) {
      return absl::InternalError("observer stops here");
    }
    return step == HostPathStep::kMoveToDevice ? HostPathNext::kStop
                                               : HostPathNext::kSuccessors;
  }
  void Hop(const IAS& from, const IAS& to) override {
    hops.push_back(
        absl::StrCat(from.instruction->name(), "->", to.instruction->name()));
  }
  bool ShouldWalk(const IAS& to) override {
    return to.instruction->name() != skip;
  }
  absl::Status SuccessorsFailed(const IAS& value, absl::Status status,
                                Instruction* offending) override {
    failures.push_back(absl::StrCat(value.instruction->name(), ": ",
                                    offending ? offending->name() : "?"));
    return tolerate ? absl::OkStatus() : status;
  }

  std::vector<std::string> visits, hops, failures;
  std::string skip, fail_at;
  bool tolerate = true;
};

constexpr char kLoopedStack[] = R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}
ENTRY main {
  x = f32[4]{0} parameter(0)
  up = f32[4]{0} custom-call(x), custom_call_target="MoveToHost"
  b = f32[4]{0} bitcast(up)
  n = f32[4]{0} negate(b)
  t = (f32[4]{0}, f32[4]{0}) tuple(b, n)
  g0 = f32[4]{0} get-tuple-element(t), index=0
  s = f32[2]{0} slice(g0), slice={[0:2]}
  g1 = f32[4]{0} get-tuple-element(t), index=1
  ROOT dn = f32[4]{0} custom-call(g1), custom_call_target="MoveToDevice"
}
)";

TEST(HostPathWalkTest, VisitsBreadthFirstWithCasesAndFirstDiscoveryPaths) {
  auto module = Parse(kLoopedStack);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  HostPathWalk walk(graph);
  Log log;
  ASSERT_TRUE(walk.Run({Find(*module, "up"), {}}, log).ok());
  EXPECT_EQ(walk.start().instruction->name(), "up");
  // Each value once, nearest first; `t` is reached twice (from b and n) and
  // visited at both of its indices, each on the path that found it first.
  EXPECT_EQ(log.visits,
            (std::vector<std::string>{
                "up{} move-to-host [up{}]",
                "b{} memory [up{} b{}]",
                "n{} compute [up{} b{} n{}]",
                "t{0} memory [up{} b{} t{0}]",
                "t{1} memory [up{} b{} n{} t{1}]",
                "g0{} memory [up{} b{} t{0} g0{}]",
                "g1{} memory [up{} b{} n{} t{1} g1{}]",
                "s{} slice [up{} b{} t{0} g0{} s{}]",
                "dn{} move-to-device [up{} b{} n{} t{1} g1{} dn{}]",
            }));
  // Every successor found is a hop, whether walked or not; the ones of a
  // value the observer stopped at are not looked for.
  EXPECT_EQ(log.hops, (std::vector<std::string>{"up->b", "b->n", "b->t",
                                                "n->t", "t->g0", "t->g1",
                                                "g0->s", "g1->dn"}));
  EXPECT_EQ(walk.Previous({Find(*module, "up"), {}}), nullptr);
  const IAS* before_g1 = walk.Previous({Find(*module, "g1"), {}});
  ASSERT_NE(before_g1, nullptr);
  EXPECT_EQ(before_g1->instruction->name(), "t");
  EXPECT_EQ(before_g1->shape_index, ShapeIndex{1});
}

TEST(HostPathWalkTest, PathToKeepsTheNearestHopsWhenCapped) {
  auto module = Parse(kLoopedStack);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  HostPathWalk walk(graph);
  Log log;
  ASSERT_TRUE(walk.Run({Find(*module, "up"), {}}, log).ok());
  bool truncated = false;
  auto path = walk.PathTo({Find(*module, "dn"), {}}, 3, &truncated);
  ASSERT_EQ(path.size(), 3);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(path[0].instruction->name(), "t");
  EXPECT_EQ(path[2].instruction->name(), "dn");
  // A cap the whole path fits in leaves it whole.
  path = walk.PathTo({Find(*module, "dn"), {}}, 6, &truncated);
  EXPECT_EQ(path.size(), 6);
  EXPECT_FALSE(truncated);
}

TEST(HostPathWalkTest, ObserverDecidesWhatIsWalkedAndWhenToStop) {
  auto module = Parse(kLoopedStack);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  HostPathWalk walk(graph);
  Log skip_n;
  skip_n.skip = "n";
  ASSERT_TRUE(walk.Run({Find(*module, "up"), {}}, skip_n).ok());
  // Without n, t{1} and what follows it are never reached.
  ASSERT_EQ(skip_n.visits.size(), 5);
  EXPECT_EQ(skip_n.visits.back(), "s{} slice [up{} b{} t{0} g0{} s{}]");

  Log fail;
  fail.fail_at = "t";
  absl::Status status = walk.Run({Find(*module, "up"), {}}, fail);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(fail.visits.size(), 4);  // up, b, n, t{0}
}

TEST(HostPathWalkTest, SuccessorErrorsGoToTheObserver) {
  // A get-tuple-element reading the tracked tuple as a whole: XLA's
  // GetSuccessors fails a CHECK there.
  auto module = Parse(R"(HloModule m
ENTRY main {
  x = f32[4]{0} parameter(0)
  up = f32[4]{0} custom-call(x), custom_call_target="MoveToHost"
  t = (f32[4]{0}) tuple(up)
  g = f32[4]{0} get-tuple-element(t), index=0
  ROOT r = (f32[4]{0}) tuple(g)
}
)");
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  HostPathWalk walk(graph);
  Log tolerant;
  // Walked from the whole tuple, the read of element 0 is the fault.
  ASSERT_TRUE(walk.Run({Find(*module, "t"), {}}, tolerant).ok());
  EXPECT_EQ(tolerant.failures, (std::vector<std::string>{"t: g"}));
  Log strict;
  strict.tolerate = false;
  EXPECT_EQ(walk.Run({Find(*module, "t"), {}}, strict).code(),
            absl::StatusCode::kUnimplemented);
  HostPathWalk skipping(graph, {/*skip_whole_tuple_reads=*/true});
  Log quiet;
  ASSERT_TRUE(skipping.Run({Find(*module, "t"), {}}, quiet).ok());
  EXPECT_TRUE(quiet.failures.empty());
}

TEST(HostPathWalkTest, CopyCasesFollowTheMemorySpaceOption) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  x = f32[4,2]{1,0} parameter(0)
  same = f32[4,2]{1,0} copy(x)
  to_host = f32[4,2]{1,0:S(5)} copy(x)
  relayout = f32[4,2]{0,1} copy(x)
  ROOT t = (f32[4,2]{1,0}, f32[4,2]{1,0:S(5)}, f32[4,2]{0,1}) tuple(same, to_host, relayout)
}
)");
  ASSERT_NE(module, nullptr);
  auto step = [&](absl::string_view name, bool memory_space) {
    return HostPathWalk::StepOf(Find(*module, name), memory_space);
  };
  EXPECT_EQ(step("same", true), HostPathStep::kHostCompute);
  EXPECT_EQ(step("to_host", true), HostPathStep::kLayoutCopy);
  EXPECT_EQ(step("to_host", false), HostPathStep::kHostCompute);
  EXPECT_EQ(step("relayout", false), HostPathStep::kLayoutCopy);
  EXPECT_TRUE(IsCopyOrBitcastHop(Find(*module, "relayout")));
  EXPECT_TRUE(IsEntryRoot(Find(*module, "t"), *module));
  EXPECT_FALSE(IsEntryRoot(Find(*module, "same"), *module));
}

}  // namespace
}  // namespace hloff
