"""XLA's own SPMD partitioner for modules with several partitions (docs/SHARDED.md).

XLA's TPU and GPU compilers convert the memory-placement annotations into MoveToHost /
MoveToDevice (`ConvertMemoryPlacementToInternalAnnotations`) and then partition the module
(Shardy's import, `spmd-partitioning`) before the offloading passes, so the HostOffloader
sees per-device shapes and the collectives the partitioner inserted: an all-gather
between a host dynamic-slice and its MoveToDevice is host compute for XLA. This module
runs the same partitioner through jaxlib's CPU compiler in a child process
(`_spmd_partition.py`) on the module with its annotations converted by the package's own
pass, and returns the partitioned module for the offloading passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Tuple, Union

if TYPE_CHECKING:  # the child's script; never imported, its REQUEST and RESULT types are read
    from ._spmd_partition import Request, Result

# HLO module text, or its UTF-8 bytes (as read from a file).
HloText = Union[str, bytes, bytearray, memoryview]

_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_spmd_partition.py")


@dataclass
class Partitioned:
    """The module as XLA's SPMD partitioner gives it, or why there is none.

    text: the partitioned HLO module (per-device shapes, MoveToHost/MoveToDevice,
        the partitioner's collectives); None when the partitioner could not run.
    num_partitions: the module's partition count.
    error: why there is no text ("" when there is).
    seconds: the child's time, start-up included.
    shardy: whether Shardy partitioned it (the module was lowered with Shardy), else GSPMD.
    notes: what the partitioning did differently from XLA's (custom_partitioning calls
        partitioned as replicated).
    hint: what to do about the failure, where it is known ("" otherwise).
    """

    text: Optional[str]
    num_partitions: int
    error: str = ""
    seconds: float = 0.0
    shardy: bool = False
    notes: List[str] = field(default_factory=list)
    hint: str = ""


def num_partitions(hlo_text: HloText) -> int:
    """`num_partitions=N` of the HloModule line (1 when absent or when the text does not
    parse)."""
    state = partitioning(hlo_text)
    return state[0] if state is not None else 1


def partitioning(hlo_text: HloText) -> Optional[Tuple[int, str]]:
    """(num_partitions, the name of the first instruction that says the module is not
    SPMD-partitioned yet, "" when none: a sharded entry parameter or root, a sharding
    custom-call) of the module, by the core's parser; None when the text does not parse
    (the check then reports why)."""
    from . import _core
    if isinstance(hlo_text, str):
        data = hlo_text.encode("utf-8", "surrogatepass")
    else:
        data = bytes(hlo_text)
    return _core.partitioning(data)


def needs_partitioning(hlo_text: HloText) -> Optional[Tuple[int, str]]:
    """(num_partitions, the sharded instruction's name) for a module of several
    partitions that XLA has not partitioned yet; None otherwise, a module already
    partitioned (XLA's dump after spmd-partitioning) included."""
    state = partitioning(hlo_text)
    if state is None or state[0] <= 1 or not state[1]:
        return None
    return state


def partition(hlo_text: str, module_name: str = "module", timeout: float = 600) -> Partitioned:
    """Runs XLA's SPMD partitioner on `hlo_text` (a module with num_partitions > 1).

    The annotations are converted first (the package's
    convert-memory-placement-to-internal-annotations, as XLA does before partitioning);
    then jaxlib's CPU compiler partitions the module for that many host devices in a
    child process. Never raises for the module: a failure is a Partitioned without
    text, with the reason (no jax in this Python, the converter or partitioner refusing
    the module, a crash or a timeout).
    """
    from . import _core
    n = num_partitions(hlo_text)
    options = _core.PipelineOptions()
    options.passes = ["convert-memory-placement-to-internal-annotations"]
    options.lints = False
    # The partitioner keeps what is printed: the annotations' metadata (the user's line
    # of a MoveToHost that an E1200 starts from) goes with the calls that replace them.
    options.offload.print_annotation_metadata = True
    outcome = _core.run("opt", hlo_text, None, options)
    try:
        if outcome.exit_status != 0:
            return Partitioned(None, n, "the module's annotations could not be converted")
        converted = bytes(_core.printed_modules([outcome])).decode("utf-8", "replace")
    finally:
        outcome.release()
    with tempfile.TemporaryDirectory(prefix="hlo-offload-spmd-") as tmp:
        module_file = os.path.join(tmp, "module.hlo")
        with open(module_file, "w") as fh:
            fh.write(converted)
        req_file = os.path.join(tmp, "request.json")
        res_file = os.path.join(tmp, "result.json")
        request: Request = {"module_file": module_file, "num_partitions": n,
                            "dump_dir": os.path.join(tmp, "dump"),
                            "module_name": module_name}
        with open(req_file, "w") as fh:
            json.dump(request, fh)
        env = dict(os.environ)
        env.pop("XLA_FLAGS", None)  # the child sets its own
        try:
            proc = subprocess.run([sys.executable, _CHILD, req_file, res_file], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return Partitioned(None, n, f"XLA's partitioner did not finish in {timeout:g} s")
        if not os.path.exists(res_file):
            reason = crash_reason(proc.stderr)
            return Partitioned(None, n, f"XLA's partitioner ended with status "
                                        f"{proc.returncode}: {reason}",
                               hint=_hint(reason, hlo_text))
        with open(res_file) as fh:
            res: Result = json.load(fh)
    notes = list(res.get("notes") or ())
    if not res.get("ok"):
        reason = first_line(res.get("error") or "XLA's partitioner failed")
        return Partitioned(None, n, reason, res.get("seconds", 0.0),
                           bool(res.get("shardy")), notes, hint=_hint(reason, hlo_text))
    return Partitioned(res["module"], n, "", res.get("seconds", 0.0),
                       bool(res.get("shardy")), notes)


def _hint(reason: str, hlo_text: str = "") -> str:
    """What to do about a partitioner failure, as a clause ("" when nothing is known): a
    module with named shardings (`sharding={mesh[...], ...}`, HloShardingV3, as JAX
    0.12.1 prints them) on a jaxlib older than 0.12, whose partitioner does not take them
    (GSPMD aborts in UseNamedShardingLeaf; Shardy's import refuses their round-trip custom
    calls)."""
    named = "UseNamedShardingLeaf" in reason or "sharding={mesh[" in hlo_text
    if not named:
        return ""
    from importlib import metadata
    try:
        jaxlib = metadata.version("jaxlib")
        if tuple(int(x) for x in jaxlib.split(".")[:2]) >= (0, 12):
            return ""
    except (metadata.PackageNotFoundError, ValueError):  # pragma: no cover - the child ran jax
        jaxlib = "?"
    return (f"this jaxlib ({jaxlib}) cannot partition its named shardings "
            f"(`sharding={{mesh[...], ...}}`, HloShardingV3, as JAX 0.12.1 prints them): "
            f"for the partitioned check, install jax 0.12 or later "
            f"(pip install 'jax>=0.12')")


def first_line(error: str) -> str:
    """XLA's error without its source-location trace and stack (its first line, which
    names the instruction where XLA does)."""
    lines = [ln.strip() for ln in error.strip().splitlines() if ln.strip()]
    return lines[0] if lines else error


def crash_reason(stderr: Optional[str]) -> str:
    """Why the child died, from its standard error: XLA's CHECK failure line
    (`F... file.cc:N] Check failed: ...`) or the last line of an exception, else the
    last line."""
    lines = [ln.strip() for ln in (stderr or "").splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("F") and "] " in ln and ("Check failed" in ln or "CHECK" in ln):
            return ln.split("] ", 1)[1]
    for ln in reversed(lines):
        if not ln.startswith("@") and not ln.startswith("***"):
            return ln
    return "no output"
