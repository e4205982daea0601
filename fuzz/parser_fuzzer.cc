// libFuzzer target for the HLO text parser (text/parser.cc), the part of
// hlo-offload that reads untrusted bytes. Beyond "no crash, no leak, no
// undefined behaviour", it checks the round trip `fmt` promises (docs/CLI.md):
// whatever parses prints as text that parses again, and printing that is a
// fixed point. The round trip goes through the library flow of `fmt`
// (pipeline/pipeline.h), as the command line runs it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "pipeline/pipeline.h"
#include "text/parser.h"

namespace {

// Reports a broken promise with both texts and aborts, which libFuzzer
// records as a crash with the input that caused it.
[[noreturn]] void Fail(absl::string_view what, absl::string_view detail) {
  std::fprintf(stderr, "parser_fuzzer: %.*s\n%.*s\n",
               static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  // A shape is one line of text at most.
  (void)hloff::ParseShape(text.substr(0, text.find('\n')));
  hloff::PipelineOptions options;
  options.path = "fuzz.hlo";
  hloff::PipelineResult formatted =
      hloff::RunPipeline(hloff::Command::kFmt, text, options);
  if (formatted.exit_status != hloff::kExitOk) return 0;
  std::string printed = hloff::PrintedModules(formatted);
  options.path = "printed.hlo";
  hloff::PipelineResult again =
      hloff::RunPipeline(hloff::Command::kFmt, printed, options);
  if (again.exit_status != hloff::kExitOk) {
    Fail("the printed module does not parse",
         hloff::RenderDiagnostics(again, hloff::DiagnosticFormat::kText) + "\n" +
             printed);
  }
  std::string reprinted = hloff::PrintedModules(again);
  if (reprinted != printed) {
    Fail("fmt is not a fixed point", printed + "\n---- then ----\n" + reprinted);
  }
  return 0;
}
