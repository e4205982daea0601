"""check, fix, report and explain: the public functions of hlo_offload.

A source is turned into the input of the C++ flow (pipeline/pipeline.h): HLO text is handed
over as it is (a bytes or str object, without a copy into another buffer), a file by its
path (the core maps it, as the command line does), and JAX programs and StableHLO text go
through the JAX front end (`hlo_offload._jax`), which gives the HLO module XLA would compile
with JAX's pytree path of every entry output and parameter. The core runs with the GIL
released.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _core, _xla
from ._types import (Diagnostic, FixError, FixedModule, ParseError, Report, Result,
                     Severity, Strategy, _front_end_diagnostic, _undecodable_bytes_error,
                     _unencodable_text_error)

__all__ = ["check", "fix", "report", "explain", "codes", "passes", "executable",
           "STRATEGIES"]

# fix's strategies, as `--strategy` spells them (the values of Strategy).
STRATEGIES: Tuple[str, ...] = tuple(s.value for s in Strategy)

# What ignore= and select= take: a code or prefix ("HO3005", "HO300", "HO3005,HO3014"),
# or an iterable of them.
Codes = Union[str, Iterable[str], None]

# Memory space (S(n) of a layout) -> JAX memory kind (xla/pjrt/utils.cc,
# GetMemorySpaceColor: device 0, pinned_host 5, unpinned_host 6).
_KIND_OF_SPACE = {0: "device", 5: "pinned_host", 6: "unpinned_host"}


@dataclass
class _Input:
    """What the core runs on: `text` (bytes or str) or `file` (a path), named `path`."""

    text: Any
    file: Optional[str]
    path: str
    xla: Any = None  # hlo_offload._jax.XlaInput for JAX and StableHLO sources
    # HLO text checked as XLA's SPMD partitioner gives it: the notes that say so (those of
    # a JAX or StableHLO source are its XlaInput's).
    notes: List[str] = field(default_factory=list)
    partitioned_text: Optional[str] = None
    # A module of several partitions checked as written (its byte figures are global).
    global_shapes: bool = False

    def all_notes(self) -> List[str]:
        return list(self.xla.notes) + self.notes if self.xla is not None else list(self.notes)


def _jax_module():
    from . import _jax
    return _jax


def _looks_like_mlir(head: str) -> bool:
    try:
        return _jax_module().is_stablehlo_text(head)
    except ImportError:  # pragma: no cover - _jax ships with the package
        return head.lstrip().startswith("module")


def _decode_head(data: bytes) -> str:
    return bytes(data[:1 << 16]).decode("utf-8", "replace")


def _from_stablehlo(text, platform, path: str, *, file: Optional[str] = None,
                    split_input_file: bool = False) -> _Input:
    """StableHLO text (str, or bytes read from `file` or given) through the JAX front
    end; ParseError for text that is not UTF-8 or that MLIR cannot parse."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8", "strict")
        except UnicodeDecodeError as e:
            raise _undecodable_bytes_error(text, e, path) from None
    if split_input_file:
        _refuse_split(text, path)
    xla = _jax_module().from_stablehlo_text(text, platform=platform, source_name=path,
                                        source_file=file)
    return _Input(text=xla.hlo_text, file=None, path=path, xla=xla)


def _refuse_split(text: str, path: str) -> None:
    """ValueError when `--split-input-file` / split_input_file=True is asked for a
    StableHLO text that has a `// -----` marker: the front end reads a StableHLO text as
    one module and cannot split it."""
    line = _jax_module().split_marker_line(text)
    if line is not None:
        raise ValueError(
            f"{path}:{line}: split_input_file (--split-input-file) is not supported for "
            "StableHLO text: it splits HLO text only, and a StableHLO text is read as one "
            "module; put each module (each part between `// -----` lines) in a file of "
            "its own and pass them all (the command line's check takes several FILEs)")


def _is_jax_object(source) -> bool:
    """A program the JAX front end lowers: a Traced, a Lowered, or a jitted function (a
    callable with `.trace`; a jax.Array has `.trace` too, but is not callable)."""
    import sys
    jax = sys.modules.get("jax")
    stages = getattr(jax, "stages", None)
    if stages is not None and isinstance(source, (stages.Traced, stages.Lowered)):
        return True
    return callable(source) and callable(getattr(source, "trace", None))


