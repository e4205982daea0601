"""check(), guard(), the pytest plugin and the console command run through one runner
(hlo_offload._runner), so the same options give the same answer from each: a sharded
program, its StableHLO (`.mlir`) and its HLO module as XLA receives it (the HLO file a
`before_optimizations` dump holds) go through all four, with the same code selection, and
each gives the same diagnostics (code and entry output, errors and warnings alike).

The programs are two of tests/python/sharded/sharded_programs.py on a 4-device FSDP mesh
(an AbstractMesh: JAX lowers them for TPU on this one-device machine), whose XLA verdicts
are stored there (libtpu 0.0.42.1, deviceless): E1200 on the unpinned_host output, and a
clean program whose element-wise host ops XLA converts into host compute (HO2001 here).
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")

import hlo_offload  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "sharded"))
import sharded_programs  # noqa: E402

MESH = "fsdp4"
PROGRAMS = ("e1200_unpinned_host_output", "host_elementwise")
# One option of each kind the four take: a code dropped (ignore= / --disable /
# --hlo-offload-disable) and the pipeline.
CHECK_KWARGS = {"ignore": ["HO3014"], "pipeline": "xla"}
CLI_FLAGS = ["--disable=HO3014", "--pipeline=xla"]
PLUGIN_FLAGS = ["--hlo-offload-disable=HO3014", "--hlo-offload-pipeline=xla"]


def _program(name):
    prog = next(p for p in sharded_programs.PROGRAMS if p.name == name)
    return prog.build(MESH)


def _answer(diagnostics):
    """What is compared: "code@output index" of each error and warning, sorted. The
    output index, not the pytree path: an HLO file has no pytree names."""
    out = []
    for d in diagnostics:
        if isinstance(d, dict):
            index, code, sev = d.get("output_index"), d["code"], d["severity"]
        else:
            index, code, sev = d.output_index, d.code, str(d.severity)
        if sev != "note":
            out.append(f"{code}@{tuple(index) if index is not None else None}")
    return sorted(out)


@pytest.fixture(scope="module", params=PROGRAMS)
def sources(request, tmp_path_factory):
    """(name, jitted function, example arguments, .mlir file, HLO file)."""
    fn, args = _program(request.param)
    folder = tmp_path_factory.mktemp(request.param)
    mlir = folder / "step.mlir"
    mlir.write_text(fn.trace(*args).lower(lowering_platforms=("tpu",)).as_text())
    hlo = folder / "step.before_optimizations.txt"
    # The module XLA receives, as written (not partitioned): what its dump holds.
    hlo.write_text(hlo_offload.check(fn, *args, partition=False).hlo_text)
    return request.param, fn, args, mlir, hlo


def _console(*argv):
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", *map(str, argv)],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    return [d for entry in doc["files"] for d in entry["diagnostics"]], proc.returncode


def test_check_guard_plugin_and_console_agree(sources, pytester):
    name, fn, args, mlir, hlo = sources
    want = _answer(hlo_offload.check(fn, *args, **CHECK_KWARGS).diagnostics)
    assert want, f"{name}: nothing reported; the comparison would be empty"
    ok = hlo_offload.check(fn, *args, **CHECK_KWARGS).ok

    # check() on the other two forms of the same program.
    for path, kw in ((mlir, {"platform": "tpu"}), (hlo, {})):
        result = hlo_offload.check(path, **kw, **CHECK_KWARGS)
        assert _answer(result.diagnostics) == want, path.name
        assert result.ok == ok

    # guard(): the lowering JAX makes when the program is lowered.
    with hlo_offload.guard(on_error="warn", **CHECK_KWARGS) as g:
        with pytest.warns(hlo_offload.OffloadCheckWarning) if not ok else _nothing():
            fn.trace(*args).lower(lowering_platforms=("tpu",))
    assert len(g.results) == 1
    assert _answer(g.results[0][1].diagnostics) == want

    # The console command on the .mlir and the HLO file.
    for path, extra in ((mlir, ["--platform=tpu"]), (hlo, [])):
        diagnostics, status = _console("check", "--format=json", *extra, *CLI_FLAGS, path)
        assert _answer(diagnostics) == want, path.name
        assert status == (0 if ok else 1)

    # The pytest plugin, around a test that lowers the program.
    pytester.makepyfile(test_step=_PLUGIN_TEST.format(
        sharded=str(pathlib.Path(sharded_programs.__file__).parent), name=name, mesh=MESH))
    run = pytester.runpytest_subprocess("--hlo-offload", "--hlo-offload-on-error=warn",
                                        "-rA", *PLUGIN_FLAGS)
    text = run.stdout.str()
    line = next(x for x in text.splitlines() if x.startswith("jit("))
    assert _plugin_answer(line) == want, line


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_PLUGIN_TEST = '''
import sys
sys.path.insert(0, {sharded!r})
import sharded_programs

def test_step():
    prog = next(p for p in sharded_programs.PROGRAMS if p.name == {name!r})
    fn, args = prog.build({mesh!r})
    fn.trace(*args).lower(lowering_platforms=("tpu",))
'''


def _plugin_answer(line):
    """_answer of the plugin's line `jit(step): E1200 on result[1]; warnings: HO2001`:
    the output path read as its index (result[i] is output {i} of these flat programs)."""
    head, _, warned = line.partition("; warnings: ")
    errors = head.split(": ", 1)[1]
    out = []
    for part in ([] if errors == "ok" else errors.split(", ")) + \
            [w for w in warned.split(", ") if w]:
        code, _, where = part.partition(" on ")
        index = (int(where[len("result["):-1]),) if where.startswith("result[") else None
        out.append(f"{code}@{index}")
    return sorted(out)
