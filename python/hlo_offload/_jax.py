"""The JAX front end: JAX programs and StableHLO text to the HLO module XLA compiles.

JAX hands XLA a StableHLO module whose `main` function carries the memory kind of each
argument and result as an attribute (`mhlo.memory_kind`). XLA's PJRT client converts the
module to HLO and, before it compiles, writes those memory kinds into the entry computation
layout as memory spaces (xla/pjrt/se/pjrt_stream_executor_client.cc,
`PjRtStreamExecutorClient::Compile(MaybeOwningMlirModule, ...)`: `MlirToXlaComputation`,
then `GetArgMemoryKinds` / `GetOutputMemoryKinds` and `LayoutModesToXla` from
xla/pjrt/utils.cc). The HostOffloader checks outputs against that layout, so a module
without it (what `Lowered.as_text(dialect="hlo")` prints) cannot be checked faithfully.
This module does the same steps with jaxlib: jaxlib's own converter
(`jaxlib._jax.mlir.mlir_module_to_xla_computation`, the function JAX's `Lowered.hlo()`
uses), then the memory spaces of `GetMemorySpaceColor` (xla/pjrt/utils.cc) applied to the
entry computation layout, then a parse of the result by jaxlib's HLO parser.

JAX is imported only when one of these functions is called; `import hlo_offload` never
imports it. JAX's objects (its modules, a Lowered, a jaxpr, MLIR operations and attributes)
are typed `Any` or `ModuleType`: JAX's types are not followed (pyproject.toml).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Dict, Mapping, Sequence, Tuple, TypeVar, Union, cast

__all__ = [
    "XlaInput",
    "MEMORY_SPACE_OF_KIND",
    "is_stablehlo_text",
    "from_stablehlo_text",
    "from_jax",
    "apply_memory_kinds_to_entry_layout",
    "pytree_from_result_paths",
    "split_marker_line",
]

_INSTALL_HINT = "pip install hlo-offload[jax]"

# Memory kind -> memory space (the `S(n)` of a layout), as xla/pjrt/utils.cc
# GetMemorySpaceColor maps them (Layout::kDefaultMemorySpace = 0,
# kHostMemorySpace = 5, kUnpinnedHostMemorySpace = 6 in xla/layout.h).
MEMORY_SPACE_OF_KIND = {"device": 0, "pinned_host": 5, "unpinned_host": 6}

_PLATFORMS = ("tpu", "cuda", "rocm", "cpu")
_PLATFORM_ALIASES = {"gpu": "cuda"}

_CPU_NOTE = (
    "the Lowered was made for cpu: JAX's CPU lowering drops the offload annotations "
    "(device_put to a host memory kind, offload policies), so nothing is offloaded in "
    "this module; lower for the accelerator instead, e.g. "
    "jax.jit(f).trace(*args).lower(lowering_platforms=('tpu',)), or call from_jax on the "
    "jitted function")

# HO0002 (docs/errors/HO0002.md): an input lowered for the CPU, whose offload annotations
# JAX dropped. JAX 0.10.2 registers the lowering that writes a device_put's
# annotate_device_placement for platform='tpu' and 'gpu' only
# (`_tpu_gpu_device_put_lowering` in jax/_src/dispatch.py; the remat offload policies
# lower through the same device_put); on the CPU the value passes through unchanged. The
# memory kinds on `main` stay (mlir.py `lower_jaxpr_to_module`), so a program that moved
# a value to host memory and returns it in device memory (E1200 on the accelerator)
# reads as clean.
CPU_LOWERING_CODE = "HO0002"
CPU_LOWERING_NAME = "InputLoweredForCpu"
CPU_LOWERING_HOW = (
    "check the program lowered for the accelerator: hlo_offload.check(jax.jit(f), *args) "
    "lowers it for TPU on any machine (platform=\"cuda\" for a GPU), or lower it "
    "yourself with lowered = jax.jit(f).trace(*args).lower(lowering_platforms=(\"tpu\",)) "
    "and check lowered or lowered.as_text()")
_CPU_LOWERED = (
    "the {what} was made for the CPU (jax.jit(f).lower(...) on a machine without a TPU "
    "or GPU, or lowering_platforms=(\"cpu\",)), and the program uses memory kinds "
    "(mhlo.memory_kind on its arguments or results): JAX's CPU lowering drops the offload "
    "annotations (a device_put to a host memory kind, remat offload policies), so what "
    "XLA offloads on the accelerator is missing from this module and its faults (E1200) "
    "cannot be seen")
# The same text, when nothing tells: a warning, not an error. A program with no device_put
# to a memory kind and no remat offload policy lowers to the same text for the CPU as for
# the TPU and GPU (JAX 0.10.2 here; JAX 0.11.2's cuda lowerings on an H200, tests/xla-ref/
# jax-0.11.2-cuda13-h200), and its check is then exact; only a CPU lowering of a program
# that had such annotations is missing something.
_UNKNOWN_LOWERING = (
    "the StableHLO text does not say which platform it was lowered for; its program uses "
    "memory kinds (mhlo.memory_kind on main's arguments or results), yet it has no offload "
    "annotation that only a TPU or GPU lowering writes (that of a device_put to a memory "
    "kind or of a remat offload policy). A program without those lowers to this same text "
    "for every platform, and the check below is exact; but if it was lowered for the CPU "
    "(jax.jit(f).lower(...) on a machine without a TPU or GPU) and the program has them, "
    "that lowering dropped them, so what XLA offloads on the accelerator is missing and its "
    "faults (E1200) cannot be seen")
_STATE_PLATFORM = (
    "if the text was lowered for the TPU or GPU, say so: platform=\"tpu\" "
    "(--platform=tpu on the command line)")


@dataclass
class XlaInput:
    """One HLO module as XLA would compile it, with JAX's names for its entry boundary.

    hlo_text: the HLO module text, with the memory kinds of the entry arguments and results
        applied to its `entry_computation_layout` (memory space 5 for "pinned_host", 6 for
        "unpinned_host", none for "device") and with `metadata` (source file and line) on
        the instructions; jaxlib's HLO parser reads it.
    output_paths: one per flat entry output (entry output i, i.e. element i of the root
        tuple when there are several), JAX's own string (`jax.result_info`), e.g.
        "result['opt_state']['mu']"; "" where JAX gave none (effect tokens).
    input_paths: one per entry parameter (element i of parameter 0's tuple when the
        arguments are tupled), JAX's argument name, e.g. "params['w']"; "" where JAX gave
        none (effect tokens, hoisted constants, unnamed text sources). Arguments JAX
        dropped as unused are not entry parameters and are not listed.
    output_memory_kinds, input_memory_kinds: the memory kind of each entry output and
        parameter ("device" where the module says none), in the same order.
    out_tree: the JAX PyTreeDef of the outputs (for building a pytree of memory kinds);
        None for text sources.
    platform: the platform lowered for: "tpu", "cuda", "rocm" or "cpu".
    notes: what the caller should know about this module (e.g. that it was lowered for
        the CPU on request).
    cpu_lowering: for a `Lowered` made for the CPU (or text said to be one with
        platform="cpu") whose program uses memory kinds, the message of the HO0002 error
        the API reports (the offload annotations were dropped); None otherwise.
        cpu_lowering_notes: how to get the right input.
    platform_unknown: for StableHLO text that does not say its platform and reads like a
        lowering for the CPU (docs/JAX.md, "Lowered for the CPU"), the message of the
        HO0002 warning (the annotations may have been dropped); None otherwise.
    """

    hlo_text: str
    output_paths: list[str]
    input_paths: list[str]
    output_memory_kinds: list[str]
    input_memory_kinds: list[str]
    out_tree: object | None
    platform: str
    notes: list[str] = field(default_factory=list)
    # The memory space of each entry parameter and output (0, 5 or 6), as applied.
    input_memory_spaces: list[int] = field(default_factory=list)
    output_memory_spaces: list[int] = field(default_factory=list)
    # Whether the entry parameters are one tuple (JAX's `tuple_args`).
    tuple_args: bool = False
    # HO0002's message when the module is (or reads as) a lowering for the CPU whose
    # offload annotations JAX dropped; None otherwise. `cpu_lowering_notes`: what to do.
    cpu_lowering: str | None = None
    cpu_lowering_notes: list[str] = field(default_factory=list)
    # HO0002's message as a warning when StableHLO text reads like a lowering for the CPU
    # but may be any platform's (nothing in the text tells); the module is checked as it
    # is. `platform_unknown_notes`: what to do.
    platform_unknown: str | None = None
    platform_unknown_notes: list[str] = field(default_factory=list)
    # The StableHLO module as MLIR bytecode, with its source locations: what XLA's own
    # compile takes (`check(..., xla="tpu")` hands it to the compile-only client).
    stablehlo: bytes | None = None
    # The program's `checkpoint_name`s, read from its jaxpr (checkpoint_names()): one
    # (file, line, op, name) per named value, for the report. Empty for a Lowered or
    # text, which have no jaxpr.
    checkpoint_names: list[tuple[str, int, str, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------
# JAX, imported lazily


def _import_jax() -> tuple[ModuleType, ModuleType, ModuleType, ModuleType, ModuleType]:
    """Imports jax and the jaxlib pieces used here; ImportError naming the extra if absent."""
    try:
        import jax  # noqa: F401
        from jax._src.interpreters import mlir as jax_mlir
        from jax._src.lib import _jax as jaxlib_ext
        from jax._src.lib import xla_client
        from jax._src.lib.mlir import ir
        from jax._src import source_info_util
    except ImportError as e:  # jax missing, or a jax without these modules
        raise ImportError(
            f"hlo_offload's JAX front end needs jax and jaxlib ({_INSTALL_HINT}): {e}"
        ) from e
    global _EXCLUDED
    if not _EXCLUDED:
        # The source line JAX records for an operation is the innermost frame outside
        # JAX; without this it would be this module's call of trace() for operations
        # that have no user frame of their own (the output annotations).
        source_info_util.register_exclusion(os.path.dirname(os.path.abspath(__file__)))
        _EXCLUDED = True
    return jax, jax_mlir, jaxlib_ext, xla_client, ir


_EXCLUDED = False


def _sibling(name: str) -> ModuleType:
    """The package's module `name` (_types: ParseError and its makers; _sources: what a
    source is), also when this file is loaded on its own (without importing jax or the
    package: tests/python/jax_programs/test_frontend.py): then from the file beside it
    (_sources imports only the standard library; _types the installed extension)."""
    import importlib
    import importlib.util
    import sys
    if __package__:
        return importlib.import_module(f"{__package__}.{name}")
    module = sys.modules.get(f"_hlo_offload{name}")
    if module is None:
        spec = importlib.util.spec_from_file_location(
            f"_hlo_offload{name}", os.path.join(os.path.dirname(__file__), f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"_hlo_offload{name}"] = module
        spec.loader.exec_module(module)
    return module


class _Sibling:
    """The package's module `name`, loaded (_sibling) when one of its names is first read:
    `_types.ParseError` as if `_types` were imported."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(_sibling(self._name), attr)


