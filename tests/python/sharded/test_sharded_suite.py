"""The sharded program suite: hlo-offload against XLA's stored verdicts on meshes of 1-8 devices.

Each case is a program of sharded_programs.py on one mesh. XLA's result is a deviceless
compile with libtpu 0.0.42.1 (v5e:2x2 up to 4 partitions, v5e:2x4 for 8), stored by
scripts/xla_deviceless/gen_sharded.py in tests/xla-ref/libtpu-0.0.42.1-sharded/<case>/
result.json. The tests require

- the declared verdict and host-compute opcodes to be the stored ones (no jax needed);
- hlo-offload's static check of the same program (for several partitions: the module XLA's
  SPMD partitioner gives, docs/SHARDED.md) to give XLA's verdict, to warn HO2001 on the same
  set of (opcode, source line) as XLA's HostOffloader converts into host compute, and on
  as many instructions of each (the differences are strict xfails naming XLA's code);
- with libtpu's compile-only client installed, a few cases compiled again to give the
  stored result.

Source lines are compared as (function, line within it) of sharded_programs.py
(sharded_programs.locate), so edits elsewhere in that file keep the stored data valid.
"""
import collections
import json
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
REF = REPO / "tests" / "xla-ref" / "libtpu-0.0.42.1-sharded"
sys.path.insert(0, str(HERE))
import sharded_programs as sp  # noqa: E402
from sharded_programs import CLEAN, E1200, REFUSED  # noqa: E402

CASES = sp.cases()


def case_id(case):
    prog, mesh = case
    return "%s-%s" % (prog.name, mesh)


def stored(prog, mesh):
    """XLA's stored result.json of one case."""
    return json.loads((REF / case_id((prog, mesh)) / "result.json").read_text())


def xla_verdict(row):
    """CLEAN, E1200 or REFUSED from a stored result, else its error's first line."""
    if row["ok"]:
        return CLEAN
    if row["code"] == "E1200":
        assert row["error"].startswith(
            "INVALID_ARGUMENT: E1200: CompileTimeHostOffloadOutputLocationMismatch"), row
        return E1200
    if row["status"] in ("FAILED_PRECONDITION", "INVALID_ARGUMENT", "UNIMPLEMENTED"):
        return REFUSED
    return row["error"]


def xla_host_compute(row):
    """Counter of (opcode, "function:+offset") XLA converts into host compute."""
    return collections.Counter((h["opcode"], h["where"]) for h in row["host_compute"])


def test_every_case_has_a_stored_result():
    ids = {case_id(c) for c in CASES}
    stored_ids = {p.name for p in REF.iterdir() if p.is_dir()}
    assert stored_ids == ids, sorted(stored_ids ^ ids)


def test_the_suite_covers_the_meshes():
    meshes = {m for _, m in CASES}
    assert meshes == set(sp.MESHES), sorted(set(sp.MESHES) ^ meshes)
    verdicts = collections.Counter(p.verdict[m] for p, m in CASES)
    assert verdicts[CLEAN] and verdicts[E1200], verdicts


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_declared_verdict_is_xlas(case):
    prog, mesh = case
    row = stored(prog, mesh)
    n = sp.mesh_devices(mesh)
    assert (row["program"], row["mesh"], row["num_partitions"]) == (prog.name, mesh, n)
    assert row["topology"] == ("v5e:2x2" if n <= 4 else "v5e:2x4"), row["topology"]
    assert row["plugin"] == "libtpu 0.0.42.1", row["plugin"]
    assert xla_verdict(row) == prog.verdict[mesh], row["error"]
    assert tuple(sorted(h["opcode"] for h in row["host_compute"])) == \
        prog.host_compute[mesh], row["host_compute"]
    # every converted instruction comes from a line of the program or of a helper it calls
    assert all(h["where"] and (h["where"].startswith(prog.name + ":") or
                               h["where"].startswith("_"))
               for h in row["host_compute"]), row["host_compute"]
    assert prog.evidence.startswith("Deviceless compile: "), prog.evidence[:80]


# --- hlo-offload's static check of each case ---------------------------------------------------

_CHECKED = {}


