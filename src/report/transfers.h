// Host<->device transfers in a module after the host-offloading pipeline,
// attributed to the while loops they run in, with the loops' constant trip
// counts.
#ifndef HLO_OFFLOAD_REPORT_TRANSFERS_H_
#define HLO_OFFLOAD_REPORT_TRANSFERS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "ir/hlo.h"
#include "report/report.h"

namespace hloff {

// The trip count of while loop `while_loop` when it is a compile-time
// constant: the `known_trip_count` of its backend_config, or a condition
// `compare(get-tuple-element(param, k), constant)` (LT, LE, GT, GE, NE, either
// operand order) with a constant initial value of element k and a body that
// adds a constant to it. nullopt otherwise.
std::optional<int64_t> ConstantTripCount(const Instruction& while_loop);

// Fills report.transfers, report.loops and the copies_inserted counts from
// `module` after the pipeline: copies between memory spaces (inserted when
// their name is not in `input_copies`, the copies of the input), dynamic-slices
// from host to device memory and dynamic-update-slices from device data into
// host memory, each in the innermost while loop it runs in.
void CollectTransfers(const Module& module,
                      const absl::flat_hash_set<std::string>& input_copies,
                      Report& report);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_TRANSFERS_H_
