// The IR verifier (ir/verifier.h): the one set of structural rules that the
// parser checks once names are resolved and the pass manager checks after
// every pass.
#include "ir/verifier.h"

#include <gtest/gtest.h>

#include <string>

#include "text/parser.h"

namespace hloff {
namespace {

std::unique_ptr<Module> Parse(absl::string_view text) {
  auto module = ParseHloModule(text, ParseOptions{"v.hlo", 0});
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

constexpr absl::string_view kModule =
    "HloModule m\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
    "  n = f32[4]{0} negate(p)\n  ROOT t = (f32[4]{0}, f32[4]{0}) tuple(p, n)\n}\n";

TEST(VerifierTest, AParsedModuleKeepsEveryRule) {
  std::unique_ptr<Module> module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(VerifyModule(*module).ok());
  for (const Instruction* instr : module->entry()->instructions()) {
    EXPECT_FALSE(VerifyInstruction(*instr).has_value()) << instr->name();
  }
}

TEST(VerifierTest, TheEntryRootMustMatchTheLayout) {
  std::unique_ptr<Module> module = Parse(kModule);
  ASSERT_NE(module, nullptr);
  // What a pass that rewrote the layout without the root would leave.
  module->entry_computation_layout().result =
      module->entry_computation_layout().result.tuple_shapes[0];
  VerifierError error;
  absl::Status status = VerifyModule(*module, &error);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(error.instruction, module->entry()->root());
  EXPECT_EQ(std::string(status.message()),
            "the entry root 't' has shape (f32[4]{0}, f32[4]{0}) but "
            "entry_computation_layout says f32[4]{0}");
  EXPECT_EQ(error.message, status.message());
}

TEST(VerifierTest, TheParserReportsAVerifierErrorWhereItPoints) {
  // An operand count points at the opcode; other rules at the name.
  auto count = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
      "  ROOT a = f32[4]{0} add(p)\n}\n",
      ParseOptions{"v.hlo", 0});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message().rfind(
                "v.hlo:4:22: error: add expects 2 operands, got 1", 0),
            0u)
      << count.status();
  auto index = ParseHloModule(
      "HloModule m\nENTRY e {\n  p = (f32[4]{0}) parameter(0)\n"
      "  ROOT g = f32[4]{0} get-tuple-element(p), index=3\n}\n",
      ParseOptions{"v.hlo", 0});
  ASSERT_FALSE(index.ok());
  EXPECT_EQ(index.status().message().rfind(
                "v.hlo:4:8: error: 'g': index 3 is out of range for operand "
                "shape (f32[4]{0})",
                0),
            0u)
      << index.status();
}

}  // namespace
}  // namespace hloff
