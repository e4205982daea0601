// Diagnostics with one cause, folded: the E1200s of one walk start (a
// MoveToHost whose tensor reaches several entry outputs) and the diagnostics
// of one code on the outputs of one JAX subtree form a group. Text prints a
// group as its first diagnostic plus the list of the other outputs; JSON and
// SARIF keep every diagnostic and mark the group (docs/CLI.md,
// "Diagnostics"). XLA has no such notion: its status stops at the first
// fault.
#ifndef HLO_OFFLOAD_DIAG_GROUP_H_
#define HLO_OFFLOAD_DIAG_GROUP_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "diag/diagnostic.h"

namespace hloff {

// The top-level entry of the returned pytree that a JAX output path lies
// under: "result['opt_state']" for "result['opt_state']['mu']",
// "result[0]" for "result[0].w". Empty when the path is that entry itself
// or shorter ("result[1]", "result": a leaf is a subtree of its own) or is
// not a root name followed by keys as jax.tree_util.keystr prints them
// (`[0]`, `['key']`, `.name`).
absl::string_view JaxSubtree(absl::string_view output_path);

// The groups of one module's diagnostics (in the order they are printed).
// Two diagnostics of the same code and severity, each about an entry output
// (output_index or output_path set), are in one group when they come from
// one walk (the same `start` and the same first hop of `path`: the
// MoveToHost or host parameter whose tensor reaches both outputs), or when
// their output paths lie under the same JaxSubtree; groups are closed under
// both (a chain of either joins them).
// Every other diagnostic is a group of its own. A group's first diagnostic
// (its leader) is the one printed in full. Built in time linear in the
// number of diagnostics (and their keys' length).
class DiagnosticGroups {
 public:
  explicit DiagnosticGroups(absl::Span<const Diagnostic> diagnostics);

  // The index of the first diagnostic of diagnostic i's group (i itself
  // when it leads its group or is alone).
  size_t Leader(size_t i) const { return leader_[i]; }
  // How many diagnostics diagnostic i's group has (1: alone).
  size_t Size(size_t i) const { return size_[leader_[i]]; }
  // Whether diagnostic i folds with at least one other.
  bool Folds(size_t i) const { return Size(i) > 1; }
  // The diagnostics of i's group after its leader, in order.
  std::vector<size_t> Followers(size_t i) const;

 private:
  std::vector<size_t> leader_;
  std::vector<size_t> size_;  // by leader
  std::vector<size_t> next_;  // the next member of the group, or npos
};

// The note text says of a group's followers, after `note: `: "and 2 more
// outputs: {2}, {4}", each output by its JAX path where the diagnostic has
// one, else by its shape index; the first kMaxListedOutputs are listed. When
// the tensors of followers are moved to host by other instructions than
// `leader`'s (a group of one JAX subtree), it says by how many.
std::string FoldedOutputsNote(const Diagnostic& leader,
                              absl::Span<const Diagnostic* const> followers);

// How many outputs the folded note lists before it says how many others.
inline constexpr size_t kMaxListedOutputs = 10;

}  // namespace hloff

#endif  // HLO_OFFLOAD_DIAG_GROUP_H_
