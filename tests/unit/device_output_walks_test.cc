// HostOffloader's walks that reach an entry output in device memory
// (passes/host_offloader.h): XLA rewrites nothing of them; an observer
// (PassContext::device_output_walks, the report's) is shown each and may have
// its rewrite made all the same, as for an output in host memory.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "passes/host_offloader.h"
#include "passes/pass.h"
#include "text/parser.h"
#include "text/printer.h"

namespace hloff {
namespace {

// A value moved to host and returned as entry output {0}, declared in device
// memory (E1200), beside a device output.
constexpr absl::string_view kReturnedOnHost = R"(HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="MoveToHost"
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(h, p)
}
)";

// Counts the walks it is shown; has each rewritten (twice: the second call
// does nothing) when `rewrite` is set.
class Observer : public DeviceOutputWalkObserver {
 public:
  explicit Observer(bool rewrite) : rewrite_(rewrite) {}

  absl::Status Reached(DeviceOutputWalk& walk) override {
    ++walks;
    if (!rewrite_) return absl::OkStatus();
    if (absl::Status s = walk.Rewrite(); !s.ok()) return s;
    return walk.Rewrite();
  }

  int walks = 0;

 private:
  bool rewrite_;
};

struct PassesResult {
  absl::Status status;
  std::string module;  // the module as the passes left it, printed
  int e1200 = 0;
};

// The offloading passes on `text`, every E1200 reported, with `observer`.
PassesResult RunOffloading(absl::string_view text, DeviceOutputWalkObserver* observer,
                  bool report_all_output_errors = true) {
  auto module = ParseHloModule(text, ParseOptions{"i.hlo", 0});
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  DiagnosticSink sink;
  PassContext context;
  context.diagnostics = &sink;
  context.options.report_all_output_errors = report_all_output_errors;
  context.device_output_walks = observer;
  PassesResult run;
  run.status = RunPasses(**module, DefaultPipeline(), context).status();
  run.module = ModuleToString(**module);
  for (const Diagnostic& d : sink.diagnostics()) run.e1200 += d.code == DiagCode::kE1200;
  return run;
}

// The module's text without its first line (the entry layout).
std::string Body(const std::string& printed) {
  return printed.substr(printed.find('\n'));
}

TEST(DeviceOutputWalksTest, WithoutAnObserverTheWalkIsNotRewritten) {
  PassesResult run = RunOffloading(kReturnedOnHost, nullptr);
  EXPECT_FALSE(run.status.ok());
  EXPECT_EQ(run.e1200, 1);
  EXPECT_EQ(run.module.find("S(5)"), std::string::npos) << run.module;
}

TEST(DeviceOutputWalksTest, AnObserverThatDeclinesChangesNothing) {
  Observer observer(/*rewrite=*/false);
  PassesResult run = RunOffloading(kReturnedOnHost, &observer);
  EXPECT_EQ(observer.walks, 1);
  EXPECT_FALSE(run.status.ok());
  EXPECT_EQ(run.e1200, 1);
  EXPECT_EQ(run.module, RunOffloading(kReturnedOnHost, nullptr).module);
}

TEST(DeviceOutputWalksTest, TheRewriteIsTheOneOfAHostOutput) {
  Observer observer(/*rewrite=*/true);
  PassesResult run = RunOffloading(kReturnedOnHost, &observer);
  EXPECT_EQ(observer.walks, 1);
  // The E1200 is reported all the same.
  EXPECT_FALSE(run.status.ok());
  EXPECT_EQ(run.e1200, 1);
  // What the pass makes of the module once output {0} is declared in host
  // memory.
  PassesResult fixed = RunOffloading(
      absl::StrReplaceAll(kReturnedOnHost,
                          {{"->(f32[4]{0}, f32[4]{0})", "->(f32[4]{0:S(5)}, f32[4]{0})"}}),
      nullptr);
  ASSERT_TRUE(fixed.status.ok()) << fixed.status;
  EXPECT_NE(fixed.module.find("S(5)"), std::string::npos) << fixed.module;
  EXPECT_EQ(Body(run.module), Body(fixed.module));
}

TEST(DeviceOutputWalksTest, StoppingAtTheFirstErrorShowsNoWalk) {
  Observer observer(/*rewrite=*/true);
  PassesResult run = RunOffloading(kReturnedOnHost, &observer,
                          /*report_all_output_errors=*/false);
  EXPECT_FALSE(run.status.ok());
  EXPECT_EQ(observer.walks, 0);
}

}  // namespace
}  // namespace hloff
