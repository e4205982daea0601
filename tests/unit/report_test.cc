// The offload report's analysis (report/report.h) and its renderers: offload
// starts and ends, bytes, host buffers, transfers, constant trip counts.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "report/render.h"
#include "report/report.h"
#include "report/transfers.h"
#include "text/parser.h"
#include "report_test_util.h"

namespace hloff {
namespace {

TEST(ReportTest, AnnotationKeepsItsInputNameAndSource) {
  Report report = MakeReport(R"(HloModule m, entry_computation_layout={(bf16[16,8]{1,0})->bf16[16,8]{1,0}}

ENTRY main {
  x = bf16[16,8]{1,0} parameter(0)
  put = bf16[16,8]{1,0} custom-call(x), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="jit(f)/device_put" source_file="f.py" source_line=7}
  ROOT get = bf16[16,8]{1,0} custom-call(put), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
}
)");
  ASSERT_EQ(report.offloads.size(), 1);
  const Offload& offload = report.offloads[0];
  EXPECT_EQ(offload.kind, OffloadKind::kMoveToHost);
  EXPECT_EQ(offload.start.name, "put");
  EXPECT_EQ(offload.start.loc.line, 5);
  EXPECT_EQ(offload.bytes, 16 * 8 * 2);
  EXPECT_EQ(offload.source.file, "f.py");
  EXPECT_EQ(offload.source.line, 7);
  EXPECT_EQ(offload.source.op_name, "jit(f)/device_put");
  ASSERT_EQ(offload.ends.size(), 1);
  EXPECT_EQ(offload.ends[0].kind, EndKind::kMoveToDevice);
  EXPECT_EQ(offload.ends[0].instruction.name, "get");
  EXPECT_TRUE(report.pipeline.ok);
  EXPECT_EQ(report.copies_inserted, 2);  // to host, and back to device
  EXPECT_EQ(report.copies_inserted_bytes, 2 * 256);
}

TEST(ReportTest, OutputEndsAndE1200) {
  Report report = MakeReport(R"(HloModule m, entry_computation_layout={(u4[10]{0}, u4[10]{0})->(u4[10]{0:S(5)}, u4[10]{0})}

ENTRY main {
  a = u4[10]{0} parameter(0)
  b = u4[10]{0} parameter(1)
  ha = u4[10]{0} custom-call(a), custom_call_target="MoveToHost"
  hb = u4[10]{0} custom-call(b), custom_call_target="MoveToHost"
  ROOT r = (u4[10]{0}, u4[10]{0}) tuple(ha, hb)
}
)");
  ASSERT_EQ(report.offloads.size(), 2);
  EXPECT_EQ(report.offloads[0].bytes, 5);  // 40 bits
  ASSERT_EQ(report.offloads[0].ends.size(), 1);
  const OffloadEnd& host = report.offloads[0].ends[0];
  EXPECT_EQ(host.kind, EndKind::kOutput);
  EXPECT_EQ(host.output_index, ShapeIndex{0});
  EXPECT_TRUE(host.output_in_host_memory);
  EXPECT_FALSE(host.e1200);
  const OffloadEnd& device = report.offloads[1].ends[0];
  EXPECT_EQ(device.output_index, ShapeIndex{1});
  EXPECT_FALSE(device.output_in_host_memory);
  EXPECT_TRUE(device.e1200);
  EXPECT_EQ(device.walk_start, "r");
  EXPECT_EQ(device.path, (std::vector<std::string>{"hb", "r"}));
  EXPECT_EQ(report.host_bytes_out, 5);
  EXPECT_EQ(report.device_bytes_out, 5);
  EXPECT_EQ(report.device_bytes_in, 10);
  EXPECT_FALSE(report.pipeline.ok);
  ASSERT_FALSE(report.pipeline.errors.empty());
  EXPECT_EQ(report.pipeline.errors[0].code, DiagCode::kE1200);
  EXPECT_NE(report.Verdict().find("E1200 at entry output {1}"),
            std::string::npos);
}

TEST(ReportTest, NoOffloadingVerdict) {
  Report report = MakeReport(R"(HloModule m

ENTRY main {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}
)");
  EXPECT_FALSE(report.HasOffloading());
  EXPECT_EQ(report.Verdict().rfind("no offloading", 0), 0);
  EXPECT_TRUE(report.graph.nodes.empty());
  std::string text = RenderReportText(report);
  EXPECT_NE(text.find("verdict: no offloading"), std::string::npos);
}

constexpr char kScan[] = R"(HloModule m, entry_computation_layout={(f32[2,4]{1,0})->f32[6,2,4]{2,1,0:S(5)}}

cond {
  p = (s32[], f32[2,4]{1,0}, f32[6,2,4]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT c = pred[] compare(n, i), direction=GT
}

body {
  p = (s32[], f32[2,4]{1,0}, f32[6,2,4]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2,4]{1,0} get-tuple-element(p), index=1
  buf = f32[6,2,4]{2,1,0} get-tuple-element(p), index=2
  h = f32[2,4]{1,0} custom-call(x), custom_call_target="MoveToHost"
  r = f32[1,2,4]{2,1,0} reshape(h)
  z = s32[] constant(0)
  buf2 = f32[6,2,4]{2,1,0} dynamic-update-slice(buf, r, i, z, z)
  two = s32[] constant(2)
  i2 = s32[] add(two, i)
  ROOT t = (s32[], f32[2,4]{1,0}, f32[6,2,4]{2,1,0}) tuple(i2, x, buf2)
}

ENTRY main {
  x0 = f32[2,4]{1,0} parameter(0)
  zero = f32[] constant(0)
  b = f32[6,2,4]{2,1,0} broadcast(zero), dimensions={}
  i0 = s32[] constant(1)
  init = (s32[], f32[2,4]{1,0}, f32[6,2,4]{2,1,0}) tuple(i0, x0, b)
  w = (s32[], f32[2,4]{1,0}, f32[6,2,4]{2,1,0}) while(init), condition=cond, body=body
  ROOT out = f32[6,2,4]{2,1,0} get-tuple-element(w), index=2
}
)";

TEST(ReportTest, StackedLoopBufferIsAnOutputAndTransfersCountPerLoop) {
  Report report = MakeReport(kScan);
  ASSERT_EQ(report.offloads.size(), 1);
  ASSERT_EQ(report.offloads[0].ends.size(), 1);
  EXPECT_EQ(report.offloads[0].ends[0].kind, EndKind::kOutput);
  EXPECT_TRUE(report.offloads[0].ends[0].output_in_host_memory);
  EXPECT_EQ(report.host_bytes_out, 6 * 2 * 4 * 4);
  // The stacked buffer is the entry output: no intermediate.
  EXPECT_TRUE(report.host_intermediates.empty());
  ASSERT_EQ(report.loops.size(), 1);
  // i = 1, 3, 5 while 6 > i: three iterations.
  EXPECT_EQ(report.loops[0].trip_count, 3);
  EXPECT_EQ(report.loops[0].transfers_per_iteration, 1);
  EXPECT_EQ(report.loops[0].bytes_per_iteration, 2 * 4 * 4);
  ASSERT_EQ(report.transfers.size(), 1);
  EXPECT_EQ(report.transfers[0].opcode, "dynamic-update-slice");
  EXPECT_EQ(report.transfers[0].direction, TransferDirection::kToHost);
}

TEST(ReportTest, ConstantTripCounts) {
  auto trips = [](const std::string& text, absl::string_view while_name)
      -> std::optional<int64_t> {
    auto module = ParseHloModule(text);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) return std::nullopt;
    for (const auto& comp : (*module)->computations()) {
      for (Instruction* instr : comp->instructions()) {
        if (instr->name() == while_name) return ConstantTripCount(*instr);
      }
    }
    ADD_FAILURE() << "no " << while_name;
    return std::nullopt;
  };
  EXPECT_EQ(trips(kScan, "w"), 3);
  // known_trip_count from the backend config wins.
  std::string known = kScan;
  known.replace(known.find("body=body"), 9,
                R"(body=body, backend_config={"known_trip_count":{"n":"11"}})");
  EXPECT_EQ(trips(known, "w"), 11);
  // An initial value that is not a constant: unknown.
  std::string unknown = kScan;
  unknown.replace(unknown.find("tuple(i0, x0, b)"), 16, "tuple(i1, x0, b)");
  unknown.replace(unknown.find("  init ="), 0,
                  "  i1 = s32[] get-tuple-element(init0), index=0\n");
  unknown.replace(unknown.find("  i1 ="), 0,
                  "  init0 = (s32[]) tuple(i0)\n");
  EXPECT_EQ(trips(unknown, "w"), std::nullopt);
  // LE with a step of 1 from 0 to 9: ten iterations.
  std::string le = kScan;
  le.replace(le.find("compare(n, i), direction=GT"), 27,
             "compare(i, n), direction=LE");
  le.replace(le.find("constant(6)\n  ROOT c"), 11, "constant(9)");
  le.replace(le.find("i0 = s32[] constant(1)"), 22, "i0 = s32[] constant(0)");
  le.replace(le.find("two = s32[] constant(2)"), 23, "two = s32[] constant(1)");
  EXPECT_EQ(trips(le, "w"), 10);
}

