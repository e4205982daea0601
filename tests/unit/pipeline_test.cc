// The library flow (pipeline/pipeline.h): its renderers give exactly what
// the command line prints for the same input, its results carry what a
// front end needs (diagnostics, the printed module, the outputs a fix
// changed, the report), and JAX names appear only where they are given.
#include "pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "diag/render.h"
#include "nlohmann/json.hpp"
#include "passes/offload_fixes.h"
#include "tool/driver.h"

namespace hloff {
namespace {

namespace fs = std::filesystem;

// An offloaded value (moved to host) returned with a device layout at
// entry output {1}: E1200, fixable.
constexpr absl::string_view kE1200 = R"(HloModule offloaded

ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(n, h)
}
)";

// A host-memory entry parameter returned at device output {1}: E1200 whose
// walk starts at the parameter.
constexpr absl::string_view kHostParameter = R"(HloModule m, entry_computation_layout={(f32[4]{0:S(5)}, f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[4]{0} parameter(1)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(p1, p0)
}
)";

constexpr absl::string_view kClean =
    "HloModule clean\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
    "  ROOT r = f32[4]{0} negate(p)\n}\n";

struct Cli {
  int status;
  std::string out;
  std::string err;
};

Cli RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "hlo-offload");
  std::ostringstream out, err;
  int status = RunTool(args, out, err);
  return {status, out.str(), err.str()};
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder of its own: tests run in parallel processes.
    char tmpl[] = "/tmp/hloff-pipeline-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, absl::string_view text) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(PipelineTest, CheckRendersWhatTheCommandLinePrints) {
  for (absl::string_view text : {kE1200, kHostParameter, kClean}) {
    std::string path = Write("in.hlo", text);
    PipelineResult result = RunPipelineOnFile(Command::kCheck, path, {});
    Cli text_cli = RunCli({"check", path});
    EXPECT_EQ(result.exit_status, text_cli.status);
    // Text ends with the summary line; the other formats have none.
    CheckSummary summary;
    summary.Add(result);
    EXPECT_EQ(RenderDiagnostics(result, DiagnosticFormat::kText) + summary.Render(),
              text_cli.err);
    Cli xla_cli = RunCli({"check", "--format=xla", path});
    EXPECT_EQ(RenderDiagnostics(result, DiagnosticFormat::kXla), xla_cli.err);
    Cli json_cli = RunCli({"check", "--format=json", path});
    EXPECT_EQ(RenderJson(result), json_cli.out);
    Cli sarif_cli = RunCli({"check", "--format=sarif", path});
    EXPECT_EQ(RenderSarif(result), sarif_cli.out);
  }
}

TEST_F(PipelineTest, TextInputGivesTheSameResultAsTheFile) {
  std::string path = Write("in.hlo", kE1200);
  PipelineOptions options;
  options.path = path;
  PipelineResult from_text = RunPipeline(Command::kCheck, kE1200, options);
  PipelineResult from_file = RunPipelineOnFile(Command::kCheck, path, {});
  EXPECT_EQ(from_text.exit_status, kExitDiagnosed);
  EXPECT_EQ(RenderDiagnostics(from_text, DiagnosticFormat::kText),
            RenderDiagnostics(from_file, DiagnosticFormat::kText));
  ASSERT_EQ(from_text.modules.size(), 1u);
  EXPECT_EQ(from_text.modules[0].module_name, "offloaded");
}

TEST_F(PipelineTest, ParseErrorIsALocatedDiagnostic) {
  PipelineOptions options;
  options.path = "bad.hlo";
  PipelineResult result =
      RunPipeline(Command::kCheck, "HloModule m\nENTRY e {\n  p = f32[4 parameter(0)\n}\n",
                  options);
  EXPECT_EQ(result.exit_status, kExitUsage);
  ASSERT_EQ(result.modules.size(), 1u);
  const ModuleResult& module = result.modules[0];
  EXPECT_TRUE(module.parse_failed);
  ASSERT_EQ(module.diagnostics.size(), 1u);
  EXPECT_EQ(module.diagnostics[0].code, DiagCode::kHO0001);
  EXPECT_EQ(module.diagnostics[0].loc.line, 3u);
  EXPECT_GT(module.diagnostics[0].loc.column, 0u);
  EXPECT_EQ(module.parse_error.rfind("bad.hlo:3:", 0), 0u) << module.parse_error;
}

