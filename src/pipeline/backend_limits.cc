// Backend limits after the offloading passes (pipeline/backend_limits.h).
#include "pipeline/backend_limits.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "analysis/offload_utils.h"
#include "ir/shape.h"
#include "text/printer.h"

namespace hloff {
namespace {

// XLA's message for `instr`, whose result is in `result_space` and one of
// whose operands is in `operand_space`, or "" when the verifier accepts the
// pair. The verifier compares layouts without their memory space
// (Layout::Equal().IgnoreMemorySpace()) except for a dynamic-slice or
// dynamic-update-slice (instructions LayoutAssignment keeps in their
// operands' layout), whose memory spaces HostOffloadInstructionCanChangeMemorySpace
// checks; a copy may change layout and is not compared.
std::string VerifierMessage(const Instruction& instr, int64_t operand_space,
                            int64_t result_space) {
  switch (instr.opcode()) {
    case HloOpcode::kDynamicSlice:
      if (operand_space == kDefaultMemorySpace && result_space == kHostMemorySpace) {
        return absl::StrCat(
            "DynamicSlice instruction shouldn't change layout memory space "
            "from device to host: ", InstructionToString(instr));
      }
      return "";
    case HloOpcode::kDynamicUpdateSlice:
      if (operand_space == kHostMemorySpace && result_space == kDefaultMemorySpace) {
        return absl::StrCat(
            "DynamicUpdateSlice instruction shouldn't change layout memory "
            "space from host to device: ", InstructionToString(instr));
      }
      return "";
    default:
      return "";
  }
}

// A transfer between host memory and device that libtpu makes asynchronous:
// a dynamic-slice from a host buffer to device memory, or a
// dynamic-update-slice of a device piece into a host buffer.
struct HostTransfer {
  const Shape* host = nullptr;   // the host buffer (operand 0)
  const Shape* piece = nullptr;  // the device piece: the slice or the update
  bool update = false;           // a dynamic-update-slice into host memory
  // A slice of a loop's buffer that the entry cut out of a host buffer
  // before the loop (FoldSliceBeforeLoop): the piece's extent in the buffer
  // it was cut from, which is the copy libtpu makes (`piece` points here and
  // `host` to that buffer).
  Shape composed_piece;
};

// `instr` as a HostTransfer, or nullopt.
std::optional<HostTransfer> AsHostTransfer(const Instruction& instr) {
  bool update = instr.opcode() == HloOpcode::kDynamicUpdateSlice;
  if ((instr.opcode() != HloOpcode::kDynamicSlice && !update) ||
      instr.operand_count() < (update ? 2 : 1)) {
    return std::nullopt;
  }
  const Shape& host = instr.operand(0)->shape();
  const Shape& piece = update ? instr.operand(1)->shape() : instr.shape();
  if (!host.IsArray() || !piece.IsArray() || !host.has_layout ||
      host.memory_space() != kHostMemorySpace ||
      (piece.has_layout && piece.memory_space() == kHostMemorySpace) ||
      host.rank() != piece.rank() || host.rank() == 0) {
    return std::nullopt;
  }
  // An update whose result stays in host memory (the offloader's stacking
  // into a host buffer); a slice whose result leaves it.
  if (update && instr.shape().has_layout &&
      instr.shape().memory_space() != kHostMemorySpace) {
    return std::nullopt;
  }
  HostTransfer t;
  t.host = &host;
  t.piece = &piece;
  t.update = update;
  return t;
}

// The lane (minor-most) and sublane (second-minor) dimensions of `shape`'s
// layout as libtpu tiles it, skipping dimensions of extent 1 (f32[4,1] is
// tiled with dimension 0 in the lanes); sublane -1 when there is none. lane
// -1 when the layout libtpu gives the buffer cannot be told from the module:
// a minor-most dimension narrower than the 128 lanes with another dimension
// beside it (deviceless compiles: TPU's layout assignment gave f32[8,4]
// {0,1} and f32[2,8,4] {1,2,0}, moving the wider dimension into the lanes).
std::pair<int64_t, int64_t> LaneAndSublane(const Shape& shape) {
  std::vector<int64_t> order = shape.layout.minor_to_major;
  if (!shape.has_layout || static_cast<int64_t>(order.size()) != shape.rank()) {
    order.clear();
    for (int64_t d = shape.rank() - 1; d >= 0; --d) order.push_back(d);
  }
  std::vector<int64_t> wide;
  for (int64_t d : order) {
    if (shape.dimensions[d] != 1) wide.push_back(d);
  }
  if (wide.empty()) return {-1, -1};
  if (wide.size() > 1 && shape.dimensions[wide[0]] < 128) return {-1, -1};
  return {wide[0], wide.size() > 1 ? wide[1] : -1};
}

// XLA's sentence, then what the instruction does: "SENTENCE: DETAILS", or
// "SENTENCE. DETAILS" when XLA's sentence ends with its own period.
std::string WithDetails(absl::string_view sentence, absl::string_view details) {
  return absl::StrCat(sentence, absl::EndsWith(sentence, ".") ? " " : ": ", details);
}

// Whether the transfer takes less than all of dimension `d` (-1: no).
bool Sliced(const HostTransfer& t, int64_t d) {
  return d >= 0 && t.piece->dimensions[d] < t.host->dimensions[d];
}

// libtpu's lane count: a tile is 128 lanes wide; its sublanes are 8 rows
// (fewer for a smaller dimension: f32[4,128] is tiled T(4,128)).
constexpr int64_t kLaneCount = 128;
constexpr int64_t kSublaneCount = 8;

// The while instruction that runs each loop body of `module`.
absl::flat_hash_map<const Computation*, const Instruction*> WhileOfBody(
    const Module& module) {
  absl::flat_hash_map<const Computation*, const Instruction*> loops;
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kWhile && instr->while_body() != nullptr) {
        loops.emplace(instr->while_body(), instr);
      }
    }
  }
  return loops;
}

