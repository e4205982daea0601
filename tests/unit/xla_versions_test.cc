// The XLA version table (pipeline/xla_versions.h): which known series a
// version belongs to, what the default is, and what differs.
#include "pipeline/xla_versions.h"

#include <gtest/gtest.h>

#include <string>

namespace hloff {
namespace {

TEST(XlaVersionsTest, DefaultIsTheNewestKnownOfEachPackage) {
  XlaSemantics newest;
  EXPECT_EQ(newest.Series(XlaPackage::kLibtpu), "0.0.52");
  EXPECT_EQ(newest.Series(XlaPackage::kCudaPlugin), "0.12.0.1");
  EXPECT_TRUE(newest.notes().empty());
  // libtpu 0.0.52 compiles multi-dimension async slices from host memory.
  EXPECT_FALSE(newest.Has(XlaBehaviour::kTpuAsyncSliceOneDimension));
}

TEST(XlaVersionsTest, AReleaseBelongsToItsSeries) {
  for (const char* spec : {"libtpu-0.0.42.1", "libtpu-0.0.42", "libtpu==0.0.42.1",
                           "libtpu=0.0.42", "LIBTPU-0.0.42.1"}) {
    auto xla = XlaSemantics::Parse(spec);
    ASSERT_TRUE(xla.ok()) << spec << ": " << xla.status();
    EXPECT_EQ(xla->Series(XlaPackage::kLibtpu), "0.0.42") << spec;
    EXPECT_TRUE(xla->notes().empty()) << spec;
    EXPECT_TRUE(xla->Has(XlaBehaviour::kTpuAsyncSliceOneDimension)) << spec;
  }
}

TEST(XlaVersionsTest, SeriesCompareByNumberNotText) {
  // 0.0.420 is not in the series 0.0.42; 0.0.4 is not 0.0.42 either.
  for (const char* spec : {"libtpu-0.0.420", "libtpu-0.0.4"}) {
    auto xla = XlaSemantics::Parse(spec);
    ASSERT_TRUE(xla.ok()) << spec;
    EXPECT_EQ(xla->Series(XlaPackage::kLibtpu), "0.0.52") << spec;
    ASSERT_EQ(xla->notes().size(), 1u) << spec;
  }
}

TEST(XlaVersionsTest, PackagesAreNamedAsPipAndTheFlagSpellThem) {
  auto xla = XlaSemantics::Parse(" jax-cuda12-plugin-0.10.2 , libtpu-0.0.42.1 ");
  ASSERT_TRUE(xla.ok()) << xla.status();
  EXPECT_EQ(xla->Describe(), "libtpu 0.0.42, jax-cuda-plugin 0.10.2");
  auto cuda13 = XlaSemantics::Parse("jax-cuda13-plugin-0.11.2");
  ASSERT_TRUE(cuda13.ok());
  EXPECT_EQ(cuda13->Series(XlaPackage::kCudaPlugin), "0.11.2");
  // Each name --help prints parses back.
  for (const KnownXlaVersion& v : KnownXlaVersions()) {
    std::string spec =
        std::string(XlaPackageName(v.package)) + "-" + std::string(v.series);
    auto parsed = XlaSemantics::Parse(spec);
    ASSERT_TRUE(parsed.ok()) << spec;
    EXPECT_EQ(parsed->Series(v.package), v.series) << spec;
    EXPECT_TRUE(parsed->notes().empty()) << spec;
  }
}

TEST(XlaVersionsTest, MalformedSpecsAreErrors) {
  for (const char* spec : {"libtpu", "tensorflow-2.1", "libtpu-0.0.x", "libtpu-", "-0.0.52",
                           "libtpu-0..52"}) {
    auto xla = XlaSemantics::Parse(spec);
    EXPECT_FALSE(xla.ok()) << spec;
    EXPECT_EQ(xla.status().code(), absl::StatusCode::kInvalidArgument) << spec;
  }
  EXPECT_FALSE(XlaSemantics::Parse("libtpu-0.0.42.1,libtpu-0.0.52").ok());
  EXPECT_TRUE(XlaSemantics::Parse("").ok());
  EXPECT_TRUE(XlaSemantics::Parse("newest").ok());
}

}  // namespace
}  // namespace hloff
