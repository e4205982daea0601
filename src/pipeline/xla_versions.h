// The XLA builds users compile with, and what differs between them: one
// table keyed by the package that decides each behaviour (libtpu for a TPU
// compile, the CUDA plugin for a GPU compile), each row citing the versions
// it was measured on (real XLA, deviceless compiles; tests/xla-ref/ holds
// the verdicts per version). The command line's `--xla-version`, the Python
// package's `xla_version=` (default: the installed packages) and the
// report's "XLA semantics" line all read it.
//
// A version names a release series: libtpu 0.0.42 covers 0.0.42 and
// 0.0.42.1 (a ".N" release is a rebuild of the same compiler). A series not
// in the table (older, newer or in between) gets the newest known
// semantics and a one-line note saying so.
#ifndef HLO_OFFLOAD_PIPELINE_XLA_VERSIONS_H_
#define HLO_OFFLOAD_PIPELINE_XLA_VERSIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hloff {

// The package whose XLA decides a behaviour.
enum class XlaPackage {
  kLibtpu,      // libtpu: the TPU compiler (its HostOffloader and backend)
  kCudaPlugin,  // jax-cuda12-plugin / jax-cuda13-plugin: the GPU compiler
                // (the version is the plugin's, which is jaxlib's)
};

// A behaviour of XLA's that changed between the known versions. Each is a
// row of the table (xla_versions.cc) with the versions it holds for.
enum class XlaBehaviour {
  // libtpu turns the dynamic-slice the HostOffloader leaves between host
  // memory and device into an async slice, which slices one dimension only:
  // a slice of several dimensions is UNIMPLEMENTED ("Async slice only
  // supports slicing in 1 dimension"). HO1013.
  kTpuAsyncSliceOneDimension,
  // libtpu refuses every async dynamic-update-slice into host memory that
  // updates part of the lane (minor-most) dimension ("Lane slice updating is
  // not supported in async dynamic update slice yet."). HO1015.
  kTpuLaneUpdateUnsupported,
  // libtpu refuses an async dynamic-update-slice into host memory that
  // updates part of the lane dimension by a size that is not a multiple of
  // the 128 lanes ("Updating the lane dimension is only supported when the
  // lane update size is a multiple of LaneCount"). HO1015.
  kTpuLaneUpdateMultipleOfLaneCount,
  // libtpu refuses a transfer between host memory and device (a
  // dynamic-slice from host, a dynamic-update-slice into host) that slices
  // the lane dimension and, along the sublane (second-minor) dimension, part
  // of a tile ("Strided Host<->HBM DMAs are not supported when slicing
  // partial tiles along sublanes."). HO1016.
  kTpuStridedDmaPartialSublaneTile,
  // libtpu refuses an async dynamic-update-slice into a host buffer wider
  // than one lane chunk (128) that updates more than 8 rows of its sublane
  // dimension but not a multiple of 8 ("Updating the sublane dimension
  // across multiple lane chunks is only supported when the sublane update
  // size is a multiple of the chunk sublane size"). HO1016.
  kTpuSublaneUpdateAcrossLaneChunks,
};

// One known version of one package.
struct KnownXlaVersion {
  XlaPackage package;
  // The release series, as the package spells it ("0.0.42").
  absl::string_view series;
  // The exact releases the table's rows were measured on, with the jaxlib
  // each ran with ("0.0.42.1 with jaxlib 0.10.2").
  absl::string_view measured_on;
};

// The XLA semantics one run uses: per package, the known series chosen.
class XlaSemantics {
 public:
  // The newest known version of every package.
  XlaSemantics();

  // Whether `behaviour` holds for the chosen version of its package (looked
  // up in the table once, when the versions are chosen).
  bool Has(XlaBehaviour behaviour) const {
    return (behaviours_ >> static_cast<unsigned>(behaviour)) & 1u;
  }

  // XLA's own sentence for `behaviour` (the message of the error it raises),
  // as the version that has it words it; "" for a behaviour without one.
  static absl::string_view Message(XlaBehaviour behaviour);

  // The chosen series of `package` ("0.0.52").
  absl::string_view Series(XlaPackage package) const;

  // What the run uses, for the report and JSON: "libtpu 0.0.52, jax-cuda12-
  // plugin 0.10.2".
  std::string Describe() const;

  // Notes for versions the table does not know (each one line), empty when
  // every version asked for is known.
  const std::vector<std::string>& notes() const { return notes_; }

  // Parses `spec`: comma-separated PACKAGE-VERSION or PACKAGE=VERSION items
  // (`libtpu-0.0.42.1`, `jax-cuda12-plugin=0.10.2`, `cuda-plugin-0.10.2`),
  // or "newest". A package not named keeps its newest known version; a
  // version the table does not know gets the newest known one and a note.
  // INVALID_ARGUMENT for an unknown package or a version that is not
  // dotted numbers.
  static absl::StatusOr<XlaSemantics> Parse(absl::string_view spec);

 private:
  // The behaviours of the table that hold for the chosen versions, one bit
  // per XlaBehaviour.
  uint32_t ResolveBehaviours() const;

  // Index into KnownXlaVersions() per package.
  size_t libtpu_;
  size_t cuda_plugin_;
  uint32_t behaviours_ = 0;
  std::vector<std::string> notes_;
};

// Every known version, oldest first per package (for `--help` and the docs).
const std::vector<KnownXlaVersion>& KnownXlaVersions();

// The package's name as the table and the flag spell it ("libtpu",
// "jax-cuda12-plugin").
absl::string_view XlaPackageName(XlaPackage package);

// One line per known version, for `--help` ("  libtpu-0.0.42: measured on
// ..."), without a final newline.
std::string KnownXlaVersionsHelp();

}  // namespace hloff

#endif  // HLO_OFFLOAD_PIPELINE_XLA_VERSIONS_H_