TEST_F(PipelineTest, OptAndFmtPrintWhatTheCommandLineWrites) {
  std::string path = Write("in.hlo", kClean);
  for (Command command : {Command::kOpt, Command::kFmt}) {
    PipelineResult result = RunPipelineOnFile(command, path, {});
    ASSERT_EQ(result.exit_status, kExitOk);
    Cli cli = RunCli({command == Command::kOpt ? "opt" : "fmt", path});
    EXPECT_EQ(PrintedModules(result), cli.out);
    EXPECT_EQ(result.modules[0].printed, cli.out);
  }
}

TEST_F(PipelineTest, FixSaysWhichOutputsItChanged) {
  std::string path = Write("in.hlo", kE1200);
  PipelineOptions options;
  options.fix_strategy = FixStrategy::kMoveToDevice;
  options.output_paths = {"result[0]", "result[1]"};
  PipelineResult result = RunPipelineOnFile(Command::kFix, path, options);
  ASSERT_EQ(result.exit_status, kExitOk);
  const ModuleResult& module = result.modules[0];
  ASSERT_EQ(module.fixed_outputs.size(), 1u);
  EXPECT_EQ(module.fixed_outputs[0], ShapeIndex({1}));
  EXPECT_EQ(module.fixed_output_paths, std::vector<std::string>({"result[1]"}));
  Cli cli = RunCli({"fix", "--strategy=move-to-device", path});
  EXPECT_EQ(cli.status, 0);
  EXPECT_EQ(PrintedModules(result), cli.out);
  EXPECT_EQ(RenderDiagnostics(result, DiagnosticFormat::kText), cli.err);
}

TEST_F(PipelineTest, FixWithNothingToFixKeepsTheInputText) {
  std::string text = "// a comment the printer would drop\n" + std::string(kClean);
  PipelineResult result = RunPipeline(Command::kFix, text, {});
  EXPECT_EQ(result.exit_status, kExitOk);
  EXPECT_TRUE(result.unchanged);
  EXPECT_EQ(PrintedModules(result), text);
}

TEST_F(PipelineTest, ReportRendersWhatTheCommandLinePrints) {
  std::string path = Write("in.hlo", kE1200);
  PipelineResult result = RunPipelineOnFile(Command::kReport, path, {});
  ASSERT_EQ(result.exit_status, kExitOk);
  ASSERT_TRUE(result.modules[0].report.has_value());
  EXPECT_EQ(RenderReports(result, ReportFormat::kText), RunCli({"report", path}).out);
  EXPECT_EQ(RenderReports(result, ReportFormat::kJson),
            RunCli({"report", "--format=json", path}).out);
}

TEST_F(PipelineTest, JaxNamesAppearOnlyWhenGiven) {
  PipelineOptions plain;
  PipelineResult without = RunPipeline(Command::kCheck, kHostParameter, plain);
  PipelineOptions named;
  named.output_paths = {"result['loss']", "result['saved']"};
  named.input_paths = {"params['w']", "x"};
  PipelineResult with = RunPipeline(Command::kCheck, kHostParameter, named);

  ASSERT_EQ(with.modules.size(), 1u);
  const Diagnostic* e1200 = nullptr;
  for (const Diagnostic& d : with.modules[0].diagnostics) {
    if (d.code == DiagCode::kE1200) e1200 = &d;
  }
  ASSERT_NE(e1200, nullptr);
  EXPECT_EQ(e1200->output_path, "result['saved']");
  EXPECT_EQ(e1200->input_path, "params['w']");

  nlohmann::json json = nlohmann::json::parse(RenderJson(with));
  const nlohmann::json& first = json["files"][0]["diagnostics"][0];
  EXPECT_EQ(first["output_path"], "result['saved']");
  EXPECT_EQ(first["input_path"], "params['w']");
  std::string text = RenderDiagnostics(with, DiagnosticFormat::kText);
  EXPECT_NE(text.find("  note: JAX output: result['saved']\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  note: JAX input: params['w']\n"), std::string::npos) << text;

  // Without names nothing printed mentions them.
  std::string plain_json = RenderJson(without);
  EXPECT_EQ(plain_json.find("output_path"), std::string::npos);
  EXPECT_EQ(plain_json.find("input_path"), std::string::npos);
  // (The fixes' own sentences speak of JAX; the names' notes are absent.)
  std::string plain_text = RenderDiagnostics(without, DiagnosticFormat::kText);
  EXPECT_EQ(plain_text.find("note: JAX output"), std::string::npos);
  EXPECT_EQ(plain_text.find("note: JAX input"), std::string::npos);
}

