// What the report's unit tests share: a Report built from module text.
#ifndef HLOFF_TESTS_UNIT_REPORT_TEST_UTIL_H_
#define HLOFF_TESTS_UNIT_REPORT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "pipeline/pipeline.h"
#include "report/report.h"
#include "text/parser.h"

namespace hloff {

// The report of the module `text` (named test.hlo); an empty Report, with a
// test failure, when the text does not parse or the report cannot be built.
inline Report MakeReport(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return Report();
  auto report = BuildReport(std::move(*module), "test.hlo");
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : Report();
}

}  // namespace hloff

#endif  // HLOFF_TESTS_UNIT_REPORT_TEST_UTIL_H_
