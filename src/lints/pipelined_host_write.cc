// HO3010 PipelinedHostWrite (docs/errors/HO3010.md).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/pipelined_writes.h"
#include "lints/lint_util.h"

namespace hloff {
namespace {

// Explains, after the pipeline, a loop that writes the value carried from
// the previous iteration into a host stack at the counter minus one, with the
// peeled write after the loop: what collective pipelining and pipelined host
// offloading make of a lax.scan offload. Nothing is wrong; XLA does not name
// the pattern, and the stack being written once per iteration plus once after
// the loop (the first write storing the initial carry) is easy to misread. A
// note; the pattern is found by analysis/pipelined_writes.h, which the
// report shares (and whose PipelinedHostWrite names the pattern, hence the
// checker's suffix).
class PipelinedHostWriteChecker : public LintChecker {
 public:
  void AfterModule(LintContext& context) override {
    for (const PipelinedHostWrite& write :
         FindPipelinedHostWrites(context.module(), context.call_graph())) {
      Report(write, context.out());
    }
  }

 private:
  static void Report(const PipelinedHostWrite& write,
                     std::vector<Diagnostic>& out) {
    std::vector<std::string> peeled;
    for (const Instruction* p : write.peeled) {
      peeled.push_back(absl::StrCat("\"", p->input_name(), "\""));
    }
    Diagnostic d = MakeDiagnostic(
        DiagCode::kHO3010,
        absl::StrCat(
            "\"", write.write->input_name(), "\" writes the value that while \"",
            write.loop->input_name(), "\" carries in element {", write.carried_index,
            "} from the previous iteration into a host stack, at index \"",
            write.index->input_name(), "\" = i", write.offset,
            " (i: element {", write.counter_index,
            "}, the loop counter): a pipelined offload, the write for "
            "iteration i happens in iteration i+", -write.offset,
            "; 1 device-to-host write per iteration of the loop",
            peeled.empty()
                ? std::string(
                      ", and no write after the loop: the last iteration's "
                      "value never reaches the stack")
                : absl::StrCat(", plus ", peeled.size(), " peeled write",
                               peeled.size() == 1 ? "" : "s",
                               " after the loop (", absl::StrJoin(peeled, ", "),
                               ")")),
        write.write);
    for (const Instruction* p : write.peeled) {
      d.notes.push_back(Note{
          absl::StrCat("\"", p->input_name(), "\" writes the last iteration's value "
                       "after the loop (the peeled epilogue)"),
          p->loc()});
    }
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<LintChecker> NewPipelinedHostWrite() {
  return std::make_unique<PipelinedHostWriteChecker>();
}

}  // namespace hloff
