// The known XLA versions and what differs between them (xla_versions.h).
#include "pipeline/xla_versions.h"

#include <algorithm>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hloff {
namespace {

// Oldest first per package; the last of a package is its newest.
const std::vector<KnownXlaVersion>& Known() {
  static const auto* known = new std::vector<KnownXlaVersion>{
      {XlaPackage::kLibtpu, "0.0.42",
       "libtpu 0.0.42.1 with jaxlib 0.10.2 (tests/xla-ref/libtpu-0.0.42.1-*)"},
      {XlaPackage::kLibtpu, "0.0.52",
       "libtpu 0.0.52 with jaxlib 0.12.0.1 (tests/xla-ref/libtpu-0.0.52-*)"},
      {XlaPackage::kCudaPlugin, "0.10.2",
       "jax-cuda12-plugin 0.10.2 with jaxlib 0.10.2 "
       "(tests/xla-ref/cuda12-plugin-0.10.2-*)"},
      {XlaPackage::kCudaPlugin, "0.11.2",
       "jax-cuda13-plugin 0.11.2 on an NVIDIA H200 "
       "(tests/xla-ref/jax-0.11.2-cuda13-h200)"},
      {XlaPackage::kCudaPlugin, "0.12.0.1",
       "jax-cuda12-plugin 0.12.0.1 with jaxlib 0.12.0.1 "
       "(tests/xla-ref/cuda12-plugin-0.12.0.1-*)"},
  };
  return *known;
}

// One behaviour and the known series of its package it holds for
// (inclusive; `last` empty: up to the newest known).
struct BehaviourRow {
  XlaBehaviour behaviour;
  XlaPackage package;
  absl::string_view first;
  absl::string_view last;
  // XLA's sentence, as the versions of the row word it ("" if none).
  absl::string_view message;
  // Where it was seen: the versions and the programs that show it.
  absl::string_view evidence;
};

constexpr BehaviourRow kRows[] = {
    {XlaBehaviour::kTpuAsyncSliceOneDimension, XlaPackage::kLibtpu, "0.0.42",
     "0.0.42", "Async slice only supports slicing in 1 dimension",
     "libtpu 0.0.42.1: UNIMPLEMENTED on dynamic-slices from host memory and "
     "dynamic-update-slices into it that slice two dimensions "
     "(tests/lit/backend/ho1013-tpu-async-slice.hlo, the corpus' multi-dimension "
     "host slices); libtpu 0.0.52 compiles them "
     "(tests/xla-ref/libtpu-0.0.52-*)"},
    {XlaBehaviour::kTpuLaneUpdateUnsupported, XlaPackage::kLibtpu, "0.0.42", "0.0.42",
     "Lane slice updating is not supported in async dynamic update slice yet.",
     "libtpu 0.0.42.1: every partial update of the lane dimension of a host buffer, "
     "f32[4] <- f32[1] (XLA's offload_scan_output.hlo, stored) to f32[8,512] <- "
     "f32[8,128] (tests/lit/backend/ho1015-*.hlo)"},
    {XlaBehaviour::kTpuLaneUpdateMultipleOfLaneCount, XlaPackage::kLibtpu, "0.0.52", "",
     "Updating the lane dimension is only supported when the lane update size is a "
     "multiple of LaneCount",
     "libtpu 0.0.52: f32[4] <- f32[1] and f32[8,256] <- f32[8,64] refused, "
     "f32[8,512] <- f32[8,128] and f32[1024] <- f32[256] compiled "
     "(tests/lit/backend/ho1015-*.hlo)"},
    {XlaBehaviour::kTpuStridedDmaPartialSublaneTile, XlaPackage::kLibtpu, "0.0.52", "",
     "Strided Host<->HBM DMAs are not supported when slicing partial tiles along "
     "sublanes.",
     "libtpu 0.0.52: f32[48,512] -> f32[12,128] and f32[16,512] -> f32[4,128] "
     "refused, f32[32,512] -> f32[8,128] and f32[12,512] -> f32[12,128] compiled; "
     "libtpu 0.0.42.1 refuses the same slices as two-dimension async slices "
     "(tests/lit/backend/ho1016-*.hlo)"},
    {XlaBehaviour::kTpuSublaneUpdateAcrossLaneChunks, XlaPackage::kLibtpu, "0.0.52", "",
     "Updating the sublane dimension across multiple lane chunks is only supported "
     "when the sublane update size is a multiple of the chunk sublane size",
     "libtpu 0.0.52: f32[48,256] <- f32[12,256] and f32[48,512] <- f32[12,128] "
     "refused, f32[48,128] <- f32[12,128] compiled; libtpu 0.0.42.1 crashes on them "
     "(a CHECK in async_slice_util.cc), which is not modelled "
     "(tests/lit/backend/ho1016-*.hlo)"},
};

// Dotted numbers of `version` ("0.0.42.1" -> {0, 0, 42, 1}); nullopt when
// it is not dotted numbers.
std::optional<std::vector<int>> VersionParts(absl::string_view version) {
  std::vector<int> parts;
  for (absl::string_view part : absl::StrSplit(version, '.')) {
    int n = 0;
    if (part.empty() || !absl::SimpleAtoi(part, &n) || n < 0) return std::nullopt;
    parts.push_back(n);
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

// Whether `version` belongs to `series`: equal, or `series` followed by
// more parts ("0.0.42.1" is in "0.0.42").
bool InSeries(const std::vector<int>& version, absl::string_view series) {
  std::optional<std::vector<int>> s = VersionParts(series);
  if (!s.has_value() || s->size() > version.size()) return false;
  return std::equal(s->begin(), s->end(), version.begin());
}

// The index of the newest known version of `package`.
size_t Newest(XlaPackage package) {
  const auto& known = Known();
  size_t found = 0;
  for (size_t i = 0; i < known.size(); ++i) {
    if (known[i].package == package) found = i;
  }
  return found;
}

// The package a spec item names: "libtpu", or a CUDA plugin by any of its
// spellings (jax-cuda12-plugin, jax-cuda13-plugin, cuda12-plugin,
// cuda-plugin, cuda).
std::optional<XlaPackage> PackageNamed(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  if (lower == "libtpu" || lower == "tpu") return XlaPackage::kLibtpu;
  for (absl::string_view n :
       {"jax-cuda-plugin", "jax-cuda12-plugin", "jax-cuda13-plugin", "cuda12-plugin",
        "cuda13-plugin", "cuda-plugin", "cuda", "gpu"}) {
    if (lower == n) return XlaPackage::kCudaPlugin;
  }
  return std::nullopt;
}

// Splits "PACKAGE-VERSION" or "PACKAGE=VERSION" at the last '-' or '='
// before the version's first digit.
std::optional<std::pair<absl::string_view, absl::string_view>> SplitItem(
    absl::string_view item) {
  size_t at = item.find('=');
  if (at == absl::string_view::npos) at = item.rfind('-');
  if (at == absl::string_view::npos || at == 0 || at + 1 >= item.size()) {
    return std::nullopt;
  }
  absl::string_view version = item.substr(at + 1);
  absl::ConsumePrefix(&version, "=");  // libtpu==0.0.52, as pip spells it
  return std::make_pair(item.substr(0, at), version);
}

}  // namespace

const std::vector<KnownXlaVersion>& KnownXlaVersions() { return Known(); }

absl::string_view XlaPackageName(XlaPackage package) {
  switch (package) {
    case XlaPackage::kLibtpu:
      return "libtpu";
    case XlaPackage::kCudaPlugin:
      return "jax-cuda-plugin";
  }
  return "";
}

std::string KnownXlaVersionsHelp() {
  std::string out;
  for (const KnownXlaVersion& v : Known()) {
    absl::StrAppend(&out, out.empty() ? "" : "\n", "  ", XlaPackageName(v.package), "-",
                    v.series, ": measured on ", v.measured_on);
  }
  return out;
}

XlaSemantics::XlaSemantics()
    : libtpu_(Newest(XlaPackage::kLibtpu)),
      cuda_plugin_(Newest(XlaPackage::kCudaPlugin)),
      behaviours_(ResolveBehaviours()) {}

uint32_t XlaSemantics::ResolveBehaviours() const {
  static_assert(static_cast<unsigned>(XlaBehaviour::kTpuSublaneUpdateAcrossLaneChunks) < 32,
                "one bit per behaviour (the last of XlaBehaviour)");
  uint32_t holds = 0;
  for (const BehaviourRow& row : kRows) {
    std::optional<std::vector<int>> chosen = VersionParts(Series(row.package));
    std::optional<std::vector<int>> first = VersionParts(row.first);
    if (!chosen || !first || *chosen < *first) continue;
    if (!row.last.empty()) {
      std::optional<std::vector<int>> last = VersionParts(row.last);
      if (!last || *chosen > *last) continue;
    }
    holds |= 1u << static_cast<unsigned>(row.behaviour);
  }
  return holds;
}

absl::string_view XlaSemantics::Message(XlaBehaviour behaviour) {
  for (const BehaviourRow& row : kRows) {
    if (row.behaviour == behaviour) return row.message;
  }
  return "";
}

absl::string_view XlaSemantics::Series(XlaPackage package) const {
  return Known()[package == XlaPackage::kLibtpu ? libtpu_ : cuda_plugin_].series;
}

std::string XlaSemantics::Describe() const {
  return absl::StrCat("libtpu ", Series(XlaPackage::kLibtpu), ", ",
                      XlaPackageName(XlaPackage::kCudaPlugin), " ",
                      Series(XlaPackage::kCudaPlugin));
}

absl::StatusOr<XlaSemantics> XlaSemantics::Parse(absl::string_view spec) {
  XlaSemantics semantics;
  spec = absl::StripAsciiWhitespace(spec);
  if (spec.empty() || spec == "newest") return semantics;
  bool seen_libtpu = false;
  bool seen_cuda = false;
  for (absl::string_view raw : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    absl::string_view item = absl::StripAsciiWhitespace(raw);
    auto split = SplitItem(item);
    std::optional<XlaPackage> package;
    if (split) package = PackageNamed(split->first);
    if (!split || !package) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown XLA version '", item,
          "': expected PACKAGE-VERSION with PACKAGE libtpu or jax-cuda12-plugin "
          "(e.g. libtpu-0.0.52, jax-cuda12-plugin-0.10.2), or 'newest'"));
    }
    std::optional<std::vector<int>> version = VersionParts(split->second);
    if (!version) {
      return absl::InvalidArgumentError(absl::StrCat(
          "XLA version '", item, "': '", split->second,
          "' is not a version (dotted numbers such as 0.0.52)"));
    }
    bool& seen = *package == XlaPackage::kLibtpu ? seen_libtpu : seen_cuda;
    if (seen) {
      return absl::InvalidArgumentError(absl::StrCat(
          "XLA version '", item, "': ", XlaPackageName(*package),
          " is named twice; name one version per package"));
    }
    seen = true;
    size_t chosen = Newest(*package);
    bool known = false;
    // The longest known series the version belongs to.
    size_t best_length = 0;
    const auto& all = Known();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].package != *package || !InSeries(*version, all[i].series)) continue;
      size_t length = VersionParts(all[i].series)->size();
      if (length >= best_length) {
        best_length = length;
        chosen = i;
        known = true;
      }
    }
    if (!known) {
      semantics.notes_.push_back(absl::StrCat(
          XlaPackageName(*package), " ", split->second,
          " is not a version hlo-offload was measured against; using the "
          "newest known semantics, ",
          XlaPackageName(*package), " ", all[chosen].series));
    }
    (*package == XlaPackage::kLibtpu ? semantics.libtpu_ : semantics.cuda_plugin_) =
        chosen;
  }
  semantics.behaviours_ = semantics.ResolveBehaviours();
  return semantics;
}

}  // namespace hloff
