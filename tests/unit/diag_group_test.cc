// Folding diagnostics with one cause (diag/group.h): the JAX subtree of an
// output path, which diagnostics form a group, the note that lists the
// outputs of the others, and the text, JSON and SARIF of a group.
#include "diag/group.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diag/render.h"

namespace hloff {
namespace {

TEST(JaxSubtreeTest, TheTopLevelEntryOfTheResult) {
  EXPECT_EQ(JaxSubtree("result['opt_state']['mu']"), "result['opt_state']");
  EXPECT_EQ(JaxSubtree("result['opt_state']['mu'][3].w"), "result['opt_state']");
  EXPECT_EQ(JaxSubtree("result[0]['w']"), "result[0]");
  EXPECT_EQ(JaxSubtree("result.params[1]"), "result.params");
  // Quotes and brackets inside a key.
  EXPECT_EQ(JaxSubtree(R"(result['a]\'b']['c'])"), R"(result['a]\'b'])");
  EXPECT_EQ(JaxSubtree(R"(result["x"][0])"), R"(result["x"])");
  // A leaf at the top level is a subtree of its own.
  EXPECT_EQ(JaxSubtree("result[1]"), "");
  EXPECT_EQ(JaxSubtree("result['loss']"), "");
  EXPECT_EQ(JaxSubtree("result"), "");
  // Not a path as jax.tree_util.keystr prints it.
  EXPECT_EQ(JaxSubtree(""), "");
  EXPECT_EQ(JaxSubtree("['a']['b']"), "");
  EXPECT_EQ(JaxSubtree("result['a'"), "");
  EXPECT_EQ(JaxSubtree("result[x][0]"), "");
  EXPECT_EQ(JaxSubtree("result['a']junk"), "");
}

// An E1200 as the HostOffloader reports it: from `start`, through the
// MoveToHost `origin`, to entry output `index`.
Diagnostic E1200(const std::string& start, const std::string& origin,
                 ShapeIndex index, const std::string& output_path = "") {
  Diagnostic d;
  d.code = DiagCode::kE1200;
  d.message = "Tensor which is moved to host (starting from " + start +
              ") is returned from the entry computation but the layout for "
              "this output is not set to host memory.";
  d.start = start;
  d.output_index = index;
  d.output_path = output_path;
  d.path.push_back(PathHop{origin, "main", {}, {}});
  d.path.push_back(PathHop{"out", "main", index, {}});
  d.notes.push_back(Note{"it is returned as entry output " +
                             ShapeIndexToString(index),
                         {}});
  return d;
}

Diagnostic Warning(DiagCode code) {
  Diagnostic d;
  d.severity = Severity::kWarning;
  d.code = code;
  d.message = "a warning";
  return d;
}

TEST(DiagnosticGroupsTest, OneWalkFoldsAndOthersStayAlone) {
  std::vector<Diagnostic> all = {
      Warning(DiagCode::kHO2001),  E1200("t", "h", {0}), E1200("t", "h", {2}),
      Warning(DiagCode::kHO2001),  E1200("out", "g", {3}),
      E1200("t", "h", {4}),
      // One start (the root tuple) but another MoveToHost: another cause.
      E1200("out", "k", {5}),
  };
  DiagnosticGroups groups(all);
  EXPECT_FALSE(groups.Folds(0));
  EXPECT_EQ(groups.Leader(0), 0u);
  EXPECT_EQ(groups.Size(0), 1u);
  for (size_t i : {1u, 2u, 5u}) {
    EXPECT_EQ(groups.Leader(i), 1u) << i;
    EXPECT_EQ(groups.Size(i), 3u) << i;
  }
  EXPECT_EQ(groups.Followers(1), std::vector<size_t>({2, 5}));
  EXPECT_EQ(groups.Followers(5), std::vector<size_t>({2, 5}));
  EXPECT_FALSE(groups.Folds(3));
  EXPECT_FALSE(groups.Folds(4));
  EXPECT_FALSE(groups.Folds(6));
  EXPECT_TRUE(groups.Followers(4).empty());
}

TEST(DiagnosticGroupsTest, OneJaxSubtreeFoldsAcrossWalksAndChains) {
  std::vector<Diagnostic> all = {
      E1200("out", "a", {0}, "result['opt']['mu']"),
      E1200("out", "b", {1}, "result['opt']['nu']"),
      E1200("out", "c", {2}, "result['params']['w']"),
      // The walk from c also reaches an output under 'opt': c's group and
      // the 'opt' group are one.
      E1200("out", "c", {3}, "result['opt']['count']"),
      E1200("out", "d", {4}, "result['loss']"),
      E1200("out", "e", {5}, "result['aux']['x']"),
  };
  DiagnosticGroups groups(all);
  for (size_t i : {0u, 1u, 2u, 3u}) EXPECT_EQ(groups.Leader(i), 0u) << i;
  EXPECT_EQ(groups.Size(0), 4u);
  EXPECT_FALSE(groups.Folds(4));
  EXPECT_FALSE(groups.Folds(5));
  // Another code under the same subtree is another group.
  all.push_back(all[0]);
  all.back().code = DiagCode::kHO3004;
  all.back().severity = Severity::kWarning;
  all.back().start.clear();
  all.push_back(all.back());
  all.back().output_path = "result['opt']['nu']";
  DiagnosticGroups more(all);
  EXPECT_EQ(more.Size(0), 4u);
  EXPECT_EQ(more.Leader(7), 6u);
  EXPECT_EQ(more.Size(6), 2u);
}

TEST(DiagnosticGroupsTest, OnlyDiagnosticsAboutAnOutputFold) {
  std::vector<Diagnostic> all = {Warning(DiagCode::kHO2001),
                                 Warning(DiagCode::kHO2001)};
  all[0].start = all[1].start = "h";  // no output: not grouped
  DiagnosticGroups groups(all);
  EXPECT_FALSE(groups.Folds(0));
  EXPECT_FALSE(groups.Folds(1));
  DiagnosticGroups none(std::vector<Diagnostic>{});
  (void)none;
}

TEST(FoldedOutputsNoteTest, ListsOutputsByPathElseByIndex) {
  Diagnostic leader = E1200("t", "h", {0});
  Diagnostic two = E1200("t", "h", {2});
  Diagnostic four = E1200("t", "h", {4}, "result['b']['c']");
  std::vector<const Diagnostic*> one = {&two};
  EXPECT_EQ(FoldedOutputsNote(leader, one), "and 1 more output: {2}");
  std::vector<const Diagnostic*> both = {&two, &four};
  EXPECT_EQ(FoldedOutputsNote(leader, both),
            "and 2 more outputs: {2}, result['b']['c']");
  // Tensors moved to host by other instructions (a group of one subtree).
  Diagnostic other = E1200("out", "k", {5});
  Diagnostic third = E1200("out", "m", {6});
  std::vector<const Diagnostic*> others = {&two, &other, &third};
  EXPECT_EQ(FoldedOutputsNote(leader, others),
            "and 3 more outputs (moved to host by 2 other instructions): {2}, "
            "{5}, {6}");
}

TEST(FoldedOutputsNoteTest, ListsTheFirstTenThenCounts) {
  Diagnostic leader = E1200("t", "h", {0});
  std::vector<Diagnostic> rest;
  for (int64_t i = 1; i <= 14; ++i) rest.push_back(E1200("t", "h", {i}));
  std::vector<const Diagnostic*> followers;
  for (const Diagnostic& d : rest) followers.push_back(&d);
  EXPECT_EQ(FoldedOutputsNote(leader, followers),
            "and 14 more outputs: {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, "
            "{10} and 4 others (--format=json lists each)");
}

TEST(FoldedTextTest, TheNoteFollowsTheOneThatNamesTheOutput) {
  Diagnostic leader = E1200("t", "h", {0});
  Diagnostic two = E1200("t", "h", {2});
  std::vector<const Diagnostic*> folded = {&two};
  SourceText source{"in.hlo", "", {}};
  std::string text = RenderText(leader, source, folded);
  EXPECT_NE(text.find("in.hlo: note: it is returned as entry output {0}\n"
                      "  note: and 1 more output: {2}\n"),
            std::string::npos)
      << text;
  // XLA's sentence is kept byte for byte.
  EXPECT_EQ(text.rfind("in.hlo: error: E1200: "
                       "CompileTimeHostOffloadOutputLocationMismatch: " +
                           leader.message + "\n",
                       0),
            0u)
      << text;
  leader.output_path = "result['a']['b']";
  two.output_path = "result['a']['c']";
  text = RenderText(leader, source, folded);
  EXPECT_NE(text.find("  note: JAX output: result['a']['b']\n"
                      "  note: and 1 more output: result['a']['c']\n"),
            std::string::npos)
      << text;
  // Alone, nothing changes.
  EXPECT_EQ(RenderText(leader, source).find("more output"), std::string::npos);
}

TEST(FoldedSarifTest, GroupsAreNumberedPerFile) {
  FileDiagnostics first{"a.hlo", "m", {E1200("t", "h", {0}), E1200("t", "h", {1})}};
  FileDiagnostics second{"a.hlo", "m2", {Warning(DiagCode::kHO2001),
                                         E1200("t", "h", {0}), E1200("t", "h", {1})}};
  FileDiagnostics other{"b.hlo", "m", {E1200("t", "h", {0}), E1200("t", "h", {1})}};
  nlohmann::json sarif = RenderSarif({first, second, other}, "0");
  const nlohmann::json& results = sarif["runs"][0]["results"];
  ASSERT_EQ(results.size(), 7u);
  std::vector<int> groups;
  for (const nlohmann::json& r : results) {
    groups.push_back(r.contains("properties") && r["properties"].contains("group")
                         ? r["properties"]["group"].get<int>()
                         : -1);
  }
  EXPECT_EQ(groups, std::vector<int>({0, 0, -1, 3, 3, 0, 0}));
  EXPECT_EQ(results[0]["properties"]["group_size"], 2);
}

}  // namespace
}  // namespace hloff
