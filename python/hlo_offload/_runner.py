"""The one runner of the package: a source (a JAX program, HLO or StableHLO text, a
file) and the options (backend, XLA version, partitioning, platform, xla=, the codes)
give a check's Result, a fix's FixedModule or a report. check(), fix(), report(),
guard(), the pytest plugin and the console command all run through `run`; the console
command's C++ command line asks `prepare` for the inputs it cannot read itself and
`xla_step` for XLA's verdict on each file.

The core (pipeline/pipeline.h) runs with the GIL released: HLO text is handed over as it
is (a bytes or str object, without a copy into another buffer), a file by its path (the
core maps it, as the command line does), and JAX programs and StableHLO text come from
the input step (hlo_offload._inputs) as the HLO module XLA would compile, with JAX's
pytree path of every entry output and parameter.
"""

from __future__ import annotations


import os
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Tuple, Union, overload

from . import _core, _jax, _partition, _xla
from ._inputs import Input, module_name, partitioned, input_text, resolve
from ._types import (Diagnostic, FixError, FixedModule, ParseError, Report, Result, Severity,
                     Strategy,
                     _front_end_diagnostic, _unencodable_text_error)

# What ignore= and select= take: a code or prefix ("HO3005", "HO300", "HO3005,HO3014"),
# or an iterable of them.
Codes = Union[str, Iterable[str], None]

# fix's strategies, as `--strategy` spells them (the values of Strategy).
STRATEGIES: Tuple[str, ...] = tuple(s.value for s in Strategy)


# Memory space (S(n) of a layout) -> JAX memory kind (xla/pjrt/utils.cc,
# GetMemorySpaceColor: device 0, pinned_host 5, unpinned_host 6; _core.MemoryKind).
_KIND_OF_SPACE = {kind.value: kind.spelling for kind in _core.MemoryKind}


def _bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value


def _budget(value: object) -> Optional[int]:
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


def _codes(name: str, value: object, disable: bool) -> List[str]:
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


