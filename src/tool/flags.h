// The flags of the hlo-offload command line (docs/CLI.md): the values CLI11
// fills in, each flag that several subcommands share declared once, and the
// library's options for what the flags say.
#ifndef HLO_OFFLOAD_TOOL_FLAGS_H_
#define HLO_OFFLOAD_TOOL_FLAGS_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "CLI/CLI.hpp"
#include "pipeline/pipeline.h"
#include "tool/driver.h"

namespace hloff {
namespace tool {

// Every flag of every subcommand; only those of the parsed one are set.
struct Flags {
  std::vector<std::string> inputs;
  bool split_input_file = false;
  std::string format = "text";
  int trace_level = 0;
  std::string output;
  bool in_place = false;
  std::string passes;
  std::string pipeline = "xla";
  std::string backend;  // empty: not given (any)
  std::string xla_version;  // empty: the newest known
  bool no_lints = false;
  std::vector<std::string> disable_codes;
  std::vector<std::string> enable_codes;
  OffloadOptions offload;
  std::string pinned_host_budget;
  std::string fix_strategy;
  int64_t max_nodes = 400;
  std::string explain_code;
  std::string report_input;
  // The front end's options (tool/front_end_options.h), registered only
  // with a front end: as given, then checked into front_end_options.
  std::string platform;
  bool no_partition = false;
  std::string xla;           // the last --xla
  std::string xla_topology;  // the last --xla-topology
  // Not flags: the front end that reads some of the inputs (RunTool's), and
  // the options its callbacks are given.
  const FrontEnd* front_end = nullptr;
  FrontEndOptions front_end_options;
};

// --split-input-file.
void AddSplitInputFlag(CLI::App* app, Flags& flags);
// --no-lints.
void AddNoLintsFlag(CLI::App* app, Flags& flags);
// --disable and --enable (diag/code_selection.h). Each takes one value per
// occurrence, so that `--disable HO3005 FILE` never takes FILE for a code.
void AddCodeFlags(CLI::App* app, Flags& flags);
// -o, --output, described as `description`.
void AddOutputFlag(CLI::App* app, Flags& flags, const std::string& description);
// The positional FILE arguments; `one`: exactly one.
void AddInputs(CLI::App* app, Flags& flags, const std::string& description,
               bool one);
// The passes' flags (--pipeline, --backend, --xla-version, XLA's offloading
// options and, unless `as_for_check`, --trace); `as_for_check`: report's
// shorter descriptions.
void AddOffloadFlags(CLI::App* app, Flags& flags, bool as_for_check);

// The library's options for what the flags say.
PipelineOptions OptionsFrom(const Flags& flags);
// OptionsFrom with the codes of --disable and --enable and the XLA of
// --xla-version (its notes printed), or the usage error's exit status.
std::variant<PipelineOptions, int> OptionsWithCodes(const Flags& flags,
                                                    std::ostream& err);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_FLAGS_H_
