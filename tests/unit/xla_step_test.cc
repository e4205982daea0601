// The --xla step of a front end (tool/driver.h FrontEnd::xla_step,
// tool/xla_step.h): after the run, XLA's verdict on each file edits the JSON
// document (key order kept), its text follows everything else on standard
// error, it decides the exit status, and a step that stops ends the run.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tool/driver.h"

namespace hloff {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr char kClean[] =
    "HloModule c, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
    "ENTRY e {\n  p = f32[4]{0} parameter(0)\n"
    "  ROOT n = f32[4]{0} negate(p)\n}\n";
// An offloaded value returned with a device layout: E1200 on output {0}.
constexpr char kE1200[] =
    "HloModule b, entry_computation_layout={(f32[4]{0})->(f32[4]{0})}\n"
    "ENTRY e {\n  p = f32[4]{0} parameter(0)\n"
    "  h = f32[4]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n"
    "  ROOT t = (f32[4]{0}) tuple(h)\n}\n";

struct Output {
  int status;
  std::string out;
  std::string err;
};

// One call of the step, as it was made.
struct Call {
  std::string command;
  std::string file;
  std::string document;
  FrontEndOptions options;
};

class XlaStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hloff-xla-step-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    clean_ = (dir_ / "clean.hlo").string();
    e1200_ = (dir_ / "e1200.hlo").string();
    std::ofstream(clean_) << kClean;
    std::ofstream(e1200_) << kE1200;
    front_end_.reads = [](const std::string&, const FrontEndOptions&) { return false; };
    front_end_.convert = [](const std::string&, bool, const FrontEndOptions&) {
      return FrontEndInput();
    };
    // XLA's verdict: an `xla` object added last; `exit_status_` per file.
    front_end_.xla_step = [this](const std::string& command, const std::string& file,
                                 const std::string& document,
                                 const FrontEndOptions& options) {
      calls_.push_back({command, file, document, options});
      XlaStep step;
      if (command != "fix") {
        Json object = Json::parse(document);
        object["xla"] = {{"verdict", file}};
        step.document = object.dump();
      }
      step.text = file + ": xla: verdict\n";
      step.exit_status = exit_status_;
      if (calls_.size() == stop_at_) {
        step.stop = true;
        step.text = "hlo-offload: error: --xla=tpu: no client\n";
      }
      return step;
    };
  }
  void TearDown() override { fs::remove_all(dir_); }

  Output Run(std::vector<std::string> args) {
    args.insert(args.begin(), "hlo-offload");
    std::ostringstream out, err;
    int status = RunTool(args, out, err, &front_end_);
    return {status, out.str(), err.str()};
  }

  fs::path dir_;
  std::string clean_;
  std::string e1200_;
  FrontEnd front_end_;
  std::vector<Call> calls_;
  int exit_status_ = 0;
  size_t stop_at_ = 0;  // the call that stops (1-based); 0: none
};

TEST_F(XlaStepTest, CheckJsonEntriesAreReplacedInOrderWithTheirKeyOrder) {
  // The run without --xla, for the backend XLA compiles for.
  Output plain = Run({"check", "--format=json", "--backend=tpu", e1200_, clean_});
  ASSERT_EQ(plain.status, 1) << plain.err;
  ASSERT_TRUE(calls_.empty());
  exit_status_ = 0;  // XLA compiles both: its verdict decides
  Output o = Run({"check", "--format=json", "--xla=tpu", e1200_, clean_});
  EXPECT_EQ(o.status, 0) << o.err;
  ASSERT_EQ(calls_.size(), 2u);
  EXPECT_EQ(calls_[0].command, "check");
  EXPECT_EQ(calls_[0].file, e1200_);
  EXPECT_EQ(calls_[1].file, clean_);
  EXPECT_EQ(calls_[0].options.xla, "tpu");
  Json given = Json::parse(calls_[0].document);
  EXPECT_EQ(given["diagnostics"][0]["code"], "E1200");
  // The plain document with each entry's `xla` last, as Python's json.dumps
  // (indent=2, ensure_ascii=False) prints it.
  Json expected = Json::parse(plain.out);
  for (Json& entry : expected["files"]) {
    entry["xla"] = {{"verdict", entry["file"]}};
  }
  EXPECT_EQ(o.out, expected.dump(2, ' ', false) + "\n");
  EXPECT_TRUE(absl::StrContains(o.out, "\"module\": \"c\",\n      \"xla\": {\n"))
      << o.out;
  EXPECT_TRUE(absl::StartsWith(o.out, "{\n  \"files\": [\n")) << o.out;
  // The document holds the verdicts: no text.
  EXPECT_EQ(o.err, plain.err);
}

