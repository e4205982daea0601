// HLO IR: use lists, mutation, post order and name uniquing.
#include "ir/hlo.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace hloff {

std::vector<int64_t> Instruction::OperandIndices(
    const Instruction* operand) const {
  std::vector<int64_t> indices;
  for (int64_t i = 0; i < operand_count(); ++i) {
    if (operands_[i] == operand) indices.push_back(i);
  }
  return indices;
}

Computation* Instruction::CalledComputation(absl::string_view attr) const {
  for (const AttrSlot& slot : attr_slots_) {
    if (slot.kind == AttrKind::kCalledComputations && slot.name == attr &&
        slot.count > 0) {
      return called_computations_[slot.first];
    }
  }
  return nullptr;
}

bool Instruction::IsRoot() const {
  return parent_ != nullptr && parent_->root() == this;
}

std::optional<std::string> Instruction::GetFrontendAttribute(
    absl::string_view key) const {
  for (const auto& [k, v] : frontend_attributes_) {
    if (k != key) continue;
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) {
      return v.substr(1, v.size() - 2);
    }
    return v;
  }
  return std::nullopt;
}

bool Instruction::AddFrontendAttribute(absl::string_view key,
                                       absl::string_view value) {
  for (const auto& entry : frontend_attributes_) {
    if (entry.first == key) return false;
  }
  bool had_slot = false;
  for (const AttrSlot& slot : attr_slots_) {
    had_slot |= slot.kind == AttrKind::kFrontendAttributes;
  }
  if (!had_slot) {
    attr_slots_.push_back(
        AttrSlot{AttrKind::kFrontendAttributes, "frontend_attributes"});
  }
  frontend_attributes_.emplace_back(std::string(key),
                                    absl::StrCat("\"", value, "\""));
  frontend_attributes_modified_ = true;
  return true;
}

void Instruction::DropFrontendAttributes() {
  frontend_attributes_.clear();
  attr_slots_.erase(std::remove_if(attr_slots_.begin(), attr_slots_.end(),
                                   [](const AttrSlot& s) {
                                     return s.kind ==
                                            AttrKind::kFrontendAttributes;
                                   }),
                    attr_slots_.end());
}

void Instruction::set_sharding(std::optional<RawAttribute> sharding) {
  bool had = sharding_.has_value();
  sharding_ = std::move(sharding);
  if (had || !sharding_) return;
  // Printed among the raw attributes through a kRaw slot named "sharding".
  raw_attributes_.push_back(*sharding_);
  attr_slots_.push_back(AttrSlot{AttrKind::kRaw, "sharding",
                                 raw_attributes_.size() - 1});
}

void Instruction::set_metadata_from(const Instruction& other) {
  metadata_ = other.metadata_;
  const RawAttribute* md = other.FindRawAttribute("metadata");
  if (md == nullptr) return;
  raw_attributes_.push_back(*md);
  attr_slots_.push_back(
      AttrSlot{AttrKind::kRaw, "metadata", raw_attributes_.size() - 1});
}

const RawAttribute* Instruction::FindRawAttribute(absl::string_view name) const {
  for (const RawAttribute& attr : raw_attributes_) {
    if (attr.name == name) return &attr;
  }
  return nullptr;
}

void Instruction::AddUser(Instruction* user) {
  if (std::find(users_.begin(), users_.end(), user) == users_.end()) {
    users_.push_back(user);
  }
}

void Instruction::RemoveUser(Instruction* user) {
  auto it = std::find(users_.begin(), users_.end(), user);
  if (it != users_.end()) users_.erase(it);
}

void Instruction::ReplaceOperandWith(int64_t index, Instruction* new_operand) {
  Instruction* old = operands_[index];
  if (old == new_operand) return;
  // Already a user of `new_operand` exactly when it is among the operands;
  // checking the operands avoids scanning a possibly long user list.
  bool known = std::find(operands_.begin(), operands_.end(), new_operand) !=
               operands_.end();
  operands_[index] = new_operand;
  if (std::find(operands_.begin(), operands_.end(), old) == operands_.end()) {
    old->RemoveUser(this);
  }
  if (!known) new_operand->users_.push_back(this);
}

void Instruction::ReplaceUseWith(Instruction* user, Instruction* other) {
  if (other == this) return;
  for (int64_t i = 0; i < user->operand_count(); ++i) {
    if (user->operands_[i] == this) user->operands_[i] = other;
  }
  RemoveUser(user);
  other->AddUser(user);
}

