"""What a source passed to check(), fix(), report() or the JAX front end is, in a user's
terms, and the TypeError or ValueError for what is often passed by mistake (an array, a
Compiled, a jax.pmap or plain function, a file's name as a str). Below the JAX front end
and the input step, which both ask; imports neither."""

from __future__ import annotations

import os
import re
from typing import Any, Mapping, Optional, Tuple


# A file's extension (step.mlir, module.txt, after_optimizations.hlo.txt).
_PATH_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9_-]{0,15}$")


def looks_like_path(text: str) -> bool:
    """A one-line str that reads as a file's name rather than as module text: printable,
    no character of HLO or MLIR syntax, and a folder part or an extension."""
    if not 0 < len(text) < 4096 or not text.isprintable() or text != text.strip():
        return False
    if any(c in text for c in '{}()[]=,;%"<>|*?'):
        return False
    if text.split(None, 1)[0] in ("HloModule", "ENTRY", "module", "func.func", "#loc"):
        return False
    return ("/" in text or "\\" in text or text.startswith("~")
            or _PATH_SUFFIX.search(text) is not None)


def path_text_error(text: str) -> Optional[Exception]:
    """ValueError for a str source that names a folder, or reads as the name of a file
    that does not exist (a str source is module text; files are passed as Path)."""
    if "\n" in text or not 0 < len(text) < 4096:
        return None
    try:
        is_dir = os.path.isdir(text)
    except ValueError:  # an embedded NUL
        return None
    if is_dir:
        return ValueError(
            f"a str source is module text, and {text!r} is a directory: pass one file in "
            "it as pathlib.Path (the command line takes folders)")
    if looks_like_path(text):
        return ValueError(
            f"a str source is module text, and {text!r} reads as a file's name, but no "
            f"such file exists: check the path, and pass a file as pathlib.Path({text!r})")
    return None


def missing_file_error(file: str) -> FileNotFoundError:
    """FileNotFoundError for an os.PathLike source that does not exist, naming it (and
    the directory a relative name is looked up in)."""
    import errno
    where = "" if os.path.isabs(file) else f" (relative to {os.getcwd()})"
    return FileNotFoundError(errno.ENOENT,
                             f"cannot read {file!r}: No such file or directory{where}", file)


