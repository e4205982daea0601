// HO3013 OffloadInManualShardingRegion (docs/errors/HO3013.md).
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

constexpr absl::string_view kFullToShard = "SPMDFullToShardShape";
constexpr absl::string_view kShardToFull = "SPMDShardToFullShape";

// Notes, in an input with offload annotations, a move to host inside a
// manually partitioned region: the part of a computation between
// SPMDFullToShardShape and SPMDShardToFullShape custom calls (a shard_map
// body), named with the nearest collective. The offloading passes treat
// those custom calls as ordinary instructions and accept the module
// (xla/hlo/transforms/host_offloader.cc), but the backend then emits host
// transfers of per-device shards, often next to a collective, which
// backends have failed to compile. A region is what is reached from a
// FullToShard through users and reaches a ShardToFull through operands: the
// traversal collects both ends and the annotations, AfterModule walks.
class OffloadInManualShardingRegion : public LintChecker {
 public:
  // The region's ends and the annotations are custom calls.
  bool Visits(LintPhase, HloOpcode opcode) const override {
    return opcode == HloOpcode::kCustomCall;
  }

  void OnInstruction(const Instruction* instr, LintContext& context) override {
    if (instr->IsCustomCall(kFullToShard)) {
      entered_.emplace(instr, instr);
      forward_.push_back(instr);
    }
    if (instr->IsCustomCall(kShardToFull)) {
      exits_.emplace(instr, instr);
      backward_.push_back(instr);
    }
    if (IsToHostAnnotation(instr)) annotations_.push_back(instr);
  }

  void AfterModule(LintContext& context) override {
    if (!context.has_annotations()) return;
    if (forward_.empty() || backward_.empty() || annotations_.empty()) return;
    while (!forward_.empty()) {
      const Instruction* at = forward_.back();
      forward_.pop_back();
      if (at->IsCustomCall(kShardToFull)) continue;
      // A copy: emplace may rehash the map that at() points into.
      const Instruction* way_in = entered_.at(at);
      for (const Instruction* user : at->users()) {
        if (entered_.emplace(user, way_in).second) forward_.push_back(user);
      }
    }
    while (!backward_.empty()) {
      const Instruction* at = backward_.back();
      backward_.pop_back();
      if (at->IsCustomCall(kFullToShard)) continue;
      const Instruction* way_out = exits_.at(at);
      for (const Instruction* op : at->operands()) {
        if (exits_.emplace(op, way_out).second) backward_.push_back(op);
      }
    }
    auto in_region = [&](const Instruction* instr) {
      return entered_.contains(instr) && exits_.contains(instr) &&
             !instr->IsCustomCall(kFullToShard) &&
             !instr->IsCustomCall(kShardToFull);
    };
    for (const Instruction* annotation : annotations_) {
      if (!in_region(annotation)) continue;
      // The nearest collective of the region, looked for among a bounded
      // number of neighbours and edges (constant work per annotation).
      constexpr size_t kMaxNeighbours = 32;
      constexpr size_t kMaxEdges = 256;
      const Instruction* collective = nullptr;
      std::vector<const Instruction*> queue = {annotation};
      absl::flat_hash_set<const Instruction*> seen = {annotation};
      size_t edges = 0;
      auto done = [&] {
        return collective != nullptr || seen.size() >= kMaxNeighbours ||
               edges >= kMaxEdges;
      };
      auto visit = [&](const Instruction* other) {
        ++edges;
        if (!in_region(other) || !seen.insert(other).second) return;
        if (IsCollective(other->opcode())) collective = other;
        queue.push_back(other);
      };
      for (size_t next = 0; next < queue.size() && !done(); ++next) {
        const Instruction* at = queue[next];
        for (const Instruction* op : at->operands()) {
          if (done()) break;
          visit(op);
        }
        for (const Instruction* user : at->users()) {
          if (done()) break;
          visit(user);
        }
      }
      // The region's way in on the collective's side, when there is one.
      const Instruction* full_to_shard =
          entered_.at(collective != nullptr ? collective : annotation);
      const Instruction* shard_to_full = exits_.at(annotation);
      Diagnostic d = MakeDiagnostic(
          DiagCode::kHO3013,
          absl::StrCat(
              "offload annotation \"", annotation->input_name(), "\"",
              SourceSuffix(context.module(), annotation),
              " sits inside a manually partitioned region (between "
              "SPMDFullToShardShape \"", full_to_shard->input_name(),
              "\" and SPMDShardToFullShape \"", shard_to_full->input_name(),
              "\", a shard_map body)",
              collective != nullptr
                  ? absl::StrCat(" next to ", collective->opcode_spelling(),
                                 " \"", collective->input_name(), "\"")
                  : std::string(),
              ": check backend support; backends have failed to compile host "
              "transfers in this position"),
          annotation);
      d.fixes.push_back(Fix{
          "move-outside",
          "if the backend rejects it, place the device_put outside the "
          "shard_map (before SPMDFullToShardShape or after "
          "SPMDShardToFullShape), where the offload works on the full array"});
      context.out().push_back(std::move(d));
    }
  }

 private:
  // instruction -> a FullToShard it is reached from / a ShardToFull it
  // reaches (one of them; the same for the same module).
  absl::flat_hash_map<const Instruction*, const Instruction*> entered_, exits_;
  std::vector<const Instruction*> annotations_;
  std::vector<const Instruction*> forward_, backward_;
};

}  // namespace

std::unique_ptr<LintChecker> NewOffloadInManualShardingRegion() {
  return std::make_unique<OffloadInManualShardingRegion>();
}

}  // namespace hloff
