// Parsing one module with several threads gives exactly what one thread
// gives: the same printed module, the same users order, the same errors.
// Ranges are made tiny (min_bytes_per_thread) so that every shared case and
// every mutation of one is split in many places.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo.h"
#include "text/parser.h"
#include "text/printer.h"
#include "support/input_files.h"

namespace hloff {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The printed module plus every instruction's users, in order.
std::string Fingerprint(const Module& module) {
  std::string out = ModuleToString(module);
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      absl::StrAppend(&out, instr->name(), ":");
      for (const Instruction* user : instr->users()) {
        absl::StrAppend(&out, " ", user->name());
      }
      out += "\n";
    }
  }
  return out;
}

// Parses `text` with one thread and with `threads`; expects the same result.
// Returns the number of threads the second parse used.
int ExpectSameParse(const std::string& text, const std::string& what,
                    int threads) {
  ParseOptions one{"in.hlo", 0};
  ParseOptions many = one;
  int used = 0;
  many.threads = threads;
  many.min_bytes_per_thread = 64;
  many.threads_used = &used;
  auto a = ParseHloModule(text, one);
  auto b = ParseHloModule(text, many);
  EXPECT_EQ(a.ok(), b.ok()) << what << "\n"
                            << (a.ok() ? b.status() : a.status());
  if (a.ok() != b.ok()) return used;
  if (!a.ok()) {
    EXPECT_EQ(a.status().message(), b.status().message()) << what;
    return used;
  }
  EXPECT_EQ(Fingerprint(**a), Fingerprint(**b)) << what;
  return used;
}

std::vector<std::string> SharedCaseChunks() {
  std::vector<std::string> chunks;
  std::filesystem::path cases =
      std::filesystem::path(HLOFF_SHARED_DIR) / "corpus" / "cases";
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator(cases, ec)) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".hlo") continue;
      std::string text = ReadAll(entry.path());
      for (const InputChunk& chunk : SplitInput(text, true)) {
        chunks.emplace_back(chunk.text);
      }
    }
  }
  return chunks;
}

TEST(ParallelParseTest, SharedCasesParseAlike) {
  std::vector<std::string> chunks = SharedCaseChunks();
  if (chunks.empty()) GTEST_SKIP() << "no shared cases at " << HLOFF_SHARED_DIR;
  int parallel = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    for (int threads : {2, 3, 8}) {
      int used = ExpectSameParse(chunks[i], absl::StrCat("case chunk ", i),
                                 threads);
      parallel += used > 1;
    }
  }
  // Most cases are really read in pieces (not sent to the sequential path).
  EXPECT_GT(parallel, static_cast<int>(chunks.size()));
}

TEST(ParallelParseTest, RealDumpsParseAlike) {
  std::filesystem::path real =
      std::filesystem::path(HLOFF_SHARED_DIR) / "corpus" / "real";
  std::error_code ec;
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(real, ec)) {
    std::string ext = entry.path().extension().string();
    if (ext != ".hlo" && ext != ".txt") continue;
    std::string text = ReadAll(entry.path());
    ParseOptions options{"in.hlo", 0};
    int used = 0;
    options.threads = 4;
    options.min_bytes_per_thread = text.size() / 4 + 1;
    options.threads_used = &used;
    auto one = ParseHloModule(text, ParseOptions{"in.hlo", 0});
    auto many = ParseHloModule(text, options);
    ASSERT_EQ(one.ok(), many.ok()) << entry.path();
    if (one.ok()) {
      EXPECT_EQ(Fingerprint(**one), Fingerprint(**many)) << entry.path();
      EXPECT_GT(used, 1) << entry.path();
    } else {
      EXPECT_EQ(one.status().message(), many.status().message());
    }
    ++seen;
  }
  if (seen == 0) GTEST_SKIP() << "no real dumps at " << real;
}

TEST(ParallelParseTest, DamagedInputsFailAlike) {
  std::vector<std::string> chunks = SharedCaseChunks();
  if (chunks.empty()) GTEST_SKIP() << "no shared cases at " << HLOFF_SHARED_DIR;
  std::mt19937 rng(1234);
  const std::vector<std::string> pieces = {
      "}", "{", "\n", "  ", "%", "ROOT ", "ENTRY e {\n", ", ", "=", "\"",
      "/*", "// c\n", "x = f32[] parameter(0)\n", "\n}\n", "(", ")",
      "\n  y = f32[] add(y, y)\n", ", execution_thread=\"host\""};
  for (size_t i = 0; i < chunks.size(); i += 3) {
    const std::string& text = chunks[i];
    if (text.empty()) continue;
    for (int m = 0; m < 12; ++m) {
      std::string damaged = text;
      size_t at = rng() % (damaged.size() + 1);
      switch (rng() % 4) {
        case 0:
          damaged.resize(at);
          break;
        case 1:
          if (at < damaged.size()) damaged.erase(at, 1);
          break;
        case 2:
          damaged.insert(at, pieces[rng() % pieces.size()]);
          break;
        default: {
          size_t nl = damaged.find('\n', at);
          if (nl != std::string::npos) damaged.insert(nl + 1, damaged.substr(at, nl + 1 - at));
        }
      }
      ExpectSameParse(damaged, absl::StrCat("chunk ", i, " mutation ", m),
                      2 + m % 3);
    }
  }
}

}  // namespace
}  // namespace hloff
