// Batch mode: several files are checked on all cores, and what is written is
// exactly what checking them one at a time writes, in input order.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tool/driver.h"

namespace hloff {
namespace {

namespace fs = std::filesystem;

struct Output {
  int status;
  std::string out;
  std::string err;
};

Output RunCli(std::vector<std::string> args) {
  args.insert(args.begin(), "hlo-offload");
  std::ostringstream out, err;
  int status = RunTool(args, out, err);
  return {status, out.str(), err.str()};
}

TEST(BatchTest, ManyFilesReportInInputOrder) {
  std::string tmpl = (fs::temp_directory_path() / "hloff-batch-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  fs::path dir = tmpl;
  const std::vector<std::string> modules = {
      // Clean.
      "HloModule a\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
      "  ROOT r = f32[4]{0} negate(p)\n}\n",
      // E1200: offloaded value returned with a device layout.
      "HloModule b\nENTRY e {\n  p = f32[4]{0} parameter(0)\n"
      "  ROOT h = f32[4]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n}\n",
      // Parse error.
      "HloModule c\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT r = f32[4]{0} frob(p)\n}\n",
      // A warning (host compute).
      "HloModule d, entry_computation_layout={(f32[4]{0:S(5)})->f32[4]{0}}\n"
      "ENTRY e {\n  p = f32[4]{0} parameter(0)\n  t = f32[4]{0} tanh(p)\n"
      "  ROOT r = f32[4]{0} custom-call(t), custom_call_target=\"MoveToDevice\"\n}\n",
  };
  std::vector<std::string> files;
  for (int copy = 0; copy < 3; ++copy) {
    for (size_t i = 0; i < modules.size(); ++i) {
      fs::path path = dir / ("m" + std::to_string(copy) + std::to_string(i) + ".hlo");
      std::ofstream(path) << modules[i];
      files.push_back(path.string());
    }
  }
  for (const char* format : {"text", "json", "xla", "sarif"}) {
    std::vector<std::string> args = {"check", std::string("--format=") + format};
    args.insert(args.end(), files.begin(), files.end());
    Output batch = RunCli(args);
    if (std::string(format) == "json" || std::string(format) == "sarif") {
      // One document for the whole run: its entries are the per-file runs'.
      nlohmann::json whole = nlohmann::json::parse(batch.out);
      nlohmann::json entries = nlohmann::json::array();
      int status = 0;
      for (const std::string& file : files) {
        Output one = RunCli({"check", std::string("--format=") + format, file});
        status = std::max(status, one.status);
        nlohmann::json doc = nlohmann::json::parse(one.out);
        auto& list = std::string(format) == "json" ? doc["files"]
                                                   : doc["runs"][0]["results"];
        for (auto& entry : list) entries.push_back(entry);
      }
      EXPECT_EQ(batch.status, status) << format;
      EXPECT_EQ(std::string(format) == "json" ? whole["files"]
                                              : whole["runs"][0]["results"],
                entries)
          << format;
      continue;
    }
    std::string out, err;
    int status = 0;
    bool text = std::string(format) == "text";
    for (const std::string& file : files) {
      Output one = RunCli({"check", std::string("--format=") + format, file});
      out += one.out;
      // In text each run ends with its summary line; the batch has one.
      if (text) {
        ASSERT_EQ(one.err.back(), '\n');
        size_t last = one.err.rfind('\n', one.err.size() - 2);
        last = last == std::string::npos ? 0 : last + 1;
        EXPECT_EQ(one.err.substr(last, 27), "hlo-offload: 1 file checked");
        one.err.resize(last);
      }
      err += one.err;
      status = std::max(status, one.status);
    }
    if (text) {
      err += "hlo-offload: 12 files checked: 3 errors (HO0001 x3), 9 warnings "
             "(HO2001 x3, HO3001 x3, HO3004 x3)\n";
    }
    EXPECT_EQ(batch.status, status) << format;
    EXPECT_EQ(batch.out, out) << format;
    EXPECT_EQ(batch.err, err) << format;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hloff
