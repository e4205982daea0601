// Inputs that a front end reads and converts itself before the flow runs:
// the Python package's StableHLO (`.mlir`) files, which its JAX front end
// turns into the HLO module XLA compiles from them, with JAX's pytree path of
// every entry output and parameter. The command line (tool/) runs them as it
// runs the files it reads, so that every flag works for them too.
#ifndef HLO_OFFLOAD_PIPELINE_FRONT_END_INPUT_H_
#define HLO_OFFLOAD_PIPELINE_FRONT_END_INPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "lints/offload_lints.h"
#include "pipeline/pipeline.h"

namespace hloff {

// What a front end made of one input file. Exactly one of: `error` (it could
// not be converted), `parse_error` (it did not parse), or `text`.
struct FrontEndInput {
  // Why the input could not be converted (no jax, a `// -----` line under
  // --split-input-file): reported as a file that cannot be read is.
  std::string error;
  // The input did not parse in the front end: its complete message
  // (`path:line:col: error: ...`, the source line and a caret), where
  // (1-based; 0 when unknown), and what was expected.
  std::optional<std::string> parse_error;
  uint32_t parse_line = 0;
  uint32_t parse_column = 0;
  std::string parse_message;
  // The converted HLO module.
  std::string text;
  // `text` is the input HLO module as XLA's SPMD partitioner gives it (the
  // input is HLO text of several partitions), not a StableHLO conversion.
  bool partitioned = false;
  // Whether diagnostics are located in the user's program first
  // (PipelineOptions::locate_in_source); false for HLO text that is the
  // file's own (a module the partitioner could not partition).
  bool locate_in_source = true;
  // The front end ran XLA's SPMD partitioner on the input and it failed: the
  // module is checked as written, and the front end's note says why, so
  // HO3017, which would send the user to that partitioner, is not reported.
  bool partition_failed = false;
  // PipelineOptions::output_paths / input_paths of the module.
  std::vector<std::string> output_paths;
  std::vector<std::string> input_paths;
  // The backend the input was made for (`--backend` when none is given).
  std::optional<TargetBackend> backend;
  // What the front end wants said about the input, written before its
  // diagnostics as `hlo-offload: note: FILE: NOTE`.
  std::vector<std::string> notes;
  // The front end's own diagnostics about the input (HO0002: a lowering for
  // the CPU, an error; StableHLO text that may be one, a warning), reported
  // before the module's diagnostics; with an error among them, the run's exit
  // status is at least 1 and nothing is written.
  std::vector<Diagnostic> errors;
  // Whether `errors` holds an error (not only warnings).
  bool HasErrors() const {
    for (const Diagnostic& d : errors) {
      if (d.severity == Severity::kError) return true;
    }
    return false;
  }
};

// The result of `command` on `input`, read from `file`: the module run with
// `options` plus its output and input paths, located in the user's own file
// (PipelineOptions::locate_in_source), for `input.backend` unless
// `backend_given`; never split. An `error` is a read error (exit status 2),
// a `parse_error` a module that failed to parse (FrontEndParseError).
// `input.errors` are not part of the result.
PipelineResult RunPipelineOnFrontEndInput(Command command,
                                          const std::string& file,
                                          const FrontEndInput& input,
                                          PipelineOptions options,
                                          bool backend_given);

// The result of an input a front end could not parse (StableHLO text MLIR
// refuses): one module that failed to parse, with its located HO0001
// diagnostic, exit status 2, rendered by every renderer as an HLO parse
// error is. `rendered` is the complete text message; line and column are
// 1-based, 0 when unknown.
PipelineResult FrontEndParseError(Command command, const std::string& path,
                                  const std::string& rendered, uint32_t line,
                                  uint32_t column, const std::string& message);

// One of the front end's errors (FrontEndInput::errors): `code`, about the
// whole input, with notes.
Diagnostic FrontEndError(DiagCode code, const std::string& message,
                         const std::vector<std::string>& notes,
                         Severity severity = Severity::kError);

}  // namespace hloff

#endif  // HLO_OFFLOAD_PIPELINE_FRONT_END_INPUT_H_
