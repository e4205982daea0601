"""Each JAX program's declared verdict is the one real XLA gave it in a deviceless compile.

The verdicts are stored by scripts/xla_deviceless/gen_programs.py in
tests/xla-ref/<compiler>-<version>-<target>/jax_programs/<name>/result.json, one folder per
compiler version (tests/python/xla_versions.py: libtpu 0.0.42.1 with jax 0.10.2 and libtpu
0.0.52 with jax 0.12.0.1 for TPU v5e:2x2, jax-cuda12-plugin 0.10.2 for the H100 target
config). A program's declared verdict may name one version ("tpu@0.0.42"). Needs neither jax
nor a plugin: it reads the stored data and offload_programs.py's declarations.
"""
import json
import pathlib
import re

import pytest

import xla_versions
from offload_programs import CLEAN, E1200, INTERNAL, PROGRAMS, REFUSED

REPO = pathlib.Path(__file__).resolve().parents[3]
# (platform, series) -> stored folder, every version.
STORED = {(platform, series): xla_versions.REF / folder
          for platform, by_series in xla_versions.FOLDERS.items()
          for series, folder in by_series.items()}
E1200_TEXT = re.compile(
    r"^INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch:\n"
    r"Tensor which is moved to host \(starting from [\w.-]+\) is returned from the entry "
    r"computation but the layout for this output is not set to host memory\.\n")


def stored_result(name, platform, series=None):
    """XLA's stored result.json for program `name` compiled for `platform` (tpu | cuda) by
    the compiler `series` (default: the one this environment has, as the programs are
    lowered by the installed JAX)."""
    folder = STORED[(platform, series)] if series else xla_versions.folder_in_use(platform)
    return json.loads((folder / "jax_programs" / name / "result.json").read_text())


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
    for (platform, series), folder in STORED.items():
        stored = {p.name for p in (folder / "jax_programs").iterdir() if p.is_dir()}
        assert stored == names, (platform, sorted(stored ^ names))


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.name)
@pytest.mark.parametrize("platform,series", sorted(STORED),
                         ids=["%s-%s" % key for key in sorted(STORED)])
def test_declared_verdict_is_xlas(prog, platform, series):
    row = stored_result(prog.name, platform, series)
    assert row["platform"] == platform and row["stage"] == "compile", row
    assert xla_verdict(row) == prog.on("verdict", platform, series), (
        row.get("error"), prog.verdict)
    warned = bool(row["host_compute_instructions"])
    assert warned == (row["host_compute_warning_count"] > 0), row["host_compute_warnings"]
    assert prog.on("host_compute_warning", platform, series) is not None, \
        "XLA's warning is known: declare it"
    assert warned == prog.on("host_compute_warning", platform, series), \
        row["host_compute_warnings"]
    assert prog.evidence.startswith("Deviceless compile: "), prog.evidence[:80]


@pytest.mark.parametrize("platform", sorted(xla_versions.FOLDERS))
def test_live_compile_gives_stored_verdicts(platform, tmp_path):
    """Where the backend's plugin is installed (docs/DEVICELESS.md), compiling the programs
    again gives the stored results: the same verdict, error text and converted instructions."""
    import subprocess
    import sys
    sys.path.insert(0, str(REPO / "scripts" / "xla_deviceless"))
    import xladl
    pytest.importorskip("jax", reason="compiling the programs needs jax (pip install '.[jax]')")
    if not xladl.installed(platform):
        pytest.skip("%s plugin not installed: %s" % (platform, " ".join(
            xladl.install_command(platform))))
    if platform == "cuda":
        try:
            xladl.read_target_config(xladl.DEFAULT_TOPOLOGY["cuda"])
        except RuntimeError as e:
            pytest.skip(str(e))
    folder = xla_versions.folder_in_use(platform)
    stored_versions = (folder / "versions.txt").read_text().split("\n")
    running = xladl.versions_lines(platform, xladl.DEFAULT_TOPOLOGY[platform])
    compilers = [line for line in running
                 if line.split(" ")[0] in ("jax", "jaxlib", "libtpu", "jax-cuda12-plugin")]
    if not set(compilers) <= set(stored_versions):
        pytest.skip("no verdicts stored for %s (%s holds %s): run gen_programs.py to add "
                    "them" % (", ".join(compilers), folder.name,
                              ", ".join(l for l in stored_versions if l)))
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "xla_deviceless" /
                                               "gen_programs.py"),
                           "--backend", platform, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    keys = ("ok", "stage", "error", "code", "host_compute_instructions")

    def ops(row):  # the source lines move with every edit of offload_programs.py
        return [{k: o.get(k) for k in ("name", "opcode", "op_name")}
                for o in row.get("host_compute_ops", [])]
    differ = []
    for prog in PROGRAMS:
        live = json.loads((tmp_path / "jax_programs" / prog.name / "result.json").read_text())
        stored = json.loads((folder / "jax_programs" / prog.name / "result.json").read_text())
        changed = {k: (stored.get(k), live.get(k)) for k in keys
                   if live.get(k) != stored.get(k)}
        if ops(live) != ops(stored):
            changed["host_compute_ops"] = (ops(stored), ops(live))
        if changed:
            differ.append("%s: %s" % (prog.name, "; ".join(
                "%s stored %r, now %r" % (k, str(a)[:200], str(b)[:200])
                for k, (a, b) in changed.items())))
    assert not differ, "%d of %d programs differ from %s:\n%s" % (
        len(differ), len(PROGRAMS), folder.name, "\n".join(differ))
