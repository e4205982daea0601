// HO3012 PinnedHostBudgetExceeded (docs/errors/HO3012.md).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analysis/host_buffers.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Bytes of the array leaves of `shape` in host memory.
int64_t HostBytes(const Shape& shape) {
  int64_t bytes = 0;
  ShapeIndex scratch;
  shape_util::ForEachSubshape(
      shape,
      [&](const Shape& sub, const ShapeIndex&) {
        if (sub.IsArray() && sub.memory_space() == kHostMemorySpace) {
          bytes = shape_util::SaturatingAdd(bytes, shape_util::ByteSizeOf(sub));
        }
      },
      scratch);
  return bytes;
}

// The (output index, parameter number, parameter index) triples of the
// module's input_output_alias header attribute,
// `{ {0}: (1, {}, may-alias), {1}: (2, {0}) }`; empty when there is none or
// it does not read.
struct Alias {
  ShapeIndex output;
  int64_t parameter = 0;
  ShapeIndex parameter_index;
};
std::vector<Alias> InputOutputAliases(const Module& module) {
  std::vector<Alias> aliases;
  for (const auto& attr : module.header_attributes()) {
    if (absl::string_view(attr.name) != "input_output_alias") continue;
    absl::string_view text = attr.value;
    size_t pos = text.find('{');
    if (pos == absl::string_view::npos) return {};
    ++pos;
    auto skip_space = [&] {
      while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
    };
    auto read_index = [&](ShapeIndex& index) {
      skip_space();
      if (pos >= text.size() || text[pos] != '{') return false;
      size_t close = text.find('}', pos);
      if (close == absl::string_view::npos) return false;
      for (absl::string_view part :
           absl::StrSplit(text.substr(pos + 1, close - pos - 1), ',',
                          absl::SkipWhitespace())) {
        int64_t value = 0;
        if (!absl::SimpleAtoi(part, &value)) return false;
        index.push_back(value);
      }
      pos = close + 1;
      return true;
    };
    while (true) {
      skip_space();
      if (pos >= text.size() || text[pos] == '}') break;
      Alias alias;
      if (!read_index(alias.output)) return {};
      size_t open = text.find('(', pos);
      size_t comma = text.find(',', open);
      if (open == absl::string_view::npos || comma == absl::string_view::npos ||
          !absl::SimpleAtoi(text.substr(open + 1, comma - open - 1),
                            &alias.parameter)) {
        return {};
      }
      pos = comma + 1;
      if (!read_index(alias.parameter_index)) return {};
      size_t close = text.find(')', pos);
      if (close == absl::string_view::npos) return {};
      pos = close + 1;
      aliases.push_back(std::move(alias));
    }
  }
  return aliases;
}

// The host-resident intermediates of the module after the pipeline: host
// buffers that are neither an entry parameter nor an entry output, each
// counted once at its size, grouped as the report groups them
// (analysis/host_buffers.h). So a scan's stacked residuals count once, at the
// stack's full size.
struct HostIntermediates {
  int64_t bytes = 0;
  int64_t buffers = 0;
  // The largest one, its defining instruction and bytes.
  const Instruction* largest = nullptr;
  int64_t largest_bytes = 0;
};

// Linear in the host values reached (IntermediateHostBufferGroups).
HostIntermediates CountHostIntermediates(const Module& module,
                                         const CallGraph& call_graph) {
  HostBufferOptions options;
  // Annotations are gone after the HostOffloader. Depth first is the order
  // this lint has always discovered values in: it picks which producer names
  // a buffer with several in the note.
  options.discovery = HostBufferOptions::Discovery::kDepthFirst;
  HostIntermediates result;
  for (const HostBufferGroup& group : IntermediateHostBufferGroups(
           module, call_graph, HostArrayLeaves(module), options)) {
    result.bytes = shape_util::SaturatingAdd(result.bytes, group.bytes);
    ++result.buffers;
    if (group.bytes > result.largest_bytes) {
      result.largest_bytes = group.bytes;
      result.largest = group.defining.instruction;
    }
  }
  return result;
}

