// Shapes and layouts: names, helpers and the canonical printer.
#include "ir/shape.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace hloff {
namespace {

struct TypeInfo {
  PrimitiveType type;
  absl::string_view name;
  int64_t bits;
};

constexpr TypeInfo kTypes[] = {
    {PrimitiveType::kPred, "pred", 8},
    {PrimitiveType::kS1, "s1", 1},
    {PrimitiveType::kS2, "s2", 2},
    {PrimitiveType::kS4, "s4", 4},
    {PrimitiveType::kS8, "s8", 8},
    {PrimitiveType::kS16, "s16", 16},
    {PrimitiveType::kS32, "s32", 32},
    {PrimitiveType::kS64, "s64", 64},
    {PrimitiveType::kU1, "u1", 1},
    {PrimitiveType::kU2, "u2", 2},
    {PrimitiveType::kU4, "u4", 4},
    {PrimitiveType::kU8, "u8", 8},
    {PrimitiveType::kU16, "u16", 16},
    {PrimitiveType::kU32, "u32", 32},
    {PrimitiveType::kU64, "u64", 64},
    {PrimitiveType::kF16, "f16", 16},
    {PrimitiveType::kBF16, "bf16", 16},
    {PrimitiveType::kF32, "f32", 32},
    {PrimitiveType::kF64, "f64", 64},
    {PrimitiveType::kF8E5M2, "f8e5m2", 8},
    {PrimitiveType::kF8E4M3, "f8e4m3", 8},
    {PrimitiveType::kF8E4M3FN, "f8e4m3fn", 8},
    {PrimitiveType::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {PrimitiveType::kF8E3M4, "f8e3m4", 8},
    {PrimitiveType::kF8E5M2FNUZ, "f8e5m2fnuz", 8},
    {PrimitiveType::kF8E4M3FNUZ, "f8e4m3fnuz", 8},
    {PrimitiveType::kF8E8M0FNU, "f8e8m0fnu", 8},
    {PrimitiveType::kF6E3M2FN, "f6e3m2fn", 6},
    {PrimitiveType::kF6E2M3FN, "f6e2m3fn", 6},
    {PrimitiveType::kF4E2M1FN, "f4e2m1fn", 4},
    {PrimitiveType::kC64, "c64", 64},
    {PrimitiveType::kC128, "c128", 128},
    {PrimitiveType::kToken, "token", 0},
    {PrimitiveType::kOpaque, "opaque", 0},
};

const TypeInfo* FindType(PrimitiveType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<int64_t>::max() / b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a * b;
}

// `value` rounded up to a multiple of `multiple`; unchanged when `multiple`
// is not positive. Saturates at INT64_MAX.
int64_t RoundUp(int64_t value, int64_t multiple) {
  if (multiple <= 1) return value;
  int64_t remainder = value % multiple;
  if (remainder == 0) return value;
  if (value > std::numeric_limits<int64_t>::max() - (multiple - remainder)) {
    return std::numeric_limits<int64_t>::max();
  }
  return value + (multiple - remainder);
}

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType type) {
  if (type == PrimitiveType::kTuple) return "tuple";
  const TypeInfo* info = FindType(type);
  return info ? info->name : "invalid";
}

std::optional<PrimitiveType> ParsePrimitiveType(absl::string_view name) {
  static const auto* const kMap = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, PrimitiveType>();
    for (const TypeInfo& info : kTypes) map->emplace(info.name, info.type);
    return map;
  }();
  auto it = kMap->find(name);
  if (it == kMap->end()) return std::nullopt;
  return it->second;
}

bool IsIntegralType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kS8: case PrimitiveType::kS16: case PrimitiveType::kS32:
    case PrimitiveType::kS64: case PrimitiveType::kU8: case PrimitiveType::kU16:
    case PrimitiveType::kU32: case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

int64_t PrimitiveTypeBitWidth(PrimitiveType type) {
  const TypeInfo* info = FindType(type);
  return info ? info->bits : 0;
}

bool Layout::HasCustomization() const {
  return !tiles.empty() || !index_primitive_type.empty() ||
         !pointer_primitive_type.empty() || element_size_in_bits != 0;
}

bool Layout::HasNoTail() const {
  return dim_level_types.empty() && tiles.empty() &&
         tail_padding_alignment == 0 && index_primitive_type.empty() &&
         pointer_primitive_type.empty() && element_size_in_bits == 0 &&
         memory_space == kDefaultMemorySpace && split_configs.empty() &&
         physical_shape.empty() && dynamic_shape_metadata_prefix_bytes == 0;
}

