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
