// HostOffloader (main spec §3.4 as amended by the V6 addendum).
#include "passes/host_offloader.h"

#include <deque>
#include <optional>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/call_graph.h"
#include "analysis/host_path_walk.h"
#include "analysis/offload_utils.h"
#include "passes/hlo_cse.h"
#include "passes/offload_fixes.h"
#include "support/status_macros.h"
#include "text/printer.h"

namespace hloff {
namespace {

using IAS = InstructionAndShapeIndex;

// With report_all_output_errors, at most this many E1200s are reported per
// run of the pass (hlo-offload check); the rest are counted in one note.
constexpr size_t kMaxReportedOutputErrors = 100;
// Tuples wider than this get their memory spaces set in place
// (Offloader::SetMemorySpace).
constexpr size_t kWideTuple = 64;

std::string Quoted(const Instruction* instr) {
  return absl::StrCat("\"", instr->name(), "\"");
}

// Memory space of the array leaf at `index` (0 for non-arrays).
int64_t MemorySpaceAt(const Instruction* instr, const ShapeIndex& index) {
  const Shape* sub = shape_util::TryGetSubshape(instr->shape(), index);
  return sub == nullptr ? kDefaultMemorySpace : sub->memory_space();
}

Shape WithMemorySpace(Shape shape, int64_t memory_space) {
  shape_util::SetMemorySpaceOfLeaves(shape, memory_space);
  return shape;
}

class Offloader {
 public:
  Offloader(Module& module, const PassContext& context)
      : module_(module), context_(context), call_graph_(module) {}

  absl::StatusOr<bool> Run();

 private:
  // ---- reporting ----
  void Trace(int level, absl::string_view line) const {
    context_.Trace(level, line);
  }
  absl::Status Fail(DiagCode code, std::string message,
                    const Instruction* instr) {
    Diagnostic d = MakeDiagnostic(code, std::move(message), instr);
    absl::Status status = ToXlaStatus(d);
    if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
    return status;
  }
  // A status from the dataflow utilities, reported at the instruction at
  // fault (`offending`, else `instr`).
  absl::Status FailFrom(const absl::Status& status, const Instruction* instr,
                        const Instruction* offending = nullptr) {
    DiagCode code = DiagCode::kHO9002;
    if (status.code() == absl::StatusCode::kInternal) code = DiagCode::kHO1006;
    if (absl::StartsWith(status.message(), kWholeTupleReadError)) {
      code = DiagCode::kHO9001;
    }
    return Fail(code, std::string(status.message()),
                offending != nullptr ? offending : instr);
  }
  void Warn(DiagCode code, std::string message, const Instruction* instr) {
    if (!warned_.insert({code, instr}).second) return;
    if (context_.diagnostics) {
      Diagnostic d = MakeDiagnostic(code, std::move(message), instr);
      d.severity = Severity::kWarning;
      context_.diagnostics->Emit(std::move(d));
    }
  }

  // HO1008 unless annotation `instr` has its operand's shape (XLA's
  // ReplaceAllUsesWith shape check when it replaces the annotation by
  // `replacement`).
  absl::Status CheckAnnotationShape(const Instruction* instr,
                                    absl::string_view replacement) {
    if (shape_util::Compatible(instr->shape(), instr->operand(0)->shape())) {
      return absl::OkStatus();
    }
    return Fail(DiagCode::kHO1008,
                absl::StrCat(instr->custom_call_target(), " \"", instr->name(),
                             "\" has shape ", ShapeToString(instr->shape()),
                             " but its operand has shape ",
                             ShapeToString(instr->operand(0)->shape()),
                             "; it cannot be replaced by ", replacement),
                instr);
  }

  // Remembers the first MoveToHost / MoveToDevice without exactly one
  // operand: XLA's offloader reads operand 0 of each and fails a CHECK.
  void NoteAnnotationOperands(Instruction* instr) {
    if (bad_annotation_ == nullptr && !instr->IsDead() &&
        instr->operand_count() != 1) {
      bad_annotation_ = instr;
    }
  }
  Instruction* bad_annotation_ = nullptr;

  // ---- steps ----
  // XLA's RemoveHostMemorySpaceFromAllShapes, in the same scan that finds
  // fusion computations, host async calls, MoveToHosts and MoveToDevices.
  bool ScanAndRemoveHostMemorySpace();
  absl::StatusOr<bool> HandleRedundantCopiesBackToHost(Instruction* start);
  absl::StatusOr<bool> HandleMoveToHostCustomCall(Instruction* mth);
  absl::StatusOr<std::vector<IAS>> GetStartingInstructions(Instruction* mth);
  // `origin` is the MoveToHost or host parameter the tensor comes from.
  absl::Status WalkDownHostMemoryOffloadPaths(
      const IAS& start, bool insert_copy_before,
      std::optional<int64_t> operand_index, const Instruction* origin);
  absl::StatusOr<bool> SliceLeadsToMoveToDevice(Instruction* slice);
  absl::Status InsertCopyBetween(const IAS& before, const IAS& after,
                                 std::optional<int64_t> operand_index);
  // Where a walk stands when it meets an instruction, for diagnostics.
  struct WalkPosition {
    const HostPathWalk& walk;
    int64_t index;              // of the value in the walk (HostPathValue)
    const Instruction* origin;  // the MoveToHost or host parameter, or null
  };
  // The observer through which WalkDownHostMemoryOffloadPaths rewrites.
  class DownWalk;
  // A walk that reached a device output, as PassContext::device_output_walks
  // is shown it.
  class UnappliedWalk;
  // The rewrite of a walk: what `found` collected, then the copies.
  absl::Status ApplyWalk(const DownWalk& found, const IAS& start,
                         bool insert_copy_before,
                         std::optional<int64_t> operand_index);
  // Tags `instr` host compute with XLA's warning (HO2001); `at`, when the
  // walk met it, adds the path taken, the ops allowed on a host path and a
  // fix to the warning.
  // Tags `instr` host compute; `logged`: with XLA's "Found an instruction"
  // warning (HO2001), which XLA logs in the walk but not for the
  // dynamic-update-slices it converts afterwards.
  absl::Status MarkHostCompute(Instruction* instr,
                               const WalkPosition* at = nullptr,
                               bool logged = true);
  // The hops from the tensor's origin to the value at `at.index`: the
  // origin, the hops to the walk start, and the walk's first-discovery path,
  // of which at most `max_walk_hops` (the nearest) when it is not 0.
  std::vector<PathHop> WalkPath(const WalkPosition& at,
                                size_t max_walk_hops) const;
  void DynamifySlice(Instruction* slice);
  absl::Status HandleDynamicUpdateSlices();
  absl::Status CreateAllocateBufferForDynamicUpdateSlice(Instruction* dus);
  absl::StatusOr<bool> RemoveMoveToDevices();
  bool ApplySchedulingFix();
  // E1200 for `root`, an entry output the walk reached.
  void ReportOutputError(const HostPathWalk& walk, const IAS& root,
                         const Instruction* origin);
  Instruction* NewCopy(Instruction* operand, int64_t memory_space);
  void SetMemorySpace(Instruction* instr, const ShapeIndex& index,
                      int64_t memory_space);

  Module& module_;
  const PassContext& context_;
  CallGraph call_graph_;
  bool changed_ = false;

