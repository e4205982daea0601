// The lexical layer alone: every token of the input, nothing built.
#include "bench/bench_input.h"
#include "text/lexer.h"

namespace hloff::bench {
namespace {

void BM_Lex(benchmark::State& state) {
  size_t tokens = 0;
  for (auto _ : state) {
    Lexer lexer(Input()->text());
    tokens = 0;
    for (Token t = lexer.Next(); t.kind != TokenKind::kEnd; t = lexer.Next()) {
      ++tokens;
    }
    benchmark::DoNotOptimize(tokens);
  }
  SetInputBytes(state);
  state.counters["tokens"] = static_cast<double>(tokens);
}
BENCHMARK(BM_Lex)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hloff::bench

HLOFF_BENCHMARK_MAIN();
