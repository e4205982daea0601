// Which codes a run reports (diag/code_selection.h): --disable / --enable
// lists, prefixes, and the codes that are always reported.
#include "diag/code_selection.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hloff {
namespace {

std::vector<std::string> Strings(const std::vector<DiagCode>& codes) {
  std::vector<std::string> out;
  for (DiagCode code : codes) out.emplace_back(DiagCodeString(code));
  return out;
}

TEST(CodeSelectionTest, ReportsEverythingByDefault) {
  CodeSelection codes;
  EXPECT_TRUE(codes.ReportsAll());
  for (DiagCode code : AllDiagCodes()) EXPECT_TRUE(codes.Reports(code));
}

TEST(CodeSelectionTest, OnlyWarningsAndLintsCanBeDisabled) {
  EXPECT_TRUE(CanBeDisabled(DiagCode::kHO2001));
  EXPECT_TRUE(CanBeDisabled(DiagCode::kHO3002));  // an error-level lint
  EXPECT_TRUE(CanBeDisabled(DiagCode::kHO3005));
  EXPECT_FALSE(CanBeDisabled(DiagCode::kE1200));
  EXPECT_FALSE(CanBeDisabled(DiagCode::kHO0001));
  EXPECT_FALSE(CanBeDisabled(DiagCode::kHO1001));
  EXPECT_FALSE(CanBeDisabled(DiagCode::kHO9002));
}

TEST(CodeSelectionTest, DisableDropsAndEnableRestricts) {
  CodeSelection codes;
  codes.disabled = {DiagCode::kHO3005};
  EXPECT_FALSE(codes.Reports(DiagCode::kHO3005));
  EXPECT_TRUE(codes.Reports(DiagCode::kHO3014));
  codes.disabled.clear();
  codes.enabled = {DiagCode::kHO3014};
  EXPECT_TRUE(codes.Reports(DiagCode::kHO3014));
  EXPECT_FALSE(codes.Reports(DiagCode::kHO3005));
  EXPECT_FALSE(codes.Reports(DiagCode::kHO2001));
  // Errors XLA raises are reported whatever is enabled.
  EXPECT_TRUE(codes.Reports(DiagCode::kE1200));
  EXPECT_TRUE(codes.Reports(DiagCode::kHO9002));
}

TEST(CodeSelectionTest, ParsesCodesAndPrefixesOnceInOrder) {
  auto codes = ParseCodeList("--disable", {"ho3014, HO3005", "HO3014,"},
                             CodeListUse::kDisable);
  ASSERT_TRUE(codes.ok()) << codes.status();
  EXPECT_EQ(Strings(*codes), (std::vector<std::string>{"HO3014", "HO3005"}));
  auto family = ParseCodeList("--disable", {"HO200"}, CodeListUse::kDisable);
  ASSERT_TRUE(family.ok()) << family.status();
  EXPECT_EQ(Strings(*family),
            (std::vector<std::string>{"HO2001", "HO2002", "HO2003"}));
}

TEST(CodeSelectionTest, UnknownCodesListTheValidOnes) {
  auto codes = ParseCodeList("ignore", {"HO3999"}, CodeListUse::kDisable);
  ASSERT_FALSE(codes.ok());
  EXPECT_EQ(codes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(codes.status().message().find("ignore: unknown diagnostic code 'HO3999'"),
            absl::string_view::npos);
  EXPECT_NE(codes.status().message().find("HO2001, HO2002"), absl::string_view::npos);
  EXPECT_FALSE(ParseCodeList("--enable", {","}, CodeListUse::kEnable).ok());
}

TEST(CodeSelectionTest, ErrorsXlaRaisesCannotBeDisabled) {
  for (const char* name : {"E1200", "1200", "HO1001", "HO0001", "HO9", "HO"}) {
    auto codes = ParseCodeList("--disable", {name}, CodeListUse::kDisable);
    ASSERT_FALSE(codes.ok()) << name;
    EXPECT_NE(codes.status().message().find("cannot be disabled"),
              absl::string_view::npos)
        << codes.status();
  }
  // Enabling one is allowed: it is reported anyway.
  auto enabled = ParseCodeList("--enable", {"E1200"}, CodeListUse::kEnable);
  ASSERT_TRUE(enabled.ok()) << enabled.status();
}

}  // namespace
}  // namespace hloff
