// The HLO IR: Module, Computation, Instruction. Mirrors the parts of
// xla/hlo/ir/hlo_instruction.h, hlo_computation.h and hlo_module.h that the
// host-offloading passes and the printer use. Attributes that no pass
// interprets are kept as their (whitespace-normalised) text so that printing
// loses nothing.
//
// Memory: a module costs a fraction of its text. Names and attribute text are
// views into the input buffer (a TextBuffer the Module keeps alive) or into
// the module's arena; instructions, operand lists and attributes live in that
// arena; identical shapes read from the text are stored once and shared until
// a pass mutates one (mutable_shape() copies on write); metadata and frontend
// attributes are parsed when first asked for.
#ifndef HLO_OFFLOAD_IR_HLO_H_
#define HLO_OFFLOAD_IR_HLO_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ir/arena.h"
#include "ir/opcode.h"
#include "ir/shape.h"
#include "ir/text_buffer.h"

namespace hloff {

class Computation;
class Module;

// A position in the input text; line and column are 1-based, 0 = unknown.
struct SourceLoc {
  uint32_t line = 0;
  uint32_t column = 0;
  bool known() const { return line != 0; }
};

// The parsed `metadata={...}` of an instruction (xla::OpMetadata).
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

// An attribute as text, `name=value`: views into text the module owns.
struct RawAttribute {
  absl::string_view name;
  absl::string_view value;
};

// How an instruction attribute is printed: from its text as read (kRaw,
// kFrontendAttributes while unmodified) or from structured fields.
enum class AttrKind : uint8_t {
  kRaw,
  kCalledComputations,  // to_apply, calls, body, condition, branch lists, ...
  kFrontendAttributes,
  kControlPredecessors,
  kCustomCallTarget,
  kIndex,               // get-tuple-element index
  kDynamicSliceSizes,
};

// One attribute of an instruction, in print order (16 bytes).
class Attribute {
 public:
  AttrKind kind() const { return kind_; }
  absl::string_view name() const;
  // The text after `=` for kRaw and kFrontendAttributes; empty otherwise.
  absl::string_view value() const;
  // kCalledComputations: the entries of called_computations() it prints and
  // whether it prints as a list (`{a, b}`).
  size_t first() const;
  size_t count() const;
  bool is_list() const;

 private:
  friend class Instruction;
  friend class InstructionBuilder;
  friend class Parser;
  struct Called {
    absl::string_view name;
    uint32_t first;
    uint32_t count;
    bool is_list;
  };
  static Attribute Text(absl::string_view name_eq_value, size_t name_size,
                        AttrKind kind);
  static Attribute Named(absl::string_view name, AttrKind kind);
  static Attribute CalledList(const Called* called);

  const void* data_ = nullptr;
  uint32_t size_ = 0;
  uint16_t name_size_ = 0;
  AttrKind kind_ = AttrKind::kRaw;
  uint8_t unused_ = 0;
};

// The integers of attribute or literal text, in order, braces flattened:
// `{1,0,2}`, `3`, `{ {3}, {5} }`; nullopt when anything else is in it.
std::optional<std::vector<int64_t>> ParseIntegers(absl::string_view text);

// Splits frontend-attribute text `{k="v", k2={...}}` into its pairs and calls
// `fn(key, value)` for each (values keep their quotes or braces). Returns
// false at the first malformed pair (after the pairs before it), with
// `*error`, if given, saying what was expected there.
bool SplitFrontendAttributes(
    absl::string_view text,
    absl::FunctionRef<void(absl::string_view, absl::string_view)> fn,
    const char** error = nullptr);

// One HLO instruction. Owned by its Computation (memory in the module's
// arena); operands and users are pointers within the same computation.
class Instruction {
 public:
  ~Instruction();
  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;

