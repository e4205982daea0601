// Host-offloading lints (HO3xxx): patterns XLA's passes accept silently,
// each with a page under docs/errors/.
#include "passes/offload_lints.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "analysis/pipelined_writes.h"

namespace hloff {
namespace {

std::string Bytes(int64_t bytes) { return shape_util::BytesToString(bytes); }

// " (file.py:12)" from an instruction's metadata, or "".
std::string SourceSuffix(const Module& module, const Instruction* instr) {
  auto pos = module.ResolveSource(instr->metadata());
  if (!pos || pos->file.empty()) return "";
  std::string file = pos->file;
  size_t slash = file.rfind('/');
  if (slash != std::string::npos) file = file.substr(slash + 1);
  return absl::StrCat(" (", file, ":", pos->line, ")");
}

bool HasHostLeaf(const Shape& shape) {
  return shape_util::AnyArrayLeafInMemorySpace(shape, kHostMemorySpace);
}

bool IsToHostAnnotation(const Instruction* instr) {
  if (IsMoveToHost(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && (*kind == "pinned_host" || *kind == "unpinned_host");
}

bool IsToDeviceAnnotation(const Instruction* instr) {
  if (IsMoveToDevice(instr)) return true;
  if (!instr->IsCustomCall(kDevicePlacementTarget)) return false;
  auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
  return kind && *kind == "device";
}

Diagnostic Lint(DiagCode code, std::string message, const Instruction* instr) {
  Diagnostic d = MakeDiagnostic(code, std::move(message), instr);
  return d;
}

std::string Key(const Instruction* instr) {
  return absl::StrCat(instr->parent()->name(), "/", instr->name());
}

// Follows single-user bitcast/copy/bitcast-reshape hops down from `instr`;
// returns the last hop (or `instr`).
const Instruction* SkipHopsDown(const Instruction* instr) {
  while (instr->user_count() == 1) {
    const Instruction* user = instr->users()[0];
    bool hop = user->opcode() == HloOpcode::kBitcast ||
               (user->opcode() == HloOpcode::kReshape &&
                shape_util::ReshapeIsBitcast(instr->shape(), user->shape()));
    if (!hop) break;
    instr = user;
  }
  return instr;
}

// Single-operand hops a value passes through unchanged: bitcast, a bitcast
// reshape, copy.
bool IsCopyOrBitcastHop(const Instruction* instr) {
  if (instr->operand_count() != 1) return false;
  return instr->opcode() == HloOpcode::kBitcast ||
         instr->opcode() == HloOpcode::kCopy ||
         (instr->opcode() == HloOpcode::kReshape &&
          shape_util::ReshapeIsBitcast(instr->operand(0)->shape(),
                                       instr->shape()));
}

using shape_util::MemorySpaceName;

// HO3013: offload annotations inside a manually partitioned region, the part
// of a computation between SPMDFullToShardShape and SPMDShardToFullShape
// custom calls (a shard_map body). A region is what is reached from a
// FullToShard through users and reaches a ShardToFull through operands: two
// passes over the module.
void LintManualRegions(const Module& module, std::vector<Diagnostic>& out) {
  constexpr absl::string_view kFullToShard = "SPMDFullToShardShape";
  constexpr absl::string_view kShardToFull = "SPMDShardToFullShape";
  // instruction -> a FullToShard it is reached from / a ShardToFull it
  // reaches (one of them; the same for the same module).
  absl::flat_hash_map<const Instruction*, const Instruction*> entered, exits;
  std::vector<const Instruction*> annotations;
  std::vector<const Instruction*> forward, backward;
  for (const auto& comp : module.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      if (instr->IsCustomCall(kFullToShard)) {
        entered.emplace(instr, instr);
        forward.push_back(instr);
      }
      if (instr->IsCustomCall(kShardToFull)) {
        exits.emplace(instr, instr);
        backward.push_back(instr);
      }
      if (IsToHostAnnotation(instr)) annotations.push_back(instr);
    }
  }
  if (forward.empty() || backward.empty() || annotations.empty()) return;
  while (!forward.empty()) {
    const Instruction* at = forward.back();
    forward.pop_back();
    if (at->IsCustomCall(kShardToFull)) continue;
    // A copy: emplace may rehash the map that at() points into.
    const Instruction* way_in = entered.at(at);
    for (const Instruction* user : at->users()) {
      if (entered.emplace(user, way_in).second) forward.push_back(user);
    }
  }
  while (!backward.empty()) {
    const Instruction* at = backward.back();
    backward.pop_back();
    if (at->IsCustomCall(kFullToShard)) continue;
    const Instruction* way_out = exits.at(at);
    for (const Instruction* op : at->operands()) {
      if (exits.emplace(op, way_out).second) backward.push_back(op);
    }
  }
  auto in_region = [&](const Instruction* instr) {
    return entered.contains(instr) && exits.contains(instr) &&
           !instr->IsCustomCall(kFullToShard) &&
           !instr->IsCustomCall(kShardToFull);
  };
  for (const Instruction* annotation : annotations) {
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
        entered.at(collective != nullptr ? collective : annotation);
    const Instruction* shard_to_full = exits.at(annotation);
    Diagnostic d = Lint(
        DiagCode::kHO3013,
        absl::StrCat(
            "offload annotation \"", annotation->name(), "\"",
            SourceSuffix(module, annotation),
            " sits inside a manually partitioned region (between "
            "SPMDFullToShardShape \"", full_to_shard->name(),
            "\" and SPMDShardToFullShape \"", shard_to_full->name(),
            "\", a shard_map body)",
            collective != nullptr
                ? absl::StrCat(" next to ", collective->opcode_spelling(),
                               " \"", collective->name(), "\"")
                : std::string(),
            ": check backend support; backends have failed to compile host "
            "transfers in this position"),
        annotation);
    d.fixes.push_back(Fix{
        "move-outside",
        "if the backend rejects it, place the device_put outside the "
        "shard_map (before SPMDFullToShardShape or after "
        "SPMDShardToFullShape), where the offload works on the full array"});
    out.push_back(std::move(d));
  }
}

// Bytes that conditional branch `branch` returns unchanged from its
// parameter: all of it when the root is the parameter, the elements that
// are the parameter or its get-tuple-elements when the root is a tuple.
int64_t PassThroughBytes(const Computation& branch) {
  if (branch.num_parameters() != 1) return 0;
  const Instruction* param = branch.parameter(0);
  const Instruction* root = branch.root();
  if (root == param) return shape_util::ByteSizeOf(root->shape());
  if (root->opcode() != HloOpcode::kTuple) return 0;
  int64_t bytes = 0;
  for (const Instruction* op : root->operands()) {
    if (op == param || (op->opcode() == HloOpcode::kGetTupleElement &&
                        op->operand(0) == param)) {
      bytes = shape_util::SaturatingAdd(bytes, shape_util::ByteSizeOf(op->shape()));
    }
  }
  return bytes;
}

// Bytes of the array leaves of `shape` in host memory.
int64_t HostBytes(const Shape& shape) {
  int64_t bytes = 0;
  ShapeIndex scratch;
  shape_util::ForEachSubshape(
      shape,
      [&](const Shape& sub, const ShapeIndex&) {
        if (sub.IsArray() && sub.memory_space() == kHostMemorySpace) {
          bytes = shape_util::SaturatingAdd(bytes, shape_util::ByteSizeOf(sub));
        }
      },
      scratch);
  return bytes;
}

// The (output index, parameter number, parameter index) triples of the
// module's input_output_alias header attribute,
// `{ {0}: (1, {}, may-alias), {1}: (2, {0}) }`; empty when there is none or
// it does not read.
struct Alias {
  ShapeIndex output;
  int64_t parameter = 0;
  ShapeIndex parameter_index;
};
std::vector<Alias> InputOutputAliases(const Module& module) {
  std::vector<Alias> aliases;
  for (const auto& attr : module.header_attributes()) {
    if (absl::string_view(attr.name) != "input_output_alias") continue;
    absl::string_view text = attr.value;
    size_t pos = text.find('{');
    if (pos == absl::string_view::npos) return {};
    ++pos;
    auto skip_space = [&] {
      while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
    };
    auto read_index = [&](ShapeIndex& index) {
      skip_space();
      if (pos >= text.size() || text[pos] != '{') return false;
      size_t close = text.find('}', pos);
      if (close == absl::string_view::npos) return false;
      for (absl::string_view part :
           absl::StrSplit(text.substr(pos + 1, close - pos - 1), ',',
                          absl::SkipWhitespace())) {
        int64_t value = 0;
        if (!absl::SimpleAtoi(part, &value)) return false;
        index.push_back(value);
      }
      pos = close + 1;
      return true;
    };
    while (true) {
      skip_space();
      if (pos >= text.size() || text[pos] == '}') break;
      Alias alias;
      if (!read_index(alias.output)) return {};
      size_t open = text.find('(', pos);
      size_t comma = text.find(',', open);
      if (open == absl::string_view::npos || comma == absl::string_view::npos ||
          !absl::SimpleAtoi(text.substr(open + 1, comma - open - 1),
                            &alias.parameter)) {
        return {};
      }
      pos = comma + 1;
      if (!read_index(alias.parameter_index)) return {};
      size_t close = text.find(')', pos);
      if (close == absl::string_view::npos) return {};
      pos = close + 1;
      aliases.push_back(std::move(alias));
    }
  }
  return aliases;
}

// What HO3011 computes once per branch computation and per host-compute
// call, since several conditionals may share them.
struct HostConditionalMemo {
  absl::flat_hash_map<const Computation*, int64_t> pass_through_bytes;
  absl::flat_hash_map<const Instruction*, std::string> device_inputs;
};

// HO3011: a conditional that runs as host compute and has a branch passing a
// large operand through unchanged. `host_computations` maps each computation
// that runs as host compute to the instruction that makes it so.
void LintHostConditional(
    const Module& module,
    const absl::flat_hash_map<const Computation*, const Instruction*>&
        host_computations,
    const Instruction* cond, HostConditionalMemo& memo,
    std::vector<Diagnostic>& out) {
  const auto& branches = cond->called_computations();
  if (cond->operand_count() != static_cast<int64_t>(branches.size()) + 1) return;
  std::vector<std::string> passing;
  int64_t largest = 0;
  for (size_t b = 0; b < branches.size(); ++b) {
    auto [known, added] = memo.pass_through_bytes.try_emplace(branches[b]);
    if (added) known->second = PassThroughBytes(*branches[b]);
    const int64_t bytes = known->second;
    if (bytes < kLargePassThroughBytes) continue;
    largest = std::max(largest, bytes);
    passing.push_back(absl::StrCat("\"", branches[b]->name(), "\" (",
                                   Bytes(bytes), " of operand \"",
                                   cond->operand(b + 1)->name(), "\")"));
  }
  if (passing.empty()) return;
  Diagnostic d = Lint(
      DiagCode::kHO3011,
      absl::StrCat(
          "conditional \"", cond->name(), "\"", SourceSuffix(module, cond),
          " runs as host compute and passes a large operand through "
          "unchanged in branch", passing.size() == 1 ? " " : "es ",
          absl::StrJoin(passing, ", "),
          ": the result of a host conditional is a buffer of its own, so a "
          "pass-through of ", Bytes(largest),
          " is likely an extra copy, even of a donated buffer"),
      cond);
  // What crosses into the branches.
  std::vector<std::string> crossing;
  for (size_t b = 0; b < branches.size(); ++b) {
    const Instruction* operand = cond->operand(b + 1);
    crossing.push_back(absl::StrCat(
        "\"", operand->name(), "\" (",
        Bytes(shape_util::ByteSizeOf(operand->shape())), ") into \"",
        branches[b]->name(), "\""));
  }
  d.notes.push_back(Note{absl::StrCat("operands entering the branches: ",
                                      absl::StrJoin(crossing, ", ")),
                         cond->loc()});
  // Device data that enters the host computation holding the conditional.
  auto host = host_computations.find(cond->parent());
  if (host != host_computations.end()) {
    const Instruction* caller = host->second;
    auto [inputs, added] = memo.device_inputs.try_emplace(caller);
    if (added) {
      std::vector<std::string> device;
      for (const Instruction* op : caller->operands()) {
        int64_t bytes = shape_util::ByteSizeOf(op->shape());
        if (HasHostLeaf(op->shape()) || bytes == 0) continue;
        device.push_back(
            absl::StrCat("\"", op->name(), "\" (", Bytes(bytes), ")"));
      }
      inputs->second = absl::StrJoin(device, ", ");
    }
    if (!inputs->second.empty()) {
      d.notes.push_back(Note{
          absl::StrCat("device data crossing into the host computation of \"",
                       caller->name(), "\": ", inputs->second),
          caller->loc()});
    }
  }
  d.fixes.push_back(Fix{
      "select",
      "compute the update unconditionally and choose with a select "
      "(jnp.where(ok, new_state, state), or lax.select) instead of lax.cond: "
      "a select is elementwise, so it can write the donated buffer in place "
      "where the pass-through branch copies it"});
  out.push_back(std::move(d));
}

// HO3009: a host stack built by an inner loop, written as the update of a
// dynamic-update-slice into the stack of the loop around it. Reports the
// memory spaces that disagree around the outer write after the pipeline.
void LintNestedHostStack(const Module& module, const CallGraph& call_graph,
                         const Instruction* outer,
                         std::vector<Diagnostic>& out) {
  constexpr int kMaxHops = 16;
  std::vector<const Instruction*> hops;  // from the update up
  const Instruction* at = outer->operand(1);
  while (static_cast<int>(hops.size()) < kMaxHops && IsCopyOrBitcastHop(at)) {
    hops.push_back(at);
    at = at->operand(0);
  }
  if (at->opcode() != HloOpcode::kGetTupleElement ||
      at->operand(0)->opcode() != HloOpcode::kWhile) {
    return;
  }
  const Instruction* inner = at->operand(0);
  const Computation* inner_body = inner->while_body();
  const int64_t k = at->tuple_index();
  if (inner_body == nullptr ||
      inner_body->root()->opcode() != HloOpcode::kTuple ||
      k >= inner_body->root()->operand_count()) {
    return;
  }
  const Instruction* stacked = inner_body->root()->operand(k);
  for (int i = 0; i < kMaxHops && IsCopyOrBitcastHop(stacked); ++i) {
    stacked = stacked->operand(0);
  }
  if (stacked->opcode() != HloOpcode::kDynamicUpdateSlice ||
      stacked->shape().memory_space() != kHostMemorySpace) {
    return;
  }
  Diagnostic d = Lint(
      DiagCode::kHO3009,
      absl::StrCat(
          "dynamic-update-slice \"", outer->name(),
          "\" writes the host stack of while \"", inner->name(),
          "\" (built by \"", stacked->name(), "\" in ",
          inner_body->name(), ")", SourceSuffix(module, stacked),
          " into a stacked buffer of the enclosing loop: a stacked host "
          "buffer nested in a stacked buffer is a known-risky pattern; the "
          "pipeline leaves memory spaces that disagree around it, which "
          "later compilation rejects (e.g. \"bad bitcast\")"),
      outer);
  // What disagrees after the pipeline.
  const int64_t space = outer->shape().memory_space();
  const int64_t update_space = outer->operand(1)->shape().memory_space();
  if (space != update_space) {
    d.notes.push_back(Note{
        absl::StrCat("\"", outer->name(), "\" is in ", MemorySpaceName(space),
                     " but its update \"", outer->operand(1)->name(),
                     "\" is in ", MemorySpaceName(update_space)),
        outer->loc()});
  }
  // The outer stack is element p of the loop tuple: the body reads it from
  // its parameter and writes `outer` back to the same element (looked up
  // directly, not by scanning the root's operands).
  const Instruction* buffer = outer->operand(0);
  for (int i = 0; i < kMaxHops && IsCopyOrBitcastHop(buffer); ++i) {
    buffer = buffer->operand(0);
  }
  const Computation* body = outer->parent();
  const Instruction* root = body->root();
  if (buffer->opcode() == HloOpcode::kGetTupleElement &&
      buffer->operand(0)->opcode() == HloOpcode::kParameter &&
      root->opcode() == HloOpcode::kTuple &&
      buffer->tuple_index() < root->operand_count() &&
      root->operand(buffer->tuple_index()) == outer) {
    const int64_t p = buffer->tuple_index();
    const Shape* element = shape_util::TryGetSubshape(root->shape(), {p});
    if (element != nullptr && element->IsArray() &&
        element->memory_space() != space) {
      d.notes.push_back(Note{
          absl::StrCat("\"", root->name(), "\" element {", p, "} is in ",
                       MemorySpaceName(element->memory_space()),
                       " but its operand \"", outer->name(), "\" is in ",
                       MemorySpaceName(space)),
          root->loc()});
    }
    for (const Instruction* loop : call_graph.CallersOf(body)) {
      if (loop->opcode() != HloOpcode::kWhile || loop->while_body() != body ||
          loop->operand_count() != 1) {
        continue;
      }
      const Shape* carried = shape_util::TryGetSubshape(loop->shape(), {p});
      const Instruction* init = loop->operand(0);
      const Instruction* passed =
          init->opcode() == HloOpcode::kTuple && p < init->operand_count()
              ? init->operand(p)
              : nullptr;
      const Shape* given =
          passed != nullptr ? &passed->shape()
                            : shape_util::TryGetSubshape(init->shape(), {p});
      if (carried == nullptr || given == nullptr || !carried->IsArray() ||
          !given->IsArray() ||
          carried->memory_space() == given->memory_space()) {
        continue;
      }
      d.notes.push_back(Note{
          absl::StrCat("while \"", loop->name(), "\" element {", p,
                       "} is in ", MemorySpaceName(carried->memory_space()),
                       " but its operand \"", init->name(), "\" passes ",
                       passed != nullptr
                           ? absl::StrCat("\"", passed->name(), "\"")
                           : absl::StrCat("element {", p, "}"),
                       " in ", MemorySpaceName(given->memory_space())),
          loop->loc()});
    }
  }
  // The host path through both loops and the joining hops.
  auto hop = [](const Instruction* instr, ShapeIndex index) {
    return PathHop{std::string(instr->input_name()),
                   std::string(instr->input_computation()), std::move(index),
                   instr->loc()};
  };
  d.path.push_back(hop(stacked, {}));
  d.path.push_back(hop(inner_body->root(), {k}));
  d.path.push_back(hop(inner, {k}));
  d.path.push_back(hop(at, {}));
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    d.path.push_back(hop(*it, {}));
  }
  d.path.push_back(hop(outer, {}));
  d.fixes.push_back(Fix{
      "annotate-outer-stack",
      absl::StrCat(
          "annotate the outer stack instead: keep the inner scan's values on "
          "device and move the finished block (or the outer scan's stacked "
          "output) to pinned_host; or unroll the inner scan, whose ",
          Bytes(shape_util::ByteSizeOf(stacked->shape())),
          " stack then stays in device memory")});
  out.push_back(std::move(d));
}

}  // namespace

// HO3014 notes listed one by one before the rest are summed up in one.
constexpr int64_t kMaxRoundTripNotes = 20;

LintInputFacts LintInput(const Module& module, std::vector<Diagnostic>& out,
                         const LintOptions& options) {
  LintInputFacts facts;
  int64_t round_trips = 0;
  int64_t unlisted_round_trip_bytes = 0;
  const EntryComputationLayout& layout = module.entry_computation_layout();
  for (size_t i = 0; i < layout.parameters.size(); ++i) {
    if (HasHostLeaf(layout.parameters[i]) && !facts.asks_for_host_memory) {
      facts.asks_for_host_memory = true;
      facts.first_request = absl::StrCat("entry parameter ", i, " (S(5) in entry_computation_layout)");
    }
  }
  if (HasHostLeaf(layout.result) && !facts.asks_for_host_memory) {
    facts.asks_for_host_memory = true;
    facts.first_request = "the entry result (S(5) in entry_computation_layout)";
    ShapeIndex at;
    shape_util::ForEachSubshape(
        layout.result,
        [&](const Shape& shape, const ShapeIndex& index) {
          if (!facts.first_request_output && !shape.IsTuple() &&
              HasHostLeaf(shape)) {
            facts.first_request_output = index;
          }
        },
        at);
  }
  bool layout_has_memory_space = false;
  auto note_memory_space = [&](const Shape& shape) {
    ShapeIndex index;
    shape_util::ForEachSubshape(
        shape,
        [&](const Shape& subshape, const ShapeIndex&) {
          layout_has_memory_space |= subshape.memory_space() != kDefaultMemorySpace;
        },
        index);
  };
  for (const Shape& parameter : layout.parameters) note_memory_space(parameter);
  note_memory_space(layout.result);
  bool has_metadata = false;
  facts.entry_root = std::string(module.entry()->root()->name());
  facts.entry_root_loc = module.entry()->root()->loc();
  bool has_annotations = false;
  const Instruction* first_leak = nullptr;
  int64_t leaks = 0;
  Computation* entry = module.entry();
  for (const auto& comp : module.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      has_annotations |= IsOffloadAnnotation(instr);
      has_metadata = has_metadata || instr->FindRawAttribute("metadata").has_value();
      if (IsToHostAnnotation(instr) && !facts.asks_for_host_memory) {
        facts.asks_for_host_memory = true;
        facts.first_request = std::string(instr->name());
        facts.first_request_loc = instr->loc();
      }
      // HO3008: S(5) where the passes do not read it.
      bool legit = (instr->opcode() == HloOpcode::kParameter &&
                    comp.get() == entry) ||
                   IsOffloadAnnotation(instr) ||
                   instr->IsCustomCall(kAllocateBufferTarget);
      if (!legit && HasHostLeaf(instr->shape())) {
        if (first_leak == nullptr) first_leak = instr;
        ++leaks;
      }
      // HO3004: annotations that a later step drops.
      if (instr->IsCustomCall(kDevicePlacementTarget)) {
        auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
        static const char* const kKnown[] = {"pinned_host", "unpinned_host",
                                             "device", "vmem", "pinned_device"};
        bool known = false;
        for (const char* k : kKnown) known |= kind && *kind == k;
        if (!known) {
          out.push_back(Lint(
              DiagCode::kHO3004,
              kind ? absl::StrCat("annotate_device_placement \"", instr->name(),
                                  "\" has the unknown memory kind \"", *kind,
                                  "\"; it is left in the module and no "
                                  "offloading happens for it")
                   : absl::StrCat("annotate_device_placement \"", instr->name(),
                                  "\" has no _xla_buffer_placement frontend "
                                  "attribute; it is left in the module and no "
                                  "offloading happens for it"),
              instr));
        }
      }
      // HO3014: straight back to device. The value is what was on device
      // before the (possibly repeated) moves to host; a host parameter moved
      // to device is a transfer in, not a round trip.
      const Instruction* value =
          instr->operand_count() == 1 ? instr->operand(0) : nullptr;
      for (int hops = 0; value != nullptr && hops < 16 &&
                         IsToHostAnnotation(value) && value->operand_count() == 1;
           ++hops) {
        value = value->operand(0);
      }
      if (value != nullptr && IsToHostAnnotation(instr) &&
          instr->user_count() == 1 && IsToDeviceAnnotation(instr->users()[0]) &&
          !IsToHostAnnotation(value) &&
          !(value->opcode() == HloOpcode::kParameter && comp.get() == entry &&
            HasHostLeaf(layout.parameters[value->parameter_number()]))) {
        const Instruction* back = instr->users()[0];
        int64_t byte_count = shape_util::ByteSizeOf(value->shape());
        // A note per round trip up to kMaxRoundTripNotes, then one summary:
        // a generated or unrolled module can hold 10^5 of them.
        if (++round_trips > kMaxRoundTripNotes) {
          unlisted_round_trip_bytes += byte_count;
        } else {
          std::string bytes = Bytes(byte_count);
          Diagnostic d = Lint(
              DiagCode::kHO3014,
              absl::StrCat("\"", instr->name(), "\"", SourceSuffix(module, instr),
                           " moves \"", value->name(), "\" (", bytes,
                           ") to host and \"", back->name(), "\"",
                           SourceSuffix(module, back),
                           " moves it straight back to device: the round trip "
                           "saves no device memory (the move back is the only "
                           "use of the host copy, so nothing in the program "
                           "waits for the value while it is away) and costs "
                           "two ",
                           bytes, " transfers"),
              instr);
          d.fixes.push_back(Fix{
              "remove",
              "drop both device_puts, or offload the value where it is produced "
              "and bring it back right before it is used, so that its device "
              "memory is free in between"});
          out.push_back(std::move(d));
        }
      }
      if (IsToHostAnnotation(instr)) {
        if (instr->users().empty() && !instr->IsRoot()) {
          out.push_back(Lint(DiagCode::kHO3004,
                             absl::StrCat("\"", instr->name(),
                                          "\" moves a value to host but nothing "
                                          "uses it; it is dropped without "
                                          "effect"),
                             instr));
        } else if (!instr->IsRoot()) {
          const Instruction* last = SkipHopsDown(instr);
          if (last != instr && last->IsRoot() && comp.get() == entry &&
              instr->user_count() == 1) {
            Diagnostic d = Lint(
                DiagCode::kHO3004,
                absl::StrCat("\"", instr->name(),
                             "\" reaches the entry root only through bitcasts, "
                             "so XLA finds nothing to offload: the annotation "
                             "is deleted, no host copy is made and the output "
                             "layout is not checked"),
                instr);
            d.about_output = ShapeIndex{};  // the entry result, whole
            out.push_back(std::move(d));
          }
        }
        bool layout_fixed_by_xla = options.fix_entry_layout_unless_customized &&
                                   layout.result.IsArray() &&
                                   !layout.result.layout.HasCustomization();
        if (instr->IsRoot() && comp.get() == entry && !HasHostLeaf(layout.result) &&
            !layout_fixed_by_xla) {
          Diagnostic d = Lint(
              DiagCode::kHO3004,
              absl::StrCat("the root value \"", instr->name(),
                           "\" is placed in host memory", SourceSuffix(module, instr),
                           " but entry_computation_layout declares the result "
                           "in device memory; XLA returns a host copy without "
                           "checking the layout (a declared host output is "
                           "missing from the layout)"),
              instr);
          d.about_output = ShapeIndex{};  // the root is the entry result
          d.fixes.push_back(Fix{"host-output",
                                "restore memory_kind=\"pinned_host\" on the "
                                "output (out_shardings), so that the layout "
                                "says S(5)"});
          out.push_back(std::move(d));
        }
      }
      if (IsToDeviceAnnotation(instr) && instr->operand_count() == 1) {
        const Instruction* operand = instr->operand(0);
        if (operand->opcode() == HloOpcode::kParameter && comp.get() == entry &&
            !HasHostLeaf(layout.parameters[operand->parameter_number()])) {
          out.push_back(Lint(
              DiagCode::kHO3004,
              absl::StrCat("entry parameter \"", operand->name(),
                           "\" is moved to device right at entry",
                           SourceSuffix(module, instr),
                           " but its layout is already device memory; if it "
                           "was meant to be a host input, give it "
                           "memory_kind=\"pinned_host\" in in_shardings"),
              instr));
        }
      }
      // HO3006: a layout-changing copy between an offloaded value and a host
      // output.
      if (instr->opcode() == HloOpcode::kCopy && comp.get() == entry &&
          IsToHostAnnotation(instr->operand(0)) &&
          instr->shape().layout.minor_to_major !=
              instr->operand(0)->shape().layout.minor_to_major) {
        std::optional<ShapeIndex> output;
        if (instr->IsRoot()) {
          output = ShapeIndex{};
        } else {
          for (const Instruction* user : instr->users()) {
            if (user->IsRoot() && user->opcode() == HloOpcode::kTuple) {
              output = ShapeIndex{user->OperandIndices(instr).front()};
            }
          }
        }
        const Shape* declared =
            output ? shape_util::TryGetSubshape(layout.result, *output) : nullptr;
        if (declared != nullptr && HasHostLeaf(*declared)) {
          const Instruction* value = instr->operand(0)->operand(0);
          Diagnostic d = Lint(
              DiagCode::kHO3006,
              absl::StrCat(
                  "\"", value->name(), "\"", SourceSuffix(module, value),
                  " is offloaded with layout ",
                  ShapeToString(instr->operand(0)->shape()),
                  " but returned in host memory as ",
                  ShapeToString(instr->shape()), ": the ",
                  Bytes(shape_util::ByteSizeOf(instr->shape())),
                  " layout change is a transpose; HostOffloadLegalize cannot "
                  "move it past the output, so it hoists it above the "
                  "MoveToHost onto the device (an extra ",
                  Bytes(shape_util::ByteSizeOf(instr->shape())),
                  " device buffer)"),
              instr);
          d.fixes.push_back(Fix{"layout",
                                "give the value the output's layout before the "
                                "device_put (or make the output layout match), "
                                "so that no transpose is needed"});
          out.push_back(std::move(d));
        }
      }
      if (ComputeTypeIsHost(instr)) facts.preexisting_host_compute.insert(Key(instr));
    }
  }
  if (!has_annotations) {
    // HO3015: an input that is already the offloader's output.
    if (auto signs = FindEarlierOffloading(module)) {
      facts.already_offloaded = true;
      out.push_back(Lint(
          DiagCode::kHO3015,
          absl::StrCat(
              "the module looks offloaded already: it has ",
              DescribeEarlierOffloading(*signs), " (\"", signs->first->name(),
              "\" first) and no offload annotation left, as after "
              "HostOffloader; the passes clear S(5) from every instruction "
              "before they start, as XLA's do, so what they report for it "
              "(and what opt prints) is a second offloading of an offloaded "
              "module, not how this module was offloaded; check the module "
              "from before optimization (the *.before_optimizations.txt "
              "dump, or jax.jit(f).lower(...).as_text())"),
          signs->first));
    }
  }
  if (has_annotations) LintManualRegions(module, out);
  if (first_leak != nullptr && has_annotations) {
    out.push_back(Lint(
        DiagCode::kHO3008,
        absl::StrCat("\"", first_leak->name(), "\" carries host memory space ",
                     "S(5) in its shape ", ShapeToString(first_leak->shape()),
                     leaks > 1 ? absl::StrCat(" (and ", leaks - 1, " more ",
                                              leaks == 2 ? "instruction)"
                                                         : "instructions)")
                               : std::string(),
                     "; before HostOffloader only entry parameters and "
                     "annotations may say where a value lives, so the passes "
                     "clear it (this is how a layout-assignment leak shows up)"),
        first_leak));
  }
  if (round_trips > kMaxRoundTripNotes) {
    Diagnostic d;
    d.code = DiagCode::kHO3014;
    d.severity = DiagCodeSeverity(DiagCode::kHO3014);
    d.message = absl::StrCat(
        round_trips - kMaxRoundTripNotes,
        " more moves to host go straight back to device (",
        Bytes(unlisted_round_trip_bytes), " in all); the first ",
        kMaxRoundTripNotes, " are listed above");
    out.push_back(std::move(d));
  }
  facts.reads_as_jax_lowered_text = !layout_has_memory_space && !has_metadata;
  return facts;
}

