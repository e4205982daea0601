// The verifier of the IR (as XLA's HloVerifier, LLVM's Verifier.cpp): the
// structural rules every module must keep, checked once after parsing (the
// parser turns a failure into a located error) and after every pass (the
// pass manager refuses the pass's result, HO9002). The parser's own
// normalizations (branch order, default layouts) and what only the text can
// show (recursion through names, entry_computation_layout against the
// parameters as written) stay in the parser.
#ifndef HLO_OFFLOAD_IR_VERIFIER_H_
#define HLO_OFFLOAD_IR_VERIFIER_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "ir/hlo.h"

namespace hloff {

// What a failed check points at: the instruction's name (its definition) or
// its opcode (for a wrong operand count).
enum class VerifierSite { kName, kOpcode };

// One failed check.
struct VerifierError {
  // The instruction at fault; null for a fault of the module as a whole.
  const Instruction* instruction = nullptr;
  VerifierSite site = VerifierSite::kName;
  // The complete message, e.g. "'w': while needs condition= and body=" or
  // "add expects 2 operands, got 1".
  std::string message;
};

// The rules of one instruction, in this order: its structure (operand
// counts of the elementwise, while, call, conditional, get-tuple-element,
// slice and copy-like opcodes; the called computations a while, call,
// conditional, fusion or async-start needs, and their parameter counts; a
// get-tuple-element index within its operand's tuple), then the shapes it
// forwards (ForwardedShapeMismatch). The first broken rule, or nullopt.
std::optional<VerifierError> VerifyInstruction(const Instruction& instr);

// The whole module as a pass leaves it: the entry root's shape agrees with
// entry_computation_layout, then VerifyInstruction on every live
// instruction. OK, or INTERNAL with the first error's message; `error`
// (when not null) receives that error.
absl::Status VerifyModule(const Module& module, VerifierError* error = nullptr);

// Checks that the shapes flowing unchanged through `instr` agree, ignoring
// layouts, as XLA's HloVerifier does: a get-tuple-element and its tuple
// element; a tuple and its operands; a copy, opt-barrier or
// dynamic-update-slice and its operand 0; a while, call or conditional and
// the parameters and roots of its computations. Returns what disagrees
// ("tuple element 1 has shape f32[8] but f32[9] is passed to it"), or an
// empty string. Malformed structure (a missing computation, an index out of
// range) is reported the same way.
std::string ForwardedShapeMismatch(const Instruction& instr);

}  // namespace hloff

#endif  // HLO_OFFLOAD_IR_VERIFIER_H_
