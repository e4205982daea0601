// HostOffloadLegalize (main spec §3.2).
#include "passes/host_offload_legalize.h"

#include <algorithm>
#include <deque>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/call_graph.h"
#include "analysis/offload_utils.h"
#include "support/status_macros.h"
#include "text/printer.h"

namespace hloff {
namespace {

// (instruction, tuple index or -1): legalize tracks one tuple level only.
struct InstrAndIndex {
  Instruction* instruction;
  int64_t index;
  bool operator==(const InstrAndIndex& o) const {
    return instruction == o.instruction && index == o.index;
  }
};

bool IsEntryParameter(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kParameter && instr->parent()->IsEntry();
}

bool IsSliceLike(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kSlice ||
         instr->opcode() == HloOpcode::kDynamicSlice;
}

bool IsLayoutHop(const Instruction* instr) {
  return instr->opcode() == HloOpcode::kBitcast ||
         instr->opcode() == HloOpcode::kCopy ||
         instr->opcode() == HloOpcode::kReshape;
}

// Up from a DUS update operand through single-use bitcast/copy/reshape to its
// MoveToHost; nullptr if there is none.
Instruction* FindToHostAnnotationToUpdate(Instruction* instr) {
  while (!IsMoveToHost(instr)) {
    if (!IsLayoutHop(instr) || instr->operand_count() < 1 ||
        instr->operand(0)->user_count() != 1) {
      return nullptr;
    }
    instr = instr->operand(0);
  }
  return instr;
}

// Down through single-user bitcast/reshape/copy/slice/dynamic-slice to a
// MoveToDevice; nullptr if there is none.
Instruction* FindToDeviceAnnotationToUpdate(Instruction* instr) {
  while (!IsMoveToDevice(instr)) {
    if (instr->user_count() != 1 || !(IsLayoutHop(instr) || IsSliceLike(instr))) {
      return nullptr;
    }
    instr = instr->users()[0];
  }
  return instr;
}

// Down from an annotation's user through single-user layout hops to a DUS;
// returns where it stopped.
Instruction* FindDUSFromAnnotation(Instruction* instr) {
  while (instr->opcode() != HloOpcode::kDynamicUpdateSlice) {
    if (instr->user_count() != 1 || !IsLayoutHop(instr)) break;
    instr = instr->users()[0];
  }
  return instr;
}

Shape* SubshapeAt(Instruction* instr, int64_t index) {
  Shape* shape = instr->mutable_shape();
  if (index < 0) return shape;
  if (!shape->IsTuple() ||
      index >= static_cast<int64_t>(shape->tuple_shapes.size())) {
    return nullptr;
  }
  return &shape->tuple_shapes[index];
}

class Legalizer {
 public:
  Legalizer(Module& module, const PassContext& context)
      : module_(module), context_(context) {}

  absl::StatusOr<bool> Run();

 private:
  // HostOffloadLegalize's own log (a different module than
  // --vmodule=host_offloader): shown from trace level 6 only.
  void Trace(absl::string_view line) const {
    if (context_.TraceOn(6)) *context_.trace << "host_offload_legalize: " << line << "\n";
  }
  absl::Status Fail(DiagCode code, absl::StatusCode status, std::string message,
                    const Instruction* instr) {
    if (context_.diagnostics) {
      Diagnostic d = MakeDiagnostic(code, message, instr);
      d.status_code = status;
      context_.diagnostics->Emit(std::move(d));
    }
    return absl::Status(status, message);
  }
  absl::Status WhileCallerError(const Computation* comp,
                                const std::vector<Instruction*>& callers,
                                const Instruction* at) {
    std::vector<std::string> names;
    for (const Instruction* c : callers) names.emplace_back(c->name());
    return Fail(DiagCode::kHO1010, absl::StatusCode::kInvalidArgument,
                absl::StrCat("Expected computation \"", comp->name(),
                             "\" to be called only by one caller and that "
                             "caller to be a While. There are ",
                             callers.size(), " caller(s): [",
                             absl::StrJoin(names, ", "), "]"),
                at);
  }

