// tuple-simplifier: XLA's TupleSimplifier
// (xla/hlo/transforms/simplifiers/tuple_simplifier.cc). In every computation,
// in post order: a chain of get-tuple-elements whose first operand is a tuple
// (or tuples, one per level) is replaced by the tuple element it reads
// (`get-tuple-element(tuple(a, b)), index=1` becomes `b`), and a tuple made
// of get-tuple-elements 0..n-1 of one value of the same shape is replaced by
// that value. Replacements keep a sharding the replaced instruction had
// (a conflicting one refuses the replacement) and are skipped on control
// edges for the tuple case, as XLA's ReplaceInstruction does. After inlining,
// this is what puts a callee's MoveToHost right before the caller's reshape.
#ifndef HLO_OFFLOAD_PASSES_TUPLE_SIMPLIFIER_H_
#define HLO_OFFLOAD_PASSES_TUPLE_SIMPLIFIER_H_

#include "passes/pass.h"

namespace hloff {

class TupleSimplifier : public HloPass {
 public:
  explicit TupleSimplifier(const PassContext& context) : context_(context) {}
  absl::string_view name() const override { return "tuple-simplifier"; }
  // Linear: each get-tuple-element walks its own chain (as deep as the tuple
  // nesting of the shapes).
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  PassContext context_;
};

}  // namespace hloff

#endif  // HLO_OFFLOAD_PASSES_TUPLE_SIMPLIFIER_H_
