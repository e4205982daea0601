// Byte sizes as a command line spells them.
#include "support/byte_size.h"

#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hloff {

absl::StatusOr<int64_t> ParseByteSize(absl::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", text, "' is not a byte size (a number with an optional unit: "
        "B, KiB, MiB, GiB, TiB, K, M, G, T (powers of 1024) or kB, MB, GB, "
        "TB (powers of 1000), e.g. 16GiB)"));
  };
  auto too_large = [&] {
    return absl::OutOfRangeError(absl::StrCat(
        "'", text, "' is larger than the largest byte size, 2^63-1 bytes (8 EiB)"));
  };
  absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  size_t end = 0;
  bool fraction = false;
  while (end < trimmed.size() &&
         (absl::ascii_isdigit(trimmed[end]) || trimmed[end] == '.')) {
    fraction |= trimmed[end] == '.';
    ++end;
  }
  absl::string_view number = trimmed.substr(0, end);
  absl::string_view unit = absl::StripAsciiWhitespace(trimmed.substr(end));
  if (number.empty()) return invalid();
  struct Unit {
    absl::string_view name;
    int64_t factor;
  };
  static constexpr Unit kUnits[] = {
      {"", 1},
      {"b", 1},
      {"k", int64_t{1} << 10},
      {"kib", int64_t{1} << 10},
      {"kb", 1000},
      {"m", int64_t{1} << 20},
      {"mib", int64_t{1} << 20},
      {"mb", 1000 * 1000},
      {"g", int64_t{1} << 30},
      {"gib", int64_t{1} << 30},
      {"gb", int64_t{1000} * 1000 * 1000},
      {"t", int64_t{1} << 40},
      {"tib", int64_t{1} << 40},
      {"tb", int64_t{1000} * 1000 * 1000 * 1000}};
  const Unit* found = nullptr;
  for (const Unit& u : kUnits) {
    if (absl::EqualsIgnoreCase(u.name, unit)) found = &u;
  }
  if (found == nullptr) return invalid();
  if (!fraction) {
    // Whole numbers exactly, up to 2^63-1 bytes.
    uint64_t value = 0;
    if (!absl::SimpleAtoi(number, &value)) {
      return number.size() > 18 ? too_large() : invalid();
    }
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) /
                    static_cast<uint64_t>(found->factor)) {
      return too_large();
    }
    return static_cast<int64_t>(value) * found->factor;
  }
  double value = 0;
  if (!absl::SimpleAtod(number, &value) || value < 0) return invalid();
  double bytes = value * static_cast<double>(found->factor);
  if (!(bytes < 0x1p63)) return too_large();
  return static_cast<int64_t>(bytes);  // rounded down
}

}  // namespace hloff