// A module converted from the user's file (locate_in_source, set by the
// Python front end for StableHLO and JAX programs): a diagnostic whose
// metadata names a file and line is located there first, in text, JSON and
// SARIF, with the converted module's line after it; without a source line it
// keeps its place; HLO text (the option unset) is unchanged.
TEST_F(PipelineTest, LocateInSourcePutsTheUsersLineFirst) {
  constexpr absl::string_view kWithSource = R"(HloModule jit_step

ENTRY main {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="jit(step)/device_put" source_file="/home/u/train.py" source_line=42}
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(n, h)
}
)";
  PipelineOptions options;
  options.path = "step.mlir";
  options.locate_in_source = true;
  PipelineResult result = RunPipeline(Command::kCheck, kWithSource, options);
  ASSERT_EQ(result.modules.size(), 1u);
  const Diagnostic* e1200 = nullptr;
  for (const Diagnostic& d : result.modules[0].diagnostics) {
    if (d.code == DiagCode::kE1200) e1200 = &d;
  }
  ASSERT_NE(e1200, nullptr);
  EXPECT_EQ(e1200->primary_file, "/home/u/train.py");
  EXPECT_EQ(e1200->primary_line, 42);
  SourceText source{"step.mlir", kWithSource, {}};
  std::string text = RenderText(*e1200, source);
  EXPECT_EQ(text.rfind("/home/u/train.py:42: error: E1200: ", 0), 0u) << text;
  EXPECT_NE(text.find("\n  step.mlir:7:3: note: in the HLO module converted from it\n"),
            std::string::npos)
      << text;
  nlohmann::json j = DiagnosticToJson(*e1200);
  EXPECT_EQ(j["primary_location"], (nlohmann::json{{"file", "/home/u/train.py"},
                                                    {"line", 42}}));
  EXPECT_EQ(j["location"]["line"], 7);
  nlohmann::json sarif = RenderSarif({{"step.mlir", "jit_step", {*e1200}}}, "test");
  const nlohmann::json& r = sarif["runs"][0]["results"][0];
  EXPECT_EQ(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "file:///home/u/train.py");
  EXPECT_EQ(r["locations"][0]["physicalLocation"]["region"]["startLine"], 42);
  EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 7);

  PipelineOptions plain;
  PipelineResult unchanged = RunPipeline(Command::kCheck, kWithSource, plain);
  for (const Diagnostic& d : unchanged.modules[0].diagnostics) {
    EXPECT_TRUE(d.primary_file.empty()) << d.message;
  }
}