void Instruction::ReplaceAllUsesWith(Instruction* other) {
  if (other == this) return;
  // In one sweep, as ReplaceUseWith per user would be quadratic in the
  // number of users (one scan of each list per user).
  // A user already lists `other` among its operands exactly when it is
  // already among other's users.
  std::vector<Instruction*> users = std::move(users_);
  users_.clear();
  for (Instruction* user : users) {
    bool known = false;
    for (Instruction*& operand : user->operands_) {
      known |= operand == other;
      if (operand == this) operand = other;
    }
    if (!known) other->users_.push_back(user);
  }
  if (parent_ != nullptr && parent_->root() == this) parent_->set_root(other);
}

void InstructionBuilder::CopyAttributes(const Instruction& from,
                                        Instruction* to) {
  to->opcode_spelling_ = from.opcode_spelling_;
  to->parameter_number_ = from.parameter_number_;
  to->tuple_index_ = from.tuple_index_;
  to->custom_call_target_ = from.custom_call_target_;
  to->literal_text_ = from.literal_text_;
  to->dynamic_slice_sizes_ = from.dynamic_slice_sizes_;
  to->slice_dims_ = from.slice_dims_;
  to->async_execution_thread_ = from.async_execution_thread_;
  to->output_to_operand_aliasing_ = from.output_to_operand_aliasing_;
  to->metadata_ = from.metadata_;
  to->sharding_ = from.sharding_;
  to->frontend_attributes_ = from.frontend_attributes_;
  to->frontend_attributes_modified_ = from.frontend_attributes_modified_;
  to->raw_attributes_ = from.raw_attributes_;
  to->called_computations_ = from.called_computations_;
  to->attr_slots_.clear();
  for (const AttrSlot& slot : from.attr_slots_) {
    // Control dependencies are not copied (XLA's Clone does not copy them).
    if (slot.kind == AttrKind::kControlPredecessors) continue;
    to->attr_slots_.push_back(slot);
  }
}

bool Computation::IsEntry() const {
  return parent_ != nullptr && parent_->entry() == this;
}

std::vector<Instruction*> Computation::instructions() const {
  std::vector<Instruction*> out;
  out.reserve(instructions_.size() - dead_count_);
  for (const auto& instr : instructions_) {
    if (!instr->dead_) out.push_back(instr.get());
  }
  return out;
}

int64_t Computation::instruction_count() const {
  return static_cast<int64_t>(instructions_.size()) - dead_count_;
}