  HloOpcode opcode() const { return opcode_; }
  // The spelling printed for the opcode; differs from HloOpcodeString for
  // async sugar such as `custom-call-start`.
  absl::string_view opcode_spelling() const;
  absl::string_view name() const {
    return absl::string_view(name_data_, name_size_);
  }
  const Shape& shape() const { return *shape_; }
  // The shape to modify in place. A shape read from the text is shared by
  // the instructions that spell it alike; the first call gives this
  // instruction a copy of its own, so keep no reference to shape() across it.
  Shape* mutable_shape();
  // True when the shape is this instruction's own (after mutable_shape()),
  // not one shared with other instructions.
  bool owns_shape() const { return (flags_ & kOwnsShape) != 0; }
  // Replaces the shape by one equal to `shape` that the module shares among
  // the instructions that have it (cheaper than mutable_shape() when many
  // instructions end up with the same shape).
  void set_shape(const Shape& shape);
  Computation* parent() const { return parent_; }
  // Where the instruction was read (computed on demand); unknown for
  // instructions created by passes unless set.
  SourceLoc loc() const;
  void set_loc(SourceLoc loc);

  int64_t operand_count() const { return operand_count_; }
  Instruction* operand(int64_t i) const { return operands_[i]; }
  absl::Span<Instruction* const> operands() const {
    return absl::MakeConstSpan(operands_, operand_count_);
  }
  // Users in first-use order, each once (xla::HloInstruction::users).
  inline absl::Span<Instruction* const> users() const;
  int64_t user_count() const {
    return static_cast<int64_t>(users_.size()) -
           (rare_ != nullptr ? rare_->removed_users : 0);
  }
  // The operand positions at which `operand` is used by this instruction.
  std::vector<int64_t> OperandIndices(const Instruction* operand) const;

  inline absl::Span<Computation* const> called_computations() const;

  // The computation named by attribute `attr` (to_apply, body, condition,
  // calls, ...), or nullptr.
  Computation* CalledComputation(absl::string_view attr) const;
  // while: its body and condition.
  Computation* while_body() const { return CalledComputation("body"); }
  Computation* while_condition() const { return CalledComputation("condition"); }

  bool IsRoot() const;
  bool IsDead() const { return flags_ & kDead; }

  // Opcode-specific fields.
  int64_t parameter_number() const {
    return opcode_ == HloOpcode::kParameter ? index_ : -1;
  }
  int64_t tuple_index() const {
    return opcode_ == HloOpcode::kParameter ? -1 : index_;
  }
  inline absl::string_view custom_call_target() const;
  bool IsCustomCall(absl::string_view target) const {
    return opcode_ == HloOpcode::kCustomCall && custom_call_target() == target;
  }
  absl::string_view literal_text() const;
  absl::Span<const int64_t> dynamic_slice_sizes() const;
  // slice={[start:limit:stride], ...}
  struct SliceDim {
    int64_t start, limit, stride;
  };
  absl::Span<const SliceDim> slice_dims() const;
  // async_execution_thread of async ops, execution thread "main" by default.
  absl::string_view async_execution_thread() const;
  // output_to_operand_aliasing={{out}: (operand, {in})}.
  struct Aliasing {
    ShapeIndex output;
    int64_t operand;
    ShapeIndex operand_index;
  };
  absl::Span<const Aliasing> output_to_operand_aliasing() const;
  // The parsed metadata (parsed from the attribute text on first use).
  const OpMetadata& metadata() const;
  std::optional<RawAttribute> sharding() const {
    return FindRawAttribute("sharding");
  }

  // Frontend attributes in input order; values keep their quotes or braces.
  const std::vector<std::pair<std::string, std::string>>& frontend_attributes()
      const;
  // The unquoted value of frontend attribute `key`, if present.
  std::optional<std::string> GetFrontendAttribute(absl::string_view key) const;
  // True once a pass changed the frontend attributes (they then print in
  // canonical form instead of as read).
  bool frontend_attributes_modified() const {
    return flags_ & kFrontendModified;
  }
  // Adds `key="value"` unless `key` exists (map-insert semantics, as XLA's
  // SetHostComputeFrontendAttribute). Returns true if added.
  bool AddFrontendAttribute(absl::string_view key, absl::string_view value);
  // Removes frontend attribute `key`; false when there was none.
  bool RemoveFrontendAttribute(absl::string_view key);

