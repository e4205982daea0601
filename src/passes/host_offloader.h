// HostOffloader: tracks every offloaded tensor (from each MoveToHost and each
// host-memory entry parameter) until it is moved back to device, consumed by
// host compute, or reaches an entry output; sets memory space 5 on host
// buffers, inserts the host<->device copies, creates AllocateBuffers for
// host DUS buffers, and removes the annotations. Mirrors
// xla/hlo/transforms/host_offloader.cc at the newest XLA (V6), in linear
// time: a worklist per walk with a visited set, MoveToHosts collected in one
// pass instead of a rescan after each, and a call graph built once.
#ifndef HLO_OFFLOAD_PASSES_HOST_OFFLOADER_H_
#define HLO_OFFLOAD_PASSES_HOST_OFFLOADER_H_

#include "passes/pass.h"

namespace hloff {

// A walk of the HostOffloader that reached an entry output in device memory
// (E1200). XLA stops the pass at the first and rewrites nothing of it; with
// report_all_output_errors the pass reports it, shows it to
// PassContext::device_output_walks when that is set, and goes on with the
// other walks.
class DeviceOutputWalk {
 public:
  virtual ~DeviceOutputWalk() = default;
  // Makes the walk's rewrite all the same, as for an output in host memory
  // (host memory spaces, the copies, the MoveToHosts removed), where the pass
  // stands: the walks after it see the module as they would once the output
  // is fixed. A second call does nothing. Errors are the pass's.
  virtual absl::Status Rewrite() = 0;
};

// Shown each DeviceOutputWalk in the order the pass walks them
// (PassContext::device_output_walks). The report's (pipeline/BuildReport)
// rewrites every one, to show what the pipeline inserts once the E1200s are
// fixed.
class DeviceOutputWalkObserver {
 public:
  virtual ~DeviceOutputWalkObserver() = default;
  // `walk` lives only during the call; an error ends the pass with it.
  virtual absl::Status Reached(DeviceOutputWalk& walk) = 0;
};

class HostOffloader : public HloPass {
 public:
  explicit HostOffloader(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "host-offloader"; }
  // Changed if anything was rewritten. Errors are XLA's statuses (E1200 as
  // INVALID_ARGUMENT with the error-code text, and the others of main spec
  // §3.4.10 / addendum §3); each is also emitted as a Diagnostic.
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_HOST_OFFLOADER_H_
