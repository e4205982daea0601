// What the hlo-offload command line writes about a file a front end read
// (tool/driver.h FrontEnd) beside the pipeline's own diagnostics.
#ifndef HLO_OFFLOAD_TOOL_FRONT_END_TEXT_H_
#define HLO_OFFLOAD_TOOL_FRONT_END_TEXT_H_

#include <string>

#include "pipeline/choices.h"
#include "pipeline/front_end_input.h"
#include "pipeline/pipeline.h"

namespace hloff {
namespace tool {

// What the command line writes on standard error about a file the front end
// read, before its diagnostics: the front end's notes (not with check's
// --format=xla, which is XLA's status alone), a note on where a
// converted module's diagnostics are located (check, text and xla, when it
// reports any), and the front end's errors (text; xla: their statuses).
std::string FrontEndText(Command command, DiagnosticFormat format, bool several,
                         const PipelineResult& result,
                         const FrontEndInput& input);

// A file with the front end's errors fails (exit status 1 at least), and
// nothing is written for it.
void TakeFrontEndErrors(PipelineResult& result, const FrontEndInput& input);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_FRONT_END_TEXT_H_
