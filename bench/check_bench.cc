// The whole `hlo-offload check` of one file through the library flow the
// command line calls (pipeline/pipeline.h): map the file, parse (on every
// core, as the command line does for one file), run the pipeline and the
// lints, render the diagnostics as text (output discarded).
#include <algorithm>
#include <string>
#include <thread>

#include "bench/bench_input.h"
#include "pipeline/pipeline.h"

namespace hloff::bench {
namespace {

std::string& InputPath() {
  static auto* path = new std::string();
  return *path;
}

void BM_Check(benchmark::State& state) {
  PipelineOptions options;
  options.parse_threads =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.keep_modules = false;
  for (auto _ : state) {
    PipelineResult result = RunPipelineOnFile(Command::kCheck, InputPath(), options);
    if (result.exit_status == kExitUsage) {
      state.SkipWithError("check failed to read or parse the input");
      break;
    }
    std::string rendered = RenderDiagnostics(result, DiagnosticFormat::kText);
    benchmark::DoNotOptimize(rendered);
  }
  SetInputBytes(state);
}
BENCHMARK(BM_Check)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloff::bench

int main(int argc, char** argv) {
  // The path is needed as text: find it as Main does.
  std::string path;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--input=", 8) == 0) path = argv[i] + 8;
  }
  if (path.empty() && std::getenv("HLOFF_BENCH_INPUT") != nullptr) {
    path = std::getenv("HLOFF_BENCH_INPUT");
  }
  if (path.empty()) path = HLOFF_DEFAULT_BENCH_INPUT;
  hloff::bench::InputPath() = path;
  return hloff::bench::Main(argc, argv);
}