  absl::StatusOr<InstrAndIndex> WalkUpMemoryOffload(
      const InstrAndIndex& current);
  absl::StatusOr<std::vector<InstrAndIndex>> WalkDownMemoryOffload(
      const InstrAndIndex& current, bool for_move_copy_phase,
      bool* unsupported_host_call);
  void UpdateLayout(const InstrAndIndex& value, const Layout& layout);
  absl::StatusOr<std::pair<Shape, Shape>> ShapesAfterBitcast(
      const Instruction* bitcast, const Instruction* copy,
      const Shape& before, const Shape& after);
  absl::Status MoveCopyDown(const InstrAndIndex& copy);
  bool ShouldMoveCopyDown(Instruction* copy);
  absl::StatusOr<bool> ProcessAnnotationForCopyMovement(Instruction* start);

  Module& module_;
  const PassContext& context_;
  // Built when first needed: modules without offloading never need it.
  const CallGraph& call_graph() {
    if (!call_graph_) call_graph_.emplace(module_);
    return *call_graph_;
  }
  std::optional<CallGraph> call_graph_;
  absl::flat_hash_set<const Instruction*> processed_annotations_;
  std::vector<Instruction*> to_remove_;
};

absl::StatusOr<InstrAndIndex> Legalizer::WalkUpMemoryOffload(
    const InstrAndIndex& current) {
  Instruction* instr = current.instruction;
  int64_t index = current.index;
  auto invalid = [](std::string m) { return absl::InvalidArgumentError(m); };
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement:
      if (index != -1) return invalid("nested tuple index");
      return InstrAndIndex{instr->operand(0), instr->tuple_index()};
    case HloOpcode::kBitcast:
    case HloOpcode::kReshape:
    case HloOpcode::kCopy:
    case HloOpcode::kOptimizationBarrier:
      return InstrAndIndex{instr->operand(0), index};
    case HloOpcode::kTuple:
      if (index < 0 || index >= instr->operand_count()) {
        return invalid("tuple reached without an index");
      }
      return InstrAndIndex{instr->operand(index), -1};
    case HloOpcode::kWhile: {
      Instruction* root = instr->while_body()->root();
      if (root->opcode() != HloOpcode::kTuple) {
        return invalid("while body root is not a tuple");
      }
      return InstrAndIndex{root, index};
    }
    case HloOpcode::kParameter: {
      if (instr->parent()->IsEntry()) return current;
      auto callers = call_graph().CallersOf(instr->parent());
      if (callers.size() != 1) {
        return invalid("Expected to be called only by one caller");
      }
      if (callers[0]->opcode() != HloOpcode::kWhile) {
        return invalid("Expected to be called by a while loop");
      }
      return InstrAndIndex{callers[0]->operand(0), index};
    }
    case HloOpcode::kDynamicUpdateSlice:
      return InstrAndIndex{instr->operand(0), index};
    case HloOpcode::kCustomCall:
      if (!instr->IsCustomCall(kAllocateBufferTarget) && !IsMoveToHost(instr)) {
        return invalid("Expected AllocateBuffer or MoveToHost custom-call");
      }
      return current;
    case HloOpcode::kBroadcast: {
      const Instruction* operand = instr->operand(0);
      if (operand->opcode() != HloOpcode::kConstant) {
        return invalid("Expected a constant as operand");
      }
      if (operand->shape().ElementCount() != 1) {
        return invalid("Expected a scalar broadcast");
      }
      return current;
    }
    default:
      return invalid(absl::StrCat("Invalid opcode ", InstructionToString(*instr)));
  }
}

absl::StatusOr<std::vector<InstrAndIndex>> Legalizer::WalkDownMemoryOffload(
    const InstrAndIndex& current, bool for_move_copy_phase,
    bool* unsupported_host_call) {
  std::vector<InstrAndIndex> results;
  auto invalid = [](std::string m) { return absl::InvalidArgumentError(m); };
  auto add_gtes = [&](Instruction* instr, int64_t index) -> absl::Status {
    for (Instruction* user : instr->users()) {
      if (user->opcode() != HloOpcode::kGetTupleElement) {
        return invalid("Expected users to be only get-tuple-elements");
      }
      if (user->tuple_index() == index) results.push_back({user, -1});
    }
    return absl::OkStatus();
  };
  Instruction* instr = current.instruction;
  if (instr->user_count() == 0 && instr->IsRoot() &&
      !instr->parent()->IsEntry()) {
    auto callers = call_graph().CallersOf(instr->parent());
    if (callers.size() != 1 || callers[0]->opcode() != HloOpcode::kWhile) {
      std::vector<std::string> names;
      for (const Instruction* c : callers) names.emplace_back(c->name());
      return invalid(absl::StrCat(
          "Expected computation \"", instr->parent()->name(),
          "\" to be called only by one caller and that caller to be a While. "
          "There are ",
          callers.size(), " caller(s): [", absl::StrJoin(names, ", "), "]"));
    }
    RETURN_IF_ERROR(add_gtes(callers[0], current.index));
    return results;
  }
  if (instr->opcode() == HloOpcode::kParameter && instr->shape().IsTuple()) {
    RETURN_IF_ERROR(add_gtes(instr, current.index));
    return results;
  }
  for (Instruction* user : instr->users()) {
    switch (user->opcode()) {
      case HloOpcode::kGetTupleElement:
        if (user->tuple_index() == current.index) results.push_back({user, -1});
        break;
      case HloOpcode::kTuple: {
        auto positions = user->OperandIndices(instr);
        if (positions.size() != 1) {
          return invalid("Expected operand to be used only once in the tuple.");
        }
        results.push_back({user, positions[0]});
        break;
      }
      case HloOpcode::kOptimizationBarrier:
        results.push_back({user, current.index});
        break;
      case HloOpcode::kWhile:
        results.push_back({user->while_body()->parameter(0), current.index});
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (user->OperandIndices(instr)[0] != 0) {
          return invalid(
              "Expected to be used by first operand of dynamic-update-slice");
        }
        results.push_back({user, current.index});
        break;
      case HloOpcode::kCustomCall:
        if (IsMoveToDevice(user)) {
          results.push_back({user, current.index});
          break;
        }
        return invalid("Invalid custom-call found.");
      case HloOpcode::kBitcast:
      case HloOpcode::kCopy:
      case HloOpcode::kDynamicSlice:
      case HloOpcode::kReshape:
      case HloOpcode::kSlice:
        results.push_back({user, current.index});
        break;
      case HloOpcode::kAsyncStart:
        if (IsHostAsyncStart(user)) {
          if (for_move_copy_phase) {
            // XLA fails a CHECK here ("Transpose copy going into host call
            // ... should not be moved"); ShouldMoveCopyDown prevents it.
            *unsupported_host_call = true;
            return invalid(absl::StrCat(
                "a layout-changing copy would be moved into host call \"",
                user->name(), "\""));
          }
          break;
        }
        [[fallthrough]];
      default:
        return invalid(absl::StrCat("Unrecognized user name: ", user->name()));
    }
  }
  return results;
}

void Legalizer::UpdateLayout(const InstrAndIndex& value, const Layout& layout) {
  Shape* shape = SubshapeAt(value.instruction, value.index);
  // A layout of another rank (a copy moved past a rank-changing reshape)
  // would make the shape invalid; such a node keeps its own layout.
  if (shape != nullptr && shape->IsArray() &&
      static_cast<int64_t>(layout.minor_to_major.size()) != shape->rank()) {
    return;
  }
  if (shape != nullptr && shape->IsArray()) {
    shape->layout = layout;
    shape->has_layout = true;
  }
  if (value.instruction->opcode() == HloOpcode::kWhile && value.index >= 0) {
    Shape* root = SubshapeAt(value.instruction->while_body()->root(), value.index);
    if (root != nullptr && root->IsArray()) root->layout = layout;
    Computation* cond = value.instruction->while_condition();
    if (cond->num_parameters() > 0) {
      Shape* param = SubshapeAt(cond->parameter(0), value.index);
      if (param != nullptr && param->IsArray()) param->layout = layout;
    }
  }
}

// Drops the dimension that is major-most in the layout (xla
// RemoveMajormostDimension).
Shape RemoveMajormostDimension(const Shape& shape) {
  Shape out = shape;
  int64_t dim = shape.layout.minor_to_major.back();
  out.dimensions.erase(out.dimensions.begin() + dim);
  if (!out.dynamic_dimensions.empty()) {
    out.dynamic_dimensions.erase(out.dynamic_dimensions.begin() + dim);
  }
  out.layout.minor_to_major.pop_back();
  for (int64_t& d : out.layout.minor_to_major) {
    if (d > dim) --d;
  }
  return out;
}

// Prepends a size-1 major dimension, keeping the tiles.
Shape AddMajormostDimension(const Shape& shape) {
  Shape out = shape;
  out.dimensions.insert(out.dimensions.begin(), 1);
  if (!out.dynamic_dimensions.empty()) {
    out.dynamic_dimensions.insert(out.dynamic_dimensions.begin(), false);
  }
  for (int64_t& d : out.layout.minor_to_major) ++d;
  out.layout.minor_to_major.push_back(0);
  return out;
}

// Dimension 0 is major-most, or every more-major dimension has size 1.
bool IsEffectivelyMostMajorDimension0(const Shape& shape) {
  const auto& m2m = shape.layout.minor_to_major;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (*it == 0) return true;
    if (shape.dimensions[*it] != 1) return false;
  }
  return false;
}