TEST(ReportTest, JsonHasTheContractKeys) {
  Report report = MakeReport(kScan);
  nlohmann::ordered_json json = ReportToJson(report);
  for (const char* key : {"version", "module", "host_bytes_in", "host_bytes_out",
                          "offloads"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  const auto& offload = json["offloads"][0];
  for (const char* key : {"start", "bytes", "source", "ends"}) {
    EXPECT_TRUE(offload.contains(key)) << key;
  }
  EXPECT_EQ(offload["source"]["file"], "");
  EXPECT_EQ(offload["source"]["line"], 0);
  const auto& end = offload["ends"][0];
  EXPECT_EQ(end["kind"], "output");
  EXPECT_EQ(end["instruction"], "out");
  EXPECT_EQ(end["output_index"], nlohmann::ordered_json::array());
}

TEST(ReportTest, DotDrawsClustersAndHostFill) {
  Report report = MakeReport(kScan);
  std::string dot = RenderReportDot(report);
  // The loop body is drawn as its loop; nodes are labelled in the user's
  // terms (no metadata: the opcode alone), the instruction name is the id.
  EXPECT_NE(dot.find("label=\"loop w (3 iterations): body\""), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("label=\"main\""), std::string::npos);
  EXPECT_NE(dot.find("\"buf2\" [label=\"dynamic-update-slice "
                     "f32[6,2,4]\", fillcolor=\"#9fd3f5\""),
            std::string::npos)
      << dot;
}

TEST(ReportTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(0), "0 bytes");
  EXPECT_EQ(HumanBytes(1023), "1023 bytes");
  EXPECT_EQ(HumanBytes(1024), "1024 bytes (1.0 KiB)");
  EXPECT_EQ(HumanBytes(3 * 1024 * 1024 / 2), "1572864 bytes (1.5 MiB)");
  EXPECT_EQ(HumanBytes(64LL << 30), "68719476736 bytes (64.0 GiB)");
}

}  // namespace
}  // namespace hloff

