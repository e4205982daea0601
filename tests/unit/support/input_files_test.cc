// The inputs of a run (support/input_files.h): --split-input-file pieces
// with their line offsets, and directories expanded into their modules.
#include "support/input_files.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hloff {
namespace {

namespace fs = std::filesystem;

TEST(SplitInputTest, WholeTextUnlessSplit) {
  std::vector<InputChunk> chunks = SplitInput("a\n// -----\nb\n", false);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "a\n// -----\nb\n");
  EXPECT_EQ(chunks[0].line_offset, 0u);
}

TEST(SplitInputTest, PiecesKeepTheirLineOffsets) {
  std::vector<InputChunk> chunks = SplitInput("a\nb\n// -----  \r\nc\n", true);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].text, "a\nb\n");
  EXPECT_EQ(chunks[0].line_offset, 0u);
  EXPECT_EQ(chunks[1].text, "c\n");
  EXPECT_EQ(chunks[1].line_offset, 3u);
}

TEST(SplitInputTest, ByteOrderMarkIsDropped) {
  std::vector<InputChunk> chunks = SplitInput("\xEF\xBB\xBFHloModule m\n", false);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "HloModule m\n");
}

TEST(SplitInputTest, ATrailingMarkerStartsNoPiece) {
  std::vector<InputChunk> chunks = SplitInput("a\n// -----\n\n// done\n", true);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "a\n");
  // Only a marker: the (empty) piece before it.
  EXPECT_EQ(SplitInput("// -----\n", true).size(), 1u);
}

class ExpandInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A folder of its own: tests run in parallel processes.
    char tmpl[] = "/tmp/hloff-expand-inputs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  fs::path dir_;
};

TEST_F(ExpandInputsTest, DirectoriesGiveTheirModulesSorted) {
  Write("b.hlo", "anything");
  Write("a.txt", "\n// header\nHloModule m\n");
  Write("c.txt", "BufferAssignment stats\n");  // not a module
  Write("d.json", "{}");
  auto files = ExpandInputs({dir_.string(), "-"});
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(*files, std::vector<std::string>({(dir_ / "a.txt").string(),
                                              (dir_ / "b.hlo").string(), "-"}));
}

TEST_F(ExpandInputsTest, ADirectoryWithoutModulesIsAnError) {
  Write("notes.txt", "no module here\n");
  auto files = ExpandInputs({dir_.string()});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kNotFound);
}

TEST(IsAfterPassDumpNameTest, XlaDumpNames) {
  EXPECT_FALSE(IsAfterPassDumpName("module_0001.jit_step.before_optimizations.txt"));
  EXPECT_TRUE(IsAfterPassDumpName("module_0001.jit_step.after_optimizations.txt"));
  EXPECT_TRUE(IsAfterPassDumpName(
      "module_0001.jit_step.0003.pre-spmd.after_foo.before_bar.txt"));
  EXPECT_TRUE(IsAfterPassDumpName(
      "module_0000.jit_f.cl_933746096.0007.JF_after_layout_assignment."
      "after_pipelining-optimizations.before_host_offloading.txt"));
  EXPECT_TRUE(IsAfterPassDumpName("module_0002.jit_f.sm_9.0a_gpu_after_optimizations.txt"));
  EXPECT_TRUE(IsAfterPassDumpName("module_0002.jit_f.cpu_after_optimizations.txt"));
  EXPECT_TRUE(IsAfterPassDumpName("module_0002.jit_f.after_codegen.txt"));
  EXPECT_TRUE(IsAfterPassDumpName("prefix.module_0002.jit_f.after_optimizations.txt"));
  // Not XLA's dump names, or a module whose own name says "after".
  EXPECT_FALSE(IsAfterPassDumpName("after_optimizations.txt"));
  EXPECT_FALSE(IsAfterPassDumpName("my_module_after_fix.hlo"));
  EXPECT_FALSE(IsAfterPassDumpName("module_0003.jit_after_step.before_optimizations.txt"));
  EXPECT_FALSE(IsAfterPassDumpName("module_0003.jit_run_after_warmup.hlo"));
}

TEST_F(ExpandInputsTest, DumpFoldersSkipWhatIsDumpedAfterAPass) {
  Write("module_0001.f.before_optimizations.txt", "HloModule a\n");
  Write("module_0001.f.after_optimizations.txt", "HloModule a\n");
  Write("module_0001.f.0001.p.after_x.before_y.txt", "HloModule a\n");
  Write("module_0001.f.after_optimizations-buffer-assignment.txt", "BufferAssignment\n");
  auto listed = ListInputFiles({dir_.string()});
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->files, std::vector<std::string>(
                               {(dir_ / "module_0001.f.before_optimizations.txt").string()}));
  ASSERT_EQ(listed->skipped.size(), 1u);
  EXPECT_EQ(listed->skipped[0].directory, dir_.string());
  EXPECT_EQ(listed->skipped[0].files,
            std::vector<std::string>(
                {(dir_ / "module_0001.f.0001.p.after_x.before_y.txt").string(),
                 (dir_ / "module_0001.f.after_optimizations.txt").string()}));
  // A file named itself is read.
  std::string named = (dir_ / "module_0001.f.after_optimizations.txt").string();
  auto one = ListInputFiles({named});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->files, std::vector<std::string>({named}));
  EXPECT_TRUE(one->skipped.empty());
}

TEST_F(ExpandInputsTest, AFolderOfAfterPassDumpsOnlyIsAnError) {
  Write("module_0001.f.after_optimizations.txt", "HloModule a\n");
  auto listed = ListInputFiles({dir_.string()});
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(listed.status().message().find("name it on the command line"),
            absl::string_view::npos);
}

TEST_F(ExpandInputsTest, StandardInputOnce) {
  auto files = ExpandInputs({"-", "-"});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloff
