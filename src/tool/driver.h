// The command-line driver of hlo-offload (docs/CLI.md): parses the command
// line with CLI11, calls the library (pipeline/pipeline.h), renders and
// returns the exit status. main.cc only calls RunTool (as LLVM's optMain /
// MLIR's MlirOptMain).
#ifndef HLO_OFFLOAD_TOOL_DRIVER_H_
#define HLO_OFFLOAD_TOOL_DRIVER_H_

#include <functional>
#include <map>
#include <iosfwd>
#include <string>
#include <vector>

#include "pipeline/front_end_input.h"

namespace hloff {

// The options of the command line that are a front end's (the Python
// package's console command, docs/CLI.md "XLA's own verdict"): RunTool
// registers and parses them only when it is given a front end, and hands
// them to every callback of the FrontEnd.
struct FrontEndOptions {
  // --platform (check, opt, fix, fmt, report): what the front end's files
  // were lowered for, as given; "" when not given. The front end checks it
  // (FrontEnd::start).
  std::string platform;
  // Whether an HLO file of several partitions is partitioned before it is
  // checked: true for check and report unless --no-partition is given, false
  // for opt, fix and fmt, which take a module as written.
  bool partition = true;
  // --xla (check, fix, report): the XLA compile-only client whose verdict is
  // asked for after the run, "tpu" or "cuda" (--xla=gpu is "cuda", and case
  // does not matter); "" when not given.
  std::string xla;
  // --xla-topology: what --xla compiles for (a TPU topology such as v5e:2x4;
  // for cuda a GPU target config); "" when not given.
  std::string xla_topology;
  // --split-input-file: each file holds modules separated by `// -----`
  // lines (reads() is asked before a file is converted; convert() is told too).
  bool split_input = false;
};

// What the front end's XLA step gives for one file (FrontEnd::xla_step).
struct XlaStep {
  // check and report: the file's JSON object (JSON text) with XLA's verdict
  // added; it replaces the one given in the --format=json document (key
  // order kept). "" keeps the one given. fix: ignored.
  std::string document;
  // Written to standard error after everything else the run writes (check
  // and report: not with --format=json, whose document holds the verdict).
  std::string text;
  // The exit status this file asks for: the run exits with the largest.
  int exit_status = 0;
  // XLA could not give its verdict (its client unusable as asked): `text`
  // is the error, written alone, and the run exits with status 2, writing
  // nothing more of the --xla step (no JSON document).
  bool stop = false;
};

// A front end that reads some input files itself (the Python package's
// console command, for StableHLO files): RunTool runs what it converts as it
// runs the files it reads, in input order, one file at a time. With a front
// end, the command line also takes the front end's options
// (FrontEndOptions) and, with --xla, asks the front end for XLA's verdict on
// each file after the run (xla_step).
struct FrontEnd {
  // Whether the front end reads `file` (a name as the command line gives it;
  // also asked about -o, which must not name such a file).
  std::function<bool(const std::string& file, const FrontEndOptions& options)>
      reads;
  // Converts `file`; `split_input`: --split-input-file was given.
  std::function<FrontEndInput(const std::string& file, bool split_input,
                              const FrontEndOptions& options)>
      convert;
  // Called once the command line is parsed and its usage checked, before any
  // file is read, for check, opt, fix, fmt and report (`command`, as the
  // command line names it): "" to go on, or the complete text of an error
  // (each line ending with a newline), which RunTool writes to standard
  // error as it is before it returns the usage status 2. May be empty.
  std::function<std::string(const std::string& command,
                            const FrontEndOptions& options)>
      start;
  // With --xla, after the run (check: when its exit status is 0 or 1; fix
  // and report: when it is 0), called once per file in input order:
  // `command` is "check", "fix" or "report"; `file` the file as the JSON
  // names it (fix: the FILE argument); `document` the file's object of the
  // --format=json document (check), the report's JSON object (report), or
  // the fixed module's HLO text as written (fix). May be empty when no
  // --xla can be given.
  std::function<XlaStep(const std::string& command, const std::string& file,
                        const std::string& document,
                        const FrontEndOptions& options)>
      xla_step;
  // What the front end adds at the end of a help, by subcommand name ("" for
  // the help of the command line itself): its own subcommands, the inputs it
  // reads, its defaults. A blank line comes before it.
  std::map<std::string, std::string> help;
};

// Runs the tool with `args` (args[0] is the program name), writing to `out`
// and `err`. Returns the process exit status: 0 success, 1 a diagnosed error
// in the input, 2 a usage, I/O or parse error.
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);
// As above, with `front_end` reading the files it claims (may be null).
int RunTool(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err, const FrontEnd* front_end);

// When set, a module that the run no longer needs is left in memory for the
// process exit to reclaim at once, instead of being freed piece by piece.
// For main() only (a library caller would keep the memory); ignored under
// AddressSanitizer, whose leak check would report it.
void SetLeaveModulesAtExit(bool leave);

}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_DRIVER_H_
