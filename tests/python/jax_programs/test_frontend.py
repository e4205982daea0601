"""The JAX front end itself: its interface, its errors, paths, memory kinds and layouts."""
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

jax = pytest.importorskip("jax", reason="the JAX front end's tests need jax and jaxlib"
                             " (pip install '.[jax]')")
jnp = pytest.importorskip("jax.numpy")

from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

FRONT_END = pathlib.Path(__file__).resolve().parents[3] / "python" / "hlo_offload" / "_jax.py"


@pytest.fixture(scope="module")
def shardings():
    import numpy as np
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    dev = NamedSharding(mesh, PartitionSpec(), memory_kind="device")
    return dev, dev.with_memory_kind("pinned_host")


def _header(text):
    return text.split("\n", 1)[0]


def _entry_layout(text):
    m = re.search(r"entry_computation_layout=\{(.*?)\}(?:, [a-z_]+=|$)", _header(text))
    assert m, _header(text)
    return m.group(1)


def _parse(text):
    from jax._src.lib import xla_client
    return xla_client.hlo.hlo_module_from_text(text)


def test_interface(hjax):
    names = [f for f in hjax.XlaInput.__dataclass_fields__]
    assert names[:8] == ["hlo_text", "output_paths", "input_paths", "output_memory_kinds",
                         "input_memory_kinds", "out_tree", "platform", "notes"]
    for fn in ("is_stablehlo_text", "from_stablehlo_text", "from_jax"):
        assert callable(getattr(hjax, fn))
    # The memory spaces of xla/pjrt/utils.cc GetMemorySpaceColor.
    assert hjax.MEMORY_SPACE_OF_KIND == {"device": 0, "pinned_host": 5, "unpinned_host": 6}


def _run_python(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)