  inline absl::Span<Instruction* const> control_predecessors() const;
  inline absl::Span<Instruction* const> control_successors() const;

  // Every attribute in print order.
  absl::Span<const Attribute> attributes() const {
    return absl::MakeConstSpan(attributes_, attribute_count_);
  }
  // The text of attribute `name` (kRaw or frontend_attributes), if present.
  std::optional<RawAttribute> FindRawAttribute(absl::string_view name) const;

  // Mutation. These keep users() consistent.
  void ReplaceOperandWith(int64_t index, Instruction* new_operand);
  // Replaces every use of this instruction (operands of users, and the root
  // of the parent computation) with `other`.
  void ReplaceAllUsesWith(Instruction* other);
  // Replaces every operand that `replacement` maps by what it maps to, in
  // one pass over the operands (linear, however many are replaced).
  void ReplaceOperandsWith(
      const absl::flat_hash_map<const Instruction*, Instruction*>& replacement);
  // Replaces the uses of this instruction by `user` only.
  void ReplaceUseWith(Instruction* user, Instruction* other);
  void set_custom_call_target(absl::string_view target);
  // Sets (or, with nullopt, leaves) the sharding; the text is copied.
  void set_sharding(std::optional<RawAttribute> sharding);
  void DropFrontendAttributes();
  // Copies the metadata (and its printed attribute) of `other`.
  void set_metadata_from(const Instruction& other);
  // Sets the metadata that metadata() returns (what diagnostics read: op_name,
  // source location) without changing the printed `metadata={...}`.
  void set_diagnostic_metadata(const OpMetadata& metadata);
  // Whether the metadata has a source location (a source_line or a
  // stack_frame_id); decided from the text without parsing it when it was
  // not parsed yet.
  bool HasMetadataLocation() const;
  // Records where this (pass-created) instruction comes from in the user's
  // program, for diagnostics only: the metadata is not printed.
  void set_origin(const OpMetadata& metadata, SourceLoc loc,
                  absl::string_view origin_name = {});
  // As set_origin with `source`'s metadata and location, both resolved only
  // when asked for (cheap for passes that create one per annotation). The
  // origin name is `<source name> (<note>)`, or the source's name when
  // `note` is empty; `note` must outlive the module (e.g. a literal).
  void set_origin_from(const Instruction& source, absl::string_view note = {});
  // The name of the input instruction this one replaces (e.g. the
  // annotate_device_placement a MoveToHost came from), else its own name.
  absl::string_view origin_name() const;
  // Records that this instruction stands for `source` of the input: a clone
  // made by inlining (CallInliner) or an instruction a simplifier put in its
  // place (a bitcast for a reshape). Diagnostics then report it where and as
  // `source` stood (its location, metadata, origin and input name), in
  // `computation` (the callee's name, which must outlive the module, e.g.
  // arena memory) unless `source` itself stands for another, whose
  // computation is kept.
  void set_input_from(const Instruction& source,
                        absl::string_view computation);
  // The name this instruction had before inlining cloned it (the name a
  // diagnostic reports), else its own name.
  absl::string_view input_name() const;
  // The computation this instruction stood in before inlining cloned it,
  // else its parent's name.
  absl::string_view input_computation() const;
  // Renames the instruction to `name` (copied into the module), as XLA's
  // SetAndSanitizeName; the old name stays taken. The caller makes sure the
  // new name is unique or is taken over from an instruction it replaces.
  void set_name(absl::string_view name);
  // Adds the control edge this -> `successor` unless present (xla
  // HloInstruction::AddControlDependencyTo); both must share a computation.
  void AddControlDependencyTo(Instruction* successor);
  // Removes every control edge into and out of this instruction.
  void DropAllControlDeps();

 private:
  friend class Computation;
  friend class Module;
  friend class Parser;
  friend class InstructionBuilder;
  friend struct InstructionDeleter;

