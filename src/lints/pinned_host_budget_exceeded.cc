// HO3012 PinnedHostBudgetExceeded (docs/errors/HO3012.md).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

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

// The host-resident intermediates of the module after the pipeline: host
// buffers that are neither an entry parameter nor an entry output, each
// counted once at its size. Values that share storage are one buffer, as
// XLA's alias analysis groups them and as the report counts them
// (report/host_buffers.h, the same rules): get-tuple-element, tuple,
// bitcast, opt-barrier, the buffer of a dynamic-update-slice, while operand,
// body parameter, body root and result, call and conditional parameters and
// results, async operands and results, output_to_operand_aliasing. So a
// scan's stacked residuals count once, at the stack's full size. A
// union-find over the values reached from the host leaves: linear.
struct HostIntermediates {
  int64_t bytes = 0;
  int64_t buffers = 0;
  // The largest one, its defining instruction and bytes.
  const Instruction* largest = nullptr;
  int64_t largest_bytes = 0;
};

class HostBufferGroups {
 public:
  HostBufferGroups(const Module& module, const CallGraph& call_graph)
      : module_(module), call_graph_(call_graph) {}

  HostIntermediates Count() {
    std::vector<int> worklist;
    for (const auto& comp : module_.computations()) {
      for (const auto& instr : comp->raw_instructions()) {
        if (instr->IsDead()) continue;
        ShapeIndex scratch;
        shape_util::ForEachSubshape(
            instr->shape(),
            [&](const Shape& leaf, const ShapeIndex& index) {
              if (!leaf.IsArray() || leaf.memory_space() != kHostMemorySpace) return;
              auto [id, added] = Id({instr.get(), index});
              host_[id] = true;
              if (added) worklist.push_back(id);
            },
            scratch);
      }
    }
    while (!worklist.empty()) {
      int id = worklist.back();
      worklist.pop_back();
      for (InstructionAndShapeIndex link : Links(values_[id])) {
        auto [other, added] = Id(link);
        has_links_[id] = true;
        Union(id, other);
        if (added) worklist.push_back(other);
      }
    }
    struct Group {
      bool host = false, boundary = false;
      int64_t bytes = 0;
      const Instruction* defining = nullptr;
    };
    absl::flat_hash_map<int, Group> groups;
    std::vector<int> order;
    const EntryComputationLayout& layout = module_.entry_computation_layout();
    for (int id = 0; id < static_cast<int>(values_.size()); ++id) {
      auto [it, added] = groups.try_emplace(Find(id));
      if (added) order.push_back(it->first);
      Group& group = it->second;
      const Instruction* instr = values_[id].instruction;
      const ShapeIndex& index = values_[id].shape_index;
      group.host |= host_[id];
      if (group.defining == nullptr && !has_links_[id]) group.defining = instr;
      if (const Shape* sub = shape_util::TryGetSubshape(instr->shape(), index)) {
        group.bytes = std::max(group.bytes, shape_util::ByteSizeOf(*sub));
      }
      if (instr->parent() != module_.entry()) continue;
      if (instr->opcode() == HloOpcode::kParameter &&
          instr->parameter_number() < static_cast<int64_t>(layout.parameters.size()) &&
          SubshapeIsHost(layout.parameters[instr->parameter_number()], index)) {
        group.boundary = true;
      }
      if (instr->IsRoot() && SubshapeIsHost(layout.result, index)) group.boundary = true;
    }
    HostIntermediates result;
    for (int root : order) {
      const Group& group = groups[root];
      if (!group.host || group.boundary) continue;
      result.bytes = shape_util::SaturatingAdd(result.bytes, group.bytes);
      ++result.buffers;
      if (group.bytes > result.largest_bytes) {
        result.largest_bytes = group.bytes;
        result.largest = group.defining ? group.defining : values_[root].instruction;
      }
    }
    return result;
  }

