"""The JAX program suite: each program lowered for TPU and GPU, checked by the tool.

For every program of offload_programs.py and each platform: the front end's module must parse
(it is verified inside the front end), contain what the program is about, and `check
--format=json` must give XLA's verdict: exit 0 and no error for a clean program; exit 1
and E1200, with XLA's text, on exactly the JAX output paths XLA's error is about for an E1200
program; an error for a program XLA's compile refuses later (INTERNAL); XLA's host compute
warning (HO2001) where XLA logs it, for as many instructions, and never where it does not
(test_host_compute_warning).
The expected verdict and warning are XLA's stored deviceless ones (test_xla_verdicts.py
requires the declared ones to be the same).
"""
import re

import pytest

pytest.importorskip("jax", reason="the JAX program suite needs jax and jaxlib")

from offload_programs import CLEAN, E1200, INTERNAL, PROGRAMS  # noqa: E402
from test_xla_verdicts import stored_result, xla_verdict  # noqa: E402

PLATFORMS = ("tpu", "cuda")


def _cases(xfail_field="xfail"):
    for prog in PROGRAMS:
        marks = []
        if getattr(prog, xfail_field):
            marks.append(pytest.mark.xfail(strict=True, reason=getattr(prog, xfail_field)))
        for platform in PLATFORMS:
            yield pytest.param(prog, platform, id=f"{prog.name}-{platform}", marks=marks)


def _output_path(xla_input, diagnostic):
    index = diagnostic.get("output_index")
    assert index is not None, diagnostic
    if index == []:
        assert len(xla_input.output_paths) == 1
        return xla_input.output_paths[0]
    assert len(index) == 1, f"an E1200 inside an output, not on it: {index}"
    return xla_input.output_paths[index[0]]


_BUILT = {}


def _build(prog, platform, hjax):
    """The program's XlaInput for `platform`, built once per session."""
    if (prog.name, platform) not in _BUILT:
        _BUILT[(prog.name, platform)] = prog.build(hjax, platform)
    return _BUILT[(prog.name, platform)]


@pytest.mark.parametrize("prog,platform", list(_cases()))
def test_program(prog, platform, hjax, check):
    xla = stored_result(prog.name, platform)
    verdict = xla_verdict(xla)
    xla_input = _build(prog, platform, hjax)
    assert xla_input.platform == platform
    assert not any("cpu" in n for n in xla_input.notes), xla_input.notes
    for needle in prog.must_contain:
        assert needle in xla_input.hlo_text, f"{needle!r} not in the converted module"
    assert len(xla_input.output_paths) == len(xla_input.output_memory_kinds)
    assert len(xla_input.input_paths) == len(xla_input.input_memory_kinds)

    result = check(xla_input.hlo_text, f"{prog.name}-{platform}")
    assert result.report is not None, result
    if verdict == CLEAN:
        assert result.rc == 0, result
        assert result.errors() == [], result
    elif verdict == INTERNAL:
        assert result.rc == 1 and result.errors(), (xla["error"][:300], result)
    else:
        assert verdict == E1200, xla["error"][:300]
        assert result.rc == 1, result
        e1200 = [d for d in result.diagnostics if d["code"] == "E1200"]
        assert e1200, result
        assert {d["code"] for d in result.errors()} == {"E1200"}, result
        # XLA's wording, but for the name of the instruction the walk starts from.
        xla_text = re.sub(r"starting from [\w.-]+", "starting from X",
                          xla["error"].splitlines()[1])
        for d in e1200:
            assert re.sub(r"starting from [\w.-]+", "starting from X",
                          d["message"]) == xla_text, (d["message"], xla_text)
        named = {_output_path(xla_input, d) for d in e1200}
        assert named == set(prog.e1200_paths), (named, result)
        # The tool names the Python line of the offload (from the HLO metadata).
        assert all(d.get("source", {}).get("file", "").endswith("programs.py")
                   for d in e1200), result


@pytest.mark.parametrize("prog,platform", list(_cases("xfail_warning")))
def test_host_compute_warning(prog, platform, hjax, check):
    """HO2001 where XLA's deviceless compile logged its host-compute warning, for as many
    instructions (the names differ: XLA's come from its own StableHLO import)."""
    xla = stored_result(prog.name, platform)
    result = check(_build(prog, platform, hjax).hlo_text, f"{prog.name}-{platform}")
    assert result.report is not None, result
    converted = {re.search(r'instruction \("([^"]+)"\)', d["message"]).group(1)
                 for d in result.diagnostics if d["code"] == "HO2001"}
    assert bool(converted) == bool(xla["host_compute_instructions"]), (
        xla["host_compute_warnings"][:2], result)
    assert len(converted) == len(xla["host_compute_instructions"]), (
        sorted(converted), xla["host_compute_instructions"])
