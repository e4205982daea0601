"""hlo-offload against XLA on a real GPU, on the JAX program suite as JAX 0.11.2 lowers it.

tests/xla-ref/jax-0.11.2-cuda13-h200/jax_programs/<name>/ holds what an NVIDIA H200 with JAX
0.11.2 and its CUDA 13 plugin did with each program of tests/python/jax_programs/
offload_programs.py (scripts/xla_gpu/run_programs.py, run on the device; nothing executed):
`lowered.mlir`, the StableHLO JAX 0.11.2 lowered for `cuda` (with its Python locations), and
`result.json`, XLA's verdict and the instructions its HostOffloader converted into host
compute, with their opcode and source line from XLA's own dump before the pass.

For every program XLA compiled or refused, hlo-offload checks that very StableHLO (its own
front end, the installed jaxlib converting it) for the GPU and must give XLA's verdict, and
warn HO2001 on the same (opcode, source line) multiset as XLA converts into host compute.
A program JAX 0.11.2 refused before XLA saw it because a GPU device has no unpinned_host
memory has no `lowered.mlir`: the program is lowered for `cuda` by the installed JAX and the
tool must refuse it for the GPU too (HO1014). The programs that use compute_on's old form,
which JAX 0.11 removed, were refused by JAX's own signature check: there is no verdict of the
GPU's to compare with, so they are not rows here (test_the_device_run_covers_the_suite says
which they are).
"""
import collections
import json
import pathlib
import re
import sys

import pytest

pytest.importorskip("jax", reason="the StableHLO front end needs jax and jaxlib"
                    " (pip install '.[jax]')")

REPO = pathlib.Path(__file__).resolve().parents[3]
REF = REPO / "tests" / "xla-ref" / "jax-0.11.2-cuda13-h200" / "jax_programs"
sys.path.insert(0, str(REPO / "tests" / "python" / "jax_programs"))
from offload_programs import PROGRAMS  # noqa: E402

BY_NAME = {p.name: p for p in PROGRAMS}
ROWS = [json.loads(p.read_text()) for p in sorted(REF.glob("*/result.json"))]
# What JAX 0.11.2 itself refused, before XLA: the memory kinds a GPU device has (XLA's
# StreamExecutorGpuClient attaches device and pinned_host memory only,
# xla/pjrt/gpu/se_gpu_pjrt_client.cc), which the tool's HO1014 says for the GPU ...
UNPINNED_REFUSAL = (
    "Could not find memory addressable by device NVIDIA H200. Device NVIDIA H200 can "
    "address the following memory kinds: device, pinned_host. Got memory kind: "
    "unpinned_host")
# ... and compute_on's old form, removed in JAX 0.11: a Python signature, not a verdict.
COMPUTE_ON_REFUSAL = (
    "compute_on() missing 2 required keyword-only arguments: 'compute_type' and "
    "'out_memory_spaces'")


def _compared(row):
    """Whether the GPU gave row's program a verdict the tool can be held to."""
    return row["stage"] == "compile" or row["error"] == UNPINNED_REFUSAL


class _JaxSource:
    """Stands in for the front end a program is built with (offload_programs.py calls
    `hjax.from_jax(jitted, *args, platform=...)`): keeps the jitted function and its example
    arguments, so that the test checks them through hlo_offload.check as a user does."""

    @staticmethod
    def from_jax(source, *args, platform=None, **kwargs):
        return source, args, kwargs


# The opcode of a warned instruction, from the tool's note `"mul.3" (multiply, 16 KiB)`.
_OPCODE = re.compile(r'^"[^"]+" \(([\w-]+), ')


def test_the_device_run_covers_the_suite():
    """Every program of the suite was compiled on the device, or is new since that run; what
    JAX refused there is one of its two refusals, and only compute_on's old form is left out
    of the comparison."""
    stored = {r["name"] for r in ROWS}
    assert stored <= set(BY_NAME), sorted(stored - set(BY_NAME))
    assert len(stored) >= 61, len(stored)
    refused = {r["name"]: r["error"] for r in ROWS if r["stage"] != "compile"}
    assert set(refused.values()) <= {UNPINNED_REFUSAL, COMPUTE_ON_REFUSAL}, refused
    left_out = sorted(r["name"] for r in ROWS if not _compared(r))
    assert left_out and all(n.startswith("compute_on_host_") for n in left_out), left_out


def _params():
    for row in ROWS:
        if not _compared(row):
            continue
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
    """The tool's verdict on the StableHLO the GPU compiled or refused is the GPU's; on a
    program JAX refused there for its unpinned_host memory, HO1014."""
    import hlo_offload
    if row["stage"] == "lower":
        # JAX refused it on the GPU (no unpinned_host memory): checked here as a program
        # lowered for cuda, the tool must refuse it for the GPU.
        jitted, args, kwargs = BY_NAME[row["name"]].build(_JaxSource, "cuda")
        result = hlo_offload.check(jitted, *args, platform="cuda", **kwargs)
        assert "HO1014" in {d.code for d in result.diagnostics if d.is_error}, (
            row["error"], result)
        assert not result.ok, result
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