def _an(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeio" else "a ") + noun


def describe(source: object) -> str:
    """What `source` is, in a user's terms: "a jax.Array (float32[3])", "an int (3)",
    "a list", "a jax.stages.Compiled"."""
    if isinstance(source, type):
        return f"the class {source.__qualname__}"
    t = type(source)
    module = t.__module__ or ""
    name = t.__qualname__
    import sys
    jax = sys.modules.get("jax")
    if jax is not None and isinstance(source, getattr(jax, "Array", ())):
        label = "jax.Array"
    elif module == "builtins":
        label = name
    elif module.split(".")[0] == "numpy":
        label = f"numpy.{name}"
    elif module.startswith("jax._src.stages"):
        label = f"jax.stages.{name}"
    elif module.startswith(("jax", "jaxlib")) and hasattr(jax, name):
        label = f"jax.{name}"
    else:
        label = name
    shape, dtype = getattr(source, "shape", None), getattr(source, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None and not callable(source):
        return f"{_an(label)} ({dtype}{list(shape)})".replace(", ", ",")
    if isinstance(source, (bool, int, float, complex)):
        value = repr(source)
        return f"{_an(label)} ({value[:40]}{'...' if len(value) > 40 else ''})"
    return _an(label)


# What a JAX transformation's function says of itself (its docstring, jax/_src/api.py),
# for the message that asks to wrap it in jax.jit.
_TRANSFORM_DOCS = (("Vectorized version of ", "jax.vmap"),
                   ("Value and gradient of ", "jax.value_and_grad"),
                   ("Gradient of ", "jax.grad"))


def is_pmap(source: object) -> bool:
    """A jax.pmap-wrapped function (pmap.py's `wrapped`, or jaxlib's PmapFunction)."""
    if type(source).__name__ == "PmapFunction":
        return True
    code = getattr(source, "__code__", None)
    if code is None or not callable(getattr(source, "lower", None)):
        return False
    qualname = getattr(code, "co_qualname", code.co_name)
    return "pmap" in qualname or os.path.basename(code.co_filename) == "pmap.py"


def callable_name(source: object) -> str:
    name = getattr(source, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "f"


def source_error(source: object, args: Tuple[Any, ...], kwargs: Mapping[str, Any],
                 api: str) -> Optional[Exception]:
    """TypeError for a source that is not a program `api` (check, fix, report, from_jax)
    takes but is often passed by mistake: an array or other example argument, a pytree
    of them, a list of modules, a jaxpr, a Compiled, a jax.pmap, jax.vmap or plain
    function, arguments given to a Traced or Lowered. None for anything else."""
    import sys
    jax = sys.modules.get("jax")
    stages = getattr(jax, "stages", None)
    module = type(source).__module__ or ""
    if stages is not None:
        if isinstance(source, stages.Compiled):
            return TypeError(
                f"{api}() takes a jax.jit-wrapped function, Traced or Lowered, not a "
                "jax.stages.Compiled (its HLO is after XLA's passes): pass the Lowered, "
                "jitted.trace(*args).lower(lowering_platforms=(\"tpu\",)), or the jitted "
                f"function and its example arguments: {api}(jitted, *args)")
        for kind in ("Traced", "Lowered"):
            if isinstance(source, getattr(stages, kind)):
                if args or kwargs:
                    return TypeError(
                        f"{api}({kind}) takes no arguments: they are part of the {kind} "
                        f"already ({len(args) + len(kwargs)} given); pass the jitted "
                        f"function to give others: {api}(jitted, *args)")
                return None
    if is_pmap(source):
        return TypeError(
            f"jax.pmap programs are not supported: {api}() takes jax.jit programs; use "
            "jax.jit with shardings (jax.sharding.NamedSharding) instead of jax.pmap: "
            f"{api}(jax.jit(f, in_shardings=..., out_shardings=...), x)")
    if is_jax_object(source):
        return None
    shape, dtype = getattr(source, "shape", None), getattr(source, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None and not callable(source):
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function and its example arguments, not "
            f"{describe(source)}: pass the function: {api}(jax.jit(f), x)")
    if module.startswith(("jax", "jaxlib")) and type(source).__name__ in ("Jaxpr",
                                                                          "ClosedJaxpr"):
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function, Traced or Lowered, not a "
            f"{type(source).__name__} (what jax.make_jaxpr gives): pass the function it "
            f"was made from: {api}(jax.jit(f), x)")
    if isinstance(source, (list, tuple, set, frozenset, dict)):
        items = list(source.values() if isinstance(source, dict) else source)
        if items and all(isinstance(i, (str, bytes, os.PathLike)) for i in items):
            return TypeError(
                f"{api}() takes one source, not {describe(source)} of modules or files: call "
                "it once for each (the command line's check takes several FILEs)")
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function and its example arguments, not "
            f"{describe(source)} (a pytree is an example argument): pass the function first: "
            f"{api}(jax.jit(f), x)")
    if callable(source) and not isinstance(source, type):
        import functools
        name = callable_name(source)
        doc = getattr(source, "__doc__", None) or ""
        code = getattr(source, "__code__", None)
        transform = next((t for prefix, t in _TRANSFORM_DOCS if doc.startswith(prefix)),
                         None)
        if transform is not None:
            what = expr = f"{transform}({name})"
        elif isinstance(source, functools.partial):
            name = callable_name(source.func)
            what = f"functools.partial({name}, ...)"
            expr = f"functools.partial({name}, ...)"
        elif module.startswith(("jax", "jaxlib")) or (
                code is not None and f"{os.sep}jax{os.sep}" in code.co_filename):
            what, expr = f"the JAX-transformed function {name}", "transformed"
        elif getattr(source, "__name__", None) == "<lambda>":
            what, expr = "a lambda", "f"
        elif hasattr(source, "__code__") or hasattr(source, "__func__"):
            what, expr = f"the plain function {name}", name
        else:
            what, expr = f"{describe(source)} object", "f"
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function, not {what}: wrap it in jax.jit: "
            f"{api}(jax.jit({expr}), x)")
    return None


def arguments_error(source: object, args: Tuple[Any, ...],
                    kwargs: Mapping[str, Any]) -> Optional[TypeError]:
    """TypeError for example arguments that a jitted function's signature does not take
    (too many, too few, an unknown keyword); None when they fit or the signature is not
    known (then JAX's own error stands)."""
    import inspect
    if not callable(source):
        return None
    try:
        signature = inspect.signature(source)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*args, **kwargs)
        return None
    except TypeError as e:
        why = str(e)
    name = callable_name(source)
    if not args and not kwargs:
        return TypeError(
            f"{name}{signature} needs example arguments, and none were given: pass them "
            "after the jitted function (arrays or jax.ShapeDtypeStruct), as a call of "
            f"{name} takes them")
    given = ", ".join(([f"{len(args)} positional"] if args else []) +
                      [f"{k}=" for k in kwargs])
    takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
    unknown = [k for k in kwargs if k not in signature.parameters and not takes_any]
    hint = (f"; {', '.join(unknown)} is not an option of check, fix or report, and "
            f"went to {name} as an argument" if unknown else "")
    return TypeError(
        f"the example arguments ({given}) do not match {name}{signature}: {why}{hint}; "
        f"pass what a call of {name} takes (arrays or jax.ShapeDtypeStruct)")


def is_jax_object(source: object) -> bool:
    """A program the JAX front end lowers: a Traced, a Lowered, or a jitted function (a
    callable with `.trace`; a jax.Array has `.trace` too, but is not callable)."""
    import sys
    jax = sys.modules.get("jax")
    stages = getattr(jax, "stages", None)
    if stages is not None and isinstance(source, (stages.Traced, stages.Lowered)):
        return True
    return callable(source) and callable(getattr(source, "trace", None))