absl::StatusOr<std::pair<Shape, Shape>> Legalizer::ShapesAfterBitcast(
    const Instruction* bitcast, const Instruction* copy, const Shape& before,
    const Shape& after) {
  if (!shape_util::Compatible(copy->operand(0)->shape(), copy->shape())) {
    return absl::InternalError(absl::StrCat(
        "Expecting copy to only change instruction's layout. Copy: ",
        InstructionToString(*copy)));
  }
  const Shape& in = bitcast->operand(0)->shape();
  const Shape& out = bitcast->shape();
  if (out.rank() == in.rank() - 1) {
    if (!(IsEffectivelyMostMajorDimension0(in) && in.dimensions[0] == 1)) {
      return absl::InternalError(absl::StrCat(
          "Only handling bitcasts with majormost dimension of size 1. This "
          "bitcast is \"",
          InstructionToString(*bitcast), "\""));
    }
    return std::make_pair(RemoveMajormostDimension(before),
                          RemoveMajormostDimension(after));
  }
  if (out.rank() == in.rank() + 1) {
    if (!(IsEffectivelyMostMajorDimension0(out) && out.dimensions[0] == 1)) {
      return absl::UnimplementedError(absl::StrCat(
          "Only handling bitcasts with majormost dimension of size 1. This "
          "bitcast is \"",
          InstructionToString(*bitcast), "\""));
    }
    return std::make_pair(AddMajormostDimension(before),
                          AddMajormostDimension(after));
  }
  if (out.rank() == in.rank()) {
    if (!shape_util::Compatible(in, out)) {
      return absl::UnimplementedError(absl::StrCat(
          "Only handling bitcasts which change the layout. This bitcast (\"",
          bitcast->name(), "\") has input shape \"", ShapeToString(in),
          "\" and output shape \"", ShapeToString(out), "\"."));
    }
    if (in == out) return std::make_pair(before, after);
    const auto& in_m2m = in.layout.minor_to_major;
    const auto& out_m2m = out.layout.minor_to_major;
    Layout in_rest = in.layout, out_rest = out.layout;
    in_rest.minor_to_major.clear();
    out_rest.minor_to_major.clear();
    if (in_m2m != out_m2m && in_rest == out_rest) {
      std::vector<size_t> permutation(in_m2m.size());
      for (size_t i = 0; i < in_m2m.size(); ++i) {
        permutation[i] = static_cast<size_t>(
            std::find(out_m2m.begin(), out_m2m.end(), in_m2m[i]) -
            out_m2m.begin());
      }
      auto permute = [&](const Shape& original) {
        Shape result = original;
        for (size_t i = 0; i < permutation.size(); ++i) {
          result.layout.minor_to_major[i] =
              original.layout.minor_to_major[permutation[i]];
        }
        return result;
      };
      return std::make_pair(permute(before), permute(after));
    }
    return absl::UnimplementedError(absl::StrCat(
        "Something about this layout changed other than the minor-to-major "
        "ordering. This is unsuppored. Bitcast: \"",
        InstructionToString(*bitcast), "\""));
  }
  return absl::UnimplementedError(absl::StrCat(
      "Bitcast changes dimensionality in an unsupported way. Bitcast: \"",
      InstructionToString(*bitcast), "\""));
}