if TYPE_CHECKING:  # the type checker reads the modules themselves
    from . import _sources, _types
else:
    _types = _Sibling("_types")
    _sources = _Sibling("_sources")


# ---------------------------------------------------------------------------------------
# Text sources


_MODULE_WORD = re.compile(r"module(?:\s|\{|@|$)")


def is_stablehlo_text(text: str) -> bool:
    """Whether `text` looks like an MLIR module of StableHLO (as JAX prints it).

    True when its first line that is not blank, a `//` comment or a `#loc` alias starts
    with the word `module`, or when the text is nothing but such lines and at least one
    `#loc` alias (the head of a module printed with debug info, whose location aliases
    come first). Reads only as far as that line; needs no JAX. HLO text (`HloModule ...`)
    is never taken for StableHLO.
    """
    if not isinstance(text, str):
        return False
    saw_loc = False
    pos, n = 0, len(text)
    while pos < n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        line = text[pos:end].strip()
        pos = end + 1
        if not line or line.startswith("//"):
            continue
        if line.startswith("#loc"):
            saw_loc = True
            continue
        return bool(_MODULE_WORD.match(line))
    return saw_loc


def from_stablehlo_text(text: str, platform: str | None = None,
                        *, tuple_args: bool = False, source_name: str | None = None,
                        source_file: str | None = None) -> XlaInput:
    """Converts StableHLO text (`Lowered.as_text()`) to the HLO module XLA would compile.

    platform: the platform the text was lowered for ("tpu", "cuda", "rocm", "cpu"), or
        None when it is not known: the text itself does not say. With None (or "cpu"),
        text whose program uses memory kinds and that has no annotation only a TPU or GPU
        lowering writes gets `cpu_lowering` (HO0002; docs/JAX.md, "Lowered for the CPU").
        The module is converted the same way for every platform.
    tuple_args: whether the client compiles it with tupled arguments (PJRT's
        `parameter_is_tupled_arguments`; JAX tuples them on TPU above 2000 arguments).
    source_name: the name a parse error gives the text (default "<string>").
    source_file: the file the text was read from, if any. Text printed without
        `debug_info=True` has no Python locations; MLIR's parser then gives each
        operation its line in the text itself, under the file name "-", and jaxlib's
        converter writes that into the metadata (`source_file="-"`). With source_file
        those lines are named as lines of that file (and `notes` says so); without it
        they are dropped, since no file holds them.
    Paths come from `jax.result_info` and the argument names JAX writes (the location
    names of `main`'s arguments, printed by `as_text(debug_info=True)`, or the older
    `jax.arg_info` attribute); text without them gets "" paths.
    Raises ImportError without jax, TypeError when text is not a str, ParseError (a
    ValueError, with `.line` and `.column` in the StableHLO text) when jaxlib cannot parse
    it or it is not text (a lone surrogate), ValueError when it is not a module jaxlib can
    convert.
    """
    if not isinstance(text, str):
        raise TypeError(f"from_stablehlo_text takes a str, not {type(text).__name__}")
    _, jax_mlir, _, _, ir = _import_jax()
    name = source_name if source_name is not None else (source_file or "<string>")
    try:
        asm = text.encode("utf-8")  # what the parser reads; refuses lone surrogates
    except UnicodeEncodeError as e:
        raise _types._unencodable_text_error(text, e, name) from None
    stated = _check_platform(platform) if platform is not None else None
    platform = stated or "tpu"
    context = jax_mlir.make_ir_context()
    try:
        module = ir.Module.parse(asm, context=context)
    except Exception as e:  # MLIR's parse error carries the location
        raise _stablehlo_parse_error(text, e, name) from e
    check = "cpu" if stated == "cpu" else ("unknown" if stated is None else None)
    return _convert(module, platform=platform, tuple_args=tuple_args,
                    out_tree=None, notes=[], text_file=source_file or "",
                    cpu_check=check, what="StableHLO text")


