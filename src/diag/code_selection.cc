// Which diagnostic codes a run reports (--disable / --enable).
#include "diag/code_selection.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hloff {
namespace {

bool Contains(const std::vector<DiagCode>& codes, DiagCode code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// Why some codes are always reported, for the messages.
constexpr absl::string_view kAlwaysReported =
    "errors XLA itself raises (E1200, HO1xxx), errors in the input (HO0xxx: "
    "a parse error, a program lowered for the CPU) and "
    "inputs XLA would crash on (HO9xxx) are always reported";

// The codes `name` names: the code it spells, else every code it is a
// prefix of (case-insensitive).
std::vector<DiagCode> CodesNamed(absl::string_view name) {
  if (std::optional<DiagCode> code = ParseDiagCode(name)) return {*code};
  std::vector<DiagCode> codes;
  for (DiagCode code : AllDiagCodes()) {
    if (absl::StartsWithIgnoreCase(DiagCodeString(code), name)) {
      codes.push_back(code);
    }
  }
  return codes;
}

}  // namespace

bool CodeSelection::Reports(DiagCode code) const {
  if (!CanBeDisabled(code)) return true;
  if (Contains(disabled, code)) return false;
  return enabled.empty() || Contains(enabled, code);
}

bool CanBeDisabled(DiagCode code) {
  absl::string_view text = DiagCodeString(code);
  return absl::StartsWith(text, "HO2") || absl::StartsWith(text, "HO3");
}

std::string DisableableCodesList() {
  std::vector<absl::string_view> names;
  for (DiagCode code : AllDiagCodes()) {
    if (CanBeDisabled(code)) names.push_back(DiagCodeString(code));
  }
  return absl::StrJoin(names, ", ");
}

absl::StatusOr<std::vector<DiagCode>> ParseCodeList(
    absl::string_view option, const std::vector<std::string>& items,
    CodeListUse use) {
  std::vector<DiagCode> codes;
  bool named_any = false;
  for (const std::string& item : items) {
    for (absl::string_view name : absl::StrSplit(item, ',')) {
      name = absl::StripAsciiWhitespace(name);
      if (name.empty()) continue;  // `a,,b` and a trailing comma
      named_any = true;
      std::vector<DiagCode> named = CodesNamed(name);
      if (named.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            option, ": unknown diagnostic code '", name,
            "'; the codes that can be disabled or enabled are ",
            DisableableCodesList(),
            " (a prefix such as HO300 names every code it starts)"));
      }
      for (DiagCode code : named) {
        if (use == CodeListUse::kDisable && !CanBeDisabled(code)) {
          std::string what =
              named.size() == 1 && absl::EqualsIgnoreCase(DiagCodeString(code), name)
                  ? std::string(DiagCodeString(code))
                  : absl::StrCat("'", name, "' names ", DiagCodeString(code),
                                 ", which");
          return absl::InvalidArgumentError(absl::StrCat(
              option, ": ", what, " cannot be disabled: ", kAlwaysReported,
              "; the codes that can be disabled are ", DisableableCodesList()));
        }
        if (!Contains(codes, code)) codes.push_back(code);
      }
    }
  }
  if (!named_any) {
    return absl::InvalidArgumentError(absl::StrCat(
        option, " names no diagnostic code; the codes that can be disabled or "
                "enabled are ",
        DisableableCodesList()));
  }
  return codes;
}

}  // namespace hloff