def _run_args(inp: Input, *, lints: bool = True, pinned_host_budget: Any = None,
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
        warnings.warn(f"hlo-offload: {note}", stacklevel=user_stacklevel())


# JAX platform -> `--backend` (lints/offload_lints.h, TargetBackend): the names
# _core.Backend takes ("cuda" and "rocm" are the GPU); another platform (the CPU) is "any".
_BACKEND_OF_PLATFORM = {name: backend.spelling for name in _core.Backend.names()
                        if (backend := _core.Backend.parse(name)) is not None and
                        backend is not _core.Backend.ANY}


# `report --max-nodes=N`: the command line takes 1 to 2^30 (pipeline/choices.h,
# kMinReportMaxNodes and kMaxReportMaxNodes), and so does the API.
MAX_NODES_RANGE: Tuple[int, int] = _core.max_nodes_range()


def max_nodes_error(value: object) -> str:
    """Why `value` is not a max_nodes / --max-nodes the command line takes."""
    return (f"max_nodes (--max-nodes) is the most path instructions the picture draws, "
            f"a whole number from {MAX_NODES_RANGE[0]} to {MAX_NODES_RANGE[1]} (2^30), "
            f"not {value}")


# `--pipeline`: XLA's compile order up to the offloader (the default), or the three
# offloading passes alone (_core.Pipeline).
PIPELINES: Tuple[str, ...] = tuple(pipeline.spelling for pipeline in _core.Pipeline)


# The passes' options that mirror XLA's debug flags (README, "Commands"), by the names
# XLA_FLAGS spells them.
_XLA_FLAGS = {
    "xla_disable_automatic_host_compute_offload": "disable_automatic_host_compute_offload",
    "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled":
        "allow_h2h_copy_when_automatic_host_compute_offload_disabled",
    "fix_entry_layout_unless_customized": "fix_entry_layout_unless_customized",
}


def _xla_flags(flags: object) -> Dict[str, bool]:
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


def _run(command: str, inp: Input, options: "_core.PipelineOptions") -> "_core.Outcome":
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


def _raise_parse_error(modules: List[Dict[str, Any]]) -> None:
    for m in modules:
        if m["parse_failed"]:
            rendered = _decode(m["parse_error"]).rstrip("\n")
            line = m["parse_line"] or None
            column = m["parse_column"] or None
            first = rendered.split("\n", 1)[0]
            path = first.split(":", 1)[0] if line else ""
            raise ParseError(rendered, path=path, line=line, column=column,
                             message=_decode(m["parse_message"]))


def _result(outcome: "_core.Outcome", inp: Input, modules: List[Dict[str, Any]], *,
            keep_input: bool = False) -> Result:
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


def front_end_diagnostics(xla: Optional["_jax.XlaInput"], path: str) -> List[Diagnostic]:
    """What the JAX front end found in a source before the core ran: HO0002, an error
    when it was lowered for the CPU and its offload annotations were dropped, a warning
    when it is text that may be such a lowering (docs/errors/HO0002.md)."""
    if xla is None:
        return []
    CPU_LOWERING_CODE, CPU_LOWERING_NAME = _jax.CPU_LOWERING_CODE, _jax.CPU_LOWERING_NAME
    if xla.cpu_lowering:
        return [_front_end_diagnostic(CPU_LOWERING_CODE, CPU_LOWERING_NAME,
                                      xla.cpu_lowering, file=path,
                                      notes=xla.cpu_lowering_notes)]
    if xla.platform_unknown:
        return [_front_end_diagnostic(CPU_LOWERING_CODE, CPU_LOWERING_NAME,
                                      xla.platform_unknown, file=path,
                                      notes=xla.platform_unknown_notes,
                                      severity=Severity.WARNING)]
    return []


# The report's per-device byte figures that XLA's memory analysis is compared with.
_MEMORY_KEYS = ("host_bytes_in", "host_bytes_out", "host_intermediate_bytes",
                "device_bytes_in", "device_bytes_out")


def _report_json(inp: Input, run_args: "_core.PipelineOptions") -> Optional[Dict[str, Any]]:
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
        data = data[0] if len(data) == 1 else None
    return data if isinstance(data, dict) else None


def _memory_of(inp: Input, run_args: "_core.PipelineOptions") -> Optional[Dict[str, int]]:
    """The report's byte figures of `inp` (_MEMORY_KEYS), None when the report fails;
    per device for a partitioned module."""
    data = _report_json(inp, run_args)
    return None if data is None else {k: int(data.get(k, 0)) for k in _MEMORY_KEYS}


def _ignoring_ho3017(inp: Input, ignore: Codes) -> Codes:
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


def _per_device(inp: Input, written: Input, partition: bool) -> bool:
    """Whether the figures of the module checked (`inp`, from `written`) are per device, as
    XLA's memory analysis is: a partitioned module, or one of a single partition."""
    if inp.global_shapes:
        return False
    if inp is not written or partition:
        return True  # partitioned, or nothing to partition (_partitioned said so)
    text = input_text(written)
    return text is None or _partition.needs_partitioning(text) is None


def _xla_backend(xla: Optional[str], topology: Optional[str],
                 split_input_file: bool = False) -> Optional[str]:
    """The checked `xla=` backend, or None; XlaUnavailable when its client is missing."""
    if xla is None:
        if topology is not None:
            raise ValueError("xla_topology is for xla='tpu' or xla='cuda'")
        return None
    backend = _xla.check_backend(xla)
    if topology is not None and not isinstance(topology, str):
        raise TypeError(f"xla_topology must be a str, not {type(topology).__name__}")
    if split_input_file:
        raise ValueError("xla= compiles one module: check the modules of a split file one "
                         "by one")
    if not _xla.installed(backend):
        raise _xla._unavailable(backend)
    return backend


def xla_verdict(inp: Input, backend: str, topology: Optional[str], *,
                hlo_text: Optional[str] = None,
                result_memory_kinds: Optional[List[str]] = None) -> _xla.XlaVerdict:
    """XLA's verdict on the module of `inp` (or on `hlo_text`, a rewritten module), by
    hlo_offload._xla.compile_module: the StableHLO of a JAX or StableHLO source as JAX
    hands it to PJRT, else the HLO text. No verdict for a lowering for the CPU (its
    annotations are gone: XLA would compile another program)."""
    xi = inp.xla
    if xi is not None and xi.cpu_lowering:
        return _xla.XlaVerdict(backend=backend, topology=topology or "", verdict=False,
                               reason="the input is a lowering for the CPU (HO0002): XLA "
                               "would compile a program without its offload annotations")
    text: Union[str, bytes]
    data: Union[str, bytes]
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
    name = module_name(text if isinstance(text, str) else
                        bytes(text[:4096]).decode("utf-8", "replace")) or "module"
    return _xla.compile_module(data, fmt, backend=backend, topology=topology,
                               num_partitions=_partition.num_partitions(text), module_name=name,
                               result_memory_kinds=result_memory_kinds)


def _fix_verdict(inp: Input, backend: str, topology: Optional[str], fixed_text: str,
                 module_info: Dict[str, Any], strategy: str) -> _xla.XlaVerdict:
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


def _output_kinds(module_info: Dict[str, Any], inp: Input) -> Any:
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
        tree = _jax.pytree_from_result_paths(xla.output_paths, kinds)
        if tree is not None:
            return tree
    return kinds


# JAX memory kind -> memory space (_KIND_OF_SPACE's inverse).
_KIND_SPACE_OF = {kind.spelling: kind.value for kind in _core.MemoryKind}


# The report's byte figures a sharded module's note gives for the whole program.
_GLOBAL_FIGURES = (("offloaded", None), ("host bytes in", "host_bytes_in"),
                   ("host bytes out", "host_bytes_out"),
                   ("host-resident intermediates", "host_intermediate_bytes"))


def _global_bytes_note(written: Input, run_args: "_core.PipelineOptions") -> Optional[str]:
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


def user_stacklevel(also: Tuple[str, ...] = ()) -> int:
    """The `stacklevel` of a warning that names the user's line: the first frame outside
    this package and the modules `also` starts (("jax.",) for a warning raised inside a
    JAX lowering), counted from the function that calls warnings.warn."""
    import sys
    inside = (__name__.rsplit(".", 1)[0] + ".", *also)
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(inside):
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
        level += 1
    return level


@dataclass(frozen=True)
class Options:
    """The options of one run, as check(), fix() and report() take them (each is checked
    when the run starts: TypeError for a wrong type, ValueError for a wrong value).
    `backend` is `--backend` ("tpu", "gpu", "cuda", "rocm", "any"): whose compiler's
    limits the check applies; by default the platform a JAX source was lowered for, the
    backend of `xla`, else any."""

    platform: Optional[str] = None
    filename: Optional[str] = None
    split_input_file: bool = False
    partition: bool = True
    lints: bool = True
    pinned_host_budget: Union[int, str, None] = None
    xla_flags: Optional[Mapping[str, bool]] = None
    pipeline: str = "xla"
    ignore: Codes = None
    select: Codes = None
    xla: Optional[str] = None
    xla_topology: Optional[str] = None
    xla_version: Optional[str] = None
    backend: Optional[str] = None
    strategy: Union[str, Strategy] = Strategy.HOST_OUTPUT
    max_nodes: int = 400


@dataclass
class Prepared:
    """A source made ready to run: `written` is the module as the user wrote it (what XLA
    compiles with xla=), `inp` the module checked (partitioned where it had to be), and
    `xla_backend` the checked backend of xla= (None without it)."""

    written: Input
    inp: Input
    xla_backend: Optional[str]


# The commands a run makes, and the entry point each is for.
COMMANDS = ("check", "fix", "report")


def prepare(command: str, source: Any, args: Tuple[Any, ...], kwargs: Mapping[str, Any],
            options: Options) -> Prepared:
    """The input step of a run: xla= checked (XlaUnavailable when its client is
    missing), the source resolved (an `Input` is taken as it is), and for check and
    report a module of several partitions partitioned unless options.partition is
    False. Raises as check()."""
    split = options.split_input_file
    backend = _xla_backend(options.xla, options.xla_topology,
                           split if command != "fix" else False)
    platform = options.platform
    if backend == "cuda" and platform is None:
        platform = "cuda"
    if isinstance(source, Input):
        written = source
    else:
        written = resolve(source, args, kwargs, platform=platform, filename=options.filename,
                          split_input_file=split if command != "fix" else False,
                          api=command)
    inp = partitioned(written) if options.partition and command != "fix" else written
    return Prepared(written=written, inp=inp, xla_backend=backend)


@overload
def run(command: Literal["check"], source: Any, args: Tuple[Any, ...] = ...,
        kwargs: Optional[Mapping[str, Any]] = ..., options: Options = ...) -> Result: ...
@overload
def run(command: Literal["fix"], source: Any, args: Tuple[Any, ...] = ...,
        kwargs: Optional[Mapping[str, Any]] = ..., options: Options = ...) -> FixedModule: ...
@overload
def run(command: Literal["report"], source: Any, args: Tuple[Any, ...] = ...,
        kwargs: Optional[Mapping[str, Any]] = ..., options: Options = ...) -> Report: ...


def run(command: str, source: Any, args: Tuple[Any, ...] = (),
        kwargs: Optional[Mapping[str, Any]] = None,
        options: Options = Options()) -> Union[Result, FixedModule, Report]:
    """Runs `command` ("check", "fix" or "report") on `source` with `options`: a Result,
    a FixedModule or a Report (see check(), fix() and report() for what each holds and
    raises)."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}: one of {', '.join(COMMANDS)}")
    prepared = prepare(command, source, args, kwargs or {}, options)
    if command == "check":
        return run_check(prepared, options)
    if command == "fix":
        return run_fix(prepared, options)
    return run_report(prepared, options)


def _check_backend_option(options: Options, prepared: Prepared,
                          run_args: "_core.PipelineOptions") -> None:
    """run_args.lint.backend from options.backend, else from xla= for text (XLA compiles
    it for that backend: its compiler's limits are errors, as XLA's verdict is)."""
    backend, xla = options.backend, prepared.xla_backend
    if backend is not None:
        if not isinstance(backend, str):
            raise TypeError(f"backend must be a str, not {type(backend).__name__}")
        wanted = None if xla is None else ("gpu" if xla == "cuda" else "tpu")
        if wanted is not None and backend not in (wanted, "any") and \
                not (wanted == "gpu" and backend in ("cuda", "rocm")):
            raise ValueError(f"backend={backend!r} checks for another backend than "
                             f"xla={xla!r} compiles for: leave backend out, or give "
                             f"backend={wanted!r}")
        try:
            run_args.lint.backend = backend
        except ValueError as e:
            raise ValueError(f"backend: {e}") from None
    elif xla is not None and prepared.inp.xla is None:
        run_args.lint.backend = "gpu" if xla == "cuda" else "tpu"


def run_check(prepared: Prepared, options: Options) -> Result:
    """check() on a prepared source."""
    inp, written, backend = prepared.inp, prepared.written, prepared.xla_backend
    run_args = _run_args(inp, lints=options.lints,
                         pinned_host_budget=options.pinned_host_budget,
                         split_input_file=options.split_input_file,
                         xla_flags=options.xla_flags, pipeline=options.pipeline,
                         ignore=_ignoring_ho3017(inp, options.ignore),
                         select=options.select, xla_version=options.xla_version)
    _check_backend_option(options, prepared, run_args)
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
        verdict = xla_verdict(written, backend, options.xla_topology)
        ours = None
        if verdict.memory and _per_device(inp, written, options.partition):
            ours = _memory_of(inp, _run_args(inp, xla_flags=options.xla_flags,
                                             pipeline=options.pipeline,
                                             xla_version=options.xla_version))
        result._attach_xla(verdict, _xla.compare(result.diagnostics, verdict, ours))
    return result


def run_fix(prepared: Prepared, options: Options) -> FixedModule:
    """fix() on a prepared source."""
    inp, backend, strategy = prepared.inp, prepared.xla_backend, options.strategy
    run_args = _run_args(inp, strategy=strategy, keep_modules=True,
                         xla_flags=options.xla_flags, pipeline=options.pipeline,
                         ignore=options.ignore, select=options.select,
                         xla_version=options.xla_version)
    _check_backend_option(options, prepared, run_args)
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
        m = _with_output_memory_spaces(modules[0], inp)
        verdict = None
        if backend is not None:
            verdict = _fix_verdict(inp, backend, options.xla_topology, printed, m,
                                   str(Strategy(strategy).value))
        return FixedModule(
            printed, changed=not outcome.unchanged, strategy=Strategy(strategy),
            fixed_outputs=list(m["fixed_outputs"]),
            fixed_output_paths=list(m["fixed_output_paths"]),
            output_memory_kinds=_output_kinds(m, inp),
            diagnostics=result.diagnostics, xla=verdict,
            xla_accepts=verdict.ok if verdict is not None and verdict.verdict else None)
    finally:
        outcome.release()


def _with_output_memory_spaces(m: Dict[str, Any], inp: Input) -> Dict[str, Any]:
    """A fix's module facts with `output_memory_spaces`: when nothing was fixed the
    module was not kept, and its layout is read as parsed."""
    if "output_memory_spaces" in m:
        return m
    again = _run("fmt", inp, _run_args(inp, keep_modules=True, xla_version=""))
    try:
        parsed = again.modules()
        if parsed and "output_memory_spaces" in parsed[0]:
            return dict(m, output_memory_spaces=parsed[0]["output_memory_spaces"])
    finally:
        again.release()
    return m


def run_report(prepared: Prepared, options: Options) -> Report:
    """report() on a prepared source."""
    inp, written, backend = prepared.inp, prepared.written, prepared.xla_backend
    run_args = _run_args(inp, max_nodes=options.max_nodes,
                         split_input_file=options.split_input_file,
                         xla_flags=options.xla_flags, pipeline=options.pipeline,
                         ignore=_ignoring_ho3017(inp, options.ignore),
                         select=options.select, xla_version=options.xla_version)
    _check_backend_option(options, prepared, run_args)
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
        report_.xla = xla_verdict(written, backend, options.xla_topology)
        data = report_.to_json()
        ours = {k: int(data.get(k, 0)) for k in _MEMORY_KEYS} \
            if isinstance(data, dict) and _per_device(inp, written, options.partition) \
            else {}
        report_.xla_memory = _xla.memory_figures(report_.xla, ours)
        report_.xla_lines = _xla.memory_text(report_.xla_memory)
    return report_