  // Fields few instructions have; arena memory, trivially destructible.
  struct Extra;
  struct Origin;
  struct Payload {
    absl::string_view custom_call_target;
    absl::string_view literal;
    Computation** called = nullptr;
    const int64_t* dynamic_slice_sizes = nullptr;
    uint32_t called_count = 0;
    uint32_t dynamic_slice_size_count = 0;
    Extra* extra = nullptr;
    Origin* origin = nullptr;
  };
  // set_origin / set_origin_from: what diagnostics report for this
  // instruction. For set_origin_from, where the source instruction was read,
  // its metadata text and its name (views that outlive it) and the note the
  // reported name carries; arena memory, trivially destructible.
  struct Origin {
    bool from_source = false;
    uint32_t offset = UINT32_MAX;
    absl::string_view metadata;
    absl::string_view source_name;
    absl::string_view note;
    absl::string_view name;  // explicit, or built from the above
    // set_input_from: the name and computation before inlining.
    absl::string_view input_name;
    absl::string_view input_computation;
  };
  // Fields fewer instructions have; arena memory, trivially destructible.
  struct Extra {
    absl::string_view async_execution_thread;
    absl::string_view opcode_spelling;  // empty: HloOpcodeString(opcode)
    const SliceDim* slice_dims = nullptr;
    uint32_t slice_dim_count = 0;
  };
  // Fields fewer still have, or that passes add; destroyed with the
  // instruction.
  struct Rare {
    std::vector<Aliasing> aliasing;
    std::vector<std::pair<std::string, std::string>> frontend;
    bool frontend_parsed = false;
    std::vector<Instruction*> control_predecessors;
    std::vector<Instruction*> control_successors;
    bool has_loc = false;
    SourceLoc loc;
    std::unique_ptr<OpMetadata> metadata;
    bool metadata_set = false;
    // High-fanout values: user -> position in users_, with removed slots
    // left as nullptr until the next compaction.
    std::unique_ptr<absl::flat_hash_map<const Instruction*, uint32_t>> user_index;
    uint32_t removed_users = 0;
  };
  enum Flags : uint8_t {
    kDead = 1,
    kFrontendModified = 2,
    kOwnsShape = 4,
    kParsedAsRoot = 8,  // spelled `ROOT name = ...` (offset_ is at ROOT)
    kKey = 16,          // listed in its computation's key_instructions()
  };
  static constexpr uint32_t kNoOffset = UINT32_MAX;

  Instruction() = default;
  Arena& arena() const;
  Payload& payload();
  Extra& extra();
  const Extra* extra_or_null() const {
    return payload_ == nullptr ? nullptr : payload_->extra;
  }
  Origin& origin();
  const Origin* origin_or_null() const {
    return payload_ == nullptr ? nullptr : payload_->origin;
  }
  Rare& rare() const;
  // Whether the attribute list has a frontend_attributes entry (a look at
  // the kinds, no name compares).
  bool HasFrontendAttributesSlot() const;
  void AppendAttribute(const Attribute& attribute);
  void SetShape(const Shape* shape, bool owned);
  void AddUser(Instruction* user);
  void RemoveUser(Instruction* user);
  void CompactUsers() const;
  bool HasUser(const Instruction* user);
  void EnsureUserIndex();
  void ClearUsers();
  // The text of the `metadata` attribute, or of the source's (origin).
  absl::string_view MetadataText() const;

