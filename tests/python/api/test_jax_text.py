"""JAX programs given as StableHLO text and as jitted functions: the E1200 fix names the
out_shardings entry by the output's pytree path, HO3004 about the entry result carries
`output_path`, fix(text) gives the pytree of memory kinds the jitted function gives, and
text lowered without debug info names no bogus `-:LINE` source. Every program is lowered here by jax 0.10.2 for TPU (deviceless); what
it says JAX writes was seen in these runs."""
import json
import re
import subprocess
import sys

import pytest

import hlo_offload
from api_helpers import device_argument

jax = pytest.importorskip("jax", reason="the JAX front end needs jax (pip install '.[jax]')")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def env():
    return device_argument((8,))


def _nested(env):
    """The README's train step: the optimizer state's `mu` is put in unpinned_host and
    returned with JAX's default memory kind ("device"): E1200 on result['opt']['mu'],
    flat entry output 2 (dict keys sorted: loss, opt.count, opt.mu)."""
    dev, x = env
    host = dev.with_memory_kind("unpinned_host")

    def step(state, batch):
        mu = jax.device_put(state["opt"]["mu"] * 0.9 + batch, host)
        return {"opt": {"mu": mu, "count": state["opt"]["count"] + 1},
                "loss": jnp.sum(batch)}

    state = {"opt": {"mu": x, "count": jax.ShapeDtypeStruct((), jnp.int32, sharding=dev)}}
    return step, (state, x)


def _lowered_text(f, args, **kwargs) -> str:
    return f.trace(*args).lower(lowering_platforms=("tpu",)).as_text(**kwargs)


def _host_output_fix(d) -> str:
    (text,) = [f.description for f in d.fixes if f.strategy == "host-output"]
    return text


def test_fix_hint_names_out_shardings_by_pytree_path(env, tmp_path):
    step, args = _nested(env)
    f = jax.jit(step)
    result = hlo_offload.check(f, *args)
    (d,) = result.errors
    assert d.output_path == "result['opt']['mu']" and d.output_index == (2,)
    # JAX names results "result" + keystr(path) (DebugInfo.set_result_paths,
    # jax/_src/linear_util.py), and out_shardings has the result's structure: the entry
    # a JAX user writes is out_shardings['opt']['mu'], not out_shardings[2].
    hint = _host_output_fix(d)
    assert "in JAX give out_shardings['opt']['mu'] memory_kind=\"pinned_host\"" in hint
    assert "out_shardings[2]" not in str(result)
    assert "out_shardings['opt']['mu']" in str(result)
    assert d.to_json()["fixes"][0]["description"] == hint
    # The same from the StableHLO text and from a .mlir file through the command line.
    text = _lowered_text(f, args)
    (t,) = hlo_offload.check(text).errors
    assert _host_output_fix(t) == hint
    mlir = tmp_path / "step.mlir"
    mlir.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                           str(mlir)], capture_output=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    (e,) = [e for e in json.loads(proc.stdout)["files"][0]["diagnostics"]
            if e["code"] == "E1200"]
    assert e["fixes"][0]["description"] == hint
    # The hint is right: those out_shardings compile clean.
    dev, _ = env
    kinds = hlo_offload.fix(f, *args).output_memory_kinds
    shardings = jax.tree.map(lambda k: dev.with_memory_kind(k), kinds)
    g = jax.jit(step, out_shardings=shardings)
    assert hlo_offload.check(g, *args).ok


def test_fix_hint_of_tuple_and_single_outputs(env):
    dev, x = env
    host = dev.with_memory_kind("unpinned_host")
    pair = jax.jit(lambda v: (v + 1.0, jax.device_put(v * 2.0, host)))
    (d,) = hlo_offload.check(pair, x).errors
    assert d.output_path == "result[1]"
    assert "in JAX give out_shardings[1] memory_kind" in _host_output_fix(d)


