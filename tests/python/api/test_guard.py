"""guard() and the pytest plugin stop an E1200 program before JAX compiles it, and let a
clean one through. The machine is CPU-only: JAX's own lowering is for the CPU (no offload
annotation), and the guard checks the lowering for TPU that it makes of the same jaxpr."""
import pathlib
import warnings

import pytest

import hlo_offload

jax = pytest.importorskip("jax", reason="guard() needs jax (pip install '.[jax]')")
jnp = pytest.importorskip("jax.numpy")

pytest_plugins = ["pytester"]


def _programs():
    """The README's train step (E1200 on result['opt']['mu']) and a clean step."""
    from jax.sharding import SingleDeviceSharding
    host = SingleDeviceSharding(jax.devices()[0], memory_kind="unpinned_host")

    def step(state, batch):
        mu = jax.device_put(state["opt"]["mu"] * 0.9 + batch, host)
        return {"opt": {"mu": mu, "count": state["opt"]["count"] + 1},
                "loss": jnp.sum(batch)}

    def clean(state, batch):
        return {"opt": {"mu": state["opt"]["mu"] * 0.9 + batch,
                        "count": state["opt"]["count"] + 1}, "loss": jnp.sum(batch)}

    state = {"opt": {"mu": jnp.zeros((8, 128)), "count": jnp.zeros((), jnp.int32)}}
    return step, clean, state, jnp.ones((8, 128))


def _compiles_counter(monkeypatch):
    """Counts JAX's compiles of a lowering (pxla.MeshComputation.compile)."""
    from jax._src.interpreters import pxla
    calls = []
    original = pxla.MeshComputation.compile

    def counting(self, *a, **k):
        calls.append(self)
        return original(self, *a, **k)
    monkeypatch.setattr(pxla.MeshComputation, "compile", counting)
    return calls


def test_guard_stops_e1200_before_compile(monkeypatch):
    step, clean, state, batch = _programs()
    compiles = _compiles_counter(monkeypatch)
    with hlo_offload.guard() as g:
        out = jax.jit(clean)(state, batch)
        assert out["loss"].shape == ()
        assert len(compiles) == 1
        with pytest.raises(hlo_offload.OffloadCheckError) as e:
            jax.jit(step)(state, batch)
        assert len(compiles) == 1            # stopped before compile()
    err = e.value
    assert err.name == "step"
    assert [(d.code, d.output_path) for d in err.result.errors] == [
        ("E1200", "result['opt']['mu']")]
    assert "E1200" in str(err)
    assert [(n, r.ok) for n, r in g.results] == [("clean", True), ("step", False)]
    # Outside the guard nothing is checked (and the CPU compiles it: no annotation).
    jax.jit(step)(state, batch)
    assert g.checked == 2


def test_guard_checks_trace_lower_too_and_as_decorator():
    step, _, state, batch = _programs()

    @hlo_offload.guard()
    def lower_it():
        return jax.jit(step).trace(state, batch).lower()

    with pytest.raises(hlo_offload.OffloadCheckError):
        lower_it()
    # A lowering for TPU is checked as it is (no second lowering).
    g = hlo_offload.guard()
    with g, pytest.raises(hlo_offload.OffloadCheckError):
        jax.jit(step).trace(state, batch).lower(lowering_platforms=("tpu",))
    assert g.checked == 1


