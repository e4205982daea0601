// Text, JSON, DOT and HTML renderings of the offload report (render.h).
#include "report/render.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "diag/render.h"

namespace hloff {
namespace {

std::string LocText(const Report& report, SourceLoc loc) {
  if (!loc.known()) return report.file;
  return absl::StrCat(report.file, ":", loc.line, ":", loc.column);
}

std::string LineSuffix(SourceLoc loc) {
  return loc.known() ? absl::StrCat(" (line ", loc.line, ")") : std::string();
}

std::string ProgramSourceText(const ProgramSource& source) {
  std::vector<std::string> parts;
  if (!source.op_name.empty()) {
    parts.push_back(absl::StrCat("op_name \"", source.op_name, "\""));
  }
  if (!source.file.empty()) {
    parts.push_back(absl::StrCat("source ", source.file,
                                 source.line > 0 ? absl::StrCat(":", source.line)
                                                 : std::string()));
  }
  return absl::StrJoin(parts, ", ");
}

// How the tensor got its name (Offload::name_from), in words.
absl::string_view NameFromText(absl::string_view from) {
  if (from == "checkpoint_name") return "its checkpoint_name";
  if (from == "scope") return "a scope in op_name";
  if (from == "op") return "no scope in op_name: the op that computes it";
  if (from == "parameter") return "an entry parameter";
  return from;
}

std::string SourceLine(const ProgramSource& source) {
  if (source.file.empty()) return "";
  return source.line > 0 ? absl::StrCat(source.file, ":", source.line) : source.file;
}

nlohmann::ordered_json SourceJson(const ProgramSource& source) {
  return {{"file", source.file}, {"line", source.line}, {"op_name", source.op_name}};
}

nlohmann::ordered_json OptionalJson(const std::optional<int64_t>& value) {
  return value.has_value() ? nlohmann::ordered_json(*value)
                           : nlohmann::ordered_json(nullptr);
}

absl::string_view KindText(OffloadKind kind) {
  switch (kind) {
    case OffloadKind::kMoveToHost:
      return "MoveToHost";
    case OffloadKind::kHostParameter:
      return "host entry parameter";
    case OffloadKind::kHostCompute:
      return "host compute output";
  }
  return "";
}

std::string EndText(const OffloadEnd& end) {
  switch (end.kind) {
    case EndKind::kMoveToDevice:
      return absl::StrCat("MoveToDevice at ", end.instruction.name,
                          LineSuffix(end.instruction.loc),
                          end.via.empty() ? "" : absl::StrCat(", after ", end.via));
    case EndKind::kHostCompute:
      return absl::StrCat("host compute at ", end.instruction.name,
                          LineSuffix(end.instruction.loc));
    case EndKind::kCustomCall:
      return absl::StrCat("read by custom call ", end.instruction.name,
                          LineSuffix(end.instruction.loc));
    case EndKind::kOutput: {
      std::string text = absl::StrCat(
          "entry output ", ShapeIndexToString(end.output_index.value_or(ShapeIndex{})),
          " at ", end.instruction.name, LineSuffix(end.instruction.loc), ", ",
          end.output_in_host_memory ? "host" : "device", " memory");
      if (end.e1200) {
        absl::StrAppend(&text, ": E1200 (XLA: starting from ", end.walk_start,
                        ")");
      }
      return text;
    }
  }
  return "";
}

nlohmann::ordered_json LocJson(SourceLoc loc) {
  if (!loc.known()) return nullptr;
  return {{"line", loc.line}, {"column", loc.column}};
}

nlohmann::ordered_json IndexJson(const ShapeIndex& index) {
  return ShapeIndexToJson<nlohmann::ordered_json>(index);
}

std::string DotEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

// Colours of the picture (also used by the HTML legend).
constexpr absl::string_view kHostFill = "#9fd3f5";
constexpr absl::string_view kPathColor = "#1f5fa8";
constexpr absl::string_view kErrorColor = "#d62728";
constexpr absl::string_view kInsertedColor = "#e07b00";
constexpr absl::string_view kContextColor = "#9a9a9a";

}  // namespace

std::string PipelinedWriteSentence(const PipelinedWrite& write) {
  return absl::StrCat(write.write.name,
                      " writes the value carried in element {",
                      write.carried_index, "} at index ", write.index, " = i",
                      write.offset, ": the write for iteration i happens in "
                      "iteration i+", -write.offset);
}

std::string PipelinedWriteCount(const PipelinedWrite& write,
                                std::optional<int64_t> trip_count) {
  std::vector<std::string> peeled;
  for (const InstructionRef& ref : write.peeled) peeled.push_back(ref.name);
  std::string after =
      peeled.empty()
          ? std::string("none after it (the last iteration's value is not "
                        "written)")
          : absl::StrCat(peeled.size(), " peeled after it (",
                         absl::StrJoin(peeled, ", "), ")");
  if (!trip_count.has_value()) {
    return absl::StrCat("1 per iteration in the loop + ", after);
  }
  return absl::StrCat(*trip_count, " in the loop (1 per iteration; the first "
                      "writes the loop's initial carry) + ", after, " = ",
                      shape_util::SaturatingAdd(
                          *trip_count, static_cast<int64_t>(peeled.size())));
}

std::string HumanBytes(int64_t bytes) {
  std::string text = absl::StrCat(bytes, " bytes");
  if (bytes < 1024) return text;
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char figure[32];
  std::snprintf(figure, sizeof(figure), "%.1f", value);
  return absl::StrCat(text, " (", figure, " ", units[unit], ")");
}

std::string RenderReportText(const Report& report) {
  std::string out;
  absl::StrAppend(&out, "module ", report.module, " (", report.file, ")\n");
  absl::StrAppend(&out, "verdict: ", report.Verdict(), "\n");
  if (!report.xla_semantics.empty()) {
    absl::StrAppend(&out, "XLA semantics: ", report.xla_semantics, "\n");
  }

  absl::StrAppend(&out, "\noffloaded tensors: ", report.offloads.size(), "\n");
  for (const Offload& offload : report.offloads) {
    absl::StrAppend(&out, "  ", offload.start.name, ": ", KindText(offload.kind));
    if (offload.kind == OffloadKind::kHostParameter) {
      absl::StrAppend(&out, " ", offload.parameter_number, " at ",
                      ShapeIndexToString(offload.shape_index));
    }
    absl::StrAppend(&out, ", ", offload.shape, ", ", HumanBytes(offload.bytes),
                    "\n");
    absl::StrAppend(&out, "    at ", LocText(report, offload.start.loc), " in ",
                    offload.start.computation, "\n");
    if (std::string source = ProgramSourceText(offload.source); !source.empty()) {
      absl::StrAppend(&out, "    ", source, "\n");
    }
    absl::StrAppend(&out, "    name: ", offload.name, " (", NameFromText(offload.name_from),
                    ")");
    if (std::string line = SourceLine(offload.value_source); !line.empty()) {
      absl::StrAppend(&out, ", computed at ", line);
    }
    absl::StrAppend(&out, "\n");
    if (offload.executions.value_or(1) != 1) {
      absl::StrAppend(&out, "    runs ", *offload.executions, " times per step: ",
                      HumanBytes(offload.bytes * *offload.executions),
                      " per step\n");
    } else if (!offload.executions.has_value()) {
      absl::StrAppend(&out, "    runs in a loop without a constant trip count\n");
    }
    if (!offload.reached_from.empty()) {
      absl::StrAppend(&out, "    reached from ",
                      absl::StrJoin(offload.reached_from, ", "), "\n");
    }
    if (offload.ends.empty()) {
      absl::StrAppend(&out,
                      "    end: none (no path reaches a MoveToDevice, host "
                      "compute or an entry output)\n");
    }
    for (const OffloadEnd& end : offload.ends) {
      absl::StrAppend(&out, "    end: ", EndText(end), "\n");
      absl::StrAppend(&out, "      path: ", absl::StrJoin(end.path, " -> "), "\n");
    }
  }

  if (!report.by_name.empty()) {
    absl::StrAppend(&out, "\noffloaded bytes by name:\n");
    std::vector<std::vector<std::string>> rows = {
        {"name", "from", "offloads", "bytes per step", "source"}};
    for (const NamedOffloads& named : report.by_name) {
      rows.push_back({named.name, named.name_from, absl::StrCat(named.offloads),
                      named.bytes_per_step ? HumanBytes(*named.bytes_per_step)
                                           : std::string("unknown"),
                      SourceLine(named.source)});
    }
    std::vector<size_t> width(rows.front().size(), 0);
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    }
    for (const auto& row : rows) {
      std::string line = " ";
      for (size_t c = 0; c < row.size(); ++c) {
        absl::StrAppend(&line, " ", row[c]);
        if (c + 1 < row.size()) line.append(width[c] - row[c].size() + 1, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      absl::StrAppend(&out, line, "\n");
    }
  }

  if (!report.host_computations.empty()) {
    absl::StrAppend(&out, "\nhost computations (compute_on: run on the host on purpose): ",
                    report.host_computations.size(), "\n");
    for (const HostComputation& host : report.host_computations) {
      absl::StrAppend(&out, "  ", host.call.name, LineSuffix(host.call.loc),
                      " runs ", host.computation, " on the host\n");
      std::string source = ProgramSourceText(host.source);
      if (!source.empty()) absl::StrAppend(&out, "    from ", source, "\n");
      absl::StrAppend(&out, "    in: ", HumanBytes(host.bytes_in_host),
                      " from host memory, ", HumanBytes(host.bytes_in_device),
                      " copied from device memory; out: ",
                      HumanBytes(host.bytes_out), "\n");
    }
  }

  absl::StrAppend(&out, "\nhost memory:\n");
  absl::StrAppend(&out, "  host bytes in:  ", HumanBytes(report.host_bytes_in),
                  " in ", report.host_parameter_leaves,
                  " host entry parameter leaves\n");
  absl::StrAppend(&out, "  host bytes out: ", HumanBytes(report.host_bytes_out),
                  " in ", report.host_output_leaves,
                  " host entry output leaves\n");
  absl::StrAppend(&out, "  host-resident intermediates: ",
                  HumanBytes(report.host_intermediate_bytes), " in ",
                  report.host_intermediates.size(), " buffer",
                  report.host_intermediates.size() == 1 ? "" : "s", "\n");
  for (const HostBuffer& buffer : report.host_intermediates) {
    absl::StrAppend(&out, "    ", buffer.defined_by.name, " (",
                    buffer.defined_by_opcode, "): ", buffer.shape, ", ",
                    HumanBytes(buffer.bytes),
                    buffer.loop_carried ? ", loop-carried (stacked)" : "",
                    "\n");
  }
  absl::StrAppend(&out, "  device bytes in: ", report.device_bytes_in,
                  ", device bytes out: ", report.device_bytes_out, "\n");
  if (!report.device_peak_at.empty()) {
    absl::StrAppend(&out, "  device peak (entry computation, estimated): ",
                    HumanBytes(report.device_peak_bytes), " at ",
                    report.device_peak_at, "\n");
  }

  absl::StrAppend(&out, "\nhost<->device transfers:\n");
  absl::StrAppend(&out, "  copies inserted: ", report.copies_inserted, ", ",
                  HumanBytes(report.copies_inserted_bytes), "; ",
                  report.copies_to_host, " to host, ", report.copies_to_device,
                  " to device\n");
  if (report.copies_inserted_per_step.has_value()) {
    absl::StrAppend(&out, "  copies per step: ", *report.copies_inserted_per_step,
                    ", ", HumanBytes(*report.copies_inserted_bytes_per_step),
                    "\n");
  } else {
    absl::StrAppend(&out,
                    "  copies per step: unknown (a loop has no constant trip "
                    "count)\n");
  }
  for (const Transfer& transfer : report.transfers) {
    absl::StrAppend(&out, "  ", transfer.instruction.name, ": ", transfer.opcode,
                    " ", transfer.direction == TransferDirection::kToHost
                             ? "to host"
                             : "to device",
                    ", ", HumanBytes(transfer.bytes),
                    transfer.inserted ? ", inserted" : "", ", in ",
                    transfer.loop.empty() ? transfer.instruction.computation
                                          : absl::StrCat("loop ", transfer.loop),
                    transfer.pipelined == "previous_iteration"
                        ? ", pipelined: writes the previous iteration's value"
                    : transfer.pipelined == "peeled"
                        ? ", pipelined: the peeled write after the loop"
                        : "",
                    "\n");
  }
  for (const LoopTransfers& loop : report.loops) {
    absl::StrAppend(&out, "  loop ", loop.while_loop.name, " (trip count ",
                    loop.trip_count ? absl::StrCat(*loop.trip_count) : "unknown",
                    loop.executions.has_value() && loop.executions != loop.trip_count
                        ? absl::StrCat(", runs ", *loop.executions, " times per step")
                        : std::string(),
                    "):\n");
    auto counts = [](int64_t transfers, int64_t bytes, int64_t copies,
                     int64_t copy_bytes) {
      return absl::StrCat(transfers, transfers == 1 ? " transfer, " : " transfers, ",
                          HumanBytes(bytes), "; ", copies,
                          copies == 1 ? " inserted copy, " : " inserted copies, ",
                          HumanBytes(copy_bytes));
    };
    absl::StrAppend(&out, "    per iteration: ",
                    counts(loop.transfers_per_iteration, loop.bytes_per_iteration,
                           loop.copies_inserted_per_iteration,
                           loop.copies_inserted_bytes_per_iteration),
                    "\n");
    if (loop.trip_count.has_value()) {
      const int64_t n = *loop.trip_count;
      absl::StrAppend(&out, "    per loop:      ",
                      counts(loop.transfers_per_iteration * n,
                             loop.bytes_per_iteration * n,
                             loop.copies_inserted_per_iteration * n,
                             loop.copies_inserted_bytes_per_iteration * n),
                      "\n");
    }
    for (const PipelinedWrite& write : loop.pipelined_writes) {
      absl::StrAppend(&out, "    pipelined: ", PipelinedWriteSentence(write),
                      "\n    host writes: ",
                      PipelinedWriteCount(write, loop.trip_count), "\n");
    }
  }

  absl::StrAppend(&out, "\npipeline: ");
  if (report.pipeline.ok) {
    absl::StrAppend(&out, "ok\n");
  } else {
    for (size_t i = 0; i < report.pipeline.errors.size(); ++i) {
      const Diagnostic& d = report.pipeline.errors[i];
      absl::StrAppend(&out, i ? "          " : "", "error ", DiagCodeString(d.code),
                      ": ", d.message, "\n");
    }
    absl::StrAppend(&out,
                    "  (memory spaces and transfers are those up to the "
                    "failure)\n");
  }
  for (const std::string& note : report.notes) {
    absl::StrAppend(&out, "note: ", note, "\n");
  }
  return out;
}

nlohmann::ordered_json ReportToJson(const Report& report) {
  nlohmann::ordered_json offloads = nlohmann::ordered_json::array();
  for (const Offload& offload : report.offloads) {
    nlohmann::ordered_json ends = nlohmann::ordered_json::array();
    for (const OffloadEnd& end : offload.ends) {
      nlohmann::ordered_json e = {
          {"kind", EndKindName(end.kind)},
          {"instruction", end.instruction.name},
          {"computation", end.instruction.computation},
          {"location", LocJson(end.instruction.loc)},
          {"shape_index", IndexJson(end.shape_index)},
          {"output_index", end.output_index ? IndexJson(*end.output_index)
                                            : nlohmann::ordered_json(nullptr)},
          {"host_memory", end.kind == EndKind::kOutput
                              ? nlohmann::ordered_json(end.output_in_host_memory)
                              : nlohmann::ordered_json(nullptr)},
          {"error", end.e1200 ? nlohmann::ordered_json("E1200")
                              : nlohmann::ordered_json(nullptr)},
          {"walk_start", end.walk_start},
          {"via", end.via.empty() ? nlohmann::ordered_json(nullptr)
                                  : nlohmann::ordered_json(end.via)},
          {"path", end.path},
      };
      ends.push_back(std::move(e));
    }
    offloads.push_back({
        {"start", offload.start.name},
        {"kind", OffloadKindName(offload.kind)},
        {"computation", offload.start.computation},
        {"location", LocJson(offload.start.loc)},
        {"parameter_number", offload.parameter_number >= 0
                                 ? nlohmann::ordered_json(offload.parameter_number)
                                 : nlohmann::ordered_json(nullptr)},
        {"shape_index", IndexJson(offload.shape_index)},
        {"shape", offload.shape},
        {"bytes", offload.bytes},
        {"source",
         {{"file", offload.source.file},
          {"line", offload.source.line},
          {"op_name", offload.source.op_name}}},
        {"reached_from", offload.reached_from},
        {"ends", std::move(ends)},
        {"name", offload.name},
        {"name_from", offload.name_from},
        {"value_source", SourceJson(offload.value_source)},
        {"executions_per_step", OptionalJson(offload.executions)},
    });
  }
  nlohmann::ordered_json by_name = nlohmann::ordered_json::array();
  for (const NamedOffloads& named : report.by_name) {
    by_name.push_back({{"name", named.name},
                       {"name_from", named.name_from},
                       {"bytes", named.bytes},
                       {"bytes_per_step", OptionalJson(named.bytes_per_step)},
                       {"offloads", named.offloads},
                       {"source", SourceJson(named.source)},
                       {"starts", named.starts}});
  }
  nlohmann::ordered_json intermediates = nlohmann::ordered_json::array();
  for (const HostBuffer& buffer : report.host_intermediates) {
    intermediates.push_back({{"buffer", buffer.defined_by.name},
                             {"opcode", buffer.defined_by_opcode},
                             {"computation", buffer.defined_by.computation},
                             {"location", LocJson(buffer.defined_by.loc)},
                             {"shape", buffer.shape},
                             {"bytes", buffer.bytes},
                             {"loop_carried", buffer.loop_carried}});
  }
  nlohmann::ordered_json host_computations = nlohmann::ordered_json::array();
  for (const HostComputation& host : report.host_computations) {
    host_computations.push_back({{"call", host.call.name},
                                 {"location", LocJson(host.call.loc)},
                                 {"computation", host.computation},
                                 {"source",
                                  {{"file", host.source.file},
                                   {"line", host.source.line},
                                   {"op_name", host.source.op_name}}},
                                 {"bytes_in_host", host.bytes_in_host},
                                 {"bytes_in_device", host.bytes_in_device},
                                 {"bytes_out", host.bytes_out}});
  }
  nlohmann::ordered_json transfers = nlohmann::ordered_json::array();
  for (const Transfer& transfer : report.transfers) {
    transfers.push_back(
        {{"instruction", transfer.instruction.name},
         {"computation", transfer.instruction.computation},
         {"location", LocJson(transfer.instruction.loc)},
         {"opcode", transfer.opcode},
         {"direction", TransferDirectionName(transfer.direction)},
         {"bytes", transfer.bytes},
         {"inserted", transfer.inserted},
         {"loop", transfer.loop.empty() ? nlohmann::ordered_json(nullptr)
                                        : nlohmann::ordered_json(transfer.loop)},
         {"pipelined", transfer.pipelined.empty()
                           ? nlohmann::ordered_json(nullptr)
                           : nlohmann::ordered_json(transfer.pipelined)}});
  }
  nlohmann::ordered_json loops = nlohmann::ordered_json::array();
  for (const LoopTransfers& loop : report.loops) {
    nlohmann::ordered_json per_loop = nullptr;
    if (loop.trip_count.has_value()) {
      per_loop = {{"transfers", loop.transfers_per_iteration * *loop.trip_count},
                  {"bytes", loop.bytes_per_iteration * *loop.trip_count},
                  {"copies_inserted",
                   loop.copies_inserted_per_iteration * *loop.trip_count},
                  {"copies_inserted_bytes",
                   loop.copies_inserted_bytes_per_iteration * *loop.trip_count}};
    }
    nlohmann::ordered_json pipelined = nlohmann::ordered_json::array();
    for (const PipelinedWrite& write : loop.pipelined_writes) {
      nlohmann::ordered_json peeled = nlohmann::ordered_json::array();
      for (const InstructionRef& ref : write.peeled) peeled.push_back(ref.name);
      pipelined.push_back(
          {{"write", write.write.name},
           {"location", LocJson(write.write.loc)},
           {"carried_index", write.carried_index},
           {"index", write.index},
           {"iteration_offset", write.offset},
           {"peeled", std::move(peeled)},
           {"writes_per_loop",
            loop.trip_count
                ? nlohmann::ordered_json(shape_util::SaturatingAdd(
                      *loop.trip_count, static_cast<int64_t>(write.peeled.size())))
                : nlohmann::ordered_json(nullptr)}});
    }
    loops.push_back(
        {{"while", loop.while_loop.name},
         {"computation", loop.while_loop.computation},
         {"location", LocJson(loop.while_loop.loc)},
         {"trip_count", loop.trip_count ? nlohmann::ordered_json(*loop.trip_count)
                                        : nlohmann::ordered_json(nullptr)},
         {"executions_per_step", loop.executions
                                     ? nlohmann::ordered_json(*loop.executions)
                                     : nlohmann::ordered_json(nullptr)},
         {"per_iteration",
          {{"transfers", loop.transfers_per_iteration},
           {"bytes", loop.bytes_per_iteration},
           {"copies_inserted", loop.copies_inserted_per_iteration},
           {"copies_inserted_bytes", loop.copies_inserted_bytes_per_iteration}}},
         {"per_loop", std::move(per_loop)},
         {"pipelined_writes", std::move(pipelined)}});
  }
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  for (const Diagnostic& d : report.pipeline.errors) {
    errors.push_back(nlohmann::ordered_json(DiagnosticToJson(d)));
  }
  nlohmann::ordered_json per_step = nullptr;
  if (report.copies_inserted_per_step.has_value()) {
    per_step = {{"count", *report.copies_inserted_per_step},
                {"bytes", *report.copies_inserted_bytes_per_step}};
  }
  return {
      {"version", 1},
      {"file", report.file},
      {"module", report.module},
      {"has_offloading", report.HasOffloading()},
      {"verdict", report.Verdict()},
      {"xla_semantics", report.xla_semantics},
      {"host_bytes_in", report.host_bytes_in},
      {"host_bytes_out", report.host_bytes_out},
      {"device_bytes_in", report.device_bytes_in},
      {"device_bytes_out", report.device_bytes_out},
      {"device_peak_bytes", report.device_peak_bytes},
      {"device_peak_at", report.device_peak_at},
      {"host_parameter_leaves", report.host_parameter_leaves},
      {"host_output_leaves", report.host_output_leaves},
      {"host_intermediate_bytes", report.host_intermediate_bytes},
      {"host_intermediates", std::move(intermediates)},
      {"offloads", std::move(offloads)},
      {"by_name", std::move(by_name)},
      {"copies_inserted",
       {{"count", report.copies_inserted},
        {"bytes", report.copies_inserted_bytes},
        {"to_host", report.copies_to_host},
        {"to_device", report.copies_to_device},
        {"per_step", std::move(per_step)}}},
      {"transfers", std::move(transfers)},
      {"loops", std::move(loops)},
      {"host_computations", std::move(host_computations)},
      {"pipeline", {{"ok", report.pipeline.ok}, {"errors", std::move(errors)}}},
      {"notes", report.notes},
      {"graph",
       {{"nodes", report.graph.nodes.size()},
        {"edges", report.graph.edges.size()},
        {"omitted_nodes", report.graph.omitted_nodes},
        {"collapsed_nodes", report.graph.collapsed_nodes}}},
  };
}

std::string RenderReportDot(const Report& report) {
  const ReportGraph& graph = report.graph;
  std::string out;
  absl::StrAppend(&out, "digraph \"", DotEscape(report.module), "\" {\n");
  std::string title = absl::StrCat(
      "hlo-offload report: ", report.module, "\\n", DotEscape(report.Verdict()),
      "\\nfilled blue: host memory; red: path to an E1200 output; dashed "
      "orange: copy the pipeline inserts; grey: context");
  if (graph.collapsed_nodes > 0) {
    absl::StrAppend(&title, "\\n", graph.collapsed_nodes,
                    " instructions that only carry values on (get-tuple-element, "
                    "tuple, while, parameter, ...) drawn as edges");
  }
  if (graph.omitted_nodes > 0) {
    absl::StrAppend(&title, "\\n", graph.omitted_nodes,
                    " more path instructions not drawn");
  }
  absl::StrAppend(&out, "  graph [label=\"", title,
                  "\", labelloc=t, fontname=\"Helvetica\", fontsize=11, "
                  "rankdir=TB, newrank=true, nodesep=0.3, ranksep=0.35];\n");
  absl::StrAppend(&out,
                  "  node [shape=box, style=\"rounded,filled\", "
                  "fillcolor=\"white\", fontname=\"Helvetica\", fontsize=9];\n");
  absl::StrAppend(&out, "  edge [arrowsize=0.6, color=\"", kContextColor,
                  "\"];\n");
  auto node_line = [&](const GraphNode& node) {
    // The user's name, unless it would only repeat the opcode.
    std::string label;
    if (node.label != node.opcode || !node.source.empty()) {
      label = node.label.empty() ? node.name : node.label;
      if (!node.source.empty()) absl::StrAppend(&label, " (", node.source, ")");
      label.push_back('\n');
    }
    absl::StrAppend(&label, node.opcode, " ", node.shape);
    if (node.executions > 1) {
      absl::StrAppend(&label, " x", node.executions, " per step");
    }
    if (!node.note.empty()) absl::StrAppend(&label, "\n", node.note);
    std::vector<std::string> attrs = {
        absl::StrCat("label=\"", DotEscape(label), "\"")};
    std::vector<std::string> style = {"rounded", "filled"};
    std::string color = std::string(node.on_path ? kPathColor : kContextColor);
    absl::string_view penwidth = "1";
    if (node.host_memory) {
      attrs.push_back(absl::StrCat("fillcolor=\"", kHostFill, "\""));
    }
    if (!node.on_path) {
      attrs.push_back(absl::StrCat("fontcolor=\"", kContextColor, "\""));
      style.push_back("dashed");
    }
    if (node.annotation) {
      attrs.push_back("shape=cds");
      style.erase(style.begin());  // cds has no rounded corners
      penwidth = "1.5";
    }
    if (node.inserted_copy) {
      color = std::string(kInsertedColor);
      style.push_back("dashed");
      penwidth = "2";
    }
    if (node.end) attrs.push_back("peripheries=2");
    if (node.e1200) {
      color = std::string(kErrorColor);
      attrs.push_back(absl::StrCat("fontcolor=\"", kErrorColor, "\""));
      penwidth = "2";
    }
    attrs.push_back(absl::StrCat("color=\"", color, "\""));
    attrs.push_back(absl::StrCat("penwidth=", penwidth));
    attrs.push_back(absl::StrCat("style=\"", absl::StrJoin(style, ","), "\""));
    attrs.push_back(absl::StrCat("tooltip=\"", DotEscape(node.name), " in ",
                                 DotEscape(node.computation),
                                 node.loc.known()
                                     ? absl::StrCat(", line ", node.loc.line)
                                     : std::string(),
                                 "\""));
    return absl::StrCat("\"", DotEscape(node.id.empty() ? node.name : node.id), "\" [",
                        absl::StrJoin(attrs, ", "), "];\n");
  };
  for (size_t c = 0; c < graph.computations.size(); ++c) {
    const std::string& comp = graph.computations[c];
    const std::string& comp_label =
        c < graph.computation_labels.size() ? graph.computation_labels[c] : comp;
    absl::StrAppend(&out, "  subgraph \"cluster_", c, "\" {\n");
    absl::StrAppend(&out, "    label=\"", DotEscape(comp_label),
                    "\"; style=\"rounded\"; color=\"#b0b0b0\"; "
                    "fontname=\"Helvetica\"; fontsize=10;\n");
    for (const GraphNode& node : graph.nodes) {
      if (node.cluster == comp) absl::StrAppend(&out, "    ", node_line(node));
    }
    absl::StrAppend(&out, "  }\n");
  }
  for (const GraphEdge& edge : graph.edges) {
    const GraphNode& from = graph.nodes[edge.from];
    const GraphNode& to = graph.nodes[edge.to];
    std::vector<std::string> attrs;
    if (edge.e1200) {
      attrs.push_back(absl::StrCat("color=\"", kErrorColor, "\""));
      attrs.push_back("penwidth=2");
    } else if (edge.inserted) {
      attrs.push_back(absl::StrCat("color=\"", kInsertedColor, "\""));
      attrs.push_back("penwidth=1.5");
    } else if (edge.on_path) {
      attrs.push_back(absl::StrCat("color=\"", kPathColor, "\""));
      attrs.push_back("penwidth=1.5");
    }
    if (edge.crosses_computation || edge.inserted) {
      attrs.push_back("style=dashed");
    } else if (!edge.on_path) {
      attrs.push_back("style=dotted");
    }
    absl::StrAppend(&out, "  \"", DotEscape(from.id.empty() ? from.name : from.id),
                    "\" -> \"", DotEscape(to.id.empty() ? to.name : to.id), "\"");
    if (!attrs.empty()) absl::StrAppend(&out, " [", absl::StrJoin(attrs, ", "), "]");
    absl::StrAppend(&out, ";\n");
  }
  absl::StrAppend(&out, "}\n");
  return out;
}

std::string RenderReportHtml(const std::vector<HtmlSection>& sections) {
  std::string out;
  std::string title = "hlo-offload report";
  if (sections.size() == 1 && sections.front().report != nullptr) {
    absl::StrAppend(&title, ": ", sections.front().report->module);
  }
  absl::StrAppend(&out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n",
                  "<meta charset=\"utf-8\">\n<title>", HtmlEscape(title),
                  "</title>\n<style>\n");
  absl::StrAppend(
      &out,
      "body { font-family: Helvetica, Arial, sans-serif; margin: 24px; "
      "color: #222; background: #fff; }\n"
      "h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } "
      "h3 { font-size: 15px; margin-top: 20px; }\n"
      "table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }\n"
      "th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; "
      "vertical-align: top; max-width: 40em; overflow-wrap: anywhere; }\n"
      "th { background: #f0f0f0; } td.num { text-align: right; "
      "font-variant-numeric: tabular-nums; }\n"
      "code { font-family: monospace; }\n"
      ".verdict { font-size: 15px; padding: 8px; background: #f6f8fa; "
      "border-left: 4px solid ",
      kPathColor,
      "; }\n"
      ".error { color: ",
      kErrorColor,
      "; font-weight: bold; }\n"
      ".host { background: ",
      kHostFill,
      "; }\n"
      ".picture { border: 1px solid #ddd; padding: 8px; overflow: auto; "
      "max-height: 85vh; }\n"
      "pre { background: #f6f8fa; padding: 8px; overflow: auto; }\n"
      "</style>\n</head>\n<body>\n<h1>",
      HtmlEscape(title), "</h1>\n");
  for (const HtmlSection& section : sections) {
    if (section.report == nullptr) continue;
    const Report& report = *section.report;
    absl::StrAppend(&out, "<section>\n<h2>module <code>",
                    HtmlEscape(report.module), "</code> (",
                    HtmlEscape(report.file), ")</h2>\n");
    absl::StrAppend(&out, "<p class=\"verdict\">", HtmlEscape(report.Verdict()),
                    "</p>\n");
    // Picture.
    absl::StrAppend(&out, "<h3>Picture</h3>\n");
    if (section.svg.ok()) {
      absl::StrAppend(&out, "<div class=\"picture\">\n", *section.svg,
                      "\n</div>\n");
    } else {
      absl::StrAppend(&out, "<p>No picture: ",
                      HtmlEscape(section.svg.status().message()), ".</p>\n<pre>",
                      HtmlEscape(RenderReportDot(report)), "</pre>\n");
    }
    // Offloaded tensors.
    absl::StrAppend(&out, "<h3>Offloaded tensors (", report.offloads.size(),
                    ")</h3>\n");
    if (!report.offloads.empty()) {
      absl::StrAppend(&out,
                      "<table>\n<tr><th>tensor</th><th>name</th><th>kind</th><th>shape</th>"
                      "<th>bytes</th><th>source</th><th>ends</th></tr>\n");
      for (const Offload& offload : report.offloads) {
        std::vector<std::string> ends;
        for (const OffloadEnd& end : offload.ends) {
          std::string text = HtmlEscape(EndText(end));
          if (end.e1200) text = absl::StrCat("<span class=\"error\">", text, "</span>");
          ends.push_back(text);
        }
        absl::StrAppend(
            &out, "<tr><td><code>", HtmlEscape(offload.start.name),
            "</code><br>line ", offload.start.loc.line, " in ",
            HtmlEscape(offload.start.computation), "</td><td>",
            HtmlEscape(offload.name), "<br>", HtmlEscape(SourceLine(offload.value_source)),
            "</td><td>",
            HtmlEscape(KindText(offload.kind)), "</td><td><code>",
            HtmlEscape(offload.shape), "</code></td><td class=\"num\">",
            HtmlEscape(HumanBytes(offload.bytes)), "</td><td>",
            HtmlEscape(ProgramSourceText(offload.source)), "</td><td>",
            ends.empty() ? "none" : absl::StrJoin(ends, "<br>"), "</td></tr>\n");
      }
      absl::StrAppend(&out, "</table>\n");
      absl::StrAppend(&out,
                      "<h3>Offloaded bytes by name</h3>\n<table>\n<tr><th>name</th>"
                      "<th>from</th><th>offloads</th><th>bytes per step</th>"
                      "<th>source</th></tr>\n");
      for (const NamedOffloads& named : report.by_name) {
        absl::StrAppend(
            &out, "<tr><td>", HtmlEscape(named.name), "</td><td>",
            HtmlEscape(named.name_from), "</td><td class=\"num\">", named.offloads,
            "</td><td class=\"num\">",
            named.bytes_per_step ? HtmlEscape(HumanBytes(*named.bytes_per_step))
                                 : std::string("unknown"),
            "</td><td>", HtmlEscape(SourceLine(named.source)), "</td></tr>\n");
      }
      absl::StrAppend(&out, "</table>\n");
    }
    // Host memory.
    absl::StrAppend(
        &out, "<h3>Host memory</h3>\n<table>\n",
        "<tr><th>what</th><th>bytes</th></tr>\n",
        "<tr><td>host bytes in (", report.host_parameter_leaves,
        " host entry parameter leaves)</td><td class=\"num\">",
        HtmlEscape(HumanBytes(report.host_bytes_in)), "</td></tr>\n",
        "<tr><td>host bytes out (", report.host_output_leaves,
        " host entry output leaves)</td><td class=\"num\">",
        HtmlEscape(HumanBytes(report.host_bytes_out)), "</td></tr>\n",
        "<tr><td>host-resident intermediates (", report.host_intermediates.size(),
        " buffers)</td><td class=\"num\">",
        HtmlEscape(HumanBytes(report.host_intermediate_bytes)), "</td></tr>\n");
    for (const HostBuffer& buffer : report.host_intermediates) {
      absl::StrAppend(&out, "<tr><td>&nbsp;&nbsp;<code>",
                      HtmlEscape(buffer.defined_by.name), "</code> <code>",
                      HtmlEscape(buffer.shape), "</code>",
                      buffer.loop_carried ? " (loop-carried, stacked)" : "",
                      "</td><td class=\"num\">",
                      HtmlEscape(HumanBytes(buffer.bytes)), "</td></tr>\n");
    }
    absl::StrAppend(&out, "<tr><td>device bytes in / out</td><td class=\"num\">",
                    report.device_bytes_in, " / ", report.device_bytes_out,
                    "</td></tr>\n</table>\n");
    // Transfers.
    absl::StrAppend(&out, "<h3>Host&harr;device transfers</h3>\n<p>copies inserted: ",
                    report.copies_inserted, ", ",
                    HtmlEscape(HumanBytes(report.copies_inserted_bytes)), "; ",
                    report.copies_to_host, " to host, ", report.copies_to_device,
                    " to device");
    if (report.copies_inserted_per_step.has_value()) {
      absl::StrAppend(&out, "; per step ", *report.copies_inserted_per_step, ", ",
                      HtmlEscape(HumanBytes(*report.copies_inserted_bytes_per_step)));
    }
    absl::StrAppend(&out, "</p>\n");
    if (!report.transfers.empty()) {
      absl::StrAppend(&out,
                      "<table>\n<tr><th>instruction</th><th>transfer</th>"
                      "<th>bytes</th><th>where</th></tr>\n");
      for (const Transfer& transfer : report.transfers) {
        absl::StrAppend(
            &out, "<tr><td><code>", HtmlEscape(transfer.instruction.name),
            "</code></td><td>", HtmlEscape(transfer.opcode), " ",
            transfer.direction == TransferDirection::kToHost ? "to host"
                                                            : "to device",
            transfer.inserted ? " (inserted)" : "", "</td><td class=\"num\">",
            HtmlEscape(HumanBytes(transfer.bytes)), "</td><td>",
            HtmlEscape(transfer.loop.empty()
                           ? transfer.instruction.computation
                           : absl::StrCat("loop ", transfer.loop)),
            "</td></tr>\n");
      }
      absl::StrAppend(&out, "</table>\n");
    }
    if (!report.loops.empty()) {
      absl::StrAppend(&out,
                      "<table>\n<tr><th>loop</th><th>trip count</th>"
                      "<th>per iteration</th><th>per loop</th></tr>\n");
      for (const LoopTransfers& loop : report.loops) {
        absl::StrAppend(
            &out, "<tr><td><code>", HtmlEscape(loop.while_loop.name),
            "</code></td><td class=\"num\">",
            loop.trip_count ? absl::StrCat(*loop.trip_count) : "unknown",
            "</td><td>", loop.transfers_per_iteration, " transfers, ",
            HtmlEscape(HumanBytes(loop.bytes_per_iteration)), "</td><td>",
            loop.trip_count
                ? absl::StrCat(loop.transfers_per_iteration * *loop.trip_count,
                               " transfers, ",
                               HtmlEscape(HumanBytes(loop.bytes_per_iteration *
                                                     *loop.trip_count)))
                : "unknown",
            "</td></tr>\n");
      }
      absl::StrAppend(&out, "</table>\n");
      for (const LoopTransfers& loop : report.loops) {
        for (const PipelinedWrite& write : loop.pipelined_writes) {
          absl::StrAppend(
              &out, "<p>pipelined (loop <code>", HtmlEscape(loop.while_loop.name),
              "</code>): ", HtmlEscape(PipelinedWriteSentence(write)),
              "; host writes: ",
              HtmlEscape(PipelinedWriteCount(write, loop.trip_count)), "</p>\n");
        }
      }
    }
    // Pipeline.
    absl::StrAppend(&out, "<h3>Pipeline</h3>\n");
    if (report.pipeline.ok) {
      absl::StrAppend(&out, "<p>ok: XLA's host-offloading passes accept the module.</p>\n");
    } else {
      for (const Diagnostic& d : report.pipeline.errors) {
        absl::StrAppend(&out, "<p class=\"error\">", DiagCodeString(d.code), ": ",
                        HtmlEscape(d.message), "</p>\n");
      }
    }
    absl::StrAppend(&out, "</section>\n");
  }
  absl::StrAppend(&out, "</body>\n</html>\n");
  return out;
}

}  // namespace hloff