// The dynamic-slice of a host buffer, before a loop, that gave the loop the
// buffer `operand` reads (a get-tuple-element of the body's parameter, the
// loop's init tuple, copies and bitcasts between), or null. This is how XLA's
// SPMD partitioner cuts each device's rows and columns out of a replicated
// host parameter: libtpu folds that slice into the loop's own copy to the
// device (deviceless compiles of an 8-device train step that streams
// replicated pinned_host layers, libtpu 0.0.42.1 and 0.0.52: the refused
// dynamic-slice-start reads the entry parameter with the layer index and
// the per-device row and column offsets together).
const Instruction* SlicedBeforeLoop(
    const Instruction* operand,
    const absl::flat_hash_map<const Computation*, const Instruction*>& loops) {
  if (operand->opcode() != HloOpcode::kGetTupleElement) return nullptr;
  const Instruction* param = operand->operand(0);
  if (param->opcode() != HloOpcode::kParameter) return nullptr;
  auto loop = loops.find(param->parent());
  if (loop == loops.end() || loop->second->operand_count() < 1) return nullptr;
  const Instruction* init = loop->second->operand(0);
  const int64_t index = operand->tuple_index();
  if (init->opcode() != HloOpcode::kTuple || index >= init->operand_count()) {
    return nullptr;
  }
  const Instruction* value = init->operand(index);
  for (int steps = 0; steps < 8 && value->operand_count() == 1 &&
                      (value->opcode() == HloOpcode::kCopy ||
                       value->opcode() == HloOpcode::kBitcast);
       ++steps) {
    value = value->operand(0);
  }
  if (value->opcode() != HloOpcode::kDynamicSlice || value->operand_count() < 1) {
    return nullptr;
  }
  const Shape& source = value->operand(0)->shape();
  if (!source.IsArray() || !source.has_layout ||
      source.memory_space() != kHostMemorySpace ||
      source.rank() != value->shape().rank() ||
      source.rank() != operand->shape().rank()) {
    return nullptr;
  }
  return value;
}

