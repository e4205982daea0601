// The pass registry, the two pipelines and the pass runner.
#include "passes/pass.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/verifier.h"
#include "passes/algebraic_simplifier.h"
#include "passes/call_inliner.h"
#include "passes/convert_memory_placement_to_internal_annotations.h"
#include "passes/gather_expander.h"
#include "passes/hlo_dce.h"
#include "passes/host_compute_asyncifier.h"
#include "passes/host_offload_legalize.h"
#include "passes/host_offloading_prepare.h"
#include "passes/host_offloader.h"
#include "passes/offload_layout_assignment.h"
#include "passes/sharding_remover.h"
#include "passes/strip_memory_placement_annotations.h"
#include "passes/tuple_simplifier.h"
#include "support/status_macros.h"

namespace hloff {

void PassContext::Trace(int level, absl::string_view line) const {
  if (trace == nullptr || trace_level < level) return;
  *trace << "host_offloader: " << line << "\n";
}

const std::vector<PassInfo>& PassRegistry() {
  static const std::vector<PassInfo>* const kRegistry = [] {
    auto* registry = new std::vector<PassInfo>{
        {"convert-memory-placement-to-internal-annotations",
         "turn annotate_device_placement custom calls into MoveToHost / "
         "MoveToDevice / PinToDevice / PinToDeviceSram",
         [](const PassContext& c) {
           return std::make_unique<ConvertMemoryPlacementToInternalAnnotations>(c);
         }},
        {"host-offload-legalize",
         "move layout-changing copies out of host-offload segments (down past "
         "the MoveToDevice, or up above the MoveToHost)",
         [](const PassContext& c) {
           return std::make_unique<HostOffloadLegalize>(c);
         }},
        {"strip-memory-placement-annotations",
         "remove annotate_device_placement / MoveToHost / MoveToDevice "
         "(what XLA's CPU compiler does instead of offloading)",
         [](const PassContext& c) {
           return std::make_unique<StripMemoryPlacementAnnotations>(c);
         }},
        {"call-inliner",
         "replace each call by its computation's body, keeping the calls XLA "
         "keeps (host compute, backend_config, inlineable=\"false\", async), "
         "then dce",
         [](const PassContext& c) { return std::make_unique<CallInliner>(c); }},
        {"sharding-remover",
         "give the uses of each Sharding / SPMD / Shardy (xla.sdy.*) "
         "sharding custom-call to its operand and remove it (one partition)",
         [](const PassContext& c) {
           return std::make_unique<ShardingRemover>(c);
         }},
        {"tuple-simplifier",
         "get-tuple-element of a tuple becomes the element; a tuple of all "
         "get-tuple-elements of one value becomes the value",
         [](const PassContext& c) {
           return std::make_unique<TupleSimplifier>(c);
         }},
        {"dce",
         "remove unused instructions without side effects and computations "
         "nothing calls",
         [](const PassContext& c) { return std::make_unique<HloDce>(c); }},
        {"algsimp",
         "after layout assignment: reshapes, transposes and copies that are "
         "bitcasts become bitcasts; no-op ones are removed",
         [](const PassContext& c) {
           return std::make_unique<AlgebraicSimplifier>(c);
         }},
        {"host_compute_asyncifier",
         "turn each call tagged _xla_compute_type=\"host\" into an async-start/"
         "async-done pair on the host thread (its computation runs on the "
         "host, tiles and memory spaces removed)",
         [](const PassContext& c) {
           return std::make_unique<HostComputeAsyncifier>(c);
         }},
        {"host-offloading-prepare-convert-to-custom-call",
         "the call inside each host async computation becomes a HostExecute "
         "custom call, which the offloader's walk does not enter",
         [](const PassContext& c) {
           return std::make_unique<HostOffloadingPrepare>(
               c, HostOffloadingPrepare::Rewrite::kConvertToCustomCall);
         }},
        {"host-offloading-prepare-elide-move-to-host",
         "remove each MoveToHost that feeds a host async call directly (the "
         "runtime copies its input when the call starts)",
         [](const PassContext& c) {
           return std::make_unique<HostOffloadingPrepare>(
               c, HostOffloadingPrepare::Rewrite::kElideMoveToHost);
         }},
        {"algsimp-layout-insensitive",
         "before layout assignment: select(p, x, x) becomes x; a dynamic-slice "
         "with constant start indices becomes a slice",
         [](const PassContext& c) {
           return std::make_unique<AlgebraicSimplifier>(c, /*layout_sensitive=*/false);
         }},
        {"gather_expander",
         "a gather of one constant index vector becomes a dynamic-slice and a "
         "reshape (kEliminateSimpleGathers)",
         [](const PassContext& c) { return std::make_unique<GatherExpander>(c); }},
        {"offload-layout-assignment",
         "layout assignment of a MoveToHost whose users reshape it: the layout "
         "that makes the reshapes bitcasts, on the MoveToHost and its operand",
         [](const PassContext& c) {
           return std::make_unique<OffloadLayoutAssignment>(c);
         }},
        {"host-offloader",
         "track offloaded tensors, set host memory space, insert host/device "
         "copies and AllocateBuffers, remove the annotations",
         [](const PassContext& c) { return std::make_unique<HostOffloader>(c); }},
    };
    std::sort(registry->begin(), registry->end(),
              [](const PassInfo& a, const PassInfo& b) { return a.name < b.name; });
    return registry;
  }();
  return *kRegistry;
}

const PassInfo* FindPass(absl::string_view name) {
  for (const PassInfo& info : PassRegistry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const std::vector<absl::string_view>& DefaultPipeline() {
  static const std::vector<absl::string_view> kPipeline = {
      "convert-memory-placement-to-internal-annotations",
      "host-offload-legalize",
      "host-offloader",
  };
  return kPipeline;
}

const std::vector<absl::string_view>& XlaPipeline() {
  static const std::vector<absl::string_view> kPipeline = {
      // Pre-SPMD (RunPreSPMDPartitionerPasses).
      "convert-memory-placement-to-internal-annotations",
      "call-inliner",
      // RunSPMDPasses with one partition: the "sharding-removal" pipeline
      // (its HloDCE has nothing left to do: the pass removes what it
      // replaces).
      "sharding-remover",
      // The "host-compute" pipeline: host-compute calls become async
      // HostExecute calls on the host thread.
      "host_compute_asyncifier",
      "host-offloading-prepare-convert-to-custom-call",
      // The "simplification" fixed point of RunOptimizationPasses.
      "gather_expander",
      "algsimp-layout-insensitive",
      "tuple-simplifier",
      "dce",
      // RunLayoutAssignmentPasses: layout assignment (for the one case
      // that changes what the offloader sees), then legalization.
      "offload-layout-assignment",
      "host-offload-legalize",
      // OptimizeHloPostLayoutAssignment: the layout-sensitive simplifier
      // ("hlo normalization"), then the offloader.
      "algsimp",
      "host-offloader",
  };
  return kPipeline;
}

namespace {

// The verifier (ir/verifier.h) after a pass: the entry root matches
// entry_computation_layout, every instruction keeps the structural rules
// and the shapes it forwards agree. A pass that broke one would print a
// module that does not parse; it is refused (HO9002) instead.
absl::Status VerifyAfterPass(const Module& module, absl::string_view pass,
                             const PassContext& context) {
  VerifierError error;
  if (VerifyModule(module, &error).ok()) return absl::OkStatus();
  Diagnostic d = MakeDiagnostic(
      DiagCode::kHO9002, absl::StrCat("after ", pass, ", ", error.message),
      error.instruction);
  absl::Status status = ToXlaStatus(d);
  if (context.diagnostics) context.diagnostics->Emit(std::move(d));
  return status;
}

}  // namespace

absl::StatusOr<bool> RunPasses(Module& module,
                               const std::vector<absl::string_view>& passes,
                               const PassContext& context,
                               PassInstrumentation* instrumentation) {
  bool changed = false;
  for (absl::string_view name : passes) {
    const PassInfo* info = FindPass(name);
    if (info == nullptr) {
      return absl::InvalidArgumentError(
          std::string("unknown pass: ") + std::string(name));
    }
    auto pass = info->create(context);
    if (instrumentation != nullptr) instrumentation->RunBeforePass(name, module);
    absl::StatusOr<bool> pass_changed = pass->Run(module);
    // A failed pass leaves the module unswept, as it stopped.
    absl::Status status = pass_changed.status();
    if (status.ok()) {
      changed |= *pass_changed;
      module.Sweep();
      status = VerifyAfterPass(module, name, context);
    }
    if (!status.ok()) {
      if (instrumentation != nullptr) {
        instrumentation->RunAfterPassFailed(name, module);
      }
      return status;
    }
    if (instrumentation != nullptr) instrumentation->RunAfterPass(name, module);
  }
  return changed;
}

}  // namespace hloff
