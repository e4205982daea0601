// `hlo-offload report` (docs/CLI.md, docs/REPORT.md): reads one HLO file,
// builds the offload report of each module in it and writes it as text, JSON,
// Graphviz DOT or HTML.
#ifndef HLO_OFFLOAD_TOOL_REPORT_COMMAND_H_
#define HLO_OFFLOAD_TOOL_REPORT_COMMAND_H_

#include <cstdint>
#include <iosfwd>
#include <string>

#include "CLI/CLI.hpp"
#include "passes/pass.h"

namespace hloff {

struct ReportCommandOptions {
  std::string input;            // a file, or "-" for standard input
  std::string format = "text";  // text, json, dot or html
  std::string output;           // empty or "-": standard output
  bool split_input_file = false;
  OffloadOptions offload;
  std::string pipeline = "xla";  // --pipeline: xla or offload
  int64_t max_nodes = 400;  // path instructions drawn at most
};

// Adds the `report` subcommand and its options to `app`, storing them in
// `options` (which must outlive the parse).
CLI::App* AddReportSubcommand(CLI::App& app, ReportCommandOptions& options);

// Runs `report`. Returns the exit status: 0 written; 2 a usage, I/O or parse
// error (printed on `err`, nothing written to the output file).
int RunReportCommand(const ReportCommandOptions& options, std::ostream& out,
                     std::ostream& err);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_REPORT_COMMAND_H_