// `t` with the slice before its loop folded in: the piece's extent in the
// host buffer the entry sliced (a dimension the loop slices keeps the loop's
// extent, the others the entry slice's). Only where the loop slices major
// dimensions alone (a layer of the stack): a loop slice along the sublanes
// or lanes is left as it is (libtpu 0.0.52 compiled an 8-device step whose
// loop reads a row of f32[4,128] per device out of a replicated f32[4,512]);
// returns whether it folded.
bool FoldSliceBeforeLoop(HostTransfer& t, const Instruction& before) {
  auto [lane, sublane] = LaneAndSublane(before.operand(0)->shape());
  if (lane < 0) return false;
  for (int64_t d = 0; d < t.piece->rank(); ++d) {
    if (Sliced(t, d) && (d == lane || d == sublane)) return false;
  }
  t.composed_piece = *t.piece;
  for (int64_t d = 0; d < t.piece->rank(); ++d) {
    if (t.piece->dimensions[d] == t.host->dimensions[d]) {
      t.composed_piece.dimensions[d] = before.shape().dimensions[d];
    }
  }
  t.host = &before.operand(0)->shape();
  t.piece = &t.composed_piece;
  return true;
}

// Why libtpu refuses a host transfer: the code, XLA's sentence (the row of
// the version table), what the instruction does, what libtpu cannot do and
// the fix.
struct TpuRefusal {
  DiagCode code;
  XlaBehaviour rule;
  std::string details;
  std::string why;
  std::string fix;
};

// The first of libtpu's limits, as `xla` has them, that refuses transfer
// `t` (in the order libtpu checks them: the slice's dimensions, the lane
// update, the sublane update across lane chunks, the strided DMA); `what`
// says what the instruction does.
std::optional<TpuRefusal> TpuRefusalOf(const HostTransfer& t, const XlaSemantics& xla,
                                       const std::string& what) {
  auto [lane, sublane] = LaneAndSublane(*t.host);
  const int64_t rank = t.host->rank();
  int64_t sliced = 0;
  for (int64_t d = 0; d < rank; ++d) sliced += Sliced(t, d);
  const std::string libtpu = absl::StrCat("libtpu ", xla.Series(XlaPackage::kLibtpu));
  auto dim = [&](int64_t d) { return t.piece->dimensions[d]; };
  auto full = [&](int64_t d) { return t.host->dimensions[d]; };
  if (xla.Has(XlaBehaviour::kTpuAsyncSliceOneDimension) && sliced > 1) {
    return TpuRefusal{
        DiagCode::kHO1013, XlaBehaviour::kTpuAsyncSliceOneDimension,
        absl::StrCat(what, " slicing ", sliced, " dimensions",
                     t.update ? "" : absl::StrCat(" of ", ShapeToString(*t.host))),
        absl::StrCat(libtpu, " refuses it; libtpu 0.0.52 slices several dimensions, "
                             "within its own limits (HO1015, HO1016; --xla-version "
                             "chooses the XLA whose verdict is reproduced)"),
        ""};
  }
  const bool no_lane_update = xla.Has(XlaBehaviour::kTpuLaneUpdateUnsupported);
  if (t.update && Sliced(t, lane) &&
      (no_lane_update || (xla.Has(XlaBehaviour::kTpuLaneUpdateMultipleOfLaneCount) &&
                          dim(lane) % kLaneCount != 0))) {
    return TpuRefusal{
        DiagCode::kHO1015,
        no_lane_update ? XlaBehaviour::kTpuLaneUpdateUnsupported
                       : XlaBehaviour::kTpuLaneUpdateMultipleOfLaneCount,
        absl::StrCat(what, ", ", dim(lane), " of the ", full(lane),
                     " elements of its lane dimension ", lane),
        absl::StrCat(libtpu, no_lane_update
                                 ? " cannot update part of the lane (minor-most) "
                                   "dimension of a host buffer at all"
                                 : " updates part of the lane dimension of a host buffer "
                                   "only by a multiple of 128 elements"),
        "stack along a major dimension instead: give each piece whole lanes (a scalar per "
        "step as f32[1,128], or a leading axis of size 1, e.g. x[None, None]), or stack on "
        "the device and move the whole stack to host once after the loop"};
  }
  if (sublane < 0 || !Sliced(t, sublane)) return std::nullopt;
  if (xla.Has(XlaBehaviour::kTpuSublaneUpdateAcrossLaneChunks) && t.update &&
      full(lane) > kLaneCount && dim(sublane) > kSublaneCount &&
      dim(sublane) % kSublaneCount != 0) {
    return TpuRefusal{
        DiagCode::kHO1016, XlaBehaviour::kTpuSublaneUpdateAcrossLaneChunks,
        absl::StrCat(what, ", ", dim(sublane), " of ", full(sublane),
                     " rows (sublane dimension ", sublane, ") of a buffer ", full(lane),
                     " lanes wide (dimension ", lane, ")"),
        absl::StrCat(libtpu, " updates rows of a buffer wider than 128 lanes chunk by "
                             "chunk, each a whole tile of 8 rows"),
        "update a multiple of 8 rows at a time (pad the piece), or keep the buffer 128 "
        "lanes wide"};
  }
  const int64_t tile_rows = std::min(kSublaneCount, full(sublane));
  if (xla.Has(XlaBehaviour::kTpuStridedDmaPartialSublaneTile) && Sliced(t, lane) &&
      dim(sublane) % tile_rows != 0) {
    return TpuRefusal{
        DiagCode::kHO1016, XlaBehaviour::kTpuStridedDmaPartialSublaneTile,
        absl::StrCat(what, ", ", dim(sublane), " of ", full(sublane),
                     " rows (sublane dimension ", sublane, ", tiles of ", tile_rows, ") and ",
                     dim(lane), " of ", full(lane), " lanes (dimension ", lane, ")"),
        absl::StrCat(libtpu, " copies a piece that is narrower than the buffer's lanes as "
                             "a strided DMA, which must move whole tiles of 8 rows"),
        "move whole tiles: a multiple of 8 rows along the sublane dimension, or the whole "
        "lane (minor-most) dimension, and cut the rest on the device (for a sharded "
        "parameter, shard it along a major dimension or so that each device's rows are a "
        "multiple of 8)"};
  }
  return std::nullopt;
}

