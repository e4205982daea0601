// The HLO IR: Module, Computation, Instruction. Mirrors the parts of
// xla/hlo/ir/hlo_instruction.h, hlo_computation.h and hlo_module.h that the
// host-offloading passes and the printer use. Attributes that no pass
// interprets are kept as their (whitespace-normalised) text so that printing
// loses nothing.
#ifndef HLO_OFFLOAD_IR_HLO_H_
#define HLO_OFFLOAD_IR_HLO_H_

#include "absl/strings/string_view.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/opcode.h"
#include "ir/shape.h"

namespace hloff {

class Computation;
class Module;

// A position in the input text; line and column are 1-based, 0 = unknown.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  bool known() const { return line != 0; }
};

// The parsed `metadata={...}` of an instruction (xla::OpMetadata), plus its
// text for printing.
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t stack_frame_id = 0;
  bool empty() const {
    return op_type.empty() && op_name.empty() && source_file.empty() &&
           source_line == 0 && stack_frame_id == 0;
  }
};

// An attribute kept as text: `name=value`.
struct RawAttribute {
  std::string name;
  std::string value;
};

// Which of an instruction's attributes are printed from structured fields;
// everything else is printed from RawAttribute text in input order.
enum class AttrKind {
  kRaw,                 // RawAttribute at `raw_index`
  kCalledComputations,  // to_apply, calls, body, condition, branch lists, ...
  kFrontendAttributes,
  kControlPredecessors,
  kCustomCallTarget,
  kIndex,               // get-tuple-element index
  kDynamicSliceSizes,
};

struct AttrSlot {
  AttrKind kind;
  std::string name;   // attribute name as printed
  size_t raw_index = 0;  // for kRaw
  // For kCalledComputations: which entries of called_computations() it
  // prints, and whether it is a list (`{a, b}`).
  size_t first = 0, count = 0;
  bool is_list = false;
};