# MLIR's `loc("NAME":LINE:COL)`; a text parsed from a string is named "-".
_MLIR_FILE_LOC = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_SPLIT_MARKER = re.compile(r"^// -----[ \t]*\r?$", re.M)


def split_marker_line(text: str) -> int | None:
    """The 1-based line of the first `// -----` line of `text` (the marker of
    `--split-input-file`), or None."""
    m = _SPLIT_MARKER.search(text)
    return None if m is None else text.count("\n", 0, m.start()) + 1


def _stablehlo_parse_error(text: str, error: Exception, path: str) -> _types.ParseError:
    """The ParseError for MLIR's refusal of `text`: at the first error's line and column
    (MLIR's, in the StableHLO text), with its message."""
    message: str | None = None
    line: int | None = None
    column: int | None = None
    for d in getattr(error, "error_diagnostics", None) or ():
        m = _MLIR_FILE_LOC.match(str(d.location))
        message = str(d.message)
        if m is not None:
            line, column = int(m.group(2)), int(m.group(3))
        break
    if message is None:
        message = str(error).strip()
    message = f"not a StableHLO module jaxlib can parse: {message}"
    marker = split_marker_line(text)
    if marker is not None:
        message += (f" (line {marker} is a `// -----` marker: this text holds several "
                    "modules, and a StableHLO text is read as one; put each module in a "
                    "file or string of its own)")
    if line is None or column is None:  # both are set, or neither
        return _types.ParseError(f"{path}: error: {message}", path=path, line=None,
                                 column=None, message=message)
    # MLIR's columns count bytes of the line, as the HLO parser's do.
    return _types._located_parse_error(text, path, line, column, message)


# JAX's result paths: "result" and then the key path as `jax.tree_util.keystr` prints it
# (`DebugInfo.set_result_paths` in jax/_src/linear_util.py): `[0]` for a sequence index
# (SequenceKey; `FlattenedIndexKey`'s `[<flat index 0>]` is cleaned to `[0]`), `['mu']`
# for a dict key (DictKey, the key's repr), `.name` for an attribute (GetAttrKey).
_PATH_KEY = re.compile(r"""\[(?:(-?\d+)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"))\]""")