  absl::flat_hash_set<const Instruction*> visited_move_to_host_;
  absl::flat_hash_set<const Instruction*> dus_already_allocated_;
  absl::flat_hash_map<const Instruction*, Instruction*> copies_created_after_;
  absl::flat_hash_set<std::pair<const Instruction*, int64_t>>
      already_inserted_copy_before_;
  std::vector<Instruction*> seen_dus_;
  absl::flat_hash_set<const Instruction*> seen_dus_set_;
  absl::flat_hash_set<const Instruction*> annotated_dus_;
  absl::flat_hash_map<const Instruction*, bool> slice_leads_to_device_;
  absl::flat_hash_set<std::pair<DiagCode, const Instruction*>> warned_;
  absl::flat_hash_set<std::pair<const Instruction*, ShapeIndex>> reported_outputs_;
  absl::flat_hash_set<ShapeIndex> faulty_outputs_seen_;  // faulty_entry_outputs
  // Found by the one scan of the module at the start of Run.
  absl::flat_hash_set<const Computation*> fused_;
  absl::flat_hash_set<const Computation*> comps_with_move_to_device_;
  std::vector<Instruction*> host_async_starts_;
  // SetMemorySpace's results: (shape, index, memory space) -> the shared
  // shape and whether a leaf's memory space changed.
  absl::flat_hash_map<std::tuple<const Shape*, ShapeIndex, int64_t>,
                      std::pair<const Shape*, bool>>
      rewritten_shapes_;
  // Computations holding a dynamic-update-slice this pass put in host memory.
  absl::flat_hash_set<const Computation*> comps_with_host_dus_;
  std::vector<absl::Status> output_errors_;
  Instruction* offending_ = nullptr;  // set by failing dataflow queries
  // For diagnostics: the allowed hops from the current MoveToHost to each
  // walk start (GetStartingInstructions' BFS), and those of the walk running.
  absl::flat_hash_map<IAS, std::vector<IAS>> hops_to_start_;
  std::vector<IAS> start_hops_;
  int64_t unreported_output_errors_ = 0;
};

Instruction* Offloader::NewCopy(Instruction* operand, int64_t memory_space) {
  Computation* comp = operand->parent();
  Instruction* copy =
      comp->AddInstruction(HloOpcode::kCopy,
                           WithMemorySpace(operand->shape(), memory_space),
                           {operand}, "copy");
  changed_ = true;
  return copy;
}

// True when every array leaf of `shape` has a layout in `memory_space`.
bool LeavesHaveMemorySpace(const Shape& shape, int64_t memory_space) {
  if (shape.IsTuple()) {
    for (const Shape& sub : shape.tuple_shapes) {
      if (!LeavesHaveMemorySpace(sub, memory_space)) return false;
    }
    return true;
  }
  return !shape.IsArray() ||
         (shape.has_layout && shape.layout.memory_space == memory_space);
}

void Offloader::SetMemorySpace(Instruction* instr, const ShapeIndex& index,
                               int64_t memory_space) {
  const Shape* current = shape_util::TryGetSubshape(instr->shape(), index);
  if (current == nullptr || LeavesHaveMemorySpace(*current, memory_space)) {
    return;
  }
  // A wide tuple (an entry root of thousands of outputs, each reached by its
  // own walk) is changed in place in a copy of its own: a new shared shape
  // per walk would copy and hash the whole tuple each time, quadratic in its
  // width.
  if (!index.empty() && (instr->owns_shape() ||
                         instr->shape().tuple_shapes.size() > kWideTuple)) {
    // (Not a dynamic-update-slice, whose shape is an array.)
    Shape* sub = shape_util::TryGetMutableSubshape(*instr->mutable_shape(), index);
    if (shape_util::SetMemorySpaceOfLeaves(*sub, memory_space)) changed_ = true;
    return;
  }
  // A new shape shared with the instructions that end up alike (the whole
  // chain of a loop-carried offloaded value), not a private copy each; the
  // same rewrite of the same shape is computed once.
  auto key = std::make_tuple(&instr->shape(), index, memory_space);
  auto it = rewritten_shapes_.find(key);
  if (it == rewritten_shapes_.end()) {
    Shape updated = instr->shape();
    Shape* sub = shape_util::TryGetMutableSubshape(updated, index);
    bool leaf_changed = shape_util::SetMemorySpaceOfLeaves(*sub, memory_space);
    it = rewritten_shapes_
             .emplace(key, std::make_pair(module_.InternShape(updated),
                                          leaf_changed))
             .first;
  }
  if (it->second.second) changed_ = true;
  instr->set_shape(*it->second.first);
  if (instr->opcode() == HloOpcode::kDynamicUpdateSlice &&
      memory_space == kHostMemorySpace) {
    comps_with_host_dus_.insert(instr->parent());
  }
}

// True when some array leaf of `shape` is in host memory.
bool HasHostLeaf(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& sub : shape.tuple_shapes) {
      if (HasHostLeaf(sub)) return true;
    }
    return false;
  }
  return shape.IsArray() && shape.has_layout &&
         shape.layout.memory_space == kHostMemorySpace;
}

bool Offloader::ScanAndRemoveHostMemorySpace() {
  std::vector<Instruction*> async_starts;
  for (const auto& comp : module_.computations()) {
    for (Instruction* instr : comp->key_instructions()) {
      if (instr->opcode() == HloOpcode::kFusion) {
        for (Computation* c : instr->called_computations()) fused_.insert(c);
      } else if (IsMoveToHost(instr)) {
        NoteAnnotationOperands(instr);
      } else if (IsMoveToDevice(instr)) {
        comps_with_move_to_device_.insert(comp.get());
        NoteAnnotationOperands(instr);
      } else if (!instr->IsDead() && IsHostAsyncStart(instr)) {
        async_starts.push_back(instr);
      }
    }
  }
  for (Instruction* start : async_starts) {
    if (!fused_.contains(start->parent())) host_async_starts_.push_back(start);
  }
  // Every instruction's shape is one the module shares (or one of its own):
  // when none has a host leaf there is nothing to remove.
  bool any_host = false;
  bool all_shared = module_.ForEachSharedShape(
      [&](const Shape& shape) { any_host = any_host || HasHostLeaf(shape); });
  if (!any_host && all_shared) return false;
  bool changed = false;
  // Each distinct shape is tested and rewritten once. Null: the shape has no
  // host leaf.
  absl::flat_hash_map<const Shape*, const Shape*> without_host;
  for (const auto& comp : module_.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      Instruction* instr = owned.get();
      const Shape* shape = &instr->shape();
      auto [it, inserted] = without_host.try_emplace(shape, nullptr);
      if (inserted && HasHostLeaf(*shape)) {
        Shape updated = *shape;
        ShapeIndex index;
        shape_util::ForEachMutableSubshape(
            updated,
            [&](Shape& sub, const ShapeIndex&) {
              if (sub.IsArray() && sub.has_layout &&
                  sub.layout.memory_space == kHostMemorySpace) {
                sub.layout.memory_space = kDefaultMemorySpace;
              }
            },
            index);
        it->second = module_.InternShape(updated);
      }
      if (it->second == nullptr) continue;
      instr->set_shape(*it->second);
      changed = true;
    }
  }
  return changed;
}

std::vector<PathHop> Offloader::WalkPath(const WalkPosition& at,
                                         size_t max_walk_hops) const {
  bool truncated = false;
  std::vector<IAS> hops = at.walk.PathTo(at.index, max_walk_hops, &truncated);
  std::vector<PathHop> path;
  auto add = [&](const Instruction* instr, const ShapeIndex& index) {
    path.push_back(PathHop{std::string(instr->input_name()),
                           std::string(instr->input_computation()), index,
                           instr->loc()});
  };
  if (!truncated && at.origin != nullptr &&
      at.origin != at.walk.start().instruction) {
    path.push_back(PathHop{std::string(at.origin->origin_name()),
                           std::string(at.origin->input_computation()), {},
                           at.origin->loc()});
    for (const IAS& hop : start_hops_) add(hop.instruction, hop.shape_index);
  }
  for (const IAS& hop : hops) add(hop.instruction, hop.shape_index);
  return path;
}