Instruction* CloneWithNewOperands(const Instruction* original, const Shape& shape,
                                  std::vector<Instruction*> operands,
                                  Computation* comp) {
  Instruction* clone = comp->AddInstruction(original->opcode(), shape,
                                            std::move(operands), original->name());
  InstructionBuilder::CopyAttributes(*original, clone);
  clone->set_loc(original->loc());
  return clone;
}

absl::Status Legalizer::MoveCopyDown(const InstrAndIndex& copy_value) {
  Instruction* copy = copy_value.instruction;
  struct Item {
    InstrAndIndex value;
    Shape before, after;
  };
  std::vector<Item> stack = {{copy_value, copy->operand(0)->shape(), copy->shape()}};
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    bool host_call = false;
    auto users = WalkDownMemoryOffload(item.value, /*for_move_copy_phase=*/true,
                                       &host_call);
    if (!users.ok()) {
      if (host_call) {
        return Fail(DiagCode::kHO9002, absl::StatusCode::kUnimplemented,
                    std::string(users.status().message()), copy);
      }
      break;
    }
    for (const InstrAndIndex& next : *users) {
      Instruction* instr = next.instruction;
      Shape before = item.before;
      Shape after = item.after;
      if (instr->opcode() == HloOpcode::kBitcast) {
        auto shapes = ShapesAfterBitcast(instr, copy, before, after);
        if (!shapes.ok()) {
          return Fail(DiagCode::kHO1011, shapes.status().code(),
                      std::string(shapes.status().message()), instr);
        }
        before = shapes->first;
        after = shapes->second;
      } else if (IsSliceLike(instr)) {
        Shape resized = instr->shape();
        resized.layout = after.layout;
        resized.has_layout = true;
        after = resized;
      }
      UpdateLayout(next, before.layout);
      if (instr->opcode() == HloOpcode::kParameter) {
        auto callers = call_graph().CallersOf(instr->parent());
        if (callers.size() != 1) {
          return Fail(DiagCode::kHO1010, absl::StatusCode::kInvalidArgument,
                      "Expected to be called only by one caller", instr);
        }
        UpdateLayout({callers[0], next.index}, before.layout);
      }
      if (instr->opcode() == HloOpcode::kCopy) {
        return Fail(DiagCode::kHO1011, absl::StatusCode::kInternal,
                    "Copies should be processed in reverse order so this "
                    "never happens",
                    instr);
      }
      if (IsSliceLike(instr) || IsMoveToDevice(instr)) {
        Instruction* annotation = FindToDeviceAnnotationToUpdate(instr);
        if (annotation == nullptr) {
          return Fail(DiagCode::kHO1011, absl::StatusCode::kInternal,
                      "no MoveToDevice found below a slice that was checked to "
                      "have one",
                      instr);
        }
        Instruction* new_annotation = annotation;
        if (!IsMoveToDevice(instr)) {
          new_annotation = CloneWithNewOperands(annotation, instr->shape(),
                                                {instr}, instr->parent());
        }
        UpdateLayout({new_annotation, -1}, before.layout);
        Instruction* new_copy =
            CloneWithNewOperands(copy, after, {new_annotation}, instr->parent());
        Trace(absl::StrCat("Inserting copy \"", new_copy->name(), "\" after \"",
                           instr->name(), "\""));
        std::vector<Instruction*> instr_users(instr->users().begin(),
                                              instr->users().end());
        for (Instruction* use : instr_users) {
          if (use == new_copy || use == new_annotation) continue;
          instr->ReplaceUseWith(use, new_copy);
        }
        if (instr->IsRoot()) instr->parent()->set_root(new_copy);
        if (new_annotation != annotation) {
          annotation->ReplaceAllUsesWith(annotation->operand(0));
          to_remove_.push_back(annotation);
        }
        continue;
      }
      if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
        Instruction* annotation = FindToHostAnnotationToUpdate(instr->operand(1));
        if (annotation == nullptr) {
          return Fail(DiagCode::kHO1011, absl::StatusCode::kInternal,
                      "Annotation not found.", instr);
        }
        Instruction* update = instr->operand(1);
        Instruction* new_annotation = CloneWithNewOperands(
            annotation, update->shape(), {update}, instr->parent());
        instr->ReplaceOperandWith(1, new_annotation);
        annotation->ReplaceAllUsesWith(annotation->operand(0));
        processed_annotations_.insert(annotation);
        processed_annotations_.insert(new_annotation);
        to_remove_.push_back(annotation);
        if (instr->shape().layout.minor_to_major !=
            new_annotation->shape().layout.minor_to_major) {
          new_annotation->mutable_shape()->layout = instr->shape().layout;
          Instruction* layout_copy = instr->parent()->AddInstruction(
              HloOpcode::kCopy, new_annotation->shape(),
              {new_annotation->operand(0)}, "copy");
          new_annotation->ReplaceOperandWith(0, layout_copy);
        }
      }
      stack.push_back({next, before, after});
    }
  }
  Trace(absl::StrCat("Removing copy \"", copy->name(), "\""));
  copy->ReplaceAllUsesWith(copy->operand(0));
  copy->parent()->RemoveInstruction(copy);
  return absl::OkStatus();
}

