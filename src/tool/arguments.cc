// The usage errors of the hlo-offload command line (tool/arguments.h): the
// arguments refused before CLI11 parses, CLI11's own refusals in the
// program's words, and the empty values it would take for defaults.
#include "tool/arguments.h"

#include <algorithm>
#include <ostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace tool {
namespace {

// Levenshtein distance between two short words (subcommand suggestions).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The subcommand `word` may have been meant for (a near miss), or "".
std::string ClosestSubcommand(const CLI::App& app, absl::string_view word) {
  std::string closest;
  size_t best = 3;  // suggest only near misses
  for (const CLI::App* sub : app.get_subcommands({})) {
    size_t d = EditDistance(word, sub->get_name());
    if (d < best) {
      best = d;
      closest = sub->get_name();
    }
  }
  return closest;
}

// The subcommand `args` name: the first argument that is not an option (the
// global options are flags). Refuses an unknown one with a usage error and
// the closest name; returns the exit status, or -1 to go on.
int FindSubcommand(const CLI::App& app, const std::vector<std::string>& args,
                   std::string& subcommand, std::ostream& err) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (!a.empty() && a[0] == '-') continue;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == a) subcommand = a;
    }
    if (!subcommand.empty()) break;
    std::string closest = ClosestSubcommand(app, a);
    err << "hlo-offload: error: unknown subcommand '" << a << "'";
    if (!closest.empty()) err << " (did you mean '" << closest << "'?)";
    err << "\nRun 'hlo-offload --help' for usage.\n";
    return kExitUsage;
  }
  return -1;
}

// CLI11's refusal `e` in the program's words: the message and a pointer at
// the help of the subcommand the mistake was made in.
std::string ParseErrorText(const CLI::App& app, const CLI::ParseError& e) {
  std::string help = "hlo-offload --help";
  std::string subcommand;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->parsed()) subcommand = sub->get_name();
  }
  if (!subcommand.empty()) help = "hlo-offload " + subcommand + " --help";
  std::string message = e.what();
  // Several files where one is taken: said in the program's words.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
      absl::StartsWith(message, "FILE:") && !subcommand.empty()) {
    message = absl::StrCat(subcommand,
                           " takes one FILE (a file, a directory, or -); "
                           "check takes several");
  }
  return absl::StrCat("hlo-offload: error: ", message, "\nRun '", help,
                      "' for usage.\n");
}

}  // namespace

int UsageError(std::ostream& err, absl::string_view message) {
  err << "hlo-offload: error: " << message << "\n";
  return kExitUsage;
}

absl::string_view CommandName(Command command) {
  switch (command) {
    case Command::kCheck: return "check";
    case Command::kOpt: return "opt";
    case Command::kFix: return "fix";
    case Command::kFmt: return "fmt";
    case Command::kReport: return "report";
  }
  return "";
}

int FrontEndUsageError(std::ostream& err, Command command,
                       absl::string_view message) {
  err << "hlo-offload: error: " << message << "\nRun 'hlo-offload "
      << CommandName(command) << " --help' for usage.\n";
  return kExitUsage;
}

int RefuseMisreadArguments(const CLI::App& app,
                           const std::vector<std::string>& args,
                           std::ostream& err) {
  std::string subcommand;
  if (int status = FindSubcommand(app, args, subcommand, err); status >= 0) {
    return status;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' &&
        a.find('=') == a.size() - 1) {
      err << "hlo-offload: error: '" << a << "' has nothing after '='\n"
          << "Run 'hlo-offload " << subcommand << (subcommand.empty() ? "" : " ")
          << "--help' for usage.\n";
      return kExitUsage;
    }
  }
  return -1;
}

int ParseArguments(CLI::App& app, const std::vector<std::string>& args,
                   std::ostream& out, std::ostream& err) {
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    err << ParseErrorText(app, e);
    return kExitUsage;
  }
  return -1;
}

int RefuseEmptyValues(const CLI::App& app, std::ostream& err) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->parsed()) continue;
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->nonpositional() || o->get_type_size() == 0 || o->count() == 0) {
        continue;
      }
      for (const std::string& r : o->results()) {
        if (!r.empty()) continue;
        const auto& long_names = o->get_lnames();
        err << "hlo-offload: error: "
            << (long_names.empty() ? o->get_name() : "--" + long_names.front())
            << " needs a value (it is empty)\n"
            << "Run 'hlo-offload " << sub->get_name() << " --help' for usage.\n";
        return kExitUsage;
      }
    }
  }
  return -1;
}

}  // namespace tool
}  // namespace hloff