// Detects, with --pinned-host-budget=BYTES, more host memory than the budget
// in the module the pipeline produced: the host leaves at the entry boundary
// (S(5) in entry_computation_layout; a donated input aliased to an output
// counted once) plus the host-resident intermediates
// (CountHostIntermediates: the offloaded activations that live in host memory
// during the program, such as a scan's stacked residuals). Host arguments, results and offloaded
// buffers live in pinned host memory, which the runtime takes from a pool of
// limited size. XLA compiles such a program (the pool belongs to the
// runtime, not to the compiler), and it fails at run time with an
// out-of-memory error.
class PinnedHostBudgetExceeded : public LintChecker {
 public:
  void AfterModule(LintContext& context) override {
    const LintOptions& options = context.options();
    if (!options.pinned_host_budget.has_value()) return;
    const Module& module = context.module();
    const LintInputFacts& facts = context.facts();
    std::vector<Diagnostic>& out = context.out();
    const EntryComputationLayout& layout = module.entry_computation_layout();
    int64_t in = 0;
    for (const Shape& parameter : layout.parameters) {
      in = shape_util::SaturatingAdd(in, HostBytes(parameter));
    }
    const int64_t out_bytes = HostBytes(layout.result);
    // A donated host input aliased to a host output is one buffer.
    int64_t shared = 0;
    for (const Alias& alias : InputOutputAliases(module)) {
      if (alias.parameter < 0 ||
          alias.parameter >= static_cast<int64_t>(layout.parameters.size())) {
        continue;
      }
      const Shape* output = shape_util::TryGetSubshape(layout.result, alias.output);
      const Shape* input = shape_util::TryGetSubshape(
          layout.parameters[alias.parameter], alias.parameter_index);
      if (output != nullptr && input != nullptr) {
        shared = shape_util::SaturatingAdd(
            shared, std::min(HostBytes(*output), HostBytes(*input)));
      }
    }
    shared = std::min({shared, in, out_bytes});
    const HostIntermediates intermediates =
        CountHostIntermediates(module, context.call_graph());
    const int64_t total = shape_util::SaturatingAdd(
        shape_util::SaturatingAdd(in, out_bytes) - shared, intermediates.bytes);
    if (total > *options.pinned_host_budget) {
      Diagnostic d = MakeDiagnostic(
          DiagCode::kHO3012,
          absl::StrCat(
              "host memory at the entry boundary, ", LintBytes(in), " in and ",
              LintBytes(out_bytes), " out",
              shared > 0 ? absl::StrCat(" (", LintBytes(shared),
                                        " of them one donated buffer)")
                         : std::string(),
              intermediates.buffers > 0
                  ? absl::StrCat(", and ", LintBytes(intermediates.bytes),
                                 " of host-resident intermediates in ",
                                 intermediates.buffers,
                                 intermediates.buffers == 1 ? " buffer" : " buffers",
                                 " (offloaded values held in host memory "
                                 "during the program)")
                  : std::string(),
              ", ", total, " bytes (", LintBytes(total),
              ") in all, exceeds the pinned-host budget of ",
              *options.pinned_host_budget, " bytes (",
              LintBytes(*options.pinned_host_budget),
              "): these buffers may not fit in the pinned host memory pool"),
          nullptr);
      d.instruction = facts.entry_root;
      d.computation = std::string(module.entry()->name());
      d.loc = facts.entry_root_loc;
      // The largest host leaf, which has to fit in one piece.
      int64_t largest = 0;
      std::string where;
      ShapeIndex scratch;
      // `what` names the parameter or the output; `at` the leaf in it.
      auto largest_of = [&](const Shape& shape, auto&& what) {
        shape_util::ForEachSubshape(
            shape,
            [&](const Shape& sub, const ShapeIndex& index) {
              if (!sub.IsArray() || sub.memory_space() != kHostMemorySpace) return;
              int64_t bytes = shape_util::ByteSizeOf(sub);
              if (bytes <= largest) return;
              largest = bytes;
              where = what(index);
            },
            scratch);
      };
      for (size_t i = 0; i < layout.parameters.size(); ++i) {
        largest_of(layout.parameters[i], [i](const ShapeIndex& index) {
          return index.empty() ? absl::StrCat("entry parameter ", i)
                               : absl::StrCat("entry parameter ", i, " at ",
                                              ShapeIndexToString(index));
        });
      }
      largest_of(layout.result, [&](const ShapeIndex& index) {
        return index.empty() && !layout.result.IsTuple()
                   ? std::string("the single result (entry output {})")
                   : absl::StrCat("entry output ", ShapeIndexToString(index));
      });
      if (intermediates.largest_bytes > largest) {
        largest = intermediates.largest_bytes;
        const Instruction* buffer = intermediates.largest;
        where = absl::StrCat(
            "the host-resident intermediate ", buffer->origin_name().substr(
                0, buffer->origin_name().find(' ')),
            " (", buffer->opcode() == HloOpcode::kCustomCall
                      ? std::string(buffer->custom_call_target())
                      : std::string(HloOpcodeString(buffer->opcode())),
            " in ", buffer->parent()->name(), ")",
            SourceSuffix(module, buffer));
      }
      if (largest > 0) {
        d.notes.push_back(Note{
            absl::StrCat("the largest pinned buffer is ", where, ", ",
                         LintBytes(largest), " in one piece"),
            facts.entry_root_loc});
      }
      d.fixes.push_back(Fix{
          "pageable",
          "keep bulk host storage in pageable memory (the CPU backend, e.g. "
          "jax.device_put(x, jax.devices(\"cpu\")[0]), or "
          "memory_kind=\"unpinned_host\" where supported), or return the "
          "result in chunks that fit the pinned pool"});
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewPinnedHostBudgetExceeded() {
  return std::make_unique<PinnedHostBudgetExceeded>();
}

}  // namespace hloff
