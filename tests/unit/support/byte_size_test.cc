// Byte sizes as the command line reads them (--pinned-host-budget) and as
// messages print them.
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "ir/shape.h"
#include "support/byte_size.h"

namespace hloff {
namespace {

int64_t Parsed(const std::string& text) {
  auto bytes = ParseByteSize(text);
  EXPECT_TRUE(bytes.ok()) << text << ": " << bytes.status();
  return bytes.ok() ? *bytes : -1;
}

TEST(ParseByteSizeTest, PlainNumbersAreBytes) {
  EXPECT_EQ(Parsed("0"), 0);
  EXPECT_EQ(Parsed("1073741824"), int64_t{1} << 30);
  EXPECT_EQ(Parsed("512B"), 512);
}

TEST(ParseByteSizeTest, BinaryAndDecimalUnits) {
  EXPECT_EQ(Parsed("16GiB"), int64_t{16} << 30);
  EXPECT_EQ(Parsed("16gib"), int64_t{16} << 30);
  EXPECT_EQ(Parsed("16G"), int64_t{16} << 30);
  EXPECT_EQ(Parsed("64GB"), int64_t{64} * 1000 * 1000 * 1000);
  EXPECT_EQ(Parsed("2KiB"), 2048);
  EXPECT_EQ(Parsed("3kB"), 3000);
  EXPECT_EQ(Parsed("1TiB"), int64_t{1} << 40);
  EXPECT_EQ(Parsed("1.5GiB"), int64_t{3} << 29);
  EXPECT_EQ(Parsed("7.9B"), 7);  // rounded down
}

TEST(ParseByteSizeTest, RejectsWhatIsNotASize) {
  for (const char* text : {"", "GiB", "-1GiB", "16 XB", "16GiBs", "1e3", "0x10",
                           "1..5G"}) {
    EXPECT_FALSE(ParseByteSize(text).ok()) << text;
  }
  auto huge = ParseByteSize("8388608TiB");  // 2^63 bytes
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(ParseByteSize("8388607TiB").ok());
}

TEST(ParseByteSizeTest, WholeNumbersAreExactUpToTheLargest) {
  EXPECT_EQ(Parsed("9223372036854775807"), INT64_MAX);  // 2^63-1
  EXPECT_EQ(Parsed("9007199254740993"), int64_t{9007199254740993});  // 2^53+1
  for (const char* text : {"9223372036854775808", "99999999999999999999999"}) {
    auto bytes = ParseByteSize(text);
    ASSERT_FALSE(bytes.ok()) << text;
    EXPECT_EQ(bytes.status().code(), absl::StatusCode::kOutOfRange) << text;
  }
}

TEST(ParseByteSizeTest, BlanksAroundAreIgnored) {
  EXPECT_EQ(Parsed(" 1K"), 1024);
  EXPECT_EQ(Parsed("1K "), 1024);
  EXPECT_EQ(Parsed("1 K"), 1024);
}

TEST(BytesToStringTest, BinaryUnitsFourDigits) {
  EXPECT_EQ(shape_util::BytesToString(0), "0 B");
  EXPECT_EQ(shape_util::BytesToString(1023), "1023 B");
  EXPECT_EQ(shape_util::BytesToString(16384), "16 KiB");
  EXPECT_EQ(shape_util::BytesToString(400000000), "381.5 MiB");
  EXPECT_EQ(shape_util::BytesToString(15032385536), "14 GiB");
}

}  // namespace
}  // namespace hloff
