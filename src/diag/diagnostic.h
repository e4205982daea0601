// Structured diagnostics: every code in one X-macro list (codes.def), a
// Diagnostic value with a primary location, notes at their own locations,
// the dataflow path and fixes, and a sink that passes report into. Rendering
// lives in render.h. Mirrors the error-code scheme of xla/error/error_codes.h.
#ifndef HLO_OFFLOAD_DIAG_DIAGNOSTIC_H_
#define HLO_OFFLOAD_DIAG_DIAGNOSTIC_H_

#include "absl/strings/string_view.h"
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ir/hlo.h"

namespace hloff {

enum class DiagCode {
#define X(code, name, status, severity, summary) k##code,
#include "diag/codes.def"
#undef X
};

enum class Severity { kError, kWarning, kNote };

// "E1200", "HO2001".
absl::string_view DiagCodeString(DiagCode code);
// "CompileTimeHostOffloadOutputLocationMismatch".
absl::string_view DiagCodeName(DiagCode code);
absl::string_view DiagCodeSummary(DiagCode code);
absl::StatusCode DiagCodeStatus(DiagCode code);
Severity DiagCodeSeverity(DiagCode code);
// True for codes XLA itself defines (E####).
bool IsXlaErrorCode(DiagCode code);
// The code spelled `text` (case-insensitive), if any.
std::optional<DiagCode> ParseDiagCode(absl::string_view text);
// All codes in list order.
std::vector<DiagCode> AllDiagCodes();
// Documentation URL: XLA's page for E####, the project's page for HO####.
std::string DiagCodeHelpUri(DiagCode code);

// One hop of a dataflow path: the instruction (by name), its computation, the
// shape index tracked there and its position in the input.
struct PathHop {
  std::string instruction;
  std::string computation;
  ShapeIndex shape_index;
  SourceLoc loc;
};

struct Note {
  std::string message;
  SourceLoc loc;
};

struct Fix {
  std::string strategy;     // "host-output", "move-to-device", ...
  std::string description;  // one paragraph, plain words
};

// Where in the user's program a value comes from (its `metadata`): source
// file and line (from source_file/source_line or the stack-frame tables) and
// op_name. Empty strings and 0 when the metadata has none. Diagnostics and
// the report (report/report.h) both use it.
struct ProgramSource {
  std::string file;
  int64_t line = 0;
  std::string op_name;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  DiagCode code = DiagCode::kE1200;
  // XLA's sentence, byte for byte, for codes XLA has; ours otherwise.
  std::string message;
  SourceLoc loc;
  std::string instruction;   // the instruction the diagnostic is about
  std::string computation;
  // E1200: the walk's starting instruction and the entry output index.
  std::string start;
  std::optional<ShapeIndex> output_index;
  // JAX names, set only when the caller gave them
  // (PipelineOptions::output_paths / input_paths): the pytree path of the
  // entry output at `output_index` (e.g. "result['opt_state']['mu']") and
  // of the entry parameter the diagnostic is about (e.g. "params['w']").
  // Shown as "output_path" / "input_path" in JSON and as notes in text.
  std::string output_path;
  std::string input_path;
  // The entry output a diagnostic without an `output_index` is about (an
  // HO3004 on the entry root): named by its pytree path like `output_index`,
  // and otherwise not shown, so that nothing printed without JAX names
  // changes.
  std::optional<ShapeIndex> about_output;
  std::vector<PathHop> path;
  std::optional<ProgramSource> source;
  // For a module converted from the user's own file (StableHLO or a JAX
  // program, PipelineOptions::locate_in_source): the file and line of
  // `source` as the primary location (`FILE:LINE:` in text, SARIF's
  // location, JSON's `primary_location`); `loc` stays the place in the
  // converted HLO module, shown after it. Empty otherwise.
  std::string primary_file;
  int64_t primary_line = 0;
  std::vector<Note> notes;
  std::vector<Fix> fixes;
  // The status code XLA returns, where it differs from the code's default
  // (e.g. legalize's UNIMPLEMENTED vs INTERNAL bitcast errors).
  std::optional<absl::StatusCode> status_code;
};

// Collects diagnostics from passes. Not thread-safe; one per module run.
class DiagnosticSink {
 public:
  void Emit(Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  std::vector<Diagnostic>& mutable_diagnostics() { return diagnostics_; }
  bool HasErrors() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

// The absl::Status XLA would return for `diagnostic`: its status code and
// message (for E####: "E1200: Name:\n<message>\nSee <url> for more details.").
absl::Status ToXlaStatus(const Diagnostic& diagnostic);

// Builds an error diagnostic about `instr` with `code` and `message`, and the
// matching status (what a pass returns).
Diagnostic MakeDiagnostic(DiagCode code, std::string message,
                          const Instruction* instr);

}  // namespace hloff

#endif  // HLO_OFFLOAD_DIAG_DIAGNOSTIC_H_
