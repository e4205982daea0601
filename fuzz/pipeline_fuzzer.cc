// libFuzzer target for everything hlo-offload does with a module, through
// the same library flow as the command line (pipeline/pipeline.h): the
// input is split as --split-input-file splits it and checked with the
// default pipeline and the lints, the levelled trace on; every renderer
// (text, XLA, JSON, SARIF) runs on the result; the module the pipeline
// produced must parse again once printed (what `opt` writes to disk); and
// both E1200 fixes run, whose printed output must parse again too.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "pipeline/pipeline.h"
#include "text/parser.h"
#include "text/printer.h"

namespace {

// Reports a broken promise and aborts, which libFuzzer records as a crash.
[[noreturn]] void Fail(absl::string_view what, absl::string_view detail) {
  std::fprintf(stderr, "pipeline_fuzzer: %.*s\n%.*s\n",
               static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Printed output of a pass pipeline or a fix must be readable again.
void CheckReparses(absl::string_view printed, absl::string_view stage) {
  if (auto s = hloff::CheckReadsBack(printed); !s.ok()) {
    Fail(std::string(stage) + ": the printed module does not parse",
         std::string(s.message()) + "\n" + std::string(printed));
  }
}

void RenderAll(const hloff::PipelineResult& result) {
  for (hloff::DiagnosticFormat format :
       {hloff::DiagnosticFormat::kText, hloff::DiagnosticFormat::kXla,
        hloff::DiagnosticFormat::kJson, hloff::DiagnosticFormat::kSarif}) {
    (void)hloff::RenderDiagnostics(result, format);
  }
  (void)hloff::RenderJson(result);
  (void)hloff::RenderSarif(result);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  // The pass options come from the input's length, so that the input stays
  // plain HLO text and every option combination is reached.
  uint8_t flags = static_cast<uint8_t>(size % 8);
  hloff::PipelineOptions options;
  options.path = "fuzz.hlo";
  options.split_input = true;
  options.offload.disable_automatic_host_compute_offload = flags & 1;
  options.offload.allow_h2h_copy_when_automatic_host_compute_offload_disabled =
      flags & 2;
  options.offload.fix_entry_layout_unless_customized = flags & 4;
  options.trace_level = 3;
  hloff::PipelineResult checked =
      hloff::RunPipeline(hloff::Command::kCheck, text, options);
  RenderAll(checked);
  bool any_fault = false;
  for (const hloff::ModuleResult& module : checked.modules) {
    if (module.module != nullptr) {
      CheckReparses(hloff::ModuleToString(*module.module), "pipeline");
    }
    for (const hloff::Diagnostic& d : module.diagnostics) {
      any_fault |= d.code == hloff::DiagCode::kE1200 && d.output_index.has_value();
    }
  }
  // What `hlo-offload fix` does, by either strategy.
  if (!any_fault) return 0;
  for (hloff::FixStrategy strategy : {hloff::FixStrategy::kHostOutput,
                                      hloff::FixStrategy::kMoveToDevice}) {
    options.fix_strategy = strategy;
    options.trace_level = 0;
    hloff::PipelineResult fixed =
        hloff::RunPipeline(hloff::Command::kFix, text, options);
    RenderAll(fixed);
    for (const hloff::ModuleResult& module : fixed.modules) {
      if (!module.failed && !module.parse_failed) CheckReparses(module.printed, "fix");
    }
  }
  return 0;
}
