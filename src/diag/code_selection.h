// Which diagnostic codes a run reports: `--disable=CODE,...` and
// `--enable=CODE,...` on the command line, `ignore=` and `select=` in
// Python, with the conventions of ruff (--ignore/--select) and clang-tidy
// (-checks=-x): disabling drops a code's diagnostics, enabling restricts the
// reported codes to those named, and a prefix (`HO300`) names every code it
// starts. Errors XLA itself raises (E####, HO1xxx), parse errors (HO0xxx)
// and the inputs XLA would crash on (HO9xxx) are always reported: a run
// cannot be made to pass by hiding why XLA would refuse it.
#ifndef HLO_OFFLOAD_DIAG_CODE_SELECTION_H_
#define HLO_OFFLOAD_DIAG_CODE_SELECTION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "diag/diagnostic.h"

namespace hloff {

// The codes a run reports. The default reports every code.
struct CodeSelection {
  // Codes whose diagnostics are dropped (`--disable`).
  std::vector<DiagCode> disabled;
  // When not empty, the only codes reported among those that can be
  // disabled (`--enable`); the others are reported regardless.
  std::vector<DiagCode> enabled;

  // Whether diagnostics with `code` are reported.
  bool Reports(DiagCode code) const;
  // True when every code is reported (nothing disabled, nothing enabled).
  bool ReportsAll() const { return disabled.empty() && enabled.empty(); }
};

// Whether `code` can be disabled: XLA's warnings (HO2xxx) and the lints
// (HO3xxx). Not the errors XLA raises (E####, HO1xxx), parse errors
// (HO0xxx) or the refusals of inputs XLA would crash on (HO9xxx).
bool CanBeDisabled(DiagCode code);

// What a list of codes is for: the message of a code that cannot be
// disabled differs.
enum class CodeListUse { kDisable, kEnable };

// Parses the codes of `items` as the option `option` (named in errors:
// "--disable", "ignore") takes them: each item is one or more codes
// separated by commas, each a code (`HO3005`, `ho3005`) or a prefix of
// codes (`HO300`, `HO3`), blanks around them ignored. Returns the codes in
// list order, each once. INVALID_ARGUMENT for an empty list, a name that
// is no code and no prefix of one (the message lists the valid codes), and,
// for kDisable, a code or prefix that names a code that cannot be disabled
// (the message says why). Naming such a code to enable is allowed: it is
// reported anyway.
absl::StatusOr<std::vector<DiagCode>> ParseCodeList(
    absl::string_view option, const std::vector<std::string>& items,
    CodeListUse use);

// The codes that can be disabled, as one comma-separated line
// ("HO2001, HO2002, ..."), for messages and help.
std::string DisableableCodesList();

}  // namespace hloff

#endif  // HLO_OFFLOAD_DIAG_CODE_SELECTION_H_
