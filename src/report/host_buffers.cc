// Host buffers (host_buffers.h): a union-find over (instruction, array leaf
// index).
#include "report/host_buffers.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/offload_utils.h"
#include "report/report_util.h"

namespace hloff {
namespace {

using IAS = InstructionAndShapeIndex;
using report_util::BytesAt;
using report_util::Ref;
using report_util::ShapeAt;

// Host buffers: values that share storage grouped by a union-find over
// (instruction, array leaf index).
class BufferGroups {
 public:
  BufferGroups(const Module& module, const CallGraph& call_graph)
      : module_(module), call_graph_(call_graph) {}

  // Groups `host_leaves` (array leaves in host memory) with every value that
  // shares their storage, and returns the groups that are neither host entry
  // parameters nor host entry outputs.
  std::vector<HostBuffer> IntermediateBuffers(const std::vector<IAS>& host_leaves) {
    absl::flat_hash_set<IAS> host_set(host_leaves.begin(), host_leaves.end());
    std::deque<int> worklist;
    for (const IAS& leaf : host_leaves) {
      auto [id, added] = Id(leaf);
      host_[id] = true;
      if (added) worklist.push_back(id);
    }
    while (!worklist.empty()) {
      int id = worklist.front();
      worklist.pop_front();
      IAS value = values_[id];
      for (const IAS& link : Links(value, host_set)) {
        auto [other, added] = Id(link);
        Union(id, other);
        if (added) worklist.push_back(other);
      }
    }
    // Summarise each group in first-seen order.
    struct Group {
      int first = -1;
      int first_host = -1;
      int defining = -1;
      bool host = false, boundary = false, loop = false;
      int64_t bytes = 0;
    };
    absl::flat_hash_map<int, Group> groups;
    std::vector<int> order;
    const EntryComputationLayout& layout = module_.entry_computation_layout();
    for (int id = 0; id < static_cast<int>(values_.size()); ++id) {
      int root = Find(id);
      auto [it, added] = groups.try_emplace(root);
      if (added) order.push_back(root);
      Group& group = it->second;
      const IAS& value = values_[id];
      const Instruction* instr = value.instruction;
      if (group.first < 0) group.first = id;
      if (group.first_host < 0 && host_[id]) group.first_host = id;
      if (group.defining < 0 && !has_links_[id]) group.defining = id;
      group.host |= host_[id];
      group.loop |= instr->opcode() == HloOpcode::kWhile;
      group.bytes = std::max(group.bytes, BytesAt(instr->shape(), value.shape_index));
      if (instr->parent() == module_.entry()) {
        if (instr->opcode() == HloOpcode::kParameter &&
            instr->parameter_number() <
                static_cast<int64_t>(layout.parameters.size()) &&
            SubshapeIsHost(layout.parameters[instr->parameter_number()],
                           value.shape_index)) {
          group.boundary = true;
        }
        if (instr->IsRoot() && SubshapeIsHost(layout.result, value.shape_index)) {
          group.boundary = true;
        }
      }
    }
    std::vector<HostBuffer> buffers;
    for (int root : order) {
      const Group& group = groups[root];
      if (!group.host || group.boundary) continue;
      const IAS& defining = values_[group.defining >= 0 ? group.defining : group.first];
      const IAS& host = values_[group.first_host];
      HostBuffer buffer;
      buffer.defined_by = Ref(defining.instruction);
      buffer.defined_by_opcode =
          defining.instruction->opcode() == HloOpcode::kCustomCall
              ? std::string(defining.instruction->custom_call_target())
              : std::string(HloOpcodeString(defining.instruction->opcode()));
      buffer.shape = ShapeAt(host.instruction->shape(), host.shape_index);
      buffer.bytes = group.bytes;
      buffer.loop_carried = group.loop;
      buffers.push_back(std::move(buffer));
    }
    return buffers;
  }

 private:
  std::pair<int, bool> Id(const IAS& value) {
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
    parent_[b] = a;  // the earlier value stays the representative
  }

