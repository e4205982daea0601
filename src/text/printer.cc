// HLO text printer. Shapes are shared between instructions, so each distinct
// shape is formatted once per module; everything else is appended straight
// from the IR (names and unmodified attributes are views of the input).
#include "text/printer.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace {

void Append(std::string& out, absl::string_view text) {
  out.append(text.data(), text.size());
}

// What a printed name is: an instruction's (also as an operand or control
// predecessor), or a module's or computation's.
enum class NameKind { kInstruction, kModuleOrComputation };

// True for the words XLA's lexer never reads as a plain identifier
// (xla/hlo/parser/hlo_lexer.cc, HloLexer::LexIdentifier): its keywords, the
// sharding keywords, true/false/inf/nan and the primitive type names that
// primitive_util knows (tuple and buffer are not reserved). Only after `%` is
// such a word a name (HloLexer::LexPercent): `HloModule %manual` parses in
// XLA, `HloModule manual` does not ("expects name"; jaxlib 0.10.2's
// hlo_module_from_text, tests/python/oracle/test_xla_reserved_names.py).
// An instruction named like a primitive type has no spelling XLA reads:
// its parser refuses the name even after `%` ("illegal instruction name",
// what NameUniquer::GetSanitizedName would rename), so such names print as
// written, bare.
bool IsReservedWord(absl::string_view name, NameKind kind) {
  // Every reserved word has 2 to 23 characters and no '.'; most printed names
  // (add.5, custom-call.1102) fail this test before any lookup.
  if (name.size() < 2 || name.size() > 23 ||
      std::memchr(name.data(), '.', name.size()) != nullptr) {
    return false;
  }
  static const auto* const kKeywords = new absl::flat_hash_set<absl::string_view>{
      // The format's own keywords.
      "HloModule", "ENTRY", "ROOT", "FileNames", "FunctionNames", "FileLocations",
      "StackFrames",
      // Literal and sharding keywords.
      "true", "false", "inf", "nan", "maximal", "replicated", "manual",
      "last_tile_dim_replicate", "shard_as", "shard_like", "unknown", "unreduced"};
  static const auto* const kPrimitiveTypes = new absl::flat_hash_set<absl::string_view>{
      "pred", "s1", "s2", "s4", "s8", "s16", "s32", "s64", "u1", "u2", "u4", "u8",
      "u16", "u32", "u64", "f16", "f32", "bf16", "f64", "c64", "c128", "f8e5m2",
      "f8e4m3", "f8e4m3fn", "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4",
      "f4e2m1fn", "f8e8m0fnu", "token", "opaque"};
  if (kKeywords->contains(name)) return true;
  return kind == NameKind::kModuleOrComputation && kPrimitiveTypes->contains(name);
}

// Appends `name` bare, as today's XLA prints it, unless the bare form would
// not read back as that name: one that does not start like an identifier
// (the parser accepts `%0` and `%.20`) or one that XLA's lexer reserves
// (IsReservedWord). Those keep the `%` that makes them names.
void AppendName(std::string& out, absl::string_view name,
                NameKind kind = NameKind::kInstruction) {
  bool bare = !name.empty() &&
              (absl::ascii_isalpha(static_cast<unsigned char>(name[0])) ||
               name[0] == '_') &&
              !IsReservedWord(name, kind);
  if (!bare) out += '%';
  Append(out, name);
}

// Appends `text` quoted and C-escaped, as absl::CEscape would.
void AppendQuoted(std::string& out, absl::string_view text) {
  out += '"';
  bool plain = true;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\'' || c == '\\') {
      plain = false;
      break;
    }
  }
  if (plain) {
    out.append(text.data(), text.size());
  } else {
    out += absl::CEscape(text);
  }
  out += '"';
}

// True when frontend attribute text `{...}` holds no key=value pair.
bool FrontendTextIsEmpty(absl::string_view value) {
  for (size_t i = 1; i + 1 < value.size(); ++i) {
    if (value[i] != ' ' && value[i] != ',') return false;
  }
  return true;
}

class Printer {
 public:
  explicit Printer(std::string& out) : out_(out) {}

  void Shape(const hloff::Shape& shape) {
    if (!cache_shapes_) {
      AppendShape(out_, shape);
      return;
    }
    auto [it, inserted] = shape_text_.try_emplace(&shape);
    if (inserted) AppendShape(it->second, shape);
    out_ += it->second;
  }

