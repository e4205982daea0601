// Shapes, layouts and shape indices of the HLO IR. Mirrors xla/shape.h,
// xla/layout.h and xla/shape_util.h in what the host-offloading passes and the
// printer need: element type, dimensions (static, bounded-dynamic `<=N`,
// unbounded `?`), a layout with minor_to_major, tiles, element size and memory
// space (`S(n)`), tuples and tokens.
#ifndef HLO_OFFLOAD_IR_SHAPE_H_
#define HLO_OFFLOAD_IR_SHAPE_H_

#include "absl/strings/string_view.h"
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"

namespace hloff {

// Element types, spelled as XLA prints them (xla/xla_data.proto PrimitiveType).
enum class PrimitiveType {
  kInvalid,
  kPred,
  kS1, kS2, kS4, kS8, kS16, kS32, kS64,
  kU1, kU2, kU4, kU8, kU16, kU32, kU64,
  kF16, kBF16, kF32, kF64,
  kF8E5M2, kF8E4M3, kF8E4M3FN, kF8E4M3B11FNUZ, kF8E3M4, kF8E5M2FNUZ, kF8E4M3FNUZ,
  kF8E8M0FNU, kF6E3M2FN, kF6E2M3FN, kF4E2M1FN,
  kC64, kC128,
  kToken, kOpaque, kTuple,
};

// The printed name of `type` ("f32", "token", ...).
absl::string_view PrimitiveTypeName(PrimitiveType type);
// The element type spelled `name`; nullopt if `name` is not an element type.
// "tuple" is not accepted (tuples are written with parentheses).
std::optional<PrimitiveType> ParsePrimitiveType(absl::string_view name);
// Size of one element in bits (1 for pred is 8, as XLA stores it); 0 for
// token, opaque and tuple.
int64_t PrimitiveTypeBitWidth(PrimitiveType type);
// Signed or unsigned integer of 8 to 64 bits (xla::primitive_util::IsIntegralType,
// less the sub-byte types, which no index uses).
bool IsIntegralType(PrimitiveType type);

// Memory space numbers (xla/layout.h).
inline constexpr int64_t kDefaultMemorySpace = 0;
inline constexpr int64_t kHostMemorySpace = 5;
// Unpinned host memory (jax memory_kind "unpinned_host"); HostOffloader
// treats only kHostMemorySpace as host memory.
inline constexpr int64_t kUnpinnedHostMemorySpace = 6;

// One tile of a tiled layout, `T(8,128)`; a dimension of -1 prints as `*`.
struct Tile {
  std::vector<int64_t> dimensions;
  bool operator==(const Tile&) const = default;
};

// An array layout: `{minor_to_major:tail}`. Rarely used tail items (dim level
// types, index/pointer types, split configs, physical shape) are kept as their
// printed text so that printing loses nothing.
struct Layout {
  std::vector<int64_t> minor_to_major;
  std::string dim_level_types;  // contents of D(...), without "D(" and ")"
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment = 0;  // L(n); 0 = absent
  std::string index_primitive_type;    // contents of #(...)
  std::string pointer_primitive_type;  // contents of *(...)
  int64_t element_size_in_bits = 0;    // E(n); 0 = absent
  int64_t memory_space = kDefaultMemorySpace;
  std::string split_configs;   // the text after "SC", e.g. "(0:3)(1:2)"
  std::string physical_shape;  // contents of P(...)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;  // M(n)

  bool operator==(const Layout&) const = default;
  // True when anything but minor_to_major and the memory space is set: the
  // "customized" layouts for which XLA V4's entry-layout auto-fix refuses to
  // act (tiles, index or pointer type, element size).
  bool HasCustomization() const;
  // True when the layout has no tail at all (prints as `{1,0}`).
  bool HasNoTail() const;
};

// A shape: an array (element type, dimensions, optional layout), a tuple of
// shapes, a token or an opaque value.
struct Shape {
  PrimitiveType element_type = PrimitiveType::kInvalid;
  std::vector<int64_t> dimensions;      // -1 for an unbounded dynamic `?`
  std::vector<bool> dynamic_dimensions;  // `<=N`/`?`; empty when all static
  bool has_layout = false;
  Layout layout;
  std::vector<Shape> tuple_shapes;

  bool operator==(const Shape&) const = default;

