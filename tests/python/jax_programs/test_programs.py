"""The JAX program suite: each program lowered for TPU and GPU, checked by the tool.

For every program of offload_programs.py and each platform: the front end's module must parse
(it is verified inside the front end), contain what the program is about, and `check
--format=json` must give XLA's verdict: exit 0 and no error for a clean program; exit 1
and E1200, with XLA's text, on exactly the JAX output paths XLA's error is about for an E1200
program; an error for a program XLA's compile refuses later (INTERNAL); XLA's host compute
warning (HO2001) on the same instructions as XLA's, by opcode and JAX op_name, and never
where XLA does not warn (test_host_compute_warning).
The expected verdict and warning are XLA's stored deviceless ones (test_xla_verdicts.py
requires the declared ones to be the same), except where a real GPU refused the program
before XLA compiled it (JAX: a GPU device has no unpinned_host memory; an H200 with JAX
0.11.2): there the tool must refuse it for the GPU too (HO1014).
"""
import collections
import json
import pathlib
import re

import pytest

pytest.importorskip("jax", reason="the JAX program suite needs jax and jaxlib"
                    " (pip install '.[jax]')")

import xla_versions  # noqa: E402
from offload_programs import CLEAN, E1200, INTERNAL, PROGRAMS, REFUSED  # noqa: E402
from test_xla_verdicts import stored_result, xla_verdict  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[3]
PLATFORMS = ("tpu", "cuda")


def _cases(xfail_field="xfail"):
    """Each program on each platform, an expected failure where the program declares one
    for the compiler this environment has (the stored verdicts compared are its)."""
    for prog in PROGRAMS:
        for platform in PLATFORMS:
            reason = prog.on(xfail_field, platform, xla_versions.series_in_use(platform))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
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


# What a real GPU did with each program (an NVIDIA H200, JAX 0.11.2; scripts/xla_gpu/
# run_programs.py): where JAX itself refused a program there before XLA compiled it, that
# refusal is the GPU's verdict, whatever the CUDA plugin's compile-only client says.
_GPU_DEVICE = REPO / "tests" / "xla-ref" / "jax-0.11.2-cuda13-h200" / "jax_programs"
_UNPINNED_REFUSED = "Got memory kind: unpinned_host"


def gpu_refused(name):
    """JAX's error on a real GPU when it refused program `name` for its unpinned_host
    memory before XLA compiled it, else None."""
    path = _GPU_DEVICE / name / "result.json"
    if not path.is_file():
        return None
    row = json.loads(path.read_text())
    if row["stage"] == "lower" and _UNPINNED_REFUSED in row.get("error", ""):
        return row["error"]
    return None


@pytest.mark.parametrize("prog,platform", list(_cases()))
def test_program(prog, platform, hjax, check):
    xla = stored_result(prog.name, platform)
    verdict = xla_verdict(xla)
    refused = gpu_refused(prog.name) if platform == "cuda" else None
    if refused:
        # A GPU device has no unpinned_host memory: HO1014, an error for the GPU.
        result = check(_build(prog, platform, hjax).hlo_text, f"{prog.name}-{platform}",
                       platform)
        assert result.rc == 1 and "HO1014" in {d["code"] for d in result.errors()}, (
            refused, result)
        return
    xla_input = _build(prog, platform, hjax)
    assert xla_input.platform == platform
    assert not any("cpu" in n for n in xla_input.notes), xla_input.notes
    for needle in prog.must_contain:
        assert needle in xla_input.hlo_text, f"{needle!r} not in the converted module"
    assert len(xla_input.output_paths) == len(xla_input.output_memory_kinds)
    assert len(xla_input.input_paths) == len(xla_input.input_memory_kinds)

    result = check(xla_input.hlo_text, f"{prog.name}-{platform}", platform)
    assert result.report is not None, result
    if verdict == CLEAN:
        assert result.rc == 0, result
        assert result.errors() == [], result
    elif verdict in (INTERNAL, REFUSED):
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
        if prog.same_e1200_start:
            xla_start = re.search(r"starting from ([\w.-]+)", xla["error"]).group(1)
            assert {re.search(r"starting from ([\w.-]+)", d["message"]).group(1)
                    for d in e1200} == {xla_start}, (prog.same_e1200_start, e1200)
        named = {_output_path(xla_input, d) for d in e1200}
        assert named == set(prog.e1200_paths), (named, result)
        # The tool names the Python line of the offload (from the HLO metadata).
        assert all(d.get("source", {}).get("file", "").endswith("programs.py")
                   for d in e1200), result


