// The offload report (report.h): the walks of the HostOffloader over its
// input, as the pipeline shows it (ReportBuilder::OffloaderInput), then a
// look at what the real HostOffloader left (ReportBuilder::Finish).
#include "report/report.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/call_graph.h"
#include "analysis/host_buffers.h"
#include "analysis/host_path_walk.h"
#include "analysis/offload_utils.h"
#include "report/host_buffers.h"
#include "report/report_util.h"
#include "report/transfers.h"

namespace hloff {

absl::string_view OffloadKindName(OffloadKind kind) {
  switch (kind) {
    case OffloadKind::kMoveToHost:
      return "move_to_host";
    case OffloadKind::kHostParameter:
      return "host_parameter";
    case OffloadKind::kHostCompute:
      return "host_compute";
  }
  return "";
}

absl::string_view EndKindName(EndKind kind) {
  switch (kind) {
    case EndKind::kMoveToDevice:
      return "move_to_device";
    case EndKind::kHostCompute:
      return "host_compute";
    case EndKind::kOutput:
      return "output";
    case EndKind::kCustomCall:
      return "custom_call";
  }
  return "";
}

absl::string_view TransferDirectionName(TransferDirection direction) {
  return direction == TransferDirection::kToHost ? "to_host" : "to_device";
}

namespace {

using IAS = InstructionAndShapeIndex;
using report_util::AnyLeafIsHost;
using report_util::AppendArrayLeaves;
using report_util::BytesAt;
using report_util::InputName;
using report_util::NestedComputations;
using report_util::OpNameOp;
using report_util::OpNameScope;
using report_util::ValueProducer;
using report_util::Ref;
using report_util::ShapeAt;
using report_util::ShortShape;
using report_util::ShortSource;
using report_util::SourceOf;


// What the walks record about one instruction, for the picture.
struct Marks {
  bool host = false;
  bool start = false;
  bool end = false;
  bool e1200 = false;
  std::string note;
  std::string source;  // starts: the user's line, `file.py:15`
  std::string label;   // starts and MoveToDevice ends: the tensor's name
  int64_t executions = 1;
};

// The name a picture gives an instruction that is no offload start:
// op_name's last component, or the opcode (custom-call target) without one.
std::string OpLabel(const Instruction* instr) {
  absl::string_view op = OpNameOp(instr->metadata().op_name);
  if (!op.empty()) return std::string(op);
  return instr->opcode() == HloOpcode::kCustomCall
             ? std::string(instr->custom_call_target())
             : std::string(HloOpcodeString(instr->opcode()));
}

// The checkpoint names by "file\nline\nop"; "" where two names share a key.
using CheckpointNameIndex = absl::flat_hash_map<std::string, std::string>;

std::string CheckpointKey(absl::string_view file, int64_t line, absl::string_view op) {
  return absl::StrCat(file, "\n", line, "\n", op);
}

CheckpointNameIndex IndexCheckpointNames(const std::vector<CheckpointName>& names) {
  CheckpointNameIndex index;
  for (const CheckpointName& n : names) {
    auto [it, added] = index.try_emplace(CheckpointKey(n.file, n.line, n.op), n.name);
    if (!added && it->second != n.name) it->second.clear();
  }
  return index;
}

// Fills the user's terms of `offload`, whose start is `start`: its name,
// where the offloaded value is computed, how often it runs per step.
void NameOffload(const Module& module, const Instruction* start,
                 const CheckpointNameIndex& checkpoint_names,
                 LoopNesting& nesting, Offload& offload) {
  offload.executions = nesting.Executions(nesting.InnermostLoop(start->parent()));
  if (offload.kind == OffloadKind::kHostParameter) {
    offload.name = absl::StrCat("parameter ", offload.parameter_number);
    if (!offload.shape_index.empty()) {
      absl::StrAppend(&offload.name, " ", ShapeIndexToString(offload.shape_index));
    }
    offload.name_from = "parameter";
    offload.value_source = offload.source;
    return;
  }
  // A MoveToHost moves its operand's value; host compute computes its own.
  const Instruction* producer = start;
  if (offload.kind == OffloadKind::kMoveToHost && start->operand_count() > 0) {
    producer = ValueProducer(start->operand(0));
  }
  absl::string_view scope = OpNameScope(start->metadata().op_name);
  if (scope.empty()) scope = OpNameScope(producer->metadata().op_name);
  if (!scope.empty()) {
    offload.name = std::string(scope);
    offload.name_from = "scope";
  } else {
    offload.name = OpLabel(producer);
    offload.name_from = "op";
  }
  offload.value_source = SourceOf(module, producer);
  if (!checkpoint_names.empty() && !offload.value_source.file.empty()) {
    auto it = checkpoint_names.find(CheckpointKey(
        offload.value_source.file, offload.value_source.line, OpLabel(producer)));
    if (it != checkpoint_names.end() && !it->second.empty()) {
      offload.name = it->second;
      offload.name_from = "checkpoint_name";
    }
  }
  if (offload.value_source.file.empty()) offload.value_source = offload.source;
}

// The offloads' bytes per name (Report::by_name): a scope name is one row,
// an op name one row per source line; rows in the order they first appear.
std::vector<NamedOffloads> BytesByName(const std::vector<Offload>& offloads) {
  std::vector<NamedOffloads> rows;
  absl::flat_hash_map<std::string, size_t> row_of;
  for (const Offload& offload : offloads) {
    std::string key = offload.name_from == "op"
                          ? absl::StrCat(offload.name, "\n", offload.value_source.file,
                                         ":", offload.value_source.line)
                          : absl::StrCat(offload.name_from, "\n", offload.name);
    auto [it, added] = row_of.try_emplace(key, rows.size());
    if (added) {
      NamedOffloads row;
      row.name = offload.name;
      row.name_from = offload.name_from;
      row.source = offload.value_source;
      row.bytes_per_step = 0;
      rows.push_back(std::move(row));
    }
    NamedOffloads& row = rows[it->second];
    ++row.offloads;
    row.bytes = shape_util::SaturatingAdd(row.bytes, offload.bytes);
    if (row.bytes_per_step.has_value() && offload.executions.has_value() &&
        (*offload.executions == 0 ||
         offload.bytes <= std::numeric_limits<int64_t>::max() / *offload.executions)) {
      row.bytes_per_step = shape_util::SaturatingAdd(
          *row.bytes_per_step, offload.bytes * *offload.executions);
    } else {
      row.bytes_per_step.reset();
    }
    row.starts.push_back(offload.start.name);
  }
  return rows;
}

// Records the HostOffloader's walks (analysis/host_path_walk.h) over the
// module before the pass changes it: each offloaded tensor, where each of
// its paths ends, and the marks and edges of the picture.
class OffloadRecorder : public HostPathObserver {
 public:
  OffloadRecorder(Module& module, const CallGraph& call_graph, Report& report,
                  const std::vector<CheckpointName>& checkpoint_names)
      : module_(module),
        call_graph_(call_graph),
        report_(report),
        checkpoint_names_(IndexCheckpointNames(checkpoint_names)),
        nesting_(module, call_graph) {}

