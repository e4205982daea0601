// `hlo-offload report`.
#include "tool/report_command.h"

#include <memory>
#include <ostream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/graphviz.h"
#include "report/render.h"
#include "report/report.h"
#include "text/parser.h"
#include "tool/driver.h"

namespace hloff {

CLI::App* AddReportSubcommand(CLI::App& app, ReportCommandOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report",
      "what is offloaded: every offloaded tensor, its bytes, where each path "
      "ends, host bytes at the entry boundary, transfers, a picture");
  report->add_option("--format", options.format,
                     "text (default), json, dot (Graphviz) or html (one "
                     "self-contained page with the picture)")
      ->check(CLI::IsMember({"text", "json", "dot", "html"}));
  report->add_option("-o,--output", options.output,
                     "write the report here (atomically) instead of stdout");
  report->add_flag("--split-input-file", options.split_input_file,
                   "treat lines '// -----' as module separators");
  report->add_option("--max-nodes", options.max_nodes,
                     "draw at most this many path instructions (default 400)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30)
                 .description("a whole number of nodes, 1 or more"));
  report->add_flag("--disable-automatic-host-compute-offload",
                   options.offload.disable_automatic_host_compute_offload,
                   "as for check (xla_disable_automatic_host_compute_offload)");
  report->add_flag(
      "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
      options.offload
          .allow_h2h_copy_when_automatic_host_compute_offload_disabled,
      "as for check");
  report->add_flag("--fix-entry-layout-unless-customized",
                   options.offload.fix_entry_layout_unless_customized,
                   "as for check (XLA V4's entry-layout auto-fix)");
  report->add_option("--pipeline", options.pipeline,
                     "as for check: xla (default) or offload")
      ->check(CLI::IsMember({"xla", "offload"}));
  report->add_option("FILE", options.input, "HLO text file or -")->required();
  return report;
}

int RunReportCommand(const ReportCommandOptions& options, std::ostream& out,
                     std::ostream& err) {
  auto text = ReadInput(options.input);
  if (!text.ok()) {
    err << "hlo-offload: error: " << text.status().message() << "\n";
    return 2;
  }
  const std::string display = options.input == "-" ? "<stdin>" : options.input;
  ReportOptions report_options;
  report_options.offload = options.offload;
  report_options.xla_pipeline = options.pipeline != "offload";
  report_options.max_graph_nodes = options.max_nodes;
  std::vector<Report> reports;
  for (const InputChunk& chunk : SplitInput(*text, options.split_input_file)) {
    ParseOptions parse_options;
    parse_options.path = display;
    parse_options.line_offset = chunk.line_offset;
    auto module = ParseHloModule(chunk.text, parse_options);
    if (!module.ok()) {
      err << module.status().message() << "\n";
      return 2;
    }
    auto report = BuildReport(std::move(*module), display, report_options);
    if (!report.ok()) {
      err << "hlo-offload: error: " << display << ": "
          << report.status().message() << "\n";
      return 2;
    }
    reports.push_back(std::move(*report));
  }
  std::string rendered;
  if (options.format == "json") {
    if (reports.size() == 1) {
      rendered = ReportToJson(reports.front())
                     .dump(2, ' ', false,
                           nlohmann::ordered_json::error_handler_t::replace);
    } else {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      for (const Report& report : reports) all.push_back(ReportToJson(report));
      rendered = all.dump(2, ' ', false,
                          nlohmann::ordered_json::error_handler_t::replace);
    }
    rendered += "\n";
  } else if (options.format == "dot") {
    for (const Report& report : reports) rendered += RenderReportDot(report);
  } else if (options.format == "html") {
    std::vector<HtmlSection> sections;
    for (const Report& report : reports) {
      sections.push_back({&report, RenderDotToSvg(RenderReportDot(report))});
    }
    rendered = RenderReportHtml(sections);
  } else {
    for (size_t i = 0; i < reports.size(); ++i) {
      if (i > 0) rendered += "// -----\n";
      rendered += RenderReportText(reports[i]);
    }
  }
  if (options.output.empty() || options.output == "-") {
    out << rendered;
    return 0;
  }
  if (auto s = WriteFileAtomically(options.output, rendered); !s.ok()) {
    err << "hlo-offload: error: " << s.message() << "\n";
    return 2;
  }
  return 0;
}

}  // namespace hloff