// libtpu's limits on its async host transfers (HO1013, HO1015, HO1016), as
// `xla` has them: one diagnostic per instruction (TpuRefusalOf).
void CheckTpuHostTransfers(const Module& module, TargetBackend backend,
                           const XlaSemantics& xla, std::vector<Diagnostic>& out) {
  // The loops by body, found the first time a slice from host memory asks
  // (most modules have none: no walk for them).
  std::optional<absl::flat_hash_map<const Computation*, const Instruction*>> loops;
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      std::optional<HostTransfer> t = AsHostTransfer(*instr);
      if (!t) continue;
      std::string what =
          t->update ? absl::StrCat("\"", instr->name(), "\" writes ",
                                   ShapeToString(*t->piece), " into ",
                                   ShapeToString(*t->host), " in host memory")
                    : absl::StrCat("\"", instr->name(), "\" moves ",
                                   ShapeToString(*t->piece), " from host memory");
      const Instruction* before = nullptr;
      if (!t->update && instr->operand(0)->opcode() == HloOpcode::kGetTupleElement) {
        if (!loops) loops = WhileOfBody(module);
        before = SlicedBeforeLoop(instr->operand(0), *loops);
      }
      if (before != nullptr && FoldSliceBeforeLoop(*t, *before)) {
        absl::StrAppend(&what, ", a piece of ", ShapeToString(*t->host), " that \"",
                        before->name(), "\" cut before the loop (libtpu copies it from "
                        "there in one transfer)");
      }
      std::optional<TpuRefusal> refusal = TpuRefusalOf(*t, xla, what);
      if (!refusal) continue;
      Diagnostic d = MakeDiagnostic(
          refusal->code, WithDetails(XlaSemantics::Message(refusal->rule), refusal->details),
          instr);
      d.notes.push_back(Note{std::move(refusal->why), {}});
      if (!refusal->fix.empty()) {
        d.notes.push_back(Note{absl::StrCat("fix: ", refusal->fix), {}});
      }
      if (backend == TargetBackend::kAny) {
        d.severity = Severity::kWarning;
        d.message = absl::StrCat("on TPU: ", d.message,
                                 " (the GPU compile accepts it; --backend=tpu makes "
                                 "this an error, --backend=gpu drops it)");
      }
      out.push_back(std::move(d));
    }
  }
}

}  // namespace