  // The values whose storage `value` shares, looking towards producers (the
  // buffer a value forwards), as XLA's alias analysis sees them.
  std::vector<IAS> Links(const IAS& value,
                         const absl::flat_hash_set<IAS>& host_set) {
    std::vector<IAS> links;
    Instruction* instr = value.instruction;
    const ShapeIndex& index = value.shape_index;
    auto add = [&](Instruction* producer, ShapeIndex producer_index) {
      const Shape* sub =
          shape_util::TryGetSubshape(producer->shape(), producer_index);
      if (sub == nullptr || !sub->IsArray()) return;
      links.push_back({producer, std::move(producer_index)});
    };
    switch (instr->opcode()) {
      case HloOpcode::kGetTupleElement: {
        ShapeIndex next = {instr->tuple_index()};
        next.insert(next.end(), index.begin(), index.end());
        add(instr->operand(0), std::move(next));
        break;
      }
      case HloOpcode::kTuple:
        if (!index.empty() && index.front() < instr->operand_count()) {
          add(instr->operand(index.front()),
              ShapeIndex(index.begin() + 1, index.end()));
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
        if (Computation* body = instr->while_body(); body != nullptr) {
          add(body->root(), index);
        }
        break;
      case HloOpcode::kCall:
        if (!instr->called_computations().empty()) {
          add(instr->called_computations()[0]->root(), index);
        }
        break;
      case HloOpcode::kConditional:
        for (Computation* branch : instr->called_computations()) {
          add(branch->root(), index);
        }
        break;
      case HloOpcode::kAsyncStart:
        // ((operands...), (results...), context): the operands alias the
        // start's element {0, p}.
        if (index.size() >= 2 && index[0] == 0 &&
            index[1] < instr->operand_count()) {
          add(instr->operand(index[1]), ShapeIndex(index.begin() + 2, index.end()));
        }
        // Its results are the wrapped computation's.
        if (index.size() >= 1 && index[0] == 1 &&
            !instr->called_computations().empty()) {
          add(instr->called_computations()[0]->root(),
              ShapeIndex(index.begin() + 1, index.end()));
        }
        break;
      case HloOpcode::kAsyncDone:
        if (instr->operand_count() == 1) {
          ShapeIndex next = {1};
          next.insert(next.end(), index.begin(), index.end());
          add(instr->operand(0), std::move(next));
        }
        break;
      case HloOpcode::kParameter: {
        if (instr->parent() == module_.entry()) break;
        for (Instruction* caller : call_graph_.CallersOf(instr->parent())) {
          switch (caller->opcode()) {
            case HloOpcode::kWhile:
              if (caller->operand_count() == 1) add(caller->operand(0), index);
              break;
            case HloOpcode::kCall:
            case HloOpcode::kAsyncStart:
              if (instr->parameter_number() < caller->operand_count()) {
                add(caller->operand(instr->parameter_number()), index);
              }
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
      }
      case HloOpcode::kCustomCall:
        if ((IsMoveToHost(instr) || IsMoveToDevice(instr)) &&
            instr->operand_count() == 1 &&
            host_set.contains(IAS{instr->operand(0), index})) {
          // An annotation on data already in host memory moves nothing.
          add(instr->operand(0), index);
        }
        for (const auto& alias : instr->output_to_operand_aliasing()) {
          if (alias.output.size() > index.size() ||
              !std::equal(alias.output.begin(), alias.output.end(),
                          index.begin()) ||
              alias.operand < 0 || alias.operand >= instr->operand_count()) {
            continue;
          }
          ShapeIndex next = alias.operand_index;
          next.insert(next.end(), index.begin() + alias.output.size(),
                      index.end());
          add(instr->operand(alias.operand), std::move(next));
        }
        break;
      default:
        break;
    }
    if (!links.empty()) has_links_[ids_.at(value)] = true;
    return links;
  }

  const Module& module_;
  const CallGraph& call_graph_;
  absl::flat_hash_map<IAS, int> ids_;
  std::vector<IAS> values_;
  std::vector<int> parent_;
  std::vector<bool> host_;
  std::vector<bool> has_links_;
};

}  // namespace

std::vector<HostBuffer> IntermediateHostBuffers(
    const Module& module, const CallGraph& call_graph,
    const std::vector<InstructionAndShapeIndex>& host_leaves) {
  BufferGroups groups(module, call_graph);
  return groups.IntermediateBuffers(host_leaves);
}

}  // namespace hloff