std::vector<Instruction*> Computation::MakeInstructionPostOrder() const {
  std::vector<Instruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_map<const Instruction*, uint8_t> state;  // 1 open, 2 done
  state.reserve(instructions_.size());
  // Iterative DFS, so that hostile inputs cannot exhaust the stack.
  std::vector<std::pair<Instruction*, size_t>> stack;
  for (const auto& owned : instructions_) {
    Instruction* start = owned.get();
    if (start->dead_ || state.contains(start)) continue;
    stack.emplace_back(start, 0);
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      size_t n_ctrl = node->control_predecessors_.size();
      size_t total = n_ctrl + node->operands_.size();
      if (next < total) {
        Instruction* dep = next < n_ctrl ? node->control_predecessors_[next]
                                         : node->operands_[next - n_ctrl];
        ++next;
        if (dep->dead_ || state.contains(dep)) continue;
        state[dep] = 1;
        stack.emplace_back(dep, 0);
        continue;
      }
      state[node] = 2;
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

Instruction* Computation::AddInstruction(HloOpcode opcode, const Shape& shape,
                                         std::vector<Instruction*> operands,
                                         absl::string_view name_prefix) {
  auto owned = std::make_unique<Instruction>();
  Instruction* instr = owned.get();
  instr->opcode_ = opcode;
  instr->opcode_spelling_ = std::string(HloOpcodeString(opcode));
  instr->shape_ = shape;
  instr->parent_ = this;
  instr->name_ = parent_->UniqueName(name_prefix);
  instr->operands_ = std::move(operands);
  // `instr` is new: it can only be the last user of an operand it names
  // twice, so no scan of (possibly long) user lists is needed.
  for (Instruction* op : instr->operands_) {
    if (op->users_.empty() || op->users_.back() != instr) {
      op->users_.push_back(instr);
    }
  }
  instructions_.push_back(std::move(owned));
  return instr;
}

void Computation::RemoveInstruction(Instruction* instruction) {
  if (instruction->dead_) return;
  instruction->dead_ = true;
  ++dead_count_;
  for (Instruction* op : instruction->operands_) op->RemoveUser(instruction);
  for (Instruction* pred : instruction->control_predecessors_) {
    auto& succ = pred->control_successors_;
    succ.erase(std::remove(succ.begin(), succ.end(), instruction), succ.end());
  }
  for (Instruction* succ : instruction->control_successors_) {
    auto& preds = succ->control_predecessors_;
    preds.erase(std::remove(preds.begin(), preds.end(), instruction),
                preds.end());
    // The successor inherits the removed instruction's predecessors.
    for (Instruction* pred : instruction->control_predecessors_) {
      if (std::find(preds.begin(), preds.end(), pred) == preds.end()) {
        preds.push_back(pred);
        pred->control_successors_.push_back(succ);
      }
    }
  }
  instruction->control_predecessors_.clear();
  instruction->control_successors_.clear();
}

void Computation::RemoveInstructionAndUnusedOperands(Instruction* instruction) {
  std::vector<Instruction*> worklist = {instruction};
  while (!worklist.empty()) {
    Instruction* current = worklist.back();
    worklist.pop_back();
    if (current->dead_ || !current->users_.empty() || current == root_) {
      continue;
    }
    if (current->opcode_ == HloOpcode::kParameter) continue;
    const RawAttribute* side_effect =
        current->FindRawAttribute("custom_call_has_side_effect");
    if (current != instruction && current->opcode_ == HloOpcode::kCustomCall &&
        side_effect != nullptr && side_effect->value == "true") {
      continue;
    }
    std::vector<Instruction*> operands = current->operands_;
    RemoveInstruction(current);
    for (Instruction* op : operands) worklist.push_back(op);
  }
}

void Computation::Sweep() {
  if (dead_count_ == 0) return;
  instructions_.erase(
      std::remove_if(instructions_.begin(), instructions_.end(),
                     [](const std::unique_ptr<Instruction>& i) {
                       return i->dead_;
                     }),
      instructions_.end());
  dead_count_ = 0;
}

std::string ForwardedShapeMismatch(const Instruction& instr) {
  auto differ = [](const Shape& declared, const Shape& forwarded,
                   absl::string_view what) -> std::string {
    if (shape_util::Compatible(declared, forwarded)) return "";
    return absl::StrCat(what, " has shape ", ShapeToString(declared, false),
                        " but ", ShapeToString(forwarded, false),
                        " is passed to it");
  };
  const Shape& shape = instr.shape();
  const auto& operands = instr.operands();
  switch (instr.opcode()) {
    case HloOpcode::kGetTupleElement: {
      int64_t index = instr.tuple_index();
      if (operands.size() != 1 || !operands[0]->shape().IsTuple() || index < 0 ||
          index >= static_cast<int64_t>(operands[0]->shape().tuple_shapes.size())) {
        return absl::StrCat("get-tuple-element of element ", index,
                            " of a value without it");
      }
      return differ(shape, operands[0]->shape().tuple_shapes[index],
                    absl::StrCat("get-tuple-element of element ", index));
    }
    case HloOpcode::kTuple: {
      if (!shape.IsTuple() || shape.tuple_shapes.size() != operands.size()) {
        return absl::StrCat("tuple of ", operands.size(), " operands has shape ",
                            ShapeToString(shape, false));
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        std::string m = differ(shape.tuple_shapes[i], operands[i]->shape(),
                               absl::StrCat("tuple element ", i));
        if (!m.empty()) return m;
      }
      return "";
    }
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kDynamicUpdateSlice:
      if (operands.empty()) return "";
      return differ(shape, operands[0]->shape(), instr.opcode_spelling());
    case HloOpcode::kWhile: {
      const Computation* body = instr.while_body();
      const Computation* cond = instr.while_condition();
      if (operands.size() != 1 || body == nullptr || cond == nullptr ||
          body->num_parameters() != 1 || cond->num_parameters() != 1) {
        return "while without one operand, or a body and a condition of one "
               "parameter each";
      }
      std::string m = differ(shape, operands[0]->shape(), "while");
      if (m.empty()) m = differ(body->parameter(0)->shape(), shape, "the body parameter");
      if (m.empty()) {
        m = differ(cond->parameter(0)->shape(), shape, "the condition parameter");
      }
      if (m.empty()) m = differ(shape, body->root()->shape(), "while (from its body root)");
      return m;
    }
    case HloOpcode::kCall: {
      const Computation* callee = instr.CalledComputation("to_apply");
      if (callee == nullptr ||
          callee->num_parameters() != static_cast<int64_t>(operands.size())) {
        return "call whose operands do not match its callee's parameters";
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        std::string m = differ(callee->parameter(i)->shape(), operands[i]->shape(),
                               absl::StrCat("parameter ", i, " of '",
                                            callee->name(), "'"));
        if (!m.empty()) return m;
      }
      return differ(shape, callee->root()->shape(), "call (from its callee's root)");
    }
    case HloOpcode::kConditional: {
      const auto& branches = instr.called_computations();
      if (operands.size() != branches.size() + 1) {
        return "conditional whose operands do not match its branches";
      }
      for (size_t b = 0; b < branches.size(); ++b) {
        if (branches[b]->num_parameters() != 1) {
          return absl::StrCat("branch '", branches[b]->name(),
                              "' without exactly one parameter");
        }
        std::string m = differ(branches[b]->parameter(0)->shape(),
                               operands[b + 1]->shape(),
                               absl::StrCat("the parameter of branch '",
                                            branches[b]->name(), "'"));
        if (m.empty()) {
          m = differ(shape, branches[b]->root()->shape(),
                     absl::StrCat("conditional (from the root of '",
                                  branches[b]->name(), "')"));
        }
        if (!m.empty()) return m;
      }
      return "";
    }
    default:
      return "";
  }
}

Module::Module() = default;

Computation* Module::FindComputation(absl::string_view name) const {
  auto it = computation_by_name_.find(name);
  return it == computation_by_name_.end() ? nullptr : it->second;
}

namespace {
// Splits `name` into a root and a numeric suffix: "copy.12" -> ("copy", 12);
// "copy" -> ("copy", 0); "copy.0" and "copy.x" keep their whole text as root.
std::pair<absl::string_view, int64_t> SplitNumericSuffix(absl::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == absl::string_view::npos || dot + 1 == name.size()) {
    return {name, 0};
  }
  absl::string_view digits = name.substr(dot + 1);
  if (digits.size() > 18 || digits[0] == '0') return {name, 0};
  for (char c : digits) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return {name, 0};
  }
  int64_t id = 0;
  if (!absl::SimpleAtoi(digits, &id) || id <= 0) return {name, 0};
  return {name.substr(0, dot), id};
}
}  // namespace

