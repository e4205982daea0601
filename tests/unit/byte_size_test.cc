// shape_util::ByteSizeOf against hand-computed sizes: element types of every
// width (bf16, sub-byte s4/u4/f4/f6, pred), E(n), tiles with padding, tail
// padding, tuples, tokens and dynamic dimensions.
#include <gtest/gtest.h>

#include <string>

#include "ir/shape.h"
#include "text/parser.h"

namespace hloff {
namespace {

int64_t Bytes(const std::string& text) {
  auto shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status();
  if (!shape.ok()) return -1;
  return shape_util::ByteSizeOf(*shape);
}

TEST(ByteSizeTest, DenseArrays) {
  EXPECT_EQ(Bytes("f32[32,256]{1,0}"), 32 * 256 * 4);  // 32768
  EXPECT_EQ(Bytes("f32[]"), 4);
  EXPECT_EQ(Bytes("f64[3]"), 24);
  EXPECT_EQ(Bytes("c64[2]{0}"), 16);
  EXPECT_EQ(Bytes("c128[2]{0}"), 32);
  EXPECT_EQ(Bytes("s32[0,7]{1,0}"), 0);
}

TEST(ByteSizeTest, Bf16AndF16) {
  EXPECT_EQ(Bytes("bf16[3,5]{1,0}"), 30);
  EXPECT_EQ(Bytes("bf16[8192,4096]{1,0}"), 8192LL * 4096 * 2);  // 64 MiB
  EXPECT_EQ(Bytes("f16[7]{0}"), 14);
}

TEST(ByteSizeTest, PredIsOneBytePerElement) {
  EXPECT_EQ(Bytes("pred[10]{0}"), 10);
}

TEST(ByteSizeTest, SubByteTypesArePackedAndRoundedUpPerArray) {
  EXPECT_EQ(Bytes("s4[3]{0}"), 2);      // 12 bits
  EXPECT_EQ(Bytes("u4[7,3]{1,0}"), 11);  // 84 bits
  EXPECT_EQ(Bytes("s4[1024]{0}"), 512);
  EXPECT_EQ(Bytes("u4[]"), 1);           // 4 bits
  EXPECT_EQ(Bytes("s2[5]{0}"), 2);       // 10 bits
  EXPECT_EQ(Bytes("u1[9]{0}"), 2);       // 9 bits
  EXPECT_EQ(Bytes("f4e2m1fn[3]{0}"), 2);  // 12 bits
  EXPECT_EQ(Bytes("f6e2m3fn[4]{0}"), 3);  // 24 bits
  EXPECT_EQ(Bytes("f8e4m3fn[10]{0}"), 10);
}

TEST(ByteSizeTest, ElementSizeInLayoutOverridesTheType) {
  EXPECT_EQ(Bytes("s4[3]{0:E(4)}"), 2);
  EXPECT_EQ(Bytes("s4[4]{0:E(8)}"), 4);  // stored unpacked
  EXPECT_EQ(Bytes("pred[16]{0:E(1)}"), 2);
}

TEST(ByteSizeTest, TilesPadTheMinorDimensions) {
  // 100 -> 128 elements.
  EXPECT_EQ(Bytes("f32[100]{0:T(128)}"), 128 * 4);
  // minor_to_major {0,1}: dimension 0 (8) is minor and pads to 128,
  // dimension 1 (2) pads to 2: 256 elements.
  EXPECT_EQ(Bytes("f32[8,2]{0,1:T(2,128)}"), 256 * 4);
  // 16 -> 128 (minor), 16 -> 16, 2 stays: 4096 bf16 elements; the (2,1)
  // sub-tile adds nothing.
  EXPECT_EQ(Bytes("bf16[2,16,16]{2,1,0:T(8,128)(2,1)}"), 4096 * 2);
  // 3 rows -> 8, 5 columns -> 128.
  EXPECT_EQ(Bytes("f32[3,5]{1,0:T(8,128)}"), 8 * 128 * 4);
  // A tile of higher rank than the array pads the missing major dimension
  // (size 1) up to 8 as well: 8 x 128 elements.
  EXPECT_EQ(Bytes("f32[100]{0:T(8,128)}"), 8 * 128 * 4);
  // A scalar with a tile occupies a whole tile.
  EXPECT_EQ(Bytes("f32[]{:T(256)}"), 256 * 4);
  // Sub-byte elements in a tile: s4 [8,128] tile, 4 bits each.
  EXPECT_EQ(Bytes("s4[3,100]{1,0:T(8,128)(2,1)E(4)}"), 8 * 128 / 2);
  // The host memory space changes nothing.
  EXPECT_EQ(Bytes("f32[8,2]{0,1:T(2,128)S(5)}"), 256 * 4);
}

TEST(ByteSizeTest, TailPaddingRoundsTheTiledElementCount) {
  // 3 -> 4 by the tile, then up to a multiple of 8.
  EXPECT_EQ(Bytes("f32[3]{0:T(2)L(8)}"), 8 * 4);
  // Without tiles XLA ignores the tail padding.
  EXPECT_EQ(Bytes("f32[3]{0:L(8)}"), 3 * 4);
}

TEST(ByteSizeTest, TuplesAddTheirLeavesAndTokensAreZero) {
  EXPECT_EQ(Bytes("token[]"), 0);
  EXPECT_EQ(Bytes("()"), 0);
  EXPECT_EQ(Bytes("(f32[4]{0}, bf16[2]{0}, token[], s4[3]{0})"),
            16 + 4 + 0 + 2);
  // Each array is rounded up on its own: two s4[1] are 1 byte each.
  EXPECT_EQ(Bytes("(s4[1]{0}, s4[1]{0})"), 2);
  EXPECT_EQ(Bytes("((f32[2]{0}, (s8[3]{0})), u4[2]{0}, token[])"), 8 + 3 + 1);
}

TEST(ByteSizeTest, DynamicDimensionsCountAtTheirBound) {
  EXPECT_EQ(Bytes("f32[<=10]{0}"), 40);
  EXPECT_EQ(Bytes("f32[?,4]{1,0}"), 0);
}

}  // namespace
}  // namespace hloff
