# lit configuration for hlo-offload's own tests: every .hlo (and .test) file is a
# test. RUN lines find hlo-offload (HLOFF_BIN), FileCheck, not and jq on PATH;
# %shared expands to the shared corpus folder, %examples to examples/.
import os
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
config.substitutions.append(("%examples", os.path.join(repo, "examples")))
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(os.path.abspath(binary)), "/usr/lib/llvm-14/bin", os.environ.get("PATH", "")])