// One HLO instruction. Owned by its Computation; operands and users are
// pointers within the same computation.
class Instruction {
 public:
  HloOpcode opcode() const { return opcode_; }
  // The spelling printed for the opcode; differs from HloOpcodeString for
  // async sugar such as `custom-call-start`.
  absl::string_view opcode_spelling() const { return opcode_spelling_; }
  const std::string& name() const { return name_; }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }
  Computation* parent() const { return parent_; }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = loc; }

  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  const std::vector<Instruction*>& operands() const { return operands_; }
  // Users in first-use order, each once (xla::HloInstruction::users).
  const std::vector<Instruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  // The operand positions at which `operand` is used by this instruction.
  std::vector<int64_t> OperandIndices(const Instruction* operand) const;

  const std::vector<Computation*>& called_computations() const {
    return called_computations_;
  }

  // The computation named by attribute `attr` (to_apply, body, condition,
  // calls, ...), or nullptr.
  Computation* CalledComputation(absl::string_view attr) const;
  // while: its body and condition.
  Computation* while_body() const { return CalledComputation("body"); }
  Computation* while_condition() const { return CalledComputation("condition"); }

  bool IsRoot() const;
  bool IsDead() const { return dead_; }

  // Opcode-specific fields.
  int64_t parameter_number() const { return parameter_number_; }
  int64_t tuple_index() const { return tuple_index_; }
  const std::string& custom_call_target() const { return custom_call_target_; }
  bool IsCustomCall(absl::string_view target) const {
    return opcode_ == HloOpcode::kCustomCall && custom_call_target_ == target;
  }
  const std::string& literal_text() const { return literal_text_; }
  const std::vector<int64_t>& dynamic_slice_sizes() const {
    return dynamic_slice_sizes_;
  }
  // slice={[start:limit:stride], ...}
  struct SliceDim {
    int64_t start, limit, stride;
  };
  const std::vector<SliceDim>& slice_dims() const { return slice_dims_; }
  // async_execution_thread of async ops, execution thread "main" by default.
  const std::string& async_execution_thread() const {
    return async_execution_thread_;
  }
  // output_to_operand_aliasing={{out}: (operand, {in})}.
  struct Aliasing {
    ShapeIndex output;
    int64_t operand;
    ShapeIndex operand_index;
  };
  const std::vector<Aliasing>& output_to_operand_aliasing() const {
    return output_to_operand_aliasing_;
  }
  const OpMetadata& metadata() const { return metadata_; }
  const std::optional<RawAttribute>& sharding() const { return sharding_; }

  // Frontend attributes in input order; values keep their quotes or braces.
  const std::vector<std::pair<std::string, std::string>>& frontend_attributes()
      const {
    return frontend_attributes_;
  }
  // The unquoted value of frontend attribute `key`, if present.
  std::optional<std::string> GetFrontendAttribute(absl::string_view key) const;
  // True once a pass changed the frontend attributes (they then print in
  // canonical form instead of as read).
  bool frontend_attributes_modified() const {
    return frontend_attributes_modified_;
  }
  // Adds `key="value"` unless `key` exists (map-insert semantics, as XLA's
  // SetHostComputeFrontendAttribute). Returns true if added.
  bool AddFrontendAttribute(absl::string_view key, absl::string_view value);

  const std::vector<Instruction*>& control_predecessors() const {
    return control_predecessors_;
  }

  // Raw attributes, for printing and for the rare reader.
  const std::vector<RawAttribute>& raw_attributes() const { return raw_attributes_; }
  const std::vector<AttrSlot>& attr_slots() const { return attr_slots_; }
  // The text of raw attribute `name`, if present.
  const RawAttribute* FindRawAttribute(absl::string_view name) const;

  // Mutation. These keep users() consistent.
  void ReplaceOperandWith(int64_t index, Instruction* new_operand);
  // Replaces every use of this instruction (operands of users, and the root
  // of the parent computation) with `other`.
  void ReplaceAllUsesWith(Instruction* other);
  // Replaces the uses of this instruction by `user` only.
  void ReplaceUseWith(Instruction* user, Instruction* other);
  void set_custom_call_target(std::string target) {
    custom_call_target_ = std::move(target);
  }
  void set_sharding(std::optional<RawAttribute> sharding);
  void DropFrontendAttributes();
  void set_metadata_from(const Instruction& other);
  // Records where this (pass-created) instruction comes from in the user's
  // program, for diagnostics only: the metadata is not printed.
  void set_origin(const OpMetadata& metadata, SourceLoc loc,
                  absl::string_view origin_name = {}) {
    metadata_ = metadata;
    loc_ = loc;
    origin_name_ = std::string(origin_name);
  }
  // The name of the input instruction this one replaces (e.g. the
  // annotate_device_placement a MoveToHost came from), else its own name.
  const std::string& origin_name() const {
    return origin_name_.empty() ? name_ : origin_name_;
  }

 private:
  friend class Computation;
  friend class Module;
  friend class Parser;
  friend class InstructionBuilder;

  void AddUser(Instruction* user);
  void RemoveUser(Instruction* user);

  HloOpcode opcode_ = HloOpcode::kParameter;
  std::string opcode_spelling_;
  std::string name_;
  Shape shape_;
  Computation* parent_ = nullptr;
  SourceLoc loc_;
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  std::vector<Computation*> called_computations_;
  std::vector<Instruction*> control_predecessors_;
  std::vector<Instruction*> control_successors_;
  bool dead_ = false;
  bool frontend_attributes_modified_ = false;
  std::string origin_name_;

  int64_t parameter_number_ = -1;
  int64_t tuple_index_ = -1;
  std::string custom_call_target_;
  std::string literal_text_;
  std::vector<int64_t> dynamic_slice_sizes_;
  std::vector<SliceDim> slice_dims_;
  std::string async_execution_thread_ = "main";
  std::vector<Aliasing> output_to_operand_aliasing_;
  OpMetadata metadata_;
  std::optional<RawAttribute> sharding_;
  std::vector<std::pair<std::string, std::string>> frontend_attributes_;
  std::vector<RawAttribute> raw_attributes_;
  std::vector<AttrSlot> attr_slots_;
};

