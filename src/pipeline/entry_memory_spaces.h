// The memory kinds of a JAX program, written into the entry computation
// layout of the HLO module converted from it, as PJRT applies them before
// XLA compiles (xla/pjrt/utils.cc, LayoutModesToXlaShapes): what the Python
// front end asks for a StableHLO module that jaxlib converted without them.
// The layout's shapes are read by the HLO parser (text/parser.h ParseShape)
// and written by the shape printer (ir/shape.h), so that the layout's
// grammar lives in one place.
#ifndef HLO_OFFLOAD_PIPELINE_ENTRY_MEMORY_SPACES_H_
#define HLO_OFFLOAD_PIPELINE_ENTRY_MEMORY_SPACES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// `hlo_text` with memory space input_spaces[i] on entry parameter i (element
// i of parameter 0 when `tuple_args`) and output_spaces[i] on entry output i
// (element i of the result tuple, else the result itself) in the
// `entry_computation_layout` of its `HloModule` line; only that line changes.
// An array without a layout gets the default one (dimensions major to minor)
// when it needs a memory space; space 0 removes one; tokens are left alone.
// A shape whose memory space does not change keeps its text, and the
// printer's `/*index=N*/` comments go. INVALID_ARGUMENT when the text is not
// an HLO module, its header has no entry computation layout, the counts do
// not match (LayoutModesToXlaShapes' "mismatched number of arguments"), or a
// host memory space is asked for a value that is not an array.
absl::StatusOr<std::string> SetEntryMemorySpaces(
    absl::string_view hlo_text, const std::vector<int64_t>& input_spaces,
    const std::vector<int64_t>& output_spaces, bool tuple_args);

// The `entry_computation_layout` of `hlo_text`'s `HloModule` line, braces
// included (`{(f32[4]{0:S(5)})->f32[4]{0}}`), as it is written;
// INVALID_ARGUMENT as SetEntryMemorySpaces when there is none.
absl::StatusOr<std::string> EntryLayoutText(absl::string_view hlo_text);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PIPELINE_ENTRY_MEMORY_SPACES_H_
