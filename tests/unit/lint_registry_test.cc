// The lint registry (src/lints/lint_registry.h): one checker per HO30xx lint
// code of diag/codes.def, named for the code, with its page and its file,
// and the order in which the one traversal of a phase appends diagnostics.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "diag/docs.h"
#include "lints/lint_registry.h"
#include "lints/offload_lints.h"
#include "text/parser.h"

namespace hloff {
namespace {

// The HO30xx codes that are lints: HO3003 is retired (its summary says so and
// nothing reports it; docs/errors/HO3003.md).
std::vector<DiagCode> LintCodes() {
  std::vector<DiagCode> codes;
  for (DiagCode code : AllDiagCodes()) {
    if (!absl::StartsWith(DiagCodeString(code), "HO30")) continue;
    if (absl::StartsWith(DiagCodeSummary(code), "retired")) continue;
    codes.push_back(code);
  }
  return codes;
}

// "ComputeOnHostBeforeMoveToDevice" -> "compute-on-host-before-move-to-device"
// (separator '-'), or the snake_case file stem (separator '_').
std::string Split(absl::string_view camel, char separator) {
  std::string out;
  for (char c : camel) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) {
      out.push_back(separator);
    }
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

TEST(LintRegistryTest, EveryLintCodeHasExactlyOneChecker) {
  const std::vector<DiagCode> codes = LintCodes();
  ASSERT_EQ(codes.size(), 16u);  // HO3001..HO3017 less the retired HO3003
  for (DiagCode code : codes) {
    int checkers = 0;
    for (const LintInfo& info : LintRegistry()) checkers += info.code == code;
    EXPECT_EQ(checkers, 1) << DiagCodeString(code);
    const LintInfo* info = FindLint(code);
    ASSERT_NE(info, nullptr) << DiagCodeString(code);
    EXPECT_EQ(info->code, code);
  }
  EXPECT_EQ(LintRegistry().size(), codes.size());
  EXPECT_EQ(FindLint(DiagCode::kHO3003), nullptr);
  EXPECT_EQ(FindLint(DiagCode::kE1200), nullptr);
}

TEST(LintRegistryTest, NamesAreTheCodesNamesUniqueAndSorted) {
  std::set<absl::string_view> names;
  absl::string_view previous;
  for (const LintInfo& info : LintRegistry()) {
    EXPECT_EQ(info.name, Split(DiagCodeName(info.code), '-'))
        << DiagCodeString(info.code);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_LT(previous, info.name);
    previous = info.name;
  }
}

TEST(LintRegistryTest, EachCheckerHasItsPageAndItsFile) {
  const std::filesystem::path source = HLOFF_SOURCE_DIR;
  for (const LintInfo& info : LintRegistry()) {
    const std::string code(DiagCodeString(info.code));
    const std::filesystem::path page = source / "docs" / "errors" / (code + ".md");
    EXPECT_TRUE(std::filesystem::is_regular_file(page)) << page;
    // The page `explain` prints is that file, titled with the code's name.
    EXPECT_TRUE(absl::StartsWith(DiagnosticDocumentation(info.code),
                                 absl::StrCat("# ", code, ": ",
                                              DiagCodeName(info.code), "\n")))
        << code;
    const std::filesystem::path file =
        source / "src" / "lints" / (Split(DiagCodeName(info.code), '_') + ".cc");
    EXPECT_TRUE(std::filesystem::is_regular_file(file)) << file;
  }
}

TEST(LintRegistryTest, PhasesOrdersAndFactories) {
  std::set<int> orders;
  for (const LintInfo& info : LintRegistry()) {
    EXPECT_NE(info.phases, 0) << info.name;
    EXPECT_TRUE(orders.insert(info.order).second) << info.name;
    EXPECT_NE(info.create(), nullptr) << info.name;
  }
  size_t in_phases = 0;
  for (LintPhase phase :
       {LintPhase::kInput, LintPhase::kOutput, LintPhase::kVerdict}) {
    const std::vector<const LintInfo*>& lints = LintsOfPhase(phase);
    for (size_t i = 0; i < lints.size(); ++i) {
      EXPECT_TRUE(lints[i]->RunsIn(phase)) << lints[i]->name;
      if (i > 0) {
        EXPECT_LT(lints[i - 1]->order, lints[i]->order);
      }
      // Nothing is traversed in the verdict phase.
      if (phase == LintPhase::kVerdict) {
        EXPECT_FALSE(lints[i]->create()->Visits(phase, HloOpcode::kCustomCall))
            << lints[i]->name;
      }
    }
    in_phases += lints.size();
  }
  // Every lint runs in some phase (several run in two).
  EXPECT_GE(in_phases, LintRegistry().size());
  ASSERT_EQ(LintsOfPhase(LintPhase::kVerdict).size(), 1u);
  EXPECT_EQ(LintsOfPhase(LintPhase::kVerdict)[0]->code, DiagCode::kHO3016);
}

std::vector<std::string> InputLintCodes(const char* text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  std::vector<Diagnostic> out;
  LintInput(**module, out);
  std::vector<std::string> codes;
  for (const Diagnostic& d : out) codes.emplace_back(DiagCodeString(d.code));
  return codes;
}

// One instruction, two lints: the entry root moves a value to host and its
// one user moves it straight back. HO3014 comes first, as it always has.
TEST(LintRegistryTest, InstructionChecksKeepTheirOrder) {
  EXPECT_EQ(InputLintCodes(R"(HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY main {
  x = f32[4]{0} parameter(0)
  y = f32[4]{0} exponential(x)
  ROOT h = f32[4]{0} custom-call(y), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  d = f32[4]{0} custom-call(h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
}
)"),
            (std::vector<std::string>{"HO3014", "HO3004"}));
}

// What an instruction hook reports comes before the module-level reports,
// and those come in their order: HO3013 (the annotation in a shard_map
// region) before HO3008 (the S(5) on tanh).
TEST(LintRegistryTest, ModuleChecksAppendAfterTheTraversalInOrder) {
  EXPECT_EQ(InputLintCodes(R"(HloModule manual, num_partitions=2, entry_computation_layout={(f32[8,16]{1,0})->f32[16,16]{1,0}}

ENTRY main {
  x = f32[8,16]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}
  x_m = f32[4,16]{1,0} custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
  x_full = f32[8,16]{1,0} all-gather(x_m), channel_id=1, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true, sharding={manual}
  y_h = f32[8,16]{1,0} custom-call(x_full), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, sharding={manual}
  y_d = f32[8,16]{1,0} custom-call(y_h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}, sharding={manual}
  y = f32[8,16]{1,0:S(5)} tanh(y_d), sharding={manual}
  ROOT y_full = f32[16,16]{1,0} custom-call(y), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1]<=[2]}
}
)"),
            (std::vector<std::string>{"HO3014", "HO3013", "HO3008", "HO3017"}));
}

}  // namespace
}  // namespace hloff