def test_fix_of_text_gives_the_pytree_of_the_jitted_function(env):
    step, args = _nested(env)
    f = jax.jit(step)
    from_fn = hlo_offload.fix(f, *args).output_memory_kinds
    assert from_fn == {"opt": {"mu": "pinned_host", "count": "device"}, "loss": "device"}
    text = _lowered_text(f, args)
    assert 'jax.result_info = "result[\'opt\'][\'mu\']"' in text
    assert hlo_offload.fix(text).output_memory_kinds == from_fn
    assert hlo_offload.fix(text, strategy="move-to-device").output_memory_kinds == \
        hlo_offload.fix(f, *args, strategy="move-to-device").output_memory_kinds
    # A tuple of outputs: a tuple, as tree_unflatten of the jitted function's out_tree.
    dev, x = env
    pair = jax.jit(lambda v: (jax.device_put(v * 2.0, dev.with_memory_kind("unpinned_host")),
                              v + 1.0))
    want = hlo_offload.fix(pair, x).output_memory_kinds
    assert want == ("pinned_host", "device")
    assert hlo_offload.fix(_lowered_text(pair, (x,))).output_memory_kinds == want
    # Without the names the text cannot say the structure: one kind per flat output.
    unnamed = re.sub(r'jax\.result_info = "[^"]*"(, )?', "", text)
    assert "jax.result_info" not in unnamed
    assert hlo_offload.fix(unnamed).output_memory_kinds == \
        ["device", "device", "pinned_host"]


def test_pytree_from_result_paths():
    from hlo_offload._jax import pytree_from_result_paths as tree
    assert tree(["result"], ["device"]) == "device"
    assert tree(["result[0]", "result[1]"], [1, 2]) == (1, 2)
    assert tree(["result[0]['a']", "result[0]['b']", "result[1]"], [1, 2, 3]) == \
        ({"a": 1, "b": 2}, 3)
    assert tree(['result["it\'s"]'], [1]) == {"it's": 1}
    # What cannot be rebuilt: attribute keys, gaps, a token's "", mixed keys, twice.
    for paths in (["result.w"], ["result[0]", "result[2]"], ["", "result[0]"],
                  ["result[0]", "result['a']"], ["result[0]", "result[0]"],
                  ["result", "result[0]"], ["out[0]"]):
        assert tree(paths, list(range(len(paths)))) is None, paths


def test_ho3004_on_the_entry_result_names_the_output(env, tmp_path):
    # put_unpinned_host_default_out of the JAX program suite: the MoveToHost is the entry
    # root and the result is declared in device memory; XLA compiles it and the tool
    # warns HO3004 about that output, which JAX names "result".
    dev, x = env
    f = jax.jit(lambda v: jax.device_put(v * 2.0, dev.with_memory_kind("unpinned_host")))
    result = hlo_offload.check(f, x)
    assert result.ok
    (w,) = [d for d in result.diagnostics if d.code == "HO3004"]
    assert w.output_path == "result"
    assert w.to_json()["output_path"] == "result"
    assert "note: JAX output: result\n" in str(w)
    mlir = tmp_path / "put.mlir"
    mlir.write_text(_lowered_text(f, (x,)))
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                           str(mlir)], capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    (j,) = [e for e in json.loads(proc.stdout)["files"][0]["diagnostics"]
            if e["code"] == "HO3004"]
    assert j["output_path"] == "result"
    # The same module as HLO text has no names, and no output_path.
    (h,) = [d for d in hlo_offload.check(result.hlo_text).diagnostics if d.code == "HO3004"]
    assert h.output_path is None and "output_path" not in h.to_json()


def test_text_without_locations_names_no_dash_source(env, tmp_path):
    # Text printed without debug_info=True has no Python locations: MLIR's parser gives
    # each operation its line in the text, under the file name "-", and jaxlib's
    # converter writes source_file="-" (seen here: the diagnostic said "-:9").
    step, args = _nested(env)
    f = jax.jit(step)
    text = _lowered_text(f, args)
    line = 1 + next(i for i, l in enumerate(text.split("\n"))
                    if "annotate_device_placement" in l)
    result = hlo_offload.check(text)
    (d,) = result.errors
    assert d.source is None
    assert "-:" not in str(result) and '"-"' not in result.hlo_text
    # From a file those lines are lines of that file, and a note says so.
    mlir = tmp_path / "step.mlir"
    mlir.write_text(text)
    (d,) = hlo_offload.check(mlir).errors
    assert d.source == (str(mlir), line)
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", str(mlir)],
                          capture_output=True, timeout=300)
    err = proc.stderr.decode()
    assert f"note: from your program: {mlir}:{line}\n" in err
    assert f"source lines named {mlir}:LINE are lines of that StableHLO file" in err
    assert "-:" not in err
    # With debug info the Python line stays.
    (d,) = hlo_offload.check(_lowered_text(f, args, debug_info=True)).errors
    assert d.source[0].endswith("test_jax_text.py")