// A computation: an ordered list of instructions with parameters and a root.
class Computation {
 public:
  const std::string& name() const { return name_; }
  Module* parent() const { return parent_; }
  bool IsEntry() const;
  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }
  const std::string& execution_thread() const { return execution_thread_; }
  SourceLoc loc() const { return loc_; }
  // True for the computation the parser builds for a sugared async op
  // (`custom-call-start(...)`): XLA does not print it, neither do we.
  bool is_synthesized() const { return synthesized_; }

  int64_t num_parameters() const { return static_cast<int64_t>(params_.size()); }
  Instruction* parameter(int64_t i) const { return params_[i]; }
  const std::vector<Instruction*>& parameters() const { return params_; }

  // Live instructions in their stored order (input order, then additions).
  std::vector<Instruction*> instructions() const;
  int64_t instruction_count() const;
  // Live instructions in post order: operands (and control predecessors)
  // first, visiting roots in stored order (xla MakeInstructionPostOrder).
  std::vector<Instruction*> MakeInstructionPostOrder() const;
  // Iterates over the stored instruction list without copying; dead ones are
  // included and must be skipped by the caller.
  const std::vector<std::unique_ptr<Instruction>>& raw_instructions() const {
    return instructions_;
  }

  // Creates an instruction in this computation. `name_prefix` is made unique
  // module-wide (copy, copy.1, ...).
  Instruction* AddInstruction(HloOpcode opcode, const Shape& shape,
                              std::vector<Instruction*> operands,
                              absl::string_view name_prefix);
  // Marks `instruction` dead and detaches it from its operands. It must have
  // no users and must not be the root. Memory is reclaimed by Sweep().
  void RemoveInstruction(Instruction* instruction);
  // Removes `instruction` and, transitively, operands left without users
  // (xla RemoveInstructionAndUnusedOperands); parameters and side-effecting
  // custom calls are kept.
  void RemoveInstructionAndUnusedOperands(Instruction* instruction);
  // Frees dead instructions.
  void Sweep();

 private:
  friend class Module;
  friend class Parser;
  std::string name_;
  Module* parent_ = nullptr;
  Instruction* root_ = nullptr;
  std::string execution_thread_ = "main";
  SourceLoc loc_;
  std::vector<Instruction*> params_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  int64_t dead_count_ = 0;
  bool synthesized_ = false;
};

// Checks that the shapes flowing unchanged through `instr` agree, ignoring
// layouts, as XLA's HloVerifier does: a get-tuple-element and its tuple
// element; a tuple and its operands; a copy, opt-barrier or
// dynamic-update-slice and its operand 0; a while, call or conditional and
// the parameters and roots of its computations. Returns what disagrees
// ("tuple element 1 has shape f32[8] but f32[9] is passed to it"), or an
// empty string. Malformed structure (a missing computation, an index out of
// range) is reported the same way.
std::string ForwardedShapeMismatch(const Instruction& instr);

// The entry computation layout: the source of truth for which parameters and
// outputs live in host memory (xla::ComputationLayout).
struct EntryComputationLayout {
  std::vector<Shape> parameters;
  Shape result;
  // True when the header spelled it out; false when derived from the entry
  // computation's parameter and root shapes.
  bool from_header = false;
};

// Stack-frame tables of 2025-12+ dumps (FileNames, FunctionNames,
// FileLocations, StackFrames), 1-based ids in order.
struct StackFrameIndex {
  std::vector<std::string> file_names;      // escaped text, no quotes
  std::vector<std::string> function_names;  // escaped text, no quotes
  struct FileLocation {
    int64_t file_name_id, function_name_id, line, end_line, column, end_column;
  };
  std::vector<FileLocation> file_locations;
  struct Frame {
    int64_t file_location_id, parent_frame_id;  // parent as printed (+1)
  };
  std::vector<Frame> frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() &&
           file_locations.empty() && frames.empty();
  }
};

