// The console command's half of the extension: FrontEndInput, what its
// front end made of one input file (a StableHLO file converted to HLO, or
// why not), FrontEndOptions, the console command's options as the command
// line parsed them, and run_command_line, the hlo-offload command line run
// in this process with those files converted by Python (and XLA's verdict
// asked of it with --xla).
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/bindings.h"
#include "diag/diagnostic.h"
#include "lints/offload_lints.h"
#include "pipeline/choices.h"
#include "pipeline/front_end_input.h"
#include "tool/driver.h"

namespace hloff {
namespace python {

using namespace nb::literals;

namespace {

// The front end's callables as Python gives them: each takes the command
// line's FrontEndOptions by value, so that Python owns the copy it is given.
using ReadsFn = std::function<bool(const std::string&, FrontEndOptions)>;
using ConvertFn =
    std::function<FrontEndInput(const std::string&, bool, FrontEndOptions)>;
using StartFn = std::function<std::string(const std::string&, FrontEndOptions)>;
// (document, text, exit_status, stop): tool/driver.h XlaStep.
using XlaStepResult = std::tuple<std::string, std::string, int, bool>;
using XlaStepFn = std::function<XlaStepResult(
    const std::string&, const std::string&, const std::string&, FrontEndOptions)>;

// The FrontEnd that calls the Python callables (start and xla_step may be
// empty: None).
FrontEnd PythonFrontEnd(ReadsFn reads, ConvertFn convert, StartFn start,
                        XlaStepFn xla_step, std::map<std::string, std::string> help) {
  FrontEnd front_end;
  front_end.help = std::move(help);
  front_end.reads = [reads = std::move(reads)](const std::string& file,
                                               const FrontEndOptions& options) {
    return reads(file, options);
  };
  front_end.convert = [convert = std::move(convert)](
                          const std::string& file, bool split_input,
                          const FrontEndOptions& options) {
    return convert(file, split_input, options);
  };
  if (start) {
    front_end.start = [start = std::move(start)](const std::string& command,
                                                 const FrontEndOptions& options) {
      return start(command, options);
    };
  }
  if (xla_step) {
    front_end.xla_step = [xla_step = std::move(xla_step)](
                             const std::string& command, const std::string& file,
                             const std::string& document,
                             const FrontEndOptions& options) {
      XlaStep step;
      std::tie(step.document, step.text, step.exit_status, step.stop) =
          xla_step(command, file, document, options);
      return step;
    };
  }
  return front_end;
}

// run_command_line(args, reads, convert, start, xla_step): the hlo-offload
// command line (tool/driver.h RunTool) on `args` (args[0] the program's
// name), writing to this process's standard output and error, with the
// front end's options parsed for the callables, the files `reads` claims
// converted by `convert` (the console command's StableHLO files), `start`
// called before any file and, with --xla, `xla_step` for XLA's verdict on
// each file. Returns the exit status. The GIL is released, and taken again
// for each callback.
int RunCommandLine(const std::vector<std::string>& args, ReadsFn reads,
                   ConvertFn convert, StartFn start, XlaStepFn xla_step,
                   std::map<std::string, std::string> help) {
  FrontEnd front_end =
      PythonFrontEnd(std::move(reads), std::move(convert), std::move(start),
                     std::move(xla_step), std::move(help));
  int status = 0;
  {
    nb::gil_scoped_release release;
    status = RunTool(args, std::cout, std::cerr, &front_end);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(stdout);
    std::fflush(stderr);
  }
  // The callbacks hold Python objects: released with the GIL held.
  front_end = FrontEnd();
  return status;
}

}  // namespace

void BindFrontEndInput(nb::module_& m) {
  nb::class_<FrontEndInput>(
      m, "FrontEndInput",
      "What the console command's front end made of one input file, for "
      "run_command_line (pipeline/front_end_input.h): an error, a parse "
      "error, or the converted HLO module with its pytree names.")
      .def(nb::init<>())
      .def_rw("error", &FrontEndInput::error,
              "Why the file could not be converted (reported as a read error).")
      .def_rw("text", &FrontEndInput::text, "The converted HLO module.")
      .def_rw("output_paths", &FrontEndInput::output_paths,
              "The pytree path of each flat entry output.")
      .def_rw("input_paths", &FrontEndInput::input_paths,
              "The pytree path of each entry parameter.")
      .def_rw("notes", &FrontEndInput::notes,
              "Written before the file's diagnostics as `hlo-offload: note: "
              "FILE: NOTE`.")
      .def_rw("partitioned", &FrontEndInput::partitioned,
              "The text is the HLO file's module as XLA's SPMD partitioner "
              "gives it (not a StableHLO conversion).")
      .def_rw("locate_in_source", &FrontEndInput::locate_in_source,
              "Diagnostics are located in the user's program first (False: "
              "the text is the file's own).")
      .def_rw("partition_failed", &FrontEndInput::partition_failed,
              "XLA's partitioner failed on the input: its note says so, and HO3017 "
              "is not reported.")
      .def_prop_rw(
          "backend",
          [](const FrontEndInput& input) -> std::optional<std::string> {
            if (!input.backend) return std::nullopt;
            return kBackendChoice.Spelling(*input.backend);
          },
          [](FrontEndInput& input, std::optional<std::string> name) {
            if (!name) {
              input.backend = std::nullopt;
              return;
            }
            input.backend = kBackendChoice.Parse(*name);
          },
          nb::arg("name").none(),
          "What the file was made for (--backend unless given): tpu, gpu, any "
          "or None.")
      .def(
          "set_parse_error",
          [](FrontEndInput& input, const std::string& rendered, uint32_t line,
             uint32_t column, const std::string& message) {
            input.parse_error = rendered;
            input.parse_line = line;
            input.parse_column = column;
            input.parse_message = message;
          },
          "rendered"_a, "line"_a, "column"_a, "message"_a,
          "The file did not parse: the complete message, where (1-based; 0 "
          "when unknown) and what was expected.")
      .def(
          "add_error",
          [](FrontEndInput& input, const std::string& code,
             const std::string& message, const std::vector<std::string>& notes,
             bool warning) {
            std::optional<DiagCode> parsed = ParseDiagCode(code);
            if (!parsed) throw nb::value_error(("unknown code '" + code + "'").c_str());
            input.errors.push_back(FrontEndError(
                *parsed, message, notes,
                warning ? Severity::kWarning : Severity::kError));
          },
          "code"_a, "message"_a, "notes"_a = std::vector<std::string>(),
          "warning"_a = false,
          "Adds an error (a warning with warning=True) of the front end about the "
          "whole file (HO0002), reported before the module's diagnostics.");
}

void BindCommandLine(nb::module_& m) {
  nb::class_<FrontEndOptions>(
      m, "FrontEndOptions",
      "The options of the command line that are the console command's "
      "(tool/driver.h FrontEndOptions), as run_command_line parsed them; "
      "given to each of its callables.")
      .def("__init__",
           [](FrontEndOptions* options, std::string platform, bool partition,
              std::string xla, std::string xla_topology, bool split_input) {
             new (options) FrontEndOptions{std::move(platform), partition,
                                           std::move(xla), std::move(xla_topology),
                                           split_input};
           },
           "platform"_a = "", "partition"_a = true, "xla"_a = "",
           "xla_topology"_a = "", "split_input"_a = false)
      .def_ro("platform", &FrontEndOptions::platform,
              "--platform as given (check, opt, fix, fmt, report); \"\" when "
              "not given. The console command checks it (start).")
      .def_ro("partition", &FrontEndOptions::partition,
              "Whether an HLO file of several partitions is partitioned first: "
              "check and report unless --no-partition; False for opt, fix and "
              "fmt.")
      .def_ro("xla", &FrontEndOptions::xla,
              "--xla: \"tpu\" or \"cuda\" (gpu means cuda); \"\" when not "
              "given.")
      .def_ro("xla_topology", &FrontEndOptions::xla_topology,
              "--xla-topology; \"\" when not given.")
      .def_ro("split_input", &FrontEndOptions::split_input,
              "--split-input-file: each file holds modules separated by "
              "`// -----` lines.")
      .def("__repr__", [](const FrontEndOptions& o) {
        auto quoted = [](const std::string& s) { return "'" + s + "'"; };
        return "FrontEndOptions(platform=" + quoted(o.platform) +
               ", partition=" + (o.partition ? "True" : "False") +
               ", xla=" + quoted(o.xla) + ", xla_topology=" +
               quoted(o.xla_topology) +
               ", split_input=" + (o.split_input ? "True" : "False") + ")";
      });
  m.def("run_command_line", &RunCommandLine, "args"_a, "reads"_a, "convert"_a,
        nb::arg("start").none() = nb::none(),
        nb::arg("xla_step").none() = nb::none(),
        "help"_a = std::map<std::string, std::string>(),
        "Runs the hlo-offload command line on args (args[0] is the program's "
        "name) in this process, writing to its standard output and error, "
        "with the console command's options (--platform, --no-partition, "
        "--xla, --xla-topology) parsed into a FrontEndOptions given to each "
        "callable: reads(file, options) claims a file, which "
        "convert(file, split_input, options) converts into a FrontEndInput; "
        "start(command, options) (may be None) is called once before any "
        "file and returns \"\" or the complete text of an error (written "
        "as it is, exit status 2); with --xla, xla_step(command, file, "
        "document, options) (may be None) returns (document, text, "
        "exit_status, stop) for each file after the run; help maps a "
        "subcommand (\"\" for the command line itself) to the lines added at "
        "the end of its help (tool/driver.h FrontEnd). Returns the exit "
        "status.");
}

}  // namespace python
}  // namespace hloff