def _parse_result_path(path: str) -> list[int | str] | None:
    """The keys of a JAX result path (ints for sequence indices, strs for dict keys), or
    None when it is not "result" followed by such keys (attribute keys among them)."""
    if not path.startswith("result"):
        return None
    import ast
    keys: list[int | str] = []
    pos = len("result")
    while pos < len(path):
        m = _PATH_KEY.match(path, pos)
        if m is None:
            return None
        keys.append(int(m.group(1)) if m.group(1) is not None
                    else ast.literal_eval(m.group(2)))
        pos = m.end()
    return keys


_Leaf = TypeVar("_Leaf")
# What pytree_from_result_paths builds: a leaf, or a tuple or str-keyed dict of such trees.
PyTree = Union[_Leaf, Tuple["PyTree[_Leaf]", ...], Dict[str, "PyTree[_Leaf]"]]
# A node of its trie: each child by (type of key, key), a node or (_TRIE_LEAF, the leaf).
_TrieNode = Dict[Tuple[type, Union[int, str]], Union["_TrieNode", Tuple[object, Any]]]


def pytree_from_result_paths(paths: Sequence[str],
                             leaves: Sequence[_Leaf]) -> PyTree[_Leaf] | None:
    """`leaves` (one per output, in flat order) arranged as the pytree the result paths
    `paths` (JAX's `jax.result_info` names, e.g. "result['opt']['mu']") describe: dicts
    for dict keys, tuples for the indices 0..n-1 of a sequence, the leaf itself for a
    single "result". Needs no JAX.

    None when the paths do not describe one tree: a missing name (an effect token, text
    lowered without names), an attribute key (`.name`, a dataclass or namedtuple field:
    its type cannot be rebuilt), indices that are not 0..n-1 (a None among a tuple's
    elements), or a mix of keys at one level. The names cannot tell a list from a tuple,
    a dict whose keys are ints from a tuple, or an OrderedDict from a dict: they are
    given as tuples and dicts.
    """
    if len(paths) != len(leaves) or not paths:
        return None
    parsed = [_parse_result_path(p) for p in paths]
    if any(k is None for k in parsed):
        return None
    if parsed == [[]]:
        return leaves[0]
    # A trie of the keys; each node a dict of children in first-seen order.
    root: _TrieNode = {}
    LEAF = object()
    for keys, leaf in zip(parsed, leaves):
        assert keys is not None  # none is None (above)
        if not keys:
            return None  # "result" beside other outputs
        node = root
        for k in keys[:-1]:
            child = node.setdefault((type(k), k), {})
            if not isinstance(child, dict):
                return None
            node = child
        key = (type(keys[-1]), keys[-1])
        if key in node:
            return None  # a path twice, or a leaf that also has children
        node[key] = (LEAF, leaf)

    def build(node: _TrieNode) -> PyTree[_Leaf] | None:
        kinds = {t for t, _ in node}
        if kinds == {int}:
            if [k for _, k in node] != list(range(len(node))):
                return None
        elif kinds != {str}:
            return None
        built: list[PyTree[_Leaf]] = []
        for child in node.values():
            if isinstance(child, tuple):  # (LEAF, leaf): a node is a dict
                built.append(child[1])
                continue
            sub = build(child)
            if sub is None:
                return None
            built.append(sub)
        if kinds == {int}:
            return tuple(built)
        return dict(zip((cast(str, k) for _, k in node), built))  # kinds == {str}

    return build(root)


# ---------------------------------------------------------------------------------------
# JAX sources


def from_jax(source: Any, *args: Any, platform: str | None = None, **kwargs: Any) -> XlaInput:
    """Lowers a JAX program and returns the HLO module XLA would compile for it.

    source: a `jax.jit`-wrapped function (then `*args, **kwargs` are its arguments, arrays
        or `jax.ShapeDtypeStruct`s), a `jax.stages.Traced` or a `jax.stages.Lowered`
        (then no arguments).
    platform: "tpu" (default), "cuda", "rocm" ("gpu" means "cuda") or "cpu". Lowering is
        `traced.lower(lowering_platforms=(platform,))`: on a machine without the
        accelerator this is the only way to keep the offload annotations, which JAX's CPU
        lowering drops. A `Lowered` keeps the platform it was made for; when that is
        "cpu" and its program uses memory kinds, the result's `cpu_lowering` says that
        the annotations were dropped (HO0002). A function or Traced lowered for "cpu"
        because platform="cpu" was asked for carries a note instead.
    Raises ImportError without jax; TypeError for a source of another kind, or arguments
    passed with a Traced or Lowered; ValueError for an unknown platform, a platform that
    contradicts a Lowered's, or a module jaxlib cannot convert.
    """
    jax, _, _, _, _ = _import_jax()
    error = _sources.source_error(source, args, kwargs, "from_jax")
    if error is not None:  # an array, a Compiled, jax.pmap or jax.vmap, a plain function
        raise error
    stages = jax.stages
    notes: list[str] = []
    if isinstance(source, stages.Lowered):
        if args or kwargs:
            raise TypeError("from_jax(Lowered) takes no arguments: they are part of the "
                            "Lowered already")
        lowered = source
        lowered_platforms = _lowered_platforms(lowered)
        if platform is not None:
            want = _check_platform(platform)
            if lowered_platforms and want not in lowered_platforms:
                raise ValueError(
                    f"the Lowered was made for {', '.join(lowered_platforms)}, not {want}; "
                    f"lower again with lowering_platforms=({want!r},)")
            used = want
        else:
            used = lowered_platforms[0] if lowered_platforms else "tpu"
        cpu_check = "cpu" if used == "cpu" else None
        named: list[tuple[str, int, str, str]] = []  # a Lowered keeps no jaxpr
        if len(lowered_platforms) > 1:
            notes.append(
                f"the Lowered was made for several platforms ({', '.join(lowered_platforms)}):"
                " its first entry parameter is the platform index")
    else:
        used = _check_platform(platform or "tpu")
        if isinstance(source, stages.Traced):
            if args or kwargs:
                raise TypeError("from_jax(Traced) takes no arguments: they are part of the "
                                "Traced already")
            traced = source
        elif isinstance(source, stages.Compiled):
            raise TypeError("from_jax takes a jitted function, Traced or Lowered, not a "
                            "Compiled (its HLO is after XLA's passes): pass the Lowered, "
                            "jitted.trace(*args).lower(lowering_platforms=(\"tpu\",))")
        elif callable(getattr(source, "trace", None)):
            try:
                traced = source.trace(*args, **kwargs)
            except TypeError as e:
                error = _sources.arguments_error(source, args, kwargs)
                if error is None:
                    raise
                raise error from e
        elif callable(source):
            raise TypeError(
                f"from_jax takes a jax.jit-wrapped function, Traced or Lowered; "
                f"{getattr(source, '__name__', type(source).__name__)!s} is a plain "
                f"callable: pass jax.jit({getattr(source, '__name__', 'f')})")
        else:
            raise TypeError(
                f"from_jax takes a jax.jit-wrapped function, Traced or Lowered, not "
                f"{type(source).__name__}")
        lowered = traced.lower(lowering_platforms=(used,))
        named = checkpoint_names(traced.jaxpr)
        cpu_check = None  # lowered for the CPU only when asked for, by platform="cpu"
        if used == "cpu":
            notes.append(_CPU_NOTE.replace("the Lowered was made", "it was lowered"))
    module = lowered.compiler_ir("stablehlo")
    if module is None:
        raise ValueError("the Lowered has no StableHLO module")
    tuple_args = _tuple_args(lowered, used)
    converted = _convert(module, platform=used, tuple_args=tuple_args,
                         out_tree=getattr(lowered, "out_tree", None), notes=notes,
                         cpu_check=cpu_check, what="Lowered")
    converted.checkpoint_names = named
    return converted


