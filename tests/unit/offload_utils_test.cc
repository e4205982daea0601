// Dataflow utilities over (instruction, shape index): successors,
// predecessors (V6, conditionals included) and the dynamic-variable query.
// Scenarios 101-105 of the V6 addendum.
#include <gtest/gtest.h>

#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "text/parser.h"

namespace hloff {
namespace {

std::unique_ptr<Module> Parse(const char* text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

Instruction* Find(const Module& module, absl::string_view comp,
                  absl::string_view name) {
  Computation* c = module.FindComputation(comp);
  if (c == nullptr) return nullptr;
  for (Instruction* instr : c->instructions()) {
    if (instr->name() == name) return instr;
  }
  return nullptr;
}

// Scenario 101: the predecessor of a callee parameter is the call-site
// operand; the successors of a MoveToHost'd value go into the callee.
TEST(OffloadUtilsTest, CallPredecessorsAndSuccessors) {
  auto module = Parse(R"(HloModule m
relay {
  ROOT arg = f32[6]{0} parameter(0)
}
ENTRY main {
  x = f32[6]{0} parameter(0)
  up = f32[6]{0} custom-call(x), custom_call_target="MoveToHost"
  r = f32[6]{0} call(up), to_apply=relay
  ROOT dn = f32[6]{0} custom-call(r), custom_call_target="MoveToDevice"
}
)");
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  Instruction* arg = Find(*module, "relay", "arg");
  auto preds = GetPredecessors({arg, {}}, graph);
  ASSERT_TRUE(preds.ok()) << preds.status();
  ASSERT_EQ(preds->size(), 1);
  EXPECT_EQ((*preds)[0].instruction->name(), "up");

  auto succs = GetSuccessors({Find(*module, "main", "up"), {}}, graph);
  ASSERT_TRUE(succs.ok());
  ASSERT_EQ(succs->size(), 1);
  EXPECT_EQ((*succs)[0].instruction, arg);
  // The callee root's successor is the call site.
  auto back = GetSuccessors({arg, {}}, graph);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1);
  EXPECT_EQ((*back)[0].instruction->name(), "r");
}

constexpr char kConditional[] = R"(HloModule m
on_true {
  tp = f32[3]{0} parameter(0)
  ROOT tc = f32[3]{0} copy(tp)
}
on_false {
  fp = f32[3]{0} parameter(0)
  ROOT fc = f32[3]{0} copy(fp)
}
ENTRY main {
  pick = pred[] parameter(0)
  yes = f32[3]{0} parameter(1)
  no = f32[3]{0} parameter(2)
  ROOT cond = f32[3]{0} conditional(pick, yes, no), true_computation=on_true, false_computation=on_false
}
)";

// Scenario 102: a branch parameter's predecessor is its branch operand (V5
// returned the selector); a conditional's predecessors are the branch roots.
TEST(OffloadUtilsTest, ConditionalPredecessors) {
  auto module = Parse(kConditional);
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  auto preds = GetPredecessors({Find(*module, "on_true", "tp"), {}}, graph);
  ASSERT_TRUE(preds.ok()) << preds.status();
  ASSERT_EQ(preds->size(), 1);
  EXPECT_EQ((*preds)[0].instruction->name(), "yes");
  auto false_preds = GetPredecessors({Find(*module, "on_false", "fp"), {}}, graph);
  ASSERT_TRUE(false_preds.ok());
  ASSERT_EQ(false_preds->size(), 1);
  EXPECT_EQ((*false_preds)[0].instruction->name(), "no");

  auto roots = GetPredecessors({Find(*module, "main", "cond"), {}}, graph);
  ASSERT_TRUE(roots.ok()) << roots.status();
  ASSERT_EQ(roots->size(), 2);
  EXPECT_EQ((*roots)[0].instruction->name(), "tc");
  EXPECT_EQ((*roots)[1].instruction->name(), "fc");
}

// Scenario 103: one computation serving both branches maps its parameter to
// both branch operands, in branch order.
TEST(OffloadUtilsTest, ReusedBranchComputation) {
  auto module = Parse(R"(HloModule m
either {
  ep = f32[3]{0} parameter(0)
  ROOT ec = f32[3]{0} copy(ep)
}
ENTRY main {
  pick = pred[] parameter(0)
  yes = f32[3]{0} parameter(1)
  no = f32[3]{0} parameter(2)
  ROOT cond = f32[3]{0} conditional(pick, yes, no), true_computation=either, false_computation=either
}
)");
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  auto preds = GetPredecessors({Find(*module, "either", "ep"), {}}, graph);
  ASSERT_TRUE(preds.ok()) << preds.status();
  ASSERT_EQ(preds->size(), 2);
  EXPECT_EQ((*preds)[0].instruction->name(), "yes");
  EXPECT_EQ((*preds)[1].instruction->name(), "no");
}

// Tracking a whole tuple into a get-tuple-element is where XLA fails a
// CHECK; here it is an error naming the get-tuple-element.
TEST(OffloadUtilsTest, WholeTupleReadIsAnError) {
  auto module = Parse(R"(HloModule m
ENTRY main {
  a = f32[2]{0} parameter(0)
  t = (f32[2]{0}, f32[2]{0}) tuple(a, a)
  g = f32[2]{0} get-tuple-element(t), index=1
  ROOT n = f32[2]{0} negate(g)
}
)");
  ASSERT_NE(module, nullptr);
  CallGraph graph(*module);
  Instruction* offending = nullptr;
  auto succs = GetSuccessors({Find(*module, "main", "t"), {}}, graph, false,
                             &offending);
  ASSERT_FALSE(succs.ok());
  ASSERT_NE(offending, nullptr);
  EXPECT_EQ(offending->name(), "g");
  auto tolerant = GetSuccessors({Find(*module, "main", "t"), {}}, graph, true);
  ASSERT_TRUE(tolerant.ok());
  EXPECT_TRUE(tolerant->empty());
  auto indexed = GetSuccessors({Find(*module, "main", "t"), {1}}, graph);
  ASSERT_TRUE(indexed.ok());
  ASSERT_EQ(indexed->size(), 1);
  EXPECT_EQ((*indexed)[0].instruction->name(), "g");
  EXPECT_TRUE((*indexed)[0].shape_index.empty());
}

// Scenario 104: a loop that slices a carried buffer, with no offloading.
TEST(OffloadUtilsTest, DynamicVariablesEmptyWithoutOffloading) {
  auto module = Parse(R"(HloModule m
cond {
  cs = (s32[], f32[5,2]{1,0}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  lim = s32[] constant(5)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
body {
  bs = (s32[], f32[5,2]{1,0}) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  buf = f32[5,2]{1,0} get-tuple-element(bs), index=1
  z = s32[] constant(0)
  row = f32[1,2]{1,0} dynamic-slice(buf, bi, z), dynamic_slice_sizes={1,2}
  one = s32[] constant(1)
  nx = s32[] add(bi, one)
  ROOT out = (s32[], f32[5,2]{1,0}) tuple(nx, buf)
}
ENTRY main {
  b = f32[5,2]{1,0} parameter(0)
  i0 = s32[] constant(0)
  init = (s32[], f32[5,2]{1,0}) tuple(i0, b)
  ROOT w = (s32[], f32[5,2]{1,0}) while(init), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(CollectDynamicVariableTupleIndices(Find(*module, "main", "w")).empty());
}

// Scenario 105: a loop that reads a host element through DS -> MoveToDevice
// and writes MoveToHost -> DUS, indexed by tuple element 0.
TEST(OffloadUtilsTest, DynamicVariablesWithOffloading) {
  auto module = Parse(R"(HloModule m
cond {
  cs = (s32[], f32[5,2]{1,0}, f32[5,2]{1,0}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  lim = s32[] constant(5)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
body {
  bs = (s32[], f32[5,2]{1,0}, f32[5,2]{1,0}) parameter(0)
  bi = s32[] get-tuple-element(bs), index=0
  src = f32[5,2]{1,0} get-tuple-element(bs), index=1
  dst = f32[5,2]{1,0} get-tuple-element(bs), index=2
  z = s32[] constant(0)
  row = f32[1,2]{1,0} dynamic-slice(src, bi, z), dynamic_slice_sizes={1,2}
  dev = f32[1,2]{1,0} custom-call(row), custom_call_target="MoveToDevice"
  sq = f32[1,2]{1,0} multiply(dev, dev)
  hst = f32[1,2]{1,0} custom-call(sq), custom_call_target="MoveToHost"
  put = f32[5,2]{1,0} dynamic-update-slice(dst, hst, bi, z)
  one = s32[] constant(1)
  nx = s32[] add(bi, one)
  ROOT out = (s32[], f32[5,2]{1,0}, f32[5,2]{1,0}) tuple(nx, src, put)
}
ENTRY main {
  a = f32[5,2]{1,0} parameter(0)
  b = f32[5,2]{1,0} parameter(1)
  i0 = s32[] constant(0)
  init = (s32[], f32[5,2]{1,0}, f32[5,2]{1,0}) tuple(i0, a, b)
  ROOT w = (s32[], f32[5,2]{1,0}, f32[5,2]{1,0}) while(init), condition=cond, body=body
}
)");
  ASSERT_NE(module, nullptr);
  auto indices = CollectDynamicVariableTupleIndices(Find(*module, "main", "w"));
  EXPECT_EQ(indices.size(), 1);
  EXPECT_TRUE(indices.contains(0));
}

}  // namespace
}  // namespace hloff
