// The report in the user's terms (report/report_util.h, report/report.h):
// the scope an op_name gives, the producer of an offloaded value, the name
// and line of each offloaded tensor and the bytes per name.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "report/report.h"
#include "report/report_util.h"
#include "text/parser.h"
#include "report_test_util.h"

namespace hloff {
namespace {

using report_util::OpNameOp;
using report_util::OpNameScope;
using report_util::ValueProducer;

TEST(OpNameTest, OpIsTheLastComponent) {
  EXPECT_EQ(OpNameOp("jit(f)/attn/tanh"), "tanh");
  EXPECT_EQ(OpNameOp("device_put"), "device_put");
  EXPECT_EQ(OpNameOp(""), "");
}

// The op_names of JAX 0.10.2's lowerings (tests/lit/report/Inputs) and of
// MaxText-style dumps of the shared corpus.
TEST(OpNameTest, ScopeSkipsJaxOwnComponents) {
  EXPECT_EQ(OpNameScope("device_put"), "");
  EXPECT_EQ(OpNameScope("tanh"), "");
  EXPECT_EQ(OpNameScope("checkpoint/rematted_computation/device_put"), "");
  EXPECT_EQ(OpNameScope("jit(loss)/jvp()/while/body/closed_call"), "");
  EXPECT_EQ(OpNameScope("attn_out/tanh"), "attn_out");
  EXPECT_EQ(OpNameScope("checkpoint/rematted_computation/attn_out/tanh"), "attn_out");
  EXPECT_EQ(OpNameScope("jit(train_step)/jit(main)/while/body/remat/decoder_layer/device_put"),
            "decoder_layer");
  EXPECT_EQ(OpNameScope("jit(train_step)/opt_state/device_put"), "opt_state");
  EXPECT_EQ(OpNameScope("jit(f)/cond/branch_1/ffn/mlp/dot_general"), "mlp");
}

TEST(OpNameTest, ScopeInsideATransformation) {
  EXPECT_EQ(OpNameScope("jit(loss)/jvp(attn_out)/tanh"), "attn_out");
  EXPECT_EQ(OpNameScope("jit(loss)/transpose(jvp(block/mlp))/mul"), "mlp");
  // A jitted function's name is JAX's, not a scope.
  EXPECT_EQ(OpNameScope("jit(train_step)/jit(main)/device_put"), "");
  EXPECT_EQ(OpNameScope("pjit(layer)/sin"), "");
}

TEST(ValueProducerTest, LooksThroughViewsAndCalls) {
  auto module = ParseHloModule(R"(HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}

callee {
  a = f32[8]{0} parameter(0)
  t = f32[8]{0} tanh(a)
  ROOT r = (f32[8]{0}, f32[8]{0}) tuple(t, a)
}

ENTRY main {
  x = f32[8]{0} parameter(0)
  c = (f32[8]{0}, f32[8]{0}) call(x), to_apply=callee
  g = f32[8]{0} get-tuple-element(c), index=0
  b = f32[8]{0} bitcast(g)
  ROOT put = f32[8]{0} custom-call(b), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const Instruction* root = (*module)->entry()->root();
  const Instruction* producer = ValueProducer(root->operand(0));
  ASSERT_NE(producer, nullptr);
  EXPECT_EQ(producer->name(), "t");
  // An instruction that forwards nothing is its own producer.
  EXPECT_EQ(ValueProducer(producer), producer);
}

// Two scoped offloads of one name and one unscoped, in a loop of 3: the name
// comes from the operand's op_name, the line from its metadata, the bytes
// per step multiply the trip count.
TEST(ReportNamesTest, NamesLinesAndBytesByName) {
  Report report = MakeReport(R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

body {
  p = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4]{0} get-tuple-element(p), index=1
  a = f32[4]{0} tanh(v), metadata={op_name="jit(f)/while/body/attn_out/tanh" source_file="m.py" source_line=10}
  ha = f32[4]{0} custom-call(a), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="device_put"}
  da = f32[4]{0} custom-call(ha), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  b = f32[4]{0} sine(da), metadata={op_name="jit(f)/while/body/attn_out/sin" source_file="m.py" source_line=11}
  hb = f32[4]{0} custom-call(b), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  db = f32[4]{0} custom-call(hb), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  c = f32[4]{0} cosine(db), metadata={op_name="jit(f)/while/body/cos" source_file="m.py" source_line=12}
  hc = f32[4]{0} custom-call(c), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  dc = f32[4]{0} custom-call(hc), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = (s32[], f32[4]{0}) tuple(n, dc)
}

cond {
  p = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]{0}) tuple(zero, x)
  w = (s32[], f32[4]{0}) while(init), condition=cond, body=body
  ROOT out = f32[4]{0} get-tuple-element(w), index=1
}
)");
  ASSERT_EQ(report.offloads.size(), 3);
  const Offload& a = report.offloads[0];
  EXPECT_EQ(a.start.name, "ha");
  EXPECT_EQ(a.name, "attn_out");
  EXPECT_EQ(a.name_from, "scope");
  EXPECT_EQ(a.value_source.file, "m.py");
  EXPECT_EQ(a.value_source.line, 10);
  EXPECT_EQ(a.source.op_name, "device_put");
  EXPECT_EQ(a.executions, 3);
  EXPECT_EQ(report.offloads[2].name, "cos");
  EXPECT_EQ(report.offloads[2].name_from, "op");
  ASSERT_EQ(report.by_name.size(), 2);
  const NamedOffloads& attn = report.by_name[0];
  EXPECT_EQ(attn.name, "attn_out");
  EXPECT_EQ(attn.offloads, 2);
  EXPECT_EQ(attn.bytes, 2 * 16);
  EXPECT_EQ(attn.bytes_per_step, 2 * 16 * 3);
  EXPECT_EQ(attn.source.line, 10);
  EXPECT_EQ(attn.starts, (std::vector<std::string>{"ha", "hb"}));
  EXPECT_EQ(report.by_name[1].name, "cos");
  EXPECT_EQ(report.by_name[1].bytes_per_step, 16 * 3);
  // The picture draws no loop plumbing and labels the loop body's cluster.
  for (const GraphNode& node : report.graph.nodes) {
    EXPECT_NE(node.opcode, "get-tuple-element") << node.name;
    EXPECT_NE(node.opcode, "tuple") << node.name;
    EXPECT_NE(node.opcode, "while") << node.name;
  }
  ASSERT_FALSE(report.graph.computation_labels.empty());
  EXPECT_EQ(report.graph.computation_labels[0], "loop w (3 iterations): body");
}