# Primitives whose value the report looks through to the instruction that computes it
# (report_util.cc, ValueProducer: bitcast, copy, reshape in the HLO).
_LOOK_THROUGH = frozenset({"reshape", "squeeze", "expand_dims", "copy", "copy_p", "name"})


def checkpoint_names(jaxpr: Any) -> list[tuple[str, int, str, str]]:
    """The `jax.ad_checkpoint.checkpoint_name`s of a program, as the report matches them.

    jaxpr: a (Closed)Jaxpr, e.g. `jax.jit(f).trace(*args).jaxpr`. JAX lowers the `name`
    primitive to its operand (`jax/_src/ad_checkpoint.py`, name_p's lowering), so the name
    never reaches the HLO (docs/REPORT.md); the instruction that computes the named value
    does, with its primitive as op_name's last component and its innermost user frame as
    its source line (`mlir.source_info_to_location`). Returns (file, line, primitive,
    name) for each `name` equation, in every sub-jaxpr (scan and while bodies, remat,
    pjit), whose operand is computed by an equation with a user frame: looked through
    reshapes and copies, and into the jaxpr of a call that computes it. Names whose value
    is an argument of its jaxpr are left out.
    """
    from jax._src import core, source_info_util
    from jax._src import config
    pattern = config.hlo_source_file_canonicalization_regex.value
    out: list[tuple[str, int, str, str]] = []
    seen: set[int] = set()

    def producer_of(var: Any, producers: Mapping[Any, Any], depth: int = 0) -> Any:
        eqn = producers.get(var)
        while eqn is not None and depth < 64:
            depth += 1
            name = eqn.primitive.name
            if name in _LOOK_THROUGH and eqn.invars:
                eqn = producers.get(eqn.invars[0])
                continue
            inner = _called_jaxpr(eqn, core)
            if inner is not None and len(inner.outvars) == len(eqn.outvars):
                at = eqn.outvars.index(var) if var in eqn.outvars else -1
                if at < 0:
                    return eqn
                var = inner.outvars[at]
                producers = _producers(inner)
                eqn = producers.get(var)
                continue
            return eqn
        return eqn

    def walk(j: Any) -> None:
        j = getattr(j, "jaxpr", j)
        if id(j) in seen:
            return
        seen.add(id(j))
        producers = None
        for eqn in j.eqns:
            if eqn.primitive.name == "name" and eqn.invars:
                if producers is None:
                    producers = _producers(j)
                made = producer_of(eqn.invars[0], producers)
                frame = (source_info_util.user_frame(made.source_info.traceback)
                         if made is not None and made.source_info.traceback is not None
                         else None)
                if frame is not None:
                    file = re.sub(pattern, "", frame.file_name) if pattern else frame.file_name
                    out.append((file, int(frame.start_line), made.primitive.name,
                                str(eqn.params.get("name"))))
            for sub in core.jaxprs_in_params(eqn.params):
                walk(sub)

    walk(jaxpr)
    return out


def _producers(jaxpr: Any) -> dict[Any, Any]:
    """Each variable of `jaxpr` by the equation that defines it."""
    return {v: e for e in jaxpr.eqns for v in e.outvars}


def _called_jaxpr(eqn: Any, core: ModuleType) -> Any:
    """The one jaxpr a call-like equation (jit, closed_call, remat, custom_jvp_call)
    computes its outputs with; None for other primitives (scan, while, cond)."""
    if eqn.primitive.name not in ("pjit", "jit", "closed_call", "core_call", "remat",
                                  "checkpoint", "custom_jvp_call", "custom_vjp_call"):
        return None
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        j = eqn.params.get(key)
        if j is not None:
            return getattr(j, "jaxpr", j)
    return None


