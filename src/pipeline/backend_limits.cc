// Backend limits after the offloading passes (pipeline/backend_limits.h).
#include "pipeline/backend_limits.h"

#include <string>

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

// The dimensions a dynamic-slice reads less than all of.
int64_t SlicedDimensions(const Instruction& ds) {
  const Shape& operand = ds.operand(0)->shape();
  const Shape& result = ds.shape();
  int64_t sliced = 0;
  for (int64_t d = 0; d < operand.rank() && d < result.rank(); ++d) {
    if (result.dimensions[d] < operand.dimensions[d]) ++sliced;
  }
  return sliced;
}

// libtpu's async slice limit: a dynamic-slice from host memory to device
// slicing several dimensions (HO1013).
void CheckTpuAsyncSlices(const Module& module, TargetBackend backend,
                         const XlaSemantics& xla, std::vector<Diagnostic>& out) {
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kDynamicSlice || instr->operand_count() < 1) {
        continue;
      }
      const Shape& result = instr->shape();
      const Shape& operand = instr->operand(0)->shape();
      if (!result.IsArray() || !operand.IsArray() || !operand.has_layout ||
          operand.memory_space() != kHostMemorySpace ||
          (result.has_layout && result.memory_space() == kHostMemorySpace) ||
          operand.rank() != result.rank()) {
        continue;
      }
      int64_t sliced = SlicedDimensions(*instr);
      if (sliced <= 1) continue;
      Diagnostic d = MakeDiagnostic(
          DiagCode::kHO1013,
          absl::StrCat("Async slice only supports slicing in 1 dimension: \"",
                       instr->name(), "\" moves ", ShapeToString(result),
                       " from host memory slicing ", sliced, " dimensions of ",
                       ShapeToString(operand)),
          instr);
      d.notes.push_back(Note{
          absl::StrCat("libtpu ", xla.Series(XlaPackage::kLibtpu),
                       " refuses it; libtpu 0.0.52 compiles it (--xla-version "
                       "chooses the XLA whose verdict is reproduced)"),
          {}});
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
  if (backend != TargetBackend::kGpu &&
      xla.Has(XlaBehaviour::kTpuAsyncSliceOneDimension)) {
    CheckTpuAsyncSlices(module, backend, xla, out);
  }
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
