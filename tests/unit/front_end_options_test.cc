// The front end's options on the command line (tool/driver.h
// FrontEndOptions, tool/front_end_options.h): registered only with a front
// end, handed to its callbacks, refused with the console command's usage
// errors, and the front end's start.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tool/driver.h"

namespace hloff {
namespace {

namespace fs = std::filesystem;

constexpr char kClean[] =
    "HloModule c, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
    "ENTRY e {\n  p = f32[4]{0} parameter(0)\n"
    "  ROOT n = f32[4]{0} negate(p)\n}\n";

struct Output {
  int status;
  std::string out;
  std::string err;
};

class FrontEndOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "hloff-fe-options-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    hlo_ = (dir_ / "c.hlo").string();
    std::ofstream(hlo_) << kClean;
    front_end_.reads = [this](const std::string& file, const FrontEndOptions& options) {
      read_options_ = options;
      asked_.push_back(file);
      return false;
    };
    front_end_.convert = [](const std::string&, bool, const FrontEndOptions&) {
      ADD_FAILURE() << "no file is the front end's";
      return FrontEndInput();
    };
    front_end_.start = [this](const std::string& command,
                              const FrontEndOptions& options) {
      started_.push_back(command);
      start_options_ = options;
      return start_error_;
    };
  }
  void TearDown() override { fs::remove_all(dir_); }

  Output Run(std::vector<std::string> args, const FrontEnd* front_end) {
    args.insert(args.begin(), "hlo-offload");
    std::ostringstream out, err;
    int status = RunTool(args, out, err, front_end);
    return {status, out.str(), err.str()};
  }
  Output Run(std::vector<std::string> args) { return Run(args, &front_end_); }

  // The usage error `message` of `command`, as the console command gives it.
  static std::string Usage(const std::string& command, const std::string& message) {
    return "hlo-offload: error: " + message + "\nRun 'hlo-offload " + command +
           " --help' for usage.\n";
  }

  fs::path dir_;
  std::string hlo_;
  FrontEnd front_end_;
  std::vector<std::string> started_;
  std::vector<std::string> asked_;
  FrontEndOptions start_options_;
  std::optional<FrontEndOptions> read_options_;
  std::string start_error_;
};

TEST_F(FrontEndOptionsTest, OptionsReachTheCallbacks) {
  Output o = Run({"check", "--platform", "cuda", "--no-partition", "--xla=GPU",
                  "--xla-topology=h100_sxm", hlo_});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(started_, std::vector<std::string>{"check"});
  EXPECT_EQ(start_options_.platform, "cuda");
  EXPECT_FALSE(start_options_.partition);
  EXPECT_EQ(start_options_.xla, "cuda");  // gpu means cuda
  EXPECT_EQ(start_options_.xla_topology, "h100_sxm");
  ASSERT_TRUE(read_options_.has_value());
  EXPECT_EQ(read_options_->xla, "cuda");
  EXPECT_EQ(asked_, std::vector<std::string>{hlo_});
  // The last --platform counts; the value is the front end's to check.
  Run({"report", "--platform=tpu", "--platform=whatever", hlo_});
  EXPECT_EQ(start_options_.platform, "whatever");
  EXPECT_TRUE(start_options_.partition);
  EXPECT_EQ(start_options_.xla, "");
  // The values may follow as the next argument.
  o = Run({"fix", "--strategy=host-output", "--xla", "tpu", "--xla-topology",
           "v5e:2x2", hlo_});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(started_.back(), "fix");
  EXPECT_EQ(start_options_.xla, "tpu");
  EXPECT_EQ(start_options_.xla_topology, "v5e:2x2");
  // opt, fix and fmt take a module as written: no partition step.
  o = Run({"fmt", "--platform=tpu", hlo_});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(absl::StartsWith(o.out, "HloModule c")) << o.out;
  EXPECT_EQ(started_.back(), "fmt");
  EXPECT_FALSE(start_options_.partition);
  EXPECT_EQ(start_options_.platform, "tpu");
}

TEST_F(FrontEndOptionsTest, StartsErrorIsWrittenAsItIsBeforeAnyFile) {
  start_error_ = "hlo-offload: error: --platform: unknown platform 'x'\nmore\n";
  Output o = Run({"check", "--platform=x", hlo_});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, start_error_);
  EXPECT_EQ(o.out, "");
  EXPECT_TRUE(asked_.empty());
  // Without a start, the run goes on.
  front_end_.start = nullptr;
  o = Run({"check", hlo_});
  EXPECT_EQ(o.status, 0) << o.err;
}

