// The options of run(): OffloadOptions (the passes' options that mirror
// XLA's debug flags), LintOptions and PipelineOptions, bound as they are,
// with the package's defaults. A named choice (the pipeline, the fix
// strategy, the backend) is set by its name and read back as it (its
// spelling in pipeline/choices.h); an unknown name raises ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "core/bindings.h"
#include "diag/code_selection.h"
#include "lints/offload_lints.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "pipeline/choices.h"
#include "pipeline/pipeline.h"
#include "pipeline/xla_versions.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

// PipelineOptions as the package runs the pipeline: the parser may use
// every core, each module's trace is kept for the renderers, modules are
// freed when done and printed into the result.
PipelineOptions PackageOptions() {
  PipelineOptions options;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  options.parse_threads = static_cast<int>(cores);
  options.trace = nullptr;  // kept per module, printed by the renderers
  options.print_to_string = true;
  options.keep_modules = false;
  return options;
}

// The codes ignore= (--disable) and select= (--enable) name, as
// PipelineOptions::codes; ValueError for a code that is unknown or cannot be
// disabled.
CodeSelection SelectCodes(const std::vector<std::string>& ignore,
                          const std::vector<std::string>& select) {
  CodeSelection codes;
  if (!ignore.empty()) {
    auto ignored = ParseCodeList("ignore", ignore, CodeListUse::kDisable);
    if (!ignored.ok()) {
      throw nb::value_error(std::string(ignored.status().message()).c_str());
    }
    codes.disabled = *std::move(ignored);
  }
  if (!select.empty()) {
    auto selected = ParseCodeList("select", select, CodeListUse::kEnable);
    if (!selected.ok()) {
      throw nb::value_error(std::string(selected.status().message()).c_str());
    }
    codes.enabled = *std::move(selected);
  }
  return codes;
}

}  // namespace

