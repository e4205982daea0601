// HLO text printer.
#include "text/printer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace {

// Appends `name` bare, as today's XLA prints it, unless the bare form would
// not read back as that name: one that does not start like an identifier
// (the parser accepts `%0` and `%.20`) or one that is a keyword of the
// format. Those keep the `%` that makes them names.
void AppendName(std::string& out, absl::string_view name) {
  static constexpr absl::string_view kKeywords[] = {
      "ROOT", "ENTRY", "HloModule", "FileNames", "FunctionNames",
      "FileLocations", "StackFrames"};
  bool bare = !name.empty() &&
              (absl::ascii_isalpha(static_cast<unsigned char>(name[0])) ||
               name[0] == '_');
  for (absl::string_view keyword : kKeywords) bare &= name != keyword;
  if (!bare) out += '%';
  absl::StrAppend(&out, name);
}

void AppendInstruction(std::string& out, const Instruction& instr) {
  AppendName(out, instr.name());
  out += " = ";
  AppendShape(out, instr.shape());
  absl::StrAppend(&out, " ", instr.opcode_spelling(), "(");
  if (instr.opcode() == HloOpcode::kParameter) {
    absl::StrAppend(&out, instr.parameter_number());
  } else if (instr.opcode() == HloOpcode::kConstant) {
    out += instr.literal_text();
  } else {
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      if (i) out += ", ";
      if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
      AppendName(out, instr.operand(i)->name());
    }
  }
  out += ')';
  for (const AttrSlot& slot : instr.attr_slots()) {
    switch (slot.kind) {
      case AttrKind::kRaw: {
        const RawAttribute& raw = instr.raw_attributes()[slot.raw_index];
        absl::StrAppend(&out, ", ", raw.name, "=", raw.value);
        break;
      }
      case AttrKind::kCalledComputations: {
        absl::StrAppend(&out, ", ", slot.name, "=");
        if (slot.is_list) out += '{';
        for (size_t i = 0; i < slot.count; ++i) {
          if (i) out += ", ";
          AppendName(out, instr.called_computations()[slot.first + i]->name());
        }
        if (slot.is_list) out += '}';
        break;
      }
      case AttrKind::kFrontendAttributes: {
        if (instr.frontend_attributes().empty()) break;
        const RawAttribute* raw = instr.FindRawAttribute("frontend_attributes");
        absl::StrAppend(&out, ", frontend_attributes=");
        // Unmodified attributes print exactly as read.
        if (raw != nullptr && !instr.frontend_attributes_modified()) {
          out += raw->value;
          break;
        }
        out += '{';
        bool first = true;
        for (const auto& [key, value] : instr.frontend_attributes()) {
          if (!first) out += ',';
          first = false;
          absl::StrAppend(&out, key, "=", value);
        }
        out += '}';
        break;
      }
      case AttrKind::kControlPredecessors: {
        if (instr.control_predecessors().empty()) break;
        out += ", control-predecessors={";
        for (size_t i = 0; i < instr.control_predecessors().size(); ++i) {
          if (i) out += ", ";
          AppendName(out, instr.control_predecessors()[i]->name());
        }
        out += '}';
        break;
      }
      case AttrKind::kCustomCallTarget: {
        absl::StrAppend(&out, ", custom_call_target=\"",
                        absl::CEscape(instr.custom_call_target()), "\"");
        break;
      }
      case AttrKind::kIndex:
        absl::StrAppend(&out, ", index=", instr.tuple_index());
        break;
      case AttrKind::kDynamicSliceSizes: {
        out += ", dynamic_slice_sizes={";
        for (size_t i = 0; i < instr.dynamic_slice_sizes().size(); ++i) {
          if (i) out += ',';
          absl::StrAppend(&out, instr.dynamic_slice_sizes()[i]);
        }
        out += '}';
        break;
      }
    }
  }
}

void AppendStackFrames(std::string& out, const StackFrameIndex& index) {
  if (index.empty()) return;
  out += "FileNames\n";
  for (size_t i = 0; i < index.file_names.size(); ++i) {
    absl::StrAppend(&out, i + 1, " \"", index.file_names[i], "\"\n");
  }
  out += "\nFunctionNames\n";
  for (size_t i = 0; i < index.function_names.size(); ++i) {
    absl::StrAppend(&out, i + 1, " \"", index.function_names[i], "\"\n");
  }
  out += "\nFileLocations\n";
  for (size_t i = 0; i < index.file_locations.size(); ++i) {
    const auto& l = index.file_locations[i];
    absl::StrAppend(&out, i + 1, " {file_name_id=", l.file_name_id,
                    " function_name_id=", l.function_name_id, " line=", l.line,
                    " end_line=", l.end_line, " column=", l.column,
                    " end_column=", l.end_column, "}\n");
  }
  out += "\nStackFrames\n";
  for (size_t i = 0; i < index.frames.size(); ++i) {
    const auto& f = index.frames[i];
    absl::StrAppend(&out, i + 1, " {file_location_id=", f.file_location_id,
                    " parent_frame_id=", f.parent_frame_id, "}\n");
  }
  out += '\n';
}

}  // namespace

std::string EntryLayoutToString(const EntryComputationLayout& layout) {
  std::string out = "{(";
  for (size_t i = 0; i < layout.parameters.size(); ++i) {
    if (i) out += ", ";
    if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
    AppendShape(out, layout.parameters[i]);
  }
  out += ")->";
  AppendShape(out, layout.result);
  out += '}';
  return out;
}

std::string InstructionToString(const Instruction& instr) {
  std::string out;
  AppendInstruction(out, instr);
  return out;
}

void PrintModule(const Module& module, std::string& out) {
  out += "HloModule ";
  AppendName(out, module.name());
  const auto& attrs = module.header_attributes();
  for (size_t i = 0; i <= attrs.size(); ++i) {
    if (i == module.entry_layout_position()) {
      absl::StrAppend(&out, ", entry_computation_layout=",
                      EntryLayoutToString(module.entry_computation_layout()));
    }
    if (i < attrs.size()) {
      absl::StrAppend(&out, ", ", attrs[i].name, "=", attrs[i].value);
    }
  }
  out += "\n\n";
  AppendStackFrames(out, module.stack_frame_index());
  bool first = true;
  for (const auto& comp : module.computations()) {
    if (comp->is_synthesized()) continue;
    if (!first) out += '\n';
    first = false;
    if (comp->IsEntry()) out += "ENTRY ";
    AppendName(out, comp->name());
    out += " {\n";
    for (const Instruction* instr : comp->MakeInstructionPostOrder()) {
      out += instr->IsRoot() ? "  ROOT " : "  ";
      AppendInstruction(out, *instr);
      out += '\n';
    }
    out += '}';
    if (comp->execution_thread() != "main") {
      absl::StrAppend(&out, ", execution_thread=\"", comp->execution_thread(),
                      "\"");
    }
    out += '\n';
  }
}

std::string ModuleToString(const Module& module) {
  std::string out;
  PrintModule(module, out);
  return out;
}

}  // namespace hloff