  // Walks every offloaded tensor; fills report_.offloads and the marks.
  void WalkAll();

  // The walks' host-resident values, expanded to array leaves.
  std::vector<IAS> HostLeaves() const;

  // Builds the picture's graph from the walks (before the HostOffloader
  // changes the module).
  void BuildGraph(const ReportOptions& options);

  absl::StatusOr<HostPathNext> Visit(const HostPathWalk& path,
                                     const HostPathValue& at) override;
  void Hop(const IAS& from, const IAS& to) override {
    AddWalkEdge(from.instruction, to.instruction);
  }
  absl::Status SuccessorsFailed(const IAS& value, absl::Status status,
                                Instruction*) override {
    report_.notes.push_back(absl::StrCat(
        "the paths of ", walk_->offload->start.name, " are not followed past ",
        InputName(value.instruction), ": ", status.message()));
    return absl::OkStatus();
  }

 private:
  // Where a value is: between a MoveToHost and the walk start (device side,
  // the "allowed hops" of GetStartingInstructions), or in host memory.
  enum class Phase { kToHost, kHost };

  // Where a visited value stands: its phase, and the walk start (the first
  // host value) of its path, which its successors inherit.
  struct Item {
    Phase phase = Phase::kHost;
    const Instruction* walk_start = nullptr;
  };

  // One walk: the tensor it records and what its values were.
  struct Walk {
    Offload* offload = nullptr;
    bool checks_outputs = true;  // XLA raises E1200 on its device outputs
    const Instruction* inherited_walk_start = nullptr;
    // The walk of a host-compute output: its index in host_compute_, else -1.
    int64_t host_compute = -1;
    Phase start_phase = Phase::kHost;
    const HostPathWalk* path = nullptr;
    std::vector<Item> items;  // by HostPathValue::index
  };

  void RunWalk(Offload& offload, IAS start, Phase phase, bool checks_outputs,
               const Instruction* inherited_walk_start, int64_t host_compute);
  void MarkRed(const std::vector<const Instruction*>& path);
  // SliceLeadsToMoveToDevice of `slice` with its paths, once per slice.
  const SliceWalk& WalkFromSlice(const Instruction* slice);
  // The instructions of the walk's first-discovery path to the value of
  // discovery index `index`.
  std::vector<const Instruction*> PathTo(int64_t index) const;
  void AddEnd(const Item& item, EndKind kind, const Instruction* at,
              const ShapeIndex& index, std::vector<const Instruction*> path);
  void HostComputeEnd(const HostPathValue& at, const Item& item);
  Marks& Mark(const Instruction* instr);
  void AddWalkEdge(const Instruction* from, const Instruction* to);

  // Names `offload` (NameOffload) and labels its start in the picture.
  void NameStart(const Instruction* start, Offload& offload);