TEST_F(XlaStepTest, CheckTextComesAfterTheSummaryAndDecidesTheStatus) {
  Output plain = Run({"check", "--backend=tpu", clean_, e1200_});
  exit_status_ = 1;
  Output o = Run({"check", "--xla=tpu", clean_, e1200_});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, plain.err + clean_ + ": xla: verdict\n" + e1200_ + ": xla: verdict\n");
  EXPECT_TRUE(absl::StrContains(plain.err, "2 files checked")) << plain.err;
  EXPECT_EQ(o.out, "");
  // --format=xla: XLA's status, then the texts.
  calls_.clear();
  exit_status_ = 0;
  o = Run({"check", "--xla=TPU", "--format=xla", e1200_});
  EXPECT_EQ(o.status, 0);
  EXPECT_TRUE(absl::EndsWith(o.err, "for more details.\n" + e1200_ + ": xla: verdict\n"))
      << o.err;
  // A run that ends with a usage or input error gets no step.
  calls_.clear();
  o = Run({"check", "--xla=tpu", (dir_ / "missing.hlo").string()});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(calls_.empty());
}

TEST_F(XlaStepTest, AStepThatStopsEndsTheRun) {
  stop_at_ = 2;
  Output o = Run({"check", "--format=json", "--xla=tpu", clean_, e1200_});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");  // no document
  EXPECT_EQ(o.err, "hlo-offload: error: --xla=tpu: no client\n");
  calls_.clear();
  o = Run({"check", "--xla=tpu", clean_, e1200_});
  EXPECT_EQ(o.status, 2);
  EXPECT_FALSE(absl::StrContains(o.err, ": xla: verdict")) << o.err;
  EXPECT_TRUE(absl::EndsWith(
      o.err, "2 files checked: 1 error (E1200), no warnings\n"
             "hlo-offload: error: --xla=tpu: no client\n"))
      << o.err;
  // A document that is not JSON ends the run too.
  front_end_.xla_step = [](const std::string&, const std::string&, const std::string&,
                           const FrontEndOptions&) {
    XlaStep step;
    step.document = "{not json";
    return step;
  };
  o = Run({"check", "--format=json", "--xla=tpu", clean_});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_TRUE(absl::StrContains(o.err, "is not JSON")) << o.err;
}

TEST_F(XlaStepTest, ReportJsonAndText) {
  Output plain = Run({"report", "--format=json", "--backend=tpu", e1200_});
  ASSERT_EQ(plain.status, 0) << plain.err;
  exit_status_ = 1;
  Output o = Run({"report", "--format=json", "--xla=tpu", e1200_});
  EXPECT_EQ(o.status, 1);
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].command, "report");
  EXPECT_EQ(Json::parse(calls_[0].document), Json::parse(plain.out));
  Json expected = Json::parse(plain.out);
  expected["xla"] = {{"verdict", calls_[0].file}};
  EXPECT_EQ(o.out, expected.dump(2, ' ', false) + "\n");
  EXPECT_EQ(o.err, plain.err);
  // Text: the report as without --xla, the verdict's text after.
  plain = Run({"report", "--backend=tpu", e1200_});
  exit_status_ = 0;
  o = Run({"report", "--xla=tpu", e1200_});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out, plain.out);
  EXPECT_EQ(o.err, plain.err + calls_.back().file + ": xla: verdict\n");
  // Written to -o as the report would be.
  std::string written = (dir_ / "report.json").string();
  o = Run({"report", "--format=json", "--xla=tpu", "-o", written, e1200_});
  EXPECT_EQ(o.status, 0);
  std::ifstream in(written);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(absl::StrContains(text, "\"xla\": {")) << text;
}

TEST_F(XlaStepTest, FixGivesTheFixedModule) {
  Output plain = Run({"fix", "--strategy=host-output", "--backend=tpu", e1200_});
  ASSERT_EQ(plain.status, 0) << plain.err;
  exit_status_ = 1;
  Output o = Run({"fix", "--strategy=host-output", "--xla=tpu", e1200_});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, plain.out);
  ASSERT_EQ(calls_.size(), 1u);
  EXPECT_EQ(calls_[0].command, "fix");
  EXPECT_EQ(calls_[0].file, e1200_);
  EXPECT_EQ(calls_[0].document, plain.out);
  EXPECT_EQ(o.err, plain.err + e1200_ + ": xla: verdict\n");
  // -o: the module written there.
  std::string written = (dir_ / "fixed.hlo").string();
  exit_status_ = 0;
  o = Run({"fix", "--strategy=host-output", "--xla=tpu", "-o", written, e1200_});
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(calls_.back().document, plain.out);
  stop_at_ = calls_.size() + 1;
  o = Run({"fix", "--strategy=host-output", "--xla=tpu", e1200_});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, plain.out);
  EXPECT_TRUE(absl::EndsWith(o.err, "hlo-offload: error: --xla=tpu: no client\n")) << o.err;
}

}  // namespace
}  // namespace hloff
