// The --xla step of a front end (tool/xla_step.h). The edited document is
// the run's own, parsed with its key order kept, each file's object
// replaced by the step's, and printed as the run prints its documents
// (indented by two, UTF-8 as is): the bytes Python's
// `json.dumps(doc, indent=2, ensure_ascii=False)` gives for it.
#include "tool/xla_step.h"

#include <algorithm>
#include <utility>
#include <ostream>
#include <vector>

#include "nlohmann/json.hpp"
#include "pipeline/pipeline.h"

namespace hloff {
namespace tool {
namespace {

using Json = nlohmann::ordered_json;

// JSON text as the run prints its documents.
std::string Dump(const Json& json) {
  return json.dump(2, ' ', /*ensure_ascii=*/false,
                   Json::error_handler_t::replace);
}

// What the steps over a document's files gave.
struct Steps {
  std::string texts;  // in file order
  int exit_status = kExitOk;
  bool stopped = false;
};

// Asks the step for XLA's verdict on each of `objects` (a file's JSON
// object with its "file"), in order, replacing each by the step's document.
// A step that stops writes its text to `err` and ends the steps.
Steps StepEach(const char* command, const Flags& flags,
               const std::vector<Json*>& objects, std::ostream& err) {
  Steps steps;
  const FrontEnd& front_end = *flags.front_end;
  for (Json* object : objects) {
    std::string file;
    auto named = object->find("file");
    if (named != object->end() && named->is_string()) file = *named;
    XlaStep step = front_end.xla_step(command, file, Dump(*object),
                                      flags.front_end_options);
    if (step.stop) {
      err << step.text;
      steps.stopped = true;
      return steps;
    }
    if (!step.document.empty()) {
      Json edited = Json::parse(step.document, nullptr, /*allow_exceptions=*/false);
      if (edited.is_discarded()) {
        err << "hlo-offload: error: internal error: --xla: the front end's "
               "document for '"
            << file << "' is not JSON\n";
        steps.stopped = true;
        return steps;
      }
      *object = std::move(edited);
    }
    steps.texts += step.text;
    steps.exit_status = std::max(steps.exit_status, step.exit_status);
  }
  return steps;
}

}  // namespace

bool WantsXlaStep(const Flags& flags) {
  return flags.front_end != nullptr && flags.front_end->xla_step &&
         !flags.front_end_options.xla.empty();
}

int RunCheckXlaSteps(const Flags& flags, const std::string& json,
                     bool print_document, std::ostream& out, std::ostream& err) {
  Json document = Json::parse(json);
  std::vector<Json*> entries;
  auto files = document.find("files");
  if (files != document.end()) {
    for (Json& entry : *files) entries.push_back(&entry);
  }
  Steps steps = StepEach("check", flags, entries, err);
  if (steps.stopped) return kExitUsage;
  if (print_document) {
    out << Dump(document) << "\n";
  } else {
    err << steps.texts;
  }
  return steps.exit_status;
}

int RunReportXlaSteps(const Flags& flags, const std::string& json,
                      bool json_format,
                      const std::function<int(const std::string&)>& write,
                      std::ostream& err) {
  Json document = Json::parse(json);
  std::vector<Json*> reports;
  if (document.is_array()) {
    for (Json& report : document) reports.push_back(&report);
  } else {
    reports.push_back(&document);
  }
  Steps steps = StepEach("report", flags, reports, err);
  if (steps.stopped) return kExitUsage;
  if (!json_format) {
    err << steps.texts;
    return steps.exit_status;
  }
  if (int status = write(Dump(document) + "\n"); status != kExitOk) {
    return status;
  }
  return steps.exit_status;
}

int RunFixXlaStep(const Flags& flags, const std::string& fixed,
                  std::ostream& err) {
  const std::string& file = flags.inputs.empty() ? "" : flags.inputs.back();
  XlaStep step =
      flags.front_end->xla_step("fix", file, fixed, flags.front_end_options);
  err << step.text;
  return step.stop ? kExitUsage : step.exit_status;
}

}  // namespace tool
}  // namespace hloff
