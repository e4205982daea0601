// The offload report: what a module moves to host memory and what it costs,
// answered from the HLO alone. For every offloaded tensor (each MoveToHost,
// each host-memory entry parameter leaf, each host-compute output) its bytes,
// where it comes from in the user's program, and how each of its paths ends
// (MoveToDevice, host compute, entry output); host bytes at the entry
// boundary; host-resident intermediates; the host<->device transfers the
// pipeline leaves in the module, per loop with constant trip counts; and the
// offload-relevant subgraph for a picture.
//
// How it is computed: the report runs no pass; it observes the pipeline's
// own passes, which pipeline/ runs on the module (ReportBuilder). On the
// HostOffloader's input (annotations converted, copies legalized), the paths
// are walked with GetSuccessors by the rules of
// xla/hlo/transforms/host_offloader.cc (WalkDownHostMemoryOffloadPaths,
// GetStartingInstructions, SliceLeadsToMoveToDevice; main spec §3.4). Then
// the real HostOffloader runs, and its result (memory spaces, inserted
// copies) gives the buffers and transfers. Every walk keeps a visited set, so
// the work is the size of the paths, not of the module. Two differences from
// XLA's walk, both so that each tensor gets all its ends: a walk does not
// skip values an earlier walk put in host memory, and a host-compute
// instruction ends a path and starts a tensor of its own (XLA walks on
// through it; so do the ends of that tensor, E1200 included).
#ifndef HLO_OFFLOAD_REPORT_REPORT_H_
#define HLO_OFFLOAD_REPORT_REPORT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "analysis/offload_utils.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"