absl::Status Offloader::MarkHostCompute(Instruction* instr,
                                        const WalkPosition* at, bool logged) {
  if (logged && warned_.insert({DiagCode::kHO2001, instr}).second &&
      context_.diagnostics) {
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO2001,
        absl::StrCat("Found an instruction (\"", instr->name(),
                     "\") which does device compute in host memory space. "
                     "Converting into host compute. This is likely to have a "
                     "very slow execution time. If you're using JAX, use "
                     "device_put() to move the inputs to the device so that "
                     "computation happens on the device."),
        instr);
    d.severity = Severity::kWarning;
    if (at != nullptr) {
      // Beyond XLA: how the host data got here, what a host path may hold,
      // and where the op belongs. The path is capped so that a long chain of
      // host compute stays linear.
      constexpr size_t kMaxHostComputePathHops = 64;
      d.path = WalkPath(*at, kMaxHostComputePathHops);
      std::string op(instr->opcode_spelling());
      d.notes.push_back(Note{
          absl::StrCat(
              "\"", instr->name(), "\" (", op, ", ",
              shape_util::BytesToString(shape_util::ByteSizeOf(instr->shape())),
              ") is not allowed on a host path: between a MoveToHost and a "
              "MoveToDevice only bitcast, a bitcast-like reshape or copy "
              "right after the MoveToHost, get-tuple-element, tuple, "
              "while/call/conditional plumbing (their parameters and "
              "results), optimization-barrier, dynamic-update-slice into a "
              "host stack and slice/dynamic-slice leading to a MoveToDevice "
              "keep data in host memory without computing on it"),
          instr->loc()});
      if (auto pos = module_.ResolveSource(instr->metadata())) {
        d.source = ProgramSource{pos->file, pos->line, instr->metadata().op_name};
      }
      d.fixes.push_back(Fix{
          "device-compute",
          absl::StrCat("do the ", op,
                       " on device: after the value is moved back (after its "
                       "MoveToDevice / jax.device_put(x, "
                       "sharding.with_memory_kind(\"device\")), e.g. inside "
                       "the loop that reads it), or before it is offloaded "
                       "(before the device_put to pinned_host)")});
    }
    context_.diagnostics->Emit(std::move(d));
  }
  if (context_.options.disable_automatic_host_compute_offload &&
      !(instr->opcode() == HloOpcode::kCopy &&
        context_.options
            .allow_h2h_copy_when_automatic_host_compute_offload_disabled)) {
    return Fail(DiagCode::kHO1001,
                "Automatic host compute offloading is disabled.", instr);
  }
  if (instr->AddFrontendAttribute(kComputeTypeAttr, kComputeTypeHost)) {
    changed_ = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Offloader::SliceLeadsToMoveToDevice(Instruction* slice) {
  auto cached = slice_leads_to_device_.find(slice);
  if (cached != slice_leads_to_device_.end()) return cached->second;
  ASSIGN_OR_RETURN(SliceWalk walk,
                   hloff::SliceLeadsToMoveToDevice(slice, call_graph_,
                                                   /*record_paths=*/false,
                                                   &offending_));
  if (!walk.leads) {
    absl::string_view kind =
        slice->opcode() == HloOpcode::kSlice ? "slice" : "dynamic-slice";
    Warn(DiagCode::kHO2002,
         absl::StrCat("Encountered ", kind,
                      " on tensor which is in host memory. ", slice->name(),
                      " does not move the tensor back to device. ",
                      slice->name(), " will be converted into host compute."),
         slice);
  }
  slice_leads_to_device_[slice] = walk.leads;
  return walk.leads;
}

void Offloader::ReportOutputError(const HostPathWalk& walk, const IAS& root,
                                  const Instruction* origin) {
  const IAS& start = walk.start();
  if (!reported_outputs_.insert({start.instruction, root.shape_index}).second) {
    return;
  }
  if (context_.faulty_entry_outputs != nullptr) {
    std::vector<ShapeIndex>& all = *context_.faulty_entry_outputs;
    if (faulty_outputs_seen_.insert(root.shape_index).second) {
      all.push_back(root.shape_index);
    }
  }
  // Each report costs time and text in proportion to the module (the path,
  // the entry layout in the fix), so a module with 10^5 faulty outputs would
  // be quadratic; past the cap they are only counted.
  if (output_errors_.size() >= kMaxReportedOutputErrors) {
    ++unreported_output_errors_;
    return;
  }
  Diagnostic d = MakeDiagnostic(
      DiagCode::kE1200,
      absl::StrCat("Tensor which is moved to host (starting from ",
                   start.instruction->name(),
                   ") is returned from the entry computation but the layout "
                   "for this output is not set to host memory."),
      start.instruction);
  d.start = std::string(start.instruction->name());
  d.output_index = root.shape_index;
  // The first-discovery (shortest) path from the start to the root.
  std::vector<IAS> hops = walk.PathTo(root);
  if (context_.TraceOn(1)) {
    context_.Trace(0, "Instruction trace leading to error:");
    for (const IAS& hop : hops) context_.Trace(1, absl::StrCat("  ", hop.ToString()));
  }
  if (origin != nullptr && origin != start.instruction) {
    d.path.push_back(PathHop{std::string(origin->origin_name()),
                             std::string(origin->input_computation()),
                             {}, origin->loc()});
    // The bitcast/copy hops between the MoveToHost and the walk's start.
    for (const IAS& hop : start_hops_) {
      d.path.push_back(PathHop{std::string(hop.instruction->input_name()),
                               std::string(hop.instruction->input_computation()),
                               hop.shape_index, hop.instruction->loc()});
    }
  }
  for (const IAS& hop : hops) {
    d.path.push_back(PathHop{std::string(hop.instruction->input_name()),
                             std::string(hop.instruction->input_computation()),
                             hop.shape_index, hop.instruction->loc()});
  }
  const Shape* declared = shape_util::TryGetSubshape(
      module_.entry_computation_layout().result, root.shape_index);
  d.notes.push_back(Note{
      absl::StrCat("it is returned as ",
                   root.shape_index.empty() &&
                           !module_.entry_computation_layout().result.IsTuple()
                       ? "the single result (entry output {})"
                       : absl::StrCat("entry output ",
                                      ShapeIndexToString(root.shape_index)),
                   declared ? absl::StrCat(", declared ", ShapeToString(*declared),
                                           " (",
                                           shape_util::DescribeMemorySpace(*declared),
                                           ") in entry_computation_layout")
                            : std::string()),
      root.instruction->loc()});
  if (origin != nullptr) {
    d.notes.push_back(Note{
        absl::StrCat(origin->opcode() == HloOpcode::kParameter
                         ? "the tensor is host-memory entry parameter "
                         : "the tensor is moved to host by ",
                     origin->origin_name()),
        origin->loc()});
    // The user's line: the annotation's metadata, else the start's.
    const OpMetadata* md = &origin->metadata();
    if (md->empty()) md = &start.instruction->metadata();
    if (!md->empty()) {
      ProgramSource source;
      source.op_name = md->op_name;
      if (auto pos = module_.ResolveSource(*md)) {
        source.file = pos->file;
        source.line = pos->line;
      }
      d.source = std::move(source);
    }
  }
  OutputValue output = FindOutputValue(module_, root.shape_index);
  if (auto pos = module_.ResolveSource(output.producer->metadata());
      pos && output.producer != origin) {
    d.notes.push_back(Note{absl::StrCat("the returned value ",
                                        output.producer->origin_name(),
                                        " comes from ", pos->file, ":",
                                        pos->line),
                           output.producer->loc()});
  }
  d.fixes = E1200Fixes(
      module_, root.shape_index,
      context_.output_path ? context_.output_path(root.shape_index) : "");
  absl::Status status = ToXlaStatus(d);
  if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
  output_errors_.push_back(status);
}

// What one walk of WalkDownHostMemoryOffloadPaths finds, in XLA's order of
// cases; the module is changed only after the walk.
class Offloader::DownWalk : public HostPathObserver {
 public:
  DownWalk(Offloader& offloader, const Instruction* origin)
      : o_(offloader), origin_(origin) {}

  absl::StatusOr<HostPathNext> Visit(const HostPathWalk& walk,
                                     const HostPathValue& at) override {
    const IAS& current = at.value;
    Instruction* instr = current.instruction;
    const IAS& start = walk.start();
    if (o_.context_.TraceOn(3)) {
      o_.Trace(3, absl::StrCat("Visiting instruction: ", current.ToString()));
    }
    bool save = true;
    switch (at.step) {
      case HostPathStep::kMoveToHost:
        o_.visited_move_to_host_.insert(instr);
        mth_to_remove.push_back(instr);
        break;
      case HostPathStep::kMoveToDevice:
        if (std::find(mtd_to_copy_before.begin(), mtd_to_copy_before.end(),
                      instr) == mtd_to_copy_before.end()) {
          mtd_to_copy_before.push_back(instr);
        }
        return HostPathNext::kStop;
      case HostPathStep::kDynamicUpdateSlice:
        if (o_.seen_dus_set_.insert(instr).second) o_.seen_dus_.push_back(instr);
        if (instr == start.instruction) o_.annotated_dus_.insert(instr);
        save = false;
        break;
      case HostPathStep::kPureMemory:
        if (instr->opcode() == HloOpcode::kAsyncStart) {
          save = false;
        } else if (instr->opcode() == HloOpcode::kAsyncDone) {
          // The async-start's output element, as XLA sets it (index {1}).
          buffers_to_set_to_host.push_back({instr->operand(0), ShapeIndex{1}});
        } else if (instr->opcode() == HloOpcode::kParameter) {
          for (Instruction* caller : o_.call_graph_.CallersOf(instr->parent())) {
            if (caller->opcode() != HloOpcode::kAsyncStart) continue;
            ShapeIndex index = {0, instr->parameter_number()};
            index.insert(index.end(), current.shape_index.begin(),
                         current.shape_index.end());
            buffers_to_set_to_host.push_back({caller, index});
          }
        }
        break;
      case HostPathStep::kSlice: {
        o_.offending_ = nullptr;
        auto leads = o_.SliceLeadsToMoveToDevice(instr);
        if (!leads.ok()) return o_.FailFrom(leads.status(), instr, o_.offending_);
        if (*leads) {
          if (instr->opcode() == HloOpcode::kSlice) {
            slices_to_dynamify.push_back(instr);
          }
          return HostPathNext::kStop;
        }
        WalkPosition position{walk, at.index, origin_};
        RETURN_IF_ERROR(o_.MarkHostCompute(instr, &position));
        break;
      }
      case HostPathStep::kLayoutCopy:
        // A host->host layout change, not compute.
        break;
      case HostPathStep::kHostCompute: {
        WalkPosition position{walk, at.index, origin_};
        RETURN_IF_ERROR(o_.MarkHostCompute(instr, &position));
        break;
      }
    }
    for (Instruction* user : instr->users()) {
      if (user->IsCustomCall(kX64SplitLowTarget) ||
          user->IsCustomCall(kX64SplitHighTarget)) {
        x64_split_users.push_back(user);
      }
    }
    if (save) {
      if (o_.context_.TraceOn(5)) {
        o_.Trace(5, absl::StrCat("Saving ", current.ToString(),
                                 " to be set to host memory."));
      }
      buffers_to_set_to_host.push_back(current);
    }
    if (!IsEntryRoot(instr, o_.module_)) return HostPathNext::kSuccessors;
    return EntryOutput(walk, current);
  }

  // Values an earlier walk put in host memory are not walked again.
  bool ShouldWalk(const IAS& to) override {
    return MemorySpaceAt(to.instruction, to.shape_index) != kHostMemorySpace;
  }

  absl::Status SuccessorsFailed(const IAS& value, absl::Status status,
                                Instruction* offending) override {
    return o_.FailFrom(status, value.instruction, offending);
  }

  // What the walk leaves to do, in the order XLA does it.
  std::vector<Instruction*> mth_to_remove;
  std::vector<Instruction*> slices_to_dynamify;
  std::vector<Instruction*> mtd_to_copy_before;
  std::vector<Instruction*> x64_split_users;
  std::vector<IAS> buffers_to_set_to_host;
  // The walk reached an entry output in device memory.
  bool failed = false;

 private:
  // The walk reached the entry root: output streaming when the output is in
  // host memory (or may be declared so), else E1200.
  absl::StatusOr<HostPathNext> EntryOutput(const HostPathWalk& walk,
                                           const IAS& current) {
    const IAS& start = walk.start();
    const Shape& result = o_.module_.entry_computation_layout().result;
    const Shape* declared =
        shape_util::TryGetSubshape(result, current.shape_index);
    if (declared != nullptr && !declared->IsArray() && !declared->IsTuple()) {
      return o_.Fail(DiagCode::kHO9002,
                     absl::StrCat("a tracked ", ShapeToString(*declared),
                                  " value reaches entry output ",
                                  ShapeIndexToString(current.shape_index),
                                  ", which has no layout; XLA's host offloader "
                                  "fails a CHECK here"),
                     current.instruction);
    }
    if (SubshapeIsHost(result, current.shape_index)) {
      if (o_.context_.TraceOn(2)) {
        o_.Trace(2, absl::StrCat("Memory offloaded starting from ",
                                 start.ToString(), " is output streamed"));
      }
      return HostPathNext::kStop;
    }
    if (o_.context_.options.fix_entry_layout_unless_customized &&
        declared != nullptr && declared->IsArray() &&
        !declared->layout.HasCustomization()) {
      Shape* sub = shape_util::TryGetMutableSubshape(
          o_.module_.entry_computation_layout().result, current.shape_index);
      sub->layout.memory_space = kHostMemorySpace;
      o_.changed_ = true;
      if (o_.context_.TraceOn(2)) {
        o_.Trace(2, absl::StrCat("Memory offloaded starting from ",
                                 start.ToString(),
                                 " is output streamed (layout updated)"));
      }
      return HostPathNext::kStop;
    }
    o_.ReportOutputError(walk, current, origin_);
    if (!o_.context_.options.report_all_output_errors) {
      return o_.output_errors_.front();
    }
    failed = true;
    return HostPathNext::kStop;
  }

  Offloader& o_;
  const Instruction* origin_;
};

class Offloader::UnappliedWalk : public DeviceOutputWalk {
 public:
  UnappliedWalk(Offloader& offloader, const DownWalk& found, const IAS& start,
                bool insert_copy_before, std::optional<int64_t> operand_index)
      : o_(offloader),
        found_(found),
        start_(start),
        insert_copy_before_(insert_copy_before),
        operand_index_(operand_index) {}

  absl::Status Rewrite() override {
    if (rewritten_) return absl::OkStatus();
    rewritten_ = true;
    return o_.ApplyWalk(found_, start_, insert_copy_before_, operand_index_);
  }

 private:
  Offloader& o_;
  const DownWalk& found_;
  const IAS& start_;
  bool insert_copy_before_;
  std::optional<int64_t> operand_index_;
  bool rewritten_ = false;
};

absl::Status Offloader::WalkDownHostMemoryOffloadPaths(
    const IAS& start, bool insert_copy_before,
    std::optional<int64_t> operand_index, const Instruction* origin) {
  if (context_.TraceOn(3)) {
    Trace(3, absl::StrCat("Walking down host memory offload paths starting "
                          "from (",
                          start.instruction->name(), ", ",
                          ShapeIndexToString(start.shape_index),
                          "). Insert copy before: ",
                          insert_copy_before ? "true" : "false"));
  }
  DownWalk found(*this, origin);
  HostPathWalk walk(call_graph_);
  RETURN_IF_ERROR(walk.Run(start, found));
  if (found.failed) {
    // A walk that reached a device output is not applied (XLA stops the pass
    // there); with report_all_output_errors the other walks still run, and
    // an observer may have it rewritten first.
    if (context_.device_output_walks == nullptr) return absl::OkStatus();
    UnappliedWalk unapplied(*this, found, start, insert_copy_before,
                            operand_index);
    return context_.device_output_walks->Reached(unapplied);
  }
  return ApplyWalk(found, start, insert_copy_before, operand_index);
}

absl::Status Offloader::ApplyWalk(const DownWalk& found, const IAS& start,
                                  bool insert_copy_before,
                                  std::optional<int64_t> operand_index) {
  // Mutations happen only after the walk.
  for (const IAS& buffer : found.buffers_to_set_to_host) {
    if (context_.TraceOn(2)) {
      Trace(2, absl::StrCat("Setting ", buffer.ToString(),
                            " to memory space 5"));
    }
    SetMemorySpace(buffer.instruction, buffer.shape_index, kHostMemorySpace);
  }
  if (insert_copy_before) {
    // XLA asks for operand 0 when the start does not use the MoveToHost
    // directly (GetPredecessors(start, operand_index.value_or(0)),
    // WalkDownHostMemoryOffloadPaths), so a start with several operands
    // reached through a bitcast takes its copy before operand 0.
    auto predecessors =
        GetPredecessors(start, call_graph_, operand_index.value_or(0));
    if (!predecessors.ok()) return FailFrom(predecessors.status(), start.instruction);
    if (predecessors->size() != 1) {
      return Fail(DiagCode::kHO9002,
                  absl::StrCat("the offload walk starting at \"",
                               start.instruction->name(), "\" has ",
                               predecessors->size(),
                               " predecessors where XLA requires exactly one"),
                  start.instruction);
    }
    RETURN_IF_ERROR(
        InsertCopyBetween(predecessors->front(), start, operand_index));
  }
  // Every walk that reaches a MoveToDevice gives it a fresh device copy of its
  // current operand (the MoveToDevice stays as a barrier until the end).
  for (Instruction* mtd : found.mtd_to_copy_before) {
    Instruction* copy = NewCopy(mtd->operand(0), kDefaultMemorySpace);
    mtd->ReplaceOperandWith(0, copy);
    Trace(1, absl::StrCat("Inserted copy ", Quoted(copy),
                          " before custom call ", Quoted(mtd)));
  }
  if (!found.x64_split_users.empty()) {
    Warn(DiagCode::kHO2003,
         "64-bit type on device is decomposed into 32-bit types very early "
         "on so host offloader only sees 32-bit types. Thus the current "
         "handling of 64-bit type host offloading might be sub-optimal",
         found.x64_split_users.front());
    for (Instruction* user : found.x64_split_users) {
      Instruction* copy = NewCopy(user->operand(0), kDefaultMemorySpace);
      user->ReplaceOperandWith(0, copy);
    }
  }
  for (Instruction* mth : found.mth_to_remove) {
    if (mth->IsDead()) continue;
    Trace(1, absl::StrCat("Removing MoveToHost custom call ", Quoted(mth)));
    if (!shape_util::Compatible(mth->shape(), mth->operand(0)->shape())) {
      return Fail(DiagCode::kHO1008,
                  absl::StrCat("MoveToHost \"", mth->name(), "\" has shape ",
                               ShapeToString(mth->shape()),
                               " but its operand has shape ",
                               ShapeToString(mth->operand(0)->shape())),
                  mth);
    }
    mth->ReplaceAllUsesWith(mth->operand(0));
    mth->parent()->RemoveInstruction(mth);
    changed_ = true;
  }
  for (Instruction* slice : found.slices_to_dynamify) {
    if (!slice->IsDead()) DynamifySlice(slice);
  }
  return absl::OkStatus();
}

absl::Status Offloader::InsertCopyBetween(const IAS& before, const IAS& after,
                                          std::optional<int64_t> operand_index) {
  if (context_.TraceOn(3)) {
    Trace(3, absl::StrCat("InsertCopyBetween: ", before.ToString(), " and ",
                          after.ToString()));
  }
  Instruction* producer = before.instruction;
  std::vector<std::pair<Instruction*, int64_t>> targets;
  if (after.instruction->opcode() == HloOpcode::kParameter) {
    for (Instruction* caller :
         call_graph_.CallersOf(after.instruction->parent())) {
      for (int64_t p : caller->OperandIndices(producer)) {
        targets.emplace_back(caller, p);
      }
    }
  } else {
    int64_t index = operand_index.value_or(-1);
    if (index < 0) {
      // The first position only: no scan of a whole (wide) operand list.
      const auto& operands = after.instruction->operands();
      auto first = std::find(operands.begin(), operands.end(), producer);
      index = first == operands.end() ? 0 : first - operands.begin();
    }
    targets.emplace_back(after.instruction, index);
  }
  for (auto [target, index] : targets) {
    if (!already_inserted_copy_before_.insert({target, index}).second) continue;
    Instruction* copy = nullptr;
    if (IsSynchronousCopyFromOrToHost(producer) &&
        producer->shape().memory_space() == kHostMemorySpace) {
      copy = producer;
    } else {
      auto it = copies_created_after_.find(producer);
      if (it != copies_created_after_.end()) {
        copy = it->second;
      } else {
        copy = NewCopy(producer, kHostMemorySpace);
        copies_created_after_[producer] = copy;
      }
    }
    // Every use of `producer` by `target` is replaced at once (in one sweep:
    // one ReplaceOperandWith per position would be quadratic in a wide
    // tuple), so when the operand at `index` is no longer `producer` an
    // earlier call has done it already.
    bool uses = (index >= 0 && index < target->operand_count() &&
                 target->operand(index) == producer) ||
                std::find(target->operands().begin(), target->operands().end(),
                          producer) != target->operands().end();
    if (uses) producer->ReplaceUseWith(target, copy);
    changed_ = true;
    if (context_.TraceOn(2)) {
      Trace(2, absl::StrCat("Inserted copy ", Quoted(copy), " between ",
                            Quoted(producer), " and ", Quoted(target)));
    }
  }
  return absl::OkStatus();
}

void Offloader::DynamifySlice(Instruction* slice) {
  Computation* comp = slice->parent();
  std::vector<Instruction*> operands = {slice->operand(0)};
  std::vector<int64_t> sizes;
  Shape scalar;
  scalar.element_type = PrimitiveType::kS32;
  scalar.has_layout = true;
  for (const auto& dim : slice->slice_dims()) {
    Instruction* index =
        comp->AddInstruction(HloOpcode::kConstant, scalar, {}, "constant");
    InstructionBuilder::SetLiteral(index, absl::StrCat(dim.start));
    operands.push_back(index);
    sizes.push_back(dim.limit - dim.start);
  }
  Instruction* ds = comp->AddInstruction(HloOpcode::kDynamicSlice,
                                         slice->shape(), operands,
                                         "dynamic-slice");
  InstructionBuilder::SetDynamicSliceSizes(ds, std::move(sizes));
  ds->set_origin(slice->metadata(), slice->loc());
  slice->ReplaceAllUsesWith(ds);
  comp->RemoveInstruction(slice);
  changed_ = true;
  if (context_.TraceOn(2)) {
    Trace(2, absl::StrCat("Changed slice ", Quoted(slice),
                          " into dynamic slice ", Quoted(ds)));
  }
}

absl::StatusOr<std::vector<IAS>> Offloader::GetStartingInstructions(
    Instruction* mth) {
  // From the MoveToHost through the hops that still run on device to the
  // first value of each path that is in host memory.
  class ToWalkStarts : public HostPathObserver {
   public:
    ToWalkStarts(Offloader& offloader, std::vector<IAS>& starts)
        : o_(offloader), starts_(starts) {}
    absl::StatusOr<HostPathNext> Visit(const HostPathWalk& walk,
                                       const HostPathValue& at) override {
      if (at.index == 0 || (at.step != HostPathStep::kDynamicUpdateSlice &&
                            IsCopyOrBitcastHop(at.value.instruction))) {
        return HostPathNext::kSuccessors;
      }
      const IAS& current = at.value;
      starts_.push_back(current);
      // The hops between the MoveToHost and the start, both left out.
      std::vector<IAS> hops = walk.PathTo(at.index);
      hops.pop_back();
      hops.erase(hops.begin());
      o_.hops_to_start_[current] = std::move(hops);
      return HostPathNext::kStop;
    }
    absl::Status SuccessorsFailed(const IAS&, absl::Status status,
                                  Instruction* offending) override {
      o_.offending_ = offending;
      return status;
    }

   private:
    Offloader& o_;
    std::vector<IAS>& starts_;
  };
  std::vector<IAS> starts;
  hops_to_start_.clear();
  ToWalkStarts observer(*this, starts);
  HostPathWalk walk(call_graph_);
  RETURN_IF_ERROR(walk.Run({mth, {}}, observer));
  return starts;
}

absl::StatusOr<bool> Offloader::HandleMoveToHostCustomCall(Instruction* mth) {
  if (visited_move_to_host_.contains(mth) || mth->IsDead()) return false;
  Trace(1, absl::StrCat("Offloading ", Quoted(mth->operand(0)), " to host."));
  // V6 pre-seeding of the DUS buffer.
  Instruction* operand = mth->operand(0);
  if (operand->IsCustomCall(kAllocateBufferTarget) &&
      operand->user_count() == 1) {
    SetMemorySpace(operand, {}, kHostMemorySpace);
  } else if (operand->opcode() == HloOpcode::kBroadcast &&
             operand->user_count() == 1 && mth->user_count() == 1 &&
             mth->users()[0]->opcode() == HloOpcode::kDynamicUpdateSlice &&
             mth->users()[0]->operand(0) == mth) {
    Instruction* buffer = mth->parent()->AddInstruction(
        HloOpcode::kCustomCall, WithMemorySpace(operand->shape(), kHostMemorySpace),
        {}, "custom-call");
    InstructionBuilder::SetCustomCallTarget(buffer,
                                            std::string(kAllocateBufferTarget));
    mth->ReplaceOperandWith(0, buffer);
    changed_ = true;
    if (context_.TraceOn(2)) {
      Trace(2, absl::StrCat("Created new AllocateBuffer instruction \"",
                            InstructionToString(*buffer),
                            "\" to replace broadcast ", Quoted(operand)));
    }
  }
  offending_ = nullptr;
  auto starts = GetStartingInstructions(mth);
  if (!starts.ok()) return FailFrom(starts.status(), mth, offending_);
  if (starts->empty() && mth->IsRoot() && mth->parent() == module_.entry()) {
    if (context_.options.fix_entry_layout_unless_customized) {
      Shape& result = module_.entry_computation_layout().result;
      if (!SubshapeIsHost(result, {})) {
        if (result.IsArray() && result.layout.HasCustomization()) {
          Diagnostic d = MakeDiagnostic(
              DiagCode::kE1200,
              absl::StrCat("Tensor which is moved to host (custom call ",
                           Quoted(mth),
                           ") is returned from the entry computation but the "
                           "layout for this output is not set to host memory."),
              mth);
          d.output_index = ShapeIndex{};
          absl::Status status = ToXlaStatus(d);
          if (context_.diagnostics) context_.diagnostics->Emit(std::move(d));
          return status;
        }
        shape_util::SetMemorySpaceOfLeaves(result, kHostMemorySpace);
      }
    }
    RETURN_IF_ERROR(CheckAnnotationShape(mth, "a copy of its operand"));
    Instruction* copy = NewCopy(mth->operand(0), kHostMemorySpace);
    mth->ReplaceAllUsesWith(copy);
    if (context_.TraceOn(2)) {
      Trace(2, absl::StrCat("Custom call ", Quoted(mth),
                            " is entry computation root. Inserted copy ",
                            Quoted(copy), " and replaced root instruction."));
    }
  }
  for (const IAS& start : *starts) {
    start_hops_ = hops_to_start_[start];
    bool insert_copy_before =
        start.instruction->opcode() != HloOpcode::kDynamicUpdateSlice;
    // A start uses `mth` exactly when it is among mth's users; look in the
    // shorter of the two lists before scanning the operands (an earlier
    // walk may have replaced every use already).
    const auto& operands = start.instruction->operands();
    const auto& users = mth->users();
    bool uses_mth =
        users.size() < operands.size()
            ? std::find(users.begin(), users.end(), start.instruction) !=
                  users.end()
            : std::find(operands.begin(), operands.end(), mth) != operands.end();
    std::vector<int64_t> positions;
    if (uses_mth) positions = start.instruction->OperandIndices(mth);
    if (positions.empty()) {
      RETURN_IF_ERROR(WalkDownHostMemoryOffloadPaths(start, insert_copy_before,
                                                     std::nullopt, mth));
      continue;
    }
    for (int64_t k : positions) {
      RETURN_IF_ERROR(
          WalkDownHostMemoryOffloadPaths(start, insert_copy_before, k, mth));
    }
  }
  visited_move_to_host_.insert(mth);
  Trace(2, absl::StrCat("Removing MoveToHost custom call ", Quoted(mth)));
  RETURN_IF_ERROR(CheckAnnotationShape(mth, "its operand"));
  mth->ReplaceAllUsesWith(mth->operand(0));
  mth->parent()->RemoveInstruction(mth);
  changed_ = true;
  return true;
}

absl::Status Offloader::CreateAllocateBufferForDynamicUpdateSlice(
    Instruction* dus) {
  if (dus_already_allocated_.contains(dus)) return absl::OkStatus();
  Trace(2, absl::StrCat("Possibly creating an AllocateBuffer from broadcast in "
                        "host memory space for ",
                        Quoted(dus)));
  struct Item {
    IAS value;
    IAS from;  // the consumer we came from (null instruction at the start)
  };
  std::deque<Item> queue = {{{dus, {}}, {nullptr, {}}}};
  absl::flat_hash_set<IAS> seen = {{dus, {}}};
  // As XLA's: a broadcast ends its own branch of the search, not the search;
  // every branch (each operand of a conditional, each call site) gets its
  // AllocateBuffer, and a device entry parameter met later is still an error.
  bool found_broadcast = false;
  while (!queue.empty()) {
    Item item = queue.front();
    queue.pop_front();
    Instruction* instr = item.value.instruction;
    const ShapeIndex& index = item.value.shape_index;
    int64_t old_memory_space = MemorySpaceAt(instr, index);
    SetMemorySpace(instr, index, kHostMemorySpace);
    if (context_.TraceOn(2)) {
      Trace(2, absl::StrCat("Setting ", item.value.ToString(),
                            " to have host memory space"));
    }
    if (instr->opcode() == HloOpcode::kParameter) {
      if (instr->parent() == module_.entry()) {
        const Shape& param =
            module_.entry_computation_layout().parameters[instr->parameter_number()];
        if (SubshapeIsHost(param, index)) return absl::OkStatus();
        return Fail(DiagCode::kHO1003,
                    absl::StrCat("Entry computation parameter \"",
                                 instr->name(), "\" (shape index ",
                                 ShapeIndexToString(index),
                                 ") is not in host memory space."),
                    instr);
      }
      for (Instruction* caller : call_graph_.CallersOf(instr->parent())) {
        if (caller->opcode() != HloOpcode::kWhile) continue;
        if (caller->while_body() != instr->parent()) continue;
        Computation* condition = caller->while_condition();
        if (condition->num_parameters() == 0) continue;
        IAS cond_param = {condition->parameter(0), index};
        std::deque<IAS> cond_queue = {cond_param};
        absl::flat_hash_set<IAS> cond_seen = {cond_param};
        while (!cond_queue.empty()) {
          IAS current = cond_queue.front();
          cond_queue.pop_front();
          if (!IsValidDuringPureMemoryOffload(current.instruction->opcode())) {
            return Fail(DiagCode::kHO1004,
                        absl::StrCat("Tensor which is moved to host is used by "
                                     "an invalid instruction (\"",
                                     current.instruction->name(),
                                     "\") during while condition body."),
                        current.instruction);
          }
          SetMemorySpace(current.instruction, current.shape_index,
                         kHostMemorySpace);
          auto next = GetSuccessors(current, call_graph_);
          if (!next.ok()) return FailFrom(next.status(), current.instruction);
          for (auto& s : *next) {
            // The while itself is the condition root's caller; stay inside.
            if (s.instruction->parent() != condition) continue;
            if (cond_seen.insert(s).second) cond_queue.push_back(s);
          }
        }
      }
    } else if (instr->opcode() == HloOpcode::kDynamicUpdateSlice) {
      dus_already_allocated_.insert(instr);
    } else if (instr->IsCustomCall(kAllocateBufferTarget)) {
      Trace(2, absl::StrCat("DynamicUpdateSlice ", Quoted(dus),
                            " already writes into an AllocateBuffer ",
                            Quoted(instr)));
      auto successors = GetSuccessors({instr, {}}, call_graph_);
      if (!successors.ok()) return FailFrom(successors.status(), instr);
      bool all_host = true;
      for (const IAS& s : *successors) {
        all_host &= MemorySpaceAt(s.instruction, s.shape_index) ==
                    kHostMemorySpace;
      }
      if (all_host || item.from.instruction == nullptr) return absl::OkStatus();
      // Device users keep the old buffer; the offload chain gets its own.
      SetMemorySpace(instr, {}, old_memory_space);
      Instruction* consumer = item.from.instruction;
      std::vector<int64_t> positions = consumer->OperandIndices(instr);
      if (consumer->opcode() != HloOpcode::kTuple && positions.size() > 1) {
        return Fail(DiagCode::kHO1005,
                    "We do not yet support adjusting AllocateBuffer when it "
                    "appears in multiple operand indices unless in a tuple.",
                    consumer);
      }
      Instruction* buffer = instr->parent()->AddInstruction(
          HloOpcode::kCustomCall,
          WithMemorySpace(instr->shape(), kHostMemorySpace), {},
          "custom-call");
      InstructionBuilder::SetCustomCallTarget(
          buffer, std::string(kAllocateBufferTarget));
      if (consumer->opcode() == HloOpcode::kTuple &&
          !item.from.shape_index.empty()) {
        consumer->ReplaceOperandWith(item.from.shape_index.front(), buffer);
      } else {
        for (int64_t p : positions) consumer->ReplaceOperandWith(p, buffer);
      }
      changed_ = true;
      return absl::OkStatus();
    } else if (!IsValidDuringPureMemoryOffload(instr->opcode()) &&
               instr->opcode() != HloOpcode::kCopy) {
      Trace(1, absl::StrCat("Unexpected instruction: ", instr->name()));
      return absl::OkStatus();
    }
    auto predecessors = GetPredecessors(item.value, call_graph_);
    if (!predecessors.ok()) return FailFrom(predecessors.status(), instr);
    for (const IAS& pred : *predecessors) {
      Instruction* producer = pred.instruction;
      if (producer->opcode() != HloOpcode::kBroadcast) {
        if (seen.insert(pred).second) queue.push_back({pred, item.value});
        continue;
      }
      Instruction* buffer = instr->parent()->AddInstruction(
          HloOpcode::kCustomCall,
          WithMemorySpace(producer->shape(), kHostMemorySpace), {},
          "custom-call");
      // AllocateBuffer lives where the broadcast lives.
      if (producer->parent() != instr->parent()) {
        instr->parent()->RemoveInstruction(buffer);
        buffer = producer->parent()->AddInstruction(
            HloOpcode::kCustomCall,
            WithMemorySpace(producer->shape(), kHostMemorySpace), {},
            "custom-call");
      }
      InstructionBuilder::SetCustomCallTarget(
          buffer, std::string(kAllocateBufferTarget));
      changed_ = true;
      bool matched_copy = instr->opcode() == HloOpcode::kCopy &&
                          instr->user_count() == 1 &&
                          producer->user_count() == 1 &&
                          producer->users()[0] == instr;
      if (matched_copy) {
        if (!index.empty()) {
          return Fail(DiagCode::kHO9002,
                      absl::StrCat("Expecting empty shape_index for copy op: ",
                                   instr->name()),
                      instr);
        }
        instr->ReplaceAllUsesWith(buffer);
        instr->parent()->RemoveInstruction(instr);
      } else if (index.size() == 1) {
        if (instr->opcode() != HloOpcode::kTuple) {
          return Fail(DiagCode::kHO9002,
                      absl::StrCat("broadcast \"", producer->name(),
                                   "\" feeds \"", instr->name(),
                                   "\" at a tuple index, but it is not a tuple"),
                      instr);
        }
        instr->ReplaceOperandWith(index.front(), buffer);
      } else if (index.empty()) {
        std::vector<int64_t> positions = instr->OperandIndices(producer);
        if (positions.size() != 1) {
          return Fail(DiagCode::kHO9002,
                      absl::StrCat("broadcast \"", producer->name(),
                                   "\" is used ", positions.size(),
                                   " times by \"", instr->name(),
                                   "\"; XLA's host offloader fails a CHECK "
                                   "here"),
                      instr);
        }
        instr->ReplaceOperandWith(positions.front(), buffer);
      } else {
        return Fail(DiagCode::kHO9002,
                    absl::StrCat("broadcast \"", producer->name(),
                                 "\" reached through a nested tuple index ",
                                 ShapeIndexToString(index),
                                 "; XLA's host offloader fails a CHECK here"),
                    instr);
      }
      if (context_.TraceOn(1)) {
        Trace(1, absl::StrCat("Created new AllocateBuffer instruction \"",
                              InstructionToString(*buffer),
                              "\" to replace broadcast ", Quoted(producer),
                              "'s use at index ", ShapeIndexToString(index),
                              " in user ", Quoted(instr)));
      }
      if (producer->users().empty()) {
        Trace(3, absl::StrCat("Broadcast ", Quoted(producer),
                              " has no remaining users; removing."));
        producer->parent()->RemoveInstructionAndUnusedOperands(producer);
      }
      found_broadcast = true;
      // A matched copy was replaced by the AllocateBuffer: it has no other
      // predecessor to look at.
      if (matched_copy) break;
    }
  }
  if (found_broadcast) return absl::OkStatus();
  return Fail(DiagCode::kHO1002,
              absl::StrCat("DynamicUpdateSlice \"", dus->name(),
                           "\"'s first operand is not the result of a "
                           "broadcast."),
              dus);
}

absl::Status Offloader::HandleDynamicUpdateSlices() {
  for (Instruction* dus : seen_dus_) {
    if (dus->IsDead()) continue;
    bool buffer_host =
        dus->operand(0)->shape().memory_space() == kHostMemorySpace;
    bool update_host =
        dus->operand(1)->shape().memory_space() == kHostMemorySpace;
    if (update_host) {
      // XLA's HandleDynamicUpdateSlices converts it without a log line; the
      // lints say what it costs (HO3007).
      RETURN_IF_ERROR(MarkHostCompute(dus, nullptr, /*logged=*/false));
      if (buffer_host) SetMemorySpace(dus, {}, kHostMemorySpace);
      continue;
    }
    if (buffer_host || annotated_dus_.contains(dus)) {
      RETURN_IF_ERROR(CreateAllocateBufferForDynamicUpdateSlice(dus));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Offloader::RemoveMoveToDevices() {
  bool changed = false;
  for (const auto& comp : module_.computations()) {
    if (!comps_with_move_to_device_.contains(comp.get())) continue;
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (!IsMoveToDevice(instr)) continue;
      // As for MoveToHost: its users (or the entry layout, for a root)
      // expect its declared shape.
      if (!shape_util::Compatible(instr->shape(), instr->operand(0)->shape())) {
        return Fail(DiagCode::kHO1008,
                    absl::StrCat("MoveToDevice \"", instr->name(),
                                 "\" has shape ", ShapeToString(instr->shape()),
                                 " but its operand has shape ",
                                 ShapeToString(instr->operand(0)->shape()),
                                 "; it cannot be replaced by its operand"),
                    instr);
      }
      if (context_.TraceOn(2)) {
        Trace(2, absl::StrCat("Removing MoveToDevice custom call ",
                              Quoted(instr)));
      }
      instr->ReplaceAllUsesWith(instr->operand(0));
      comp->RemoveInstruction(instr);
      changed = true;
    }
  }
  return changed;
}

// Whether the buffer of `value` (an array) is one of the computation's
// parameter buffers, as XLA's HloAliasAnalysis decides for
// ApplySchedulingFix: the value comes from a parameter (through
// get-tuple-element, bitcast, tuple, opt-barrier, or the buffer an in-place
// dynamic-update-slice writes into), or, in a while body, the value is also
// carried to the next iteration (it reaches the root, whose buffer is the
// parameter's). Mirrors host_offloader.cc HostOffloader::ApplySchedulingFix
// (uses_parameter_buffer) without building the module-wide analysis; a
// buffer that reaches the parameter only through the result of a call or a
// conditional is not followed.
bool SharesBufferWithParameter(const Instruction* value, bool in_while_body) {
  // Back to the instruction that defines the buffer.
  ShapeIndex index;
  while (true) {
    switch (value->opcode()) {
      case HloOpcode::kParameter:
        return true;
      case HloOpcode::kGetTupleElement:
        index.insert(index.begin(), value->tuple_index());
        value = value->operand(0);
        continue;
      case HloOpcode::kBitcast:
      case HloOpcode::kOptimizationBarrier:
        value = value->operand(0);
        continue;
      case HloOpcode::kDynamicUpdateSlice:
        if (!index.empty()) break;
        value = value->operand(0);  // written in place
        continue;
      case HloOpcode::kTuple:
        if (index.empty()) break;
        value = value->operand(index.front());
        index.erase(index.begin());
        continue;
      default:
        break;
    }
    break;
  }
  if (!in_while_body) return false;
  // Forward: every place the buffer is passed on to unchanged; at the root
  // of a while body it is the parameter's buffer.
  const Instruction* root = value->parent()->root();
  std::vector<std::pair<const Instruction*, ShapeIndex>> work = {{value, index}};
  absl::flat_hash_set<std::pair<const Instruction*, ShapeIndex>> seen = {
      {value, index}};
  auto push = [&](const Instruction* instr, ShapeIndex at) {
    if (seen.insert({instr, at}).second) work.push_back({instr, std::move(at)});
  };
  while (!work.empty()) {
    auto [instr, at] = std::move(work.back());
    work.pop_back();
    if (instr == root) return true;
    for (const Instruction* user : instr->users()) {
      switch (user->opcode()) {
        case HloOpcode::kTuple:
          for (int64_t i : user->OperandIndices(instr)) {
            ShapeIndex inner = at;
            inner.insert(inner.begin(), i);
            push(user, std::move(inner));
          }
          break;
        case HloOpcode::kBitcast:
        case HloOpcode::kOptimizationBarrier:
        case HloOpcode::kWhile:  // its operand's buffer is the loop's
          push(user, at);
          break;
        case HloOpcode::kGetTupleElement:
          if (!at.empty() && at.front() == user->tuple_index()) {
            push(user, ShapeIndex(at.begin() + 1, at.end()));
          }
          break;
        case HloOpcode::kDynamicUpdateSlice:
          if (at.empty() && user->operand(0) == instr) push(user, at);
          break;
        default:
          break;
      }
    }
  }
  return false;
}

bool Offloader::ApplySchedulingFix() {
  bool changed = false;
  for (const auto& comp : module_.computations()) {
    if (comp.get() == module_.entry()) continue;
    // Only a DUS this pass put in host memory qualifies.
    if (!comps_with_host_dus_.contains(comp.get())) continue;
    bool in_while_body = false;
    for (const Instruction* caller : call_graph_.CallersOf(comp.get())) {
      in_while_body |= caller->opcode() == HloOpcode::kWhile &&
                       caller->while_body() == comp.get();
    }
    for (Instruction* instr : comp->MakeInstructionPostOrder()) {
      if (instr->opcode() != HloOpcode::kDynamicUpdateSlice) continue;
      if (instr->shape().memory_space() != kHostMemorySpace) continue;
      Instruction* update = instr->operand(1);
      if (!SharesBufferWithParameter(update, in_while_body)) continue;
      Instruction* copy =
          comp->AddInstruction(HloOpcode::kCopy, update->shape(), {update}, "copy");
      instr->ReplaceOperandWith(1, copy);
      changed = true;
      if (context_.TraceOn(5)) {
        Trace(5, absl::StrCat("Added copy ", Quoted(copy),
                              " for DynamicUpdateSlice ", instr->name(),
                              "'s 1st operand ", update->name()));
      }
    }
  }
  return changed;
}

absl::StatusOr<bool> Offloader::HandleRedundantCopiesBackToHost(
    Instruction* start) {
  if (start->user_count() != 1 ||
      start->users()[0]->opcode() != HloOpcode::kAsyncDone) {
    return Fail(DiagCode::kHO9002,
                absl::StrCat("host async call \"", start->name(),
                             "\" must have exactly one user, its async-done; "
                             "XLA's host offloader fails a CHECK here"),
                start);
  }
  Instruction* done = start->users()[0];
  const Shape& entry_result = module_.entry_computation_layout().result;
  Computation* entry = module_.entry();
  // For each output leaf, the values that stay on host.
  std::vector<std::pair<ShapeIndex, std::vector<IAS>>> kept;
  ShapeIndex scratch;
  std::vector<ShapeIndex> leaves;
  shape_util::ForEachSubshape(
      done->shape(),
      [&](const Shape& sub, const ShapeIndex& index) {
        if (sub.IsArray()) leaves.push_back(index);
      },
      scratch);
  for (const ShapeIndex& output : leaves) {
    ShapeIndex start_index = {1};
    start_index.insert(start_index.end(), output.begin(), output.end());
    std::vector<IAS> values = {{start, start_index}, {done, output}};
    std::deque<IAS> queue = {{done, output}};
    absl::flat_hash_set<IAS> seen = {{done, output}};
    bool host_only = true;
    bool entry_output = false;
    while (!queue.empty() && host_only) {
      IAS current = queue.front();
      queue.pop_front();
      for (Instruction* user : current.instruction->users()) {
        if (user->opcode() == HloOpcode::kAsyncStart) host_only = false;
      }
      auto successors = GetSuccessors(current, call_graph_);
      if (!successors.ok()) {
        host_only = false;
        break;
      }
      for (const IAS& s : *successors) {
        Instruction* instr = s.instruction;
        bool is_entry_root = instr->IsRoot() && instr->parent() == entry;
        bool ok = IsValidDuringPureMemoryOffload(instr->opcode());
        if (is_entry_root && !SubshapeIsHost(entry_result, s.shape_index)) {
          ok = false;
        }
        if (instr->opcode() == HloOpcode::kCustomCall && !IsMoveToHost(instr)) {
          ok = false;
        }
        if (instr->opcode() == HloOpcode::kAsyncStart ||
            instr->opcode() == HloOpcode::kAsyncDone) {
          ok = false;
        }
        if (!ok) {
          host_only = false;
          break;
        }
        if (is_entry_root) entry_output = true;
        values.push_back(s);
        if (seen.insert(s).second) queue.push_back(s);
      }
    }
    if (!host_only || !entry_output) values.clear();
    kept.emplace_back(output, std::move(values));
  }
  // UpdateMemorySpaceForHostOffloadedOutputs.
  if (start->called_computations().empty()) return false;
  Computation* wrapped = start->called_computations()[0];
  for (Instruction* instr : wrapped->instructions()) {
    if (instr->opcode() != HloOpcode::kParameter && instr != wrapped->root()) {
      return Fail(DiagCode::kHO1007,
                  absl::StrCat("Unexpected instruction found in async "
                               "computation: ",
                               InstructionToString(*instr)),
                  instr);
    }
  }
  bool changed = false;
  for (auto& [output, values] : kept) {
    if (values.empty()) continue;
    for (const IAS& value : values) {
      if (IsMoveToHost(value.instruction)) {
        if (value.instruction->IsDead()) continue;
        value.instruction->ReplaceAllUsesWith(value.instruction->operand(0));
        changed = true;
        continue;
      }
      SetMemorySpace(value.instruction, value.shape_index, kHostMemorySpace);
    }
    SetMemorySpace(wrapped->root(), output, kHostMemorySpace);
  }
  return changed;
}

absl::StatusOr<bool> Offloader::Run() {
  changed_ |= ScanAndRemoveHostMemorySpace();
  if (bad_annotation_ != nullptr) {
    return Fail(DiagCode::kHO9002,
                absl::StrCat(bad_annotation_->custom_call_target(), " \"",
                             bad_annotation_->name(), "\" has ",
                             bad_annotation_->operand_count(),
                             " operands; it moves exactly one value, and "
                             "XLA's host offloader fails a CHECK here"),
                bad_annotation_);
  }

  // Host async calls: outputs that only flow to host outputs stay on host.
  for (Instruction* instr : host_async_starts_) {
    ASSIGN_OR_RETURN(bool changed, HandleRedundantCopiesBackToHost(instr));
    changed_ |= changed;
  }

  // Input streaming from host-memory entry parameters.
  Computation* entry = module_.entry();
  const auto& params = module_.entry_computation_layout().parameters;
  for (size_t i = 0; i < params.size(); ++i) {
    ShapeIndex scratch;
    std::vector<ShapeIndex> host_leaves;
    shape_util::ForEachSubshape(
        params[i],
        [&](const Shape& sub, const ShapeIndex& index) {
          if (sub.IsArray() && sub.memory_space() == kHostMemorySpace) {
            host_leaves.push_back(index);
          }
        },
        scratch);
    for (const ShapeIndex& index : host_leaves) {
      Instruction* param = entry->parameter(static_cast<int64_t>(i));
      if (context_.TraceOn(1)) {
        Trace(1, absl::StrCat("Host parameter #", i,
                              " streamed into program with shape: ",
                              ShapeToString(*shape_util::TryGetSubshape(
                                  params[i], index)),
                              " at index ", ShapeIndexToString(index)));
      }
      start_hops_.clear();
      RETURN_IF_ERROR(WalkDownHostMemoryOffloadPaths(
          {param, index}, /*insert_copy_before=*/false, std::nullopt, param));
    }
  }

  std::vector<Instruction*> move_to_hosts = MoveToHostsInOffloaderOrder(module_);
  for (Instruction* mth : move_to_hosts) {
    ASSIGN_OR_RETURN(bool changed, HandleMoveToHostCustomCall(mth));
    changed_ |= changed;
  }
  if (unreported_output_errors_ > 0 && context_.diagnostics) {
    Diagnostic d;
    d.severity = Severity::kNote;
    d.code = DiagCode::kE1200;
    d.message = absl::StrCat(unreported_output_errors_,
                             " more entry outputs have the same fault; only "
                             "the first ", kMaxReportedOutputErrors,
                             " are reported");
    context_.diagnostics->Emit(std::move(d));
  }
  if (!output_errors_.empty()) return output_errors_.front();

  RETURN_IF_ERROR(HandleDynamicUpdateSlices());
  ASSIGN_OR_RETURN(bool removed, RemoveMoveToDevices());
  changed_ |= removed;
  changed_ |= ApplySchedulingFix();
  changed_ |= RunLayoutSensitiveCse(module_);
  module_.Sweep();
  return changed_;
}

}  // namespace

absl::StatusOr<bool> HostOffloader::Run(Module& module) {
  Offloader offloader(module, context_);
  return offloader.Run();
}

}  // namespace hloff
