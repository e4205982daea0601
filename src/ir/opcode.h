// HLO opcodes: one enum generated from the X-macro list in opcodes.def, with the
// printed spelling of each. Mirrors xla/hlo/ir/hlo_opcode.h (HloOpcodeString,
// StringToHloOpcode).
#ifndef HLO_OFFLOAD_IR_OPCODE_H_
#define HLO_OFFLOAD_IR_OPCODE_H_

#include "absl/strings/string_view.h"
#include <cstdint>
#include <optional>
#include <string_view>

namespace hloff {

enum class HloOpcode : uint8_t {
#define X(name, spelling, historical) k##name,
#include "ir/opcodes.def"
#undef X
};

// The text spelling of `opcode`, e.g. "get-tuple-element".
absl::string_view HloOpcodeString(HloOpcode opcode);

// The opcode whose spelling is exactly `spelling`; nullopt when there is none.
// Async sugar (`reduce-scatter-start`) is not resolved here; see the parser.
std::optional<HloOpcode> StringToHloOpcode(absl::string_view spelling);

// True for the elementwise-free "pure memory" opcodes of
// host_offload_utils.cc IsValidDuringPureMemoryOffload (V5/V6 list: GTE,
// bitcast, tuple, call, while, conditional, parameter, opt-barrier,
// async-start, async-done, custom-call, send, recv, send-done, recv-done).
bool IsValidDuringPureMemoryOffload(HloOpcode opcode);

// True for the collectives that move data between devices (all-gather,
// all-reduce, all-to-all, ragged-all-to-all, reduce-scatter,
// collective-broadcast, collective-permute, and the -start forms of
// all-gather, all-reduce and collective-permute), as the HO3013 lint looks
// for them in a manually partitioned region.
bool IsCollective(HloOpcode opcode);

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_OPCODE_H_
