"""The report names remat-offloaded activations by their `checkpoint_name`.

JAX 0.10.2 lowers the `name` primitive to its operand, so the name is nowhere in the HLO
(docs/REPORT.md has the evidence); the front end reads the names from the program's jaxpr
(`hlo_offload._jax.checkpoint_names`) and the report matches them to the instruction that
computes the offloaded value by its source line and primitive. The programs here are run
through real JAX (lowered for TPU on this machine)."""
import pytest

jax = pytest.importorskip("jax", reason="checkpoint names come from a JAX program's jaxpr"
                             " (pip install '.[jax]')")
import jax.numpy as jnp  # noqa: E402
from jax.ad_checkpoint import checkpoint_name  # noqa: E402

import hlo_offload  # noqa: E402
from hlo_offload import _jax  # noqa: E402

F32 = jnp.float32


def _policy(*names):
    return jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=list(names),
        offload_src="device", offload_dst="pinned_host")


def _dense(x, w):
    return x @ w


def _layer(x, w):
    h = jnp.tanh(x @ w)                      # the value named attn_out is computed here
    h = checkpoint_name(h, "attn_out")       # and named on another line
    q = checkpoint_name(_dense(h, w).reshape(8, 16), "query_proj")
    return jnp.sin(q @ w), None


def _scan_loss(ws, x):
    y, _ = jax.lax.scan(jax.checkpoint(_layer, policy=_policy("attn_out", "query_proj")),
                        x, ws)
    return jnp.sum(y)


def _line_of(fn, text):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def _offloads(report):
    data = report.to_json()
    module = data["modules"][0] if "modules" in data else data
    return module


def test_scan_offloads_are_named_by_checkpoint_name():
    args = (jax.ShapeDtypeStruct((4, 16, 16), F32), jax.ShapeDtypeStruct((8, 16), F32))
    report = hlo_offload.report(jax.jit(jax.grad(_scan_loss)), *args)
    module = _offloads(report)
    named = {o["name"]: o for o in module["offloads"]}
    assert set(named) == {"attn_out", "query_proj"}
    assert {o["name_from"] for o in named.values()} == {"checkpoint_name"}
    # The line is where the value is computed: the tanh, and the helper's matmul looked
    # through the reshape.
    assert named["attn_out"]["value_source"]["line"] == _line_of(_layer, "jnp.tanh(x @ w)")
    assert named["query_proj"]["value_source"]["line"] == _line_of(_dense, "x @ w")
    rows = {r["name"]: r for r in module["by_name"]}
    assert rows["attn_out"]["name_from"] == "checkpoint_name"
    assert rows["attn_out"]["bytes"] == 512 and rows["attn_out"]["bytes_per_step"] == 2048
    text = str(report)
    assert "name: attn_out (its checkpoint_name)" in text
    assert "name: query_proj (its checkpoint_name)" in text


def _act(x, w, n):
    return checkpoint_name(jnp.tanh(x @ w), n)


def _two_names_one_line(x, w):
    a = _act(x, w, "a")
    b = _act(a, w, "b")
    c = checkpoint_name(jnp.sin(b), "c")
    return c @ w


def test_one_line_computing_two_names_keeps_the_op_rule():
    # `_act` computes both `a` and `b` on one line with one primitive: the HLO cannot
    # tell them apart by source, so neither gets a checkpoint name (no wrong name).
    def loss(w, x):
        return jnp.sum(jax.checkpoint(_two_names_one_line, policy=_policy("a", "b", "c"))(x, w))
    args = (jax.ShapeDtypeStruct((16, 16), F32), jax.ShapeDtypeStruct((8, 16), F32))
    module = _offloads(hlo_offload.report(jax.jit(jax.grad(loss)), *args))
    got = sorted((o["name"], o["name_from"]) for o in module["offloads"])
    assert got == [("c", "checkpoint_name"), ("tanh", "op"), ("tanh", "op")]


def test_checkpoint_names_reads_every_sub_jaxpr():
    args = (jax.ShapeDtypeStruct((4, 16, 16), F32), jax.ShapeDtypeStruct((8, 16), F32))
    names = _jax.checkpoint_names(jax.jit(jax.grad(_scan_loss)).trace(*args).jaxpr)
    assert {(op, name) for _, _, op, name in names} == {
        ("tanh", "attn_out"), ("dot_general", "query_proj")}
    assert all(file == __file__ for file, _, _, _ in names)


def test_a_lowered_has_no_checkpoint_names():
    args = (jax.ShapeDtypeStruct((4, 16, 16), F32), jax.ShapeDtypeStruct((8, 16), F32))
    lowered = jax.jit(jax.grad(_scan_loss)).trace(*args).lower(lowering_platforms=("tpu",))
    module = _offloads(hlo_offload.report(lowered))
    assert {o["name_from"] for o in module["offloads"]} == {"op"}
