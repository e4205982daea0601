// SetEntryMemorySpaces (pipeline/entry_memory_spaces.h): JAX's memory kinds
// written into a converted module's entry computation layout, as PJRT
// applies them.
#include "pipeline/entry_memory_spaces.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace hloff {
namespace {

TEST(EntryMemorySpacesTest, SetsEachParameterAndOutput) {
  const std::string head =
      "HloModule m, entry_computation_layout={(f32[]{}, token[], "
      "s32[2,3]{0,1:T(2,128)}, /*index=3*/f32[4]{0:S(5)})->(f32[], (f32[1]{0}), "
      "pred[2]{0})}, frontend_attributes={a=\"{(}\"}\n\nENTRY e {}\n";
  auto out = SetEntryMemorySpaces(head, {5, 0, 6, 0}, {5, 0, 0}, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "HloModule m, entry_computation_layout={(f32[]{:S(5)}, token[], "
            "s32[2,3]{0,1:T(2,128)S(6)}, f32[4]{0})->(f32[]{:S(5)}, (f32[1]{0}), "
            "pred[2]{0})}, frontend_attributes={a=\"{(}\"}\n\nENTRY e {}\n");
  auto layout = EntryLayoutText(*out);
  ASSERT_TRUE(layout.ok());
  EXPECT_TRUE(absl::StartsWith(*layout, "{(f32[]{:S(5)}, ")) << *layout;
  EXPECT_TRUE(absl::EndsWith(*layout, "pred[2]{0})}")) << *layout;
}

TEST(EntryMemorySpacesTest, DefaultLayoutAndTupledArguments) {
  auto out = SetEntryMemorySpaces(
      "HloModule m, entry_computation_layout={(f32[2,3])->f32[2,3]}", {5}, {0}, false);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, "HloModule m, entry_computation_layout={(f32[2,3]{1,0:S(5)})->f32[2,3]}");
  out = SetEntryMemorySpaces(
      "HloModule m, entry_computation_layout={((f32[2]{0}, f32[3]{0}))->f32[3]{0}}",
      {5, 0}, {0}, true);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "HloModule m, entry_computation_layout={((f32[2]{0:S(5)}, f32[3]{0}))->f32[3]{0}}");
}

TEST(EntryMemorySpacesTest, RefusesWhatCannotTakeThem) {
  auto message = [](absl::StatusOr<std::string> out) {
    return out.ok() ? std::string("ok") : std::string(out.status().message());
  };
  EXPECT_TRUE(absl::StrContains(
      message(SetEntryMemorySpaces(
          "HloModule m, entry_computation_layout={(f32[])->(f32[], (f32[1]{0}))}", {0},
          {0, 5}, false)),
      "non-array"));
  EXPECT_TRUE(absl::StrContains(
      message(SetEntryMemorySpaces(
          "HloModule m, entry_computation_layout={(f32[], f32[], f32[])->f32[]}", {0}, {0},
          false)),
      "3 arguments but the module's main function has 1"));
  EXPECT_TRUE(absl::StrContains(message(SetEntryMemorySpaces("HloModule m\n", {}, {}, false)),
                                "no entry_computation_layout"));
  EXPECT_TRUE(absl::StrContains(message(SetEntryMemorySpaces("module {}", {}, {}, false)),
                                "not an HLO module"));
}

}  // namespace
}  // namespace hloff
