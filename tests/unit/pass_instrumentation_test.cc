// The pass runner's hooks (passes/pass.h): RunPasses shows the module to a
// PassInstrumentation before and after each pass, and after the one that
// fails, as MLIR's PassInstrumentation.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/pass.h"
#include "text/parser.h"

namespace hloff {
namespace {

// Records each hook as "before:PASS", "after:PASS" or "failed:PASS", with
// whether a MoveToHost was in the module at that moment.
class Recorder : public PassInstrumentation {
 public:
  void RunBeforePass(absl::string_view pass, Module& module) override {
    Record("before", pass, module);
  }
  void RunAfterPass(absl::string_view pass, Module& module) override {
    Record("after", pass, module);
  }
  void RunAfterPassFailed(absl::string_view pass, Module& module) override {
    Record("failed", pass, module);
  }

  std::vector<std::string> events;

 private:
  void Record(absl::string_view hook, absl::string_view pass,
              const Module& module) {
    bool annotated = false;
    for (const Instruction* instr : module.entry()->instructions()) {
      annotated |= instr->IsCustomCall("MoveToHost");
    }
    events.push_back(absl::StrCat(hook, ":", pass, annotated ? " (annotated)" : ""));
  }
};

std::unique_ptr<Module> Parse(absl::string_view text) {
  auto module = ParseHloModule(text, ParseOptions{"i.hlo", 0});
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

// A value moved to host and back: the offloader accepts it.
constexpr absl::string_view kRoundTrip = R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="MoveToHost"
  ROOT d = f32[4]{0} custom-call(h), custom_call_target="MoveToDevice"
}
)";

// A value moved to host and returned in device memory: E1200.
constexpr absl::string_view kReturnedOnHost = R"(HloModule m, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, f32[4]{0})}

ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  h = f32[4]{0} custom-call(n), custom_call_target="MoveToHost"
  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(h, p)
}
)";

TEST(PassInstrumentationTest, EveryPassIsSeenBeforeAndAfter) {
  std::unique_ptr<Module> module = Parse(kRoundTrip);
  ASSERT_NE(module, nullptr);
  Recorder recorder;
  DiagnosticSink sink;
  PassContext context;
  context.diagnostics = &sink;
  auto changed = RunPasses(*module, DefaultPipeline(), context, &recorder);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_EQ(recorder.events,
            (std::vector<std::string>{
                "before:convert-memory-placement-to-internal-annotations (annotated)",
                "after:convert-memory-placement-to-internal-annotations (annotated)",
                "before:host-offload-legalize (annotated)",
                "after:host-offload-legalize (annotated)",
                // The offloader's input still has its annotations; its
                // output has none.
                "before:host-offloader (annotated)",
                "after:host-offloader",
            }));
}

TEST(PassInstrumentationTest, AFailingPassIsTheLastOneSeen) {
  std::unique_ptr<Module> module = Parse(kReturnedOnHost);
  ASSERT_NE(module, nullptr);
  Recorder recorder;
  DiagnosticSink sink;
  PassContext context;
  context.diagnostics = &sink;
  std::vector<absl::string_view> passes = DefaultPipeline();
  passes.push_back("dce");
  auto changed = RunPasses(*module, passes, context, &recorder);
  ASSERT_FALSE(changed.ok());
  ASSERT_FALSE(recorder.events.empty());
  EXPECT_EQ(recorder.events.back(), "failed:host-offloader (annotated)");
  EXPECT_EQ(recorder.events[recorder.events.size() - 2],
            "before:host-offloader (annotated)");
  ASSERT_FALSE(sink.diagnostics().empty());
  EXPECT_EQ(sink.diagnostics().front().code, DiagCode::kE1200);
}

TEST(PassInstrumentationTest, AnUnknownPassRunsNoHook) {
  std::unique_ptr<Module> module = Parse(kRoundTrip);
  ASSERT_NE(module, nullptr);
  Recorder recorder;
  PassContext context;
  auto changed = RunPasses(*module, {"no-such-pass"}, context, &recorder);
  EXPECT_FALSE(changed.ok());
  EXPECT_TRUE(recorder.events.empty());
}

TEST(PassInstrumentationTest, WithoutInstrumentationNothingChanges) {
  std::unique_ptr<Module> with = Parse(kRoundTrip);
  std::unique_ptr<Module> without = Parse(kRoundTrip);
  ASSERT_NE(with, nullptr);
  ASSERT_NE(without, nullptr);
  Recorder recorder;
  PassContext context;
  ASSERT_TRUE(RunPasses(*with, XlaPipeline(), context, &recorder).ok());
  ASSERT_TRUE(RunPasses(*without, XlaPipeline(), context).ok());
  EXPECT_EQ(recorder.events.size(), 2 * XlaPipeline().size());
  EXPECT_EQ(with->entry()->instructions().size(),
            without->entry()->instructions().size());
}

}  // namespace
}  // namespace hloff
