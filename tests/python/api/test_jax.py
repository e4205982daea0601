"""The API on JAX programs lowered here (jax 0.10.2 for TPU, deviceless): the faulty
output is named by its pytree path in the Diagnostic, the text and the JSON, jitted
function, Traced and Lowered agree, and fix's memory kinds, put into out_shardings with
jax.tree.map, give a program that checks clean."""
import pytest

import hlo_offload
from api_helpers import device_argument

jax = pytest.importorskip("jax", reason="the JAX front end needs jax (pip install '.[jax]')")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def env():
    return device_argument((16, 256))


def _step(unpinned):
    # A value put in host memory and returned as result[0] without a host memory kind on
    # that output: JAX 0.10.2 writes mhlo.memory_kind="device" on it, and XLA's
    # HostOffloader rejects the module with E1200 (tests/python/jax_programs,
    # put_unpinned_host_tuple_default_out, has the evidence).
    return lambda x: (jax.device_put(x * 2.0, unpinned), x + 1.0)


def test_jitted_function_names_output(env):
    dev, x = env
    f = jax.jit(_step(dev.with_memory_kind("unpinned_host")))
    result = hlo_offload.check(f, x)
    assert not result.ok
    (d,) = result.errors
    assert d.code == "E1200"
    assert d.output_index == (0,)
    assert d.output_path == "result[0]"
    assert d.input_path is None
    assert d.to_json()["output_path"] == "result[0]"
    (entry,) = result.to_json()["files"]
    assert entry["file"] == "<jit__lambda>"
    assert entry["diagnostics"][0]["output_path"] == "result[0]"
    assert "note: JAX output: result[0]" in str(result)
    assert d.source is not None and d.source[0].endswith("test_jax.py")
    assert result.hlo_text.startswith("HloModule jit__lambda")
    # The same program as a Traced and as a Lowered.
    traced = f.trace(x)
    assert str(hlo_offload.check(traced)) == str(result)
    lowered = traced.lower(lowering_platforms=("tpu",))
    assert str(hlo_offload.check(lowered)) == str(result)
    assert hlo_offload.check(lowered).to_json() == result.to_json()


def test_fix_memory_kinds_compile(env):
    dev, x = env
    unpinned = dev.with_memory_kind("unpinned_host")
    f = jax.jit(_step(unpinned))
    fixed = hlo_offload.fix(f, x)
    assert fixed.changed
    assert fixed.fixed_output_paths == ["result[0]"]
    kinds = fixed.output_memory_kinds
    assert kinds == ("pinned_host", "device")  # the structure of the outputs: a tuple
    assert not hlo_offload.check(fixed).errors
    out_shardings = jax.tree.map(lambda s, k: s.with_memory_kind(k), (dev, dev), kinds)
    g = jax.jit(_step(unpinned), out_shardings=out_shardings)
    assert hlo_offload.check(g, x).ok
    moved = hlo_offload.fix(f, x, strategy="move-to-device")
    assert moved.output_memory_kinds == ("device", "device")
    assert not hlo_offload.check(moved).errors


def test_nested_outputs(env):
    dev, x = env
    host = dev.with_memory_kind("unpinned_host")

    def step(state, batch):
        mu = jax.device_put(state["opt"]["mu"] * 0.9 + batch, host)
        return {"opt": {"mu": mu, "count": state["opt"]["count"] + 1},
                "loss": jnp.sum(batch)}

    state = {"opt": {"mu": x, "count": jax.ShapeDtypeStruct((), jnp.int32, sharding=dev)}}
    result = hlo_offload.check(jax.jit(step), state, x)
    assert [d.output_path for d in result.errors] == ["result['opt']['mu']"]
    kinds = hlo_offload.fix(jax.jit(step), state, x).output_memory_kinds
    assert kinds == {"opt": {"mu": "pinned_host", "count": "device"}, "loss": "device"}


def test_errors_of_one_subtree_fold_in_the_text(env):
    """The optimizer state put in host memory leaf by leaf and returned in device memory:
    one E1200 per leaf, each its own Diagnostic and JSON entry (with group and
    group_size), and one error in the text that lists the other outputs by their paths
    (docs/CLI.md, "Diagnostics")."""
    dev, x = env
    host = dev.with_memory_kind("unpinned_host")

    def step(state, batch):
        opt = jax.device_put({"mu": state["mu"] * 0.9 + batch, "nu": state["nu"] + batch,
                              "v": state["v"] * 2.0}, host)
        return {"opt": opt, "loss": jnp.sum(batch)}

    state = {"mu": x, "nu": x, "v": x}
    result = hlo_offload.check(jax.jit(step), state, x)
    paths = [d.output_path for d in result.errors]
    assert paths == ["result['opt']['mu']", "result['opt']['nu']", "result['opt']['v']"]
    entries = result.to_json()["files"][0]["diagnostics"]
    first = next(i for i, e in enumerate(entries) if e["code"] == "E1200")
    assert [(e["group"], e["group_size"]) for e in entries if e["code"] == "E1200"] == \
        [(first, 3)] * 3
    text = str(result)
    assert text.count("error: E1200") == 1
    assert ("  note: JAX output: result['opt']['mu']\n"
            "  note: and 2 more outputs (moved to host by 2 other instructions): "
            "result['opt']['nu'], result['opt']['v']\n") in text
    # Each Diagnostic alone is printed in full.
    assert all("more output" not in str(d) for d in result.errors)


def test_report_and_platform_note(env):
    dev, x = env
    f = jax.jit(_step(dev.with_memory_kind("unpinned_host")))
    rep = hlo_offload.report(f, x)
    assert rep.to_json()["module"] == "jit__lambda"
    cpu = hlo_offload.check(f, x, platform="cpu")
    assert cpu.notes and "cpu" in cpu.notes[0]
    assert str(cpu).startswith("hlo-offload: note: ")


def test_jax_argument_errors(env):
    dev, x = env
    with pytest.raises(TypeError, match="jax.jit"):
        hlo_offload.check(lambda x: x, x)
    with pytest.raises(TypeError):
        hlo_offload.check(jax.jit(lambda x: x).trace(x), x)
    with pytest.raises(ValueError, match="platform"):
        hlo_offload.check(jax.jit(lambda x: x), x, platform="abacus")
