// The command line with a front end that reads some files itself
// (tool/driver.h FrontEnd, pipeline/front_end_input.h): what it converts runs
// as the files the command line reads do, with its names, its notes and its
// errors, in input order.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tool/driver.h"

namespace hloff {
namespace {

namespace fs = std::filesystem;

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

class FrontEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs this fixture's tests side by side.
    std::string tmpl = (fs::temp_directory_path() / "hloff-front-end-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    hlo_ = (dir_ / "b.hlo").string();
    std::ofstream(hlo_) << kE1200;
    front_end_.reads = [](const std::string& file, const FrontEndOptions&) {
      return absl::EndsWith(file, ".conv");
    };
    front_end_.convert = [this](const std::string& file, bool split_input,
                                const FrontEndOptions&) {
      converted_.push_back(file + (split_input ? " split" : ""));
      FrontEndInput input;
      if (absl::StrContains(file, "unreadable")) {
        input.error = file + ": cannot convert it";
      } else if (absl::StrContains(file, "unparsable")) {
        input.parse_error = file + ":1:2: error: expected a module\nmodule\n ^";
        input.parse_line = 1;
        input.parse_column = 2;
        input.parse_message = "expected a module";
      } else {
        input.text = kE1200;
        input.output_paths = {"result['h']"};
        input.backend = TargetBackend::kTpu;
        input.notes = {"converted"};
      }
      if (absl::StrContains(file, "cpu")) {
        input.errors.push_back(FrontEndError(DiagCode::kHO0002, "made for the CPU",
                                             {"lower it for the accelerator"}));
      }
      return input;
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
  std::string hlo_;
  FrontEnd front_end_;
  std::vector<std::string> converted_;
};

TEST_F(FrontEndTest, ConvertedFilesRunWithTheirNamesInInputOrder) {
  Output o = Run({"check", "--format=json", "--pipeline=offload", "step.conv", hlo_});
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(converted_, std::vector<std::string>{"step.conv"});
  size_t first = o.out.find("\"file\": \"step.conv\"");
  size_t second = o.out.find("\"file\": \"" + hlo_ + "\"");
  ASSERT_NE(first, std::string::npos) << o.out;
  EXPECT_LT(first, second);
  EXPECT_TRUE(absl::StrContains(o.out, "\"output_path\": \"result['h']\"")) << o.out;
  // The text: the front end's note, where diagnostics are located, the output's name.
  o = Run({"check", "step.conv"});
  EXPECT_EQ(o.status, 1);
  EXPECT_TRUE(absl::StartsWith(o.err, "hlo-offload: note: step.conv: converted\n"
                                      "hlo-offload: note: step.conv is StableHLO"))
      << o.err;
  EXPECT_TRUE(absl::StrContains(o.err, "note: JAX output: result['h']")) << o.err;
  // Given to the front end, which refuses markers itself.
  Run({"check", "--split-input-file", "again.conv"});
  EXPECT_EQ(converted_.back(), "again.conv split");
}

TEST_F(FrontEndTest, FrontEndErrorsComeFirstAndStopOutputs) {
  Output o = Run({"check", "cpu.conv"});
  EXPECT_EQ(o.status, 1);
  EXPECT_TRUE(absl::StrContains(
      o.err, "cpu.conv: error: HO0002: InputLoweredForCpu: made for the CPU\n"
             "  cpu.conv: note: lower it for the accelerator\n"))
      << o.err;
  EXPECT_LT(o.err.find("HO0002"), o.err.find("E1200"));
  EXPECT_TRUE(absl::StrContains(o.err, "2 errors (HO0002, E1200)")) << o.err;
  o = Run({"check", "--format=json", "cpu.conv"});
  EXPECT_LT(o.out.find("\"code\": \"HO0002\""), o.out.find("\"code\": \"E1200\""));
  o = Run({"fmt", "cpu.conv"});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  o = Run({"report", "cpu.conv"});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
}

TEST_F(FrontEndTest, ConversionAndParseErrors) {
  Output o = Run({"check", "unreadable.conv", hlo_});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(absl::StartsWith(
      o.err, "hlo-offload: error: unreadable.conv: cannot convert it\n"))
      << o.err;
  EXPECT_TRUE(absl::StrContains(o.err, "2 files checked: 1 could not be read")) << o.err;
  o = Run({"check", "--format=json", "unparsable.conv"});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(absl::StrContains(o.out, "\"code\": \"HO0001\"")) << o.out;
  o = Run({"fmt", "unparsable.conv"});
  EXPECT_EQ(o.err, "unparsable.conv:1:2: error: expected a module\nmodule\n ^\n");
}

TEST_F(FrontEndTest, NothingIsWrittenIntoTheFrontEndsFiles) {
  Output o = Run({"fix", "--strategy=host-output", "--in-place", "step.conv"});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(absl::StartsWith(o.err, "hlo-offload: error: --in-place would write"))
      << o.err;
  o = Run({"fmt", "-o", (dir_ / "out.conv").string(), "step.conv"});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(absl::StrContains(o.err, "name it .hlo")) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out.conv"));
  EXPECT_TRUE(converted_.empty());
}

}  // namespace
}  // namespace hloff