// An HLO module.
class Module {
 public:
  Module();
  const std::string& name() const { return name_; }
  Computation* entry() const { return entry_; }
  const std::vector<std::unique_ptr<Computation>>& computations() const {
    return computations_;
  }
  Computation* FindComputation(absl::string_view name) const;
  EntryComputationLayout& entry_computation_layout() { return entry_layout_; }
  const EntryComputationLayout& entry_computation_layout() const {
    return entry_layout_;
  }
  // Header attributes other than entry_computation_layout, in input order.
  const std::vector<RawAttribute>& header_attributes() const {
    return header_attributes_;
  }
  // Where entry_computation_layout was (or would be) printed among the header
  // attributes.
  size_t entry_layout_position() const { return entry_layout_position_; }
  const StackFrameIndex& stack_frame_index() const { return stack_frames_; }
  bool has_header() const { return has_header_; }
  // Path of the file the module came from (for diagnostics), may be empty.
  const std::string& source_path() const { return source_path_; }
  void set_source_path(std::string path) { source_path_ = std::move(path); }
  // Line:column of the first byte of the module in its file (for
  // --split-input-file).
  uint32_t line_offset() const { return line_offset_; }
  void set_line_offset(uint32_t offset) { line_offset_ = offset; }

  // Returns a name unique in this module built from `prefix` (XLA's
  // NameUniquer: `copy`, `copy.1`, ...), and reserves it.
  std::string UniqueName(absl::string_view prefix);
  // Reserves `name` (used by the parser for every name it reads).
  void ReserveName(absl::string_view name);

  // Resolves `stack_frame_id` to a (file, line, function) if the tables have it.
  struct SourcePosition {
    std::string file;
    int64_t line = 0;
    std::string function;
  };
  std::optional<SourcePosition> ResolveSource(const OpMetadata& metadata) const;

  // Frees all dead instructions in all computations.
  void Sweep();

 private:
  friend class Parser;
  std::string name_;
  Computation* entry_ = nullptr;
  std::vector<std::unique_ptr<Computation>> computations_;
  absl::flat_hash_map<std::string, Computation*> computation_by_name_;
  EntryComputationLayout entry_layout_;
  std::vector<RawAttribute> header_attributes_;
  size_t entry_layout_position_ = 0;
  StackFrameIndex stack_frames_;
  bool has_header_ = true;
  std::string source_path_;
  uint32_t line_offset_ = 0;
  // NameUniquer state: for each root name, the ids in use (0 = bare root)
  // and the next id to try.
  struct NameIds {
    absl::flat_hash_map<int64_t, bool> used;
    int64_t next = 0;
  };
  absl::flat_hash_map<std::string, NameIds> names_;
};

// Builds a computation's instruction ready for AddInstruction-style wiring;
// used by passes that need attributes beyond opcode/shape/operands.
class InstructionBuilder {
 public:
  static void SetCustomCallTarget(Instruction* instr, std::string target) {
    instr->custom_call_target_ = std::move(target);
    instr->attr_slots_.push_back(
        AttrSlot{AttrKind::kCustomCallTarget, "custom_call_target"});
  }
  static void SetDynamicSliceSizes(Instruction* instr,
                                   std::vector<int64_t> sizes) {
    instr->dynamic_slice_sizes_ = std::move(sizes);
    instr->attr_slots_.push_back(
        AttrSlot{AttrKind::kDynamicSliceSizes, "dynamic_slice_sizes"});
  }
  static void SetLiteral(Instruction* instr, std::string literal) {
    instr->literal_text_ = std::move(literal);
  }
  static void SetTupleIndex(Instruction* instr, int64_t index) {
    instr->tuple_index_ = index;
    instr->attr_slots_.push_back(AttrSlot{AttrKind::kIndex, "index"});
  }
  // Copies every attribute of `from` (raw and structured) onto `to`, which
  // must have the same opcode and no attributes yet. Called computations are
  // shared.
  static void CopyAttributes(const Instruction& from, Instruction* to);
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_HLO_H_
