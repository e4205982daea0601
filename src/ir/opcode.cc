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

namespace {

// An open-addressed table of the spellings, hashed on the length and three
// characters: one probe and one compare for most lookups (the parser does one
// per instruction).
class OpcodeTable {
 public:
  OpcodeTable() {
#define X(name, spelling, historical) Insert(spelling, HloOpcode::k##name);
#include "ir/opcodes.def"
#undef X
  }
  std::optional<HloOpcode> Find(absl::string_view spelling) const {
    if (spelling.empty()) return std::nullopt;
    for (size_t i = Hash(spelling);; i = (i + 1) & (kSize - 1)) {
      const Entry& e = entries_[i];
      if (e.spelling.empty()) return std::nullopt;
      if (e.spelling == spelling) return e.opcode;
    }
  }

 private:
  static constexpr size_t kSize = 1024;  // a power of two, > 4x the opcodes
  struct Entry {
    absl::string_view spelling;
    HloOpcode opcode = HloOpcode::kParameter;
  };
  static size_t Hash(absl::string_view s) {
    size_t n = s.size();
    auto c = [&](size_t i) { return static_cast<size_t>(static_cast<uint8_t>(s[i])); };
    return (n * 131 + c(0) * 31 + c(n - 1) * 17 + c(n / 2) * 7) & (kSize - 1);
  }
  void Insert(absl::string_view spelling, HloOpcode opcode) {
    size_t i = Hash(spelling);
    while (!entries_[i].spelling.empty()) i = (i + 1) & (kSize - 1);
    entries_[i] = Entry{spelling, opcode};
  }
  Entry entries_[kSize];
};

}  // namespace

std::optional<HloOpcode> StringToHloOpcode(absl::string_view spelling) {
  static const OpcodeTable* const kTable = new OpcodeTable();
  return kTable->Find(spelling);
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

bool IsCollective(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return true;
    default:
      return false;
  }
}

}  // namespace hloff