def _tuple_args(lowered: Any, platform: str) -> bool:
    """Whether JAX compiles this Lowered with its arguments tupled on `platform`.

    JAX decides it when it compiles (pxla.py, `dispatch.should_tuple_args(len(in_avals),
    backend.platform)`: on TPU above 2000 arguments) and passes it to PJRT as
    `parameter_is_tupled_arguments`. Lowered on another machine, the recorded decision is
    the local backend's, so it is taken again for the platform lowered for.
    """
    compile_args = getattr(getattr(lowered, "_lowering", None), "compile_args", None) or {}
    if compile_args.get("tuple_args"):
        return True
    in_avals = compile_args.get("global_in_avals")
    if in_avals is None:
        return False
    from jax._src import dispatch
    return bool(dispatch.should_tuple_args(len(in_avals), platform))


def _check_platform(platform: str) -> str:
    if not isinstance(platform, str):
        raise TypeError(f"platform must be a str, not {type(platform).__name__}")
    p = _PLATFORM_ALIASES.get(platform.lower(), platform.lower())
    if p not in _PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}: one of {', '.join(_PLATFORMS)}")
    return p


def _lowered_platforms(lowered: Any) -> tuple[str, ...]:
    """The platforms a Lowered was made for (JAX keeps them on its lowering object)."""
    lowering = getattr(lowered, "_lowering", None)
    plats = getattr(lowering, "_platforms", None)
    if plats:
        return tuple(_PLATFORM_ALIASES.get(p, p) for p in plats)
    backend = getattr(lowering, "compile_args", {}).get("backend") if lowering else None
    plat = getattr(backend, "platform", None)
    return (plat,) if plat else ()


# ---------------------------------------------------------------------------------------
# StableHLO -> HLO with memory kinds


