// The documented limits (README.md, "Limits"; text/parser.h): each one
// exceeded is a located error, never a crash, and everything just inside
// them is accepted. (Reading inputs up to kMaxInputBytes and writing outputs
// atomically: support/file_io_test.cc.)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "ir/shape.h"
#include "text/parser.h"

namespace hloff {
namespace {

// The message of a parse that must fail; the test fails if it succeeds.
std::string ParseError(const std::string& text) {
  auto module = ParseHloModule(text, ParseOptions{"in.hlo", 0});
  EXPECT_FALSE(module.ok());
  return module.ok() ? "" : std::string(module.status().message());
}

std::string Repeat(absl::string_view piece, int64_t n) {
  std::string out;
  out.reserve(piece.size() * n);
  for (int64_t i = 0; i < n; ++i) absl::StrAppend(&out, piece);
  return out;
}

std::string EntryWithRoot(const std::string& root) {
  return "HloModule m\n\nENTRY e {\n  ROOT " + root + "\n}\n";
}

TEST(LimitsTest, TupleShapeNestingUpToTheLimit) {
  // 512 tuples around an array, as a literal may have 512 braces.
  int depth = kMaxNestingDepth;
  std::string shape = Repeat("(", depth) + "f32[]" + Repeat(")", depth);
  EXPECT_TRUE(ParseHloModule(EntryWithRoot("p = " + shape + " parameter(0)")).ok());
  shape = "(" + shape + ")";
  std::string error = ParseError(EntryWithRoot("p = " + shape + " parameter(0)"));
  EXPECT_NE(error.find("in.hlo:4:"), std::string::npos) << error;
  EXPECT_NE(error.find("shape nesting deeper than 512"), std::string::npos) << error;
}

TEST(LimitsTest, DeepNestingIsAnErrorEverywhere) {
  const int n = 100000;
  const std::string deep_tuple = Repeat("(", n) + "f32[]" + Repeat(")", n);
  for (const std::string& text : {
           EntryWithRoot("p = " + deep_tuple + " parameter(0)"),
           EntryWithRoot("c = f32[1] constant(" + Repeat("{", n) + "1" +
                         Repeat("}", n) + ")"),
           EntryWithRoot("c = f32[] constant(1), sharding=" + Repeat("{", n) +
                         Repeat("}", n)),
           EntryWithRoot("c = f32[] constant(1), x=" + Repeat("[", n)),
           "HloModule m, entry_computation_layout={(" + deep_tuple +
               ")->f32[]}\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
       }) {
    std::string error = ParseError(text);
    EXPECT_NE(error.find("deeper than 512"), std::string::npos) << error;
  }
}

TEST(LimitsTest, WideTupleIsFine) {
  const int n = 100000;
  std::string params, names, shape = "(";
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&params, "  p", i, " = f32[] parameter(", i, ")\n");
    absl::StrAppend(&names, i ? ", " : "", "p", i);
    absl::StrAppend(&shape, i ? ", " : "", "f32[]");
  }
  shape += ")";
  auto module = ParseHloModule("HloModule m\n\nENTRY e {\n" + params + "  ROOT t = " +
                               shape + " tuple(" + names + ")\n}\n");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ((*module)->entry()->root()->operand_count(), n);
}

TEST(LimitsTest, OperandCount) {
  std::string operands = Repeat("a, ", kMaxOperands) + "a";
  std::string error = ParseError(EntryWithRoot("t = () tuple(" + operands + ")"));
  EXPECT_NE(error.find("more than 131072 operands"), std::string::npos) << error;
}

TEST(LimitsTest, TupleElementCount) {
  std::string shape = "(" + Repeat("(), ", kMaxTupleElements) + "())";
  std::string error = ParseError(EntryWithRoot("p = " + shape + " parameter(0)"));
  EXPECT_NE(error.find("tuple shape with more than 131072 elements"),
            std::string::npos)
      << error;
}

TEST(LimitsTest, Rank) {
  std::string dims = Repeat("1,", kMaxRank) + "1";
  std::string error = ParseError(EntryWithRoot("p = f32[" + dims + "] parameter(0)"));
  EXPECT_NE(error.find("array shape with more than 4096 dimensions"),
            std::string::npos)
      << error;
}

TEST(LimitsTest, SizesThatOverflow64Bits) {
  struct Case {
    std::string shape, message;
  };
  for (const Case& c : std::vector<Case>{
           {"f32[99999999999999999999]", "integer out of range"},
           {"f32[4294967296,4294967296]", "does not fit in 64 bits"},
           {"f64[4611686018427387904]", "does not fit in 64 bits"},
           {"f32[9223372036854775807]{0:T(1024)}", "does not fit in 64 bits"},
           {"f32[8]{0:E(9223372036854775807)}", "does not fit in 64 bits"},
           {"f32[8]{0:T(-5)}", "a tile dimension is a positive integer or '*'"},
           {"f32[-1]", "negative dimension size"},
       }) {
    std::string error = ParseError(EntryWithRoot("p = " + c.shape + " parameter(0)"));
    EXPECT_NE(error.find("in.hlo:4:"), std::string::npos) << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.shape << ": " << error;
  }
  // Just inside: 2^63 - 8 bits in bytes-sized elements, and an empty array
  // with a huge dimension.
  EXPECT_TRUE(ParseHloModule(EntryWithRoot("p = u8[1152921504606846975] parameter(0)")).ok());
  EXPECT_TRUE(ParseHloModule(EntryWithRoot("p = f32[0,9223372036854775807] parameter(0)")).ok());
}

TEST(LimitsTest, ByteSizeOfNeverOverflows) {
  auto shape = ParseShape("f32[9223372036854775807]{0:T(1024)}");
  ASSERT_FALSE(shape.ok());
  Shape s;
  s.element_type = PrimitiveType::kF32;
  s.dimensions = {std::numeric_limits<int64_t>::max()};
  s.has_layout = true;
  s.layout.minor_to_major = {0};
  s.layout.tiles = {Tile{{1024}}};
  EXPECT_FALSE(shape_util::ArrayBitSize(s).has_value());
  EXPECT_EQ(shape_util::ByteSizeOf(s), std::numeric_limits<int64_t>::max() / 8);
}

TEST(LimitsTest, ParameterNumbers) {
  std::string error = ParseError(EntryWithRoot("p = f32[] parameter(16777215)"));
  EXPECT_NE(error.find("parameter number 16777215 in computation 'e', which has 1 parameter"),
            std::string::npos)
      << error;
  error = ParseError(EntryWithRoot("p = f32[] parameter(16777216)"));
  EXPECT_NE(error.find("parameter number out of range"), std::string::npos) << error;
}

TEST(LimitsTest, InputSize) {
  // A view of kMaxInputBytes + 1 bytes that are never touched.
  size_t size = kMaxInputBytes + 1;
  void* region = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
  ASSERT_NE(region, MAP_FAILED);
  auto module = ParseHloModule(absl::string_view(static_cast<const char*>(region), size),
                               ParseOptions{"big.hlo", 0});
  munmap(region, size);
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find("big.hlo:1:1: error: input larger than"),
            absl::string_view::npos)
      << module.status();
}

}  // namespace
}  // namespace hloff