 private:
  std::pair<int, bool> Id(const InstructionAndShapeIndex& value) {
    auto [it, added] = ids_.try_emplace(value, static_cast<int>(values_.size()));
    if (added) {
      values_.push_back(value);
      parent_.push_back(it->second);
      host_.push_back(false);
      has_links_.push_back(false);
    }
    return {it->second, added};
  }
  int Find(int id) {
    while (parent_[id] != id) {
      parent_[id] = parent_[parent_[id]];
      id = parent_[id];
    }
    return id;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
  }
  // The values whose storage `value` shares, towards its producers.
  std::vector<InstructionAndShapeIndex> Links(const InstructionAndShapeIndex& value) {
    std::vector<InstructionAndShapeIndex> links;
    Instruction* instr = value.instruction;
    const ShapeIndex& index = value.shape_index;
    auto add = [&](Instruction* producer, ShapeIndex at) {
      const Shape* sub = shape_util::TryGetSubshape(producer->shape(), at);
      if (sub != nullptr && sub->IsArray()) links.push_back({producer, std::move(at)});
    };
    auto prefixed = [&](int64_t first, size_t skip) {
      ShapeIndex next;
      if (first >= 0) next.push_back(first);
      next.insert(next.end(), index.begin() + skip, index.end());
      return next;
    };
    switch (instr->opcode()) {
      case HloOpcode::kGetTupleElement:
        add(instr->operand(0), prefixed(instr->tuple_index(), 0));
        break;
      case HloOpcode::kTuple:
        if (!index.empty() && index.front() < instr->operand_count()) {
          add(instr->operand(index.front()), prefixed(-1, 1));
        }
        break;
      case HloOpcode::kBitcast:
      case HloOpcode::kOptimizationBarrier:
        if (instr->operand_count() == 1) add(instr->operand(0), index);
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (index.empty()) add(instr->operand(0), {});
        break;
      case HloOpcode::kWhile:
        if (instr->operand_count() == 1) add(instr->operand(0), index);
        if (Computation* body = instr->while_body()) add(body->root(), index);
        break;
      case HloOpcode::kCall:
        if (!instr->called_computations().empty()) {
          add(instr->called_computations()[0]->root(), index);
        }
        break;
      case HloOpcode::kConditional:
        for (Computation* branch : instr->called_computations()) add(branch->root(), index);
        break;
      case HloOpcode::kAsyncStart:
        if (index.size() >= 2 && index[0] == 0 && index[1] < instr->operand_count()) {
          add(instr->operand(index[1]), prefixed(-1, 2));
        }
        if (index.size() >= 1 && index[0] == 1 && !instr->called_computations().empty()) {
          add(instr->called_computations()[0]->root(), prefixed(-1, 1));
        }
        break;
      case HloOpcode::kAsyncDone:
        if (instr->operand_count() == 1) add(instr->operand(0), prefixed(1, 0));
        break;
      case HloOpcode::kParameter:
        if (instr->parent() == module_.entry()) break;
        for (Instruction* caller : call_graph_.CallersOf(instr->parent())) {
          const int64_t number = instr->parameter_number();
          switch (caller->opcode()) {
            case HloOpcode::kWhile:
              if (caller->operand_count() == 1) add(caller->operand(0), index);
              break;
            case HloOpcode::kCall:
            case HloOpcode::kAsyncStart:
              if (number < caller->operand_count()) add(caller->operand(number), index);
              break;
            case HloOpcode::kConditional: {
              const auto& branches = caller->called_computations();
              for (size_t b = 0; b < branches.size(); ++b) {
                if (branches[b] == instr->parent() &&
                    static_cast<int64_t>(b + 1) < caller->operand_count()) {
                  add(caller->operand(static_cast<int64_t>(b + 1)), index);
                }
              }
              break;
            }
            default:
              break;
          }
        }
        break;
      case HloOpcode::kCustomCall:
        for (const auto& alias : instr->output_to_operand_aliasing()) {
          if (alias.output.size() > index.size() ||
              !std::equal(alias.output.begin(), alias.output.end(), index.begin()) ||
              alias.operand < 0 || alias.operand >= instr->operand_count()) {
            continue;
          }
          ShapeIndex next = alias.operand_index;
          next.insert(next.end(), index.begin() + alias.output.size(), index.end());
          add(instr->operand(alias.operand), std::move(next));
        }
        break;
      default:
        break;
    }
    return links;
  }