def _main_function(module: Any, ir: ModuleType) -> Any:
    """The func.func op `main` of the module; ValueError when there is none."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    # PJRT's GetArgMemoryKinds refuses a module without `main` the same way.
    raise ValueError("the StableHLO module has no main function")


def _attr_dicts(func: Any, name: str, count: int, ir: ModuleType) -> list[Any]:
    """The ir.DictAttr of each of `count` arguments or results (`name`: arg_attrs,
    res_attrs) of `func`; None for each when it has none."""
    if name not in func.attributes:
        return [None] * count
    arr = ir.ArrayAttr(func.attributes[name])
    dicts = [ir.DictAttr(a) for a in arr]
    if len(dicts) != count:
        # xla/pjrt/utils.cc MlirAttrsToMemoryKinds returns InvalidArgument here.
        raise ValueError(f"main has {count} values but {len(dicts)} {name}")
    return dicts


def _partition_counts(module: Any, ir: ModuleType) -> dict[str, int]:
    """The module's `mhlo.num_replicas` / `mhlo.num_partitions` above 1, by the names the
    HloModule line gives them (`replica_count`, `num_partitions`)."""
    counts: dict[str, int] = {}
    attrs = module.operation.attributes
    for key, name in (("mhlo.num_replicas", "replica_count"),
                      ("mhlo.num_partitions", "num_partitions")):
        if key in attrs:
            n = ir.IntegerAttr(attrs[key]).value
            if n > 1:
                counts[name] = n
    return counts


def _with_partition_counts(text: str, counts: Mapping[str, int]) -> str:
    """`text` with the partition and replica counts on its HloModule line, where XLA's
    printer puts them (after the entry computation layout, before the frontend
    attributes; `HloModule::ToString`). jaxlib's conversion to HLO keeps them in the
    compile options, not in the module, so the converted text would read as one
    partition: the pipeline (ShardingRemover runs on one partition only) and XLA's
    verdict (compiled for that many devices) need them."""
    if not counts:
        return text
    first, sep, rest = text.partition("\n")
    extra = "".join(f", {name}={n}" for name, n in counts.items())
    at = first.find(", frontend_attributes=")
    first = first + extra if at < 0 else first[:at] + extra + first[at:]
    return first + sep + rest


def _string_attr(d: Any, key: str, ir: ModuleType) -> str | None:
    """The string attribute `key` of the ir.DictAttr `d` (None: no dict, no such key)."""
    if d is None or key not in d:
        return None
    value: str = ir.StringAttr(d[key]).value
    return value


def _memory_kinds(dicts: Sequence[Any], ir: ModuleType) -> list[str]:
    """The memory kind of each argument or result, by its attributes (_attr_dicts)."""
    kinds = []
    for d in dicts:
        kind = _string_attr(d, "mhlo.memory_kind", ir)
        if kind is None:
            kind = "device"  # MlirAttrsToMemoryKinds: kDefaultMemorySpace
        if kind not in MEMORY_SPACE_OF_KIND:
            # GetMemorySpaceColor's InvalidArgument("Unknown memory kind %s").
            raise ValueError(f"Unknown memory kind {kind}")
        kinds.append(kind)
    return kinds


def _arg_name(block_arg: Any, attrs: Any, ir: ModuleType) -> str:
    """The name JAX gives an argument of main (its attributes: an ir.DictAttr or None)."""
    name = _string_attr(attrs, "jax.arg_info", ir)  # older JAX exports
    if name is not None:
        return name
    loc = block_arg.location
    if isinstance(loc, ir.NameLoc):  # JAX 0.5+: the argument's location is its name
        loc_name: str = loc.name_str
        return loc_name
    return ""


def _convert(module: Any, *, platform: str, tuple_args: bool, out_tree: object | None,
             notes: list[str], text_file: str = "", cpu_check: str | None = None,
             what: str = "Lowered") -> XlaInput:
    """The XlaInput of a StableHLO ir.Module (from_jax, from_stablehlo_text); `notes`
    gets what the conversion adds."""
    _, jax_mlir, jaxlib_ext, xla_client, ir = _import_jax()
    with module.context:
        main = _main_function(module, ir)
        block_args = list(main.regions[0].blocks[0].arguments)
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        n_results = len(ftype.results)
        arg_dicts = _attr_dicts(main, "arg_attrs", len(block_args), ir)
        res_dicts = _attr_dicts(main, "res_attrs", n_results, ir)
        input_kinds = _memory_kinds(arg_dicts, ir)
        output_kinds = _memory_kinds(res_dicts, ir)
        input_paths = [_arg_name(a, d, ir) for a, d in zip(block_args, arg_dicts)]
        output_paths = [_string_attr(d, "jax.result_info", ir) or "" for d in res_dicts]
        cpu_lowering: str | None = None
        cpu_notes: list[str] = []
        platform_unknown: str | None = None
        unknown_notes: list[str] = []
        if cpu_check is not None and _uses_memory_kinds(arg_dicts, res_dicts, ir):
            if cpu_check == "cpu":
                cpu_lowering = _CPU_LOWERED.format(what=what)
                cpu_notes = [CPU_LOWERING_HOW]
            elif not _has_accelerator_annotation(module, main, output_kinds, ir):
                platform_unknown = _UNKNOWN_LOWERING
                unknown_notes = [_STATE_PLATFORM, CPU_LOWERING_HOW]
        for d in list(arg_dicts) + list(res_dicts):
            if _string_attr(d, "mhlo.layout_mode", ir) == "auto" and \
                    _string_attr(d, "mhlo.memory_kind", ir) in ("pinned_host",
                                                                  "unpinned_host"):
                # LayoutModeToXlaShape (xla/pjrt/utils.cc) falls back to the default
                # layout mode for host memory, with a warning; so do we.
                notes.append("an auto layout on a host-memory value falls back to the "
                             "default layout (XLA logs a warning for it)")
                break
        partitions = _partition_counts(module, ir)
        bytecode = jax_mlir.module_to_bytecode(module)  # keeps the source locations
    try:
        computation = jaxlib_ext.mlir.mlir_module_to_xla_computation(
            bytecode, use_tuple_args=tuple_args, return_tuple=False)
    except Exception as e:
        raise ValueError(f"jaxlib could not convert the module to HLO: {e}") from e
    options = xla_client.hlo.HloPrintOptions()   # XLA's dump form (`%` names) ...
    options.print_large_constants = True         # elided constants do not parse
    options.print_metadata = True                # source_file / source_line for reports
    # ... without operand shapes: with tupled arguments every get-tuple-element would
    # repeat the whole parameter tuple (2001 arguments: 55 MB of text instead of 0.3 MB).
    options.print_operand_shape = False
    text = computation.as_hlo_module().to_string(options)
    text = _with_partition_counts(text, partitions)
    text, named = _text_line_locations(text, text_file)
    if named:
        notes.append(f"source lines named {text_file}:LINE are lines of that StableHLO "
                     "file (it has no Python locations: Lowered.as_text() without "
                     "debug_info=True)")
    in_spaces = [MEMORY_SPACE_OF_KIND[k] for k in input_kinds]
    out_spaces = [MEMORY_SPACE_OF_KIND[k] for k in output_kinds]
    text = apply_memory_kinds_to_entry_layout(text, in_spaces, out_spaces,
                                              tuple_args=tuple_args)
    _verify_parses(text, in_spaces, out_spaces, xla_client)
    if tuple_args:
        notes.append("the entry parameters are tupled: input i is element i of "
                     "parameter 0")
    return XlaInput(hlo_text=text, output_paths=output_paths, input_paths=input_paths,
                    output_memory_kinds=output_kinds, input_memory_kinds=input_kinds,
                    out_tree=out_tree, platform=platform, notes=list(notes),
                    input_memory_spaces=in_spaces, output_memory_spaces=out_spaces,
                    tuple_args=tuple_args, cpu_lowering=cpu_lowering,
                    cpu_lowering_notes=cpu_notes, platform_unknown=platform_unknown,
                    platform_unknown_notes=unknown_notes, stablehlo=bytecode)


def _uses_memory_kinds(arg_dicts: Sequence[Any], res_dicts: Sequence[Any],
                       ir: ModuleType) -> bool:
    """Whether JAX wrote a memory kind on any argument or result of `main`. JAX 0.10.2
    writes none when every memory kind of the program is the default one, transfers in
    the jaxpr included (`are_all_shardings_default_mem_kind` in
    jax/_src/interpreters/pxla.py `lower_sharding_computation`, then
    `lower_jaxpr_to_module` in mlir.py): then no lowering has an offload annotation to
    drop, and the CPU's module is the TPU's."""
    return any(_string_attr(d, "mhlo.memory_kind", ir) is not None
               for d in list(arg_dicts) + list(res_dicts))


_ANNOTATE = "annotate_device_placement"


def _placement(op: Any, ir: ModuleType) -> str | None:
    """The `_xla_buffer_placement` of an annotate_device_placement custom call."""
    if "mhlo.frontend_attributes" not in op.attributes:
        return None
    attrs = ir.DictAttr(op.attributes["mhlo.frontend_attributes"])
    if "_xla_buffer_placement" not in attrs:
        return None
    placement: str = ir.StringAttr(attrs["_xla_buffer_placement"]).value
    return placement


_SHARDING_OPS = ("sdy.sharding_constraint", "mhlo.sharding")  # with custom_call @Sharding


def _has_accelerator_annotation(module: Any, main: Any, output_kinds: Sequence[str],
                                ir: ModuleType) -> bool:
    """Whether the module has an annotate_device_placement that JAX 0.10.2 writes only
    when it lowers for TPU or GPU. A lowering for the CPU keeps two kinds (both are
    written whatever the platform): the one on a result of `main` that out_shardings
    gives a memory kind (mlir.py `lower_jaxpr_to_fun`, `wrap_with_memory_kind`, used only
    by main's return, with that result's own memory kind: `wrap_with_memory_kind` takes
    the kind the result is declared with), and the one on the result of a `compute_on`
    call (compute_on.py `_compute_on_lowering`). Any other one (in a function other than main, used by
    anything but main's return, or right after the sharding constraint a device_put to
    a sharding writes on TPU and GPU) is a device_put's or a remat offload's
    (`_tpu_gpu_device_put_lowering`, jax/_src/dispatch.py)."""
    found: list[Any] = []

    def owner_name(value: Any) -> tuple[str | None, Any]:
        owner = value.owner
        if isinstance(owner, ir.Block):
            return None, None
        op = owner.operation if hasattr(owner, "operation") else owner
        return op.name, op

    def is_accelerator(op: Any, in_main: bool) -> bool:
        if not op.operands:
            return True
        name, src = owner_name(op.operands[0])
        if name == "func.call" and "mhlo.frontend_attributes" in src.attributes and \
                "_xla_compute_type" in str(src.attributes["mhlo.frontend_attributes"]):
            return False   # compute_on's output annotation
        if name in _SHARDING_OPS:
            return True    # device_put to a sharding on TPU/GPU
        if name == "stablehlo.custom_call" and \
                ir.StringAttr(src.attributes["call_target_name"]).value == "Sharding":
            return True
        if not in_main:
            return True
        placement = _placement(op, ir)
        uses = list(op.results[0].uses)
        if not uses:
            return True
        for use in uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if user.name != "func.return":
                return True
            i = use.operand_number
            if i >= len(output_kinds) or output_kinds[i] != placement:
                return True   # not out_shardings' annotation of that result
        return False

    def walk(block: Any, in_main: bool) -> bool:
        for view in block.operations:
            op = view.operation
            if op.name == "stablehlo.custom_call" and \
                    ir.StringAttr(op.attributes["call_target_name"]).value == _ANNOTATE:
                if is_accelerator(op, in_main):
                    found.append(op)
                    return True
            for region in op.regions:
                for b in region.blocks:
                    if walk(b, in_main):
                        return True
        return False

    for view in module.body.operations:
        op = view.operation
        if op.name != "func.func":
            continue
        for region in op.regions:
            for b in region.blocks:
                if walk(b, op == main.operation):
                    return True
    return False


# The metadata jaxlib writes for an operation whose location is MLIR's line in a text
# parsed without a file name ("-"): `source_file="-" source_line=9 ...`, or a `"-"` entry
# of the FileNames table of the 2025+ printer.
_DASH_SOURCE = re.compile(
    r' ?source_file="-"(?: source_(?:line|end_line|column|end_column)=\d+)*')
_DASH_FILE_NAME = re.compile(r'^(\d+) "-"$', re.M)


def _text_line_locations(hlo_text: str, text_file: str) -> tuple[str, bool]:
    """`hlo_text` with the "-" source locations named as lines of `text_file`, or
    dropped when there is no file (or its name would need escaping); and whether any was
    named. One pass over the text; none when it has no `"-"`."""
    if '"-"' not in hlo_text:
        return hlo_text, False
    if text_file and not re.search(r'["\\\x00-\x1f]', text_file):
        named = hlo_text.replace('source_file="-"', f'source_file="{text_file}"')
        named = _DASH_FILE_NAME.sub(lambda m: f'{m.group(1)} "{text_file}"', named)
        return named, named != hlo_text
    return _DASH_SOURCE.sub("", hlo_text), False


# ---------------------------------------------------------------------------------------
# The entry computation layout


def apply_memory_kinds_to_entry_layout(hlo_text: str, input_spaces: Sequence[int],
                                       output_spaces: Sequence[int], *,
                                       tuple_args: bool = False) -> str:
    """Writes memory spaces into the `entry_computation_layout` of an HLO module's header.

    input_spaces[i] goes to entry parameter i (element i of parameter 0 when tuple_args),
    output_spaces[i] to entry output i (element i of the root tuple when the result is a
    tuple, else the result itself), as xla/pjrt/utils.cc LayoutModesToXlaShapes untuples
    and applies them. Only the header line changes; the layout's shapes are read and
    written by the C++ parser and printer (src/pipeline/entry_memory_spaces.h). Raises
    ValueError when the header has no entry computation layout or the counts do not match
    (LayoutModesToXlaShapes' InvalidArgument "mismatched number of arguments").
    """
    from . import _core
    return _core.set_entry_memory_spaces(hlo_text, list(input_spaces), list(output_spaces),
                                         tuple_args)


def _verify_parses(text: str, in_spaces: Sequence[int], out_spaces: Sequence[int],
                   xla_client: ModuleType) -> None:
    """Parses `text` with jaxlib's HLO parser and checks the memory spaces survived."""
    try:
        module = xla_client.hlo.hlo_module_from_text(text)
    except Exception as e:
        raise ValueError(f"the HLO module with memory kinds applied does not parse: {e}") \
            from e
    options = xla_client.hlo.HloPrintOptions.short_parsable()
    from . import _core
    reprinted = _core.entry_layout_text(module.to_string(options))
    want = sum(1 for s in list(in_spaces) + list(out_spaces) if s)
    have = len(re.findall(r"S\([1-9]\d*\)", reprinted))
    if have != want:
        raise ValueError(f"the parsed entry computation layout {reprinted} has {have} "
                         f"memory spaces, not {want}")

