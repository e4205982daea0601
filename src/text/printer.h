// The HLO text printer: today's canonical, XLA-parseable form (as `hlo-opt`
// prints it): no `%` prefixes, operands by name, `/*index=N*/` markers in long
// lists, layouts on every array shape, attributes no pass touched printed
// exactly as read. Mirrors HloModule::ToString / HloInstruction::ToString of
// xla/hlo/ir.
#ifndef HLO_OFFLOAD_TEXT_PRINTER_H_
#define HLO_OFFLOAD_TEXT_PRINTER_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "ir/hlo.h"

namespace hloff {

// Appends the whole module, ending with a newline.
void PrintModule(const Module& module, std::string& out);
std::string ModuleToString(const Module& module);
// Prints the module as a sequence of pieces of about a megabyte handed to
// `sink`, so that printing a large module does not hold all of its text.
void PrintModule(const Module& module,
                 absl::FunctionRef<void(absl::string_view)> sink);

// One instruction, as it appears on its line without indentation or ROOT:
// `name = f32[4]{0} add(a, b), metadata={...}`.
std::string InstructionToString(const Instruction& instr);

// The entry computation layout as printed in the header:
// `{(f32[4]{0}, s32[])->f32[4]{0:S(5)}}`.
std::string EntryLayoutToString(const EntryComputationLayout& layout);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TEXT_PRINTER_H_
