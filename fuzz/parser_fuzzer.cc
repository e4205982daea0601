// libFuzzer target for the HLO text parser (text/parser.cc), the part of
// hlo-offload that reads untrusted bytes. Beyond "no crash, no leak, no
// undefined behaviour", it checks the round trip `fmt` promises (docs/CLI.md):
// whatever parses prints as text that parses again, and printing that is a
// fixed point.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "text/parser.h"
#include "text/printer.h"

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
  auto module = hloff::ParseHloModule(text, {"fuzz.hlo", 0});
  if (!module.ok()) return 0;
  std::string printed = hloff::ModuleToString(**module);
  auto again = hloff::ParseHloModule(printed, {"printed.hlo", 0});
  if (!again.ok()) {
    Fail("the printed module does not parse",
         std::string(again.status().message()) + "\n" + printed);
  }
  std::string reprinted = hloff::ModuleToString(**again);
  if (reprinted != printed) {
    Fail("fmt is not a fixed point", printed + "\n---- then ----\n" + reprinted);
  }
  return 0;
}