// The host-output fix of an E1200 names the out_shardings entry the way a JAX
// user writes it when the output's pytree path is given, and by the flat
// index otherwise (HLO text, whose output must not change).
TEST_F(PipelineTest, E1200FixNamesOutShardingsByPytreePath) {
  auto host_output_fix = [](const PipelineResult& result) {
    for (const Diagnostic& d : result.modules[0].diagnostics) {
      if (d.code != DiagCode::kE1200) continue;
      for (const Fix& fix : d.fixes) {
        if (fix.strategy == "host-output") return fix.description;
      }
    }
    return std::string();
  };
  PipelineResult plain = RunPipeline(Command::kCheck, kHostParameter, {});
  EXPECT_NE(host_output_fix(plain).find("in JAX give out_shardings[1] memory_kind"),
            std::string::npos)
      << host_output_fix(plain);
  PipelineOptions named;
  named.output_paths = {"result['loss']", "result['opt']['mu']"};
  std::string fix = host_output_fix(RunPipeline(Command::kCheck, kHostParameter, named));
  EXPECT_NE(fix.find("in JAX give out_shardings['opt']['mu'] memory_kind=\"pinned_host\""),
            std::string::npos)
      << fix;
  EXPECT_EQ(fix.find("out_shardings[1]"), std::string::npos) << fix;
  EXPECT_EQ(OutShardingsEntry("result"), "out_shardings");
  EXPECT_EQ(OutShardingsEntry("result[0]"), "out_shardings[0]");
  EXPECT_EQ(OutShardingsEntry("result.params"), "out_shardings.params");
  EXPECT_EQ(OutShardingsEntry("results[0]"), "the out_shardings entry of results[0]");
}

// HO3004 about the entry result (a root MoveToHost against a device-memory
// layout) gets the result's pytree path where names are given, and still no
// output_index (its JSON without names is what it was).
TEST_F(PipelineTest, HostRootWarningNamesTheEntryOutput) {
  constexpr absl::string_view kHostRoot = R"(HloModule m

ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  ROOT h = f32[4]{0} custom-call(n), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="unpinned_host"}
}
)";
  auto ho3004 = [](const PipelineResult& result) -> const Diagnostic* {
    for (const Diagnostic& d : result.modules[0].diagnostics) {
      if (d.code == DiagCode::kHO3004) return &d;
    }
    return nullptr;
  };
  PipelineResult plain = RunPipeline(Command::kCheck, kHostRoot, {});
  ASSERT_NE(ho3004(plain), nullptr);
  EXPECT_TRUE(ho3004(plain)->output_path.empty());
  EXPECT_EQ(RenderJson(plain).find("output_"), std::string::npos);
  PipelineOptions named;
  named.output_paths = {"result"};
  PipelineResult with = RunPipeline(Command::kCheck, kHostRoot, named);
  ASSERT_NE(ho3004(with), nullptr);
  EXPECT_EQ(ho3004(with)->output_path, "result");
  EXPECT_FALSE(ho3004(with)->output_index.has_value());
  nlohmann::json json = nlohmann::json::parse(RenderJson(with));
  int named_warnings = 0;
  for (const nlohmann::json& d : json["files"][0]["diagnostics"]) {
    if (d["code"] != "HO3004") continue;
    EXPECT_EQ(d["output_path"], "result");
    EXPECT_FALSE(d.contains("output_index"));
    ++named_warnings;
  }
  EXPECT_EQ(named_warnings, 1);

  // The other HO3004s about an entry output: a MoveToHost that reaches the
  // root through a bitcast, and a host output in the layout that nothing
  // ends in (its first host leaf, {1}).
  constexpr absl::string_view kThroughBitcast = R"(HloModule m
ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT b = f32[2,2]{1,0} bitcast(h)
}
)";
  constexpr absl::string_view kUnusedHostOutput = R"(HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0:S(5)})}
ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(p, n)
}
)";
  named.output_paths = {"result"};
  PipelineResult bitcast = RunPipeline(Command::kCheck, kThroughBitcast, named);
  ASSERT_NE(ho3004(bitcast), nullptr);
  EXPECT_EQ(ho3004(bitcast)->output_path, "result");
  named.output_paths = {"result[0]", "result[1]"};
  PipelineResult unused = RunPipeline(Command::kCheck, kUnusedHostOutput, named);
  ASSERT_NE(ho3004(unused), nullptr);
  EXPECT_EQ(ho3004(unused)->output_path, "result[1]");
  EXPECT_TRUE(ho3004(RunPipeline(Command::kCheck, kUnusedHostOutput, {}))
                  ->output_path.empty());
}

