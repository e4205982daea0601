// The renderers of pipeline results: what the command line prints.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "diag/group.h"
#include "diag/render.h"
#include "pipeline/pipeline.h"
#include "report/graphviz.h"
#include "report/render.h"
#include "text/printer.h"

namespace hloff {
namespace {

// Whether `command` writes modules as its output.
bool PrintsModules(Command command) {
  return command == Command::kOpt || command == Command::kFix ||
         command == Command::kFmt;
}

bool AllSucceeded(const std::vector<const PipelineResult*>& results) {
  for (const PipelineResult* result : results) {
    if (result->exit_status != kExitOk) return false;
  }
  return true;
}

// A parse error as the parser renders it (location, message, caret), then
// the notes of its HO0001 (a `.mlir` file's).
void AppendParseError(const ModuleResult& module, const std::string& path,
                      std::string& out) {
  absl::StrAppend(&out, module.parse_error, "\n");
  for (const Diagnostic& d : module.diagnostics) {
    for (const Note& note : d.notes) {
      absl::StrAppend(&out, path, ": note: ", note.message, "\n");
    }
  }
}

}  // namespace

std::string RenderDiagnostics(const PipelineResult& result,
                              DiagnosticFormat format,
                              const RenderOptions& render) {
  std::string out;
  if (!result.read_error.empty()) {
    return absl::StrCat("hlo-offload: error: ", result.read_error, "\n");
  }
  if (result.command == Command::kReport) {
    for (const ModuleResult& module : result.modules) {
      if (module.parse_failed) {
        AppendParseError(module, result.path, out);
      } else if (!module.report_error.empty()) {
        absl::StrAppend(&out, "hlo-offload: error: ", result.path, ": ",
                        module.report_error, "\n");
      }
    }
    return out;
  }
  // With several files, each file's trace and XLA-format statuses say
  // which file they are about (text diagnostics carry it already).
  if (render.several_files && result.trace_kept) {
    absl::StrAppend(&out, "hlo-offload: trace of ", result.path, ":\n");
  }
  absl::string_view text =
      result.input != nullptr ? result.input->text() : absl::string_view();
  SourceText source{result.path, text, {}};
  for (const ModuleResult& module : result.modules) {
    out += module.trace;
    if (format == DiagnosticFormat::kJson || format == DiagnosticFormat::kSarif) {
      continue;
    }
    if (module.parse_failed) {
      AppendParseError(module, result.path, out);
    } else if (format == DiagnosticFormat::kXla) {
      for (const Diagnostic& d : module.diagnostics) {
        if (d.severity != Severity::kError) continue;
        if (render.several_files) absl::StrAppend(&out, result.path, ": ");
        absl::StrAppend(&out, RenderXla(d), "\n");
        break;
      }
    } else {
      // A group (diag/group.h) is printed once, where its first diagnostic
      // is, listing the outputs of the others.
      DiagnosticGroups groups(module.diagnostics);
      std::vector<const Diagnostic*> folded;
      for (size_t i = 0; i < module.diagnostics.size(); ++i) {
        if (groups.Leader(i) != i) continue;
        folded.clear();
        if (groups.Folds(i)) {
          for (size_t j : groups.Followers(i)) folded.push_back(&module.diagnostics[j]);
        }
        out += RenderText(module.diagnostics[i], source, folded);
      }
    }
  }
  return out;
}

std::string RenderJson(const std::vector<const PipelineResult*>& results) {
  nlohmann::json files = nlohmann::json::array();
  for (const PipelineResult* result : results) {
    if (!result->read_error.empty()) {
      // Scripts reading the JSON see every input, the unreadable ones too.
      files.push_back({{"file", result->file},
                       {"error", result->read_error},
                       {"diagnostics", nlohmann::json::array()}});
      continue;
    }
    for (const ModuleResult& module : result->modules) {
      nlohmann::json diagnostics = nlohmann::json::array();
      DiagnosticGroups groups(module.diagnostics);
      for (size_t i = 0; i < module.diagnostics.size(); ++i) {
        nlohmann::json j = DiagnosticToJson(module.diagnostics[i]);
        // Only a diagnostic that folds with others is marked: a document
        // without groups is what it was.
        if (groups.Folds(i)) {
          j["group"] = groups.Leader(i);
          j["group_size"] = groups.Size(i);
        }
        diagnostics.push_back(std::move(j));
      }
      files.push_back({{"file", result->path},
                       {"module", module.module_name},
                       {"diagnostics", diagnostics}});
    }
  }
  nlohmann::json document({{"version", 1}, {"files", files}});
  // Every input of one run is checked with the same XLA's semantics.
  if (!results.empty() && !results.front()->xla_semantics.empty()) {
    document["xla_semantics"] = results.front()->xla_semantics;
  }
  return DumpJson(document) + "\n";
}

std::string RenderJson(const PipelineResult& result) {
  return RenderJson(std::vector<const PipelineResult*>{&result});
}

std::string RenderSarif(const std::vector<const PipelineResult*>& results) {
  std::vector<FileDiagnostics> files;
  for (const PipelineResult* result : results) {
    for (const ModuleResult& module : result->modules) {
      files.push_back({result->path, module.module_name, module.diagnostics});
    }
  }
  return DumpJson(RenderSarif(files, ToolVersion())) + "\n";
}

std::string RenderSarif(const PipelineResult& result) {
  return RenderSarif(std::vector<const PipelineResult*>{&result});
}

void CheckSummary::Add(const PipelineResult& result) {
  ++files_;
  if (!result.read_error.empty()) ++unread_;
  for (const ModuleResult& module : result.modules) {
    for (const Diagnostic& d : module.diagnostics) {
      ++counts_[{static_cast<int>(d.severity), static_cast<int>(d.code)}];
    }
  }
}

void CheckSummary::AddDiagnostic(Severity severity, DiagCode code) {
  ++counts_[{static_cast<int>(severity), static_cast<int>(code)}];
}

void CheckSummary::AddUnreadFile() {
  ++files_;
  ++unread_;
}

std::string CheckSummary::Render() const {
  std::string out = absl::StrCat("hlo-offload: ", files_,
                                 files_ == 1 ? " file" : " files", " checked: ");
  if (unread_ > 0) absl::StrAppend(&out, unread_, " could not be read, ");
  // "2 errors (E1200 x2)", or "no errors".
  auto part = [&](Severity severity, absl::string_view word) {
    size_t total = 0;
    std::string codes;
    for (const auto& [key, n] : counts_) {
      if (key.first != static_cast<int>(severity)) continue;
      total += n;
      absl::StrAppend(&codes, codes.empty() ? "" : ", ",
                      DiagCodeString(static_cast<DiagCode>(key.second)),
                      n > 1 ? absl::StrCat(" x", n) : "");
    }
    if (total == 0) return absl::StrCat("no ", word, "s");
    return absl::StrCat(total, " ", word, total == 1 ? "" : "s", " (", codes, ")");
  };
  absl::StrAppend(&out, part(Severity::kError, "error"), ", ",
                  part(Severity::kWarning, "warning"));
  std::string notes = part(Severity::kNote, "note");
  if (!absl::StartsWith(notes, "no ")) absl::StrAppend(&out, ", ", notes);
  return out + "\n";
}

std::string RenderReports(const std::vector<const PipelineResult*>& results,
                          ReportFormat format) {
  if (!AllSucceeded(results)) return "";
  std::vector<const Report*> reports;
  for (const PipelineResult* result : results) {
    for (const ModuleResult& module : result->modules) {
      if (module.report.has_value()) reports.push_back(&*module.report);
    }
  }
  std::string rendered;
  switch (format) {
    case ReportFormat::kJson: {
      constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
      if (reports.size() == 1) {
        rendered = ReportToJson(*reports.front()).dump(2, ' ', /*ensure_ascii=*/false, kReplace);
      } else {
        nlohmann::ordered_json all = nlohmann::ordered_json::array();
        for (const Report* report : reports) all.push_back(ReportToJson(*report));
        rendered = all.dump(2, ' ', /*ensure_ascii=*/false, kReplace);
      }
      rendered += "\n";
      break;
    }
    case ReportFormat::kDot:
      for (const Report* report : reports) rendered += RenderReportDot(*report);
      break;
    case ReportFormat::kHtml: {
      std::vector<HtmlSection> sections;
      for (const Report* report : reports) {
        sections.push_back({report, RenderDotToSvg(RenderReportDot(*report))});
      }
      rendered = RenderReportHtml(sections);
      break;
    }
    case ReportFormat::kText:
      for (size_t i = 0; i < reports.size(); ++i) {
        if (i > 0) rendered += "// -----\n";
        rendered += RenderReportText(*reports[i]);
      }
      break;
  }
  return rendered;
}

std::string RenderReports(const PipelineResult& result, ReportFormat format) {
  return RenderReports(std::vector<const PipelineResult*>{&result}, format);
}

void WritePrintedModules(const std::vector<const PipelineResult*>& results,
                         const std::function<void(absl::string_view)>& sink) {
  if (!AllSucceeded(results)) return;
  // fix of one input with nothing to fix: the input's own text. (Of
  // several inputs, each module with nothing to fix is printed as its text.)
  if (results.size() == 1 && results[0]->command == Command::kFix &&
      results[0]->unchanged && results[0]->input != nullptr) {
    sink(results[0]->input->text());
    return;
  }
  bool any = false;
  for (const PipelineResult* result : results) {
    if (!PrintsModules(result->command)) continue;
    // Modules of several inputs are separated as --split-input-file reads.
    if (any && !result->modules.empty()) sink("// -----\n");
    for (size_t i = 0; i < result->modules.size(); ++i) {
      const ModuleResult& module = result->modules[i];
      if (i > 0) sink("// -----\n");
      any = true;
      if (!module.printed.empty() || module.module == nullptr) {
        sink(module.printed);
      } else {
        PrintModule(*module.module, sink);
      }
    }
  }
}

std::string PrintedModules(const std::vector<const PipelineResult*>& results) {
  std::string printed;
  WritePrintedModules(results, [&](absl::string_view text) {
    printed.append(text.data(), text.size());
  });
  return printed;
}

std::string PrintedModules(const PipelineResult& result) {
  return PrintedModules(std::vector<const PipelineResult*>{&result});
}

}  // namespace hloff
