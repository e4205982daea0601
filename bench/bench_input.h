// The input of the benchmark programs: the module named by --input=PATH
// (taken out of argv before Google Benchmark sees it), else by
// $HLOFF_BENCH_INPUT, else the bundled example. bench/run.sh passes generated
// modules; CI only builds these programs.
#ifndef HLO_OFFLOAD_BENCH_BENCH_INPUT_H_
#define HLO_OFFLOAD_BENCH_BENCH_INPUT_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "ir/text_buffer.h"
#include "text/parser.h"

namespace hloff::bench {

// The loaded input (set by Main before the benchmarks run).
inline std::shared_ptr<const TextBuffer>& Input() {
  static auto* input = new std::shared_ptr<const TextBuffer>();
  return *input;
}

// A fresh module parsed from the input; aborts on a parse error.
inline std::unique_ptr<Module> ParseInput() {
  auto module = ParseHloModule(Input(), Input()->text(), ParseOptions{"input", 0});
  if (!module.ok()) {
    std::fprintf(stderr, "%s\n", std::string(module.status().message()).c_str());
    std::abort();
  }
  return std::move(*module);
}

// Reports throughput in bytes of input text per second.
inline void SetInputBytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(Input()->text().size()));
}

inline int Main(int argc, char** argv) {
  std::string path;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--input=", 8) == 0) {
      path = argv[i] + 8;
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  if (path.empty() && std::getenv("HLOFF_BENCH_INPUT") != nullptr) {
    path = std::getenv("HLOFF_BENCH_INPUT");
  }
  if (path.empty()) path = HLOFF_DEFAULT_BENCH_INPUT;
  auto buffer = TextBuffer::FromFile(path);
  if (!buffer.ok()) {
    std::fprintf(stderr, "%s\n", std::string(buffer.status().message()).c_str());
    return 2;
  }
  Input() = *buffer;
  benchmark::AddCustomContext("input", path);
  benchmark::AddCustomContext("input_bytes",
                              std::to_string(Input()->text().size()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace hloff::bench

#define HLOFF_BENCHMARK_MAIN() \
  int main(int argc, char** argv) { return hloff::bench::Main(argc, argv); }

#endif  // HLO_OFFLOAD_BENCH_BENCH_INPUT_H_
