// Diagnostic renderers.
#include "diag/render.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "diag/docs.h"
#include "diag/group.h"

namespace hloff {
namespace {

// `path` as a URI reference (RFC 3986), as SARIF's artifactLocation.uri
// wants it: `file://` before an absolute path, every byte but unreserved
// characters and `/` percent-encoded (a space, `#`, `%`, non-ASCII UTF-8).
std::string UriReference(absl::string_view path) {
  // An absolute path is a file: URI; a relative one stays relative.
  std::string out = absl::StartsWith(path, "/") ? "file://" : "";
  for (char c : path) {
    unsigned char u = static_cast<unsigned char>(c);
    if (absl::ascii_isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' ||
        c == '/') {
      out += c;
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

// The word for a severity in text diagnostics.
absl::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

// SARIF's `level` for a severity: the same words.
std::string SarifLevel(Severity severity) {
  return std::string(SeverityName(severity));
}

// The text of 1-based `line` of the source (without the newline).
absl::string_view LineOf(const SourceText& source, uint32_t line) {
  absl::string_view text = source.text;
  std::vector<size_t>& starts = source.line_starts;
  if (line == 0) return {};
  if (starts.empty()) starts.push_back(0);
  while (starts.size() < line) {
    size_t nl = text.find('\n', starts.back());
    if (nl == absl::string_view::npos) return {};
    starts.push_back(nl + 1);
  }
  size_t start = starts[line - 1];
  size_t end = text.find('\n', start);
  if (end == absl::string_view::npos) end = text.size();
  if (end > start && text[end - 1] == '\r') --end;  // CRLF text
  return text.substr(start, end - start);
}

std::string Position(const SourceText& source, SourceLoc loc) {
  if (!loc.known()) return absl::StrCat(source.path, ":");
  return absl::StrCat(source.path, ":", loc.line, ":", loc.column, ":");
}

}  // namespace

std::string RenderText(const Diagnostic& d, const SourceText& source,
                       absl::Span<const Diagnostic* const> folded) {
  // A note that belongs to another diagnostic's code (a summary line) is one
  // line; a note-level lint of its own (HO3010, ...) is rendered in full.
  if (d.severity == Severity::kNote &&
      DiagCodeSeverity(d.code) != Severity::kNote) {
    return absl::StrCat(Position(source, d.loc), " note: ", d.message, "\n");
  }
  std::string out = absl::StrCat(
      d.primary_file.empty()
          ? Position(source, d.loc)
          : absl::StrCat(d.primary_file, ":", d.primary_line, ":"),
      " ", SeverityName(d.severity), ": ", DiagCodeString(d.code), ": ",
      DiagCodeName(d.code), ": ", d.message, "\n");
  if (!d.primary_file.empty()) {
    // The place in the module converted from the user's file, with its line.
    absl::StrAppend(&out, "  ", Position(source, d.loc),
                    " note: in the HLO module converted from it\n");
  }
  if (d.loc.known()) {
    absl::string_view line = LineOf(source, d.loc.line);
    if (!line.empty() && line.size() < 400) {
      absl::StrAppend(&out, line, "\n",
                      std::string(d.loc.column > 0 ? d.loc.column - 1 : 0, ' '),
                      "^\n");
    }
  }
  // JAX names, only where the caller gave them.
  // The outputs of the folded diagnostics follow the note that names this
  // one's output: its JAX path, else its own notes (E1200's "it is returned
  // as entry output {0}").
  std::string folded_note =
      folded.empty() ? std::string()
                     : absl::StrCat("  note: ", FoldedOutputsNote(d, folded), "\n");
  if (!d.output_path.empty()) {
    absl::StrAppend(&out, "  note: JAX output: ", d.output_path, "\n",
                    folded_note);
    folded_note.clear();
  }
  if (!d.input_path.empty()) {
    absl::StrAppend(&out, "  note: JAX input: ", d.input_path, "\n");
  }
  for (const Note& note : d.notes) {
    absl::StrAppend(&out, "  ", Position(source, note.loc), " note: ",
                    note.message, "\n");
  }
  out += folded_note;
  if (!d.path.empty()) {
    absl::StrAppend(&out, "  note: path taken:\n");
    for (const PathHop& hop : d.path) {
      absl::StrAppend(&out, "    ", Position(source, hop.loc), " ",
                      hop.instruction, " ", ShapeIndexToString(hop.shape_index),
                      " in ", hop.computation, "\n");
    }
  }
  if (d.source.has_value()) {
    std::string where = d.source->file.empty()
                            ? std::string("")
                            : absl::StrCat(d.source->file, ":", d.source->line);
    absl::StrAppend(&out, "  note: from your program: ",
                    where.empty() ? d.source->op_name
                                  : absl::StrCat(where, d.source->op_name.empty()
                                                            ? ""
                                                            : " (" + d.source->op_name + ")"),
                    "\n");
  }
  for (const Fix& fix : d.fixes) {
    absl::StrAppend(&out, "  note: fix (", fix.strategy, "): ", fix.description,
                    "\n");
  }
  if (d.severity == Severity::kError) {
    absl::StrAppend(&out, "  note: see ", DiagCodeHelpUri(d.code),
                    " or run `hlo-offload explain ", DiagCodeString(d.code),
                    "`\n");
  }
  return out;
}

std::string RenderXla(const Diagnostic& d) {
  absl::Status status = ToXlaStatus(d);
  if (status.ok()) return absl::StrCat("WARNING: ", d.message);
  return status.ToString();
}

nlohmann::json DiagnosticToJson(const Diagnostic& d) {
  nlohmann::json j;
  j["severity"] = std::string(SeverityName(d.severity));
  j["code"] = std::string(DiagCodeString(d.code));
  j["name"] = std::string(DiagCodeName(d.code));
  j["message"] = d.message;
  if (!d.instruction.empty()) j["instruction"] = d.instruction;
  if (!d.computation.empty()) j["computation"] = d.computation;
  if (!d.start.empty()) j["start"] = d.start;
  if (d.output_index.has_value()) j["output_index"] = ShapeIndexToJson(*d.output_index);
  if (!d.output_path.empty()) j["output_path"] = d.output_path;
  if (!d.input_path.empty()) j["input_path"] = d.input_path;
  if (!d.primary_file.empty()) {
    j["primary_location"] = {{"file", d.primary_file},
                             {"line", d.primary_line}};
  }
  if (d.loc.known()) {
    j["location"] = {{"line", d.loc.line}, {"column", d.loc.column}};
  }
  if (!d.path.empty()) {
    nlohmann::json path = nlohmann::json::array();
    for (const PathHop& hop : d.path) {
      nlohmann::json h = {{"instruction", hop.instruction},
                          {"computation", hop.computation},
                          {"shape_index", ShapeIndexToJson(hop.shape_index)}};
      if (hop.loc.known()) {
        h["location"] = {{"line", hop.loc.line}, {"column", hop.loc.column}};
      }
      path.push_back(std::move(h));
    }
    j["path"] = std::move(path);
  }
  if (d.source.has_value()) {
    nlohmann::json s;
    if (!d.source->file.empty()) s["file"] = d.source->file;
    if (d.source->line != 0) s["line"] = d.source->line;
    if (!d.source->op_name.empty()) s["op_name"] = d.source->op_name;
    j["source"] = std::move(s);
  }
  if (!d.notes.empty()) {
    nlohmann::json notes = nlohmann::json::array();
    for (const Note& note : d.notes) {
      nlohmann::json n = {{"message", note.message}};
      if (note.loc.known()) {
        n["location"] = {{"line", note.loc.line}, {"column", note.loc.column}};
      }
      notes.push_back(std::move(n));
    }
    j["notes"] = std::move(notes);
  }
  nlohmann::json fixes = nlohmann::json::array();
  for (const Fix& fix : d.fixes) {
    fixes.push_back({{"strategy", fix.strategy}, {"description", fix.description}});
  }
  j["fixes"] = std::move(fixes);
  j["help_uri"] = DiagCodeHelpUri(d.code);
  return j;
}

nlohmann::json RenderSarif(const std::vector<FileDiagnostics>& files,
                           absl::string_view tool_version) {
  nlohmann::json rules = nlohmann::json::array();
  for (DiagCode code : AllDiagCodes()) {
    nlohmann::json rule = {
        {"id", std::string(DiagCodeString(code))},
        {"name", std::string(DiagCodeName(code))},
        {"shortDescription", {{"text", std::string(DiagCodeSummary(code))}}},
        {"defaultConfiguration",
         {{"level", SarifLevel(DiagCodeSeverity(code))}}}};
    // XLA's codes have a public page; ours carry their page inline.
    if (IsXlaErrorCode(code)) rule["helpUri"] = DiagCodeHelpUri(code);
    absl::string_view page = DiagnosticDocumentation(code);
    rule["help"] = {{"text", std::string(DiagCodeSummary(code))},
                    {"markdown", std::string(page)}};
    rules.push_back(std::move(rule));
  }
  nlohmann::json results = nlohmann::json::array();
  // The results of the file so far, before this module's: groups are
  // numbered by their first result's position in the file.
  size_t in_file = 0;
  const std::string* previous_file = nullptr;
  for (const FileDiagnostics& file : files) {
    if (previous_file == nullptr || *previous_file != file.file) in_file = 0;
    previous_file = &file.file;
    DiagnosticGroups groups(file.diagnostics);
    size_t module_base = in_file;
    in_file += file.diagnostics.size();
    for (size_t i = 0; i < file.diagnostics.size(); ++i) {
      const Diagnostic& d = file.diagnostics[i];
      auto location = [&](SourceLoc loc, absl::string_view message) {
        nlohmann::json physical = {
            {"artifactLocation", {{"uri", UriReference(file.file)}}}};
        if (loc.known()) {
          physical["region"] = {{"startLine", loc.line},
                                {"startColumn", loc.column}};
        }
        nlohmann::json l = {{"physicalLocation", physical}};
        if (!message.empty()) l["message"] = {{"text", std::string(message)}};
        return l;
      };
      nlohmann::json result = {
          {"ruleId", std::string(DiagCodeString(d.code))},
          {"level", SarifLevel(d.severity)},
          {"message", {{"text", d.message}}},
          {"locations", nlohmann::json::array({location(d.loc, "")})}};
      if (!d.primary_file.empty()) {
        // The user's file first; the converted module's line as related.
        result["locations"] = nlohmann::json::array(
            {{{"physicalLocation",
               {{"artifactLocation", {{"uri", UriReference(d.primary_file)}}},
                {"region", {{"startLine", d.primary_line}}}}}}});
        result["relatedLocations"] = nlohmann::json::array(
            {location(d.loc, "in the HLO module converted from it")});
      }
      int rule_index = 0;
      for (DiagCode code : AllDiagCodes()) {
        if (code == d.code) break;
        ++rule_index;
      }
      result["ruleIndex"] = rule_index;
      if (!d.path.empty()) {
        nlohmann::json locations = nlohmann::json::array();
        for (const PathHop& hop : d.path) {
          locations.push_back(
              {{"location",
                location(hop.loc, absl::StrCat(hop.instruction, " ",
                                               ShapeIndexToString(hop.shape_index),
                                               " in ", hop.computation))}});
        }
        result["codeFlows"] = nlohmann::json::array(
            {{{"threadFlows",
               nlohmann::json::array({{{"locations", locations}}})}}});
      }
      if (!d.fixes.empty()) {
        nlohmann::json props = nlohmann::json::array();
        for (const Fix& fix : d.fixes) {
          props.push_back({{"strategy", fix.strategy},
                           {"description", fix.description}});
        }
        result["properties"] = {{"fixes", props}};
      }
      if (d.output_index.has_value()) {
        result["properties"]["output_index"] =
            nlohmann::json(std::vector<int64_t>(d.output_index->begin(),
                                                d.output_index->end()));
      }
      if (groups.Folds(i)) {
        result["properties"]["group"] = module_base + groups.Leader(i);
        result["properties"]["group_size"] = groups.Size(i);
      }
      results.push_back(std::move(result));
    }
  }
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           nlohmann::json::array(
               {{{"tool",
                  {{"driver",
                    {{"name", "hlo-offload"},
                     {"version", std::string(tool_version)},
                     {"informationUri", "https://openxla.org/xla/errors/error_1200"},
                     {"rules", rules}}}}},
                 {"results", results}}})}};
}

std::string DumpJson(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hloff