def _resolve(source, args, kwargs, *, platform, filename, split_input_file=False,
             api: str = "check") -> _Input:
    """Turns `source` into an _Input; TypeError/ValueError for what cannot be one."""
    if filename is not None and not isinstance(filename, str):
        raise TypeError(f"filename must be a str, not {type(filename).__name__}")
    if platform is not None and not isinstance(platform, str):
        raise TypeError(f"platform must be a str or None, not {type(platform).__name__}")
    text_like = isinstance(source, (str, bytes, bytearray, memoryview)) or isinstance(
        source, os.PathLike)
    if text_like and (args or kwargs):
        extra = ", ".join([type(a).__name__ for a in args] + list(kwargs))
        raise TypeError(
            "example arguments are for a jitted function; a text or file source takes "
            f"none (got {extra})")
    if isinstance(source, str):
        if "\n" not in source and 0 < len(source) < 4096 and os.path.isfile(source):
            raise TypeError(
                f"a str source is module text, and {source!r} is the name of a file: pass "
                f"pathlib.Path({source!r}) to read it")
        error = _path_text_error(source)
        if error is not None:
            raise error
        path = filename or "<string>"
        if _looks_like_mlir(source[:1 << 16]):
            return _from_stablehlo(source, platform, path,
                                   split_input_file=split_input_file)
        return _Input(text=source, file=None, path=path)
    if isinstance(source, (bytes, bytearray, memoryview)):
        # bytes are handed over as they are; a mutable buffer is copied once into bytes
        # so that it cannot change while the core reads it without the GIL.
        data = source if isinstance(source, bytes) else bytes(source)
        path = filename or "<bytes>"
        if _looks_like_mlir(_decode_head(data)):
            return _from_stablehlo(data, platform, path,
                                   split_input_file=split_input_file)
        return _Input(text=data, file=None, path=path)
    if isinstance(source, os.PathLike):
        file = os.fspath(source)
        if isinstance(file, bytes):
            file = os.fsdecode(file)
        if file == "-":
            # A file named "-", not standard input (which the command line reads for
            # "-", and which would wait for input here).
            file = os.path.join(".", "-")
        path = filename or file
        try:
            os.stat(file)
        except FileNotFoundError:
            raise _missing_file_error(file) from None
        except (OSError, ValueError):
            pass  # the core reports why it cannot be read
        if os.path.isdir(file):
            raise IsADirectoryError(
                f"{file!r} is a directory; pass one file (the command line takes folders)")
        if file.endswith(".mlir") or _file_looks_like_mlir(file):
            with open(file, "rb") as f:
                return _from_stablehlo(f.read(), platform, path, file=file,
                                       split_input_file=split_input_file)
        return _Input(text=None, file=file, path=path)
    if source is None:
        raise TypeError("source is None: pass HLO text, a file path (os.PathLike) or a "
                        "jitted function")
    error = _source_error(source, args, kwargs, api)
    if error is not None:
        raise error
    if _is_jax_object(source):
        xla = _jax_module().from_jax(source, *args, platform=platform, **kwargs)
        name = filename or f"<{_module_name(xla.hlo_text) or _jax_name(source)}>"
        return _Input(text=xla.hlo_text, file=None, path=name, xla=xla)
    raise TypeError(
        f"{api}() takes HLO or StableHLO text (str or bytes), a file (pathlib.Path), or a "
        "jax.jit-wrapped function and its example arguments (or its Traced or Lowered), "
        f"not {_what(source)}")


# A file's extension (step.mlir, module.txt, after_optimizations.hlo.txt).
_PATH_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9_-]{0,15}$")


def _looks_like_path(text: str) -> bool:
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


def _path_text_error(text: str) -> Optional[Exception]:
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
    if _looks_like_path(text):
        return ValueError(
            f"a str source is module text, and {text!r} reads as a file's name, but no "
            f"such file exists: check the path, and pass a file as pathlib.Path({text!r})")
    return None


def _missing_file_error(file: str) -> FileNotFoundError:
    """FileNotFoundError for an os.PathLike source that does not exist, naming it (and
    the directory a relative name is looked up in)."""
    import errno
    where = "" if os.path.isabs(file) else f" (relative to {os.getcwd()})"
    return FileNotFoundError(errno.ENOENT,
                             f"cannot read {file!r}: No such file or directory{where}", file)


def _an(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeio" else "a ") + noun


def _what(source) -> str:
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


def _is_pmap(source) -> bool:
    """A jax.pmap-wrapped function (pmap.py's `wrapped`, or jaxlib's PmapFunction)."""
    if type(source).__name__ == "PmapFunction":
        return True
    code = getattr(source, "__code__", None)
    if code is None or not callable(getattr(source, "lower", None)):
        return False
    qualname = getattr(code, "co_qualname", code.co_name)
    return "pmap" in qualname or os.path.basename(code.co_filename) == "pmap.py"


def _callable_name(source) -> str:
    name = getattr(source, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "f"


def _source_error(source, args, kwargs, api: str) -> Optional[Exception]:
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
    if _is_pmap(source):
        return TypeError(
            f"jax.pmap programs are not supported: {api}() takes jax.jit programs; use "
            "jax.jit with shardings (jax.sharding.NamedSharding) instead of jax.pmap: "
            f"{api}(jax.jit(f, in_shardings=..., out_shardings=...), x)")
    if _is_jax_object(source):
        return None
    shape, dtype = getattr(source, "shape", None), getattr(source, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None and not callable(source):
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function and its example arguments, not "
            f"{_what(source)}: pass the function: {api}(jax.jit(f), x)")
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
                f"{api}() takes one source, not {_what(source)} of modules or files: call "
                "it once for each (the command line's check takes several FILEs)")
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function and its example arguments, not "
            f"{_what(source)} (a pytree is an example argument): pass the function first: "
            f"{api}(jax.jit(f), x)")
    if callable(source) and not isinstance(source, type):
        import functools
        name = _callable_name(source)
        doc = getattr(source, "__doc__", None) or ""
        code = getattr(source, "__code__", None)
        transform = next((t for prefix, t in _TRANSFORM_DOCS if doc.startswith(prefix)),
                         None)
        if transform is not None:
            what = expr = f"{transform}({name})"
        elif isinstance(source, functools.partial):
            name = _callable_name(source.func)
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
            what, expr = f"{_what(source)} object", "f"
        return TypeError(
            f"{api}() takes a jax.jit-wrapped function, not {what}: wrap it in jax.jit: "
            f"{api}(jax.jit({expr}), x)")
    return None


def _arguments_error(source, args, kwargs) -> Optional[TypeError]:
    """TypeError for example arguments that a jitted function's signature does not take
    (too many, too few, an unknown keyword); None when they fit or the signature is not
    known (then JAX's own error stands)."""
    import inspect
    try:
        signature = inspect.signature(source)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*args, **kwargs)
        return None
    except TypeError as e:
        why = str(e)
    name = _callable_name(source)
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


def _file_looks_like_mlir(file: str) -> bool:
    """True when the file's start reads as StableHLO text (any extension)."""
    try:
        with open(file, "rb") as f:
            head = f.read(1 << 12)
    except OSError:
        return False  # the core reports why it cannot be read
    return _decode_head(head).lstrip().startswith(("module", "#loc", "//")) and \
        _looks_like_mlir(_decode_head(head))


