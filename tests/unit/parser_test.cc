// Parser, printer and IR tests.
#include <gtest/gtest.h>

#include "ir/hlo.h"
#include "text/parser.h"
#include "text/printer.h"

namespace hloff {
namespace {

constexpr char kModule[] = R"(HloModule m, entry_computation_layout={(f32[8]{0:S(5)})->f32[8]{0}}

ENTRY main {
  p = f32[8]{0} parameter(0)
  ROOT d = f32[8]{0} custom-call(p), custom_call_target="MoveToDevice"
}
)";

TEST(ParserTest, ParsesEntryLayoutMemorySpace) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& layout = (*module)->entry_computation_layout();
  ASSERT_EQ(layout.parameters.size(), 1);
  EXPECT_EQ(layout.parameters[0].memory_space(), kHostMemorySpace);
  EXPECT_EQ(layout.result.memory_space(), kDefaultMemorySpace);
  EXPECT_TRUE(layout.from_header);
}

TEST(ParserTest, RoundTripIsFixedPoint) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  std::string once = ModuleToString(**module);
  EXPECT_EQ(once, kModule);
  auto again = ParseHloModule(once);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ModuleToString(**again), once);
}

TEST(ParserTest, UsersAndRoot) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok());
  Computation* entry = (*module)->entry();
  ASSERT_NE(entry, nullptr);
  Instruction* p = entry->parameter(0);
  ASSERT_EQ(p->user_count(), 1);
  EXPECT_EQ(p->users()[0], entry->root());
  EXPECT_TRUE(entry->root()->IsCustomCall("MoveToDevice"));
}

TEST(ParserTest, ErrorHasLocationAndCaret) {
  auto module = ParseHloModule("HloModule m\n\nENTRY e {\n  x = f32[] frobnicate()\n}\n",
                               ParseOptions{"in.hlo", 0});
  ASSERT_FALSE(module.ok());
  std::string message(module.status().message());
  EXPECT_NE(message.find("in.hlo:4:13: error: unknown opcode 'frobnicate'"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("^"), std::string::npos);
}

TEST(ShapeTest, PrintsTiledHostLayout) {
  auto shape = ParseShape("bf16[2,16,16]{2,1,0:T(8,128)(2,1)S(5)}");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->memory_space(), kHostMemorySpace);
  EXPECT_EQ(ShapeToString(*shape), "bf16[2,16,16]{2,1,0:T(8,128)(2,1)S(5)}");
}

TEST(ShapeTest, ScalarDefaultLayoutPrintsBare) {
  auto shape = ParseShape("f32[]");
  ASSERT_TRUE(shape.ok());
  shape_util::SetDefaultLayoutsWhereMissing(*shape);
  EXPECT_EQ(ShapeToString(*shape), "f32[]");
}

TEST(NameTest, UniqueNamesFollowXlaNameUniquer) {
  auto module = ParseHloModule(kModule);
  ASSERT_TRUE(module.ok());
  EXPECT_EQ((*module)->UniqueName("copy"), "copy");
  EXPECT_EQ((*module)->UniqueName("copy"), "copy.1");
  EXPECT_EQ((*module)->UniqueName("p"), "p.1");
}

}  // namespace
}  // namespace hloff