TEST_F(FrontEndOptionsTest, UsageErrorsAreTheConsoleCommands) {
  struct Case {
    std::vector<std::string> args;
    std::string command;
    std::string message;
  };
  std::vector<Case> cases = {
      {{"opt", "--xla=tpu"}, "opt", "--xla is an option of check, fix and report"},
      {{"fmt", "--xla-topology", "v5e:2x2"}, "fmt",
       "--xla-topology is an option of check, fix and report"},
      {{"opt", "--xla="}, "opt", "--xla is an option of check, fix and report"},
      {{"opt", "--no-partition"}, "opt", "--no-partition is an option of check and report"},
      {{"fix", "--strategy=host-output", "--no-partition"}, "fix",
       "--no-partition is an option of check and report"},
      {{"check", "--xla=x"}, "check",
       "--xla: 'x' is not tpu or cuda (XLA's compile-only clients: libtpu, the CUDA plugin)"},
      {{"check", "--xla", ""}, "check", "--xla needs a value"},
      {{"check", "--xla="}, "check", "'--xla=' has nothing after '='"},
      {{"report", "--xla-topology=v5e:2x2"}, "report",
       "--xla-topology is for --xla=tpu or --xla=cuda"},
      {{"check", "--xla=tpu", "--split-input-file"}, "check",
       "--xla compiles one module per file: check the modules of a split file one by one"},
      {{"check", "--xla=tpu", "--format=sarif"}, "check",
       "--xla works with --format=text, xla or json"},
      {{"report", "--xla=tpu", "--format=dot"}, "report",
       "--xla works with --format=text or json"},
      {{"fix", "--strategy=host-output", "--xla=cuda", "--backend=tpu"}, "fix",
       "--backend=tpu checks for another backend than --xla=cuda compiles for: leave "
       "--backend out, or give --backend=gpu"},
      {{"check", "--backend=rocm", "--xla=gpu"}, "check",
       "--backend=rocm checks for another backend than --xla=cuda compiles for: leave "
       "--backend out, or give --backend=gpu"},
      {{"check", "--platform", ""}, "check", "--platform needs a value (it is empty)"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back(hlo_);
    Output o = Run(args);
    EXPECT_EQ(o.status, 2) << c.message;
    EXPECT_EQ(o.err, Usage(c.command, c.message));
  }
  // Values missing at the end of the arguments.
  EXPECT_EQ(Run({"check", hlo_, "--xla"}).err, Usage("check", "--xla needs a value"));
  EXPECT_EQ(Run({"fmt", hlo_, "--platform"}).err,
            Usage("fmt", "--platform needs a value"));
  // Options where the console command had no words of its own: CLI11's.
  Output o = Run({"explain", "--platform=tpu", "E1200"});
  EXPECT_EQ(o.status, 2);
  EXPECT_TRUE(absl::StartsWith(o.err, "hlo-offload: error: The following argument was not expected: --platform"))
      << o.err;
  EXPECT_TRUE(started_.empty());
  // Agreeing backends are taken.
  EXPECT_EQ(Run({"check", "--backend=cuda", "--xla=cuda", hlo_}).status, 0);
  EXPECT_EQ(Run({"check", "--backend=any", "--xla=tpu", hlo_}).status, 0);
  EXPECT_EQ(started_.size(), 2u);
}

TEST_F(FrontEndOptionsTest, ThePlainProgramKeepsItsCommandLine) {
  for (std::string option :
       {"--xla=tpu", "--platform=tpu", "--no-partition", "--xla-topology=v5e:2x2"}) {
    Output o = Run({"check", option, hlo_}, nullptr);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, "hlo-offload: error: The following argument was not expected: " +
                         option + "\nRun 'hlo-offload check --help' for usage.\n");
  }
  Output o = Run({"opt", "--xla=tpu", hlo_}, nullptr);
  EXPECT_TRUE(absl::StartsWith(o.err, "hlo-offload: error: The following argument was not expected"))
      << o.err;
  EXPECT_FALSE(absl::StrContains(Run({"check", "--help"}, nullptr).out, "--xla "));
  std::string help = Run({"check", "--help"}).out;
  EXPECT_TRUE(absl::StrContains(help, "--xla tpu|cuda")) << help;
  EXPECT_TRUE(absl::StrContains(help, "--no-partition")) << help;
  EXPECT_FALSE(absl::StrContains(Run({"opt", "--help"}).out, "--no-partition"));
}

TEST_F(FrontEndOptionsTest, TheFrontEndsHelpEndsEachHelp) {
  front_end_.help = {{"", "Subcommands of the front end: install-xla"},
                     {"check", "A FILE may end in .mlir."},
                     {"nosuch", "never shown"}};
  Output top = Run({"--help"});
  EXPECT_EQ(top.status, 0);
  EXPECT_TRUE(absl::EndsWith(top.out, "\n\nSubcommands of the front end: install-xla\n"))
      << top.out;
  Output check = Run({"check", "--help"});
  EXPECT_TRUE(absl::EndsWith(check.out, "\n\nA FILE may end in .mlir.\n")) << check.out;
  EXPECT_TRUE(absl::StrContains(check.out, "Exit status: 0 no error")) << check.out;
  EXPECT_FALSE(absl::StrContains(Run({"opt", "--help"}).out, "A FILE may end in .mlir."));
  EXPECT_FALSE(absl::StrContains(top.out + check.out, "never shown"));
  // The plain program's help is its own.
  EXPECT_FALSE(absl::StrContains(Run({"check", "--help"}, nullptr).out, ".mlir."));
}

TEST_F(FrontEndOptionsTest, FilesTheFrontEndLeavesRunAsWithoutIt) {
  fs::path folder = dir_ / "folder";
  fs::create_directory(folder);
  for (const char* name : {"a.hlo", "b.hlo", "c.hlo"}) {
    std::ofstream(folder / name) << kClean;
  }
  Output with = Run({"check", "--format=json", folder.string()});
  Output without = Run({"check", "--format=json", folder.string()}, nullptr);
  EXPECT_EQ(with.status, without.status);
  EXPECT_EQ(with.out, without.out);
  EXPECT_EQ(with.err, without.err);
  EXPECT_EQ(asked_.size(), 3u);
}

}  // namespace
}  // namespace hloff