void LintOutput(const Module& module, const LintInputFacts& facts,
                std::vector<Diagnostic>& out, const LintOptions& options) {
  CallGraph call_graph(module);
  // Computations that run as host compute (called, transitively, by an
  // instruction tagged _xla_compute_type="host"), with that instruction.
  absl::flat_hash_map<const Computation*, const Instruction*> host_computations;
  {
    std::vector<const Computation*> work;
    for (const auto& comp : module.computations()) {
      for (const auto& owned : comp->raw_instructions()) {
        const Instruction* instr = owned.get();
        if (instr->IsDead() || !ComputeTypeIsHost(instr)) continue;
        for (const Computation* called : instr->called_computations()) {
          if (host_computations.emplace(called, instr).second) {
            work.push_back(called);
          }
        }
      }
    }
    while (!work.empty()) {
      const Computation* comp = work.back();
      work.pop_back();
      const Instruction* caller = host_computations.at(comp);
      for (const auto& owned : comp->raw_instructions()) {
        if (owned->IsDead()) continue;
        for (const Computation* called : owned->called_computations()) {
          if (host_computations.emplace(called, caller).second) {
            work.push_back(called);
          }
        }
      }
    }
  }
  // Loop counters of a while body: the tuple elements its root sets to
  // element + constant (or - constant).
  absl::flat_hash_map<const Computation*, absl::flat_hash_set<int64_t>> counters;
  auto LoopCounters = [&](const Computation* body)
      -> const absl::flat_hash_set<int64_t>& {
    auto [it, inserted] = counters.try_emplace(body);
    if (!inserted) return it->second;
    const Instruction* root = body->root();
    if (root->opcode() != HloOpcode::kTuple || body->num_parameters() != 1) {
      return it->second;
    }
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      const Instruction* next = root->operand(i);
      if (next->opcode() != HloOpcode::kAdd &&
          next->opcode() != HloOpcode::kSubtract) {
        continue;
      }
      bool has_self = false, has_constant = false;
      for (const Instruction* op : next->operands()) {
        has_self |= op->opcode() == HloOpcode::kGetTupleElement &&
                    op->operand(0) == body->parameter(0) &&
                    op->tuple_index() == i;
        has_constant |= op->opcode() == HloOpcode::kConstant;
      }
      if (has_self && has_constant) it->second.insert(i);
    }
    return it->second;
  };
  bool any_host = false;
  HostConditionalMemo conditional_memo;
  for (const auto& comp : module.computations()) {
    std::vector<Instruction*> callers = call_graph.CallersOf(comp.get());
    bool is_loop_body = callers.size() == 1 &&
                        callers[0]->opcode() == HloOpcode::kWhile &&
                        callers[0]->while_body() == comp.get();
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      any_host |= HasHostLeaf(instr->shape());
      // HO3001: host compute whose every user moves it to device.
      if (ComputeTypeIsHost(instr) && !facts.preexisting_host_compute.contains(Key(instr)) &&
          instr->operand_count() >= 1 && !instr->users().empty() &&
          instr->opcode() != HloOpcode::kDynamicSlice &&
          instr->opcode() != HloOpcode::kDynamicUpdateSlice &&
          instr->opcode() != HloOpcode::kCopy) {
        bool all_to_device = true;
        for (const Instruction* user : instr->users()) {
          all_to_device &= user->opcode() == HloOpcode::kCopy &&
                           user->shape().memory_space() == kDefaultMemorySpace;
        }
        const Instruction* input = nullptr;
        for (const Instruction* op : instr->operands()) {
          if (op->shape().memory_space() == kHostMemorySpace) input = op;
        }
        if (all_to_device && input != nullptr) {
          int64_t now = shape_util::ByteSizeOf(instr->shape());
          int64_t after = shape_util::ByteSizeOf(input->shape());
          Diagnostic d = Lint(
              DiagCode::kHO3001,
              absl::StrCat("\"", instr->name(), "\" (", instr->opcode_spelling(),
                           ")", SourceSuffix(module, instr),
                           " computes on host data right before it is moved to "
                           "device, so XLA runs it on the host"),
              instr);
          d.fixes.push_back(Fix{
              "swap",
              absl::StrCat("move the device_put before it (e.g. ",
                           instr->opcode_spelling(), "(device_put(x)) instead of "
                           "device_put(", instr->opcode_spelling(),
                           "(x))) so that it runs on device; the transfer "
                           "changes from ",
                           Bytes(now), " to ", Bytes(after))});
          out.push_back(std::move(d));
        }
      }
      // HO3002: scatter / gather on host memory.
      if (instr->opcode() == HloOpcode::kScatter ||
          instr->opcode() == HloOpcode::kGather) {
        bool host = HasHostLeaf(instr->shape()) || ComputeTypeIsHost(instr);
        for (const Instruction* op : instr->operands()) {
          host |= HasHostLeaf(op->shape());
        }
        if (host) {
          Diagnostic d = Lint(
              DiagCode::kHO3002,
              absl::StrCat(instr->opcode_spelling(), " \"", instr->name(), "\"",
                           SourceSuffix(module, instr),
                           " reads or writes a host-memory buffer; XLA's "
                           "backends do not support this and fail"),
              instr);
          d.severity = Severity::kError;
          d.fixes.push_back(Fix{
              "move-to-device",
              "bring the buffer to device first (jax.device_put(x, "
              "x.sharding.with_memory_kind(\"device\"))), do the "
              "scatter/gather there, and offload the result afterwards"});
          out.push_back(std::move(d));
        }
      }
      // HO3005: host dynamic-slice indexed by a function of the counter.
      if (is_loop_body && instr->opcode() == HloOpcode::kDynamicSlice &&
          instr->operand(0)->shape().memory_space() == kHostMemorySpace) {
        for (int64_t i = 1; i < instr->operand_count(); ++i) {
          const Instruction* index = instr->operand(i);
          if (index->opcode() == HloOpcode::kConstant ||
              index->opcode() == HloOpcode::kGetTupleElement) {
            continue;
          }
          // Does it depend on the loop counter (a GTE of the body parameter
          // at an index the root increments by a constant)?
          std::vector<const Instruction*> stack = {index};
          absl::flat_hash_set<const Instruction*> seen;
          bool depends = false;
          const absl::flat_hash_set<int64_t>& counters = LoopCounters(comp.get());
          while (!stack.empty() && !depends && seen.size() < 64) {
            const Instruction* at = stack.back();
            stack.pop_back();
            if (!seen.insert(at).second) continue;
            if (at->opcode() == HloOpcode::kGetTupleElement &&
                at->operand(0)->opcode() == HloOpcode::kParameter &&
                counters.contains(at->tuple_index())) {
              depends = true;
            }
            for (const Instruction* op : at->operands()) stack.push_back(op);
          }
          if (!depends) continue;
          out.push_back(Lint(
              DiagCode::kHO3005,
              absl::StrCat("dynamic-slice \"", instr->name(), "\" reads host "
                           "buffer \"", instr->operand(0)->name(),
                           "\" at index \"", index->name(), "\" (",
                           index->opcode_spelling(),
                           "), a function of the loop counter rather than the "
                           "counter itself; this shape was behind a known GPU "
                           "miscompile of offloaded scan residuals: compare "
                           "the results against a run without offloading"),
              instr));
          break;
        }
      }
      // HO3009: an inner loop's host stack written into an outer stack.
      if (is_loop_body && instr->opcode() == HloOpcode::kDynamicUpdateSlice &&
          instr->operand_count() >= 2) {
        LintNestedHostStack(module, call_graph, instr, out);
      }
      // HO3011: a host conditional passing a large operand through.
      if (instr->opcode() == HloOpcode::kConditional &&
          (host_computations.contains(comp.get()) || ComputeTypeIsHost(instr) ||
           HasHostLeaf(instr->shape()))) {
        LintHostConditional(module, host_computations, instr, conditional_memo,
                            out);
      }
      // HO3007: DUS memory spaces outside the sanctioned forms.
      if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
        int64_t buffer = instr->operand(0)->shape().memory_space();
        int64_t update = instr->operand(1)->shape().memory_space();
        int64_t result = instr->shape().memory_space();
        if (update == kHostMemorySpace && result != kHostMemorySpace) {
          const Instruction* source = instr->operand(1);
          out.push_back(Lint(
              DiagCode::kHO3007,
              absl::StrCat("dynamic-update-slice \"", instr->name(),
                           "\" writes host value \"", source->name(), "\"",
                           SourceSuffix(module, source), " into ",
                           buffer == kHostMemorySpace ? "a host" : "a device",
                           " buffer and stays in device memory: XLA turns it "
                           "into host compute; move the update back to device "
                           "first (annotate it with \"device\" / "
                           "jax.device_put(x, x.sharding.with_memory_kind("
                           "\"device\"))), the sanctioned form is a device "
                           "update into a host buffer"),
              instr));
        }
      }
    }
  }
  // HO3003 (one broadcast seeding a host and a device loop buffer) is retired:
  // HostOffloader gives the host use of a shared broadcast its own
  // AllocateBuffer (see docs/errors/HO3003.md).
  // HO3010: writes of the previous iteration's value into a host stack.
  for (const PipelinedHostWrite& write :
       FindPipelinedHostWrites(module, call_graph)) {
    std::vector<std::string> peeled;
    for (const Instruction* p : write.peeled) {
      peeled.push_back(absl::StrCat("\"", p->name(), "\""));
    }
    Diagnostic d = Lint(
        DiagCode::kHO3010,
        absl::StrCat(
            "\"", write.write->name(), "\" writes the value that while \"",
            write.loop->name(), "\" carries in element {", write.carried_index,
            "} from the previous iteration into a host stack, at index \"",
            write.index->name(), "\" = i", write.offset,
            " (i: element {", write.counter_index,
            "}, the loop counter): a pipelined offload, the write for "
            "iteration i happens in iteration i+", -write.offset,
            "; 1 device-to-host write per iteration of the loop",
            peeled.empty()
                ? std::string(
                      ", and no write after the loop: the last iteration's "
                      "value never reaches the stack")
                : absl::StrCat(", plus ", peeled.size(), " peeled write",
                               peeled.size() == 1 ? "" : "s",
                               " after the loop (", absl::StrJoin(peeled, ", "),
                               ")")),
        write.write);
    for (const Instruction* p : write.peeled) {
      d.notes.push_back(Note{
          absl::StrCat("\"", p->name(), "\" writes the last iteration's value "
                       "after the loop (the peeled epilogue)"),
          p->loc()});
    }
    out.push_back(std::move(d));
  }
  // HO3012: host bytes at the entry boundary against the pinned budget.
  if (options.pinned_host_budget.has_value()) {
    const EntryComputationLayout& layout = module.entry_computation_layout();
    int64_t in = 0;
    for (const Shape& parameter : layout.parameters) {
      in = shape_util::SaturatingAdd(in, HostBytes(parameter));
    }
    const int64_t out_bytes = HostBytes(layout.result);
    // A donated host input aliased to a host output is one buffer.
    int64_t shared = 0;
    for (const Alias& alias : InputOutputAliases(module)) {
      if (alias.parameter < 0 ||
          alias.parameter >= static_cast<int64_t>(layout.parameters.size())) {
        continue;
      }
      const Shape* output = shape_util::TryGetSubshape(layout.result, alias.output);
      const Shape* input = shape_util::TryGetSubshape(
          layout.parameters[alias.parameter], alias.parameter_index);
      if (output != nullptr && input != nullptr) {
        shared = shape_util::SaturatingAdd(
            shared, std::min(HostBytes(*output), HostBytes(*input)));
      }
    }
    shared = std::min({shared, in, out_bytes});
    const int64_t total = shape_util::SaturatingAdd(in, out_bytes) - shared;
    if (total > *options.pinned_host_budget) {
      Diagnostic d = Lint(
          DiagCode::kHO3012,
          absl::StrCat(
              "host memory at the entry boundary, ", Bytes(in), " in and ",
              Bytes(out_bytes), " out",
              shared > 0 ? absl::StrCat(" (", Bytes(shared),
                                        " of them one donated buffer)")
                         : std::string(),
              ", ", total, " bytes (", Bytes(total),
              ") in all, exceeds the pinned-host budget of ",
              *options.pinned_host_budget, " bytes (",
              Bytes(*options.pinned_host_budget),
              "): these buffers may not fit in the pinned host memory pool"),
          nullptr);
      d.instruction = facts.entry_root;
      d.computation = std::string(module.entry()->name());
      d.loc = facts.entry_root_loc;
      // The largest host leaf, which has to fit in one piece.
      int64_t largest = 0;
      std::string where;
      ShapeIndex scratch;
      // `what` names the parameter or the output; `at` the leaf in it.
      auto largest_of = [&](const Shape& shape, auto&& what) {
        shape_util::ForEachSubshape(
            shape,
            [&](const Shape& sub, const ShapeIndex& index) {
              if (!sub.IsArray() || sub.memory_space() != kHostMemorySpace) return;
              int64_t bytes = shape_util::ByteSizeOf(sub);
              if (bytes <= largest) return;
              largest = bytes;
              where = what(index);
            },
            scratch);
      };
      for (size_t i = 0; i < layout.parameters.size(); ++i) {
        largest_of(layout.parameters[i], [i](const ShapeIndex& index) {
          return index.empty() ? absl::StrCat("entry parameter ", i)
                               : absl::StrCat("entry parameter ", i, " at ",
                                              ShapeIndexToString(index));
        });
      }
      largest_of(layout.result, [&](const ShapeIndex& index) {
        return index.empty() && !layout.result.IsTuple()
                   ? std::string("the single result (entry output {})")
                   : absl::StrCat("entry output ", ShapeIndexToString(index));
      });
      if (largest > 0) {
        d.notes.push_back(Note{
            absl::StrCat("the largest pinned buffer is ", where, ", ",
                         Bytes(largest), " in one piece"),
            facts.entry_root_loc});
      }
      d.fixes.push_back(Fix{
          "pageable",
          "keep bulk host storage in pageable memory (the CPU backend, e.g. "
          "jax.device_put(x, jax.devices(\"cpu\")[0]), or "
          "memory_kind=\"unpinned_host\" where supported), or return the "
          "result in chunks that fit the pinned pool"});
      out.push_back(std::move(d));
    }
  }
  // Unless a lint of the input already said why this request has no effect.
  bool explained = std::any_of(out.begin(), out.end(), [&](const Diagnostic& d) {
    return d.code == DiagCode::kHO3004 && d.instruction == facts.first_request;
  });
  if (facts.asks_for_host_memory && !any_host && !explained &&
      !facts.already_offloaded) {
    Diagnostic d;
    d.code = DiagCode::kHO3004;
    d.severity = Severity::kWarning;
    d.loc = facts.first_request_loc.known() ? facts.first_request_loc
                                            : module.entry()->root()->loc();
    d.instruction = facts.first_request;
    d.about_output = facts.first_request_output;
    d.message = absl::StrCat("host memory is asked for (", facts.first_request,
                             ") but no tensor ends up in host memory: the "
                             "offload has no effect");
    out.push_back(std::move(d));
  }
}

}  // namespace hloff

