// The lean IR's contracts: shared shapes are copied on write, high-fanout use
// lists stay ordered through removals, removed instructions' names stay taken
// after their memory is reused, origins outlive their source, and the lexer
// splits the text as the parser reads it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/hlo.h"
#include "text/lexer.h"
#include "text/parser.h"
#include "text/printer.h"

namespace hloff {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto module = ParseHloModule(text, ParseOptions{"in.hlo", 0});
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

Instruction* Find(const Module& module, absl::string_view name) {
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->raw_instructions()) {
      if (instr->name() == name) return instr.get();
    }
  }
  return nullptr;
}

TEST(IrMemoryTest, SharedShapesAreCopiedOnWrite) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[8]{0} parameter(0)
  b = f32[8]{0} negate(a)
  ROOT c = f32[8]{0} negate(b)
})");
  Instruction* a = Find(*module, "a");
  Instruction* b = Find(*module, "b");
  EXPECT_EQ(&a->shape(), &b->shape());  // one shape for one spelling
  a->mutable_shape()->layout.memory_space = kHostMemorySpace;
  EXPECT_EQ(a->shape().memory_space(), kHostMemorySpace);
  EXPECT_EQ(b->shape().memory_space(), kDefaultMemorySpace);
  // set_shape shares equal results.
  Shape host = b->shape();
  host.layout.memory_space = kHostMemorySpace;
  b->set_shape(host);
  Find(*module, "c")->set_shape(host);
  EXPECT_EQ(&b->shape(), &Find(*module, "c")->shape());
  EXPECT_EQ(ModuleToString(*module),
            "HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
            "ENTRY e {\n"
            "  a = f32[8]{0:S(5)} parameter(0)\n"
            "  b = f32[8]{0:S(5)} negate(a)\n"
            "  ROOT c = f32[8]{0:S(5)} negate(b)\n"
            "}\n");
}

TEST(IrMemoryTest, HighFanoutUsersKeepTheirOrder) {
  std::string text = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n";
  const int kUsers = 200;
  for (int i = 0; i < kUsers; ++i) {
    absl::StrAppend(&text, "  u", i, " = f32[] negate(p)\n");
  }
  text += "  ROOT t = (";
  for (int i = 0; i < kUsers; ++i) absl::StrAppend(&text, i ? ", " : "", "f32[]");
  text += ") tuple(";
  for (int i = 0; i < kUsers; ++i) absl::StrAppend(&text, i ? ", " : "", "u", i);
  text += ")\n}\n";
  auto module = Parse(text);
  Instruction* p = Find(*module, "p");
  ASSERT_EQ(p->user_count(), kUsers);
  Computation* entry = module->entry();
  // Move every other user onto a new value: p keeps the rest, in order.
  Instruction* q = entry->AddInstruction(HloOpcode::kNegate, p->shape(), {p}, "q");
  for (int i = 0; i < kUsers; i += 2) {
    Instruction* user = Find(*module, absl::StrCat("u", i));
    user->ReplaceOperandWith(0, q);
  }
  ASSERT_EQ(p->user_count(), kUsers / 2 + 1);
  std::vector<std::string> names;
  for (const Instruction* user : p->users()) names.emplace_back(user->name());
  ASSERT_EQ(names.size(), static_cast<size_t>(kUsers / 2 + 1));
  for (int i = 0; i < kUsers / 2; ++i) {
    EXPECT_EQ(names[i], absl::StrCat("u", 2 * i + 1));
  }
  EXPECT_EQ(names.back(), "q");
  EXPECT_EQ(q->user_count(), kUsers / 2);
  EXPECT_EQ(q->users()[0]->name(), "u0");
  // Replacing all uses moves them all, in order, after p's own.
  q->ReplaceAllUsesWith(p);
  EXPECT_EQ(q->user_count(), 0);
  EXPECT_EQ(p->user_count(), kUsers + 1);
  EXPECT_EQ(p->users()[kUsers / 2]->name(), "q");
  EXPECT_EQ(p->users()[kUsers / 2 + 1]->name(), "u0");
}

TEST(IrMemoryTest, RemovedNamesStayTakenAfterTheirMemoryIsReused) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  copy = f32[] copy(p)
  copy.1 = f32[] copy(p)
  ROOT r = f32[] negate(p)
})");
  Computation* entry = module->entry();
  entry->RemoveInstruction(Find(*module, "copy"));
  entry->RemoveInstruction(Find(*module, "copy.1"));
  module->Sweep();
  EXPECT_EQ(Find(*module, "copy"), nullptr);
  Instruction* fresh =
      entry->AddInstruction(HloOpcode::kCopy, Find(*module, "p")->shape(),
                            {Find(*module, "p")}, "copy");
  EXPECT_EQ(fresh->name(), "copy.2");
  EXPECT_EQ(module->UniqueName("copy"), "copy.3");
}

TEST(IrMemoryTest, OriginOutlivesItsSource) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] custom-call(p), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="jit(f)/device_put" source_file="f.py" source_line=7}
  ROOT r = f32[] negate(a)
})");
  Computation* entry = module->entry();
  Instruction* a = Find(*module, "a");
  EXPECT_EQ(a->GetFrontendAttribute("_xla_buffer_placement"), "pinned_host");
  SourceLoc where = a->loc();
  Instruction* call = entry->AddInstruction(HloOpcode::kCustomCall, a->shape(),
                                            {Find(*module, "p")}, "custom-call");
  InstructionBuilder::SetCustomCallTarget(call, "MoveToHost");
  call->set_origin_from(*a, "annotate_device_placement pinned_host");
  a->ReplaceAllUsesWith(call);
  entry->RemoveInstruction(a);
  module->Sweep();
  // The swept annotation's memory goes to the next new instruction.
  entry->AddInstruction(HloOpcode::kCopy, call->shape(), {call}, "copy");
  EXPECT_EQ(call->origin_name(), "a (annotate_device_placement pinned_host)");
  EXPECT_EQ(call->metadata().source_file, "f.py");
  EXPECT_EQ(call->metadata().source_line, 7);
  EXPECT_EQ(call->loc().line, where.line);
  EXPECT_EQ(call->loc().column, where.column);
  EXPECT_TRUE(call->IsCustomCall("MoveToHost"));
}

TEST(LexerTest, SplitsTheTextAsTheParserReadsIt) {
  Lexer lexer(
      "%x.1 = f32[8]{0} add(x, y), metadata={op_name=\"a\\\"b\"} // c\n"
      "/* d */ c = f32[] constant(-1e-06)");
  std::vector<std::string> tokens;
  for (Token t = lexer.Next(); t.kind != TokenKind::kEnd; t = lexer.Next()) {
    ASSERT_NE(t.kind, TokenKind::kError);
    tokens.emplace_back(t.text);
  }
  std::vector<std::string> expected = {
      "%x.1", "=", "f32", "[", "8", "]", "{", "0", "}", "add", "(", "x", ",",
      "y", ")", ",", "metadata", "=", "{", "op_name", "=", "\"a\\\"b\"", "}",
      "c", "=", "f32", "[", "]", "constant", "(", "-1e-06", ")"};
  EXPECT_EQ(tokens, expected);
  Lexer bad("x = \"open");
  Token t;
  do {
    t = bad.Next();
  } while (t.kind != TokenKind::kEnd && t.kind != TokenKind::kError);
  EXPECT_EQ(t.kind, TokenKind::kError);
}

}  // namespace
}  // namespace hloff