  Module& module_;
  const CallGraph& call_graph_;
  Report& report_;
  const CheckpointNameIndex checkpoint_names_;
  LoopNesting nesting_;
  Walk* walk_ = nullptr;  // the walk running
  absl::flat_hash_set<const Instruction*> absorbed_move_to_hosts_;
  absl::flat_hash_map<const Instruction*, SliceWalk> slices_;
  absl::flat_hash_set<IAS> host_values_;
  std::vector<IAS> host_value_order_;  // host_values_ in discovery order
  // Host-compute offloads, by their output value, walked after the others.
  std::deque<Offload> host_compute_;
  absl::flat_hash_map<IAS, size_t> host_compute_index_;
  std::vector<IAS> host_compute_start_;
  std::vector<const Instruction*> host_compute_walk_start_;
  // How each host-compute output was reached: the walk it was reached from
  // (an index into host_compute_, or -1 for a parameter or MoveToHost walk)
  // and the way from that walk's start to it. An E1200 path is red from the
  // first walk's start: the links are followed up, each marked once.
  std::vector<int64_t> host_compute_parent_;
  std::vector<std::vector<const Instruction*>> host_compute_link_;
  std::vector<bool> host_compute_red_;
  std::vector<bool> host_compute_checked_;
  // Marks and walk edges, in discovery order.
  absl::flat_hash_map<const Instruction*, Marks> marks_;
  std::vector<const Instruction*> path_order_;
  absl::flat_hash_set<std::pair<const Instruction*, const Instruction*>>
      walk_edges_;
  std::vector<std::pair<const Instruction*, const Instruction*>> walk_edge_order_;
  // Each walk's own edges, in order: the picture collapses plumbing walk by
  // walk, so that a loop tuple carrying two tensors does not join them.
  std::vector<std::vector<std::pair<const Instruction*, const Instruction*>>>
      walk_edges_by_walk_;
  absl::flat_hash_set<std::pair<const Instruction*, const Instruction*>>
      e1200_edges_;
};

void OffloadRecorder::NameStart(const Instruction* start, Offload& offload) {
  NameOffload(module_, start, checkpoint_names_, nesting_, offload);
  Marks& marks = Mark(start);
  if (marks.label.empty()) {
    marks.label = offload.name;
    marks.source = ShortSource(offload.value_source);
    marks.executions = offload.executions.value_or(1);
  }
}

Marks& OffloadRecorder::Mark(const Instruction* instr) {
  auto [it, added] = marks_.try_emplace(instr);
  if (added) path_order_.push_back(instr);
  return it->second;
}

void OffloadRecorder::AddWalkEdge(const Instruction* from, const Instruction* to) {
  if (from == to) return;
  if (walk_ != nullptr) walk_edges_by_walk_.back().push_back({from, to});
  if (walk_edges_.insert({from, to}).second) walk_edge_order_.push_back({from, to});
}

std::vector<const Instruction*> OffloadRecorder::PathTo(int64_t index) const {
  std::vector<const Instruction*> path;
  for (const IAS& hop : walk_->path->PathTo(index)) {
    if (path.empty() || path.back() != hop.instruction) {
      path.push_back(hop.instruction);
    }
  }
  return path;
}

void OffloadRecorder::AddEnd(const Item& item, EndKind kind, const Instruction* at,
                             const ShapeIndex& index,
                             std::vector<const Instruction*> path) {
  Walk& walk = *walk_;
  OffloadEnd end;
  end.kind = kind;
  end.instruction = Ref(at);
  end.shape_index = index;
  const Instruction* walk_start =
      walk.inherited_walk_start ? walk.inherited_walk_start : item.walk_start;
  if (walk_start != nullptr) end.walk_start = std::string(walk_start->name());
  Marks& marks = Mark(at);
  marks.end = true;
  if (kind == EndKind::kOutput) {
    end.output_index = index;
    end.output_in_host_memory =
        SubshapeIsHost(module_.entry_computation_layout().result, index);
    end.e1200 = walk.checks_outputs && !end.output_in_host_memory &&
                item.phase == Phase::kHost;
    marks.note = absl::StrCat("entry output ", ShapeIndexToString(index), ": ",
                              end.output_in_host_memory ? "host" : "device",
                              " memory", end.e1200 ? " (E1200)" : "");
  } else if (kind == EndKind::kMoveToDevice) {
    if (marks.note.empty()) marks.note = "back to device";
    if (marks.label.empty()) {
      marks.label = walk.offload->name;
      marks.source = ShortSource(walk.offload->value_source);
    }
  } else if (kind == EndKind::kCustomCall) {
    marks.note = "reads host memory";
  } else {
    marks.note = "host compute";
  }
  if (end.e1200) {
    marks.e1200 = true;
    MarkRed(path);
    for (int64_t i = walk.host_compute; i >= 0 && !host_compute_red_[i];
         i = host_compute_parent_[i]) {
      host_compute_red_[i] = true;
      MarkRed(host_compute_link_[i]);
    }
  }
  for (const Instruction* hop : path) end.path.push_back(InputName(hop));
  end.path.erase(std::unique(end.path.begin(), end.path.end()), end.path.end());
  walk.offload->ends.push_back(std::move(end));
}

void OffloadRecorder::MarkRed(const std::vector<const Instruction*>& path) {
  for (size_t i = 0; i < path.size(); ++i) {
    Mark(path[i]).e1200 = true;
    if (i > 0) e1200_edges_.insert({path[i - 1], path[i]});
  }
}

void OffloadRecorder::HostComputeEnd(const HostPathValue& at, const Item& item) {
  Walk& walk = *walk_;
  const IAS& value = at.value;
  Instruction* instr = value.instruction;
  AddEnd(item, EndKind::kHostCompute, instr, value.shape_index, PathTo(at.index));
  Marks& marks = Mark(instr);
  marks.host = true;  // host compute writes its result to host memory
  marks.start = true;
  auto [it, added] = host_compute_index_.try_emplace(value, host_compute_.size());
  if (added) {
    Offload offload;
    offload.kind = OffloadKind::kHostCompute;
    offload.start = Ref(instr);
    offload.shape_index = value.shape_index;
    offload.shape = ShapeAt(instr->shape(), value.shape_index);
    offload.bytes = BytesAt(instr->shape(), value.shape_index);
    offload.source = SourceOf(module_, instr);
    NameStart(instr, offload);
    host_compute_.push_back(std::move(offload));
    host_compute_start_.push_back(value);
    host_compute_walk_start_.push_back(walk.inherited_walk_start
                                           ? walk.inherited_walk_start
                                           : item.walk_start);
    host_compute_checked_.push_back(walk.checks_outputs);
    host_compute_parent_.push_back(walk.host_compute);
    host_compute_link_.push_back(PathTo(at.index));
    host_compute_red_.push_back(false);
  }
  std::vector<std::string>& from = host_compute_[it->second].reached_from;
  const std::string& name = walk.offload->start.name;
  if (std::find(from.begin(), from.end(), name) == from.end()) {
    from.push_back(name);
  }
}

const SliceWalk& OffloadRecorder::WalkFromSlice(const Instruction* slice) {
  auto cached = slices_.find(slice);
  if (cached != slices_.end()) return cached->second;
  // The offloader's own walk (analysis/offload_utils.h); a walk that cannot
  // go on (GetSuccessors fails) does not lead to a MoveToDevice.
  auto walk = SliceLeadsToMoveToDevice(slice, call_graph_, /*record_paths=*/true);
  SliceWalk result;
  if (walk.ok()) {
    result = *std::move(walk);
  } else {
    result.leads = false;
  }
  return slices_.emplace(slice, std::move(result)).first->second;
}

void OffloadRecorder::RunWalk(Offload& offload, IAS start, Phase phase,
                              bool checks_outputs,
                              const Instruction* inherited_walk_start,
                              int64_t host_compute) {
  Walk walk;
  walk.host_compute = host_compute;
  walk.offload = &offload;
  walk.checks_outputs = checks_outputs;
  walk.inherited_walk_start = inherited_walk_start;
  walk.start_phase = phase;
  HostPathWalk path(call_graph_, {/*skip_whole_tuple_reads=*/false,
                                  /*copy_compares_memory_space=*/false});
  walk.path = &path;
  walk_ = &walk;
  walk_edges_by_walk_.emplace_back();
  Mark(start.instruction).start = true;
  // The recorder stops at nothing but the ends it records: Visit and
  // SuccessorsFailed never fail.
  path.Run(start, *this).IgnoreError();
  walk_ = nullptr;
}

absl::StatusOr<HostPathNext> OffloadRecorder::Visit(const HostPathWalk& path,
                                                    const HostPathValue& at) {
  Walk& walk = *walk_;
  const IAS& value = at.value;
  Instruction* instr = value.instruction;
  const bool is_start = at.index == 0;
  // What the value inherits from the one it was reached from.
  Item item;
  const Instruction* from = nullptr;
  Phase from_phase = Phase::kHost;
  if (at.previous >= 0) {
    const Item& parent = walk.items[at.previous];
    item = parent;
    from = path.value(at.previous).instruction;
    from_phase = parent.phase;
  } else {
    item.phase = walk.start_phase;
    item.walk_start = item.phase == Phase::kHost ? instr : nullptr;
  }
  // GetStartingInstructions: bitcasts, copies and bitcast reshapes right
  // after a MoveToHost still run on device; anything else (or a
  // dynamic-update-slice) starts the walk in host memory.
  if (item.phase == Phase::kToHost && !is_start && !IsCopyOrBitcastHop(instr)) {
    item.phase = Phase::kHost;
    item.walk_start = instr;
  }
  walk.items.push_back(item);
  Marks& marks = Mark(instr);
  if (item.phase == Phase::kToHost) {
    if (IsEntryRoot(instr, module_)) {
      // A MoveToHost (or its hops) at the entry root: XLA copies it to
      // host without checking the output layout (V6).
      AddEnd(item, EndKind::kOutput, instr, value.shape_index, PathTo(at.index));
      if (IsMoveToHost(instr)) marks.host = true;
      return HostPathNext::kStop;
    }
    return HostPathNext::kSuccessors;
  }
  if (!is_start) {
    // WalkDownHostMemoryOffloadPaths' cases.
    switch (at.step) {
      case HostPathStep::kMoveToHost:
        absorbed_move_to_hosts_.insert(instr);  // a no-op on host data
        break;
      case HostPathStep::kMoveToDevice:
        AddEnd(item, EndKind::kMoveToDevice, instr, value.shape_index,
               PathTo(at.index));
        return HostPathNext::kStop;
      case HostPathStep::kDynamicUpdateSlice:
        // Reached through the update from host data: host compute
        // (HandleDynamicUpdateSlices). Reached through the buffer, or as the
        // walk start of a MoveToHost, it is a transfer into host memory.
        if (from != nullptr && instr->operand(0) != from &&
            from_phase == Phase::kHost) {
          HostComputeEnd(at, item);
          return HostPathNext::kStop;
        }
        break;
      case HostPathStep::kPureMemory:
      case HostPathStep::kLayoutCopy:
        // The data moves on unchanged, or within host memory.
        break;
      case HostPathStep::kSlice: {
        const SliceWalk& slice = WalkFromSlice(instr);
        if (!slice.leads) {
          HostComputeEnd(at, item);
          return HostPathNext::kStop;
        }
        std::vector<const Instruction*> to_slice = PathTo(at.index);
        marks.note = "to device";
        for (const auto& [move_to_device, hops] : slice.move_to_devices) {
          std::vector<const Instruction*> hop_path = to_slice;
          const Instruction* previous = instr;
          for (const Instruction* hop : hops) {
            hop_path.push_back(hop);
            Mark(hop);
            AddWalkEdge(previous, hop);
            previous = hop;
          }
          AddEnd(item, EndKind::kMoveToDevice, move_to_device, {},
                 std::move(hop_path));
          walk.offload->ends.back().via = InputName(instr);
        }
        return HostPathNext::kStop;
      }
      case HostPathStep::kHostCompute:
        HostComputeEnd(at, item);
        return HostPathNext::kStop;
    }
  }
  if (host_values_.insert(value).second) host_value_order_.push_back(value);
  Mark(instr).host = true;
  if (IsEntryRoot(instr, module_)) {
    AddEnd(item, EndKind::kOutput, instr, value.shape_index, PathTo(at.index));
    return HostPathNext::kStop;
  }
  // Custom calls that read the value without aliasing it stop
  // GetSuccessors: they are ends of their own.
  for (Instruction* user : instr->users()) {
    if (user->opcode() != HloOpcode::kCustomCall || IsMoveToHost(user) ||
        IsMoveToDevice(user)) {
      continue;
    }
    bool aliased = false;
    for (int64_t p : user->OperandIndices(instr)) {
      aliased |= CustomCallReusesBuffer(user, p);
    }
    if (aliased) continue;
    bool on_host = user->parent()->execution_thread() == "host" ||
                   user->custom_call_target() == "HostExecute" ||
                   ComputeTypeIsHost(user);
    std::vector<const Instruction*> hop_path = PathTo(at.index);
    hop_path.push_back(user);
    AddWalkEdge(instr, user);
    AddEnd(item, on_host ? EndKind::kHostCompute : EndKind::kCustomCall, user,
           value.shape_index, std::move(hop_path));
  }
  return HostPathNext::kSuccessors;
}

void OffloadRecorder::WalkAll() {
  const EntryComputationLayout& layout = module_.entry_computation_layout();
  Computation* entry = module_.entry();
  // Input streaming: host-memory entry parameter leaves.
  for (size_t i = 0; i < layout.parameters.size() &&
                     static_cast<int64_t>(i) < entry->num_parameters();
       ++i) {
    std::vector<ShapeIndex> leaves;
    AppendArrayLeaves(layout.parameters[i], {}, leaves);
    for (const ShapeIndex& index : leaves) {
      const Shape* sub = shape_util::TryGetSubshape(layout.parameters[i], index);
      if (sub->memory_space() != kHostMemorySpace) continue;
      Instruction* param = entry->parameter(static_cast<int64_t>(i));
      Offload offload;
      offload.kind = OffloadKind::kHostParameter;
      offload.start = Ref(param);
      offload.parameter_number = static_cast<int64_t>(i);
      offload.shape_index = index;
      offload.shape = ShapeToString(*sub);
      offload.bytes = shape_util::ByteSizeOf(*sub);
      offload.source = SourceOf(module_, param);
      NameStart(param, offload);
      report_.offloads.push_back(std::move(offload));
      RunWalk(report_.offloads.back(), {param, index}, Phase::kHost,
              /*checks_outputs=*/true,
              nullptr, -1);
    }
  }
  // MoveToHosts, in the offloader's order; one reached inside an earlier
  // walk is a no-op there and no tensor of its own.
  for (Instruction* mth : MoveToHostsInOffloaderOrder(module_)) {
    if (absorbed_move_to_hosts_.contains(mth)) continue;
    Offload offload;
    offload.kind = OffloadKind::kMoveToHost;
    offload.start = Ref(mth);
    offload.shape = ShapeToString(mth->shape());
    offload.bytes = shape_util::ByteSizeOf(mth->shape());
    offload.source = SourceOf(module_, mth);
    NameStart(mth, offload);
    report_.offloads.push_back(std::move(offload));
    Mark(mth).host = true;
    RunWalk(report_.offloads.back(), {mth, {}}, Phase::kToHost,
            /*checks_outputs=*/true, nullptr,
            -1);
  }
  // Instructions the input already runs on the host (not reached above).
  absl::flat_hash_set<const Computation*> nested = NestedComputations(module_);
  for (const auto& comp : module_.computations()) {
    if (nested.contains(comp.get())) continue;
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->IsDead() || !ComputeTypeIsHost(instr.get())) continue;
      IAS value = {instr.get(), {}};
      if (host_compute_index_.contains(value)) continue;
      host_compute_index_.emplace(value, host_compute_.size());
      Offload offload;
      offload.kind = OffloadKind::kHostCompute;
      offload.start = Ref(instr.get());
      offload.shape = ShapeToString(instr->shape());
      offload.bytes = shape_util::ByteSizeOf(instr->shape());
      offload.source = SourceOf(module_, instr.get());
      NameStart(instr.get(), offload);
      host_compute_.push_back(std::move(offload));
      host_compute_start_.push_back(value);
      host_compute_walk_start_.push_back(nullptr);
      host_compute_parent_.push_back(-1);
      host_compute_link_.push_back({});
      host_compute_red_.push_back(false);
      // XLA does not walk from these, so it checks none of their outputs.
      host_compute_checked_.push_back(false);
      Mark(instr.get()).host = true;
    }
  }
  // Host-compute outputs: their walks may find more host compute.
  for (size_t i = 0; i < host_compute_.size(); ++i) {
    // host_compute_ is a deque: references stay valid while it grows.
    RunWalk(host_compute_[i], host_compute_start_[i], Phase::kHost,
            host_compute_checked_[i], host_compute_walk_start_[i],
            static_cast<int64_t>(i));
  }
  for (Offload& offload : host_compute_) {
    report_.offloads.push_back(std::move(offload));
  }
}

