// The flags of the hlo-offload command line: each flag that several
// subcommands share, declared once, and the library's options for what the
// flags say (tool/flags.h).
#include "tool/flags.h"

#include <cstdlib>
#include <ostream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "diag/code_selection.h"
#include "pipeline/choices.h"
#include "pipeline/xla_versions.h"
#include "tool/arguments.h"

namespace hloff {
namespace tool {
namespace {

// The codes --disable and --enable select; INVALID_ARGUMENT for a code
// that is unknown or cannot be disabled.
absl::StatusOr<CodeSelection> CodesFrom(const Flags& flags) {
  CodeSelection codes;
  if (!flags.disable_codes.empty()) {
    auto disabled =
        ParseCodeList("--disable", flags.disable_codes, CodeListUse::kDisable);
    if (!disabled.ok()) return disabled.status();
    codes.disabled = *std::move(disabled);
  }
  if (!flags.enable_codes.empty()) {
    auto enabled =
        ParseCodeList("--enable", flags.enable_codes, CodeListUse::kEnable);
    if (!enabled.ok()) return enabled.status();
    codes.enabled = *std::move(enabled);
  }
  return codes;
}

// --trace: a flag, so that `--trace FILE...` never takes a file for the
// level; `--trace=N` sets it.
void AddTraceFlag(CLI::App* app, Flags& flags) {
  app->add_flag("--trace", flags.trace_level,
                "print the offloader's trace to standard error, as XLA's "
                "--vmodule=host_offloader=N (--trace=N; 1: walks and "
                "mutations, 2: memory-space assignments, 3+: every visited "
                "node)")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            int level = 0;
            if (value == "true") return "";  // the bare flag: level 1
            if (absl::SimpleAtoi(value, &level) && level >= 0) return "";
            return "the trace level is a whole number, 0 or more (got '" +
                   value + "')";
          },
          ""));
}

// XLA's offloading options as flags (OffloadOptions).
void AddXlaOffloadingFlags(CLI::App* app, OffloadOptions& offload,
                           bool as_for_check) {
  app->add_flag("--disable-automatic-host-compute-offload",
                offload.disable_automatic_host_compute_offload,
                as_for_check
                    ? "as for check (xla_disable_automatic_host_compute_offload)"
                    : "fail instead of converting device compute on host data "
                      "into host compute (xla_disable_automatic_host_compute_offload)");
  app->add_flag(
      "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
      offload.allow_h2h_copy_when_automatic_host_compute_offload_disabled,
      as_for_check ? "as for check"
                   : "exempt same-shape host copies from the flag above "
                     "(xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled)");
  app->add_flag("--fix-entry-layout-unless-customized",
                offload.fix_entry_layout_unless_customized,
                as_for_check ? "as for check (XLA V4's entry-layout auto-fix)"
                             : "XLA V4 behaviour: set a non-customized entry "
                               "output layout to host memory instead of "
                               "raising E1200");
}

}  // namespace

void AddSplitInputFlag(CLI::App* app, Flags& flags) {
  app->add_flag("--split-input-file", flags.split_input_file,
                "treat lines '// -----' as module separators");
}

void AddNoLintsFlag(CLI::App* app, Flags& flags) {
  app->add_flag("--no-lints", flags.no_lints,
                "report only what XLA's passes report (no HO3xxx lints)");
}

void AddCodeFlags(CLI::App* app, Flags& flags) {
  app->add_option("--disable", flags.disable_codes,
                  "drop the diagnostics of these codes (comma-separated; a "
                  "prefix such as HO300 names every code it starts); only "
                  "HO2xxx and HO3xxx can be disabled: errors XLA raises, "
                  "input errors (HO0xxx) and HO9xxx are always reported")
      ->type_name("CODE[,CODE...]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app->add_option("--enable", flags.enable_codes,
                  "report only these codes among HO2xxx and HO3xxx (comma-"
                  "separated codes or prefixes); errors are always reported")
      ->type_name("CODE[,CODE...]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void AddOutputFlag(CLI::App* app, Flags& flags, const std::string& description) {
  app->add_option("-o,--output", flags.output, description);
}

void AddInputs(CLI::App* app, Flags& flags, const std::string& description,
               bool one) {
  CLI::Option* option = app->add_option("FILE", flags.inputs, description)->required();
  if (one) option->expected(1);
}

void AddOffloadFlags(CLI::App* app, Flags& flags, bool as_for_check) {
  app->add_option("--pipeline", flags.pipeline,
                  as_for_check
                      ? "as for check: xla (default) or offload"
                      : "xla (default): XLA's GPU order up to the offloader, "
                        "with the passes before it that change what it sees; "
                        "offload: the three offloading passes alone")
      ->check(CLI::IsMember(PassPipelineNames()));
  app->add_option("--backend", flags.backend,
                  as_for_check
                      ? "as for check: tpu, gpu or any (default)"
                      : "the backend the module is compiled for: tpu, gpu "
                        "(cuda, rocm) or any (default: lints about one "
                        "backend's compiler, such as HO3005 for the GPU, are "
                        "reported)")
      ->check(CLI::IsMember(TargetBackendNames()));
  app->add_option("--xla-version", flags.xla_version,
                  as_for_check
                      ? "as for check: the XLA whose verdicts to reproduce"
                      : "the XLA whose verdicts to reproduce where versions "
                        "differ, PACKAGE-VERSION[,...] (default: "
                        "$HLO_OFFLOAD_XLA_VERSION, else the newest known; "
                        "another version gets the newest semantics and a "
                        "note). Known:\n" +
                            KnownXlaVersionsHelp())
      ->type_name("PKG-VER[,...]");
  AddXlaOffloadingFlags(app, flags.offload, as_for_check);
  if (as_for_check) return;
  AddTraceFlag(app, flags);
}

PipelineOptions OptionsFrom(const Flags& flags) {
  PipelineOptions options;
  options.split_input = flags.split_input_file;
  for (absl::string_view p : absl::StrSplit(flags.passes, ',', absl::SkipEmpty())) {
    options.passes.emplace_back(p);
  }
  options.pipeline =
      ParsePassPipeline(flags.pipeline).value_or(PassPipeline::kXla);
  options.lints = !flags.no_lints;
  options.lint.backend =
      ParseTargetBackend(flags.backend).value_or(TargetBackend::kAny);
  options.offload = flags.offload;
  options.trace_level = flags.trace_level;
  options.report_max_nodes = flags.max_nodes;
  return options;
}

std::variant<PipelineOptions, int> OptionsWithCodes(const Flags& flags,
                                                    std::ostream& err) {
  PipelineOptions options = OptionsFrom(flags);
  auto codes = CodesFrom(flags);
  if (!codes.ok()) return UsageError(err, codes.status().message());
  options.codes = *std::move(codes);
  // Without the flag, $HLO_OFFLOAD_XLA_VERSION (the Python package's console
  // command sets it to the installed libtpu and CUDA plugin).
  std::string spec = flags.xla_version;
  const char* env = std::getenv("HLO_OFFLOAD_XLA_VERSION");
  if (spec.empty() && env != nullptr) spec = env;
  auto xla = XlaSemantics::Parse(spec);
  if (!xla.ok()) {
    return UsageError(err, absl::StrCat(flags.xla_version.empty()
                                            ? "$HLO_OFFLOAD_XLA_VERSION: "
                                            : "--xla-version: ",
                                        xla.status().message()));
  }
  for (const std::string& note : xla->notes()) {
    err << "hlo-offload: note: " << note << "\n";
  }
  options.xla = *std::move(xla);
  return options;
}

}  // namespace tool
}  // namespace hloff
