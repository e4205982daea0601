// The pass contract, the pass registry, the two pipelines and the one pass
// runner. A pass is constructed with its context (options, diagnostic sink,
// trace stream, and the channels through which a caller reads what a pass
// found) and run with `absl::StatusOr<bool> Run(Module&)`, where the bool
// means "changed", exactly like XLA's HloModulePass. A pass that fails
// returns the status XLA would return and emits a structured Diagnostic with
// the same text. RunPasses runs a list of them by name, sweeping and
// verifying the module after each, and shows the module to a
// PassInstrumentation around each pass (MLIR's PassInstrumentation). Every
// command runs its passes through it: pipeline/ (RunModulePasses) chooses
// the list, collects the diagnostics and, for `report`, gives the report's
// observer, which reads the HostOffloader's input without running any pass
// itself.
#ifndef HLO_OFFLOAD_PASSES_PASS_H_
#define HLO_OFFLOAD_PASSES_PASS_H_

#include "absl/strings/string_view.h"
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "diag/diagnostic.h"
#include "ir/hlo.h"

namespace hloff {

class DeviceOutputWalkObserver;  // passes/host_offloader.h

// Options shared by the host-offloading passes.
struct OffloadOptions {
  // xla_disable_automatic_host_compute_offload.
  bool disable_automatic_host_compute_offload = false;
  // xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled.
  bool allow_h2h_copy_when_automatic_host_compute_offload_disabled = false;
  // XLA V4 (Jan 2026): rewrite a non-customized entry output layout to host
  // memory instead of raising E1200.
  bool fix_entry_layout_unless_customized = false;
  // Report every (walk start, output) E1200 instead of stopping at the first.
  bool report_all_output_errors = false;
  // convert-memory-placement-to-internal-annotations prints each annotation's
  // metadata on the MoveToHost / MoveToDevice it creates (XLA's pass does not
  // copy it). For the Python package's partition step, whose round trip
  // through XLA's partitioner keeps only what is printed: without it the
  // user's line of an E1200's MoveToHost is lost on a partitioned module.
  bool print_annotation_metadata = false;
};

// Where passes report: diagnostics and the levelled trace (XLA's VLOG levels
// of --vmodule=host_offloader=N: 1 mutations, 2 memory-space assignments,
// 3+ visited nodes). `trace` may be null; then tracing is free.
struct PassContext {
  OffloadOptions options;
  DiagnosticSink* diagnostics = nullptr;
  // When set, HostOffloader adds the index of every entry output that raises
  // E1200, those past the report cap included (what `fix` repairs).
  std::vector<ShapeIndex>* faulty_entry_outputs = nullptr;
  // When set, HostOffloader shows it each walk that reached an entry output
  // in device memory (with report_all_output_errors), which it may have
  // rewritten all the same (passes/host_offloader.h): the report's.
  DeviceOutputWalkObserver* device_output_walks = nullptr;
  int trace_level = 0;
  std::ostream* trace = nullptr;
  // The JAX pytree path of entry output `index` ("" when unknown), where a
  // front end gave names (PipelineOptions::output_paths); null otherwise.
  // E1200's host-output fix names the out_shardings entry by it.
  std::function<std::string(const ShapeIndex&)> output_path;

  bool TraceOn(int level) const { return trace != nullptr && trace_level >= level; }
  void Trace(int level, absl::string_view line) const;
};

// One pass, as XLA's HloModulePass: made by its PassInfo::create for one run.
class HloPass {
 public:
  virtual ~HloPass() = default;
  // The name XLA's hlo-opt gives the pass (the registry's key).
  virtual absl::string_view name() const = 0;
  // Runs the pass on `module`: whether it changed, or XLA's status.
  virtual absl::StatusOr<bool> Run(Module& module) = 0;
};

// One row of the registry: name, one-line description, factory.
struct PassInfo {
  absl::string_view name;
  absl::string_view description;
  std::function<std::unique_ptr<HloPass>(const PassContext&)> create;
};

// All passes, sorted by name.
const std::vector<PassInfo>& PassRegistry();
// The registry's row of `name`, or null.
const PassInfo* FindPass(absl::string_view name);
// The three offloading passes alone, in XLA's GPU order (what XLA's pass unit
// tests exercise; `--pipeline=offload`).
const std::vector<absl::string_view>& DefaultPipeline();
// XLA's GPU compile order up to the offloader (xla/service/gpu/
// gpu_compiler.cc), with the passes of it that change what the offloader
// sees: convert-memory-placement-to-internal-annotations and call-inliner
// (pre-SPMD), sharding-remover (SPMD with one partition),
// host_compute_asyncifier and host-offloading-prepare-convert-to-custom-call
// (host compute), gather_expander, algsimp-layout-insensitive,
// tuple-simplifier and dce (simplification), offload-layout-assignment and
// host-offload-legalize (layout assignment), algsimp (after layout
// assignment), host-offloader (`--pipeline=xla`, the default of the tool).
const std::vector<absl::string_view>& XlaPipeline();

// Hooks around each pass that RunPasses runs, as MLIR's PassInstrumentation:
// an observer is shown the module before and after every pass. The hooks
// read the module; they must not change it. Each does nothing by default.
class PassInstrumentation {
 public:
  virtual ~PassInstrumentation() = default;
  // Before `pass` runs on `module`.
  virtual void RunBeforePass(absl::string_view pass, Module& module) {}
  // After `pass` ran on `module` and the module was swept and verified.
  virtual void RunAfterPass(absl::string_view pass, Module& module) {}
  // After `pass` failed, or the verifier refused what it left (HO9002);
  // `module` is as the failure left it. No pass runs after it.
  virtual void RunAfterPassFailed(absl::string_view pass, Module& module) {}
};

// Runs the named passes in order on `module`, sweeping removed instructions
// and running the verifier (ir/verifier.h, HO9002) after each, and calls
// `instrumentation`'s hooks around each pass when it is not null. Returns
// whether any pass changed the module. Stops at the first failure and
// returns its status; an unknown name is INVALID_ARGUMENT when its turn
// comes (the passes before it have run; no hook is called for it).
absl::StatusOr<bool> RunPasses(Module& module,
                               const std::vector<absl::string_view>& passes,
                               const PassContext& context,
                               PassInstrumentation* instrumentation = nullptr);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_PASS_H_
