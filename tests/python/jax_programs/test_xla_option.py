"""`check(f, *args, xla="tpu")`: XLA's verdict beside ours, on the JAX program suite.

Each program is checked through the public API as a user calls it (the jitted function and
its arguments, or its StableHLO text), with xla= set to the backend, and its `result.xla` must
be the verdict stored by the deviceless compiles (tests/xla-ref/, scripts/xla_deviceless/
gen_programs.py): the same ok, error code and instructions converted into host compute (by
opcode and JAX op_name). Where the suite declares our verdict or warning the same as XLA's (no
xfail), the result must say that XLA agrees and confirm every error and HO2001; where it
declares a difference (a strict xfail of test_programs.py, with its reason), the result must
say that XLA disagrees, and XLA's verdict decides `ok`.

Needs the backend's compile-only client (docs/DEVICELESS.md); skips, saying how to install
it, without. The programs are those whose verdict is not a plain compile (E1200, refused,
host compute) and four clean ones: each compile starts a process of its own (about 2 s).
"""
import collections

import pytest

pytest.importorskip("jax", reason="the JAX program suite needs jax and jaxlib"
                    " (pip install '.[jax]')")
hlo_offload = pytest.importorskip("hlo_offload", reason="the package under test (pip install .)")

import xla_versions  # noqa: E402
from offload_programs import PROGRAMS  # noqa: E402
from test_xla_verdicts import stored_result  # noqa: E402

from hlo_offload import _xla  # noqa: E402

CLEAN_SAMPLE = 4


class _Capture:
    """Stands in for the JAX front end a program's build() calls: keeps what the program
    would hand over (the function and its arguments, or StableHLO text)."""

    def from_jax(self, source, *args, platform=None, **kwargs):
        self.call = (source, args, dict(kwargs, platform=platform))
        return self

    def from_stablehlo_text(self, text, platform=None, **kwargs):
        self.call = (text, (), {"platform": platform})
        return self


def _selected(backend):
    clean = 0
    for prog in PROGRAMS:
        row = stored_result(prog.name, backend)
        if row["ok"] and not row.get("host_compute_instructions"):
            clean += 1
            if clean > CLEAN_SAMPLE:
                continue
        yield pytest.param(prog, backend, id=f"{prog.name}-{backend}")


def _cases():
    for backend in ("tpu", "cuda"):
        yield from _selected(backend)


def _skip_without(backend):
    if not _xla.installed(backend):
        pytest.skip(f"XLA's {backend} compile-only client is not installed: "
                    f"{' '.join(_xla.install_command(backend))}")
    if backend == "cuda":
        try:
            _xla.read_target_config(_xla.DEFAULT_TOPOLOGY["cuda"])
        except _xla.XlaUnavailable as e:
            pytest.skip(str(e))


def _ops(rows):
    return collections.Counter((r.get("opcode"), r.get("op_name")) for r in rows)


@pytest.mark.parametrize("prog,backend", list(_cases()))
def test_check_with_xla_gives_xlas_verdict(prog, backend):
    _skip_without(backend)
    fe = _Capture()
    prog.build(fe, backend)
    source, args, kwargs = fe.call
    result = hlo_offload.check(source, *args, xla=backend, **kwargs)
    stored = stored_result(prog.name, backend)
    v = result.xla
    assert v is not None and v.verdict, v
    assert (v.ok, v.code) == (stored["ok"], stored.get("code")), (v.error, stored.get("error"))
    assert _ops(v.host_compute) == _ops(stored.get("host_compute_ops", [])), v.host_compute
    assert result.ok == stored["ok"]
    assert result.exit_status == (0 if stored["ok"] else 1)
    assert v.seconds > 0 and v.plugin.startswith(("libtpu", "jax-cuda12-plugin"))
    series = xla_versions.series_in_use(backend)
    differs = prog.on("xfail", backend, series) or (
        prog.on("xfail_warning", backend, series) and stored.get("host_compute_instructions"))
    text = str(result)
    assert f"xla: {v.headline()}" in text
    if differs:
        assert result.xla_agrees is False and result.xla_disagreements, text
        assert "DISAGREES" in text
    else:
        assert result.xla_agrees is True, result.xla_disagreements
        checked = [d for d in result.diagnostics if d.is_error or d.code == "HO2001"]
        assert all(d.xla_confirmed is True for d in checked), [
            (d.code, d.instruction) for d in checked if not d.xla_confirmed]
        assert "DISAGREES" not in text
    j = result.to_json()
    assert j["xla"]["ok"] == stored["ok"] and j["xla"]["agrees"] == (not differs)


def _e1200_cases():
    for backend in ("tpu", "cuda"):
        for prog in PROGRAMS:
            if stored_result(prog.name, backend).get("code") == "E1200":
                for strategy in hlo_offload.STRATEGIES:
                    yield pytest.param(prog, backend, strategy,
                                       id=f"{prog.name}-{backend}-{strategy}")


@pytest.mark.parametrize("prog,backend,strategy", list(_e1200_cases()))
def test_fix_of_e1200_program_is_compiled_by_xla(prog, backend, strategy):
    """fix(..., xla=backend) of every E1200 program: XLA compiles what the fix suggests
    (host-output: the lowering with the new output memory kinds; move-to-device: the
    rewritten module)."""
    _skip_without(backend)
    fe = _Capture()
    prog.build(fe, backend)
    source, args, kwargs = fe.call
    fixed = hlo_offload.fix(source, *args, strategy=strategy, xla=backend, **kwargs)
    assert fixed.changed and fixed.fixed_outputs
    assert fixed.xla is not None and fixed.xla.verdict, fixed.xla
    assert fixed.xla_accepts is True, fixed.xla.error
    assert "XLA accepts it" in repr(fixed)


def test_cpu_lowering_gets_no_xla_verdict():
    """A lowering for the CPU lost its offload annotations (HO0002): XLA is not asked, and
    the result says why; the error stands."""
    _skip_without("tpu")
    import jax
    import jax.numpy as jnp
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    f = jax.jit(lambda x: jax.device_put(x * 2, s.with_memory_kind("pinned_host")))
    lowered = f.trace(jnp.ones((8, 128))).lower()
    result = hlo_offload.check(lowered, xla="tpu")
    assert result.xla is not None and not result.xla.verdict
    assert "lowering for the CPU" in result.xla.reason
    assert not result.ok and result.exit_status == 1
    assert "HO0002" in [d.code for d in result.errors]


def test_missing_client_is_a_clear_error(monkeypatch, tmp_path):
    """Without the client, xla= raises XlaUnavailable naming the install command."""
    monkeypatch.setattr(_xla, "_plugin_paths", lambda backend: None)
    with pytest.raises(_xla.XlaUnavailable) as e:
        hlo_offload.check("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }",
                          xla="tpu")
    assert "hlo-offload install-xla tpu" in str(e.value)
    assert "pip" in " ".join(e.value.install_command)


def test_bad_backend_is_refused():
    with pytest.raises(ValueError, match="'tpu' .* 'cuda'"):
        hlo_offload.check("HloModule m\nENTRY e { ROOT p = f32[2] parameter(0) }", xla="cpu")
