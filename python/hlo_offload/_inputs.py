"""The input step of every run: a source (HLO or StableHLO text, a file, a JAX program)
becomes the `Input` the core checks, through the JAX front end where it is JAX's, and a
module of several partitions that XLA has not partitioned yet becomes the one XLA's SPMD
partitioner gives (docs/SHARDED.md). Used by the runner (hlo_offload._runner) for
check(), fix(), report(), guard() and the console command alike."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, List, Mapping, Optional, Tuple, Union

from . import _core, _jax, _partition
from ._sources import (is_jax_object, missing_file_error, path_text_error, source_error,
                       describe)
from ._types import _undecodable_bytes_error


@dataclass
class Input:
    """What the core runs on: `text` (bytes or str) or `file` (a path), named `path`."""

    text: Any
    file: Optional[str]
    path: str
    xla: Optional[_jax.XlaInput] = None  # the JAX front end's module (JAX, StableHLO)
    # HLO text checked as XLA's SPMD partitioner gives it: the notes that say so (those of
    # a JAX or StableHLO source are its XlaInput's).
    notes: List[str] = field(default_factory=list)
    partitioned_text: Optional[str] = None
    # A module of several partitions checked as written (its byte figures are global).
    global_shapes: bool = False

    def all_notes(self) -> List[str]:
        return list(self.xla.notes) + self.notes if self.xla is not None else list(self.notes)


def looks_like_mlir(head: str) -> bool:
    try:
        return _jax.is_stablehlo_text(head)
    except ImportError:  # pragma: no cover - _jax ships with the package
        return head.lstrip().startswith("module")


def decode_head(data: bytes) -> str:
    return bytes(data[:1 << 16]).decode("utf-8", "replace")


def from_stablehlo(text: Union[str, bytes], platform: Optional[str], path: str, *,
                   file: Optional[str] = None, split_input_file: bool = False) -> Input:
    """StableHLO text (str, or bytes read from `file` or given) through the JAX front
    end; ParseError for text that is not UTF-8 or that MLIR cannot parse."""
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8", "strict")
        except UnicodeDecodeError as e:
            raise _undecodable_bytes_error(data, e, path) from None
    if split_input_file:
        refuse_split(text, path)
    xla = _jax.from_stablehlo_text(text, platform=platform, source_name=path,
                                        source_file=file)
    return Input(text=xla.hlo_text, file=None, path=path, xla=xla)


def refuse_split(text: str, path: str) -> None:
    """ValueError when `--split-input-file` / split_input_file=True is asked for a
    StableHLO text that has a `// -----` marker: the front end reads a StableHLO text as
    one module and cannot split it."""
    line = _jax.split_marker_line(text)
    if line is not None:
        raise ValueError(
            f"{path}:{line}: split_input_file (--split-input-file) is not supported for "
            "StableHLO text: it splits HLO text only, and a StableHLO text is read as one "
            "module; put each module (each part between `// -----` lines) in a file of "
            "its own and pass them all (the command line's check takes several FILEs)")


def resolve(source: Any, args: Tuple[Any, ...], kwargs: Mapping[str, Any], *,
            platform: Optional[str], filename: Optional[str],
            split_input_file: bool = False, api: str = "check") -> Input:
    """Turns `source` into an Input; TypeError/ValueError for what cannot be one."""
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
        error = path_text_error(source)
        if error is not None:
            raise error
        path = filename or "<string>"
        if looks_like_mlir(source[:1 << 16]):
            return from_stablehlo(source, platform, path,
                                   split_input_file=split_input_file)
        return Input(text=source, file=None, path=path)
    if isinstance(source, (bytes, bytearray, memoryview)):
        # bytes are handed over as they are; a mutable buffer is copied once into bytes
        # so that it cannot change while the core reads it without the GIL.
        data = source if isinstance(source, bytes) else bytes(source)
        path = filename or "<bytes>"
        if looks_like_mlir(decode_head(data)):
            return from_stablehlo(data, platform, path,
                                   split_input_file=split_input_file)
        return Input(text=data, file=None, path=path)
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
            raise missing_file_error(file) from None
        except (OSError, ValueError):
            pass  # the core reports why it cannot be read
        if os.path.isdir(file):
            raise IsADirectoryError(
                f"{file!r} is a directory; pass one file (the command line takes folders)")
        if file.endswith(".mlir") or _file_looks_like_mlir(file):
            with open(file, "rb") as f:
                return from_stablehlo(f.read(), platform, path, file=file,
                                       split_input_file=split_input_file)
        return Input(text=None, file=file, path=path)
    if source is None:
        raise TypeError("source is None: pass HLO text, a file path (os.PathLike) or a "
                        "jitted function")
    error = source_error(source, args, kwargs, api)
    if error is not None:
        raise error
    if is_jax_object(source):
        xla = _jax.from_jax(source, *args, platform=platform, **kwargs)
        name = filename or f"<{module_name(xla.hlo_text) or jax_name(source)}>"
        return Input(text=xla.hlo_text, file=None, path=name, xla=xla)
    raise TypeError(
        f"{api}() takes HLO or StableHLO text (str or bytes), a file (pathlib.Path), or a "
        "jax.jit-wrapped function and its example arguments (or its Traced or Lowered), "
        f"not {describe(source)}")


def _file_looks_like_mlir(file: str) -> bool:
    """True when the file's start reads as StableHLO text (any extension)."""
    try:
        with open(file, "rb") as f:
            head = f.read(1 << 12)
    except OSError:
        return False  # the core reports why it cannot be read
    return decode_head(head).lstrip().startswith(("module", "#loc", "//")) and \
        looks_like_mlir(decode_head(head))


def module_name(hlo_text: str) -> Optional[str]:
    """The `HloModule NAME` of a module's text (what jit names it: jit_step)."""
    head = hlo_text[:4096].lstrip()
    if not head.startswith("HloModule"):
        return None
    name = head[len("HloModule"):].split(",", 1)[0].split(None, 1)
    return name[0] if name else None


def jax_name(source: Any) -> str:
    for attr in ("__name__", "fun_name"):
        name = getattr(source, attr, None)
        if isinstance(name, str):
            return name
    return type(source).__name__


def input_text(inp: Input) -> Any:
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


def partitioned(inp: Input) -> Input:
    """For a module of several partitions that XLA has not partitioned yet (a JAX or
    StableHLO source, HLO text, an HLO file such as XLA's `before_optimizations` dump), the
    module as XLA's SPMD partitioner gives it (hlo_offload._partition; docs/SHARDED.md),
    with a note saying so; where the partitioner cannot run, the module as written with a
    note saying why and what that leaves out. Other inputs are returned as they are."""
    xi = inp.xla
    if xi is not None and (not isinstance(inp.text, str) or xi.cpu_lowering):
        return inp
    text = input_text(inp)
    if text is None:
        return inp  # the core says why it cannot be read
    state = _partition.needs_partitioning(text)
    if state is None:
        return inp
    n, sharded = state
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    done = _partition.partition(text, module_name(text) or "module")
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
        return Input(text=inp.text, file=inp.file, path=inp.path, notes=notes,
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
        return Input(text=done.text, file=None, path=inp.path, xla=xi)
    return Input(text=done.text, file=None, path=inp.path, notes=notes,
                  partitioned_text=done.text)