int64_t Shape::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : dimensions) count = SaturatingMul(count, d < 0 ? 0 : d);
  return count;
}

std::string ShapeIndexToString(const ShapeIndex& index) {
  std::string out = "{";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) out += ",";
    absl::StrAppend(&out, index[i]);
  }
  out += "}";
  return out;
}

namespace shape_util {

const Shape* TryGetSubshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* current = &shape;
  for (int64_t i : index) {
    if (!current->IsTuple() || i < 0 ||
        i >= static_cast<int64_t>(current->tuple_shapes.size())) {
      return nullptr;
    }
    current = &current->tuple_shapes[i];
  }
  return current;
}

Shape* TryGetMutableSubshape(Shape& shape, const ShapeIndex& index) {
  return const_cast<Shape*>(TryGetSubshape(shape, index));
}

bool SetMemorySpaceOfLeaves(Shape& shape, int64_t memory_space) {
  bool changed = false;
  ShapeIndex index;
  ForEachMutableSubshape(
      shape,
      [&](Shape& sub, const ShapeIndex&) {
        if (!sub.IsArray()) return;
        if (!sub.has_layout) {
          SetDefaultLayoutsWhereMissing(sub);
        }
        if (sub.layout.memory_space != memory_space) {
          sub.layout.memory_space = memory_space;
          changed = true;
        }
      },
      index);
  return changed;
}

bool AllArrayLeavesInMemorySpace(const Shape& shape, const ShapeIndex& index,
                                 int64_t memory_space) {
  const Shape* sub = TryGetSubshape(shape, index);
  if (sub == nullptr) return false;
  bool any = false, all = true;
  ShapeIndex scratch;
  ForEachSubshape(
      *sub,
      [&](const Shape& leaf, const ShapeIndex&) {
        if (!leaf.IsArray()) return;
        any = true;
        all &= leaf.memory_space() == memory_space;
      },
      scratch);
  return any && all;
}

bool AnyArrayLeafInMemorySpace(const Shape& shape, int64_t memory_space) {
  bool any = false;
  ShapeIndex scratch;
  ForEachSubshape(
      shape,
      [&](const Shape& leaf, const ShapeIndex&) {
        any |= leaf.IsArray() && leaf.memory_space() == memory_space;
      },
      scratch);
  return any;
}

std::string DescribeMemorySpace(const Shape& shape) {
  std::vector<int64_t> spaces;
  ShapeIndex scratch;
  ForEachSubshape(
      shape,
      [&](const Shape& leaf, const ShapeIndex&) {
        if (!leaf.IsArray()) return;
        int64_t space = leaf.memory_space();
        if (std::find(spaces.begin(), spaces.end(), space) == spaces.end()) {
          spaces.push_back(space);
        }
      },
      scratch);
  if (spaces.size() > 1) {
    std::sort(spaces.begin(), spaces.end());
    std::string out = "memory spaces ";
    for (size_t i = 0; i < spaces.size(); ++i) {
      absl::StrAppend(&out, i ? ", " : "", "S(", spaces[i], ")");
    }
    return out;
  }
  return MemorySpaceName(spaces.empty() ? kDefaultMemorySpace : spaces.front());
}

std::string MemorySpaceName(int64_t space) {
  switch (space) {
    case kDefaultMemorySpace:
      return "device memory";
    case kHostMemorySpace:
      return "host memory (S(5))";
    case kUnpinnedHostMemorySpace:
      return "unpinned host memory (S(6)), which HostOffloader does not count "
             "as host memory";
    default:
      return absl::StrCat("memory space S(", space, ")");
  }
}

bool Compatible(const Shape& a, const Shape& b) {
  if (a.element_type != b.element_type) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes.size() != b.tuple_shapes.size()) return false;
    for (size_t i = 0; i < a.tuple_shapes.size(); ++i) {
      if (!Compatible(a.tuple_shapes[i], b.tuple_shapes[i])) return false;
    }
    return true;
  }
  return a.dimensions == b.dimensions;
}