std::vector<IAS> OffloadRecorder::HostLeaves() const {
  std::vector<IAS> leaves;
  std::vector<ShapeIndex> indices;
  for (const IAS& value : host_value_order_) {
    indices.clear();
    AppendArrayLeaves(value.instruction->shape(), value.shape_index, indices);
    for (ShapeIndex& index : indices) {
      leaves.push_back({value.instruction, std::move(index)});
    }
  }
  return leaves;
}

// Instructions that only carry a value on: collapsed into the edges of the
// picture (ReportGraph). Starts and ends are always drawn.
bool IsPlumbing(const Instruction* instr, const Module& module) {
  switch (instr->opcode()) {
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kTuple:
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kBitcast:
    case HloOpcode::kCopy:
    case HloOpcode::kReshape:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return true;
    case HloOpcode::kParameter:
      return instr->parent() != module.entry();
    default:
      return false;
  }
}

void OffloadRecorder::BuildGraph(const ReportOptions& options) {
  ReportGraph& graph = report_.graph;
  absl::flat_hash_map<const Instruction*, int> index;
  absl::flat_hash_set<std::string> ids;
  auto add_node = [&](const Instruction* instr, bool on_path) {
    GraphNode node;
    node.name = InputName(instr);
    node.instruction = std::string(instr->name());
    node.id = ids.insert(node.name).second ? node.name : node.instruction;
    ids.insert(node.id);
    node.opcode = instr->opcode() == HloOpcode::kCustomCall
                      ? std::string(instr->custom_call_target())
                      : std::string(HloOpcodeString(instr->opcode()));
    node.shape = ShortShape(instr->shape());
    node.computation = std::string(instr->input_computation());
    node.cluster = instr->parent()->name();
    node.loc = instr->loc();
    node.on_path = on_path;
    node.annotation = IsOffloadAnnotation(instr);
    // The entry root is where values leave the program, whatever JAX named it.
    node.label = IsEntryRoot(instr, module_) ? "entry output" : OpLabel(instr);
    node.source = ShortSource(SourceOf(module_, instr));
    if (auto it = marks_.find(instr); it != marks_.end() && on_path) {
      node.host_memory = it->second.host;
      node.start = it->second.start;
      node.end = it->second.end;
      node.e1200 = it->second.e1200;
      node.note = it->second.note;
      if (!it->second.label.empty()) {
        node.label = it->second.label;
        node.source = it->second.source;
      }
      node.executions = it->second.executions;
    }
    index.emplace(instr, static_cast<int>(graph.nodes.size()));
    graph.nodes.push_back(std::move(node));
  };
  auto kept = [&](const Instruction* instr) {
    const Marks& marks = marks_.at(instr);
    return marks.start || marks.end || !IsPlumbing(instr, module_);
  };
  const int64_t limit = std::max<int64_t>(options.max_graph_nodes, 1);
  std::vector<const Instruction*> drawn;
  for (const Instruction* instr : path_order_) {
    if (!kept(instr)) {
      ++graph.collapsed_nodes;
      continue;
    }
    if (static_cast<int64_t>(graph.nodes.size()) >= limit) {
      ++graph.omitted_nodes;
      continue;
    }
    add_node(instr, /*on_path=*/true);
    drawn.push_back(instr);
  }
  absl::flat_hash_set<std::pair<int, int>> edges;
  auto add_edge = [&](int from, int to, bool on_path, bool e1200) {
    if (from == to || !edges.insert({from, to}).second) return;
    GraphEdge edge;
    edge.from = from;
    edge.to = to;
    edge.on_path = on_path;
    edge.e1200 = e1200;
    edge.crosses_computation =
        graph.nodes[from].cluster != graph.nodes[to].cluster;
    graph.edges.push_back(edge);
  };
  // The walks' edges, with the plumbing between two drawn instructions
  // collapsed, walk by walk: what each plumbing instruction leads to in a
  // walk (the first kept instructions after it, and whether the way there
  // is red all along), computed once per instruction and walk, after its
  // successors (an iterative depth-first search; a cycle contributes
  // nothing twice). The work is the size of the walks.
  using Target = std::pair<const Instruction*, bool>;  // (kept, red all along)
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> succ;
  absl::flat_hash_map<const Instruction*, std::vector<Target>> leads_to;
  auto merge = [](std::vector<Target>& into, const Instruction* target, bool red) {
    for (Target& t : into) {
      if (t.first == target) {
        t.second |= red;
        return;
      }
    }
    into.push_back({target, red});
  };
  // The kept instructions the walk edges out of `from` lead to.
  auto targets_of = [&](const Instruction* from) {
    std::vector<Target> out;
    auto it = succ.find(from);
    if (it == succ.end()) return out;
    for (const Instruction* to : it->second) {
      bool red = e1200_edges_.contains({from, to});
      if (kept(to)) {
        merge(out, to, red);
        continue;
      }
      auto done = leads_to.find(to);
      if (done == leads_to.end()) continue;  // on a cycle
      for (const Target& t : done->second) merge(out, t.first, red && t.second);
    }
    return out;
  };
  auto resolve = [&](const Instruction* root) {
    // Post-order over the plumbing reachable from `root`.
    std::vector<std::pair<const Instruction*, size_t>> stack = {{root, 0}};
    absl::flat_hash_set<const Instruction*> on_stack = {root};
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      auto it = succ.find(instr);
      if (it != succ.end() && next < it->second.size()) {
        const Instruction* to = it->second[next++];
        if (!kept(to) && !leads_to.contains(to) && on_stack.insert(to).second) {
          stack.push_back({to, 0});
        }
        continue;
      }
      leads_to.emplace(instr, targets_of(instr));
      on_stack.erase(instr);
      stack.pop_back();
    }
  };
  for (const auto& walk_edges : walk_edges_by_walk_) {
    succ.clear();
    leads_to.clear();
    std::vector<const Instruction*> sources;
    for (const auto& [from, to] : walk_edges) {
      auto [it, added] = succ.try_emplace(from);
      if (added) sources.push_back(from);
      it->second.push_back(to);
    }
    for (const Instruction* instr : sources) {
      auto a = index.find(instr);
      if (a == index.end() || !kept(instr)) continue;
      for (const Instruction* to : succ.at(instr)) {
        if (!kept(to) && !leads_to.contains(to)) resolve(to);
      }
      for (const auto& [target, red] : targets_of(instr)) {
        auto b = index.find(target);
        if (b == index.end()) continue;  // omitted
        add_edge(a->second, b->second, /*on_path=*/true, red);
      }
    }
  }
  // Context in the user's terms: what computes an offloaded value (the
  // operand of a MoveToHost) and what reads a value brought back (the users
  // of a MoveToDevice), never plumbing.
  const int64_t context_limit = limit;
  int64_t context = 0;
  auto add_context = [&](const Instruction* other, int at, bool is_operand) {
    if (IsPlumbing(other, module_)) return false;
    if (!index.contains(other)) {
      if (context >= context_limit) return false;
      add_node(other, /*on_path=*/false);
      ++context;
    }
    int other_id = index.at(other);
    if (is_operand) {
      add_edge(other_id, at, /*on_path=*/false, /*e1200=*/false);
    } else {
      add_edge(at, other_id, /*on_path=*/false, /*e1200=*/false);
    }
    return true;
  };
  for (const Instruction* instr : drawn) {
    const int at = index.at(instr);
    if (IsMoveToHost(instr) && instr->operand_count() > 0) {
      add_context(ValueProducer(instr->operand(0)), at, /*is_operand=*/true);
    }
    if (IsMoveToDevice(instr)) {
      int64_t added = 0;
      for (const Instruction* user : instr->users()) {
        if (added >= options.max_context_per_node) break;
        if (add_context(user, at, /*is_operand=*/false)) ++added;
      }
    }
  }
  // Computations in module order; a while body is labelled as its loop.
  absl::flat_hash_set<std::string> used;
  for (const GraphNode& node : graph.nodes) used.insert(node.cluster);
  for (const auto& comp : module_.computations()) {
    if (!used.contains(comp->name())) continue;
    graph.computations.push_back(comp->name());
    std::string label = comp->name();
    for (const Instruction* caller : call_graph_.CallersOf(comp.get())) {
      if (caller->opcode() != HloOpcode::kWhile || caller->while_body() != comp.get()) {
        continue;
      }
      std::optional<int64_t> trips = ConstantTripCount(*caller);
      label = absl::StrCat("loop ", InputName(caller), " (",
                           trips ? absl::StrCat(*trips, " iterations")
                                 : std::string("trip count unknown"),
                           "): ", comp->name());
      break;
    }
    graph.computation_labels.push_back(std::move(label));
  }
}

