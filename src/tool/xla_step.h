// The --xla step of a front end (tool/driver.h FrontEnd::xla_step): after a
// run of check, fix or report, XLA's verdict on each file, asked of the front
// end, edits the run's JSON document, adds its text to standard error and
// decides the exit status.
#ifndef HLO_OFFLOAD_TOOL_XLA_STEP_H_
#define HLO_OFFLOAD_TOOL_XLA_STEP_H_

#include <functional>
#include <iosfwd>
#include <string>

#include "tool/flags.h"

namespace hloff {
namespace tool {

// Whether the run asks the front end for XLA's verdict (--xla was given).
bool WantsXlaStep(const Flags& flags);

// check --xla, after a run whose exit status is 0 or 1: `json` is the run's
// --format=json document. Each file's object is given to the step and
// replaced by what it returns; with `print_document` (--format=json) the
// edited document is written to `out`, otherwise the steps' texts to `err`.
// Returns the largest exit status the steps ask for (2 when one stops).
int RunCheckXlaSteps(const Flags& flags, const std::string& json,
                     bool print_document, std::ostream& out, std::ostream& err);

// report --xla, after a run whose exit status is 0: `json` is the report's
// JSON (one object, or a list of them, each given to the step). With
// `json_format` the edited document is written by `write` (which returns
// the exit status); otherwise the report was written already and the steps'
// texts go to `err`. Returns the largest exit status the steps ask for (2
// when one stops), or write's when it fails.
int RunReportXlaSteps(const Flags& flags, const std::string& json,
                      bool json_format,
                      const std::function<int(const std::string&)>& write,
                      std::ostream& err);

// fix --xla, after the fixed module `fixed` was written: the step for the
// last FILE argument; its text goes to `err`. Returns the exit status it
// asks for (2 when it stops).
int RunFixXlaStep(const Flags& flags, const std::string& fixed,
                  std::ostream& err);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_XLA_STEP_H_