bool EqualIgnoringMemorySpace(const Shape& a, const Shape& b) {
  if (a.element_type != b.element_type) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes.size() != b.tuple_shapes.size()) return false;
    for (size_t i = 0; i < a.tuple_shapes.size(); ++i) {
      if (!EqualIgnoringMemorySpace(a.tuple_shapes[i], b.tuple_shapes[i])) {
        return false;
      }
    }
    return true;
  }
  if (a.dimensions != b.dimensions) return false;
  if (a.dynamic_dimensions != b.dynamic_dimensions) return false;
  if (a.has_layout != b.has_layout) return false;
  if (!a.has_layout) return true;
  Layout la = a.layout, lb = b.layout;
  la.memory_space = lb.memory_space = 0;
  return la == lb;
}

void SetDefaultLayoutsWhereMissing(Shape& shape) {
  if (shape.IsTuple()) {
    for (Shape& sub : shape.tuple_shapes) SetDefaultLayoutsWhereMissing(sub);
    return;
  }
  if (!shape.IsArray() || shape.has_layout) return;
  shape.has_layout = true;
  shape.layout = Layout();
  for (int64_t i = shape.rank() - 1; i >= 0; --i) {
    shape.layout.minor_to_major.push_back(i);
  }
}

int64_t TrueRank(const Shape& shape) {
  int64_t rank = 0;
  for (int64_t d : shape.dimensions) rank += d != 1;
  return rank;
}

namespace {
// True when the layout, ignoring size-1 dimensions, is row-major.
bool IsEffectivelyRowMajor(const Shape& shape) {
  if (!shape.has_layout) return true;
  int64_t previous = std::numeric_limits<int64_t>::max();
  // minor_to_major lists dimensions from minor to major; for row-major the
  // non-degenerate dimension numbers increase from major to minor, so they
  // decrease along minor_to_major.
  for (int64_t dim : shape.layout.minor_to_major) {
    if (dim < 0 || dim >= shape.rank()) return false;
    if (shape.dimensions[dim] == 1) continue;
    if (dim > previous) return false;
    previous = dim;
  }
  return true;
}
}  // namespace

bool ReshapeIsBitcast(const Shape& input, const Shape& output) {
  if (!input.IsArray() || !output.IsArray()) return false;
  if (input.element_type != output.element_type) return false;
  if (input.ElementCount() != output.ElementCount()) return false;
  if (input.has_layout && output.has_layout &&
      (!input.layout.tiles.empty() || !output.layout.tiles.empty()) &&
      input.layout.tiles != output.layout.tiles) {
    return false;
  }
  if (input == output) return true;
  return IsEffectivelyRowMajor(input) && IsEffectivelyRowMajor(output);
}

std::optional<int64_t> ArrayBitSize(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  int64_t bits = shape.has_layout && shape.layout.element_size_in_bits > 0
                     ? shape.layout.element_size_in_bits
                     : PrimitiveTypeBitWidth(shape.element_type);
  const int64_t rank = shape.rank();
  auto dim_size = [&](int64_t d) {
    return shape.dimensions[d] < 0 ? int64_t{0} : shape.dimensions[d];
  };
  // An empty array is empty whatever its other dimensions.
  for (int64_t d = 0; d < rank; ++d) {
    if (dim_size(d) == 0) return 0;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t elements = 1;
  const Layout& layout = shape.layout;
  if (shape.has_layout && !layout.tiles.empty() &&
      static_cast<int64_t>(layout.minor_to_major.size()) == rank) {
    // xla::ShapeUtil::ArraySize: the first tile pads the minor-most
    // dimensions (in physical order) up to multiples of its sizes; a tile of
    // higher rank than the shape pads the missing major dimensions (size 1)
    // too. Sub-tiles add no padding. A combined (`*`) tile dimension pads
    // nothing.
    const std::vector<int64_t>& tile = layout.tiles.front().dimensions;
    const int64_t tile_rank = static_cast<int64_t>(tile.size());
    for (int64_t t = 0; t < std::max(rank, tile_rank); ++t) {
      int64_t size = t < rank ? dim_size(layout.minor_to_major[t]) : 1;
      if (t < tile_rank) size = RoundUp(size, tile[tile_rank - 1 - t]);
      if (size == kMax) return std::nullopt;
      if (__builtin_mul_overflow(elements, size, &elements)) return std::nullopt;
    }
    // The tail padding only applies to tiled layouts, as in XLA.
    if (layout.tail_padding_alignment > 1) {
      elements = RoundUp(elements, layout.tail_padding_alignment);
      if (elements == kMax) return std::nullopt;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) {
      if (__builtin_mul_overflow(elements, dim_size(d), &elements)) {
        return std::nullopt;
      }
    }
  }
  int64_t total = 0;
  if (__builtin_mul_overflow(elements, bits, &total)) return std::nullopt;
  return total;
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  if (a > std::numeric_limits<int64_t>::max() - b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a + b;
}

std::string BytesToString(int64_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return absl::StrCat(bytes, " B");
  return absl::StrFormat("%.4g %s", value, kUnits[unit]);
}

int64_t ByteSizeOf(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& sub : shape.tuple_shapes) {
      int64_t size = ByteSizeOf(sub);
      if (total > std::numeric_limits<int64_t>::max() - size) {
        return std::numeric_limits<int64_t>::max();
      }
      total += size;
    }
    return total;
  }
  std::optional<int64_t> bits = ArrayBitSize(shape);
  if (!bits.has_value()) return std::numeric_limits<int64_t>::max() / 8;
  return *bits / 8 + (*bits % 8 != 0);
}

}  // namespace shape_util