// Adds the copies the pipeline inserted to the picture, and the host memory
// spaces it assigned to the instructions drawn.
void AddPipelineResultToGraph(const Module& module,
                              const absl::flat_hash_set<std::string>& input_copies,
                              ReportGraph& graph) {
  absl::flat_hash_map<std::string, int> by_name;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    by_name.emplace(graph.nodes[i].instruction, static_cast<int>(i));
  }
  for (const auto& comp : module.computations()) {
    for (const auto& owned : comp->raw_instructions()) {
      const Instruction* instr = owned.get();
      if (instr->IsDead()) continue;
      auto it = by_name.find(instr->name());
      if (it != by_name.end()) {
        GraphNode& node = graph.nodes[it->second];
        if (node.on_path && AnyLeafIsHost(instr->shape())) node.host_memory = true;
        continue;
      }
      if (instr->opcode() != HloOpcode::kCopy ||
          input_copies.contains(instr->name()) ||
          !IsSynchronousCopyFromOrToHost(instr)) {
        continue;
      }
      std::vector<int> from, to;
      if (auto f = by_name.find(instr->operand(0)->name()); f != by_name.end()) {
        from.push_back(f->second);
      }
      for (const Instruction* user : instr->users()) {
        if (auto u = by_name.find(user->name()); u != by_name.end()) {
          to.push_back(u->second);
        }
      }
      if (from.empty() && to.empty()) continue;
      GraphNode node;
      node.name = std::string(instr->name());
      node.instruction = node.name;
      node.id = node.name;
      node.opcode = "copy";
      node.shape = ShortShape(instr->shape());
      node.computation = comp->name();
      node.cluster = comp->name();
      node.label = "inserted copy";
      node.on_path = true;
      node.inserted_copy = true;
      node.host_memory = instr->shape().memory_space() == kHostMemorySpace;
      node.note = node.host_memory ? "inserted: copy to host"
                                   : "inserted: copy to device";
      int id = static_cast<int>(graph.nodes.size());
      graph.nodes.push_back(std::move(node));
      by_name.emplace(instr->name(), id);
      for (int f : from) {
        graph.edges.push_back(GraphEdge{f, id, /*on_path=*/true,
                                        /*crosses_computation=*/false,
                                        /*e1200=*/false, /*inserted=*/true});
      }
      for (int t : to) {
        graph.edges.push_back(GraphEdge{id, t, /*on_path=*/true,
                                        /*crosses_computation=*/false,
                                        /*e1200=*/false, /*inserted=*/true});
      }
      if (std::find(graph.computations.begin(), graph.computations.end(),
                    comp->name()) == graph.computations.end()) {
        graph.computations.push_back(comp->name());
        graph.computation_labels.push_back(comp->name());
      }
    }
  }
}