  HloOpcode opcode_ = HloOpcode::kParameter;
  uint8_t flags_ = 0;
  uint16_t attribute_count_ = 0;
  uint32_t offset_ = kNoOffset;  // of the instruction in the module's text
  uint32_t operand_count_ = 0;
  mutable uint32_t mark_ = 0;  // traversal state, see Computation
  // The name, and its first bytes for scans that look for a prefix
  // (Module::UniqueName) without touching the text.
  const char* name_data_ = nullptr;
  uint32_t name_size_ = 0;
  uint32_t name_prefix_ = 0;
  void SetName(absl::string_view name);
  Shape* shape_ = nullptr;
  Computation* parent_ = nullptr;
  Instruction** operands_ = nullptr;
  Attribute* attributes_ = nullptr;
  Payload* payload_ = nullptr;
  mutable Rare* rare_ = nullptr;
  int64_t index_ = -1;  // parameter number or tuple index
  mutable absl::InlinedVector<Instruction*, 2> users_;
};

inline absl::Span<Instruction* const> Instruction::users() const {
  if (rare_ != nullptr && rare_->removed_users > 0) CompactUsers();
  return absl::MakeConstSpan(users_.data(), users_.size());
}

inline absl::Span<Computation* const> Instruction::called_computations() const {
  if (payload_ == nullptr) return {};
  return absl::MakeConstSpan(payload_->called, payload_->called_count);
}

inline absl::string_view Instruction::custom_call_target() const {
  return payload_ == nullptr ? absl::string_view()
                             : payload_->custom_call_target;
}

inline absl::Span<Instruction* const> Instruction::control_predecessors()
    const {
  if (rare_ == nullptr) return {};
  return rare_->control_predecessors;
}
inline absl::Span<Instruction* const> Instruction::control_successors() const {
  if (rare_ == nullptr) return {};
  return rare_->control_successors;
}

// Destroys an arena-allocated instruction (its memory stays in the arena).
struct InstructionDeleter {
  void operator()(Instruction* instruction) const {
    instruction->~Instruction();
  }
};
using InstructionPtr = std::unique_ptr<Instruction, InstructionDeleter>;

// A computation: an ordered list of instructions with parameters and a root.
class Computation {
 public:
  const std::string& name() const { return name_; }
  Module* parent() const { return parent_; }
  bool IsEntry() const;
  Instruction* root() const { return root_; }
  void set_root(Instruction* root) { root_ = root; }
  const std::string& execution_thread() const { return execution_thread_; }
  // Moves the computation to another execution thread ("main", "host"; xla
  // HloComputation::SetExecutionThread).
  void set_execution_thread(absl::string_view thread) {
    execution_thread_ = std::string(thread);
  }
  // True for the computation the parser builds for a sugared async op
  // (`custom-call-start(...)`): XLA does not print it, neither do we.
  bool is_synthesized() const { return synthesized_; }
  SourceLoc loc() const;

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
  const std::vector<InstructionPtr>& raw_instructions() const {
    return instructions_;
  }
  // The parameters, custom calls, async starts and instructions that call
  // computations, in stored order (dead ones included until Sweep): what
  // module-wide scans of the passes look for, without visiting every
  // instruction.
  absl::Span<Instruction* const> key_instructions() const {
    return key_instructions_;
  }

  // Creates an instruction in this computation. `name_prefix` is made unique
  // module-wide (copy, copy.1, ...).
  Instruction* AddInstruction(HloOpcode opcode, const Shape& shape,
                              absl::Span<Instruction* const> operands,
                              absl::string_view name_prefix);
  // Adds parameter number num_parameters() of shape `shape`, named
  // `name_prefix` made unique module-wide (xla
  // HloComputation::AddParameter; the computation's callers must gain the
  // matching operand).
  Instruction* AddParameter(const Shape& shape, absl::string_view name_prefix);
  // Marks `instruction` dead and detaches it from its operands. It must have
  // no users and must not be the root. Memory is reclaimed by Sweep().
  void RemoveInstruction(Instruction* instruction);
  // Removes `instruction` and, transitively, operands left without users
  // (xla RemoveInstructionAndUnusedOperands); parameters and side-effecting
  // custom calls are kept.
  void RemoveInstructionAndUnusedOperands(Instruction* instruction);
  // Drops dead instructions from the list; their names stay taken and their
  // memory is reused by later instructions, so no pointer to a removed
  // instruction may be kept across a Sweep.
  void Sweep();

 private:
  friend class Module;
  friend class Parser;
  friend class Instruction;
  friend class InstructionBuilder;
  // Starts a traversal: instructions whose mark_ is below the returned value
  // are unvisited; value is "open", value + 1 "done".
  uint32_t NewTraversal() const;

