// The file handling of support/file_io.h: inputs are read up to
// kMaxInputBytes, outputs are written atomically (a replaced file keeps its
// permissions, a symbolic link is followed, an interrupted or failed write
// leaves nothing behind, a FIFO is written into).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/file_io.h"

namespace hloff {
namespace {

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
