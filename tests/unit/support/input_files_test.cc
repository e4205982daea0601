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

TEST_F(ExpandInputsTest, StandardInputOnce) {
  auto files = ExpandInputs({"-", "-"});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hloff