def _module_name(hlo_text: str) -> Optional[str]:
    """The `HloModule NAME` of a module's text (what jit names it: jit_step)."""
    head = hlo_text[:4096].lstrip()
    if not head.startswith("HloModule"):
        return None
    name = head[len("HloModule"):].split(",", 1)[0].split(None, 1)
    return name[0] if name else None


def _jax_name(source) -> str:
    for attr in ("__name__", "fun_name"):
        name = getattr(source, attr, None)
        if isinstance(name, str):
            return name
    return type(source).__name__


def _bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value


def _budget(value) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError("pinned_host_budget must be a number of bytes or a size such as "
                        "'16GiB', not a bool")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"pinned_host_budget must be 0 or more bytes, not {value}")
        if value >= 1 << 63:
            raise ValueError("pinned_host_budget is larger than 2^63-1 bytes (8 EiB)")
        return value
    if isinstance(value, str):
        parsed = _core.parse_byte_size(value)
        if isinstance(parsed, str):
            raise ValueError(f"pinned_host_budget: {parsed}")
        return parsed
    raise TypeError("pinned_host_budget must be a number of bytes (int) or a size such as "
                    f"'16GiB' (str), not {type(value).__name__}")


def _codes(name: str, value, disable: bool) -> list:
    """The codes of ignore= (disable) or select=: None, a str ("HO3005" or "HO3005,HO300")
    or an iterable of str; codes or prefixes, as --disable / --enable take them.
    TypeError for another type, ValueError for an unknown code or, for ignore=, one that
    cannot be disabled."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, (bytes, bytearray, memoryview, dict)) or not hasattr(value,
                                                                             "__iter__"):
        raise TypeError(f"{name} must be a code such as 'HO3005' or a list of codes, not "
                        f"{type(value).__name__}")
    else:
        items = list(value)
        for item in items:
            if not isinstance(item, str):
                raise TypeError(f"{name} must hold codes as str (such as 'HO3005'), not "
                                f"{type(item).__name__}")
        if isinstance(value, (set, frozenset)):
            items.sort()
    if not items:
        return []
    parsed = _core.parse_codes(name, items, disable)
    if isinstance(parsed, str):
        raise ValueError(parsed)
    return items


def _run_args(inp: _Input, *, lints: bool = True, pinned_host_budget: Any = None,
              strategy: Any = "host-output", keep_modules: bool = False,
              split_input_file: bool = False, xla_flags: Any = None, max_nodes: Any = 400,
              pipeline: Any = "xla", ignore: Codes = None,
              select: Codes = None, xla_version: Optional[str] = None) -> "_core.PipelineOptions":
    """The core's PipelineOptions for the public functions' arguments, each checked
    (TypeError for a wrong type, ValueError for a wrong value)."""
    options = _core.PipelineOptions()
    options.path = inp.path
    _set_xla_version(options, xla_version)
    options.select_codes(_codes("ignore", ignore, True), _codes("select", select, False))
    if not isinstance(pipeline, str):
        raise TypeError(f"pipeline must be a str, not {type(pipeline).__name__}")
    if pipeline not in PIPELINES:
        raise ValueError(f"unknown pipeline {pipeline!r}: one of {', '.join(PIPELINES)}")
    options.pipeline = pipeline
    options.lints = _bool("lints", lints)
    options.split_input = _bool("split_input_file", split_input_file)
    options.lint.pinned_host_budget = _budget(pinned_host_budget)
    if not isinstance(strategy, str):
        raise TypeError(f"strategy must be a str, not {type(strategy).__name__}")
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown fix strategy {strategy!r}: one of {', '.join(STRATEGIES)}")
    options.fix_strategy = Strategy(strategy).value
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int):
        raise TypeError(f"max_nodes must be an int, not {type(max_nodes).__name__}")
    if not MAX_NODES_RANGE[0] <= max_nodes <= MAX_NODES_RANGE[1]:
        raise ValueError(max_nodes_error(max_nodes))
    options.report_max_nodes = max_nodes
    options.keep_modules = keep_modules
    for flag, value in _xla_flags(xla_flags).items():
        setattr(options.offload, flag, value)
    if inp.xla is not None:
        options.output_paths = list(inp.xla.output_paths)
        options.input_paths = list(inp.xla.input_paths)
        options.checkpoint_names = list(inp.xla.checkpoint_names)
        # The platform lowered for is the backend compiled for: lints about another
        # backend's compiler (HO3005, the GPU's) stay quiet (`--backend`).
        options.lint.backend = _BACKEND_OF_PLATFORM.get(inp.xla.platform, "any")
        # Diagnostics are located in the user's file (the Python line, or the .mlir
        # line of text without debug info), the converted HLO module's line after.
        options.locate_in_source = True
    return options


def _set_xla_version(options: "_core.PipelineOptions", xla_version: Optional[str]) -> None:
    """options.xla_version from `xla_version` (`--xla-version`'s PACKAGE-VERSION[,...]),
    by default the installed libtpu and CUDA plugin (_xla.installed_xla_version); a
    version the table does not know gets the newest known semantics and a warning."""
    if xla_version is None:
        xla_version = _xla.installed_xla_version()
    elif not isinstance(xla_version, str):
        raise TypeError(f"xla_version must be a str, not {type(xla_version).__name__}")
    options.xla_version = xla_version
    for note in options.xla_version_notes:
        warnings.warn(f"hlo-offload: {note}", stacklevel=4)


# JAX platform -> `--backend` (lints/offload_lints.h, TargetBackend).
_BACKEND_OF_PLATFORM = {"tpu": "tpu", "cuda": "gpu", "rocm": "gpu"}


# `report --max-nodes=N`: the command line takes 1 to 2^30 (src/tool/driver.cc, the
# option's CLI::Range), and so does the API.
MAX_NODES_RANGE = (1, 1 << 30)


def max_nodes_error(value) -> str:
    """Why `value` is not a max_nodes / --max-nodes the command line takes."""
    return (f"max_nodes (--max-nodes) is the most path instructions the picture draws, "
            f"a whole number from {MAX_NODES_RANGE[0]} to {MAX_NODES_RANGE[1]} (2^30), "
            f"not {value}")


# `--pipeline`: XLA's compile order up to the offloader (the default), or the three
# offloading passes alone.
PIPELINES = ("xla", "offload")

# The passes' options that mirror XLA's debug flags (README, "Commands"), by the names
# XLA_FLAGS spells them.
_XLA_FLAGS = {
    "xla_disable_automatic_host_compute_offload": "disable_automatic_host_compute_offload",
    "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled":
        "allow_h2h_copy_when_automatic_host_compute_offload_disabled",
    "fix_entry_layout_unless_customized": "fix_entry_layout_unless_customized",
}


def _xla_flags(flags) -> dict:
    if flags is None:
        return {}
    if not isinstance(flags, dict):
        raise TypeError(f"xla_flags must be a dict, not {type(flags).__name__}")
    out = {}
    for name, value in flags.items():
        key = name.lstrip("-") if isinstance(name, str) else name
        if key not in _XLA_FLAGS:
            raise ValueError(f"unknown option {name!r} in xla_flags: one of "
                             f"{', '.join(_XLA_FLAGS)}")
        out[_XLA_FLAGS[key]] = _bool(f"xla_flags[{name!r}]", value)
    return out


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _run(command: str, inp: _Input, options: "_core.PipelineOptions") -> "_core.Outcome":
    try:
        outcome = _core.run(command, inp.text, inp.file, options)
    except UnicodeEncodeError as e:  # a str with a lone surrogate has no UTF-8 form
        if not isinstance(inp.text, str):
            raise
        raise _unencodable_text_error(inp.text, e, inp.path) from None
    if outcome.read_error:
        message = _decode(outcome.read_error)
        outcome.release()
        raise _read_error(inp.file, message)
    return outcome


def _read_error(file: Optional[str], message: str) -> Exception:
    """The exception for a file the core could not read, by what the file is."""
    import errno
    assert file is not None  # only a file has a read error
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return FileNotFoundError(errno.ENOENT, message, file)
    except OSError as e:
        return type(e)(e.errno, message, file)
    import stat
    if stat.S_ISDIR(st.st_mode):
        return IsADirectoryError(errno.EISDIR, message, file)
    if stat.S_ISREG(st.st_mode) and st.st_size > _core.MAX_INPUT_BYTES:
        return ValueError(message)
    if not os.access(file, os.R_OK):
        return PermissionError(errno.EACCES, message, file)
    return OSError(errno.EIO, message, file)


def _raise_parse_error(modules) -> None:
    for m in modules:
        if m["parse_failed"]:
            rendered = _decode(m["parse_error"]).rstrip("\n")
            line = m["parse_line"] or None
            column = m["parse_column"] or None
            first = rendered.split("\n", 1)[0]
            path = first.split(":", 1)[0] if line else ""
            raise ParseError(rendered, path=path, line=line, column=column,
                             message=_decode(m["parse_message"]))


def _result(outcome, inp: _Input, modules, *, keep_input: bool = False) -> Result:
    """A Result over `outcome`: the text now (the source lines need the input, which is
    then dropped: a mapped file is not held); the JSON and the Diagnostic values when first
    asked for, from the outcome's diagnostics, after which the outcome is released."""
    blob, offsets, folded = outcome.diagnostic_texts()
    # Offsets are into the UTF-8 bytes; decoded per diagnostic so that each text slice
    # matches its bytes even where the input has invalid UTF-8.
    pieces = [_decode(blob[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)] \
        if len(offsets) > 1 and not blob.isascii() else None
    text = "".join(pieces) if pieces is not None else blob.decode("ascii")
    if pieces is not None:
        char_offsets = [0]
        for p in pieces:
            char_offsets.append(char_offsets[-1] + len(p))
    else:
        char_offsets = list(offsets)
    front = front_end_diagnostics(inp.xla, inp.path)
    summary = _core.check_summary([outcome], [d.code for d in front if d.is_error],
                                  front_warnings=[d.code for d in front if not d.is_error])
    if not keep_input:
        outcome.drop_input()

    def render_json() -> str:
        try:
            return _decode(_core.render_json([outcome]))
        finally:
            outcome.release()

    return Result(
        text=text, offsets=char_offsets, render_json=render_json,
        folded_text=folded.decode("ascii") if folded.isascii() else _decode(folded),
        counts=outcome.counts(), exit_status=outcome.exit_status,
        modules=[m["name"] for m in modules], file=inp.path,
        notes=inp.all_notes(),
        hlo_text=inp.xla.hlo_text if inp.xla is not None else inp.partitioned_text,
        xla_input=inp.xla, front=front, summary=summary)


def front_end_diagnostics(xla, path: str) -> list:
    """What the JAX front end found in a source before the core ran: HO0002, an error
    when it was lowered for the CPU and its offload annotations were dropped, a warning
    when it is text that may be such a lowering (docs/errors/HO0002.md)."""
    if xla is None:
        return []
    from ._jax import CPU_LOWERING_CODE, CPU_LOWERING_NAME
    if getattr(xla, "cpu_lowering", None):
        return [_front_end_diagnostic(CPU_LOWERING_CODE, CPU_LOWERING_NAME,
                                      xla.cpu_lowering, file=path,
                                      notes=xla.cpu_lowering_notes)]
    if getattr(xla, "platform_unknown", None):
        return [_front_end_diagnostic(CPU_LOWERING_CODE, CPU_LOWERING_NAME,
                                      xla.platform_unknown, file=path,
                                      notes=xla.platform_unknown_notes,
                                      severity=Severity.WARNING)]
    return []


def check(source: Any, *args: Any, platform: Optional[str] = None, lints: bool = True,
          pinned_host_budget: Union[int, str, None] = None, filename: Optional[str] = None,
          split_input_file: bool = False, xla_flags: Optional[Mapping[str, bool]] = None,
          pipeline: str = "xla", ignore: Codes = None, select: Codes = None,
          xla: Optional[str] = None, xla_topology: Optional[str] = None,
          xla_version: Optional[str] = None, partition: bool = True,
          **kwargs: Any) -> Result:
    """Runs XLA's host-offloading pipeline on `source` and reports what it finds
    (`hlo-offload check`).

    source: HLO text (str or bytes), StableHLO text (as `Lowered.as_text()` prints it), an
        `os.PathLike` file (`.mlir` or StableHLO text goes through JAX), a
        `jax.stages.Lowered`, a `jax.stages.Traced`, or a jitted function, whose example
        arguments (arrays or `jax.ShapeDtypeStruct`s) are `*args` and `**kwargs`.
    platform: what a JAX source is lowered for ("tpu" by default, "cuda", "rocm", "cpu");
        not used for HLO text.
    lints: the HO3xxx lints (`--no-lints` is False). pinned_host_budget: bytes (int) or a
        size such as "16GiB" (`--pinned-host-budget`). filename: the name diagnostics show
        for text (default "<string>", "<bytes>", the file's path, "<function name>").
    split_input_file: modules separated by `// -----` lines. xla_flags: the passes'
        options named as XLA's debug flags, e.g.
        {"xla_disable_automatic_host_compute_offload": True}.
    pipeline: "xla" (XLA's pass order up to the offloader, with the passes before it that
        change what it sees: call inlining, tuple simplification, DCE, reshape-to-bitcast)
        or "offload" (the three offloading passes alone), as `--pipeline`.
    ignore: codes whose diagnostics are dropped (`--disable`), e.g. ["HO3005"] or "HO300"
        (a prefix names every code it starts); select: the only warning and lint codes
        reported (`--enable`). Only HO2xxx and HO3xxx can be ignored: errors XLA raises
        (E1200, HO1xxx), input errors (HO0xxx) and HO9xxx are always reported (ValueError).
    xla: "tpu" or "cuda" also compiles the same module with XLA's compile-only client for
        that backend (docs/DEVICELESS.md), in a child process, and puts its verdict beside
        ours: `result.xla`, `result.xla_agrees`, each error's and HO2001's
        `xla_confirmed`; XLA's verdict decides `ok`. A JAX source is then lowered for that
        backend unless `platform` says otherwise. xla_topology: what to compile for (a
        TPU topology such as "v5e:2x4", chosen by the module's partitions by default; for
        cuda a GPU target config file or XLA spec name, "h100_sxm" by default).
        Raises XlaUnavailable (a RuntimeError, with the install command) when the client
        is not installed.
    xla_version: the XLA whose verdicts to reproduce where versions differ, as
        `--xla-version` takes it ("libtpu-0.0.42.1", "jax-cuda12-plugin-0.10.2", comma-
        separated; "newest"); by default the installed libtpu and CUDA plugin
        (`hlo_offload._xla.installed_xla_version()`). A version not measured gets the
        newest known semantics and a warning; `result.to_json()["xla_semantics"]` says which were used.
    partition: a module of several partitions that XLA has not partitioned yet (HLO
        text or file with `num_partitions` > 1, a sharded JAX program) is checked as XLA's
        SPMD partitioner gives it, per device, when jax is installed (docs/SHARDED.md);
        False checks it as written, as one partition, as the C++ command line does
        (HO3017 says so).
    Returns a Result. Raises ParseError (a ValueError) for text that does not parse,
    TypeError/ValueError for bad arguments, OSError for a file that cannot be read,
    ImportError for a JAX source without jax.
    """
    backend = _xla_backend(xla, xla_topology, split_input_file)
    if backend is not None and platform is None and backend == "cuda":
        platform = "cuda"
    inp = _resolve(source, args, kwargs, platform=platform, filename=filename,
                   split_input_file=split_input_file)
    written = inp
    if partition:
        inp = _partitioned(inp)
    run_args = _run_args(inp, lints=lints, pinned_host_budget=pinned_host_budget,
                         split_input_file=split_input_file, xla_flags=xla_flags,
                         pipeline=pipeline, ignore=_ignoring_ho3017(inp, ignore),
                         select=select,
                         xla_version=xla_version)
    if backend is not None and inp.xla is None:
        # Text compiled by XLA for `backend` is checked for it (its compiler's limits).
        run_args.lint.backend = "gpu" if backend == "cuda" else "tpu"
    outcome = _run("check", inp, run_args)
    try:
        modules = outcome.modules()
        _raise_parse_error(modules)
        result = _result(outcome, inp, modules)
    except BaseException:
        outcome.release()
        raise
    if backend is not None:
        # XLA compiles the module as written: it partitions it itself.
        verdict = xla_verdict(written, backend, xla_topology)
        ours = None
        if verdict.memory and _per_device(inp, written, partition):
            ours = _memory_of(inp, _run_args(inp, xla_flags=xla_flags, pipeline=pipeline,
                                             xla_version=xla_version))
        result._attach_xla(verdict, ours)
    return result


# The report's per-device byte figures that XLA's memory analysis is compared with.
_MEMORY_KEYS = ("host_bytes_in", "host_bytes_out", "host_intermediate_bytes",
                "device_bytes_in", "device_bytes_out")


def _report_json(inp: _Input, run_args) -> Optional[Dict[str, Any]]:
    """The report JSON of `inp`'s one module, None when the report fails or the input has
    several modules."""
    outcome = _run("report", inp, run_args)
    try:
        if outcome.exit_status != 0:
            return None
        import json
        data = json.loads(_decode(_core.render_reports([outcome], "json")))
    finally:
        outcome.release()
    if isinstance(data, list):
        return data[0] if len(data) == 1 else None
    return data


def _memory_of(inp: _Input, run_args) -> Optional[Dict[str, int]]:
    """The report's byte figures of `inp` (_MEMORY_KEYS), None when the report fails;
    per device for a partitioned module."""
    data = _report_json(inp, run_args)
    return None if data is None else {k: int(data.get(k, 0)) for k in _MEMORY_KEYS}


def _ignoring_ho3017(inp: _Input, ignore: Codes) -> Codes:
    """`ignore`, with HO3017 when XLA's partitioner failed on `inp`: the partition step's
    note says so and why, and HO3017 would send the user to that same partitioner."""
    if not inp.global_shapes:
        return ignore
    if ignore is None:
        return ["HO3017"]
    if isinstance(ignore, str):
        return [ignore, "HO3017"]
    if isinstance(ignore, (list, tuple, set, frozenset)):
        return [*ignore, "HO3017"]
    return ignore  # not codes: _run_args says what is wrong with it


def _per_device(inp: _Input, written: _Input, partition: bool) -> bool:
    """Whether the figures of the module checked (`inp`, from `written`) are per device, as
    XLA's memory analysis is: a partitioned module, or one of a single partition."""
    if inp.global_shapes:
        return False
    if inp is not written or partition:
        return True  # partitioned, or nothing to partition (_partitioned said so)
    text = _input_text(written)
    from . import _partition
    return text is None or _partition.needs_partitioning(text) is None


def _input_text(inp: _Input) -> Any:
    """The text of `inp` (str or bytes; a file's bytes), None for a file that cannot be read
    or is too large (the core says why)."""
    if inp.text is not None:
        return inp.text
    assert inp.file is not None  # an input without text is a file
    try:
        if os.path.getsize(inp.file) > _core.MAX_INPUT_BYTES:
            return None
        with open(inp.file, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _partitioned(inp: _Input) -> _Input:
    """For a module of several partitions that XLA has not partitioned yet (a JAX or
    StableHLO source, HLO text, an HLO file such as XLA's `before_optimizations` dump), the
    module as XLA's SPMD partitioner gives it (hlo_offload._partition; docs/SHARDED.md),
    with a note saying so; where the partitioner cannot run, the module as written with a
    note saying why and what that leaves out. Other inputs are returned as they are."""
    xi = inp.xla
    if xi is not None and (not isinstance(inp.text, str) or xi.cpu_lowering):
        return inp
    from . import _partition
    text = _input_text(inp)
    if text is None:
        return inp  # the core says why it cannot be read
    state = _partition.needs_partitioning(text)
    if state is None:
        return inp
    n, sharded = state
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    done = _partition.partition(text, _module_name(text) or "module")
    notes = xi.notes if xi is not None else list(inp.notes)
    notes.extend(done.notes)
    if done.text is None:
        why = (f"{done.hint} (XLA's partitioner said: {done.error})" if done.hint else
               f"XLA's SPMD partitioner could not partition it ({done.error})")
        notes.append(
            f"the module has {n} partitions and {why}: it was checked as written, as one "
            f"partition; the partitioner's per-device shapes and the collectives it inserts "
            f"on host paths are not seen")
        if xi is not None:
            inp.global_shapes = True
            return inp
        return _Input(text=inp.text, file=inp.file, path=inp.path, notes=notes,
                      global_shapes=True)
    propagation = "Shardy's" if done.shardy else "GSPMD's"
    where = "" if xi is not None else \
        "; line numbers are the partitioned module's (Result.hlo_text)"
    notes.append(
        f"the module has {n} partitions: checked as XLA's SPMD partitioner gives it "
        f"({propagation} sharding propagation; \"{sharded}\" is sharded; jaxlib's CPU "
        f"compiler ran the partitioner in {done.seconds:.1f} s): shapes and bytes are per "
        f"device, and instruction names are the partitioned module's{where}")
    if xi is not None:
        xi.hlo_text = done.text  # `result.hlo_text` is the module checked
        return _Input(text=done.text, file=None, path=inp.path, xla=xi)
    return _Input(text=done.text, file=None, path=inp.path, notes=notes,
                  partitioned_text=done.text)


def _xla_backend(xla, topology, split_input_file=False) -> Optional[str]:
    """The checked `xla=` backend, or None; XlaUnavailable when its client is missing."""
    if xla is None:
        if topology is not None:
            raise ValueError("xla_topology is for xla='tpu' or xla='cuda'")
        return None
    from . import _xla
    backend = _xla.check_backend(xla)
    if topology is not None and not isinstance(topology, str):
        raise TypeError(f"xla_topology must be a str, not {type(topology).__name__}")
    if split_input_file:
        raise ValueError("xla= compiles one module: check the modules of a split file one "
                         "by one")
    if not _xla.installed(backend):
        raise _xla._unavailable(backend)
    return backend


def xla_verdict(inp: _Input, backend: str, topology: Optional[str], *,
                hlo_text: Optional[str] = None, result_memory_kinds=None):
    """XLA's verdict on the module of `inp` (or on `hlo_text`, a rewritten module), by
    hlo_offload._xla.compile_module: the StableHLO of a JAX or StableHLO source as JAX
    hands it to PJRT, else the HLO text. No verdict for a lowering for the CPU (its
    annotations are gone: XLA would compile another program)."""
    from . import _partition, _xla
    xi = inp.xla
    if xi is not None and xi.cpu_lowering:
        return _xla.XlaVerdict(backend=backend, topology=topology or "", verdict=False,
                               reason="the input is a lowering for the CPU (HO0002): XLA "
                               "would compile a program without its offload annotations")
    if hlo_text is None and xi is not None and xi.stablehlo is not None:
        data, fmt, text = xi.stablehlo, "stablehlo", xi.hlo_text
    else:
        if hlo_text is not None:
            text = hlo_text
        elif inp.text is not None:
            text = inp.text
        else:
            assert inp.file is not None  # an input without text is a file
            with open(inp.file, "rb") as fh:
                text = fh.read()
        data, fmt = text, "hlo"
    name = _module_name(text if isinstance(text, str) else
                        bytes(text[:4096]).decode("utf-8", "replace")) or "module"
    return _xla.compile_module(data, fmt, backend=backend, topology=topology,
                               num_partitions=_partition.num_partitions(text), module_name=name,
                               result_memory_kinds=result_memory_kinds)


def fix(source: Any, *args: Any, strategy: Union[str, Strategy] = Strategy.HOST_OUTPUT,
        platform: Optional[str] = None, filename: Optional[str] = None,
        xla_flags: Optional[Mapping[str, bool]] = None, pipeline: str = "xla",
        ignore: Codes = None, select: Codes = None, xla: Optional[str] = None,
        xla_topology: Optional[str] = None, xla_version: Optional[str] = None,
        **kwargs: Any) -> FixedModule:
    """Rewrites the module so that every E1200 goes away (`hlo-offload fix`), re-checks it,
    and returns the fixed HLO text as a FixedModule (a str).

    strategy: "host-output" (declare each faulty output in host memory) or
        "move-to-device" (move the value back to device memory before it is returned), as
        a str or a Strategy.
    For a JAX source, `.output_memory_kinds` is the fix in JAX's own terms: the pytree of
    output memory kinds that compiles, with the structure of the function's outputs.
    pipeline, ignore, select: as for check() (an ignored error-level lint such as HO3002
    no longer stands in the way of the fix). xla, xla_topology: as for check(): XLA
    compiles what the fix suggests and `.xla` / `.xla_accepts` say whether it accepts it;
    for a JAX or StableHLO source with strategy "host-output", that is the lowering with
    the new output memory kinds (what JAX compiles once `out_shardings` say them), else
    the fixed HLO module. Raises FixError (a ValueError, with `.result`) when the module
    cannot be fixed; XlaUnavailable as check(); else as check().
    """
    backend = _xla_backend(xla, xla_topology)
    if backend == "cuda" and platform is None:
        platform = "cuda"
    inp = _resolve(source, args, kwargs, platform=platform, filename=filename,
                   api="fix")
    run_args = _run_args(inp, strategy=strategy, keep_modules=True, xla_flags=xla_flags,
                         pipeline=pipeline, ignore=ignore, select=select,
                         xla_version=xla_version)
    outcome = _run("fix", inp, run_args)
    try:
        modules = outcome.modules()
        _raise_parse_error(modules)
        printed = _decode(_core.printed_modules([outcome])) \
            if outcome.exit_status == 0 and not any(
                d.is_error for d in front_end_diagnostics(inp.xla, inp.path)) \
            else ""
        result = _result(outcome, inp, modules, keep_input=True)
        if result.exit_status != 0:
            errors = result.errors
            first = (f": {errors[0].code}: {errors[0].message}" if errors else "")
            raise FixError(f"cannot fix {inp.path}{first}", result)
        text = printed
        diagnostics = result.diagnostics
        m = modules[0]
        fixed = list(m["fixed_outputs"])
        paths = list(m["fixed_output_paths"])
        if "output_memory_spaces" not in m:
            # Nothing was fixed and the module was not kept: read its layout as parsed.
            again = _run("fmt", inp, _run_args(inp, keep_modules=True, xla_version=""))
            try:
                parsed = again.modules()
                if parsed and "output_memory_spaces" in parsed[0]:
                    m = dict(m, output_memory_spaces=parsed[0]["output_memory_spaces"])
            finally:
                again.release()
        kinds = _output_kinds(m, inp)
        verdict = None
        if backend is not None:
            verdict = _fix_verdict(inp, backend, xla_topology, text, m, strategy)
        return FixedModule(
            text, changed=not outcome.unchanged, strategy=Strategy(strategy),
            fixed_outputs=fixed,
            fixed_output_paths=paths, output_memory_kinds=kinds,
            diagnostics=diagnostics, xla=verdict,
            xla_accepts=verdict.ok if verdict is not None and verdict.verdict else None)
    finally:
        outcome.release()


def _fix_verdict(inp: _Input, backend: str, topology: Optional[str], fixed_text: str,
                 module_info: dict, strategy: str):
    """XLA's verdict on a fix: the source's own StableHLO with the fixed output memory
    kinds (strategy host-output on a JAX or StableHLO source: what JAX compiles with the
    new out_shardings), else the fixed HLO text."""
    spaces = module_info.get("output_memory_spaces")
    xi = inp.xla
    if strategy == "host-output" and xi is not None and xi.stablehlo is not None and \
            spaces is not None and len(spaces) == len(xi.output_memory_kinds):
        kinds = [_KIND_OF_SPACE.get(s, "device") for s in spaces]
        return xla_verdict(inp, backend, topology, result_memory_kinds=kinds)
    return xla_verdict(inp, backend, topology, hlo_text=fixed_text)


def _output_kinds(module_info: dict, inp: _Input):
    """The memory kind of each entry output leaf of the fixed module; a pytree for JAX."""
    spaces = module_info.get("output_memory_spaces")
    if spaces is None:
        return None
    kinds = [_KIND_OF_SPACE.get(s, f"S({s})") for s in spaces]
    xla = inp.xla
    if xla is None:
        return kinds
    # Keep JAX's own name where the memory space is the one it asked for (a leaf that
    # was unpinned_host stays so), else the fix's.
    for i, kind in enumerate(kinds):
        if i < len(xla.output_memory_kinds):
            before = xla.output_memory_kinds[i]
            if _KIND_SPACE_OF.get(before) == spaces[i]:
                kinds[i] = before
    if xla.out_tree is not None and getattr(xla.out_tree, "num_leaves", None) == len(kinds):
        import jax
        return jax.tree_util.tree_unflatten(xla.out_tree, kinds)
    if xla.out_tree is None:
        # StableHLO text has no PyTreeDef: the tree its jax.result_info names describe.
        tree = _jax_module().pytree_from_result_paths(xla.output_paths, kinds)
        if tree is not None:
            return tree
    return kinds


_KIND_SPACE_OF = {"device": 0, "pinned_host": 5, "unpinned_host": 6}


def report(source: Any, *args: Any, platform: Optional[str] = None,
           filename: Optional[str] = None, max_nodes: int = 400,
           split_input_file: bool = False, xla_flags: Optional[Mapping[str, bool]] = None,
           pipeline: str = "xla", ignore: Codes = None, select: Codes = None,
           xla_version: Optional[str] = None, partition: bool = True,
           xla: Optional[str] = None, xla_topology: Optional[str] = None,
           **kwargs: Any) -> Report:
    """The offload report (`hlo-offload report`): what is offloaded, its bytes, where each
    path ends, host memory, transfers, and the picture.

    Returns a Report: `str()` the text, `.to_json()`, `.to_dot()`, `.to_html()`, and
    `_repr_html_` for notebooks. max_nodes: the most path instructions drawn, 1 to 2^30
    as `--max-nodes` (ValueError otherwise). pipeline, ignore, select: as for check()
    (the report shows only the errors that stop the pipeline, which are always
    reported; the codes are checked all the same). partition: as for check(); the
    report of a partitioned module gives per-device bytes, and a note the global ones.
    xla, xla_topology: as for check(): XLA compiles the module too, and the report shows
    its verdict and its memory analysis beside the report's per-device bytes, each
    difference explained (`report.xla`, `report.xla_memory`, the JSON's `xla` object).
    For a jitted function or Traced, the offloaded activations are named by their `checkpoint_name` (read from the jaxpr;
    docs/REPORT.md). Raises as check().
    """
    backend = _xla_backend(xla, xla_topology, split_input_file)
    if backend is not None and platform is None and backend == "cuda":
        platform = "cuda"
    inp = _resolve(source, args, kwargs, platform=platform, filename=filename,
                   split_input_file=split_input_file, api="report")
    written = inp
    if partition:
        inp = _partitioned(inp)
    run_args = _run_args(inp, max_nodes=max_nodes, split_input_file=split_input_file,
                         xla_flags=xla_flags, pipeline=pipeline,
                         ignore=_ignoring_ho3017(inp, ignore), select=select,
                         xla_version=xla_version)
    global_note = None
    if inp is not written:
        global_note = _global_bytes_note(written, run_args)
    outcome = _run("report", inp, run_args)
    try:
        modules = outcome.modules()
        _raise_parse_error(modules)
        for m in modules:
            if m["report_error"]:
                raise ValueError(_decode(m["report_error"]))
        if outcome.exit_status != 0:
            raise ValueError(_decode(outcome.diagnostics("text")).strip() or
                             f"report of {inp.path} failed")
    except BaseException:
        outcome.release()
        raise

    # The Report keeps the outcome (the report values and the input text, no module)
    # and renders each format when first asked for: the HTML page runs Graphviz.
    def render(fmt: str) -> str:
        return _decode(_core.render_reports([outcome], fmt))

    notes = inp.all_notes()
    notes += [f"{d.code}: {d.message}" for d in front_end_diagnostics(inp.xla, inp.path)]
    if global_note:
        notes.append(global_note)
    report_ = Report(render=render, file=inp.path, modules=[m["name"] for m in modules],
                     notes=notes)
    if backend is not None:
        from ._xla import memory_figures
        report_.xla = xla_verdict(written, backend, xla_topology)
        data = report_.to_json()
        ours = {k: int(data.get(k, 0)) for k in _MEMORY_KEYS} \
            if isinstance(data, dict) and _per_device(inp, written, partition) else {}
        report_.xla_memory = memory_figures(report_.xla, ours)
    return report_


# The report's byte figures a sharded module's note gives for the whole program.
_GLOBAL_FIGURES = (("offloaded", None), ("host bytes in", "host_bytes_in"),
                   ("host bytes out", "host_bytes_out"),
                   ("host-resident intermediates", "host_intermediate_bytes"))


def _global_bytes_note(written: _Input, run_args) -> Optional[str]:
    """For a report of a partitioned module (per-device bytes), the same figures of the
    module as written (global shapes), in a note; None when that report fails."""
    data = _report_json(written, run_args)
    if data is None:
        return None
    parts = []
    for label, key in _GLOBAL_FIGURES:
        value = (sum(o.get("bytes", 0) for o in data.get("offloads", ()))
                 if key is None else data.get(key, 0))
        parts.append(f"{label} {value} bytes")
    return ("the report's bytes are per device; the module as written (global shapes, "
            "before partitioning): " + ", ".join(parts))


def explain(code: str) -> str:
    """The documentation page of a diagnostic code (`hlo-offload explain E1200`)."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str such as 'E1200', not {type(code).__name__}")
    page = _core.explain(code.strip())
    if page is None:
        raise ValueError(f"unknown diagnostic code {code!r}")
    return page


def codes() -> List[Tuple[str, str, Severity, str]]:
    """(code, name, severity, summary) of every diagnostic code."""
    return [(code, name, Severity(severity), summary)
            for code, name, severity, summary in _core.codes()]


def passes() -> List[Tuple[str, str]]:
    """(name, description) of every pass `opt --passes=` takes."""
    return [(name, description) for name, description in _core.passes()]


def executable() -> str:
    """The path of the package's `hlo-offload` command-line program."""
    return os.path.join(os.path.dirname(_core.__file__), "bin", "hlo-offload")
