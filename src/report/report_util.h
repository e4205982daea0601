// Small helpers shared by the report's analyses: how the report names an
// instruction and its source, memory-space and byte questions about
// subshapes, and the instruction classes of the HostOffloader's walk rules
// (xla/hlo/transforms/host_offloader.cc).
#ifndef HLO_OFFLOAD_REPORT_REPORT_UTIL_H_
#define HLO_OFFLOAD_REPORT_REPORT_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "ir/hlo.h"
#include "report/report.h"

namespace hloff::report_util {

// The instruction's name in the input. A MoveToHost made from an
// annotate_device_placement is named after it (its origin name is
// "<name> (annotate_device_placement ...)", and HLO names have no spaces).
std::string InputName(const Instruction* instr);

// Name (as in the input), computation and position of `instr`.
InstructionRef Ref(const Instruction* instr);

// The user's program position of `instr` from its metadata: source_file and
// source_line, or the stack-frame tables of newer dumps; op_name.
ProgramSource SourceOf(const Module& module, const Instruction* instr);

// `step.py:15` for /home/user/model/step.py line 15; empty without a file.
std::string ShortSource(const ProgramSource& source);

// The last component of an op_name, the primitive JAX lowered
// ("tanh" for "jit(f)/attn/tanh"); the whole text when it has no '/'.
absl::string_view OpNameOp(absl::string_view op_name);

// The innermost component of `op_name` (its last one, the primitive, left
// out) that the user's program gave: a `jax.named_scope`, a Flax module, a
// function name JAX keeps. A transformation's parentheses hold the name
// stack it applies to and are read inside (`jit(f)/jvp(attn_out)/tanh`
// gives "attn_out"); JAX's own components are skipped: jitted functions
// (`jit(step)`, `pjit(f)`), empty transformations (`jvp()`), control flow
// (`while`, `body`, `cond`, `branch_N`), remat and call plumbing
// (`checkpoint`, `remat`, `rematted_computation`, `closed_call`, ...).
// Empty when there is none: "jit(loss)/jvp()/while/body/attn/tanh" gives
// "attn", "device_put" "".
absl::string_view OpNameScope(absl::string_view op_name);

// The instruction that computes the value `instr` forwards, looking through
// views: bitcast, copy and reshape (operand 0), get-tuple-element of a tuple
// (the element) or of a call (the callee's root element). At most a few
// dozen steps; `instr` itself when it forwards nothing.
const Instruction* ValueProducer(const Instruction* instr);

// True when any array leaf of `shape` is in host memory.
bool AnyLeafIsHost(const Shape& shape);

// Appends the indices of the array leaves at or below `index` of `shape`
// (tokens and opaque values are skipped).
void AppendArrayLeaves(const Shape& shape, const ShapeIndex& index,
                       std::vector<ShapeIndex>& out);

// Bytes (shape_util::ByteSizeOf) and printed form of the subshape at `index`;
// 0 and "" when the index does not exist.
int64_t BytesAt(const Shape& shape, const ShapeIndex& index);
std::string ShapeAt(const Shape& shape, const ShapeIndex& index);

// The shape without layout, cut to 48 characters, for pictures.
std::string ShortShape(const Shape& shape);

// Computations that run inside a fusion or inside an instruction that
// already computes on the host (`_xla_compute_type="host"`), transitively.
absl::flat_hash_set<const Computation*> NestedComputations(const Module& module);

}  // namespace hloff::report_util

#endif  // HLO_OFFLOAD_REPORT_REPORT_UTIL_H_
