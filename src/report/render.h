// Renderers of the offload report: plain text (for people and FileCheck),
// JSON (the keys of docs/CLI.md "Report JSON", documented in docs/REPORT.md),
// Graphviz DOT of the offload-relevant subgraph, and one self-contained HTML
// page with the tables and the picture.
#ifndef HLO_OFFLOAD_REPORT_RENDER_H_
#define HLO_OFFLOAD_REPORT_RENDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "report/report.h"

namespace hloff {

// The report as text: the verdict, one block per offloaded tensor (bytes,
// source, ends), host bytes in/out/intermediate, transfers per loop, and the
// pipeline's outcome. Ends with a newline.
std::string RenderReportText(const Report& report);

// The report as one JSON object (docs/REPORT.md), keys in documentation
// order. Byte counts are integers.
nlohmann::ordered_json ReportToJson(const Report& report);

// The offload-relevant subgraph as a Graphviz digraph: one cluster per
// computation, host-memory values filled in one colour, annotations and
// inserted copies drawn apart, E1200 paths in red, context instructions in
// grey. Node ids are instruction names.
std::string RenderReportDot(const Report& report);

// One module's part of an HTML page: its report and its picture, either the
// SVG Graphviz made from RenderReportDot or the reason there is none.
struct HtmlSection {
  const Report* report = nullptr;
  absl::StatusOr<std::string> svg;
};

// A self-contained HTML page (no scripts, no network): per module the
// verdict, the tables and the picture inlined as SVG. Where the SVG is
// missing, the page says how to install Graphviz and shows the DOT source.
std::string RenderReportHtml(const std::vector<HtmlSection>& sections);

// `n bytes`, with a binary-unit figure when n >= 1024: `32768 bytes (32.0 KiB)`.
std::string HumanBytes(int64_t bytes);

// "lb_stack2 writes the value carried in element {3} at index lb_im1 = i-1:
// the write for iteration i happens in iteration i+1".
std::string PipelinedWriteSentence(const PipelinedWrite& write);
// How many host writes a pipelined write makes: with a trip count of 4 and
// one peeled write, "4 in the loop (...) + 1 peeled after it (stack_done) = 5".
std::string PipelinedWriteCount(const PipelinedWrite& write,
                                std::optional<int64_t> trip_count);

}  // namespace hloff

#endif  // HLO_OFFLOAD_REPORT_RENDER_H_
