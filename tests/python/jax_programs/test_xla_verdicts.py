"""Each JAX program's declared verdict is the one real XLA gave it in a deviceless compile.

The verdicts are stored by scripts/xla_deviceless/gen_programs.py in
tests/xla-ref/<backend>/jax_programs/<name>/result.json (libtpu 0.0.42.1 for TPU v5e:2x2,
jax-cuda12-plugin 0.10.2 for the H100 target config, jaxlib 0.10.2). Needs neither jax nor a
plugin: it reads the stored data and offload_programs.py's declarations.
"""
import json
import pathlib
import re

import pytest

from offload_programs import CLEAN, E1200, INTERNAL, PROGRAMS, REFUSED

REPO = pathlib.Path(__file__).resolve().parents[3]
REF_DIRS = {"tpu": REPO / "tests" / "xla-ref" / "libtpu-0.0.42.1-v5e_2x2",
            "cuda": REPO / "tests" / "xla-ref" / "cuda12-plugin-0.10.2-h100_sxm"}
E1200_TEXT = re.compile(
    r"^INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
    r"Tensor which is moved to host \(starting from [\w.-]+\) is returned from the entry "
    r"computation but the layout for this output is not set to host memory\.\n")


def stored_result(name, platform):
    """XLA's stored result.json for program `name` compiled for `platform` (tpu | cuda)."""
    path = REF_DIRS[platform] / "jax_programs" / name / "result.json"
    return json.loads(path.read_text())


def xla_verdict(row):
    """CLEAN, E1200 or INTERNAL from a stored result, or the error's first line."""
    if row["ok"]:
        return CLEAN
    if row.get("code") == "E1200":
        assert E1200_TEXT.match(row["error"]), row["error"]
        return E1200
    if row["error"].startswith("INTERNAL: ") and row["stage"] == "compile":
        return INTERNAL
    if re.match(r"(FAILED_PRECONDITION|INVALID_ARGUMENT|UNIMPLEMENTED): ", row["error"]) and \
            row["stage"] == "compile":
        return REFUSED
    return row["error"].splitlines()[0]


def test_every_program_has_a_stored_verdict():
    names = {p.name for p in PROGRAMS}
    for platform, folder in REF_DIRS.items():
        stored = {p.name for p in (folder / "jax_programs").iterdir() if p.is_dir()}
        assert stored == names, (platform, sorted(stored ^ names))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
@pytest.mark.parametrize("platform", sorted(REF_DIRS))
def test_declared_verdict_is_xlas(prog, platform):
    row = stored_result(prog.name, platform)
    assert row["platform"] == platform and row["stage"] == "compile", row
    assert xla_verdict(row) == prog.on("verdict", platform), (row.get("error"), prog.verdict)
    warned = bool(row["host_compute_instructions"])
    assert warned == (row["host_compute_warning_count"] > 0), row["host_compute_warnings"]
    assert prog.on("host_compute_warning", platform) is not None, \
        "XLA's warning is known: declare it"
    assert warned == prog.on("host_compute_warning", platform), row["host_compute_warnings"]
    assert prog.evidence.startswith("Deviceless compile: "), prog.evidence[:80]


@pytest.mark.parametrize("platform", sorted(REF_DIRS))
def test_live_compile_gives_stored_verdicts(platform, tmp_path):
    """Where the backend's plugin is installed (docs/DEVICELESS.md), compiling the programs
    again gives the stored results: the same verdict, error text and converted instructions."""
    import subprocess
    import sys
    sys.path.insert(0, str(REPO / "scripts" / "xla_deviceless"))
    import xladl
    pytest.importorskip("jax", reason="compiling the programs needs jax")
    if not xladl.installed(platform):
        pytest.skip("%s plugin not installed: %s" % (platform, " ".join(
            xladl.install_command(platform))))
    if platform == "cuda":
        try:
            xladl.read_target_config(xladl.DEFAULT_TOPOLOGY["cuda"])
        except RuntimeError as e:
            pytest.skip(str(e))
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "xla_deviceless" /
                                               "gen_programs.py"),
                           "--backend", platform, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    keys = ("ok", "stage", "error", "code", "host_compute_instructions")

    def ops(row):  # the source lines move with every edit of offload_programs.py
        return [{k: o.get(k) for k in ("name", "opcode", "op_name")}
                for o in row.get("host_compute_ops", [])]
    for prog in PROGRAMS:
        live = json.loads((tmp_path / "jax_programs" / prog.name / "result.json").read_text())
        stored = stored_result(prog.name, platform)
        assert {k: live.get(k) for k in keys} == {k: stored.get(k) for k in keys}, prog.name
        assert ops(live) == ops(stored), prog.name
