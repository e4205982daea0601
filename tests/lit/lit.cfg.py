# lit configuration for hlo-offload's own tests: every .hlo (and .test) file is a
# test. RUN lines find hlo-offload (HLOFF_BIN), FileCheck, not and jq on PATH;
# %shared expands to the shared corpus folder, %examples to examples/,
# %hloff_bindir to the folder of the hlo-offload binary. Features:
# `shared-corpus` when %shared holds the corpus, `graphviz`
# when `dot` is on PATH, `chromium` when Debian's chromium is (both come from
# scripts/setup.sh).
import os
import shutil
import tempfile
import lit.formats

config.name = "hlo-offload"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".hlo", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.environ.get("HLOFF_LIT_OUT") or tempfile.mkdtemp(prefix="hloff-lit-")
binary = os.environ.get("HLOFF_BIN")
if not binary:
    lit_config.fatal("set HLOFF_BIN to the hlo-offload executable")
repo = os.path.dirname(os.path.dirname(config.test_source_root))
shared = os.environ.get("HLOFF_SHARED_DIR") or os.path.join(os.path.dirname(repo), "shared")
config.substitutions.append(("%shared", shared))
# Tests that read the shared corpus REQUIRE this; without the folder they are
# reported UNSUPPORTED, not failed (CI always has it).
if os.path.isdir(os.path.join(shared, "corpus")):
    config.available_features.add("shared-corpus")
elif os.environ.get("CI"):
    lit_config.fatal("the shared corpus is missing: " + shared)
config.substitutions.append(("%examples", os.path.join(repo, "examples")))
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(os.path.abspath(binary)), "/usr/lib/llvm-14/bin", os.environ.get("PATH", "")])
config.substitutions.append(("%hloff_bindir", os.path.dirname(os.path.abspath(binary))))
if shutil.which("dot"):
    config.available_features.add("graphviz")
if shutil.which("chromium"):
    config.available_features.add("chromium")
elif os.environ.get("CI"):
    # CI installs chromium with scripts/setup.sh; the HTML end-to-end test
    # must not be skipped silently there.
    lit_config.fatal("chromium is not installed; run scripts/setup.sh")