void EntryBoundary(const Module& module, Report& report) {
  const EntryComputationLayout& layout = module.entry_computation_layout();
  auto count = [](const Shape& shape, int64_t& host, int64_t& device,
                  int64_t& host_leaves) {
    ShapeIndex scratch;
    shape_util::ForEachSubshape(
        shape,
        [&](const Shape& leaf, const ShapeIndex&) {
          if (!leaf.IsArray()) return;
          if (leaf.memory_space() == kHostMemorySpace) {
            host += shape_util::ByteSizeOf(leaf);
            ++host_leaves;
          } else {
            device += shape_util::ByteSizeOf(leaf);
          }
        },
        scratch);
  };
  for (const Shape& param : layout.parameters) {
    count(param, report.host_bytes_in, report.device_bytes_in,
          report.host_parameter_leaves);
  }
  count(layout.result, report.host_bytes_out, report.device_bytes_out,
        report.host_output_leaves);
}

std::string Plural(int64_t n, absl::string_view word) {
  return absl::StrCat(n, " ", word, n == 1 ? "" : "s");
}

}  // namespace

bool Report::HasOffloading() const {
  return !offloads.empty() || host_parameter_leaves > 0 ||
         host_output_leaves > 0 || !host_intermediates.empty() ||
         !transfers.empty() || !host_computations.empty();
}