  const Module& module_;
  const CallGraph& call_graph_;
  absl::flat_hash_map<InstructionAndShapeIndex, int> ids_;
  std::vector<InstructionAndShapeIndex> values_;
  std::vector<int> parent_;
  std::vector<bool> host_;
  std::vector<bool> has_links_;
};

// Detects, with --pinned-host-budget=BYTES, more host memory than the budget
// in the module the pipeline produced: the host leaves at the entry boundary
// (S(5) in entry_computation_layout; a donated input aliased to an output
// counted once) plus the host-resident intermediates (HostBufferGroups: the
// offloaded activations that live in host memory during the program, such
// as a scan's stacked residuals). Host arguments, results and offloaded
// buffers live in pinned host memory, which the runtime takes from a pool of
// limited size. XLA compiles such a program (the pool belongs to the
// runtime, not to the compiler), and it fails at run time with an
// out-of-memory error.
class PinnedHostBudgetExceeded : public LintChecker {
 public:
  void AfterModule(LintContext& context) override {
    const LintOptions& options = context.options();
    if (!options.pinned_host_budget.has_value()) return;
    const Module& module = context.module();
    const LintInputFacts& facts = context.facts();
    std::vector<Diagnostic>& out = context.out();
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
    const HostIntermediates intermediates =
        HostBufferGroups(module, context.call_graph()).Count();
    const int64_t total = shape_util::SaturatingAdd(
        shape_util::SaturatingAdd(in, out_bytes) - shared, intermediates.bytes);
    if (total > *options.pinned_host_budget) {
      Diagnostic d = MakeDiagnostic(
          DiagCode::kHO3012,
          absl::StrCat(
              "host memory at the entry boundary, ", LintBytes(in), " in and ",
              LintBytes(out_bytes), " out",
              shared > 0 ? absl::StrCat(" (", LintBytes(shared),
                                        " of them one donated buffer)")
                         : std::string(),
              intermediates.buffers > 0
                  ? absl::StrCat(", and ", LintBytes(intermediates.bytes),
                                 " of host-resident intermediates in ",
                                 intermediates.buffers,
                                 intermediates.buffers == 1 ? " buffer" : " buffers",
                                 " (offloaded values held in host memory "
                                 "during the program)")
                  : std::string(),
              ", ", total, " bytes (", LintBytes(total),
              ") in all, exceeds the pinned-host budget of ",
              *options.pinned_host_budget, " bytes (",
              LintBytes(*options.pinned_host_budget),
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
      if (intermediates.largest_bytes > largest) {
        largest = intermediates.largest_bytes;
        const Instruction* buffer = intermediates.largest;
        where = absl::StrCat(
            "the host-resident intermediate ", buffer->origin_name().substr(
                0, buffer->origin_name().find(' ')),
            " (", buffer->opcode() == HloOpcode::kCustomCall
                      ? std::string(buffer->custom_call_target())
                      : std::string(HloOpcodeString(buffer->opcode())),
            " in ", buffer->parent()->name(), ")",
            SourceSuffix(module, buffer));
      }
      if (largest > 0) {
        d.notes.push_back(Note{
            absl::StrCat("the largest pinned buffer is ", where, ", ",
                         LintBytes(largest), " in one piece"),
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
};

}  // namespace

std::unique_ptr<LintChecker> NewPinnedHostBudgetExceeded() {
  return std::make_unique<PinnedHostBudgetExceeded>();
}

}  // namespace hloff
