// The documented limits (README.md, "Limits"; text/parser.h): each one
// exceeded is a located error, never a crash, and everything just inside
// them is accepted. Also the file handling of the driver: inputs are read up
// to kMaxInputBytes, outputs are written atomically.
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
#include "tool/driver.h"

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

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/hloff-files-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::filesystem::path dir_;
};

TEST_F(FilesTest, ReadInputRefusesAFileOverTheLimit) {
  std::string path = (dir_ / "big.hlo").string();
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kMaxInputBytes) + 1), 0);  // sparse
  close(fd);
  auto text = ReadInput(path);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("is larger than 2147483648 bytes"),
            absl::string_view::npos)
      << text.status();
}

TEST_F(FilesTest, WriteFileAtomicallyReplacesAndKeepsPermissions) {
  std::string path = (dir_ / "out.hlo").string();
  { std::ofstream(path) << "old"; }
  chmod(path.c_str(), 0640);
  ASSERT_TRUE(WriteFileAtomically(path, "new").ok());
  EXPECT_EQ(Read(path), "new");
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640);
  // Nothing but the file is left in the folder.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(FilesTest, WriteFileAtomicallyFollowsSymlinks) {
  std::string real = (dir_ / "real.hlo").string();
  std::string link = (dir_ / "link.hlo").string();
  { std::ofstream(real) << "old"; }
  std::filesystem::create_symlink("real.hlo", link);
  ASSERT_TRUE(WriteFileAtomically(link, "new").ok());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(Read(real), "new");
}

// Ctrl-C (or kill, or a closed terminal) while the temporary file is
// written: the run dies of the signal and leaves neither the temporary file
// nor a changed target. The child interrupts itself at the last moment,
// just before the rename.
TEST_F(FilesTest, WriteFileAtomicallyInterruptedLeavesNoTemporaryFile) {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    std::string path = (dir_ / "out.hlo").string();
    { std::ofstream(path) << "old"; }
    static int to_raise;
    to_raise = signal_number;
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      SetBeforeRenameHookForTesting([] { raise(to_raise); });
      (void)WriteFileAtomically(path, std::string(1 << 20, 'x'));
      _exit(0);  // not reached: the signal ends the child
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << signal_number;
    EXPECT_EQ(WTERMSIG(status), signal_number);
    EXPECT_EQ(Read(path), "old");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                            std::filesystem::directory_iterator()),
              1)
        << "a temporary file was left after signal " << signal_number;
  }
}

TEST_F(FilesTest, WriteFileAtomicallyFailsWithoutTouchingAnything) {
  // A directory is refused.
  EXPECT_FALSE(WriteFileAtomically(dir_.string(), "x").ok());
  // A folder that does not exist: nothing is created.
  EXPECT_FALSE(WriteFileAtomically((dir_ / "no" / "out.hlo").string(), "x").ok());
  // A read-only folder (unless we are root, who may write anyway).
  if (geteuid() != 0) {
    std::string path = (dir_ / "keep.hlo").string();
    { std::ofstream(path) << "old"; }
    chmod(dir_.c_str(), 0555);
    EXPECT_FALSE(WriteFileAtomically(path, "new").ok());
    chmod(dir_.c_str(), 0755);
    EXPECT_EQ(Read(path), "old");
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no"));
}

// A FIFO (like /dev/stdout, /dev/null or a shell's >(cmd)) is written into,
// never replaced by a regular file.
TEST_F(FilesTest, WriteFileAtomicallyWritesIntoAFifo) {
  std::string fifo = (dir_ / "out.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = Read(fifo); });
  EXPECT_TRUE(WriteFileAtomically(fifo, "module text").ok());
  reader.join();
  EXPECT_EQ(received, "module text");
  struct stat st;
  ASSERT_EQ(stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

}  // namespace
}  // namespace hloff
