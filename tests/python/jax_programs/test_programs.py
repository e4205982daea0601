"""The JAX program suite: each program lowered for TPU and GPU, checked by the tool.

For every program of offload_programs.py and each platform: the front end's module must parse
(it is verified inside the front end), contain what the program is about, and `check
--format=json` must give XLA's verdict: exit 0 and no error for a clean program; exit 1
and E1200 on exactly the JAX output paths XLA's error is about otherwise; XLA's host
compute warning (HO2001) where XLA logs it, and never where it does not.
"""
import pytest

pytest.importorskip("jax", reason="the JAX program suite needs jax and jaxlib")

from offload_programs import CLEAN, E1200, PROGRAMS  # noqa: E402

PLATFORMS = ("tpu", "cuda")


def _cases():
    for prog in PROGRAMS:
        marks = []
        if prog.xfail:
            marks.append(pytest.mark.xfail(strict=True, reason=prog.xfail))
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


@pytest.mark.parametrize("prog,platform", list(_cases()))
def test_program(prog, platform, hjax, check):
    xla_input = prog.build(hjax, platform)
    assert xla_input.platform == platform
    assert not any("cpu" in n for n in xla_input.notes), xla_input.notes
    for needle in prog.must_contain:
        assert needle in xla_input.hlo_text, f"{needle!r} not in the converted module"
    assert len(xla_input.output_paths) == len(xla_input.output_memory_kinds)
    assert len(xla_input.input_paths) == len(xla_input.input_memory_kinds)

    result = check(xla_input.hlo_text, f"{prog.name}-{platform}")
    assert result.report is not None, result
    if prog.verdict == CLEAN:
        assert result.rc == 0, result
        assert result.errors() == [], result
    else:
        assert prog.verdict == E1200
        assert result.rc == 1, result
        e1200 = [d for d in result.diagnostics if d["code"] == "E1200"]
        assert e1200, result
        assert {d["code"] for d in result.errors()} == {"E1200"}, result
        named = {_output_path(xla_input, d) for d in e1200}
        assert named == set(prog.e1200_paths), (named, result)
        # The tool names the Python line of the offload (from the HLO metadata).
        assert all(d.get("source", {}).get("file", "").endswith("programs.py")
                   for d in e1200), result
    if prog.host_compute_warning is not None:
        warned = "HO2001" in result.codes("warning")
        assert warned == prog.host_compute_warning, result