// One MoveToHost whose tensor reaches two entry outputs: two E1200s with one
// cause. Text prints one, listing the other output (by its JAX path where
// names are given); JSON keeps both, marked with their group.
TEST_F(PipelineTest, OneCauseFoldsInTextAndIsMarkedInJson) {
  constexpr absl::string_view kTwoOutputs = R"(HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0}, f32[4]{0})}
ENTRY e {
  p = f32[4]{0} parameter(0)
  h = f32[4]{0} custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  b = f32[4]{0} bitcast(h)
  ROOT t = (f32[4]{0}, f32[4]{0}, f32[4]{0}) tuple(b, b, p)
}
)";
  PipelineOptions options;
  options.path = "in.hlo";
  PipelineResult plain = RunPipeline(Command::kCheck, kTwoOutputs, options);
  EXPECT_EQ(plain.exit_status, kExitDiagnosed);
  std::string text = RenderDiagnostics(plain, DiagnosticFormat::kText);
  EXPECT_EQ(text.find("error: E1200"), text.rfind("error: E1200")) << text;
  EXPECT_NE(text.find("  note: and 1 more output: {1}\n"), std::string::npos) << text;
  options.output_paths = {"result['s']['a']", "result['s']['b']", "result['x']"};
  PipelineResult named = RunPipeline(Command::kCheck, kTwoOutputs, options);
  text = RenderDiagnostics(named, DiagnosticFormat::kText);
  EXPECT_NE(text.find("  note: JAX output: result['s']['a']\n"
                      "  note: and 1 more output: result['s']['b']\n"),
            std::string::npos)
      << text;
  nlohmann::json json = nlohmann::json::parse(RenderJson(named));
  const nlohmann::json& diagnostics = json["files"][0]["diagnostics"];
  std::vector<size_t> e1200;
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    if (diagnostics[i]["code"] == "E1200") e1200.push_back(i);
  }
  ASSERT_EQ(e1200.size(), 2u);
  for (size_t i : e1200) {
    EXPECT_EQ(diagnostics[i]["group"], e1200[0]);
    EXPECT_EQ(diagnostics[i]["group_size"], 2);
  }
  EXPECT_EQ(diagnostics[e1200[1]]["output_path"], "result['s']['b']");
  // XLA's status is the first error alone, as before.
  EXPECT_EQ(RenderDiagnostics(named, DiagnosticFormat::kXla),
            RenderXla(named.modules[0].diagnostics[e1200[0]]) + "\n");
  // Nothing folds: no group keys, the JSON is what it was.
  EXPECT_EQ(RenderJson(RunPipeline(Command::kCheck, kE1200, {})).find("group"),
            std::string::npos);
}

TEST_F(PipelineTest, SummaryCountsFilesAndDiagnosticsPerCode) {
  CheckSummary clean;
  clean.Add(RunPipeline(Command::kCheck, kClean, {}));
  EXPECT_EQ(clean.Render(), "hlo-offload: 1 file checked: no errors, no warnings\n");
  CheckSummary several;
  several.Add(RunPipeline(Command::kCheck, kClean, {}));
  several.Add(RunPipeline(Command::kCheck, kE1200, {}));
  several.Add(RunPipelineOnFile(Command::kCheck, (dir_ / "missing.hlo").string(), {}));
  several.Add(RunPipeline(Command::kCheck, "HloModule m\nENTRY e {\n", {}));
  EXPECT_EQ(several.Render(),
            "hlo-offload: 4 files checked: 1 could not be read, 2 errors "
            "(HO0001, E1200), no warnings\n");
  // Notes appear when there are some; a code seen more than once has its count.
  PipelineResult notes = RunPipeline(Command::kCheck, kE1200, {});
  Diagnostic note;
  note.severity = Severity::kNote;
  note.code = DiagCode::kHO3014;
  notes.modules[0].diagnostics.push_back(note);
  notes.modules[0].diagnostics.push_back(note);
  CheckSummary with_notes;
  with_notes.Add(notes);
  EXPECT_EQ(with_notes.Render(),
            "hlo-offload: 1 file checked: 1 error (E1200), no warnings, 2 notes "
            "(HO3014 x2)\n");
  // The command line prints it last in text, and in no other format.
  std::string path = Write("in.hlo", kE1200);
  Cli text = RunCli({"check", path, path});
  EXPECT_EQ(text.err.substr(text.err.rfind('\n', text.err.size() - 2) + 1),
            "hlo-offload: 2 files checked: 2 errors (E1200 x2), no warnings\n");
  for (const char* format : {"--format=xla", "--format=json", "--format=sarif"}) {
    EXPECT_EQ(RunCli({"check", format, path}).err.find("files checked"),
              std::string::npos);
    EXPECT_EQ(RunCli({"check", format, path}).err.find("file checked"),
              std::string::npos);
  }
  EXPECT_EQ(RunCli({"fix", "--strategy=host-output", path}).err.find("checked"),
            std::string::npos);
}