  void Instruction(const hloff::Instruction& instr) {
    std::string& out = out_;
    AppendName(out, instr.name());
    out += " = ";
    Shape(instr.shape());
    out += ' ';
    Append(out, instr.opcode_spelling());
    out += '(';
    if (instr.opcode() == HloOpcode::kParameter) {
      absl::StrAppend(&out, instr.parameter_number());
    } else if (instr.opcode() == HloOpcode::kConstant) {
      Append(out, instr.literal_text());
    } else {
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (i) out += ", ";
        if (i > 0 && i % 5 == 0) absl::StrAppend(&out, "/*index=", i, "*/");
        AppendName(out, instr.operand(i)->name());
      }
    }
    out += ')';
    for (const Attribute& attr : instr.attributes()) {
      switch (attr.kind()) {
        case AttrKind::kRaw: {
          absl::string_view name = attr.name();
          absl::string_view value = attr.value();
          out += ", ";
          // name=value is one piece of text.
          out.append(name.data(), value.data() + value.size() - name.data());
          break;
        }
        case AttrKind::kCalledComputations: {
          absl::StrAppend(&out, ", ", attr.name(), "=");
          if (attr.is_list()) out += '{';
          for (size_t i = 0; i < attr.count(); ++i) {
            if (i) out += ", ";
            AppendName(out, instr.called_computations()[attr.first() + i]->name(),
                       NameKind::kModuleOrComputation);
          }
          if (attr.is_list()) out += '}';
          break;
        }
        case AttrKind::kFrontendAttributes: {
          // Unmodified attributes print exactly as read.
          absl::string_view raw = attr.value();
          if (!instr.frontend_attributes_modified() && !raw.empty()) {
            if (FrontendTextIsEmpty(raw)) break;
            absl::StrAppend(&out, ", frontend_attributes=", raw);
            break;
          }
          if (instr.frontend_attributes().empty()) break;
          out += ", frontend_attributes={";
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
        case AttrKind::kCustomCallTarget:
          out += ", custom_call_target=";
          AppendQuoted(out, instr.custom_call_target());
          break;
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

  void StackFrames(const StackFrameIndex& index) {
    std::string& out = out_;
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

  // Prints the module; `flush` (if any) is called whenever the buffer holds
  // more than kChunk bytes.
  void Module(const hloff::Module& module,
              absl::FunctionRef<void()> flush) {
    std::string& out = out_;
    cache_shapes_ = true;
    out += "HloModule ";
    AppendName(out, module.name(), NameKind::kModuleOrComputation);
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
    StackFrames(module.stack_frame_index());
    bool first = true;
    for (const auto& comp : module.computations()) {
      if (comp->is_synthesized()) continue;
      if (!first) out += '\n';
      first = false;
      if (comp->IsEntry()) out += "ENTRY ";
      AppendName(out, comp->name(), NameKind::kModuleOrComputation);
      out += " {\n";
      for (const hloff::Instruction* instr : comp->MakeInstructionPostOrder()) {
        out += instr->IsRoot() ? "  ROOT " : "  ";
        Instruction(*instr);
        out += '\n';
        if (out.size() > kChunk) flush();
      }
      out += '}';
      if (comp->execution_thread() != "main") {
        absl::StrAppend(&out, ", execution_thread=\"", comp->execution_thread(),
                        "\"");
      }
      out += '\n';
    }
  }

  static constexpr size_t kChunk = size_t{1} << 20;

 private:
  std::string& out_;
  bool cache_shapes_ = false;
  // Formatted text of each shape printed so far (shapes are shared and not
  // modified while printing, so the address identifies the text).
  absl::flat_hash_map<const hloff::Shape*, std::string> shape_text_;
};

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
  Printer(out).Instruction(instr);
  return out;
}

void PrintModule(const Module& module, std::string& out) {
  Printer(out).Module(module, [] {});
}

void PrintModule(const Module& module,
                 absl::FunctionRef<void(absl::string_view)> sink) {
  std::string buffer;
  buffer.reserve(Printer::kChunk + (size_t{64} << 10));
  Printer printer(buffer);
  printer.Module(module, [&] {
    sink(buffer);
    buffer.clear();
  });
  if (!buffer.empty()) sink(buffer);
}

std::string ModuleToString(const Module& module) {
  std::string out;
  PrintModule(module, out);
  return out;
}

}  // namespace hloff