def test_loading_the_front_end_does_not_import_jax():
    proc = _run_python(f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("fe", {str(FRONT_END)!r})
        m = importlib.util.module_from_spec(spec); sys.modules["fe"] = m
        spec.loader.exec_module(m)
        assert m.is_stablehlo_text("module @m {{ func.func @main() {{ func.return }} }}")
        assert "jax" not in sys.modules and "jaxlib" not in sys.modules, sorted(sys.modules)
        print("ok")
    """)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr


def test_without_jax_import_error_names_the_extra():
    proc = _run_python(f"""
        import importlib.util, sys
        sys.modules["jax"] = None          # as if jax were not installed
        spec = importlib.util.spec_from_file_location("fe", {str(FRONT_END)!r})
        m = importlib.util.module_from_spec(spec); sys.modules["fe"] = m
        spec.loader.exec_module(m)
        for call in (lambda: m.from_stablehlo_text("module {{}}"),
                     lambda: m.from_jax(None)):
            try:
                call()
            except ImportError as e:
                assert "pip install hlo-offload[jax]" in str(e), e
            else:
                raise SystemExit("no ImportError")
        print("ok")
    """)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr


def test_is_stablehlo_text(hjax):
    lowered = jax.jit(lambda x: x + 1).trace(jnp.ones(3)).lower(lowering_platforms=("tpu",))
    assert hjax.is_stablehlo_text(lowered.as_text())
    assert hjax.is_stablehlo_text(lowered.as_text(debug_info=True))  # starts with #loc
    assert not hjax.is_stablehlo_text(lowered.as_text(dialect="hlo"))
    assert not hjax.is_stablehlo_text("HloModule m\n\nENTRY e { ROOT p = f32[] parameter(0) }")
    assert not hjax.is_stablehlo_text("")
    assert not hjax.is_stablehlo_text("// just a comment\n")
    assert not hjax.is_stablehlo_text("ENTRY e { ROOT p = f32[] parameter(0) }")
    # The head of a large module printed with debug info: only #loc aliases so far.
    head = "".join(f'#loc{i} = loc("params[{i}]")\n' for i in range(3000))
    assert hjax.is_stablehlo_text(head[:1 << 16])
    assert not hjax.is_stablehlo_text(b"module")


def test_bad_sources(hjax, shardings):
    f = jax.jit(lambda x: x * 2)
    x = jax.ShapeDtypeStruct((4,), jnp.float32)
    with pytest.raises(TypeError, match="jax.jit"):
        hjax.from_jax(lambda x: x, x)
    with pytest.raises(TypeError, match="jax.jit-wrapped function"):
        hjax.from_jax(42)
    lowered = f.trace(x).lower(lowering_platforms=("tpu",))
    with pytest.raises(TypeError, match="no arguments"):
        hjax.from_jax(lowered, x)
    with pytest.raises(TypeError, match="no arguments"):
        hjax.from_jax(f.trace(x), x)
    with pytest.raises(ValueError, match="unknown platform"):
        hjax.from_jax(f, x, platform="tpu9")
    with pytest.raises(ValueError, match="made for tpu"):
        hjax.from_jax(lowered, platform="cuda")
    with pytest.raises(TypeError, match="Compiled"):
        hjax.from_jax(f.lower(jnp.ones(4)).compile())
    with pytest.raises(TypeError):
        hjax.from_stablehlo_text(b"module {}")
    with pytest.raises(ValueError, match="parse"):
        hjax.from_stablehlo_text("module { this is not mlir")
    with pytest.raises(ValueError, match="no main"):
        hjax.from_stablehlo_text("module { func.func public @other() { func.return } }")
    bad_kind = ('module { func.func public @main(%a: tensor<2xf32> '
                '{mhlo.memory_kind = "tpu_sram"}) -> tensor<2xf32> '
                '{ func.return %a : tensor<2xf32> } }')
    with pytest.raises(ValueError, match="Unknown memory kind tpu_sram"):
        hjax.from_stablehlo_text(bad_kind)


def test_platforms_and_cpu_note(hjax, shardings):
    dev, host = shardings
    f = jax.jit(lambda x: jax.device_put(x * 2, host))
    x = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    for platform, want in (("tpu", "tpu"), ("cuda", "cuda"), ("gpu", "cuda"), ("rocm", "rocm")):
        r = hjax.from_jax(f, x, platform=platform)
        assert r.platform == want and r.notes == []
        assert '_xla_buffer_placement="pinned_host"' in r.hlo_text
        assert r.output_memory_kinds == ["pinned_host"]
    # A Lowered made for the CPU: JAX dropped the annotation; the result says so (HO0002).
    r = hjax.from_jax(f.lower(jnp.ones((8, 128))))
    assert r.platform == "cpu"
    assert "drops the offload annotations" in r.cpu_lowering, r.cpu_lowering
    assert "annotate_device_placement" not in r.hlo_text
    # A Lowered made for the TPU keeps its platform.
    assert hjax.from_jax(f.trace(x).lower(lowering_platforms=("tpu",))).platform == "tpu"


def test_memory_kinds_in_the_entry_layout(hjax, shardings):
    dev, host = shardings
    unpinned = dev.with_memory_kind("unpinned_host")

    def f(a, b, c):
        return jax.device_put(a, dev) + b, jax.device_put(b * 2, host), c + 1

    jf = jax.jit(f, in_shardings=(host, dev, unpinned), out_shardings=(dev, host, unpinned))
    args = [jax.ShapeDtypeStruct((4, 8), jnp.float32)] * 3
    r = hjax.from_jax(jf, *args)
    assert r.input_memory_kinds == ["pinned_host", "device", "unpinned_host"]
    assert r.output_memory_kinds == ["device", "pinned_host", "unpinned_host"]
    assert r.input_memory_spaces == [5, 0, 6] and r.output_memory_spaces == [0, 5, 6]
    assert _entry_layout(r.hlo_text) == (
        "(f32[4,8]{1,0:S(5)}, f32[4,8]{1,0}, f32[4,8]{1,0:S(6)})->"
        "(f32[4,8]{1,0}, f32[4,8]{1,0:S(5)}, f32[4,8]{1,0:S(6)})")
    # jaxlib's parser reads it and keeps the memory spaces.
    reparsed = _parse(r.hlo_text).to_string()
    assert "f32[4,8]{1,0:S(5)}" in _header(reparsed) and "S(6)" in _header(reparsed)


def test_paths_unused_and_donated_arguments(hjax, shardings):
    dev, host = shardings

    def step(params, opt_state, batch):
        del batch  # unused: JAX drops it from the entry parameters
        return {"params": {"w": params["w"] * 2},
                "opt_state": {"mu": opt_state["mu"] + 1, "nu": opt_state["nu"]}}

    args = ({"w": jnp.ones(3), "b": jnp.ones(2)},
            {"mu": jnp.ones(3), "nu": (jnp.ones(3), jnp.ones(1))}, jnp.ones(4))
    r = hjax.from_jax(jax.jit(step, donate_argnums=(1,)), *args)
    assert r.input_paths == ["params['w']", "opt_state['mu']", "opt_state['nu'][0]",
                             "opt_state['nu'][1]"]
    assert r.output_paths == ["result['opt_state']['mu']", "result['opt_state']['nu'][0]",
                              "result['opt_state']['nu'][1]", "result['params']['w']"]
    assert r.out_tree.num_leaves == len(r.output_paths)
    assert len(r.input_memory_kinds) == 4 and len(r.output_memory_kinds) == 4
    # The entry has as many parameters and outputs as there are paths.
    layout = _entry_layout(r.hlo_text)
    assert layout.count("f32[") == 8, layout
    assert "input_output_alias=" in _header(r.hlo_text)


def test_source_locations_are_kept(hjax, shardings):
    dev, host = shardings

    def f(x):
        return jax.device_put(x * 2.0, host)  # the line the report should name
    r = hjax.from_jax(jax.jit(f), jax.ShapeDtypeStruct((8,), jnp.float32))
    assert "metadata={" in r.hlo_text
    # Source files and lines are in the stack-frame tables (XLA's 2025+ printer).
    assert f'"{__file__}"' in r.hlo_text
    assert "_jax.py" not in r.hlo_text  # the front end's own frames are excluded
    put = [l for l in r.hlo_text.splitlines() if '_xla_buffer_placement="pinned_host"' in l]
    assert put and "stack_frame_id=" in put[0]


def test_stablehlo_text_matches_from_jax(hjax, shardings):
    dev, host = shardings

    def f(state, x):
        return {"h": jax.device_put(state["a"] * x, host), "d": state["b"] + 1}
    args = ({"a": jax.ShapeDtypeStruct((8, 4), jnp.float32),
             "b": jax.ShapeDtypeStruct((2,), jnp.float32)},
            jax.ShapeDtypeStruct((8, 4), jnp.float32))
    lowered = jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",))
    a = hjax.from_jax(lowered)
    b = hjax.from_stablehlo_text(lowered.as_text(debug_info=True))
    assert (a.input_paths, a.output_paths) == (b.input_paths, b.output_paths)
    assert a.output_memory_kinds == b.output_memory_kinds == ["device", "pinned_host"]
    assert _header(a.hlo_text) == _header(b.hlo_text)
    assert b.out_tree is None and b.platform == "tpu"
    # Without debug info the argument names (locations) are gone; result names stay.
    c = hjax.from_stablehlo_text(lowered.as_text())
    assert c.input_paths == ["", "", ""] and c.output_paths == a.output_paths
    # The older attribute spelling of argument names is read too.
    old = ('module @m { func.func public @main(%a: tensor<2xf32> {jax.arg_info = "x[0]", '
           'mhlo.memory_kind = "pinned_host"}) -> (tensor<2xf32> '
           '{jax.result_info = "result", mhlo.memory_kind = "pinned_host"}) '
           '{ func.return %a : tensor<2xf32> } }')
    d = hjax.from_stablehlo_text(old, platform="cuda")
    assert d.input_paths == ["x[0]"] and d.output_paths == ["result"]
    assert _entry_layout(d.hlo_text) == "(f32[2]{0:S(5)})->f32[2]{0:S(5)}"


def test_tuple_args(hjax):
    text = ('module @m { func.func public @main(%a: tensor<2xf32> '
            '{mhlo.memory_kind = "pinned_host"}, %b: tensor<3xf32>) -> (tensor<3xf32>) '
            '{ func.return %b : tensor<3xf32> } }')
    r = hjax.from_stablehlo_text(text, tuple_args=True)
    assert _entry_layout(r.hlo_text) == "((f32[2]{0:S(5)}, f32[3]{0}))->f32[3]{0}"
    assert r.tuple_args and any("tupled" in n for n in r.notes)


def test_apply_memory_kinds_to_entry_layout(hjax):
    apply = hjax.apply_memory_kinds_to_entry_layout
    head = ("HloModule m, entry_computation_layout={(f32[]{}, token[], s32[2,3]{0,1:T(2,128)}, "
            "/*index=3*/f32[4]{0:S(5)})->(f32[], (f32[1]{0}), pred[2]{0})}, "
            "frontend_attributes={a=\"{(}\"}\n\nENTRY e {}\n")
    out = apply(head, [5, 0, 6, 0], [5, 0, 0])
    assert _header(out) == (
        "HloModule m, entry_computation_layout={(f32[]{:S(5)}, token[], "
        "s32[2,3]{0,1:T(2,128)S(6)}, f32[4]{0})->(f32[]{:S(5)}, (f32[1]{0}), pred[2]{0})}, "
        "frontend_attributes={a=\"{(}\"}")
    assert out.endswith("\n\nENTRY e {}\n")
    with pytest.raises(ValueError, match="non-array"):
        apply(head, [0, 0, 0, 0], [0, 5, 0])
    with pytest.raises(ValueError, match="3 arguments but"):
        apply("HloModule m, entry_computation_layout={(f32[], f32[], f32[])->f32[]}", [0], [0])
    with pytest.raises(ValueError, match="no entry_computation_layout"):
        apply("HloModule m\n", [], [])
    with pytest.raises(ValueError, match="not an HLO module"):
        apply("module {}", [], [])
    # A shape without a layout gets the default one when it needs a memory space.
    out = apply("HloModule m, entry_computation_layout={(f32[2,3])->f32[2,3]}", [5], [0])
    assert _entry_layout(out) == "(f32[2,3]{1,0:S(5)})->f32[2,3]"


def test_long_entry_layouts_parse(hjax, shardings):
    # The printer writes /*index=N*/ comments into tuples of more than five elements.
    dev, host = shardings
    n = 7
    jf = jax.jit(lambda *xs: tuple(jax.device_put(x + 1, host) for x in xs))
    r = hjax.from_jax(jf, *[jax.ShapeDtypeStruct((2,), jnp.float32)] * n)
    assert r.output_memory_kinds == ["pinned_host"] * n
    assert _entry_layout(r.hlo_text).count("S(5)") == n
    _parse(r.hlo_text)


def test_many_arguments_are_tupled_on_tpu(hjax, shardings):
    # JAX compiles a TPU program of more than 2000 arguments with tupled arguments
    # (dispatch.should_tuple_args); PJRT then untuples them to apply the memory kinds.
    dev, host = shardings
    n = 2001
    args = [jax.ShapeDtypeStruct((2,), jnp.float32, sharding=host if i == 0 else dev)
            for i in range(n)]
    f = jax.jit(lambda *xs: jax.device_put(xs[0], dev) + xs[1], keep_unused=True)
    r = hjax.from_jax(f, *args)
    assert r.tuple_args and any("tupled" in n for n in r.notes)
    assert r.input_paths[:2] == ["xs[0]", "xs[1]"] and len(r.input_paths) == n
    assert _entry_layout(r.hlo_text).startswith("((f32[2]{0:S(5)}, f32[2]{0}, ")
    _parse(r.hlo_text)
    assert not hjax.from_jax(f, *args, platform="cuda").tuple_args