std::string Report::Verdict() const {
  if (earlier_offloading.has_value()) {
    // What the passes make of such a module says nothing about it.
    return absl::StrCat(
        "the module looks offloaded already (",
        DescribeEarlierOffloading(*earlier_offloading),
        ", no offload annotation left): the passes clear S(5) before they "
        "start, so what follows is a second offloading of an offloaded "
        "module; report on the module from before optimization (HO3015)");
  }
  if (!HasOffloading()) {
    if (!pipeline.ok) {
      // The pipeline stopped before anything was offloaded; what the module
      // asks for is unknown, not absent.
      const Diagnostic& error = pipeline.errors.front();
      return absl::StrCat("the pipeline fails before anything is offloaded: ",
                          DiagCodeString(error.code), ": ", error.message);
    }
    return "no offloading: nothing is moved to host memory (no MoveToHost or "
           "annotate_device_placement to a host memory kind, no host-memory "
           "entry parameter or output, no host compute); every tensor stays "
           "in device memory";
  }
  int64_t to_device = 0, host_compute = 0, outputs = 0, custom_calls = 0;
  int64_t bytes = 0;
  for (const Offload& offload : offloads) {
    bytes += offload.bytes;
    for (const OffloadEnd& end : offload.ends) {
      switch (end.kind) {
        case EndKind::kMoveToDevice:
          ++to_device;
          break;
        case EndKind::kHostCompute:
          ++host_compute;
          break;
        case EndKind::kOutput:
          ++outputs;
          break;
        case EndKind::kCustomCall:
          ++custom_calls;
          break;
      }
    }
  }
  std::string verdict = absl::StrCat(
      Plural(static_cast<int64_t>(offloads.size()), "offloaded tensor"), " of ",
      bytes, " bytes; paths end at ", to_device, " MoveToDevice, ",
      host_compute, " host compute, ", Plural(outputs, "entry output"));
  if (custom_calls > 0) {
    absl::StrAppend(&verdict, ", ", Plural(custom_calls, "custom call"));
  }
  if (pipeline.ok) {
    absl::StrAppend(&verdict, "; XLA accepts it");
    return verdict;
  }
  const Diagnostic& first = pipeline.errors.front();
  absl::StrAppend(&verdict, "; XLA rejects it: ", DiagCodeString(first.code));
  if (first.code == DiagCode::kE1200 && first.output_index.has_value()) {
    std::vector<std::string> outputs_named;
    for (const Diagnostic& d : pipeline.errors) {
      if (d.code != DiagCode::kE1200 || !d.output_index.has_value()) continue;
      std::string name = ShapeIndexToString(*d.output_index);
      if (std::find(outputs_named.begin(), outputs_named.end(), name) ==
          outputs_named.end()) {
        outputs_named.push_back(name);
      }
    }
    absl::StrAppend(&verdict, " at entry output",
                    outputs_named.size() == 1 ? " " : "s ",
                    absl::StrJoin(outputs_named, ", "));
  }
  return verdict;
}