// The checkpoint names a front end read from the jaxpr name an offload whose
// producer has the same file, line and op, before a scope; a key two names
// share names nothing.
TEST(ReportNamesTest, CheckpointNamesComeFirst) {
  auto module = ParseHloModule(R"(HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0}, f32[4]{0})}

ENTRY main {
  x = f32[4]{0} parameter(0)
  a = f32[4]{0} tanh(x), metadata={op_name="jit(f)/attn/tanh" source_file="m.py" source_line=10}
  ha = f32[4]{0} custom-call(a), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  da = f32[4]{0} custom-call(ha), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  b = f32[4]{0} sine(x), metadata={op_name="jit(f)/sin" source_file="m.py" source_line=11}
  hb = f32[4]{0} custom-call(b), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  db = f32[4]{0} custom-call(hb), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  c = f32[4]{0} cosine(x), metadata={op_name="jit(f)/cos" source_file="m.py" source_line=12}
  hc = f32[4]{0} custom-call(c), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  dc = f32[4]{0} custom-call(hc), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(da, db, dc)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  PipelineOptions options;
  options.checkpoint_names = {
      {"m.py", 10, "tanh", "attn_out"},
      {"m.py", 11, "sin", "mlp_in"},
      {"m.py", 11, "sin", "mlp_out"},     // the same key, another name
      {"m.py", 12, "tanh", "not_cos"},    // the line, another op
  };
  auto report = BuildReport(std::move(*module), "m.hlo", options);
  ASSERT_TRUE(report.ok()) << report.status();
  ASSERT_EQ(report->offloads.size(), 3);
  EXPECT_EQ(report->offloads[0].name, "attn_out");
  EXPECT_EQ(report->offloads[0].name_from, "checkpoint_name");
  EXPECT_EQ(report->offloads[0].value_source.line, 10);
  EXPECT_EQ(report->offloads[1].name, "sin");
  EXPECT_EQ(report->offloads[1].name_from, "op");
  EXPECT_EQ(report->offloads[2].name, "cos");
  EXPECT_EQ(report->offloads[2].name_from, "op");
  ASSERT_EQ(report->by_name.size(), 3);
  EXPECT_EQ(report->by_name[0].name_from, "checkpoint_name");
}

}  // namespace
}  // namespace hloff
