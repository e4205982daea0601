// libFuzzer target for everything hlo-offload does with a module it has
// parsed: the input is split as --split-input-file splits it, and each piece
// goes through the default pipeline (convert-memory-placement-to-internal-
// annotations, host-offload-legalize, host-offloader) with the levelled
// trace on, every diagnostic renderer (text, XLA, JSON, SARIF), the printer
// and both E1200 fixes. The printed result of a successful run must parse
// again: that is what `opt` and `fix` write to disk.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "diag/diagnostic.h"
#include "diag/render.h"
#include "passes/offload_fixes.h"
#include "passes/pass.h"
#include "text/parser.h"
#include "text/printer.h"
#include "tool/driver.h"

namespace {

// Reports a broken promise and aborts, which libFuzzer records as a crash.
[[noreturn]] void Fail(absl::string_view what, absl::string_view detail) {
  std::fprintf(stderr, "pipeline_fuzzer: %.*s\n%.*s\n",
               static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Printed output of a pass pipeline or a fix must be readable again.
void CheckReparses(const hloff::Module& module, absl::string_view stage) {
  std::string printed = hloff::ModuleToString(module);
  auto again = hloff::ParseHloModule(printed, {"printed.hlo", 0});
  if (!again.ok()) {
    Fail(std::string(stage) + ": the printed module does not parse",
         std::string(again.status().message()) + "\n" + printed);
  }
}

void Render(const std::vector<hloff::Diagnostic>& diagnostics,
            absl::string_view text) {
  hloff::SourceText source{"fuzz.hlo", text};
  for (const hloff::Diagnostic& d : diagnostics) {
    (void)hloff::RenderText(d, source);
    (void)hloff::RenderXla(d);
    (void)hloff::DumpJson(hloff::DiagnosticToJson(d));
  }
  (void)hloff::DumpJson(hloff::RenderSarif(
      {hloff::FileDiagnostics{"fuzz.hlo", "m", diagnostics}}, "0"));
}

void RunChunk(const hloff::InputChunk& chunk, absl::string_view whole,
              uint8_t flags) {
  hloff::ParseOptions parse_options{"fuzz.hlo", chunk.line_offset};
  auto module = hloff::ParseHloModule(chunk.text, parse_options);
  if (!module.ok()) return;
  hloff::DiagnosticSink sink;
  std::ostringstream trace;
  hloff::PassContext context;
  context.options.disable_automatic_host_compute_offload = flags & 1;
  context.options.allow_h2h_copy_when_automatic_host_compute_offload_disabled =
      flags & 2;
  context.options.fix_entry_layout_unless_customized = flags & 4;
  context.options.report_all_output_errors = true;
  context.diagnostics = &sink;
  context.trace_level = 3;
  context.trace = &trace;
  auto changed =
      hloff::RunPasses(**module, hloff::DefaultPipeline(), context);
  Render(sink.diagnostics(), whole);
  if (changed.ok()) CheckReparses(**module, "pipeline");

  // What `hlo-offload fix` does: apply a strategy to the E1200 outputs of a
  // fresh parse.
  std::vector<hloff::ShapeIndex> outputs;
  for (const hloff::Diagnostic& d : sink.diagnostics()) {
    if (d.code == hloff::DiagCode::kE1200 && d.output_index.has_value()) {
      outputs.push_back(*d.output_index);
    }
  }
  if (outputs.empty()) return;
  for (hloff::FixStrategy strategy : {hloff::FixStrategy::kHostOutput,
                                      hloff::FixStrategy::kMoveToDevice}) {
    auto fresh = hloff::ParseHloModule(chunk.text, parse_options);
    if (!fresh.ok()) Fail("a second parse of the same text failed", chunk.text);
    if (!hloff::ApplyE1200Fix(**fresh, strategy, outputs).ok()) continue;
    CheckReparses(**fresh, "fix");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  // The pass options come from the input's length, so that the input stays
  // plain HLO text and every option combination is reached.
  uint8_t flags = static_cast<uint8_t>(size % 8);
  for (const hloff::InputChunk& chunk : hloff::SplitInput(text, true)) {
    RunChunk(chunk, text, flags);
  }
  return 0;
}