  bool IsTuple() const { return element_type == PrimitiveType::kTuple; }
  bool IsToken() const { return element_type == PrimitiveType::kToken; }
  bool IsOpaque() const { return element_type == PrimitiveType::kOpaque; }
  bool IsArray() const { return !IsTuple() && !IsToken() && !IsOpaque(); }
  int64_t rank() const { return static_cast<int64_t>(dimensions.size()); }
  bool IsDynamicDimension(int64_t d) const {
    return !dynamic_dimensions.empty() && dynamic_dimensions[d];
  }
  // Number of elements of an array shape (product of dimensions; bounds for
  // dynamic ones). Saturates at INT64_MAX.
  int64_t ElementCount() const;
  // Memory space of an array shape with a layout; 0 otherwise.
  int64_t memory_space() const {
    return IsArray() && has_layout ? layout.memory_space : kDefaultMemorySpace;
  }
};

// A path into a tuple shape, `{1,0}`. Mirrors xla::ShapeIndex.
using ShapeIndex = absl::InlinedVector<int64_t, 2>;

// `{}`, `{1}`, `{1,0}`.
std::string ShapeIndexToString(const ShapeIndex& index);

// Helpers in the spirit of xla::ShapeUtil.
namespace shape_util {
// The subshape at `index`, or nullptr when `index` does not exist in `shape`.
const Shape* TryGetSubshape(const Shape& shape, const ShapeIndex& index);
Shape* TryGetMutableSubshape(Shape& shape, const ShapeIndex& index);
// Calls `fn(subshape, index)` for every subshape in pre-order.
template <typename Fn>
void ForEachSubshape(const Shape& shape, Fn&& fn, ShapeIndex& index) {
  fn(shape, index);
  for (size_t i = 0; i < shape.tuple_shapes.size(); ++i) {
    index.push_back(static_cast<int64_t>(i));
    ForEachSubshape(shape.tuple_shapes[i], fn, index);
    index.pop_back();
  }
}
template <typename Fn>
void ForEachMutableSubshape(Shape& shape, Fn&& fn, ShapeIndex& index) {
  fn(shape, index);
  for (size_t i = 0; i < shape.tuple_shapes.size(); ++i) {
    index.push_back(static_cast<int64_t>(i));
    ForEachMutableSubshape(shape.tuple_shapes[i], fn, index);
    index.pop_back();
  }
}
// Sets the memory space of every array leaf of `shape` (tokens and opaque
// values are skipped), as V5+ HostOffloader::SetMemorySpace does. Returns
// true if any leaf changed.
bool SetMemorySpaceOfLeaves(Shape& shape, int64_t memory_space);
// True when the subshape of `shape` at `index` has at least one array leaf
// and all its array leaves are in `memory_space` (tokens are ignored).
bool AllArrayLeavesInMemorySpace(const Shape& shape, const ShapeIndex& index,
                                 int64_t memory_space);
// True when at least one array leaf of `shape` is in `memory_space`.
bool AnyArrayLeafInMemorySpace(const Shape& shape, int64_t memory_space);
// A memory space number in words, for messages: "device memory" (0), "host
// memory (S(5))", "unpinned host memory (S(6)), which HostOffloader does not
// count as host memory", else "memory space S(n)".
std::string MemorySpaceName(int64_t memory_space);
// The memory space of the array leaves of `shape` in words, for messages:
// "device memory", "host memory (S(5))", "unpinned host memory (S(6)), which
// HostOffloader does not count as host memory", "memory space S(n)", or
// "memory spaces S(a), S(b)" when the leaves differ.
std::string DescribeMemorySpace(const Shape& shape);
// Equal ignoring layouts (xla::ShapeUtil::Compatible).
bool Compatible(const Shape& a, const Shape& b);
// Equal including layouts but ignoring the memory space.
bool EqualIgnoringMemorySpace(const Shape& a, const Shape& b);
// Sets the default (descending) layout on every array leaf without a layout.
void SetDefaultLayoutsWhereMissing(Shape& shape);
// Number of array dimensions whose size is not 1.
int64_t TrueRank(const Shape& shape);
// True when a reshape from `input` to `output` is a bitcast: both have the same
// element type and the same physical element order (xla::ShapeUtil::
// ReshapeIsBitcast for layouts without tiles).
bool ReshapeIsBitcast(const Shape& input, const Shape& output);
// Size in bytes of `shape` as it is stored (xla::ShapeUtil::ByteSizeOf with
// xla::ShapeUtil::ArraySize for arrays): elements x element size in bits / 8,
// rounded up once per array, so sub-byte types (s4, u4, f4e2m1fn, ...) are
// packed; `E(n)` in the layout overrides the element size. The first tile of
// a tiled layout pads the minor-most physical dimensions up to multiples of
// its sizes (a tile of higher rank than the array pads the missing major
// dimensions too), then `L(n)` pads the element count. Bounded dynamic
// dimensions count at their bound, unbounded ones as 0. Tuples add up their
// leaves; tokens and opaque values are 0. Saturates at INT64_MAX / 8 for an
// array (the parser refuses those) and at INT64_MAX for a tuple.
int64_t ByteSizeOf(const Shape& shape);
// Size in bits of an array shape (elements, padded by the first tile, times
// the element size), or nullopt when it does not fit in int64_t. 0 for
// tuples, tokens and opaque values.
std::optional<int64_t> ArrayBitSize(const Shape& shape);
// a + b for non-negative counts, saturating at INT64_MAX.
int64_t SaturatingAdd(int64_t a, int64_t b);
// A byte count for messages: "512 B", "16 KiB", "14 GiB", "381.5 MiB" (four
// significant digits, binary units).
std::string BytesToString(int64_t bytes);
}  // namespace shape_util

// Printing, in XLA's canonical form.
// `f32[8,2]{1,0:T(8,128)S(5)}`; with print_layout=false `f32[8,2]`.
void AppendShape(std::string& out, const Shape& shape, bool print_layout = true);
std::string ShapeToString(const Shape& shape, bool print_layout = true);
void AppendLayout(std::string& out, const Layout& layout);

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_SHAPE_H_
