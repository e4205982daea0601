// GatherExpander (kEliminateSimpleGathers) for constant indices.
#include "passes/gather_expander.h"

#include <optional>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "analysis/side_effects.h"
#include "passes/replace_instruction.h"

namespace hloff {
namespace {

std::optional<std::vector<int64_t>> IntsAttribute(const Instruction* instr,
                                                  absl::string_view name) {
  auto attr = instr->FindRawAttribute(name);
  if (!attr) return std::vector<int64_t>{};
  return ParseIntegers(attr->value);
}

// Expands `gather` when it is simple and its indices constant; returns
// whether it did.
bool Expand(Instruction* gather, SideEffects& side_effects) {
  if (gather->operand_count() != 2 || !gather->shape().IsArray()) return false;
  Instruction* operand = gather->operand(0);
  const Instruction* indices = gather->operand(1);
  const Shape& os = operand->shape();
  const Shape& is = indices->shape();
  if (!os.IsArray() || !is.IsArray() || indices->opcode() != HloOpcode::kConstant ||
      !IsIntegralType(is.element_type) || gather->shape().ElementCount() == 0 ||
      !is.dynamic_dimensions.empty() || !os.dynamic_dimensions.empty()) {
    return false;
  }
  auto batching = IntsAttribute(gather, "operand_batching_dims");
  auto start_map = IntsAttribute(gather, "start_index_map");
  auto slice_sizes = IntsAttribute(gather, "slice_sizes");
  auto ivd = IntsAttribute(gather, "index_vector_dim");
  if (!batching || !batching->empty() || !start_map || !slice_sizes ||
      !ivd || ivd->size() != 1 ||
      static_cast<int64_t>(slice_sizes->size()) != os.rank()) {
    return false;
  }
  const int64_t index_vector_dim = (*ivd)[0];
  // GatherLoopTripCount: the index vectors, every dimension of the indices
  // but index_vector_dim.
  int64_t trip_count = 1;
  for (int64_t d = 0; d < is.rank(); ++d) {
    if (d != index_vector_dim) trip_count *= is.dimensions[d];
  }
  const int64_t vector_size =
      index_vector_dim < is.rank() ? is.dimensions[index_vector_dim] : 1;
  if (trip_count != 1 || vector_size != static_cast<int64_t>(start_map->size())) {
    return false;
  }
  auto values = ParseIntegers(indices->literal_text());
  if (!values || static_cast<int64_t>(values->size()) != vector_size) return false;
  std::vector<int64_t> starts(os.rank(), 0);
  for (size_t k = 0; k < start_map->size(); ++k) {
    int64_t dim = (*start_map)[k];
    if (dim < 0 || dim >= os.rank()) return false;
    starts[dim] = (*values)[k];
  }
  for (int64_t d = 0; d < os.rank(); ++d) {
    if ((*slice_sizes)[d] < 0 || (*slice_sizes)[d] > os.dimensions[d]) return false;
  }

  Computation* comp = gather->parent();
  Shape scalar;
  scalar.element_type = is.element_type;
  std::vector<Instruction*> ds_operands = {operand};
  for (int64_t d = 0; d < os.rank(); ++d) {
    Instruction* c = comp->AddInstruction(HloOpcode::kConstant, scalar, {}, "constant");
    InstructionBuilder::SetLiteral(c, absl::StrCat(starts[d]));
    ds_operands.push_back(c);
  }
  Shape slice_shape;
  slice_shape.element_type = os.element_type;
  slice_shape.dimensions = *slice_sizes;
  shape_util::SetDefaultLayoutsWhereMissing(slice_shape);
  Instruction* ds = comp->AddInstruction(HloOpcode::kDynamicSlice, slice_shape,
                                         ds_operands, gather->name());
  InstructionBuilder::SetDynamicSliceSizes(ds, *slice_sizes);
  Instruction* reshape = comp->AddInstruction(HloOpcode::kReshape, gather->shape(),
                                              {ds}, gather->name());
  for (Instruction* made : {ds, reshape}) {
    made->set_metadata_from(*gather);
    made->set_input_from(*gather, gather->input_computation());
  }
  if (!ReplaceInstruction(gather, reshape, ReplaceOptions(), side_effects)) {
    comp->RemoveInstructionAndUnusedOperands(reshape);
    return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> GatherExpander::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (const auto& comp : module.computations()) {
    if (comp->execution_thread() != "main") continue;
    std::vector<Instruction*> gathers;
    for (const auto& instr : comp->raw_instructions()) {
      if (!instr->IsDead() && instr->opcode() == HloOpcode::kGather &&
          instr->control_predecessors().empty()) {
        gathers.push_back(instr.get());
      }
    }
    for (Instruction* gather : gathers) {
      if (Expand(gather, side_effects)) {
        changed = true;
        context_.Trace(1, absl::StrCat("Expanding ", gather->name(),
                                       " into a dynamic-slice"));
      }
    }
  }
  return changed;
}

}  // namespace hloff
