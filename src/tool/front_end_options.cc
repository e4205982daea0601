// The front end's options on the command line (tool/front_end_options.h).
// Their usage errors are those the Python package's console command gave
// when it read them from the arguments itself, word for word.
#include "tool/front_end_options.h"

#include <optional>
#include <ostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "pipeline/choices.h"
#include "tool/arguments.h"

namespace hloff {
namespace tool {
namespace {

// The XLA compile-only client `value` names ("gpu" is "cuda"; case does not
// matter), or nullopt.
std::optional<std::string> XlaClient(absl::string_view value) {
  std::string client = absl::AsciiStrToLower(value);
  if (client == "gpu") client = "cuda";
  if (client == "tpu" || client == "cuda") return client;
  return std::nullopt;
}

// The arguments before `--` (args[0], the program, left out).
std::vector<std::string> OptionArguments(const std::vector<std::string>& args) {
  std::vector<std::string> options;
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    options.push_back(args[i]);
  }
  return options;
}

// The subcommand of `app` the arguments name (the first that is not an
// option), or nullptr.
const CLI::App* NamedSubcommand(const CLI::App& app,
                                const std::vector<std::string>& options) {
  for (const std::string& a : options) {
    if (!a.empty() && a[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) return sub;
    }
    return nullptr;
  }
  return nullptr;
}

// The usage error `message` for `command`, pointing at its help.
int Refuse(std::ostream& err, const std::string& command,
           absl::string_view message) {
  err << "hlo-offload: error: " << message << "\nRun 'hlo-offload " << command
      << " --help' for usage.\n";
  return kExitUsage;
}

// --xla and --xla-topology as the console command read them: each
// occurrence in order, its value `--name=V` or the next argument. Returns
// the usage error's message, or "".
std::string XlaOptionsProblem(const std::string& command,
                              const std::vector<std::string>& options) {
  bool takes = command == "check" || command == "fix" || command == "report";
  bool xla = false, topology = false;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& a = options[i];
    size_t eq = a.find('=');
    std::string name = a.substr(0, eq);
    if (name != "--xla" && name != "--xla-topology") continue;
    if (!takes) return name + " is an option of check, fix and report";
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < options.size()) {
      value = options[++i];
    } else {
      return name + " needs a value";
    }
    if (value.empty()) {
      return eq != std::string::npos ? "'" + a + "' has nothing after '='"
                                     : name + " needs a value";
    }
    if (name == "--xla-topology") {
      topology = true;
      continue;
    }
    if (!XlaClient(value)) {
      return absl::StrCat("--xla: '", value,
                          "' is not tpu or cuda (XLA's compile-only clients: "
                          "libtpu, the CUDA plugin)");
    }
    xla = true;
  }
  if (topology && !xla) return "--xla-topology is for --xla=tpu or --xla=cuda";
  return "";
}

// --platform as the console command read it: a value must follow.
std::string PlatformProblem(const std::vector<std::string>& options) {
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i] == "--platform" && i + 1 == options.size()) {
      return "--platform needs a value";
    }
  }
  return "";
}

// --xla with what it does not work with, for `command`; "" when none.
std::string XlaUseProblem(Command command, const Flags& flags,
                          const std::string& client) {
  if (flags.split_input_file) {
    return "--xla compiles one module per file: check the modules of a split "
           "file one by one";
  }
  if (command == Command::kCheck && flags.format == "sarif") {
    return "--xla works with --format=text, xla or json";
  }
  if (command == Command::kReport && flags.format != "text" &&
      flags.format != "json") {
    return "--xla works with --format=text or json";
  }
  std::string wanted = client == "cuda" ? "gpu" : "tpu";
  const std::string& given = flags.backend;
  if (!given.empty() && given != wanted && given != "any" &&
      !(wanted == "gpu" && given == "cuda")) {
    return absl::StrCat("--backend=", given,
                        " checks for another backend than --xla=", client,
                        " compiles for: leave --backend out, or give --backend=",
                        wanted);
  }
  return "";
}

}  // namespace

void AddFrontEndOptions(const Subcommands& subs, Flags& flags) {
  for (CLI::App* sub : {subs.check, subs.opt, subs.fix, subs.fmt, subs.report}) {
    sub->add_option("--platform", flags.platform,
                    "what the front end's FILEs (.mlir: StableHLO) were lowered "
                    "for: tpu, cuda, rocm or cpu (the text does not say)")
        ->type_name("PLATFORM")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  for (CLI::App* sub : {subs.check, subs.report}) {
    sub->add_flag("--no-partition", flags.no_partition,
                  "take an HLO FILE of several partitions as written, as one "
                  "partition (by default XLA's SPMD partitioner runs first "
                  "where jax is installed; docs/SHARDED.md)");
  }
  for (CLI::App* sub : {subs.check, subs.fix, subs.report}) {
    sub->add_option("--xla", flags.xla,
                    sub == subs.report
                        ? "also compile each FILE with XLA's compile-only "
                          "client: its verdict and memory analysis beside the "
                          "report's per-device bytes"
                        : "also compile each FILE with XLA's compile-only "
                          "client and put its verdict beside ours (install-xla "
                          "first)")
        ->type_name("tpu|cuda")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    sub->add_option("--xla-topology", flags.xla_topology,
                    "what --xla compiles for (a TPU topology such as v5e:2x4; "
                    "for cuda a GPU target config file)")
        ->type_name("T")
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
}

int RefuseMisplacedFrontEndOptions(const CLI::App& app,
                                   const std::vector<std::string>& args,
                                   std::ostream& err) {
  std::vector<std::string> options = OptionArguments(args);
  for (const std::string& a : options) {
    if (a == "-h" || a == "--help") return -1;  // the help comes first
  }
  const CLI::App* sub = NamedSubcommand(app, options);
  if (sub == nullptr) return -1;
  const std::string& command = sub->get_name();
  std::string problem = XlaOptionsProblem(command, options);
  if (problem.empty() && command != "check" && command != "report") {
    for (const std::string& a : options) {
      if (a == "--no-partition") {
        problem = "--no-partition is an option of check and report";
      }
    }
  }
  if (problem.empty() && sub->get_option_no_throw("--platform") != nullptr) {
    problem = PlatformProblem(options);
  }
  if (problem.empty()) return -1;
  return Refuse(err, command, problem);
}

int TakeFrontEndOptions(Command command, Flags& flags, std::ostream& err) {
  FrontEndOptions& options = flags.front_end_options;
  options.platform = flags.platform;
  options.partition =
      (command == Command::kCheck || command == Command::kReport) &&
      !flags.no_partition;
  options.xla_topology = flags.xla_topology;
  options.split_input = flags.split_input_file;
  if (flags.xla.empty()) return -1;
  // Each --xla was checked before CLI11 parsed (XlaOptionsProblem).
  options.xla = XlaClient(flags.xla).value_or("");
  std::string problem = XlaUseProblem(command, flags, options.xla);
  if (!problem.empty()) return FrontEndUsageError(err, command, problem);
  // XLA compiles for this backend: the check is for it too, so that what its
  // compiler refuses (HO1012 to HO1016) is an error, as XLA's verdict is.
  if (flags.backend.empty()) flags.backend = options.xla == "cuda" ? "gpu" : "tpu";
  return -1;
}

}  // namespace tool
}  // namespace hloff