bool Legalizer::ShouldMoveCopyDown(Instruction* copy) {
  std::deque<InstructionAndShapeIndex> queue = {{copy, {}}};
  absl::flat_hash_set<InstructionAndShapeIndex> seen = {{copy, {}}};
  while (!queue.empty()) {
    InstructionAndShapeIndex current = queue.front();
    queue.pop_front();
    if (current.instruction->IsRoot() && current.instruction->parent()->IsEntry()) {
      return false;
    }
    auto successors = GetSuccessors(current, call_graph(),
                                    /*skip_whole_tuple_reads=*/true);
    if (!successors.ok()) return false;
    for (const InstructionAndShapeIndex& s : *successors) {
      if (IsMoveToDevice(s.instruction)) continue;
      if (s.instruction->opcode() == HloOpcode::kParameter &&
          s.instruction->parent()->execution_thread() == "host") {
        return false;
      }
      if (seen.insert(s).second) queue.push_back(s);
    }
  }
  return true;
}

absl::StatusOr<bool> Legalizer::ProcessAnnotationForCopyMovement(
    Instruction* instruction) {
  if (instruction->IsRoot() || instruction->user_count() == 0) return false;
  Instruction* start = FindDUSFromAnnotation(instruction->users()[0]);
  if (start->opcode() != HloOpcode::kDynamicUpdateSlice) start = instruction;
  if (!(IsMoveToHost(start) || IsEntryParameter(start) ||
        start->opcode() == HloOpcode::kDynamicUpdateSlice)) {
    return Fail(DiagCode::kHO1011, absl::StatusCode::kInternal,
                "Starting instruction must be a move-to-host annotation, entry "
                "computation parameter, or dynamic-update-slice.",
                start);
  }
  InstrAndIndex current = {start, -1};
  processed_annotations_.insert(start);
  if (start->opcode() == HloOpcode::kDynamicUpdateSlice) {
    while (true) {
      auto up = WalkUpMemoryOffload(current);
      if (!up.ok()) return false;
      if (*up == current) break;
      current = *up;
      if (current.instruction->opcode() == HloOpcode::kDynamicUpdateSlice) {
        Instruction* real =
            FindToHostAnnotationToUpdate(current.instruction->operand(1));
        if (real == nullptr || !IsMoveToHost(real)) return false;
      }
    }
  }
  // Walk down from the top, collecting the copies to move.
  std::vector<InstrAndIndex> copies;
  std::vector<InstrAndIndex> stack = {current};
  while (!stack.empty()) {
    InstrAndIndex top = stack.back();
    if (IsSliceLike(top.instruction) || IsMoveToDevice(top.instruction)) {
      Instruction* annotation = FindToDeviceAnnotationToUpdate(top.instruction);
      if (annotation == nullptr) return false;
      // While-root fix-up: a MoveToDevice of GTE(param, i) stored back at
      // root position i keeps the loop-carried value on host.
      Instruction* root = annotation->parent()->root();
      for (Instruction* user : annotation->users()) {
        if (user != root || root->opcode() != HloOpcode::kTuple ||
            root->parent()->IsEntry()) {
          continue;
        }
        auto callers = call_graph().CallersOf(annotation->parent());
        if (callers.size() != 1 || callers[0]->opcode() != HloOpcode::kWhile) {
          return WhileCallerError(current.instruction->parent(), callers,
                                  annotation);
        }
        Instruction* operand = annotation->operand(0);
        for (int64_t i = 0; i < user->operand_count(); ++i) {
          if (user->operand(i) == annotation &&
              operand->opcode() == HloOpcode::kGetTupleElement &&
              operand->operand(0)->opcode() == HloOpcode::kParameter &&
              operand->tuple_index() == i) {
            user->ReplaceOperandWith(i, operand);
          }
        }
      }
      stack.pop_back();
      continue;
    }
    bool host_call = false;
    auto down = WalkDownMemoryOffload(top, /*for_move_copy_phase=*/false,
                                      &host_call);
    if (!down.ok()) break;
    stack.pop_back();
    stack.insert(stack.end(), down->begin(), down->end());
    for (const InstrAndIndex& value : *down) {
      if (value.instruction->opcode() == HloOpcode::kCopy) {
        Trace(absl::StrCat(" Found a copy to move: \"",
                           value.instruction->name(), "\""));
        copies.push_back(value);
      }
    }
  }
  if (copies.empty()) return false;
  bool changed = false;
  for (auto it = copies.rbegin(); it != copies.rend(); ++it) {
    Instruction* copy = it->instruction;
    if (copy->IsDead()) continue;
    if (ShouldMoveCopyDown(copy)) {
      RETURN_IF_ERROR(MoveCopyDown(*it));
      changed = true;
      continue;
    }
    // Cannot go down: swap above its MoveToHost if that is its operand.
    Instruction* mth = copy->operand(0);
    if (!IsMoveToHost(mth)) continue;
    // The copy is about to read the MoveToHost's operand in its place: with
    // an operand of another shape it would change dimensions (XLA fails the
    // MoveToHost's shape check later, when it is replaced by its operand).
    if (!shape_util::Compatible(mth->shape(), mth->operand(0)->shape())) {
      return Fail(DiagCode::kHO1008, absl::StatusCode::kInternal,
                  absl::StrCat("MoveToHost \"", mth->name(), "\" has shape ",
                               ShapeToString(mth->shape()),
                               " but its operand has shape ",
                               ShapeToString(mth->operand(0)->shape()),
                               "; the copy after it cannot be moved above it"),
                  mth);
    }
    copy->ReplaceAllUsesWith(mth);
    copy->ReplaceOperandWith(0, mth->operand(0));
    mth->ReplaceOperandWith(0, copy);
    copy->mutable_shape()->layout.memory_space = kDefaultMemorySpace;
    mth->mutable_shape()->layout = copy->shape().layout;
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> Legalizer::Run() {
  absl::flat_hash_set<const Computation*> fused;
  for (const auto& comp : module_.computations()) {
    for (Instruction* instr : comp->key_instructions()) {
      if (instr->opcode() == HloOpcode::kFusion) {
        for (Computation* c : instr->called_computations()) fused.insert(c);
      }
    }
  }
  std::vector<Instruction*> starts;
  for (const auto& comp : module_.computations()) {
    if (fused.contains(comp.get())) continue;
    // Entry parameters and MoveToHosts, in stored order.
    for (Instruction* instr : comp->key_instructions()) {
      if (instr->IsDead()) continue;
      if (IsEntryParameter(instr)) {
        const Shape& param =
            module_.entry_computation_layout().parameters[instr->parameter_number()];
        if (param.IsArray() && param.memory_space() == kHostMemorySpace) {
          starts.push_back(instr);
          continue;
        }
      }
      if (IsMoveToHost(instr)) starts.push_back(instr);
    }
  }
  if (context_.TraceOn(6)) {
    std::vector<std::string> names;
    for (const Instruction* s : starts) names.emplace_back(s->name());
    Trace(absl::StrCat("Starting instructions for host memory offload: [",
                       absl::StrJoin(names, ", "), "]"));
  }
  bool changed = false;
  for (Instruction* start : starts) {
    if (processed_annotations_.contains(start) || start->IsDead()) continue;
    ASSIGN_OR_RETURN(bool result, ProcessAnnotationForCopyMovement(start));
    changed |= result;
  }
  for (Instruction* instr : to_remove_) {
    if (!instr->IsDead() && instr->users().empty() && !instr->IsRoot()) {
      instr->parent()->RemoveInstruction(instr);
    }
  }
  module_.Sweep();
  return changed;
}

}  // namespace

absl::StatusOr<bool> HostOffloadLegalize::Run(Module& module) {
  Legalizer legalizer(module, context_);
  return legalizer.Run();
}

}  // namespace hloff
