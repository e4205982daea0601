// algsimp's bitcast tests (XlaReshapeIsBitcast, XlaTransposeIsBitcast)
// against their definition: a reshape or transpose is a bitcast when every
// element stays at the same physical offset. Checked exhaustively over small
// shapes and every layout of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "passes/algebraic_simplifier.h"

namespace hloff {
namespace {

Shape MakeShape(std::vector<int64_t> dims, std::vector<int64_t> m2m) {
  Shape s;
  s.element_type = PrimitiveType::kF32;
  s.dimensions = std::move(dims);
  s.has_layout = true;
  s.layout.minor_to_major = std::move(m2m);
  return s;
}

// Physical offset of the element at row-major position `linear`.
int64_t Offset(const Shape& s, int64_t linear) {
  std::vector<int64_t> index(s.rank());
  for (int64_t d = s.rank() - 1; d >= 0; --d) {
    index[d] = linear % s.dimensions[d];
    linear /= s.dimensions[d];
  }
  int64_t offset = 0, scale = 1;
  for (int64_t d : s.layout.minor_to_major) {
    offset += index[d] * scale;
    scale *= s.dimensions[d];
  }
  return offset;
}

std::vector<std::vector<int64_t>> Layouts(int64_t rank) {
  std::vector<int64_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  std::vector<std::vector<int64_t>> out;
  do out.push_back(p); while (std::next_permutation(p.begin(), p.end()));
  return out;
}

TEST(BitcastTest, ReshapeMatchesTheDefinition) {
  // Shapes of 12 elements (with size-1 dimensions) in every layout.
  const std::vector<std::vector<int64_t>> dims = {
      {12}, {3, 4}, {4, 3}, {1, 12}, {2, 6}, {2, 2, 3}, {3, 1, 4}, {1, 3, 4}, {2, 3, 2}};
  int64_t bitcasts = 0, checked = 0;
  for (const auto& a : dims) {
    for (const auto& la : Layouts(a.size())) {
      for (const auto& b : dims) {
        for (const auto& lb : Layouts(b.size())) {
          Shape in = MakeShape(a, la), out = MakeShape(b, lb);
          bool same = true;
          for (int64_t i = 0; i < 12; ++i) same &= Offset(in, i) == Offset(out, i);
          EXPECT_EQ(XlaReshapeIsBitcast(in, out), same)
              << ShapeToString(in) << " -> " << ShapeToString(out);
          bitcasts += same;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(bitcasts, 0);
  EXPECT_GT(checked - bitcasts, 0);
}

TEST(BitcastTest, ElementTypeAndCountMatter) {
  Shape a = MakeShape({4}, {0}), b = MakeShape({1, 4}, {1, 0});
  EXPECT_TRUE(XlaReshapeIsBitcast(a, b));
  b.element_type = PrimitiveType::kS32;
  EXPECT_FALSE(XlaReshapeIsBitcast(a, b));
  EXPECT_FALSE(XlaReshapeIsBitcast(a, MakeShape({5}, {0})));
}

TEST(BitcastTest, TransposeMatchesTheDefinition) {
  const std::vector<int64_t> in_dims = {2, 3, 4};
  std::vector<int64_t> perm = {0, 1, 2};
  do {
    std::vector<int64_t> out_dims(3);
    for (int i = 0; i < 3; ++i) out_dims[i] = in_dims[perm[i]];
    for (const auto& li : Layouts(3)) {
      for (const auto& lo : Layouts(3)) {
        Shape in = MakeShape(in_dims, li), out = MakeShape(out_dims, lo);
        // Output element (j0,j1,j2) is input element with index[perm[i]] = j_i.
        bool same = true;
        for (int64_t j = 0; j < 24 && same; ++j) {
          std::vector<int64_t> oi(3);
          int64_t rest = j;
          for (int d = 2; d >= 0; --d) {
            oi[d] = rest % out_dims[d];
            rest /= out_dims[d];
          }
          std::vector<int64_t> ii(3);
          for (int d = 0; d < 3; ++d) ii[perm[d]] = oi[d];
          int64_t in_linear = (ii[0] * 3 + ii[1]) * 4 + ii[2];
          same = Offset(in, in_linear) == Offset(out, j);
        }
        EXPECT_EQ(XlaTransposeIsBitcast(in, out, perm), same)
            << ShapeToString(in) << " -> " << ShapeToString(out);
      }
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

}  // namespace
}  // namespace hloff