TEST_F(PipelineTest, ParsedModuleRunsLikeItsText) {
  PipelineOptions options;
  options.path = "in.hlo";
  PipelineResult from_text = RunPipeline(Command::kCheck, kE1200, options);
  PipelineResult parsed = RunPipeline(Command::kFmt, kE1200, options);
  ASSERT_EQ(parsed.exit_status, kExitOk);
  PipelineResult from_module = RunPipelineOnModule(
      Command::kCheck, std::move(parsed.modules[0].module), options);
  EXPECT_EQ(from_module.exit_status, from_text.exit_status);
  EXPECT_EQ(RenderJson(from_module), RenderJson(from_text));
}

TEST_F(PipelineTest, TraceIsKeptPerModuleWhereTheCommandLinePrintsIt) {
  std::string path =
      Write("two.hlo", std::string(kE1200) + "// -----\n" + std::string(kClean));
  PipelineOptions options;
  options.split_input = true;
  options.trace_level = 1;
  PipelineResult result = RunPipelineOnFile(Command::kCheck, path, options);
  ASSERT_EQ(result.modules.size(), 2u);
  EXPECT_TRUE(result.trace_kept);
  EXPECT_FALSE(result.modules[0].trace.empty());
  Cli cli = RunCli({"check", "--split-input-file", "--trace", path});
  CheckSummary summary;
  summary.Add(result);
  EXPECT_EQ(RenderDiagnostics(result, DiagnosticFormat::kText) + summary.Render(),
            cli.err);
}

TEST_F(PipelineTest, BatchDeliversInInputOrder) {
  std::vector<std::string> files = {Write("a.hlo", kClean), Write("b.hlo", kE1200),
                                    (dir_ / "missing.hlo").string()};
  std::vector<PipelineResult> results;
  std::vector<size_t> order;
  RunPipelineOnFiles(Command::kCheck, files, {}, 3,
                     [&](size_t i, PipelineResult result) {
                       order.push_back(i);
                       results.push_back(std::move(result));
                     });
  EXPECT_EQ(order, std::vector<size_t>({0, 1, 2}));
  EXPECT_EQ(results[0].exit_status, kExitOk);
  EXPECT_EQ(results[1].exit_status, kExitDiagnosed);
  EXPECT_EQ(results[2].exit_status, kExitUsage);
  EXPECT_FALSE(results[2].read_error.empty());
  std::vector<const PipelineResult*> all;
  for (const PipelineResult& r : results) all.push_back(&r);
  EXPECT_EQ(RenderJson(all), RunCli({"check", "--format=json", files[0], files[1],
                                     files[2]}).out);
}

TEST(PipelineUsageTest, UnknownPassIsNamed) {
  EXPECT_EQ(UnknownPass({"host-offloader", "no-such-pass"}), "no-such-pass");
  EXPECT_EQ(UnknownPass({"host-offloader"}), std::nullopt);
}

}  // namespace
}  // namespace hloff
