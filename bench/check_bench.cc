// The whole `hlo-offload check`: map the file, parse, run the pipeline,
// render the diagnostics (output discarded).
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_input.h"
#include "tool/driver.h"

namespace hloff::bench {
namespace {

std::string& InputPath() {
  static auto* path = new std::string();
  return *path;
}

void BM_Check(benchmark::State& state) {
  const std::vector<std::string> args = {"hlo-offload", "check", InputPath()};
  for (auto _ : state) {
    std::ostringstream out, err;
    int status = RunTool(args, out, err);
    if (status == 2) {
      state.SkipWithError("check failed to read or parse the input");
      break;
    }
    benchmark::DoNotOptimize(status);
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
