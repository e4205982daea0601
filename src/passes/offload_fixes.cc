// E1200 fixes: descriptions and application.
#include "passes/offload_fixes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "analysis/offload_utils.h"
#include "text/printer.h"

namespace hloff {

OutputValue FindOutputValue(const Module& module, const ShapeIndex& index) {
  OutputValue value;
  value.producer = module.entry()->root();
  value.rest = index;
  while (!value.rest.empty() && value.producer->opcode() == HloOpcode::kTuple &&
         value.rest.front() < value.producer->operand_count()) {
    value.consumer = value.producer;
    value.operand_index = value.rest.front();
    value.producer = value.producer->operand(value.rest.front());
    value.rest.erase(value.rest.begin());
  }
  return value;
}

namespace {

// Entry layouts with more parameters and outputs than this are not spelled
// out whole in a fix.
constexpr size_t kMaxLayoutElementsInFix = 64;

// "output {1}"; for a module whose result is not a tuple, "the single result
// (output {})".
std::string OutputName(const Module& module, const ShapeIndex& index) {
  if (index.empty() && !module.entry_computation_layout().result.IsTuple()) {
    return "the single result (output {})";
  }
  return absl::StrCat("output ", ShapeIndexToString(index));
}
}  // namespace

std::string OutShardingsEntry(absl::string_view output_path) {
  constexpr absl::string_view kResult = "result";
  if (absl::StartsWith(output_path, kResult)) {
    absl::string_view keys = output_path.substr(kResult.size());
    if (keys.empty() || keys.front() == '[' || keys.front() == '.') {
      return absl::StrCat("out_shardings", keys);
    }
  }
  return absl::StrCat("the out_shardings entry of ", output_path);
}

std::vector<Fix> E1200Fixes(const Module& module, const ShapeIndex& index,
                            absl::string_view output_path) {
  std::vector<Fix> fixes;
  const EntryComputationLayout& declared = module.entry_computation_layout();
  const Shape* declared_leaf =
      shape_util::TryGetSubshape(declared.result, index);
  if (declared_leaf != nullptr) {
    // The whole new layout, unless it is long (a module with thousands of
    // outputs would repeat it in every diagnostic): then the output's part.
    std::string new_layout;
    if (declared.parameters.size() + declared.result.tuple_shapes.size() <=
        kMaxLayoutElementsInFix) {
      EntryComputationLayout layout = declared;
      shape_util::SetMemorySpaceOfLeaves(
          *shape_util::TryGetMutableSubshape(layout.result, index),
          kHostMemorySpace);
      new_layout = absl::StrCat("entry_computation_layout=",
                                EntryLayoutToString(layout));
    } else {
      Shape leaf = *declared_leaf;
      shape_util::SetMemorySpaceOfLeaves(leaf, kHostMemorySpace);
      new_layout = absl::StrCat("the result of entry_computation_layout at ",
                                ShapeIndexToString(index), " becomes ",
                                ShapeToString(leaf));
    }
    std::string jax =
        !output_path.empty() ? OutShardingsEntry(output_path)
        : index.size() == 1
            ? absl::StrCat("out_shardings[", index[0], "]")
            : index.empty() ? std::string("out_shardings")
                            : absl::StrCat("the out_shardings entry of ",
                                           OutputName(module, index));
    // Without pytree names the index is the flat one: where the function
    // returns a pytree, out_shardings[i] is not that output's entry.
    std::string flat =
        output_path.empty() && index.size() == 1
            ? absl::StrCat("; ", index[0], " is the flat output index (the "
                           "module has no pytree names): with nested outputs, "
                           "it is leaf ", index[0],
                           " of jax.tree.leaves(out_shardings)")
            : std::string();
    fixes.push_back(Fix{
        "host-output",
        absl::StrCat("declare ", OutputName(module, index),
                     " in host memory: ", new_layout, "; in JAX give ", jax,
                     " memory_kind=\"pinned_host\" (e.g. "
                     "sharding.with_memory_kind(\"pinned_host\"))",
                     flat)});
  }
  OutputValue value = FindOutputValue(module, index);
  std::string where =
      value.consumer == nullptr
          ? absl::StrCat("on the root ", value.producer->origin_name())
          : absl::StrCat("on ", value.producer->origin_name(),
                         " where it becomes operand ",
                         value.operand_index, " of ", value.consumer->name());
  std::string source;
  if (auto pos = module.ResolveSource(value.producer->metadata());
      pos && !pos->file.empty()) {
    source = absl::StrCat(" (", pos->file, ":", pos->line, ")");
  }
  fixes.push_back(Fix{
      "move-to-device",
      absl::StrCat("move the value back to device memory before it is returned "
                   "as ",
                   OutputName(module, index), ": a MoveToDevice ", where, source,
                   "; in JAX call jax.device_put(x, "
                   "sharding.with_memory_kind(\"device\")) (or use a "
                   "NamedSharding with memory_kind=\"device\") on the value "
                   "before returning it")});
  return fixes;
}

absl::Status ApplyE1200Fix(Module& module, FixStrategy strategy,
                           const std::vector<ShapeIndex>& outputs) {
  for (const ShapeIndex& index : outputs) {
    if (shape_util::TryGetSubshape(module.entry_computation_layout().result,
                                   index) == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("the entry computation has no output ",
                       ShapeIndexToString(index)));
    }
  }
  if (strategy == FixStrategy::kHostOutput) {
    EntryComputationLayout& layout = module.entry_computation_layout();
    for (const ShapeIndex& index : outputs) {
      shape_util::SetMemorySpaceOfLeaves(
          *shape_util::TryGetMutableSubshape(layout.result, index),
          kHostMemorySpace);
    }
    layout.from_header = true;
    return absl::OkStatus();
  }
  for (const ShapeIndex& index : outputs) {
    OutputValue value = FindOutputValue(module, index);
    Instruction* producer = value.producer;
    if (IsMoveToDevice(producer)) continue;  // already fixed by an earlier index
    Computation* entry = module.entry();
    Instruction* to_device = entry->AddInstruction(
        HloOpcode::kCustomCall, producer->shape(), {producer}, "move_to_device");
    InstructionBuilder::SetCustomCallTarget(to_device,
                                            std::string(kMoveToDeviceTarget));
    if (value.consumer == nullptr) {
      entry->set_root(to_device);
    } else {
      value.consumer->ReplaceOperandWith(value.operand_index, to_device);
    }
  }
  return absl::OkStatus();
}

}  // namespace hloff
