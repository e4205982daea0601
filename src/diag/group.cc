// Folding diagnostics with one cause.
#include "diag/group.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace hloff {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// The length of the key at the start of `rest` (`[0]`, `['k']`, `["k"]`,
// `.name`), or 0 when it is not one.
size_t KeyLength(absl::string_view rest) {
  if (rest.empty()) return 0;
  if (rest[0] == '.') {
    size_t n = 1;
    while (n < rest.size() && rest[n] != '.' && rest[n] != '[') ++n;
    return n > 1 ? n : 0;
  }
  if (rest[0] != '[' || rest.size() < 3) return 0;
  char quote = rest[1];
  if (quote == '\'' || quote == '"') {
    // A dict key as repr() prints it: escapes inside, the same quote closes.
    for (size_t n = 2; n < rest.size(); ++n) {
      if (rest[n] == '\\') {
        ++n;
        continue;
      }
      if (rest[n] != quote) continue;
      return n + 1 < rest.size() && rest[n + 1] == ']' ? n + 2 : 0;
    }
    return 0;
  }
  size_t n = 1;
  if (rest[n] == '-') ++n;
  size_t digits = n;
  while (n < rest.size() && absl::ascii_isdigit(static_cast<unsigned char>(rest[n]))) ++n;
  if (n == digits || n >= rest.size() || rest[n] != ']') return 0;
  return n + 1;
}

// Whether `d` is about an entry output, the only diagnostics that fold.
bool AboutOutput(const Diagnostic& d) {
  return d.output_index.has_value() || !d.output_path.empty();
}

// Union-find over diagnostic indices; each set remembers its smallest index.
class Components {
 public:
  explicit Components(size_t n) : parent_(n), size_(n, 1), first_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
    std::iota(first_.begin(), first_.end(), 0);
  }
  size_t Find(size_t i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];  // path halving
      i = parent_[i];
    }
    return i;
  }
  void Join(size_t a, size_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    first_[a] = std::min(first_[a], first_[b]);
  }
  size_t First(size_t i) { return first_[Find(i)]; }

 private:
  std::vector<size_t> parent_, size_, first_;
};

// What moved the tensor of `d` to host: the first hop of its path (the
// MoveToHost or host parameter its walk came from), else its start. Two
// E1200s with one start ("starting from t", the root tuple) may come from
// different MoveToHosts, which are different causes.
absl::string_view Origin(const Diagnostic& d) {
  return d.path.empty() ? absl::string_view(d.start)
                        : absl::string_view(d.path.front().instruction);
}

// The label of an output in the folded note.
std::string OutputLabel(const Diagnostic& d) {
  if (!d.output_path.empty()) return d.output_path;
  if (d.output_index.has_value()) return ShapeIndexToString(*d.output_index);
  return "?";
}

}  // namespace

absl::string_view JaxSubtree(absl::string_view output_path) {
  size_t root = 0;
  while (root < output_path.size() && output_path[root] != '[' &&
         output_path[root] != '.') {
    ++root;
  }
  if (root == 0 || root == output_path.size()) return {};
  size_t first = KeyLength(output_path.substr(root));
  if (first == 0) return {};
  size_t end = root + first;
  if (end == output_path.size()) return {};  // the entry itself
  // The rest must read as keys too, or the path is not one of JAX's.
  for (size_t at = end; at < output_path.size();) {
    size_t n = KeyLength(output_path.substr(at));
    if (n == 0) return {};
    at += n;
  }
  return output_path.substr(0, end);
}

DiagnosticGroups::DiagnosticGroups(absl::Span<const Diagnostic> diagnostics)
    : leader_(diagnostics.size()),
      size_(diagnostics.size(), 0),
      next_(diagnostics.size(), kNone) {
  Components components(diagnostics.size());
  // The first diagnostic seen with each key: (code, severity, kind, value).
  absl::flat_hash_map<std::string, size_t> first_with;
  auto join_on = [&](size_t i, absl::string_view kind, absl::string_view value) {
    const Diagnostic& d = diagnostics[i];
    std::string key = absl::StrCat(static_cast<int>(d.code), ":",
                                   static_cast<int>(d.severity), ":", kind, ":",
                                   value);
    auto [it, inserted] = first_with.try_emplace(std::move(key), i);
    if (!inserted) components.Join(it->second, i);
  };
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const Diagnostic& d = diagnostics[i];
    if (!AboutOutput(d)) continue;
    if (!d.start.empty()) {
      join_on(i, "start", absl::StrCat(d.start, "\n", Origin(d)));
    }
    absl::string_view subtree = JaxSubtree(d.output_path);
    if (!subtree.empty()) join_on(i, "subtree", subtree);
  }
  std::vector<size_t> last(diagnostics.size(), kNone);  // by leader
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    size_t leader = components.First(i);
    leader_[i] = leader;
    ++size_[leader];
    if (last[leader] != kNone) next_[last[leader]] = i;
    last[leader] = i;
  }
}

std::vector<size_t> DiagnosticGroups::Followers(size_t i) const {
  std::vector<size_t> out;
  for (size_t j = next_[leader_[i]]; j != kNone; j = next_[j]) out.push_back(j);
  return out;
}

std::string FoldedOutputsNote(const Diagnostic& leader,
                              absl::Span<const Diagnostic* const> followers) {
  absl::flat_hash_set<absl::string_view> other_origins;
  for (const Diagnostic* d : followers) {
    absl::string_view origin = Origin(*d);
    if (!origin.empty() && origin != Origin(leader)) other_origins.insert(origin);
  }
  std::string out = absl::StrCat("and ", followers.size(), " more ",
                                 followers.size() == 1 ? "output" : "outputs");
  if (!other_origins.empty()) {
    absl::StrAppend(&out, " (moved to host by ", other_origins.size(),
                    other_origins.size() == 1 ? " other instruction"
                                              : " other instructions",
                    ")");
  }
  out += ": ";
  size_t listed = std::min(followers.size(), kMaxListedOutputs);
  for (size_t i = 0; i < listed; ++i) {
    if (i > 0) out += ", ";
    out += OutputLabel(*followers[i]);
  }
  if (listed < followers.size()) {
    absl::StrAppend(&out, " and ", followers.size() - listed,
                    " others (--format=json lists each)");
  }
  return out;
}

}  // namespace hloff
