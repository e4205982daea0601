// The printer: IR to canonical text, whole and in pieces.
#include "bench/bench_input.h"
#include "text/printer.h"

namespace hloff::bench {
namespace {

void BM_PrintToString(benchmark::State& state) {
  std::unique_ptr<Module> module = ParseInput();
  size_t size = 0;
  for (auto _ : state) {
    std::string out = ModuleToString(*module);
    size = out.size();
    benchmark::DoNotOptimize(out);
  }
  SetInputBytes(state);
  state.counters["printed_bytes"] = static_cast<double>(size);
}
BENCHMARK(BM_PrintToString)->Unit(benchmark::kMillisecond);

void BM_PrintInPieces(benchmark::State& state) {
  std::unique_ptr<Module> module = ParseInput();
  for (auto _ : state) {
    size_t size = 0;
    PrintModule(*module, [&](absl::string_view piece) { size += piece.size(); });
    benchmark::DoNotOptimize(size);
  }
  SetInputBytes(state);
}
BENCHMARK(BM_PrintInPieces)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloff::bench

HLOFF_BENCHMARK_MAIN();
