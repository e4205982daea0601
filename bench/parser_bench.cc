// The parser: text to IR, in place (no copy of the text).
#include "bench/bench_input.h"

namespace hloff::bench {
namespace {

void BM_Parse(benchmark::State& state) {
  int64_t instructions = 0;
  for (auto _ : state) {
    std::unique_ptr<Module> module = ParseInput();
    state.PauseTiming();  // freeing the module is not parsing
    instructions = 0;
    for (const auto& comp : module->computations()) {
      instructions += comp->instruction_count();
    }
    module.reset();
    state.ResumeTiming();
  }
  SetInputBytes(state);
  state.counters["instructions"] = static_cast<double>(instructions);
  state.counters["instructions/s"] = benchmark::Counter(
      static_cast<double>(instructions), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Parse)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloff::bench

HLOFF_BENCHMARK_MAIN();
