// Host buffers (host_buffers.h): a union-find over (instruction, array leaf
// index).
#include "analysis/host_buffers.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace hloff {
namespace {

using IAS = InstructionAndShapeIndex;

// Values that share storage, grouped by a union-find whose representative is
// always the earliest value of its group.
class BufferGroups {
 public:
  BufferGroups(const Module& module, const CallGraph& call_graph,
               const HostBufferOptions& options)
      : module_(module), call_graph_(call_graph), options_(options) {}

  std::vector<HostBufferGroup> Intermediates(const std::vector<IAS>& host_leaves) {
    std::vector<int> worklist;
    for (const IAS& leaf : host_leaves) {
      auto [id, added] = Id(leaf);
      host_[id] = true;
      if (added) worklist.push_back(id);
    }
    const bool breadth_first =
        options_.discovery == HostBufferOptions::Discovery::kBreadthFirst;
    size_t head = 0;  // breadth first: the queue is worklist[head..]
    while (head < worklist.size()) {
      int id;
      if (breadth_first) {
        id = worklist[head++];
      } else {
        id = worklist.back();
        worklist.pop_back();
      }
      // Links() may grow values_: copy the value out before.
      const IAS value = values_[id];
      for (IAS& link : Links(value)) {
        auto [other, added] = Id(std::move(link));
        has_links_[id] = true;
        Union(id, other);
        if (added) worklist.push_back(other);
      }
    }
    return Summarise();
  }

 private:
  struct Group {
    int first_host = -1;
    int defining = -1;
    bool host = false, boundary = false, loop = false;
    int64_t bytes = 0;
  };

  // Each group's summary; a group's representative is its smallest id, so
  // the groups come out in the order of their first value.
  std::vector<HostBufferGroup> Summarise() {
    const int count = static_cast<int>(values_.size());
    std::vector<Group> groups(count);
    const EntryComputationLayout& layout = module_.entry_computation_layout();
    for (int id = 0; id < count; ++id) {
      Group& group = groups[Find(id)];
      const IAS& value = values_[id];
      const Instruction* instr = value.instruction;
      const ShapeIndex& index = value.shape_index;
      if (group.first_host < 0 && host_[id]) group.first_host = id;
      if (group.defining < 0 && !has_links_[id]) group.defining = id;
      group.host |= host_[id];
      group.loop |= instr->opcode() == HloOpcode::kWhile;
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
    std::vector<HostBufferGroup> buffers;
    for (int root = 0; root < count; ++root) {
      if (parent_[root] != root) continue;
      const Group& group = groups[root];
      if (!group.host || group.boundary) continue;
      HostBufferGroup buffer;
      buffer.defining = values_[group.defining >= 0 ? group.defining : root];
      buffer.first_host = values_[group.first_host];
      buffer.bytes = group.bytes;
      buffer.loop_carried = group.loop;
      buffers.push_back(std::move(buffer));
    }
    return buffers;
  }

  std::pair<int, bool> Id(IAS value) {
    auto [it, added] = ids_.try_emplace(value, static_cast<int>(values_.size()));
    if (added) {
      values_.push_back(std::move(value));
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
    parent_[b] = a;  // the earlier value stays the representative
  }
  // Whether `value` is one of the host leaves (all of them have ids before
  // the first link is followed).
  bool IsHostLeaf(const IAS& value) const {
    auto it = ids_.find(value);
    return it != ids_.end() && host_[it->second];
  }

  // The values whose storage `value` shares, looking towards producers (the
  // buffer a value forwards), as XLA's alias analysis sees them.
  std::vector<IAS> Links(const IAS& value) const {
    std::vector<IAS> links;
    Instruction* instr = value.instruction;
    const ShapeIndex& index = value.shape_index;
    auto add = [&](Instruction* producer, ShapeIndex at) {
      const Shape* sub = shape_util::TryGetSubshape(producer->shape(), at);
      if (sub != nullptr && sub->IsArray()) links.push_back({producer, std::move(at)});
    };
    // `first` (when not negative) followed by `index` minus its first `skip`.
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
        // ((operands...), (results...), context): the operands alias the
        // start's element {0, p}.
        if (index.size() >= 2 && index[0] == 0 && index[1] < instr->operand_count()) {
          add(instr->operand(index[1]), prefixed(-1, 2));
        }
        // Its results are the wrapped computation's.
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
        if (options_.annotations_on_host_data_forward &&
            (IsMoveToHost(instr) || IsMoveToDevice(instr)) &&
            instr->operand_count() == 1 &&
            IsHostLeaf(IAS{instr->operand(0), index})) {
          // An annotation on data already in host memory moves nothing.
          add(instr->operand(0), index);
        }
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
  const HostBufferOptions& options_;
  absl::flat_hash_map<IAS, int> ids_;
  std::vector<IAS> values_;
  std::vector<int> parent_;
  std::vector<bool> host_;
  std::vector<bool> has_links_;
};

}  // namespace

std::vector<InstructionAndShapeIndex> HostArrayLeaves(const Module& module) {
  std::vector<InstructionAndShapeIndex> leaves;
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead()) continue;
      ShapeIndex scratch;
      shape_util::ForEachSubshape(
          instr->shape(),
          [&](const Shape& leaf, const ShapeIndex& index) {
            if (leaf.IsArray() && leaf.memory_space() == kHostMemorySpace) {
              leaves.push_back({instr.get(), index});
            }
          },
          scratch);
    }
  }
  return leaves;
}

std::vector<HostBufferGroup> IntermediateHostBufferGroups(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves,
    const HostBufferOptions& options) {
  return BufferGroups(module, call_graph, options).Intermediates(host_leaves);
}

}  // namespace hloff
