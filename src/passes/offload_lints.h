// Lints for host offloading: patterns that XLA accepts silently (or crashes
// on) and that real users hit. Each has a code in diag/codes.def (HO3xxx) and a
// page under docs/errors/. They go beyond XLA; nothing here changes a module.
//
// LintInput runs on the module as read (before the pipeline), LintOutput on
// the module the pipeline produced (memory spaces set, host compute tagged).
#ifndef HLO_OFFLOAD_PASSES_OFFLOAD_LINTS_H_
#define HLO_OFFLOAD_PASSES_OFFLOAD_LINTS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

#include "diag/diagnostic.h"
#include "ir/hlo.h"

namespace hloff {

// What the input asks for, remembered for LintOutput.
struct LintInputFacts {
  bool asks_for_host_memory = false;  // S(5) in the entry layout or to-host annotations
  std::string first_request;          // where, for the message
  SourceLoc first_request_loc;
  // (while name, tuple position) pairs that one broadcast seeds together.
  struct SharedSeed {
    std::string broadcast;
    SourceLoc loc;
    std::string while_name;
    std::string computation;
    std::vector<int64_t> positions;
  };
  std::vector<SharedSeed> shared_seeds;
  // "computation/instruction" of instructions already tagged host compute.
  absl::flat_hash_set<std::string> preexisting_host_compute;
};

// HO3004 (dropped annotations, root MoveToHost against a device layout,
// MoveToDevice of a device parameter), HO3006 (layout change before a host
// output), HO3008 (leaked S(5)). Appends to `out`; returns facts for
// LintOutput. Linear in the module size.
LintInputFacts LintInput(const Module& module, std::vector<Diagnostic>& out);

// HO3001, HO3002, HO3003, HO3004 (nothing ended on host), HO3005, HO3007 on the
// pipeline's result. Linear in the module size.
void LintOutput(const Module& module, const LintInputFacts& facts,
                std::vector<Diagnostic>& out);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_OFFLOAD_LINTS_H_