def _opcode(hlo_text, name):
    """The opcode of instruction `name` in HLO text (the shape before it may be a tuple)."""
    m = re.search(r"^\s*(?:ROOT\s+)?%?" + re.escape(name) + r" = ", hlo_text, re.M)
    assert m, f"{name} not in the module"
    rest = hlo_text[m.end():hlo_text.find("\n", m.end())]
    depth, i = 0, 0
    if rest.startswith("("):
        for i, ch in enumerate(rest):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                break
        i += 1
    else:
        i = rest.index(" ")
    return re.match(r"\s*([\w-]+)\(", rest[i:]).group(1)


def tool_host_compute_ops(hlo_text, result):
    """Counter of (opcode, op_name) of the instructions the tool's HO2001 names, each once.

    The message names the instruction in the module the tool's pipeline runs the
    HostOffloader on (after call inlining a callee's instruction has a new name per call
    site, as in XLA); its first note says its opcode there ("NAME" (OPCODE, SIZE) ...), which
    is what XLA's dump before the HostOffloader is compared with. Without that note the
    opcode comes from the input module, by the diagnostic's `instruction` (its name there).
    """
    named = {}
    for d in result.diagnostics:
        if d["code"] != "HO2001":
            continue
        name = re.search(r'instruction \("([^"]+)"\)', d["message"]).group(1)
        opcode = None
        for note in d.get("notes", []):
            m = re.match(r'"%s" \(([\w-]+),' % re.escape(name), note["message"])
            if m:
                opcode = m.group(1)
                break
        if opcode is None:
            opcode = _opcode(hlo_text, d.get("instruction", name))
        op_name = d.get("source", {}).get("op_name") or _op_name(
            hlo_text, d.get("instruction", name))
        named[name] = (opcode, op_name)
    return collections.Counter(named.values())


def _op_name(hlo_text, name):
    """The metadata op_name of instruction `name` in HLO text, or None."""
    m = re.search(r"^\s*(?:ROOT\s+)?%?" + re.escape(name) + r" = .*", hlo_text, re.M)
    found = m and re.search(r'op_name="((?:[^"\\]|\\.)*)"', m.group(0))
    return found.group(1) if found else None


def same_ops(tool, xla):
    """tool's Counter with each op_name replaced by XLA's where XLA's is the tool's with the
    op_name of the call it was inlined from in front: XLA's CallInliner prefixes it
    (xla/service/call_inliner.cc, SubcomputationInsertionVisitor::DefaultAction, through
    PropagateCallMetadata), the tool's call inliner keeps the callee's own ("gather" where XLA
    has "jit(f)/jit(_take)/gather"). Only an exact match or such a prefix counts."""
    left = collections.Counter(xla)
    out = collections.Counter()
    for (opcode, op_name), n in sorted(tool.items(), key=lambda kv: str(kv[0])):
        for _ in range(n):
            key = (opcode, op_name)
            if left[key] <= 0:
                key = next((k for k in sorted(left, key=str) if left[k] > 0 and k[0] == opcode
                            and op_name and k[1] and k[1].endswith("/" + op_name)),
                           (opcode, op_name))
            left[key] -= 1
            out[key] += 1
    return out


def xla_host_compute_ops(xla):
    """Counter of (opcode, op_name) of the instructions XLA's warning names, from the
    metadata of XLA's own dump before the HostOffloader (result.json host_compute_ops)."""
    ops = xla.get("host_compute_ops", [])
    assert [o["name"] for o in ops] == xla["host_compute_instructions"], ops
    assert all(o.get("opcode") for o in ops), ops
    return collections.Counter((o["opcode"], o.get("op_name")) for o in ops)


@pytest.mark.parametrize("prog,platform", list(_cases("xfail_warning")))
def test_host_compute_warning(prog, platform, hjax, check):
    """HO2001 on exactly the instructions XLA's deviceless compile logged its host-compute
    warning for: the same multiset of (opcode, op_name), op_name being JAX's from the
    metadata (the names differ: XLA's come from its own StableHLO import). Any extra or
    missing HO2001 fails."""
    xla = stored_result(prog.name, platform)
    hlo_text = _build(prog, platform, hjax).hlo_text
    result = check(hlo_text, f"{prog.name}-{platform}", platform)
    assert result.report is not None, result
    want = xla_host_compute_ops(xla)
    tool = same_ops(tool_host_compute_ops(hlo_text, result), want)
    assert tool == want, ("tool only: %s; XLA only: %s" % (
        sorted((tool - want).elements()), sorted((want - tool).elements())),
        xla["host_compute_warnings"][:2])