  std::string name_;
  Module* parent_ = nullptr;
  Instruction* root_ = nullptr;
  std::string execution_thread_ = "main";
  uint32_t offset_ = UINT32_MAX;
  mutable uint32_t epoch_ = 0;
  std::vector<Instruction*> params_;
  std::vector<InstructionPtr> instructions_;
  std::vector<Instruction*> key_instructions_;
  int64_t dead_count_ = 0;
  bool synthesized_ = false;
  // Adds `instr` (just stored last) to key_instructions_ if it is one.
  void NoteKeyInstruction(Instruction* instr);
};

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
  ~Module();
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
  // NameUniquer: `copy`, `copy.1`, ...), and reserves it. Every instruction
  // name the module ever held counts as taken.
  std::string UniqueName(absl::string_view prefix);
  // Reserves `name`.
  void ReserveName(absl::string_view name);

  // Resolves `stack_frame_id` to a (file, line, function) if the tables have it.
  struct SourcePosition {
    std::string file;
    int64_t line = 0;
    std::string function;
  };
  std::optional<SourcePosition> ResolveSource(const OpMetadata& metadata) const;

  // Adds an empty computation (no parameters, no root yet: the caller
  // gives it both before any pass ends) on `execution_thread`, named
  // `name_prefix` made unique among the module's computations
  // (`async_computation`, `async_computation.1`, ...), and printed just
  // before `before` (a callee prints before its callers, as XLA prints
  // computations in post order); at the end when `before` is null.
  Computation* AddComputation(absl::string_view name_prefix,
                              absl::string_view execution_thread,
                              const Computation* before);

  // Frees all dead instructions in all computations.
  void Sweep();
  // Removes every computation for which `remove` returns true (never the
  // entry), in one pass over the computation list; their instructions'
  // names stay taken. Nothing may call a removed computation.
  void RemoveComputations(absl::FunctionRef<bool(const Computation*)> remove);

  // The memory instructions, attributes and pass-made strings live in.
  Arena& arena() { return arena_; }
  // A shape equal to `shape`, owned by the module and shared by every caller
  // that asks for an equal one.
  const Shape* InternShape(const Shape& shape);
  // Calls `fn(shape)` for every shape an instruction may share (those read
  // from the text and those interned); returns false if some instruction has
  // a shape of its own (from mutable_shape()), which this does not visit.
  template <typename Fn>
  bool ForEachSharedShape(Fn&& fn) const {
    for (const auto& shape : shapes_) fn(*shape);
    return owned_shapes_ == 0;
  }
  // The text the module was parsed from (empty when built otherwise).
  absl::string_view source_text() const { return source_text_; }
  // Line and column of byte `offset` of source_text() (line_offset added).
  SourceLoc LocAt(uint32_t offset) const;

 private:
  friend class Parser;
  friend class Computation;
  friend class Instruction;
  // NameUniquer state: for each root name, the ids in use (0 = bare root)
  // and the next id to try.
  // A set of name ids: a bitmap for the dense small ids XLA's names carry,
  // a hash set for the others.
  class IdSet {
   public:
    bool contains(int64_t id) const {
      if (id >= 0 && id < kDense) {
        size_t word = static_cast<size_t>(id) / 64;
        return word < bits_.size() && (bits_[word] >> (id % 64)) & 1;
      }
      return sparse_.contains(id);
    }
    void insert(int64_t id) {
      if (id >= 0 && id < kDense) {
        size_t word = static_cast<size_t>(id) / 64;
        if (word >= bits_.size()) bits_.resize(word + 1 + word / 2, 0);
        bits_[word] |= uint64_t{1} << (id % 64);
        return;
      }
      sparse_.insert(id);
    }

   private:
    static constexpr int64_t kDense = int64_t{1} << 28;
    std::vector<uint64_t> bits_;
    absl::flat_hash_set<int64_t> sparse_;
  };
  struct NameIds {
    IdSet used;
    int64_t next = 0;
  };
  NameIds& IdsFor(absl::string_view root);
  // IdsFor scans the module for each new root until kLazyRootScans roots,
  // then indexes every name once (names_indexed_).
  static constexpr int kLazyRootScans = 16;
  int lazy_root_scans_ = 0;
  bool names_indexed_ = false;

