// HLO text and its pieces without a run of the pipeline: byte sizes as
// --pinned-host-budget spells them, the memory spaces of an entry
// computation layout (read and set), a module's partitioning, and the bytes
// of a shape per memory space, and the metadata of one instruction of a
// dump.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "analysis/partitions.h"
#include "core/bindings.h"
#include "ir/hlo.h"
#include "ir/shape.h"
#include "pipeline/entry_memory_spaces.h"
#include "pipeline/pipeline.h"
#include "support/byte_size.h"
#include "text/parser.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

// Text of the module as a str, a byte that is not UTF-8 (an escape in a
// metadata string can make one) shown as U+FFFD.
nb::str Text(absl::string_view text) {
  return nb::steal<nb::str>(nb::handle(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace")));
}

// The first instruction named `name`, in the order of the text.
const Instruction* FindInstruction(const Module& module, absl::string_view name) {
  for (const auto& computation : module.computations()) {
    for (const Instruction* instr : computation->instructions()) {
      if (instr->name() == name) return instr;
    }
  }
  return nullptr;
}

}  // namespace

void BindText(nb::module_& m) {
  m.def("parse_byte_size",
        [](const std::string& text) -> nb::object {
          auto bytes = ParseByteSize(text);
          if (!bytes.ok()) return nb::str(std::string(bytes.status().message()).c_str());
          return nb::int_(*bytes);
        },
        nb::sig("def parse_byte_size(text: str) -> int | str"),
        "A byte size as --pinned-host-budget spells it ('16GiB'): an int, or "
        "the reason it is not one (a str).");
  m.def(
      "set_entry_memory_spaces",
      [](const std::string& text, const std::vector<int64_t>& input_spaces,
         const std::vector<int64_t>& output_spaces, bool tuple_args) {
        absl::StatusOr<std::string> out =
            SetEntryMemorySpaces(text, input_spaces, output_spaces, tuple_args);
        if (!out.ok()) throw nb::value_error(std::string(out.status().message()).c_str());
        return *std::move(out);
      },
      "text"_a, "input_spaces"_a, "output_spaces"_a, "tuple_args"_a = false,
      "The module text with the memory spaces in its entry computation layout, as "
      "PJRT applies JAX's memory kinds (pipeline/entry_memory_spaces.h); ValueError "
      "when the layout cannot take them.");
  m.def(
      "entry_layout_text",
      [](const std::string& text) {
        absl::StatusOr<std::string> out = EntryLayoutText(text);
        if (!out.ok()) throw nb::value_error(std::string(out.status().message()).c_str());
        return *std::move(out);
      },
      "text"_a, "The entry_computation_layout of the module's HloModule line, braces "
      "included; ValueError when it has none.");
  m.def(
      "partitioning",
      [](nb::bytes text) -> nb::object {
        absl::string_view view(text.c_str(), text.size());
        // A module whose HloModule line does not say num_partitions is not
        // parsed: it has one partition.
        absl::string_view header = view.substr(0, view.find('\n'));
        if (!absl::StrContains(header, "num_partitions=")) {
          return nb::make_tuple(int64_t{1}, std::string());
        }
        absl::StatusOr<std::unique_ptr<Module>> module;
        {
          nb::gil_scoped_release release;
          module = ParseHloModule(view);
        }
        if (!module.ok()) return nb::none();
        const Instruction* sharding = FirstUnpartitionedSharding(**module);
        return nb::make_tuple(NumPartitions(**module),
                              sharding == nullptr ? std::string()
                                                  : std::string(sharding->input_name()));
      },
      "text"_a,
      nb::sig("def partitioning(text: bytes) -> tuple[int, str] | None"),
      "(num_partitions of the module's header, the name of the first instruction "
      "that says it is not SPMD-partitioned yet, \"\" when none: "
      "analysis/partitions.h FirstUnpartitionedSharding), or None when the text "
      "does not parse.");
  m.def(
      "shape_bytes_by_memory_space",
      [](const std::string& text, bool tiles) {
        absl::StatusOr<Shape> shape = ParseShape(text);
        if (!shape.ok()) throw nb::value_error(std::string(shape.status().message()).c_str());
        std::map<int64_t, int64_t> bytes;
        ShapeIndex scratch;
        shape_util::ForEachSubshape(
            *shape,
            [&](const Shape& leaf, const ShapeIndex&) {
              if (!leaf.IsArray()) return;
              if (tiles || leaf.layout.tiles.empty()) {
                bytes[leaf.memory_space()] += shape_util::ByteSizeOf(leaf);
                return;
              }
              Shape dense = leaf;
              dense.layout.tiles.clear();
              bytes[leaf.memory_space()] += shape_util::ByteSizeOf(dense);
            },
            scratch);
        return bytes;
      },
      "shape"_a, "tiles"_a = true,
      nb::sig("def shape_bytes_by_memory_space(shape: str, tiles: bool = True) -> dict[int, int]"),
      "Bytes of the array leaves of `shape` (HLO shape text such as "
      "`(f32[8,128]{1,0:T(8,128)S(5)}, bf16[4]{0})`, a tuple for the parameters of an "
      "entry computation layout) per memory space (0 device, 5 host), with the "
      "padding of the layout's tiles (shape_util::ByteSizeOf, as XLA's "
      "ShapeUtil::ByteSizeOf with a TPU layout), or, with tiles=False, without it (the "
      "dense size). ValueError when the text is not a shape.");
  m.def(
      "instruction_metadata",
      [](const std::string& text, const std::string& name) -> nb::object {
        absl::StatusOr<std::unique_ptr<Module>> module;
        {
          nb::gil_scoped_release release;
          ParseOptions options;
          options.threads =
              static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
          module = ParseHloModule(text, options);
        }
        if (!module.ok()) return nb::none();
        const Instruction* found = FindInstruction(**module, name);
        if (found == nullptr) return nb::none();
        const OpMetadata& metadata = found->metadata();
        nb::object op_name = nb::none(), file = nb::none();
        int64_t line = 0;
        if (!metadata.op_name.empty()) op_name = Text(metadata.op_name);
        if (std::optional<Module::SourcePosition> position =
                (*module)->ResolveSource(metadata)) {
          absl::string_view path = position->file;
          file = Text(path.substr(path.rfind('/') + 1));
          line = position->line;
        }
        return nb::make_tuple(Text(found->opcode_spelling()), op_name, file, line);
      },
      "text"_a, "name"_a,
      nb::sig("def instruction_metadata(text: str, name: str) "
              "-> tuple[str, str | None, str | None, int] | None"),
      "(opcode, op_name, source file, source line) of the instruction `name` of the "
      "module `text` (an XLA dump), by the parser: its opcode as printed, its "
      "metadata's op_name (None when it has none) and the user's line, from "
      "source_file / source_line or the stack-frame tables (the file's base name; None "
      "and 0 when the metadata has no place); None when the module has no such "
      "instruction or does not parse.");
  m.attr("MAX_INPUT_BYTES") = kMaxInputBytes;
}

}  // namespace python
}  // namespace hloff
