// The named choices of pipeline/choices.h as Python enums, one member per
// name that is not an alias (Backend has TPU, GPU and ANY; "cuda" and
// "rocm" parse to GPU), named by its spelling in upper case with `_` for
// `-` (FixStrategy.HOST_OUTPUT is "host-output"). Each enum has `spelling`
// (the name the command line takes), `parse(name)` (the member a name, an
// alias included, stands for; None for an unknown name) and `names()`
// (every name it takes, in the order of the help). The memory kinds of JAX
// (MemoryKind, valued by the memory space of a layout, S(n)) and the range
// of report's --max-nodes live here too.
// The Python package derives its lists of names from these.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "core/bindings.h"
#include "ir/shape.h"
#include "pipeline/choices.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

// The enum member of a spelling: "host-output" -> HOST_OUTPUT.
std::string MemberName(absl::string_view spelling) {
  return absl::AsciiStrToUpper(absl::StrReplaceAll(spelling, {{"-", "_"}}));
}

// The enum `name` of `choice`, with its spelling, parse and names.
template <typename T>
void BindChoice(nb::module_& m, const char* name, const char* doc, Choice<T> choice) {
  nb::enum_<T> e(m, name, doc);
  for (const std::string& spelling : choice.Canonical()) {
    e.value(MemberName(spelling).c_str(), *choice.parse(spelling));
  }
  e.def_prop_ro(
      "spelling", [choice](T value) { return choice.Spelling(value); },
      "The name the command line and the package take for it.");
  e.def_static(
      "parse", [choice](const std::string& text) { return choice.parse(text); }, "name"_a,
      "The member `name` spells (an alias included), or None.");
  e.def_static(
      "names", [choice] { return choice.names(); },
      "Every name the choice takes, aliases included, in the order of the help.");
}

// JAX's memory kinds, valued by the memory space of a layout (S(n)) they
// are placed in (xla/pjrt/utils.cc, GetMemorySpaceColor).
enum class MemoryKind : int64_t {
  kDevice = kDefaultMemorySpace,
  kPinnedHost = kHostMemorySpace,
  kUnpinnedHost = kUnpinnedHostMemorySpace,
};

struct NamedMemoryKind {
  absl::string_view name;
  MemoryKind kind;
};

constexpr NamedMemoryKind kMemoryKinds[] = {
    {"device", MemoryKind::kDevice},
    {"pinned_host", MemoryKind::kPinnedHost},
    {"unpinned_host", MemoryKind::kUnpinnedHost},
};

}  // namespace

void BindChoices(nb::module_& m) {
  BindChoice(m, "Pipeline",
             "The passes run when none are named (--pipeline): XLA's compile order up to "
             "the offloader, or the three offloading passes alone.",
             kPipelineChoice);
  BindChoice(m, "DiagnosticFormat",
             "How check writes its diagnostics (--format of check).",
             kDiagnosticFormatChoice);
  BindChoice(m, "ReportFormat", "How report writes the report (--format of report).",
             kReportFormatChoice);
  BindChoice(m, "FixStrategy",
             "How fix makes an E1200 go away (--strategy): the output in host memory, "
             "or the value moved back to device memory before it is returned.",
             kFixStrategyChoice);
  BindChoice(m, "Backend",
             "The backend compiled for (--backend); cuda and rocm, JAX's platform "
             "names, are the GPU.",
             kBackendChoice);

  nb::enum_<MemoryKind> kinds(
      m, "MemoryKind",
      "JAX's memory kinds, valued by the memory space of a layout (S(n)) they are "
      "placed in: device 0, pinned_host 5, unpinned_host 6.");
  for (const NamedMemoryKind& kind : kMemoryKinds) {
    kinds.value(MemberName(kind.name).c_str(), kind.kind);
  }
  kinds.def_prop_ro(
      "spelling",
      [](MemoryKind kind) {
        for (const NamedMemoryKind& named : kMemoryKinds) {
          if (named.kind == kind) return std::string(named.name);
        }
        return std::string();
      },
      "The memory kind as JAX names it ('pinned_host').");

  m.def(
      "max_nodes_range",
      [] { return std::make_tuple(kMinReportMaxNodes, kMaxReportMaxNodes); },
      "(least, most) of report's --max-nodes, the most path instructions the picture "
      "draws (pipeline/choices.h).");
}

}  // namespace python
}  // namespace hloff