namespace hloff {

// Where an offloaded tensor comes from.
enum class OffloadKind {
  kMoveToHost,     // a MoveToHost (or annotate_device_placement to a host kind)
  kHostParameter,  // an entry parameter leaf whose layout is memory space 5
  kHostCompute,    // the output of an instruction that computes on the host
};
// "move_to_host", "host_parameter", "host_compute" (the JSON spelling).
absl::string_view OffloadKindName(OffloadKind kind);

// How one path of an offloaded tensor ends.
enum class EndKind {
  kMoveToDevice,  // a MoveToDevice brings it back (directly or after a slice)
  kHostCompute,   // an instruction computes on it on the host
  kOutput,        // it is returned from the entry computation
  kCustomCall,    // a custom call reads it without aliasing its output to it;
                  // the walk (GetSuccessors) stops there
};
// "move_to_device", "host_compute", "output", "custom_call" (the JSON
// spelling).
absl::string_view EndKindName(EndKind kind);

// An instruction as the report names it: its name in the input (for a
// converted annotate_device_placement, the annotation's name), its
// computation, and its position in the input file.
struct InstructionRef {
  std::string name;
  std::string computation;
  SourceLoc loc;
};

// One end of a path.
struct OffloadEnd {
  EndKind kind = EndKind::kMoveToDevice;
  // The MoveToDevice, host-compute op, entry root or custom call.
  InstructionRef instruction;
  ShapeIndex shape_index;      // the shape index tracked at `instruction`
  // kOutput: the entry output index, and whether the entry computation
  // layout puts that output in host memory (memory space 5).
  std::optional<ShapeIndex> output_index;
  bool output_in_host_memory = false;
  // True when XLA's HostOffloader raises E1200 for this end (an offloaded
  // tensor returned through a device-memory output).
  bool e1200 = false;
  // The instruction XLA's walk starts from, which E1200's message names
  // ("starting from <walk_start>").
  std::string walk_start;
  // kMoveToDevice reached after a slice or dynamic-slice: that slice, which
  // is the host-to-device transfer. Empty otherwise.
  std::string via;
  // The instructions from the start to the end, first-discovery (shortest)
  // order, as XLA's `--vmodule=host_offloader=1` trace lists them.
  std::vector<std::string> path;
};

// One offloaded tensor.
struct Offload {
  OffloadKind kind = OffloadKind::kMoveToHost;
  InstructionRef start;
  // kHostParameter: the parameter number and the leaf's shape index;
  // kHostCompute: the shape index of the host-resident output.
  int64_t parameter_number = -1;
  ShapeIndex shape_index;
  std::string shape;  // as XLA prints it, with layout
  // Bytes of the tensor (shape_util::ByteSizeOf): elements x element size,
  // sub-byte types packed, tile padding included; tuples add their leaves.
  int64_t bytes = 0;
  ProgramSource source;
  std::vector<OffloadEnd> ends;
  // kHostCompute: the offloads whose paths end at this instruction (empty
  // when the input already marked it `_xla_compute_type="host"`).
  std::vector<std::string> reached_from;
  // The tensor in the user's terms (docs/REPORT.md): `name` is a scope the
  // program gave in op_name (`jax.named_scope`, a Flax module) when the
  // start's or the offloaded value's op_name has one ("scope"), else the
  // primitive that computes the value, op_name's last component ("op"); for
  // a host parameter "parameter N {i}" ("parameter"). JAX does not put a
  // checkpoint_name into the HLO (docs/REPORT.md); a front end that read it
  // from the program (ReportOptions::checkpoint_names) names the tensor by it
  // first ("checkpoint_name").
  std::string name;
  std::string name_from;
  // Where the offloaded value is computed: the metadata of the instruction
  // that produces it (report_util::ValueProducer of a MoveToHost's operand),
  // or of the start when that one has no source.
  ProgramSource value_source;
  // How often the start runs per step: the trip counts of the while loops
  // around it multiplied (1 outside loops); unset when one is not constant.
  std::optional<int64_t> executions;
};

// The offloaded bytes of one name (Offload::name): a "scope" name over all
// its offloads, an "op" name per source line (two tanh activations of
// different lines are two rows).
struct NamedOffloads {
  std::string name;
  std::string name_from;
  ProgramSource source;  // the value_source of its first offload
  int64_t offloads = 0;  // offloaded tensors (starts) with this name
  int64_t bytes = 0;     // their bytes, one execution each
  // Their bytes times their executions per step; unset when one is unknown.
  std::optional<int64_t> bytes_per_step;
  std::vector<std::string> starts;  // the starts, as the input names them
};

// A host-memory buffer that is neither an entry parameter nor an entry
// output. Values that share storage (get-tuple-element, tuple, bitcast, the
// buffer operand of dynamic-update-slice, while/call/conditional operands,
// parameters and results, aliasing custom calls) are one buffer, so a
// stacked loop buffer counts once, at its full size.
struct HostBuffer {
  InstructionRef defined_by;  // the instruction that produces the storage
  std::string defined_by_opcode;  // its opcode, or its custom-call target
  std::string shape;
  int64_t bytes = 0;
  bool loop_carried = false;  // flows through a while loop
};

enum class TransferDirection { kToHost, kToDevice };
// "to_host", "to_device".
absl::string_view TransferDirectionName(TransferDirection direction);

// One host<->device transfer in the module after the pipeline: a copy
// between memory spaces (`inserted` when the pipeline created it), a
// dynamic-slice reading from a host buffer, or a dynamic-update-slice
// writing into one.
struct Transfer {
  InstructionRef instruction;
  std::string opcode;  // "copy", "dynamic-slice", "dynamic-update-slice"
  TransferDirection direction = TransferDirection::kToHost;
  int64_t bytes = 0;  // bytes moved by one execution
  bool inserted = false;
  std::string loop;  // the innermost while loop it runs in, or empty
  // "previous_iteration" for a pipelined write (it stores the value carried
  // from the previous iteration), "peeled" for the write of a pipelined
  // loop's last value after the loop; empty otherwise.
  std::string pipelined;
};

// A pipelined host write (analysis/pipelined_writes.h): a loop body stores
// the value carried from the previous iteration into a host stack, at the
// loop counter minus one, so the write for iteration i happens in iteration
// i + 1; the last iteration's value is stored after the loop.
struct PipelinedWrite {
  InstructionRef write;         // the dynamic-update-slice in the loop body
  int64_t carried_index = -1;   // the loop-tuple element carrying the value
  std::string index;            // the index operand, counter + offset
  int64_t offset = 0;           // -1: it writes at i - 1
  std::vector<InstructionRef> peeled;  // the writes after the loop
};

// The transfers that run in one while loop's body (directly, not in a
// nested loop).
struct LoopTransfers {
  InstructionRef while_loop;
  // The trip count when it is a compile-time constant
  // (backend_config known_trip_count, or an induction variable compared
  // with a constant).
  std::optional<int64_t> trip_count;
  // How often the body runs per execution of the entry computation: the
  // product of the trip counts of this loop and the loops around it; unset
  // when one of them is not constant.
  std::optional<int64_t> executions;
  int64_t transfers_per_iteration = 0;
  int64_t bytes_per_iteration = 0;
  int64_t copies_inserted_per_iteration = 0;
  int64_t copies_inserted_bytes_per_iteration = 0;
  // The loop's pipelined host writes.
  std::vector<PipelinedWrite> pipelined_writes;
};

// A host computation: a call that runs on the host on purpose
// (jax.experimental.compute_on("device_host"), `_xla_compute_type="host"`),
// which the pipeline makes an async HostExecute (host_compute_asyncifier,
// host-offloading-prepare): its inputs are read on the host, device ones
// copied there when it starts; its outputs are host buffers.
struct HostComputation {
  InstructionRef call;      // the call, as the input names it
  std::string computation;  // the computation that runs on the host
  ProgramSource source;
  int64_t bytes_in_host = 0;    // operands already in host memory
  int64_t bytes_in_device = 0;  // operands copied from device memory
  int64_t bytes_out = 0;        // its results
};

// The offload-relevant subgraph, for pictures: the instructions on the paths
// from each offload start to its ends, one hop of context around them, and
// the copies the pipeline inserts.
struct GraphNode {
  std::string name;         // as the input names it
  // The node's DOT id: `name`, or the instruction's name in the module when
  // two nodes have the same input name (a callee inlined twice).
  std::string id;
  std::string instruction;  // its name in the module the walks ran on
  std::string opcode;       // its spelling, or the custom-call target
  std::string shape;        // without layout, shortened when long
  std::string computation;  // as the input names it
  // The computation it is drawn in: where it is after the passes before the
  // offloader (a callee's instruction inlined into a loop body is drawn in
  // the loop).
  std::string cluster;
  SourceLoc loc;
  bool on_path = false;     // on an offload path (not only context)
  bool host_memory = false;  // its value lives in host memory
  bool annotation = false;  // MoveToHost, MoveToDevice, annotate_device_placement
  bool inserted_copy = false;  // a copy the pipeline inserts
  bool start = false;       // an offload start
  bool end = false;         // a path end
  bool e1200 = false;       // on a path that raises E1200
  std::string note;         // e.g. "entry output {1}: device memory"
  std::string source;       // start nodes: `file.py:15` from the metadata
  // The first line of the node's label in the user's terms: the tensor's
  // name for starts and MoveToDevice ends (`tanh`, `attn`), else op_name's
  // last component (the opcode without metadata), with `file.py:15`.
  std::string label;
  int64_t executions = 1;   // starts: runs per step, when more than once
};
struct GraphEdge {
  int from = 0;  // indices into ReportGraph::nodes
  int to = 0;
  bool on_path = false;   // a step of an offload walk
  bool crosses_computation = false;  // into a called computation or out of it
  bool e1200 = false;
  bool inserted = false;  // to or from an inserted copy
};
// The picture is drawn in the user's terms: instructions that only carry a
// value on (get-tuple-element, tuple, while and its body and condition
// parameters, call, conditional, bitcast, copy, reshape of a bitcast,
// opt-barrier, async wrappers, add-dependency) are collapsed into the edge
// between the instructions they connect, and a while body's cluster is the
// loop, labelled with the while and its trip count.
struct ReportGraph {
  std::vector<std::string> computations;  // in module order
  // Per computation, its cluster's label: the computation's name, or for a
  // while body "loop <while> (N iterations): <body>".
  std::vector<std::string> computation_labels;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  // Path nodes left out because of ReportOptions::max_graph_nodes.
  int64_t omitted_nodes = 0;
  // Path instructions collapsed into edges (loop plumbing).
  int64_t collapsed_nodes = 0;
};

// How the pipeline went on the module.
struct PipelineOutcome {
  bool ok = true;
  // The failing pass's errors (all E1200s are collected), or the HO9002 of
  // a pass that failed without one.
  std::vector<Diagnostic> errors;
};

// The whole report for one module.
struct Report {
  std::string file;
  std::string module;
  // The XLA whose semantics the pipeline reproduced ("libtpu 0.0.52, ...";
  // pipeline/xla_versions.h); empty when not given.
  std::string xla_semantics;
  // Entry boundary, from the entry computation layout, in bytes.
  int64_t host_bytes_in = 0;    // parameter leaves in memory space 5
  int64_t host_bytes_out = 0;   // output leaves in memory space 5
  int64_t device_bytes_in = 0;  // the other parameter leaves
  int64_t device_bytes_out = 0;
  // Estimated peak of device memory in the entry computation after the
  // pipeline (EstimateEntryDevicePeak); 0 and empty when not computed.
  int64_t device_peak_bytes = 0;
  std::string device_peak_at;
  int64_t host_parameter_leaves = 0;
  int64_t host_output_leaves = 0;
  std::vector<Offload> offloads;
  // The offloads' bytes per name, in the order names first appear.
  std::vector<NamedOffloads> by_name;
  std::vector<HostBuffer> host_intermediates;
  int64_t host_intermediate_bytes = 0;
  std::vector<Transfer> transfers;
  std::vector<LoopTransfers> loops;
  // The host computations after the pipeline, in module order.
  std::vector<HostComputation> host_computations;
  // Copies between memory spaces that the pipeline inserts, each counted
  // once (static count) ...
  int64_t copies_inserted = 0;
  int64_t copies_inserted_bytes = 0;
  int64_t copies_to_host = 0;
  int64_t copies_to_device = 0;
  // ... and per execution of the entry computation, with loop trip counts
  // (unset when a loop around one of them has no constant trip count).
  std::optional<int64_t> copies_inserted_per_step;
  std::optional<int64_t> copies_inserted_bytes_per_step;
  PipelineOutcome pipeline;
  // Set when the input is the offloader's output already (HO3015): the
  // passes clear its S(5) and find nothing to offload.
  std::optional<EarlierOffloading> earlier_offloading;
  // Things the walks could not follow (a get-tuple-element read as a whole,
  // a host branch selector, ...), one sentence each.
  std::vector<std::string> notes;
  ReportGraph graph;