def ours(prog, mesh):
    """hlo-offload's check of one case (once per test session)."""
    key = case_id((prog, mesh))
    if key not in _CHECKED:
        pytest.importorskip("jax", reason="the programs are JAX programs")
        import hlo_offload
        built = prog.build(mesh)
        _CHECKED[key] = hlo_offload.check(built) if isinstance(built, str) else \
            hlo_offload.check(built[0], *built[1])
    return _CHECKED[key]


def our_verdict(result):
    codes = {d.code for d in result.diagnostics if d.severity == "error"}
    if not codes:
        return CLEAN
    return E1200 if codes == {"E1200"} else REFUSED


def our_host_compute(result):
    """Counter of (opcode, "function:+offset") of the instructions our HO2001 names (each
    instruction once)."""
    from hlo_offload import _xla
    seen = {}
    for d in result.diagnostics:
        if d.code != "HO2001":
            continue
        name, opcode, _ = _xla._our_host_compute(d)
        where = None
        if d.source and d.source[0] and os.path.basename(d.source[0]) == \
                "sharded_programs.py":
            where = sp.locate(d.source[1])
        seen.setdefault(name, (opcode, where))
    return collections.Counter(seen.values())


def _diff_marks(prog, mesh):
    diff = prog.differences.get(mesh)
    return [pytest.mark.xfail(strict=True, reason=diff[0])] if diff else []


DIFF_CASES = [pytest.param(c, marks=_diff_marks(*c), id=case_id(c)) for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_verdict_agrees_with_xla(case):
    prog, mesh = case
    result = ours(prog, mesh)
    n = sp.mesh_devices(mesh)
    if n > 1:  # the module checked is the partitioned one
        assert any("%d partitions: checked as XLA's SPMD partitioner gives it" % n in note
                   for note in result.notes), result.notes
    assert our_verdict(result) == xla_verdict(stored(prog, mesh)), str(result)


@pytest.mark.parametrize("case", DIFF_CASES)
def test_host_compute_lines_agree_with_xla(case):
    prog, mesh = case
    assert set(our_host_compute(ours(prog, mesh))) == \
        set(xla_host_compute(stored(prog, mesh)))


@pytest.mark.parametrize("case", DIFF_CASES)
def test_host_compute_counts_agree_with_xla(case):
    prog, mesh = case
    assert our_host_compute(ours(prog, mesh)) == xla_host_compute(stored(prog, mesh))


@pytest.mark.parametrize("case", [c for c in CASES if c[1] in c[0].differences],
                         ids=case_id)
def test_each_difference_is_the_declared_one(case):
    """Where the host-compute warnings differ, they differ exactly as declared: the
    opcodes only XLA converts and only hlo-offload warns about, on the program's lines."""
    prog, mesh = case
    _, xla_only, ours_only = prog.differences[mesh]
    xla, mine = xla_host_compute(stored(prog, mesh)), our_host_compute(ours(prog, mesh))
    assert sorted(op for op, _ in (xla - mine).elements()) == sorted(xla_only)
    assert sorted(op for op, _ in (mine - xla).elements()) == sorted(ours_only)
    assert all(where for _, where in (xla | mine)), (xla, mine)


# --- XLA itself, where libtpu's compile-only client is installed --------------------------------

LIVE = ("stream_layers_replicated-fsdp8", "host_reduction-fsdp4",
        "e1200_func_result_sharding-fsdp2", "adamw_host_state-fsdp1")


@pytest.mark.parametrize("name", LIVE)
def test_live_compile_gives_the_stored_result(name):
    pytest.importorskip("jax", reason="compiling the programs needs jax")
    from hlo_offload import _xla
    if not _xla.installed("tpu"):
        pytest.skip("XLA's tpu compile-only client is not installed: hlo-offload "
                    "install-xla tpu")
    sys.path.insert(0, str(REPO / "scripts" / "xla_deviceless"))
    import gen_sharded
    prog, mesh = next(c for c in CASES if case_id(c) == name)
    live, row = gen_sharded.xla_result(prog, mesh), stored(prog, mesh)
    keys = ("ok", "status", "code", "error", "topology", "num_partitions")
    assert {k: live[k] for k in keys} == {k: row[k] for k in keys}

    def ops(r):
        return [(h["name"], h["opcode"], h["op_name"], h["where"]) for h in r["host_compute"]]
    assert ops(live) == ops(row)