void CheckBackendLimits(const Module& module, TargetBackend backend,
                        const XlaSemantics& xla, std::vector<Diagnostic>& out) {
  if (backend != TargetBackend::kGpu) CheckTpuHostTransfers(module, backend, xla, out);
  if (backend == TargetBackend::kTpu) return;
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      const Shape& result = instr->shape();
      if ((instr->opcode() != HloOpcode::kDynamicSlice &&
           instr->opcode() != HloOpcode::kDynamicUpdateSlice) ||
          !result.IsArray() || !result.has_layout) {
        continue;
      }
      for (const Instruction* operand : instr->operands()) {
        const Shape& shape = operand->shape();
        if (!shape.IsArray() || !shape.has_layout ||
            shape.rank() != result.rank() ||
            shape.memory_space() == result.memory_space()) {
          continue;
        }
        std::string message =
            VerifierMessage(*instr, shape.memory_space(), result.memory_space());
        if (message.empty()) continue;
        Diagnostic d = MakeDiagnostic(DiagCode::kHO1012, std::move(message), instr);
        if (backend == TargetBackend::kAny) {
          d.severity = Severity::kWarning;
          d.message = absl::StrCat("on GPU: ", d.message,
                                   " (libtpu accepts it; --backend=gpu makes "
                                   "this an error, --backend=tpu drops it)");
        }
        out.push_back(std::move(d));
        break;  // one diagnostic per instruction, as the verifier stops
      }
    }
  }
}

// A GPU device's memories: XLA's GPU client attaches device (HBM) and
// pinned_host memory only (StreamExecutorGpuClient's constructor,
// xla/pjrt/gpu/se_gpu_pjrt_client.cc), so an entry parameter or result in
// unpinned host memory (S(6)) has nowhere to live (HO1014).
void CheckBackendInput(const Module& module, TargetBackend backend,
                       std::vector<Diagnostic>& out) {
  // Unpinned host memory is a TPU's (and a CPU's): a module that uses it was
  // made for one of those unless the caller says GPU, so `any` says nothing.
  if (backend != TargetBackend::kGpu) return;
  const EntryComputationLayout& layout = module.entry_computation_layout();
  const Computation* entry = module.entry();
  if (entry == nullptr) return;
  auto report = [&](const Instruction* at, std::string what) {
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO1014,
        absl::StrCat(what, " unpinned host memory (S(6), memory_kind="
                     "\"unpinned_host\"), which a GPU device does not have: it "
                     "has device and pinned_host memory"),
        at);
    d.notes.push_back(Note{
        "JAX refuses it on a GPU before XLA compiles anything: \"Could not find "
        "memory addressable by device NVIDIA H200. Device NVIDIA H200 can "
        "address the following memory kinds: device, pinned_host. Got memory "
        "kind: unpinned_host\" (JAX 0.11.2 on an H200); use "
        "memory_kind=\"pinned_host\" for host memory on a GPU",
        {}});
    out.push_back(std::move(d));
  };
  auto unpinned = [](const Shape& shape) {
    bool found = false;
    ShapeIndex index;
    shape_util::ForEachSubshape(shape, [&](const Shape& leaf, const ShapeIndex&) {
      found |= leaf.IsArray() && leaf.memory_space() == kUnpinnedHostMemorySpace;
    }, index);
    return found;
  };
  const auto& params = entry->parameters();
  for (size_t i = 0; i < layout.parameters.size() && i < params.size(); ++i) {
    if (unpinned(layout.parameters[i])) {
      report(params[i], absl::StrCat("entry parameter ", i, " \"",
                                     params[i]->name(), "\" is in"));
    }
  }
  if (unpinned(layout.result)) {
    report(entry->root(), "the entry computation's result is in");
  }
  // A jax.device_put to unpinned_host inside the program.
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      if (!instr->IsCustomCall(kDevicePlacementTarget)) continue;
      auto kind = instr->GetFrontendAttribute(kBufferPlacementAttr);
      if (kind && *kind == "unpinned_host") {
        report(instr, absl::StrCat("\"", instr->name(), "\" moves its operand to"));
      }
    }
  }
}


}  // namespace hloff