def test_guard_warns():
    step, _, state, batch = _programs()
    with hlo_offload.guard(on_error="warn"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = jax.jit(step)(state, batch)   # JAX goes on (the CPU compiles it)
    assert out["loss"].shape == ()
    (warning,) = [x for x in w if issubclass(x.category, hlo_offload.OffloadCheckWarning)]
    assert "E1200" in str(warning.message)


def test_guard_arguments():
    with pytest.raises(ValueError, match="on_error"):
        hlo_offload.guard(on_error="ignore")
    with pytest.raises(ValueError, match="accelerator"):
        hlo_offload.guard(platform="cpu")
    with pytest.raises(ValueError, match="unknown platform"):
        hlo_offload.guard(platform="xpu")


def test_guard_nests_and_restores_jax():
    from jax._src import pjit
    before = pjit._pjit_lower
    outer, inner = hlo_offload.guard(), hlo_offload.guard()
    _, clean, state, batch = _programs()
    # Arguments made outside: an eager op is a jit lowering too.
    other = jax.tree.map(lambda a: a.astype(jnp.bfloat16), (state, batch))
    with outer:
        with inner:
            jax.jit(clean)(state, batch)
        jax.jit(clean)(*other)
    assert pjit._pjit_lower is before
    assert inner.checked == 1 and outer.checked == 1


_PLUGIN_TESTS = '''
import jax, jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

host = SingleDeviceSharding(jax.devices()[0], memory_kind="unpinned_host")

def test_e1200_step():
    def step(x):
        return jax.device_put(x * 2.0, host), x + 1.0
    jax.jit(step)(jnp.ones((8, 128)))

def test_clean_step():
    assert jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones((8, 128))).shape == (8, 128)
'''


def test_pytest_plugin(pytester):
    pytester.makepyfile(test_steps=_PLUGIN_TESTS)
    # The installed package registers the plugin by its entry point (pytest11), and
    # pytest refuses to load it a second time under its module name.
    from importlib.metadata import entry_points
    installed = any(ep.value == "hlo_offload.pytest_plugin"
                    for ep in entry_points(group="pytest11"))
    plugin = () if installed else ("-p", "hlo_offload.pytest_plugin")
    # Without the option nothing is checked: both pass on the CPU.
    result = pytester.runpytest(*plugin)
    result.assert_outcomes(passed=2)
    result = pytester.runpytest(*plugin, "--hlo-offload", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    text = result.stdout.str()
    assert "OffloadCheckError" in text and "E1200" in text
    assert "2 jit lowering(s) checked in 2 test(s); 1 test(s) with errors" in text
    assert "test_steps.py::test_e1200_step: jit(step): E1200 on result[0]" in text
    result = pytester.runpytest(*plugin, "--hlo-offload", "--hlo-offload-on-error=warn")
    result.assert_outcomes(passed=2, warnings=1)


def test_pytest_entry_point_is_declared():
    import tomllib
    pyproject = pathlib.Path(__file__).resolve().parents[3] / "pyproject.toml"
    entry = tomllib.loads(pyproject.read_text())["project"]["entry-points"]["pytest11"]
    assert entry == {"hlo_offload": "hlo_offload.pytest_plugin"}


def test_guard_partitions_a_sharded_program_as_check_does():
    """A lowering with several partitions is checked as XLA's SPMD partitioner gives it,
    by guard as by check(): the same diagnostics and the same partition note."""
    from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P
    mesh = AbstractMesh((4,), ("fsdp",))
    rep = NamedSharding(mesh, P(), memory_kind="device")
    host = NamedSharding(mesh, P(None, "fsdp"), memory_kind="pinned_host")

    def step(ws, x):
        def body(x, w):
            return jnp.tanh(x @ jax.device_put(w, rep)), None
        return jax.lax.scan(body, x, ws)[0]
    f = jax.jit(step, in_shardings=(host, rep), out_shardings=rep)
    args = (jax.ShapeDtypeStruct((2, 128, 128), jnp.float32),
            jax.ShapeDtypeStruct((16, 128), jnp.float32))
    expected = hlo_offload.check(f, *args)
    note = [n for n in expected.notes if "4 partitions" in n]
    assert note, expected.notes
    g = hlo_offload.guard(on_error="warn")
    with g, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f.trace(*args).lower(lowering_platforms=("tpu",))
    (_, result), = g.results
    assert [n for n in result.notes if "4 partitions" in n][0].split(" (")[0] == \
        note[0].split(" (")[0]
    assert [(d.code, d.message) for d in result.diagnostics] == \
        [(d.code, d.message) for d in expected.diagnostics]
    # partition=False checks it as written, as one partition.
    g = hlo_offload.guard(on_error="warn", partition=False)
    with g, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f.trace(*args).lower(lowering_platforms=("tpu",))
    (_, as_written), = g.results
    assert not [n for n in as_written.notes if "checked as XLA's SPMD" in n]


def _unpinned_host_step():
    from jax.sharding import SingleDeviceSharding
    host = SingleDeviceSharding(jax.devices()[0], memory_kind="unpinned_host")

    def step(x):
        return jax.device_put(x * 2.0, host), x + 1.0
    return jax.jit(step)


def test_warnings_name_the_users_line():
    """guard(on_error="warn")'s warning and check()'s note on an unmeasured XLA version
    are attributed to the user's line, not to the package's or JAX's frames."""
    step = _unpinned_host_step()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with hlo_offload.guard(on_error="warn"):
            step.trace(jnp.ones((8, 128))).lower(lowering_platforms=("tpu",))
        hlo_offload.check(step, jnp.ones((8, 128)), xla_version="libtpu-0.0.60")
    assert [pathlib.Path(w.filename).name for w in caught] == ["test_guard.py"] * 2, \
        [(w.filename, w.lineno, str(w.message)[:60]) for w in caught]
    assert isinstance(caught[0].message, hlo_offload.OffloadCheckWarning)


def test_guard_names_the_options_it_takes():
    with pytest.raises(TypeError, match=r"guard\(\) takes check\(\)'s options \(.*xla_version"
                                        r"\), not foo"):
        hlo_offload.guard(foo=1)
    with pytest.raises(TypeError, match="not strategy"):
        hlo_offload.guard(strategy="host-output")