void Module::ReserveName(absl::string_view name) {
  auto [root, id] = SplitNumericSuffix(name);
  names_[std::string(root)].used[id] = true;
}

std::string Module::UniqueName(absl::string_view prefix) {
  auto [root, id] = SplitNumericSuffix(prefix);
  NameIds& ids = names_[std::string(root)];
  if (!ids.used.contains(id) && id >= ids.next) {
    ids.used[id] = true;
    return std::string(prefix);
  }
  int64_t next = std::max(ids.next, id);
  while (ids.used.contains(next)) ++next;
  ids.used[next] = true;
  ids.next = next + 1;
  if (next == 0) return std::string(root);
  return absl::StrCat(root, ".", next);
}

std::optional<Module::SourcePosition> Module::ResolveSource(
    const OpMetadata& metadata) const {
  if (!metadata.source_file.empty()) {
    return SourcePosition{metadata.source_file, metadata.source_line, ""};
  }
  int64_t frame_id = metadata.stack_frame_id;
  if (frame_id <= 0 ||
      frame_id > static_cast<int64_t>(stack_frames_.frames.size())) {
    return std::nullopt;
  }
  const auto& frame = stack_frames_.frames[frame_id - 1];
  int64_t loc_id = frame.file_location_id;
  if (loc_id <= 0 ||
      loc_id > static_cast<int64_t>(stack_frames_.file_locations.size())) {
    return std::nullopt;
  }
  const auto& loc = stack_frames_.file_locations[loc_id - 1];
  SourcePosition pos;
  pos.line = loc.line;
  if (loc.file_name_id > 0 &&
      loc.file_name_id <= static_cast<int64_t>(stack_frames_.file_names.size())) {
    pos.file = stack_frames_.file_names[loc.file_name_id - 1];
  }
  if (loc.function_name_id > 0 &&
      loc.function_name_id <=
          static_cast<int64_t>(stack_frames_.function_names.size())) {
    pos.function = stack_frames_.function_names[loc.function_name_id - 1];
  }
  return pos;
}

void Module::Sweep() {
  for (auto& comp : computations_) comp->Sweep();
}

}  // namespace hloff