namespace hloff {
namespace {

// A value read through a tuple and a get-tuple-element stays live until the
// last read of the view: a, b and c are live together with the parameter.
TEST(DevicePeakTest, ViewsKeepTheirBufferAlive) {
  auto module = ParseHloModule(R"(
HloModule m, entry_computation_layout={(f32[256]{0})->f32[256]{0}}

ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[256]{0} negate(p)
  t = (f32[256]{0}) tuple(a)
  g = f32[256]{0} get-tuple-element(t), index=0
  b = f32[256]{0} exponential(p)
  ROOT c = f32[256]{0} add(g, b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DevicePeak peak = EstimateEntryDevicePeak(**module);
  EXPECT_EQ(peak.bytes, 4 * 1024);
  EXPECT_EQ(peak.at, "c");
}

// Host leaves (memory space 5) are not device memory; a buffer whose last
// use has passed is free again.
TEST(DevicePeakTest, HostLeavesAndFreedBuffers) {
  auto module = ParseHloModule(R"(
HloModule m, entry_computation_layout={(f32[256]{0})->f32[256]{0:S(5)}}

ENTRY e {
  p = f32[256]{0} parameter(0)
  a = f32[256]{0} negate(p)
  b = f32[256]{0} exponential(a)
  ROOT h = f32[256]{0:S(5)} copy(b)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  DevicePeak peak = EstimateEntryDevicePeak(**module);
  EXPECT_EQ(peak.bytes, 3 * 1024);
  EXPECT_EQ(peak.at, "b");
}

}  // namespace
}  // namespace hloff
