// Opcode spellings and lookups generated from opcodes.def.
#include "ir/opcode.h"

#include <string>

#include "absl/container/flat_hash_map.h"

namespace hloff {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  switch (opcode) {
#define X(name, spelling, historical) \
  case HloOpcode::k##name:            \
    return spelling;
#include "ir/opcodes.def"
#undef X
  }
  return "unknown";
}

std::optional<HloOpcode> StringToHloOpcode(absl::string_view spelling) {
  static const auto* const kMap = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
#define X(name, spelling, historical) map->emplace(spelling, HloOpcode::k##name);
#include "ir/opcodes.def"
#undef X
    return map;
  }();
  auto it = kMap->find(spelling);
  if (it == kMap->end()) return std::nullopt;
  return it->second;
}

bool IsValidDuringPureMemoryOffload(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast:
    case HloOpcode::kTuple:
    case HloOpcode::kCall:
    case HloOpcode::kWhile:
    case HloOpcode::kConditional:
    case HloOpcode::kParameter:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kCustomCall:
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

}  // namespace hloff
