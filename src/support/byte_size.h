// Byte sizes as a command line spells them (`--pinned-host-budget=16GiB`).
#ifndef HLO_OFFLOAD_SUPPORT_BYTE_SIZE_H_
#define HLO_OFFLOAD_SUPPORT_BYTE_SIZE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// A number (decimals allowed, rounded down) with an optional unit,
// case-insensitive, blanks around ignored: B; K, KiB, M, MiB, G, GiB, T, TiB
// (powers of 1024); kB, MB, GB, TB (powers of 1000). "16GiB" is
// 17179869184. INVALID_ARGUMENT for anything else, OUT_OF_RANGE from 8 EiB
// (2^63 bytes) up.
absl::StatusOr<int64_t> ParseByteSize(absl::string_view text);

}  // namespace hloff

#endif  // HLO_OFFLOAD_SUPPORT_BYTE_SIZE_H_
