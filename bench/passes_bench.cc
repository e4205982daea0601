// Each pass of the default pipeline on its own, on the module as the earlier
// passes leave it (parsing and the earlier passes are not timed).
#include <vector>

#include "bench/bench_input.h"
#include "diag/diagnostic.h"
#include "passes/pass.h"

namespace hloff::bench {
namespace {

void BM_Pass(benchmark::State& state, absl::string_view pass) {
  std::vector<absl::string_view> before;
  for (absl::string_view p : DefaultPipeline()) {
    if (p == pass) break;
    before.push_back(p);
  }
  const PassInfo* info = FindPass(pass);
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Module> module = ParseInput();
    DiagnosticSink sink;
    PassContext context;
    context.diagnostics = &sink;
    context.options.report_all_output_errors = true;
    if (!RunPasses(*module, before, context).ok()) {
      state.SkipWithError("an earlier pass failed");
      break;
    }
    std::unique_ptr<HloPass> run = info->create(context);
    state.ResumeTiming();
    auto changed = run->Run(*module);
    benchmark::DoNotOptimize(changed);
    state.PauseTiming();
    module.reset();
    state.ResumeTiming();
  }
  SetInputBytes(state);
}
BENCHMARK_CAPTURE(BM_Pass, convert_memory_placement,
                  "convert-memory-placement-to-internal-annotations")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pass, host_offload_legalize, "host-offload-legalize")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Pass, host_offloader, "host-offloader")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloff::bench

HLOFF_BENCHMARK_MAIN();
