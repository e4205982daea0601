// The hlo-offload command line as a CLI11 application (docs/CLI.md): the
// global flags, the subcommands with their flags, and the help's footers.
#ifndef HLO_OFFLOAD_TOOL_APP_H_
#define HLO_OFFLOAD_TOOL_APP_H_

#include "CLI/CLI.hpp"
#include "tool/flags.h"

namespace hloff {
namespace tool {

// The global flags (no subcommand).
struct GlobalFlags {
  bool list_passes = false;
  bool version = false;
};

// The subcommands of the application, to ask which one was parsed.
struct Subcommands {
  CLI::App* check = nullptr;
  CLI::App* opt = nullptr;
  CLI::App* fmt = nullptr;
  CLI::App* fix = nullptr;
  CLI::App* explain = nullptr;
  CLI::App* report = nullptr;
};

// The application's description (the first line of the help).
inline constexpr char kAppDescription[] =
    "hlo-offload: XLA's host-memory-offloading passes on HLO text, with "
    "diagnostics that explain every fault";

// Adds the global flags and the subcommands to `app`, which fill in
// `globals` and `flags` as they are parsed.
Subcommands AddSubcommands(CLI::App& app, GlobalFlags& globals, Flags& flags);

}  // namespace tool
}  // namespace hloff

#endif  // HLO_OFFLOAD_TOOL_APP_H_
