// Lints for host offloading: patterns that XLA accepts silently (or crashes
// on) and that real users hit. Each has a code in diag/codes.def (HO3xxx), a
// page under docs/errors/ and a checker of its own in this folder, registered
// in lint_registry.cc. They go beyond XLA; nothing here changes a module.
//
// LintInput runs on the module as read (before the pipeline), LintOutput on
// the module the pipeline produced (memory spaces set, host compute tagged),
// LintVerdict on the passes' diagnostics. Each is one phase of the registry's
// checkers (RunLintPhase), in one traversal of the module.
#ifndef HLO_OFFLOAD_LINTS_OFFLOAD_LINTS_H_
#define HLO_OFFLOAD_LINTS_OFFLOAD_LINTS_H_

#include <cstdint>
#include <optional>
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
  // The first host leaf of the entry result, when the request is the entry
  // layout's result (for the JAX name of HO3004's output).
  std::optional<ShapeIndex> first_request_output;
  // HO3015 was reported: the input is the offloader's output already, and
  // that nothing ends in host memory is no news (no HO3004 for it).
  bool already_offloaded = false;
  // "computation/instruction" of instructions already tagged host compute.
  absl::flat_hash_set<std::string> preexisting_host_compute;
  // The entry root as read (the pipeline may replace it), for diagnostics
  // about the entry boundary.
  std::string entry_root;
  SourceLoc entry_root_loc;
  // HO3016: the module is named as JAX names a jitted function's (`jit_f`),
  // no leaf of entry_computation_layout has a memory space and no instruction
  // has metadata, as in JAX's Lowered.as_text(dialect="hlo").
  bool reads_as_jax_lowered_text = false;
};

// The backend a module is compiled for (`--backend`), where the lints'
// evidence differs by backend: HO3005 is about the GPU compiler only. (Its
// names and their parse: pipeline/choices.h.)
enum class TargetBackend { kAny, kTpu, kGpu };

// What the command line configures for the lints.
struct LintOptions {
  // The backend the module is for: a lint about one backend is reported
  // for that backend and for kAny (unknown), not for the other.
  TargetBackend backend = TargetBackend::kAny;
  // HO3012: the pinned host memory the target can give one program, in
  // bytes; unset: not checked.
  std::optional<int64_t> pinned_host_budget;
  // --fix-entry-layout-unless-customized: XLA V4 declares a root value moved
  // to host in host memory itself unless the layout is customized, so
  // HO3004 does not warn about that layout.
  bool fix_entry_layout_unless_customized = false;
};

// A conditional's branch that passes at least this many bytes through
// unchanged is large (HO3011).
inline constexpr int64_t kLargePassThroughBytes = int64_t{16} << 20;

// HO3004 (dropped annotations, root MoveToHost against a device layout,
// MoveToDevice of a device parameter), HO3006 (layout change before a host
// output), HO3008 (leaked S(5)), HO3013 (annotations in a manually
// partitioned region), HO3014 (host round trip), HO3015 (a module offloaded
// already). Appends to `out`; returns facts for LintOutput. Linear in the
// module size.
LintInputFacts LintInput(const Module& module, std::vector<Diagnostic>& out,
                         const LintOptions& options = {});

// HO3001, HO3002, HO3004 (nothing ended on host), HO3005, HO3007,
// HO3009 (nested host stacks), HO3010 (pipelined host writes), HO3011 (large
// pass-through of a host conditional), HO3012 (pinned-host budget) on the
// pipeline's result. Linear in the module size.
void LintOutput(const Module& module, const LintInputFacts& facts,
                std::vector<Diagnostic>& out, const LintOptions& options = {});

// HO3016 (an E1200 on an input that reads as JAX's
// Lowered.as_text(dialect="hlo"), LintInputFacts::reads_as_jax_lowered_text)
// from the passes' `diagnostics`, whether the passes succeeded or not.
// Appends to `out`. Constant time in the module size, linear in the number
// of diagnostics.
void LintVerdict(const Module& module, const LintInputFacts& facts,
                 const std::vector<Diagnostic>& diagnostics,
                 std::vector<Diagnostic>& out);

}  // namespace hloff

#endif  // HLO_OFFLOAD_LINTS_OFFLOAD_LINTS_H_
