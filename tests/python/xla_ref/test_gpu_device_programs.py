"""hlo-offload against XLA on a real GPU, on the JAX program suite as JAX 0.11.2 lowers it.

tests/xla-ref/jax-0.11.2-cuda13-h200/jax_programs/<name>/ holds what an NVIDIA H200 with JAX
0.11.2 and its CUDA 13 plugin did with each program of tests/python/jax_programs/
offload_programs.py (scripts/xla_gpu/run_programs.py, run on the device; nothing executed):
`lowered.mlir`, the StableHLO JAX 0.11.2 lowered for `cuda` (with its Python locations), and
`result.json`, XLA's verdict and the instructions its HostOffloader converted into host
compute, with their opcode and source line from XLA's own dump before the pass.

For every program XLA compiled or refused, hlo-offload checks that very StableHLO (its own
front end, jaxlib 0.10.2 converting it) for the GPU and must give XLA's verdict, and warn
HO2001 on the same (opcode, source line) multiset as XLA converts into host compute. A
program JAX 0.11.2 refused before XLA saw it must have one of the two reasons JAX gives
(JAX_REFUSALS): a GPU device has no unpinned_host memory, and compute_on's old form is gone.
"""
import collections
import json
import pathlib
import re
import sys

import pytest

pytest.importorskip("jax", reason="the StableHLO front end needs jax and jaxlib")

REPO = pathlib.Path(__file__).resolve().parents[3]
REF = REPO / "tests" / "xla-ref" / "jax-0.11.2-cuda13-h200" / "jax_programs"
sys.path.insert(0, str(REPO / "tests" / "python" / "jax_programs"))
from offload_programs import PROGRAMS  # noqa: E402

BY_NAME = {p.name: p for p in PROGRAMS}
ROWS = [json.loads(p.read_text()) for p in sorted(REF.glob("*/result.json"))]
# What JAX 0.11.2 itself refuses, before XLA: the memory kinds a GPU device has
# (XLA's StreamExecutorGpuClient attaches device and pinned_host memory only,
# xla/pjrt/gpu/se_gpu_pjrt_client.cc), and compute_on's old form, removed in JAX 0.11.
JAX_REFUSALS = (
    "Could not find memory addressable by device NVIDIA H200. Device NVIDIA H200 can "
    "address the following memory kinds: device, pinned_host. Got memory kind: "
    "unpinned_host",
    "compute_on() missing 2 required keyword-only arguments: 'compute_type' and "
    "'out_memory_spaces'",
)
# The opcode of a warned instruction, from the tool's note `"mul.3" (multiply, 16 KiB)`.
_OPCODE = re.compile(r'^"[^"]+" \(([\w-]+), ')


def test_the_device_run_covers_the_suite():
    """Every program of the suite was compiled on the device, or is new since that run."""
    stored = {r["name"] for r in ROWS}
    assert stored <= set(BY_NAME), sorted(stored - set(BY_NAME))
    assert len(stored) >= 61, len(stored)


def _params():
    for row in ROWS:
        prog = BY_NAME.get(row["name"])
        marks = []
        reason = prog.on("xfail", "cuda") if prog else None
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        yield pytest.param(row, id=row["name"], marks=marks)


def _tool_result(row, check):
    text = (REF / row["name"] / "lowered.mlir").read_text()
    return check(text, platform="cuda", filename="%s/lowered.mlir" % row["name"])


@pytest.mark.parametrize("row", list(_params()))
def test_verdict_is_the_gpus(row):
    """The tool's verdict on the StableHLO the GPU compiled is the GPU's."""
    import hlo_offload
    if row["stage"] == "lower":
        assert row["error"] in JAX_REFUSALS, row["error"]
        return
    assert row["stage"] == "compile", row
    result = _tool_result(row, hlo_offload.check)
    errors = [d for d in result.diagnostics if d.is_error]
    if row["ok"]:
        assert not errors, "the GPU compiled it; hlo-offload: %s" % errors[0]
    elif row.get("code"):
        assert row["code"] in {d.code for d in errors}, (row["error"][:300], errors)
    else:
        # XLA refused it later in its pipeline (INTERNAL): the tool must not say clean.
        assert errors, "the GPU refused it (%s); hlo-offload: clean" % row["error"][:200]


def _warning_params():
    for row in ROWS:
        if row["stage"] != "compile":
            continue
        prog = BY_NAME.get(row["name"])
        reason = prog.on("xfail_warning", "cuda") if prog else None
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(row, id=row["name"], marks=marks)


@pytest.mark.parametrize("row", list(_warning_params()))
def test_host_compute_warnings_are_the_gpus(row):
    """HO2001 on the same (opcode, source line) multiset as the GPU's host compute."""
    import hlo_offload
    result = _tool_result(row, hlo_offload.check)
    ours = collections.Counter()
    for d in result.diagnostics:
        if d.code != "HO2001":
            continue
        m = _OPCODE.match(d.notes[0].message if d.notes else "")
        ours[(m.group(1) if m else None, d.source[1] if d.source else None)] += 1
    xla = collections.Counter((op.get("opcode"), op.get("source_line"))
                              for op in row.get("host_compute_ops", []))
    assert ours == xla, "XLA on the GPU: %s; hlo-offload: %s" % (dict(xla), dict(ours))
