// Runs the flow on inputs a front end converted itself (front_end_input.h).
#include "pipeline/front_end_input.h"

#include <utility>

namespace hloff {

PipelineResult RunPipelineOnFrontEndInput(Command command,
                                          const std::string& file,
                                          const FrontEndInput& input,
                                          PipelineOptions options,
                                          bool backend_given) {
  if (!input.error.empty()) {
    PipelineResult result;
    result.command = command;
    result.path = file;
    result.file = file;
    result.exit_status = kExitUsage;
    result.read_error = input.error;
    return result;
  }
  if (input.parse_error.has_value()) {
    return FrontEndParseError(command, file, *input.parse_error,
                              input.parse_line, input.parse_column,
                              input.parse_message);
  }
  options.path = file;
  // A converted module is one module: `// -----` lines were refused by the
  // front end before conversion.
  options.split_input = false;
  options.output_paths = input.output_paths;
  options.input_paths = input.input_paths;
  options.locate_in_source = input.locate_in_source;
  if (input.partition_failed) options.codes.disabled.push_back(DiagCode::kHO3017);
  if (!backend_given && input.backend.has_value()) {
    options.lint.backend = *input.backend;
  }
  PipelineResult result = RunPipeline(command, input.text, options);
  result.file = file;
  return result;
}

PipelineResult FrontEndParseError(Command command, const std::string& path,
                                  const std::string& rendered, uint32_t line,
                                  uint32_t column, const std::string& message) {
  PipelineResult result;
  result.command = command;
  result.path = path;
  result.file = path;
  result.exit_status = kExitUsage;
  ModuleResult module;
  module.parse_failed = true;
  module.parse_error = rendered;
  Diagnostic d;
  d.code = DiagCode::kHO0001;
  d.severity = Severity::kError;
  d.message = message;
  if (line > 0) d.loc = {line, column};
  module.diagnostics.push_back(std::move(d));
  result.modules.push_back(std::move(module));
  return result;
}

Diagnostic FrontEndError(DiagCode code, const std::string& message,
                         const std::vector<std::string>& notes,
                         Severity severity) {
  Diagnostic d;
  d.code = code;
  d.severity = severity;
  d.message = message;
  for (const std::string& note : notes) d.notes.push_back(Note{note, {}});
  return d;
}

}  // namespace hloff