void AppendLayout(std::string& out, const Layout& layout) {
  out += '{';
  for (size_t i = 0; i < layout.minor_to_major.size(); ++i) {
    if (i) out += ',';
    absl::StrAppend(&out, layout.minor_to_major[i]);
  }
  if (!layout.HasNoTail()) {
    out += ':';
    if (!layout.dim_level_types.empty()) {
      absl::StrAppend(&out, "D(", layout.dim_level_types, ")");
    }
    if (!layout.tiles.empty()) {
      out += 'T';
      for (const Tile& tile : layout.tiles) {
        out += '(';
        for (size_t i = 0; i < tile.dimensions.size(); ++i) {
          if (i) out += ',';
          if (tile.dimensions[i] < 0) {
            out += '*';
          } else {
            absl::StrAppend(&out, tile.dimensions[i]);
          }
        }
        out += ')';
      }
    }
    if (layout.tail_padding_alignment != 0) {
      absl::StrAppend(&out, "L(", layout.tail_padding_alignment, ")");
    }
    if (!layout.index_primitive_type.empty()) {
      absl::StrAppend(&out, "#(", layout.index_primitive_type, ")");
    }
    if (!layout.pointer_primitive_type.empty()) {
      absl::StrAppend(&out, "*(", layout.pointer_primitive_type, ")");
    }
    if (layout.element_size_in_bits != 0) {
      absl::StrAppend(&out, "E(", layout.element_size_in_bits, ")");
    }
    if (layout.memory_space != kDefaultMemorySpace) {
      absl::StrAppend(&out, "S(", layout.memory_space, ")");
    }
    if (!layout.split_configs.empty()) {
      absl::StrAppend(&out, "SC", layout.split_configs);
    }
    if (!layout.physical_shape.empty()) {
      absl::StrAppend(&out, "P(", layout.physical_shape, ")");
    }
    if (layout.dynamic_shape_metadata_prefix_bytes != 0) {
      absl::StrAppend(&out, "M(", layout.dynamic_shape_metadata_prefix_bytes,
                      ")");
    }
  }
  out += '}';
}

void AppendShape(std::string& out, const Shape& shape, bool print_layout) {
  if (shape.IsTuple()) {
    out += '(';
    for (size_t i = 0; i < shape.tuple_shapes.size(); ++i) {
      if (i) out += ", ";
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      AppendShape(out, shape.tuple_shapes[i], print_layout);
    }
    out += ')';
    return;
  }
  absl::StrAppend(&out, PrimitiveTypeName(shape.element_type));
  out += '[';
  for (size_t i = 0; i < shape.dimensions.size(); ++i) {
    if (i) out += ',';
    if (shape.IsDynamicDimension(i)) {
      if (shape.dimensions[i] < 0) {
        out += '?';
        continue;
      }
      out += "<=";
    }
    absl::StrAppend(&out, shape.dimensions[i]);
  }
  out += ']';
  if (!print_layout || !shape.IsArray() || !shape.has_layout) return;
  // A scalar with a default layout prints no braces.
  if (shape.dimensions.empty() && shape.layout.HasNoTail()) return;
  AppendLayout(out, shape.layout);
}

std::string ShapeToString(const Shape& shape, bool print_layout) {
  std::string out;
  AppendShape(out, shape, print_layout);
  return out;
}

}  // namespace hloff