  // True when anything lives in host memory or computes on the host.
  bool HasOffloading() const;
  // One line: what is offloaded and whether XLA accepts it, or that the
  // module does no offloading at all.
  std::string Verdict() const;
};

// A `jax.ad_checkpoint.checkpoint_name` the front end read from the
// program's jaxpr: the value named `name` is computed by the primitive `op`
// (op_name's last component in the HLO, e.g. "tanh") at `file`:`line`, the
// innermost user frame, as the HLO metadata gives the producer's line.
struct CheckpointName {
  std::string file;
  int64_t line = 0;
  std::string op;
  std::string name;
};

// How the report names and draws. (Which passes run, and with which options,
// is the business of whoever runs them: pipeline/.)
struct ReportOptions {
  // The checkpoint names of the program (CheckpointName). An offloaded value
  // whose producer matches one (file, line and op) is named by it; a key
  // that two different names share names nothing (the scope or op rule
  // applies).
  std::vector<CheckpointName> checkpoint_names;
  // The most path nodes drawn (collapsed plumbing is not drawn and not
  // counted); the rest are counted in ReportGraph::omitted_nodes.
  int64_t max_graph_nodes = 400;
  // Context nodes drawn around each path node (operands and users each).
  int64_t max_context_per_node = 3;
};

// The peak of device memory in the entry computation, in bytes, estimated
// from the module as it stands (after the pipeline): entry parameters' device
// leaves for the whole run, plus every new device buffer from its definition
// in the printed order to its last use (through views such as tuples,
// get-tuple-element, bitcasts and while loops; the root's to the end).
// Buffers inside called computations and the scheduler's reordering are not
// modelled. `at` names the instruction at which the peak is reached.
struct DevicePeak {
  int64_t bytes = 0;
  std::string at;
};
DevicePeak EstimateEntryDevicePeak(const Module& module);

// Builds the report of one module while the pipeline's passes run on it,
// without running any itself: whoever runs them (pipeline/, through a
// PassInstrumentation) shows it the module at three moments. The module
// must have an entry computation.
class ReportBuilder {
 public:
  // The module as read, before any pass: the entry boundary, whether it is
  // offloaded already (HO3015), the copies already in the input. `file` is
  // the name the report shows.
  ReportBuilder(const Module& module, absl::string_view file,
                const ReportOptions& options = {});

  // The HostOffloader's input (every pass before it has run): walks every
  // offloaded tensor and draws the picture, before the pass changes the
  // module.
  void OffloaderInput(Module& module);

  // The report, once the pipeline is over: `outcome` says how it went,
  // `module` is what it left. After the HostOffloader, its memory spaces
  // and copies give the buffers and transfers; when the pipeline stopped
  // before it (OffloaderInput never came), the walks run on the module as
  // the failure left it.
  Report Finish(Module& module, PipelineOutcome outcome) &&;

 private:
  // The walks and the picture (OffloaderInput).
  void Walk(Module& module);

  ReportOptions options_;
  Report report_;
  // The names of the copies in the input (not the pipeline's).
  absl::flat_hash_set<std::string> input_copies_;
  bool offloader_ran_ = false;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_REPORT_H_