namespace hloff {

std::optional<Diagnostic> EntryLayoutWithoutMemoryKinds(
    const Module& module, const LintInputFacts& facts,
    const std::vector<Diagnostic>& diagnostics) {
  if (!facts.reads_as_jax_lowered_text) return std::nullopt;
  // One E1200 per (walk start, output): count the outputs.
  absl::flat_hash_set<std::string> faulty_outputs;
  for (const Diagnostic& d : diagnostics) {
    if (d.code == DiagCode::kE1200 && d.severity == Severity::kError) {
      faulty_outputs.insert(d.output_index ? ShapeIndexToString(*d.output_index) : "");
    }
  }
  if (faulty_outputs.empty()) return std::nullopt;
  const int64_t outputs = static_cast<int64_t>(faulty_outputs.size());
  Diagnostic d;
  d.severity = Severity::kWarning;
  d.code = DiagCode::kHO3016;
  d.instruction = facts.entry_root;
  d.computation = std::string(module.entry()->name());
  d.loc = facts.entry_root_loc;
  d.message = absl::StrCat(
      "entry_computation_layout declares no memory space although ", outputs,
      outputs == 1 ? " entry output receives a tensor moved to host"
                   : " entry outputs receive tensors moved to host",
      ", and the module has no metadata: it reads as JAX's "
      "Lowered.as_text(dialect=\"hlo\"), which leaves out the memory kinds that "
      "PJRT writes into the entry layout before XLA compiles, so the E1200 may "
      "be an artefact of the text; check the program with "
      "hlo_offload.check(jax.jit(f), *args), or XLA's own dump "
      "(--xla_dump_to, *.before_optimizations.txt)");
  return d;
}

}  // namespace hloff