  // Declared first: destroyed after the computations that point into them.
  Arena arena_;
  std::vector<std::unique_ptr<Arena>> adopted_arenas_;  // parallel parsing
  std::vector<std::shared_ptr<const TextBuffer>> buffers_;
  absl::string_view source_text_;
  mutable std::vector<uint32_t> line_starts_;
  std::vector<std::unique_ptr<Shape>> shapes_;  // shared shapes of the text
  struct ShapeHash {
    size_t operator()(const Shape* shape) const;
  };
  struct ShapeEq {
    bool operator()(const Shape* a, const Shape* b) const { return *a == *b; }
  };
  absl::flat_hash_set<const Shape*, ShapeHash, ShapeEq> shape_pool_;
  absl::flat_hash_set<const Shape*> pooled_;  // shape_pool_ by address
  int64_t owned_shapes_ = 0;  // instructions that ever took a private shape

  std::string name_;
  Computation* entry_ = nullptr;
  std::vector<std::unique_ptr<Computation>> computations_;
  absl::flat_hash_map<absl::string_view, Computation*> computation_by_name_;
  EntryComputationLayout entry_layout_;
  std::vector<RawAttribute> header_attributes_;
  size_t entry_layout_position_ = 0;
  StackFrameIndex stack_frames_;
  bool has_header_ = true;
  std::string source_path_;
  uint32_t line_offset_ = 0;
  absl::flat_hash_map<std::string, NameIds> names_;
  // Swept instructions: their names stay taken, their memory is reused.
  struct RetiredName {
    absl::string_view name;
    uint32_t prefix;
  };
  std::vector<RetiredName> retired_names_;
  std::vector<void*> free_instructions_;
  std::vector<Instruction::Payload*> free_payloads_;
  std::vector<Instruction::Extra*> free_extras_;
  std::vector<Instruction::Origin*> free_origins_;
  std::vector<Instruction::Rare*> free_rares_;
  // Takes a swept instruction: retires its name, destroys it and keeps its
  // memory for NewInstruction.
  void Recycle(InstructionPtr instruction);
  // Memory for a new instruction (recycled if any), default-constructed.
  Instruction* NewInstruction();
};

// The static copy of a custom-call target the passes look for (MoveToHost,
// annotate_device_placement, ...), or empty: instructions point to it
// instead of to the input text, so that testing a target reads no text.
absl::string_view WellKnownCustomCallTarget(absl::string_view target);

// Builds a computation's instruction ready for AddInstruction-style wiring;
// used by passes that need attributes beyond opcode/shape/operands.
class InstructionBuilder {
 public:
  static void SetCustomCallTarget(Instruction* instr, absl::string_view target);
  static void SetDynamicSliceSizes(Instruction* instr,
                                   absl::Span<const int64_t> sizes);
  static void SetLiteral(Instruction* instr, absl::string_view literal);
  // slice={[start:limit], ...} of a slice (a stride of 1 is not printed).
  static void SetSliceDims(Instruction* instr,
                           absl::Span<const Instruction::SliceDim> dims);
  static void SetTupleIndex(Instruction* instr, int64_t index);
  // Gives `instr`, which calls nothing yet, the called computations
  // `computations` under attribute `attr_name` (`calls`, `to_apply`,
  // `called_computations`): printed `attr_name=%c`, or
  // `attr_name={%a, %b}` when `is_list`. `attr_name` must outlive the
  // module (a literal).
  static void SetCalledComputations(Instruction* instr,
                                    absl::string_view attr_name,
                                    absl::Span<Computation* const> computations,
                                    bool is_list);
  // Gives `to` the output_to_operand_aliasing of `from` (attribute and
  // pairs), if it has any.
  static void CopyOutputToOperandAliasing(const Instruction& from,
                                          Instruction* to);
  // async_execution_thread="`thread`" of an async-start.
  static void SetAsyncExecutionThread(Instruction* instr,
                                      absl::string_view thread);
  // Copies every attribute of `from` (raw and structured) onto `to`, which
  // must have the same opcode and no attributes yet. Called computations are
  // shared.
  // `to` reads its metadata from the copied `metadata` attribute when asked
  // for it (`from`'s is not parsed).
  static void CopyAttributes(const Instruction& from, Instruction* to);
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_HLO_H_
