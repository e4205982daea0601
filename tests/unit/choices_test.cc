// The named choices (pipeline/choices.h): every listed name parses, nothing
// else does, and the lists keep the order the help prints.
#include "pipeline/choices.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hloff {
namespace {

TEST(ChoicesTest, TheListsAreTheHelpsOrder) {
  EXPECT_EQ(PassPipelineNames(), (std::vector<std::string>{"xla", "offload"}));
  EXPECT_EQ(DiagnosticFormatNames(),
            (std::vector<std::string>{"text", "xla", "json", "sarif"}));
  EXPECT_EQ(ReportFormatNames(),
            (std::vector<std::string>{"text", "json", "dot", "html"}));
  EXPECT_EQ(FixStrategyNames(),
            (std::vector<std::string>{"host-output", "move-to-device"}));
  EXPECT_EQ(TargetBackendNames(),
            (std::vector<std::string>{"tpu", "gpu", "cuda", "rocm", "any"}));
}

TEST(ChoicesTest, EveryListedNameParses) {
  for (const std::string& name : PassPipelineNames()) {
    EXPECT_TRUE(ParsePassPipeline(name).has_value()) << name;
  }
  for (const std::string& name : DiagnosticFormatNames()) {
    EXPECT_TRUE(ParseDiagnosticFormat(name).has_value()) << name;
  }
  for (const std::string& name : ReportFormatNames()) {
    EXPECT_TRUE(ParseReportFormat(name).has_value()) << name;
  }
  for (const std::string& name : FixStrategyNames()) {
    ASSERT_TRUE(ParseFixStrategy(name).has_value()) << name;
    EXPECT_EQ(FixStrategyName(*ParseFixStrategy(name)), name);
  }
  for (const std::string& name : TargetBackendNames()) {
    EXPECT_TRUE(ParseTargetBackend(name).has_value()) << name;
  }
}

TEST(ChoicesTest, NamesMeanWhatTheySay) {
  EXPECT_EQ(ParsePassPipeline("offload"), PassPipeline::kOffload);
  EXPECT_EQ(ParseDiagnosticFormat("sarif"), DiagnosticFormat::kSarif);
  EXPECT_EQ(ParseReportFormat("dot"), ReportFormat::kDot);
  EXPECT_EQ(ParseFixStrategy("move-to-device"), FixStrategy::kMoveToDevice);
  // JAX's platform names are the GPU.
  EXPECT_EQ(ParseTargetBackend("cuda"), TargetBackend::kGpu);
  EXPECT_EQ(ParseTargetBackend("rocm"), TargetBackend::kGpu);
  EXPECT_EQ(ParseTargetBackend("any"), TargetBackend::kAny);
}

TEST(ChoicesTest, AnythingElseIsRefused) {
  for (const char* name : {"", "XLA", "offload ", "html5"}) {
    EXPECT_FALSE(ParsePassPipeline(name).has_value()) << name;
    EXPECT_FALSE(ParseDiagnosticFormat(name).has_value()) << name;
    EXPECT_FALSE(ParseReportFormat(name).has_value()) << name;
    EXPECT_FALSE(ParseFixStrategy(name).has_value()) << name;
    EXPECT_FALSE(ParseTargetBackend(name).has_value()) << name;
  }
  // Each list is its own: report has no xla format, check no dot.
  EXPECT_FALSE(ParseReportFormat("xla").has_value());
  EXPECT_FALSE(ParseDiagnosticFormat("dot").has_value());
}

}  // namespace
}  // namespace hloff