DevicePeak EstimateEntryDevicePeak(const Module& module) {
  DevicePeak peak;
  const Computation* entry = module.entry();
  if (entry == nullptr) return peak;
  auto device_bytes = [](const Shape& shape) {
    int64_t bytes = 0;
    ShapeIndex scratch;
    shape_util::ForEachSubshape(
        shape,
        [&](const Shape& leaf, const ShapeIndex&) {
          if (leaf.IsArray() && leaf.memory_space() != kHostMemorySpace) {
            bytes += shape_util::ByteSizeOf(leaf);
          }
        },
        scratch);
    return bytes;
  };
  // Results that are views of their operands' buffers, not new buffers.
  auto aliases = [](const Instruction* instr) {
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
      case HloOpcode::kGetTupleElement:
      case HloOpcode::kTuple:
      case HloOpcode::kBitcast:
      case HloOpcode::kWhile:
      case HloOpcode::kOptimizationBarrier:
      case HloOpcode::kDynamicUpdateSlice:
      case HloOpcode::kAddDependency:
      case HloOpcode::kDomain:
        return true;
      default:
        return false;
    }
  };
  std::vector<Instruction*> order = entry->MakeInstructionPostOrder();
  const int64_t n = static_cast<int64_t>(order.size());
  absl::flat_hash_map<const Instruction*, int64_t> position;
  position.reserve(order.size());
  for (int64_t i = 0; i < n; ++i) position[order[i]] = i;
  // Where each value is last needed: its last user, or the end for the
  // root; a view keeps what it views alive as long as it is needed itself.
  std::vector<int64_t> end(order.size(), 0);
  for (int64_t i = n - 1; i >= 0; --i) {
    const Instruction* instr = order[i];
    int64_t last = instr->IsRoot() ? n : i;
    for (const Instruction* user : instr->users()) {
      auto it = position.find(user);
      if (it == position.end()) continue;
      last = std::max(last, aliases(user) ? end[it->second] : it->second);
    }
    end[i] = last;
  }
  // Entry parameters belong to the caller for the whole run; every other
  // new buffer lives from its definition to its end.
  std::vector<int64_t> delta(order.size() + 1, 0);
  int64_t live = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* instr = order[i];
    if (instr->opcode() == HloOpcode::kParameter) {
      live += device_bytes(instr->shape());
    } else if (!aliases(instr)) {
      int64_t bytes = device_bytes(instr->shape());
      delta[i] += bytes;
      if (end[i] < n) delta[end[i] + 1] -= bytes;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    live += delta[i];
    if (live > peak.bytes) {
      peak.bytes = live;
      peak.at = std::string(order[i]->name());
    }
  }
  return peak;
}

namespace {

// The host async calls of `module` that wrap a HostExecute (or a call not
// converted yet), with their inputs' and outputs' bytes.
void CollectHostComputations(const Module& module, Report& report) {
  for (const auto& comp : module.computations()) {
    if (comp->execution_thread() != "main") continue;
    for (const Instruction* start : comp->key_instructions()) {
      if (start->IsDead() || !IsHostAsyncStart(start) ||
          start->called_computations().empty()) {
        continue;
      }
      const Instruction* root = start->called_computations()[0]->root();
      if (root == nullptr || root->called_computations().empty()) continue;
      HostComputation host;
      host.call = Ref(start);
      host.computation = root->called_computations()[0]->name();
      host.source = SourceOf(module, start);
      for (const Instruction* operand : start->operands()) {
        int64_t bytes = shape_util::ByteSizeOf(operand->shape());
        (AnyLeafIsHost(operand->shape()) ? host.bytes_in_host
                                         : host.bytes_in_device) += bytes;
      }
      host.bytes_out = shape_util::ByteSizeOf(root->shape());
      report.host_computations.push_back(std::move(host));
    }
  }
}

}  // namespace

ReportBuilder::ReportBuilder(const Module& module, absl::string_view file,
                             const ReportOptions& options)
    : options_(options) {
  report_.file = std::string(file);
  report_.module = module.name();
  EntryBoundary(module, report_);
  report_.earlier_offloading = FindEarlierOffloading(module);
  // Copies already in the input are not the pipeline's.
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      if (!instr->IsDead() && instr->opcode() == HloOpcode::kCopy) {
        input_copies_.insert(std::string(instr->name()));
      }
    }
  }
}

void ReportBuilder::OffloaderInput(Module& module) {
  Walk(module);
  offloader_ran_ = true;
}

void ReportBuilder::Walk(Module& module) {
  CallGraph call_graph(module);
  OffloadRecorder walker(module, call_graph, report_, options_.checkpoint_names);
  walker.WalkAll();
  walker.BuildGraph(options_);
  report_.by_name = BytesByName(report_.offloads);
  // What the walks put in host memory; replaced in Finish by what the
  // HostOffloader did when it succeeds.
  report_.host_intermediates =
      IntermediateHostBuffers(module, call_graph, walker.HostLeaves());
}

Report ReportBuilder::Finish(Module& module, PipelineOutcome outcome) && {
  report_.pipeline = std::move(outcome);
  if (!offloader_ran_) {
    // The pipeline stopped before the HostOffloader: its input is walked as
    // the failure left it, and no copies were inserted.
    Walk(module);
    report_.copies_inserted_per_step = 0;
    report_.copies_inserted_bytes_per_step = 0;
  } else {
    if (report_.pipeline.ok) {
      CallGraph call_graph(module);
      report_.host_intermediates =
          IntermediateHostBuffers(module, call_graph, HostArrayLeaves(module));
    }
    CollectTransfers(module, input_copies_, report_);
    CollectHostComputations(module, report_);
    AddPipelineResultToGraph(module, input_copies_, report_.graph);
    if (report_.pipeline.ok) {
      DevicePeak peak = EstimateEntryDevicePeak(module);
      report_.device_peak_bytes = peak.bytes;
      report_.device_peak_at = std::move(peak.at);
    }
  }
  for (const HostBuffer& buffer : report_.host_intermediates) {
    report_.host_intermediate_bytes += buffer.bytes;
  }
  return std::move(report_);
}

}  // namespace hloff
