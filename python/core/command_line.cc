// The console command's half of the extension: FrontEndInput, what its
// front end made of one input file (a StableHLO file converted to HLO, or
// why not), and run_command_line, the hlo-offload command line run in this
// process with those files converted by Python.
#include <nanobind/nanobind.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
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

// run_command_line(args, reads, convert): the hlo-offload command line
// (tool/driver.h RunTool) on `args` (args[0] the program's name), writing to
// this process's standard output and error, with the files `reads` claims
// converted by `convert` (the console command's StableHLO files). Returns
// the exit status. The GIL is released, and taken again for each callback.
int RunCommandLine(const std::vector<std::string>& args,
                   std::function<bool(const std::string&)> reads,
                   std::function<FrontEndInput(const std::string&, bool)> convert) {
  FrontEnd front_end{std::move(reads), std::move(convert)};
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
  m.def("run_command_line", &RunCommandLine, "args"_a, "reads"_a, "convert"_a,
        "Runs the hlo-offload command line on args (args[0] is the program's "
        "name) in this process, writing to its standard output and error; "
        "the files reads(file) claims are converted by convert(file, "
        "split_input) into a FrontEndInput. Returns the exit status.");
}

}  // namespace python
}  // namespace hloff
