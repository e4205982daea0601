"""Wrong kinds of source: each is a TypeError (or a ValueError / FileNotFoundError) whose
message says what was given and what to pass instead, from check, fix and report alike
(each names itself), never an error from deep inside JAX or the parser."""
import os
import pathlib
import re

import pytest

import hlo_offload
from api_helpers import CLEAN_TEXT

CALLS = {"check": hlo_offload.check, "fix": hlo_offload.fix, "report": hlo_offload.report}


def _raises(exc, source, *args, words=(), **kwargs):
    """Each of check, fix and report raises `exc` for the source, with `words` (a
    `{api}` in a word is the function's name) in the message."""
    for name, call in CALLS.items():
        with pytest.raises(exc) as info:
            call(source, *args, **kwargs)
        message = str(info.value)
        for word in words:
            assert word.format(api=name) in message, (name, message)
    return info.value


@pytest.fixture(scope="module")
def jx():
    jax = pytest.importorskip("jax", reason="JAX sources need jax (pip install '.[jax]')")
    import jax.numpy as jnp
    return jax, jnp


def _f(x):
    return x * 2.0


# --- text and files -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["step.mlir", "dump/module.txt", "module.hlo",
                                  "dump/module_0001.jit_step.before_optimizations.txt"])
def test_str_naming_a_missing_file(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    e = _raises(ValueError, name, words=(repr(name), "no such file exists",
                                         f"pathlib.Path({name!r})"))
    assert not isinstance(e, hlo_offload.ParseError)


def test_str_naming_a_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dump").mkdir()
    _raises(ValueError, "dump", words=("'dump' is a directory", "pathlib.Path"))


def test_one_line_text_is_still_text():
    # A word that is no file's name, or text that is no file's name: a ParseError.
    for text in ("garbage", "HloModule m", "\x00\x01garbage.hlo", "f32[4] negate(p)"):
        with pytest.raises(hlo_offload.ParseError):
            hlo_offload.check(text)
    # A module on one line is read as one.
    assert hlo_offload.check("ENTRY main { ROOT p = f32[] parameter(0) }").ok


def test_str_naming_an_existing_file_is_a_type_error(tmp_path):
    path = tmp_path / "m.hlo"
    path.write_text(CLEAN_TEXT)
    _raises(TypeError, str(path), words=("is the name of a file", "pathlib.Path("))


@pytest.mark.parametrize("name", ["missing.hlo", "missing.mlir", "dump/missing.txt"])
def test_missing_path(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    e = _raises(FileNotFoundError, pathlib.Path(name),
                words=(f"cannot read {name!r}", "No such file or directory",
                       f"relative to {os.getcwd()}"))
    assert e.filename == name
    absolute = tmp_path / name
    e = _raises(FileNotFoundError, absolute, words=(f"cannot read {str(absolute)!r}",))
    assert "relative to" not in str(e)


def test_list_of_files_or_texts(tmp_path):
    _raises(TypeError, [tmp_path / "a.hlo", tmp_path / "b.hlo"],
            words=("{api}() takes one source, not a list", "call it once for each"))
    _raises(TypeError, (CLEAN_TEXT, CLEAN_TEXT), words=("not a tuple",))


@pytest.mark.parametrize("source,given", [
    (3, "not an int (3)"), (2.5, "not a float (2.5)"), (True, "not a bool (True)"),
    (object(), "not an object"), (int, "not the class int"),
])
def test_other_objects(source, given):
    _raises(TypeError, source, words=(
        "{api}() takes HLO or StableHLO text (str or bytes), a file (pathlib.Path), or a "
        "jax.jit-wrapped function and its example arguments", given))


@pytest.mark.parametrize("source,given", [
    ([1, 2], "not a list"), ((1.0,), "not a tuple"), ({"w": 1.0}, "not a dict"),
])
def test_pytree_as_source(source, given):
    _raises(TypeError, source, words=(
        "{api}() takes a jax.jit-wrapped function and its example arguments", given,
        "a pytree is an example argument", "pass the function first: {api}(jax.jit(f), x)"))


def test_numpy_array():
    np = pytest.importorskip("numpy")
    for source, given in ((np.ones((2, 3), np.float32), "a numpy.ndarray (float32[2,3])"),
                          (np.float32(1), "a numpy.float32 (float32[])")):
        _raises(TypeError, source, words=(
            f"{{api}}() takes a jax.jit-wrapped function and its example arguments, not "
            f"{given}: pass the function: {{api}}(jax.jit(f), x)",))


# --- JAX objects ----------------------------------------------------------------------


def test_jax_array(jx):
    jax, jnp = jx
    x = jnp.ones(3)
    words = ("{api}() takes a jax.jit-wrapped function and its example arguments, not a "
             "jax.Array (float32[3]): pass the function: {api}(jax.jit(f), x)",)
    _raises(TypeError, x, words=words)
    _raises(TypeError, x, jax.jit(_f), words=words)  # the function after its argument


def test_shape_dtype_struct(jx):
    jax, jnp = jx
    _raises(TypeError, jax.ShapeDtypeStruct((4, 8), jnp.bfloat16), words=(
        "not a jax.ShapeDtypeStruct (bfloat16[4,8])", "{api}(jax.jit(f), x)"))


def _jax_version(jax):
    return tuple(int(p) for p in jax.__version__.split(".")[:2])


def test_jaxpr(jx):
    jax, jnp = jx
    made = jax.make_jaxpr(_f)(jnp.ones(3))
    # JAX 0.10 gives a ClosedJaxpr, whose .jaxpr is a Jaxpr; JAX 0.12 gives a Jaxpr (its
    # ClosedJaxpr is the same class), whose .jaxpr is itself: both kinds on 0.10, one on 0.12.
    expected = {"ClosedJaxpr", "Jaxpr"} if _jax_version(jax) < (0, 11) else {"Jaxpr"}
    sources = {type(s).__name__: s for s in (made, made.jaxpr)}
    assert set(sources) == expected, sorted(sources)
    for kind, source in sources.items():
        _raises(TypeError, source, words=(
            f"not a {kind} (what jax.make_jaxpr gives)",
            "pass the function it was made from: {api}(jax.jit(f), x)"))


def test_compiled(jx):
    jax, jnp = jx
    x = jnp.ones(3)
    compiled = jax.jit(_f).lower(x).compile()
    _raises(TypeError, compiled, words=(
        "{api}() takes a jax.jit-wrapped function, Traced or Lowered, not a "
        "jax.stages.Compiled", 'jitted.trace(*args).lower(lowering_platforms=("tpu",))'))
    _raises(TypeError, compiled, x, words=("jax.stages.Compiled",))


def test_pmap(jx):
    jax, jnp = jx
    _raises(TypeError, jax.pmap(_f), jnp.ones((1, 3)), words=(
        "jax.pmap programs are not supported",
        "use jax.jit with shardings (jax.sharding.NamedSharding)"))


@pytest.mark.parametrize("transform", ["vmap", "grad", "value_and_grad"])
def test_transform_without_jit(jx, transform):
    jax, jnp = jx

    def loss(x):
        return (x * 2.0).sum()

    fun = getattr(jax, transform)(loss)
    _raises(TypeError, fun, jnp.ones(3), words=(
        f"{{api}}() takes a jax.jit-wrapped function, not jax.{transform}(loss): wrap it "
        f"in jax.jit: {{api}}(jax.jit(jax.{transform}(loss)), x)",))
    # jit of it is what is taken.
    assert hlo_offload.check(jax.jit(fun), jnp.ones(3)).ok


def test_plain_function(jx):
    jax, jnp = jx
    x = jnp.ones(3)
    _raises(TypeError, _f, x, words=(
        "not the plain function _f: wrap it in jax.jit: {api}(jax.jit(_f), x)",))
    _raises(TypeError, lambda x: x, x, words=("not a lambda", "{api}(jax.jit(f), x)"))
    _raises(TypeError, jax.checkpoint(_f), x, words=(
        "not the JAX-transformed function _f", "wrap it in jax.jit"))


def test_wrong_example_arguments(jx):
    jax, jnp = jx
    x = jnp.ones(3)
    f = jax.jit(_f)
    _raises(TypeError, f, words=("_f(x) needs example arguments, and none were given",
                                 "arrays or jax.ShapeDtypeStruct"))
    _raises(TypeError, f, x, x, words=(
        "the example arguments (2 positional) do not match _f(x): too many positional "
        "arguments", "pass what a call of _f takes"))
    _raises(TypeError, f, y=x, words=(
        "the example arguments (y=) do not match _f(x)",
        "y is not an option of check, fix or report, and went to _f as an argument"))


def test_traced_and_lowered_take_no_arguments(jx):
    jax, jnp = jx
    x = jnp.ones(3)
    traced = jax.jit(_f).trace(x)
    for source, kind in ((traced, "Traced"),
                         (traced.lower(lowering_platforms=("tpu",)), "Lowered")):
        _raises(TypeError, source, x, words=(
            f"{{api}}({kind}) takes no arguments: they are part of the {kind} already "
            "(1 given)",))


def test_other_jax_objects(jx):
    jax, jnp = jx
    _raises(TypeError, jax.devices()[0], words=("{api}() takes HLO or StableHLO text",
                                               "jax.jit-wrapped function"))


def test_from_jax_says_the_same(jx):
    jax, jnp = jx
    from hlo_offload._jax import from_jax
    x = jnp.ones(3)
    with pytest.raises(TypeError, match=re.escape("from_jax() takes a jax.jit-wrapped "
                                                  "function and its example arguments, "
                                                  "not a jax.Array")):
        from_jax(x)
    with pytest.raises(TypeError, match=re.escape("lowering_platforms=(\"tpu\",)")):
        from_jax(jax.jit(_f).lower(x).compile())
    with pytest.raises(TypeError, match="jax.pmap programs are not supported"):
        from_jax(jax.pmap(_f), x[None])
    with pytest.raises(TypeError, match=re.escape("from_jax(jax.jit(jax.vmap(_f)), x)")):
        from_jax(jax.vmap(_f), x)