void BindOptions(nb::module_& m) {
  nb::class_<OffloadOptions>(
      m, "OffloadOptions",
      "The passes' options that mirror XLA's debug flags (passes/pass.h).")
      .def(nb::init<>())
      .def_rw("disable_automatic_host_compute_offload",
              &OffloadOptions::disable_automatic_host_compute_offload,
              "xla_disable_automatic_host_compute_offload.")
      .def_rw("allow_h2h_copy_when_automatic_host_compute_offload_disabled",
              &OffloadOptions::allow_h2h_copy_when_automatic_host_compute_offload_disabled,
              "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled.")
      .def_rw("fix_entry_layout_unless_customized",
              &OffloadOptions::fix_entry_layout_unless_customized,
              "XLA V4's entry-layout auto-fix.")
      .def_rw("print_annotation_metadata",
              &OffloadOptions::print_annotation_metadata,
              "The annotation conversion prints each annotation's metadata on the "
              "MoveToHost / MoveToDevice it creates (for the partition step).");

  nb::class_<LintOptions>(m, "LintOptions",
                          "The lints' options (lints/offload_lints.h).")
      .def(nb::init<>())
      .def_rw("pinned_host_budget", &LintOptions::pinned_host_budget,
              nb::arg("bytes").none(),
              "HO3012's budget in bytes (--pinned-host-budget); None: not checked.")
      .def_prop_rw(
          "backend",
          [](const LintOptions& o) { return kBackendChoice.Spelling(o.backend); },
          [](LintOptions& o, const std::string& name) {
            o.backend = kBackendChoice.Parse(name);
          },
          "The backend compiled for (--backend): tpu, gpu (cuda, rocm) or any.");

  nb::class_<PipelineOptions>(
      m, "PipelineOptions",
      "The options of run() (pipeline/pipeline.h), bound as they are, with the "
      "package's defaults: the parser may use every core, modules are not kept.")
      .def("__init__",
           [](PipelineOptions* options) { new (options) PipelineOptions(PackageOptions()); })
      .def_rw("path", &PipelineOptions::path, "The name diagnostics show for the input.")
      .def_rw("split_input", &PipelineOptions::split_input, "--split-input-file.")
      .def_rw("parse_threads", &PipelineOptions::parse_threads,
              "Threads the parser may use for one large module.")
      .def_rw("passes", &PipelineOptions::passes,
              "opt's passes (--passes); empty: those of the pipeline.")
      .def_prop_rw(
          "pipeline",
          [](const PipelineOptions& o) { return kPipelineChoice.Spelling(o.pipeline); },
          [](PipelineOptions& o, const std::string& name) {
            o.pipeline = kPipelineChoice.Parse(name);
          },
          "--pipeline: xla or offload.")
      .def_prop_rw(
          "xla_version",
          [](const PipelineOptions& o) { return o.xla.Describe(); },
          [](PipelineOptions& o, const std::string& spec) {
            absl::StatusOr<XlaSemantics> xla = XlaSemantics::Parse(spec);
            if (!xla.ok()) throw nb::value_error(std::string(xla.status().message()).c_str());
            o.xla = *std::move(xla);
          },
          "--xla-version (pipeline/xla_versions.h): set with PACKAGE-VERSION[,...] "
          "('libtpu-0.0.52', '' or 'newest' for the newest known); reads back the "
          "semantics chosen ('libtpu 0.0.52, jax-cuda-plugin 0.11.2'). ValueError for "
          "an unknown package or a malformed version.")
      .def_prop_ro(
          "xla_version_notes", [](const PipelineOptions& o) { return o.xla.notes(); },
          "One line per version given that the table does not know (it got the newest "
          "known semantics).")
      .def_rw("lints", &PipelineOptions::lints, "The HO3xxx lints (--no-lints clears it).")
      .def(
          "select_codes",
          [](PipelineOptions& o, const std::vector<std::string>& ignore,
             const std::vector<std::string>& select) { o.codes = SelectCodes(ignore, select); },
          "ignore"_a, "select"_a,
          "Reports only the codes select= names among those that can be disabled "
          "(--enable; empty: all), less those ignore= names (--disable); codes or "
          "prefixes. ValueError for an unknown code or one that cannot be disabled.")
      .def_rw("offload", &PipelineOptions::offload, "The passes' options.")
      .def_rw("lint", &PipelineOptions::lint, "The lints' options.")
      .def_rw("trace_level", &PipelineOptions::trace_level,
              "The offloader's trace level (--trace=N); 0: none.")
      .def_prop_rw(
          "fix_strategy",
          [](const PipelineOptions& o) {
            return kFixStrategyChoice.Spelling(o.fix_strategy);
          },
          [](PipelineOptions& o, const std::string& name) {
            o.fix_strategy = kFixStrategyChoice.Parse(name);
          },
          "fix's strategy (--strategy): host-output or move-to-device.")
      .def_rw("report_max_nodes", &PipelineOptions::report_max_nodes,
              "report's most path instructions drawn (--max-nodes).")
      .def_rw("keep_modules", &PipelineOptions::keep_modules,
              "Keep each resulting module in the result (opt, fix, fmt).")
      .def_rw("output_paths", &PipelineOptions::output_paths,
              "The pytree path of each flat entry output.")
      .def_rw("input_paths", &PipelineOptions::input_paths,
              "The pytree path of each entry parameter.")
      .def_rw("locate_in_source", &PipelineOptions::locate_in_source,
              "Locate diagnostics in the user's file first (a converted module).")
      .def_prop_rw(
          "checkpoint_names",
          [](const PipelineOptions& o) {
            std::vector<std::tuple<std::string, int64_t, std::string, std::string>> out;
            for (const CheckpointName& n : o.checkpoint_names) {
              out.emplace_back(n.file, n.line, n.op, n.name);
            }
            return out;
          },
          [](PipelineOptions& o,
             const std::vector<std::tuple<std::string, int64_t, std::string,
                                          std::string>>& names) {
            o.checkpoint_names.clear();
            for (const auto& [file, line, op, name] : names) {
              o.checkpoint_names.push_back({file, line, op, name});
            }
          },
          "report: (file, line, primitive, name) of each checkpoint_name the "
          "front end read from the jaxpr (ReportOptions::checkpoint_names).");
}

}  // namespace python
}  // namespace hloff
