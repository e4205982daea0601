"""Real XLA's verdict beside ours: deviceless compiles with a backend's compile-only client.

`check(..., xla="tpu")`, `fix(..., xla=...)` and `hlo-offload check --xla=tpu` compile the
module they checked with XLA itself, on a machine without a TPU or GPU (docs/DEVICELESS.md):

  tpu   libtpu's PJRT plugin compiles for a TPU topology (default "v5e:2x2"; larger ones
        for modules with more partitions).
  cuda  the CUDA PJRT plugin compiles for a GPU described by XLA's target config
        (GpuTargetConfigProto text, e.g. XLA's
        xla/backends/gpu/target_config/specs/h100_sxm.txtpb), given by path.

The compile runs in a child process (`_xla_compile.py`): the client never loads into the
caller's process (an importable libtpu changes what a plain `import jax` does), and a CHECK
failure inside XLA ends the child, not the caller. The plugin is looked for in
`~/.cache/hlo-offload-xla-deviceless/<backend>` (`install_xla()` puts it there;
$HLO_OFFLOAD_XLA_PKGS moves it) and then in the caller's own environment
(`pip install 'hlo-offload[xla-tpu]'`).

What comes back (XlaVerdict): XLA's status text and code, the instructions its HostOffloader
converted into host compute (its log's warnings, with opcode and op_name from its own dump
before the pass), the compile time. `compare()` marks each of our diagnostics confirmed or
not by it and lists every disagreement.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import (TYPE_CHECKING, Any, Dict, List, Mapping, MutableMapping, Optional,
                    Sequence, Tuple, TypedDict, Union)

if TYPE_CHECKING:  # the child's script is never imported: its RESULT's types are read
    from ._types import Diagnostic
    from ._xla_compile import HostBuffer, Request, Result

__all__ = ["BACKENDS", "XlaUnavailable", "XlaVerdict", "install_xla", "installed",
           "install_command", "compile_module", "compare", "installed_versions",
           "installed_xla_version", "MemoryFigure", "memory_figures"]

BACKENDS = ("tpu", "cuda")

PKG_ROOT = os.environ.get(
    "HLO_OFFLOAD_XLA_PKGS", os.environ.get(
        "XLA_DEVICELESS_PKGS",
        os.path.join(os.path.expanduser("~"), ".cache", "hlo-offload-xla-deviceless")))

# The packages that match jax/jaxlib 0.10.2 (jax's metadata: extra "tpu" requires
# libtpu==0.0.42.*, extra "cuda12" jax-cuda12-plugin==0.10.2, which requires
# jax-cuda12-pjrt==0.10.2); install_command() asks the installed jax first.
PACKAGES = {
    "tpu": ["libtpu==0.0.42.1"],
    "cuda": ["jax-cuda12-plugin==0.10.2", "jax-cuda12-pjrt==0.10.2"],
}

DEFAULT_TOPOLOGY = {"tpu": "v5e:2x2", "cuda": "h100_sxm"}
# TPU topologies by the partitions a module needs (v5e, 4 chips per host).
_TPU_TOPOLOGIES = ((4, "v5e:2x2"), (8, "v5e:2x4"), (16, "v5e:4x4"), (32, "v5e:4x8"),
                   (64, "v5e:8x8"), (128, "v5e:8x16"), (256, "v5e:16x16"))

# The file of the plugin, relative to a folder on the child's path.
_PLUGIN_FILE = {"tpu": "libtpu/libtpu.so",
                "cuda": "jax_plugins/xla_cuda12/xla_cuda_plugin.so"}

# XLA's host-compute warning (xla/hlo/transforms/host_offloader.cc, LOG(WARNING) in
# HostOffloader::WalkDownHostMemoryOffloadPaths and HandleDynamicUpdateSlices).
HOST_COMPUTE_RE = re.compile(
    r"device compute in host memory space|converting into host compute|"
    r"converted into host compute", re.IGNORECASE)
HOST_COMPUTE_NAME_RE = re.compile(r'Found an instruction \("([^"]+)"\) which does device compute')
LOG_PREFIX_RE = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ \S+\] ?")
ERROR_CODE_RE = re.compile(r"\b(E\d{4}): ([A-Za-z]+)")
_STATUS_RE = re.compile(r"\b([A-Z_]{4,}): ")
# JAX appends this to a compile error; it names the caller's own lines, not XLA's.
_JAX_SUFFIX_RE = re.compile(r"\s*Suspected Python Code Location:.*", re.S)

# libtpu's error when another process holds /tmp/libtpu_lockfile.
_LOCKFILE = "libtpu multi-process lockfile"

_CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_xla_compile.py")


class XlaUnavailable(RuntimeError):
    """The backend's compile-only client is not installed (or its GPU target config is
    missing); the message says how to install it. `.install_command`: the pip command."""

    def __init__(self, message: str, install_command: Optional[List[str]] = None):
        super().__init__(message)
        self.install_command = install_command


def check_backend(backend: object) -> str:
    """`backend` ("tpu", "cuda"; "gpu" means "cuda") checked; ValueError otherwise."""
    if not isinstance(backend, str):
        raise TypeError(f"xla must be 'tpu' or 'cuda', not {type(backend).__name__}")
    b = {"gpu": "cuda"}.get(backend.lower(), backend.lower())
    if b not in BACKENDS:
        raise ValueError(f"xla={backend!r}: XLA's compile-only clients are 'tpu' (libtpu) "
                         "and 'cuda' (the CUDA plugin)")
    return b


def pkg_dir(backend: str) -> str:
    """The folder install_xla() puts the backend's packages in."""
    return os.path.join(PKG_ROOT, backend)


def _plugin_paths(backend: str) -> Optional[List[str]]:
    """Folders to put on the child's path for the backend's plugin ([] when the caller's
    environment has it), or None when it is nowhere."""
    if os.path.exists(os.path.join(pkg_dir(backend), _PLUGIN_FILE[backend])):
        return [pkg_dir(backend)]
    from importlib.util import find_spec
    top = _PLUGIN_FILE[backend].split("/")
    try:
        spec = find_spec(top[0])
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            if os.path.exists(os.path.join(loc, *top[1:])):
                return []
    return None


def installed(backend: str) -> bool:
    """True when the backend's compile-only client can be found (install_xla's folder or
    the caller's environment)."""
    return _plugin_paths(check_backend(backend)) is not None


def _packages(backend: str) -> List[str]:
    """The packages that match the installed jax (its own extras), else PACKAGES."""
    try:
        from importlib import metadata
        version = metadata.version("jax")
        reqs = metadata.requires("jax") or []
    except Exception:
        return list(PACKAGES[backend])
    if backend == "tpu":
        found = [r.split(";")[0].strip() for r in reqs
                 if r.startswith("libtpu") and 'extra == "tpu"' in r]
        return found[:1] or list(PACKAGES[backend])
    return [f"jax-cuda12-plugin=={version}", f"jax-cuda12-pjrt=={version}"]


def install_command(backend: str) -> List[str]:
    """The pip command line (argv) that puts the backend's packages into pkg_dir()."""
    backend = check_backend(backend)
    return [sys.executable, "-m", "pip", "install", "--no-deps", "--target",
            pkg_dir(backend)] + _packages(backend)


def install_xla(backend: str = "tpu") -> str:
    """Installs the backend's compile-only client into pkg_dir(backend) with pip (out of
    the environment's site-packages, so a plain `import jax` is unchanged); returns the
    folder. Raises RuntimeError when pip fails (its output in the message)."""
    cmd = install_command(backend)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    _installed_versions.cache_clear()  # the default --xla-version may change
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}"
                           f"{proc.stderr[-2000:]}")
    return pkg_dir(check_backend(backend))


# The distributions that carry each backend's compiler (jax's extras "tpu", "cuda12",
# "cuda13"); their versions choose the XLA semantics (`--xla-version`).
_COMPILER_DISTRIBUTIONS = {"tpu": ("libtpu",),
                           "cuda": ("jax-cuda12-plugin", "jax-cuda13-plugin")}


def _installed_distribution(names: Sequence[str],
                            folder: Optional[str]) -> Optional[Tuple[str, str]]:
    """(name, version) of the first of `names` installed in `folder` (an install_xla()
    folder) or, with folder None, in this environment; None when none is."""
    from importlib import metadata
    for name in names:
        try:
            if folder is None:
                return name, metadata.version(name)
            for dist in metadata.distributions(name=name, path=[folder]):
                return name, dist.version
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # an unreadable folder: as if absent
            continue
    return None


def installed_versions() -> Dict[str, str]:
    """The XLA packages a check would reproduce, by distribution name: {"libtpu": "0.0.52",
    "jax-cuda12-plugin": "0.10.2"}. Each backend's compiler as install_xla() put it, else
    as this environment has it, else the one the installed jax asks for (its "tpu" extra's
    libtpu series; the CUDA plugin of jaxlib's version) where the version table knows it.
    Empty without jax or packages. Read once per process (install_xla() reads again)."""
    return dict(_installed_versions())


@functools.lru_cache(maxsize=1)
def _installed_versions() -> Dict[str, str]:
    found: Dict[str, str] = {}
    for backend, names in _COMPILER_DISTRIBUTIONS.items():
        folder = pkg_dir(backend)
        hit = (_installed_distribution(names, folder) if os.path.isdir(folder) else None) \
            or _installed_distribution(names, None)
        if hit is not None:
            found[hit[0]] = hit[1]
            continue
        wanted = _wanted_by_jax(backend)
        if wanted is not None and _known_series(backend, wanted):
            found[names[0]] = wanted
    return found


def _known_series(backend: str, version: str) -> bool:
    """Whether the core's version table (`_core.known_xla_versions`) knows `version`'s
    series: a version only guessed from jax's requirements is passed on when known, and
    otherwise left to the newest known semantics without a note."""
    from . import _core
    package = "libtpu" if backend == "tpu" else "jax-cuda-plugin"
    return any(p == package and (version == series or version.startswith(series + "."))
               for p, series, _ in _core.known_xla_versions())


def _wanted_by_jax(backend: str) -> Optional[str]:
    """The compiler version the installed jax asks for: its "tpu" extra's libtpu series
    ("libtpu==0.0.42.*" gives "0.0.42"), or jaxlib's version for the CUDA plugin."""
    from importlib import metadata
    try:
        if backend == "cuda":
            return metadata.version("jaxlib")
        for req in metadata.requires("jax") or []:
            m = re.match(r"libtpu\s*==\s*([\d.]+?)(?:\.\*)?\s*;.*extra == \"tpu\"", req)
            if m:
                return m.group(1)
    except metadata.PackageNotFoundError:
        return None
    return None


def installed_xla_version() -> str:
    """installed_versions() as `--xla-version` takes it ("libtpu-0.0.52,jax-cuda12-plugin-
    0.10.2"); "" when nothing is installed (the newest known semantics)."""
    return ",".join(f"{name}-{version}" for name, version in installed_versions().items())


def _unavailable(backend: str) -> XlaUnavailable:
    cmd = install_command(backend)
    extra = "xla-tpu" if backend == "tpu" else "xla-cuda"
    return XlaUnavailable(
        f"XLA's {backend} compile-only client is not installed; install it with "
        f"`hlo-offload install-xla {backend}` (runs: {' '.join(cmd)}) or, into this "
        f"environment, `pip install 'hlo-offload[{extra}]'` (docs/DEVICELESS.md)", cmd)


def child_env(backend: str, dump_dir: Optional[str] = None, extra_flags: str = "",
              extra_path: Sequence[str] = ()) -> Dict[str, str]:
    """Environment for a child process that compiles for `backend`: the plugin's folder
    on PYTHONPATH, JAX on the CPU, libtpu told not to ask a metadata server and to log
    warnings to standard error, XLA's pass dumps around the HostOffloader into
    `dump_dir`."""
    env = dict(os.environ)
    dirs = list(_plugin_paths(backend) or [])
    if backend == "cuda":
        dirs += _plugin_paths("tpu") or []
    dirs += list(extra_path)
    if dirs or env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(
            dirs + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["JAX_PLATFORMS"] = "cpu"
    env["TPU_SKIP_MDS_QUERY"] = "1"
    # libtpu asks for these when it cannot read them from a metadata server; any value
    # that parses keeps its init from logging an error (compiles do not use them).
    env.setdefault("TPU_ACCELERATOR_TYPE", "v5litepod-4")
    env.setdefault("TPU_WORKER_HOSTNAMES", "localhost")
    env.setdefault("TPU_WORKER_ID", "0")
    # libtpu writes its log to /tmp/tpu_logs; XLA's host-compute warnings are LOG(WARNING)s.
    env["TPU_STDERR_LOG_LEVEL"] = "1"
    env["TPU_MIN_LOG_LEVEL"] = "1"
    env["TPU_LOG_DIR"] = "disabled"
    # libtpu takes /tmp/libtpu_lockfile when it loads, so that one process owns the TPU,
    # and aborts ("ABORTED: Internal error when accessing libtpu multi-process lockfile")
    # when another process holds it: a user's notebook, a second test worker. Its switch
    # ALLOW_MULTIPLE_LIBTPU_LOAD (read by libtpu.so itself: "ALLOW_MULTIPLE_LIBTPU_LOAD is
    # set to True, allowing multiple concurrent libtpu.so loads"; JAX's own test runner sets
    # it, jax/conftest.py) lets a compile-only load share the machine. Forced, not
    # defaulted: a caller's ALLOW_MULTIPLE_LIBTPU_LOAD=0 is about its own process.
    env["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "true"
    flags = [extra_flags] if extra_flags else []
    if dump_dir:
        flags += [f"--xla_dump_to={dump_dir}", "--xla_dump_hlo_pass_re=host-offloader"]
    if flags:
        env["XLA_FLAGS"] = " ".join(flags)
    return env


def read_target_config(name_or_path: str) -> str:
    """GpuTargetConfigProto text: the file `name_or_path`, else XLA's spec of that GPU
    name (`h100_sxm`) from $HLO_OFFLOAD_GPU_TARGET_CONFIG_DIR or from an XLA git
    directory ($XLA_GIT_DIR) at jaxlib's XLA commit. Raises XlaUnavailable saying where
    to get it."""
    if os.path.isfile(name_or_path):
        with open(name_or_path) as fh:
            return fh.read()
    if os.sep in name_or_path or name_or_path.endswith(".txtpb"):
        # A path, not a GPU name.
        raise XlaUnavailable(f"no GPU target config file {name_or_path!r}")
    spec = f"xla/backends/gpu/target_config/specs/{name_or_path}.txtpb"
    folder = os.environ.get("HLO_OFFLOAD_GPU_TARGET_CONFIG_DIR")
    if folder and os.path.isfile(os.path.join(folder, name_or_path + ".txtpb")):
        with open(os.path.join(folder, name_or_path + ".txtpb")) as fh:
            return fh.read()
    git_dir = os.environ.get("XLA_GIT_DIR")
    if git_dir:
        proc = subprocess.run(["git", "-C", git_dir, "show", f"{XLA_COMMIT}:{spec}"],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            return proc.stdout
    raise XlaUnavailable(
        f"the CUDA compile-only client needs a GPU target config: pass its file "
        f"(xla_topology=PATH, --xla-topology=PATH), e.g. XLA's {spec} at the commit jaxlib "
        f"was built from ({XLA_COMMIT} for jaxlib 0.10.2), or set "
        f"HLO_OFFLOAD_GPU_TARGET_CONFIG_DIR to a folder of such files")


# The XLA commit jaxlib 0.10.2 was built from (jax's third_party/xla/revision.bzl at its
# release): the GPU target configs must come from it, newer specs have fields this
# plugin's proto does not know.
XLA_COMMIT = "5a9e73cbd92530cac2ac36f4736a774b2412afe2"


def tpu_topology(num_partitions: int) -> str:
    """The smallest v5e topology with `num_partitions` chips; ValueError beyond 256."""
    for n, name in _TPU_TOPOLOGIES:
        if num_partitions <= n:
            return name
    raise ValueError(f"{num_partitions} partitions: no TPU topology is chosen for more than "
                     f"{_TPU_TOPOLOGIES[-1][0]}; pass xla_topology=")


def host_compute_warnings(log_text: str) -> List[str]:
    """XLA's host-compute warnings in a log, one per line, without the log prefix."""
    return [LOG_PREFIX_RE.sub("", line.strip()) for line in log_text.splitlines()
            if HOST_COMPUTE_RE.search(line)]


class _HostComputeName(TypedDict):
    name: str


class HostCompute(_HostComputeName, total=False):
    """An instruction XLA converted into host compute (XlaVerdict.host_compute): its name,
    and what XLA's dump before the HostOffloader says of it (instruction_metadata)."""

    opcode: Optional[str]
    op_name: Optional[str]
    source_file: str
    source_line: int


def instruction_metadata(hlo_text: str, name: str) -> Optional[HostCompute]:
    """{name, opcode, op_name[, source_file, source_line]} of instruction `name` in an XLA
    dump (HLO text), or None when it is not there (or the dump does not parse), as the
    core's parser reads it (`_core.instruction_metadata`): the user's line from the
    metadata's source_file / source_line or from the stack-frame tables."""
    from . import _core
    found = _core.instruction_metadata(hlo_text, name)
    if found is None:
        return None
    opcode, op_name, source_file, source_line = found
    row: HostCompute = {"name": name, "opcode": opcode, "op_name": op_name}
    if source_file is not None:
        row["source_file"] = source_file
        row["source_line"] = source_line
    return row


class VerdictJson(TypedDict):
    """XlaVerdict.to_json(): the `xla` object of `check --format=json --xla=...`."""

    backend: str
    topology: str
    plugin: str
    verdict: bool
    ok: bool
    reason: Optional[str]
    error: Optional[str]
    code: Optional[str]
    status: Optional[str]
    host_compute: List[HostCompute]
    seconds: float
    total_seconds: float
    notes: List[str]
    memory: Dict[str, int]


class MemoryFigureJson(TypedDict):
    """MemoryFigure.to_json()."""

    label: str
    xla_field: str
    xla: int
    ours_field: Optional[str]
    ours: Optional[int]
    explained: Optional[int]
    why: str


class ComparisonJson(VerdictJson):
    """Comparison.to_json(): the verdict's object with our agreement and XLA's memory
    figures."""

    agrees: Optional[bool]
    disagreements: List[str]
    memory_figures: List[MemoryFigureJson]


@dataclass
class XlaVerdict:
    """XLA's answer for one module, from a deviceless compile.

    backend: "tpu" or "cuda"; topology: what it compiled for ("v5e:2x2", "h100_sxm");
    plugin: the client, e.g. "libtpu 0.0.42.1". ok: XLA compiled the module. verdict:
    False when XLA gave no verdict (the module could not be handed to it, or XLA
    crashed): then `reason` says why and ok means nothing. error: XLA's status text
    (`INVALID_ARGUMENT: E1200: ...`), code: "E1200" or None, status: "INVALID_ARGUMENT"...
    host_compute: one dict per instruction XLA converted into host compute (name,
    opcode, op_name, source_file, source_line, from XLA's dump before the HostOffloader).
    seconds: the compile (without starting the client); total_seconds: the whole child
    process. notes: what the conversion for XLA lost (e.g. memory kinds of tuples).
    memory: the compiled executable's memory analysis, per device, in bytes
    (`Compiled.memory_analysis()`: "argument_size_in_bytes", "host_temp_size_in_bytes",
    ...; empty when XLA refused the module or the client does not give it).
    entry_layout: the compiled module's entry_computation_layout, with XLA's layouts
    (TPU tiles). host_buffers: the host-memory buffers the compiled module defines
    ({"name", "opcode", "shape", "computation"}; see memory_figures()).
    """

    backend: str
    topology: str
    plugin: str = ""
    ok: bool = False
    verdict: bool = True
    reason: str = ""
    error: Optional[str] = None
    code: Optional[str] = None
    status: Optional[str] = None
    host_compute: List[HostCompute] = field(default_factory=list)
    seconds: float = 0.0
    total_seconds: float = 0.0
    notes: List[str] = field(default_factory=list)
    memory: Dict[str, int] = field(default_factory=dict)
    entry_layout: str = ""
    host_buffers: List[HostBuffer] = field(default_factory=list)

    def headline(self) -> str:
        """One line: what XLA said, e.g. "XLA (libtpu 0.0.42.1, tpu v5e:2x2) compiles
        the module (1.20 s)"."""
        who = f"XLA ({self.plugin or self.backend}, {self.backend} {self.topology})"
        if not self.verdict:
            return f"{who} gave no verdict: {self.reason}"
        took = f" ({self.seconds:.2f} s)"
        if self.ok:
            conv = (f", converting {len(self.host_compute)} instruction"
                    f"{'s' if len(self.host_compute) != 1 else ''} into host compute"
                    if self.host_compute else "")
            return f"{who} compiles the module{conv}{took}"
        first = (self.error or "").strip().splitlines()
        return f"{who} refuses the module{took}: {first[0] if first else ''}"

    def to_json(self) -> VerdictJson:
        """The verdict as JSON (the `xla` object of `check --format=json --xla=...`)."""
        return {"backend": self.backend, "topology": self.topology, "plugin": self.plugin,
                "verdict": self.verdict, "ok": self.ok, "reason": self.reason or None,
                "error": self.error, "code": self.code, "status": self.status,
                "host_compute": list(self.host_compute), "seconds": round(self.seconds, 3),
                "total_seconds": round(self.total_seconds, 3), "notes": list(self.notes),
                "memory": dict(self.memory)}


def compile_module(data: Union[str, bytes], module_format: str, *, backend: str,
                   topology: Optional[str] = None, num_partitions: int = 1,
                   module_name: str = "module",
                   result_memory_kinds: Optional[Sequence[str]] = None,
                   timeout: float = 900) -> XlaVerdict:
    """Compiles one module with XLA's compile-only client for `backend`, in a child process.

    data: StableHLO (MLIR text or bytecode; module_format "stablehlo") or HLO text
    (module_format "hlo": XLA's parser reads it, the entry layout's host memory spaces
    are restated as memory kinds). topology: a TPU topology ("v5e:2x4"; default by
    num_partitions) or, for cuda, a GPU target config file or XLA spec name (default
    "h100_sxm"). result_memory_kinds: the memory kind of each flat result to compile with
    instead of the module's (a fix's `out_shardings`). Returns the XlaVerdict (XLA
    refusing the module is a verdict, not an exception). Raises XlaUnavailable when the
    client is not installed, ValueError for a bad topology.
    """
    backend = check_backend(backend)
    paths = _plugin_paths(backend)
    if paths is None:
        raise _unavailable(backend)
    target_config = None
    if backend == "tpu":
        topology = topology or tpu_topology(max(1, int(num_partitions)))
    else:
        topology = topology or DEFAULT_TOPOLOGY["cuda"]
        target_config = read_target_config(topology)
        topology = os.path.basename(topology).replace(".txtpb", "")
    verdict = XlaVerdict(backend=backend, topology=topology)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hlo-offload-xla-") as tmp:
        module_file = os.path.join(tmp, "module.mlir" if module_format != "hlo" else
                                   "module.hlo")
        with open(module_file, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        request: Request = {"backend": backend, "topology": topology,
                            "target_config": target_config,
                            "num_partitions": int(num_partitions),
                            "module_file": module_file, "module_format": module_format,
                            "module_name": module_name,
                            "result_memory_kinds": result_memory_kinds}
        req_file = os.path.join(tmp, "request.json")
        res_file = os.path.join(tmp, "result.json")
        log_file = os.path.join(tmp, "xla.log")
        dump_dir = os.path.join(tmp, "dump")
        with open(req_file, "w") as fh:
            json.dump(request, fh)
        with open(log_file, "wb") as log:
            try:
                proc = subprocess.run([sys.executable, _CHILD, req_file, res_file],
                                      env=child_env(backend, dump_dir=dump_dir),
                                      stdout=subprocess.DEVNULL, stderr=log, timeout=timeout)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                rc = None
        with open(log_file, errors="replace") as fh:
            log_text = fh.read()
        verdict.total_seconds = time.perf_counter() - start
        if rc is None:
            verdict.verdict = False
            verdict.reason = f"the compile did not finish in {timeout:g} s"
            return verdict
        if not os.path.exists(res_file):
            verdict.verdict = False
            tail = [line for line in log_text.splitlines() if line.strip()][-3:]
            verdict.reason = (f"XLA crashed (the compiling process ended with status {rc})"
                              + (": " + " / ".join(LOG_PREFIX_RE.sub("", t) for t in tail)
                                 if tail else ""))
            return verdict
        with open(res_file) as fh:
            out: Result = json.load(fh)
        verdict.plugin = out.get("plugin", "")
        verdict.notes = list(out.get("notes", []))
        verdict.seconds = float(out.get("seconds") or 0.0)
        verdict.memory = dict(out.get("memory") or {})
        verdict.entry_layout = out.get("entry_layout") or ""
        verdict.host_buffers = list(out.get("host_buffers") or ())
        if out["stage"] != "compile":
            verdict.verdict = False
            what = {"load": "the compile-only client could not be started",
                    "convert": "the module could not be handed to XLA"}[out["stage"]]
            verdict.reason = f"{what}: {_first_lines(out.get('error', ''))}"
            if module_format == "hlo" and _COMPACT_OPERAND_RE.search(out.get("error", "")):
                verdict.reason += _newer_dump_hint()
            if _LOCKFILE in out.get("error", ""):
                verdict.reason = (
                    "libtpu could not load: another process holds its lockfile "
                    "(/tmp/libtpu_lockfile) and the compile's ALLOW_MULTIPLE_LIBTPU_LOAD=true "
                    "did not let it share (`fuser /tmp/libtpu_lockfile` names the process; "
                    "end it, or remove a stale lockfile no process holds). libtpu said: "
                    + _first_lines(out.get("error", ""), 1))
            return verdict
        verdict.ok = bool(out["ok"])
        if not verdict.ok:
            verdict.error = _JAX_SUFFIX_RE.sub("", out.get("error", "")).strip()
            m = ERROR_CODE_RE.search(verdict.error)
            verdict.code = m.group(1) if m else None
            s = _STATUS_RE.match(verdict.error)
            verdict.status = s.group(1) if s else None
        names: List[str] = []
        for line in host_compute_warnings(log_text):
            m = HOST_COMPUTE_NAME_RE.search(line)
            if m and m.group(1) not in names:
                names.append(m.group(1))
        dump = _before_offloader_dump(dump_dir) if names else None
        verdict.host_compute = [
            (instruction_metadata(dump, n) if dump else None) or {"name": n} for n in names]
    return verdict


# A compact get-tuple-element operand (`%x#0`), which XLA's dumps print from JAX 0.11 on.
_COMPACT_OPERAND_RE = re.compile(r"%[\w.\-]+#\d")


def _newer_dump_hint() -> str:
    """Why the installed jaxlib's HLO parser refuses a compact operand, and what to do."""
    from importlib import metadata
    try:
        jaxlib = metadata.version("jaxlib")
    except metadata.PackageNotFoundError:  # pragma: no cover - the child ran jax
        jaxlib = "?"
    return (f"; the module is a dump of a newer XLA: it writes get-tuple-elements as "
            f"compact operands (`%x#0`, JAX 0.11 and later), which the parser of this "
            f"jaxlib ({jaxlib}) does not read: compile it with jax 0.12 or later installed "
            f"(pip install 'jax>=0.12')")


def _first_lines(text: str, n: int = 3) -> str:
    lines = [line for line in _JAX_SUFFIX_RE.sub("", text).splitlines() if line.strip()]
    return " / ".join(lines[:n])


def _before_offloader_dump(dump_dir: str) -> Optional[str]:
    """XLA's dump of the module right before the HostOffloader (the last one, when the
    pipeline runs the pass more than once), or None."""
    found = sorted(glob.glob(os.path.join(dump_dir, "*before_host-offloader.txt")))
    if not found:
        return None
    with open(found[-1], errors="replace") as fh:
        return fh.read()


# ---------------------------------------------------------------------------------------
# Our diagnostics against XLA's verdict

_HOST_COMPUTE_CODE = "HO2001"
_MESSAGE_NAME_RE = re.compile(r'instruction \("([^"]+)"\)')


# (name, opcode, op_name) of an instruction of our HO2001 diagnostics.
_OurHostCompute = Tuple[str, Optional[str], Optional[str]]


def _our_host_compute(diag: Diagnostic) -> _OurHostCompute:
    """(name, opcode, op_name) of the instruction one of our HO2001 diagnostics names."""
    m = _MESSAGE_NAME_RE.search(diag.message)
    name = m.group(1) if m else (diag.instruction or "")
    opcode = None
    for note in diag.notes:
        n = re.match(r'"%s" \(([\w-]+),' % re.escape(name), note.message)
        if n:
            opcode = n.group(1)
            break
    return name, opcode, diag.op_name


def _same_op(ours: _OurHostCompute, xla: HostCompute) -> bool:
    """One of our HO2001 instructions and one XLA converted are the same instruction:
    the same opcode and op_name (XLA's may have the op_name of the call it was inlined
    from in front: xla/service/call_inliner.cc propagates it), else the same name."""
    name, opcode, op_name = ours
    x_op, x_name = xla.get("op_name"), xla.get("opcode")
    if opcode and x_name and op_name and x_op:
        return opcode == x_name and (op_name == x_op or x_op.endswith("/" + op_name))
    return name == xla.get("name")


@dataclass
class Comparison:
    """Our diagnostics against XLA's verdict.

    agrees: the same verdict (both compile, or both refuse with the same code) and the
    same instructions converted into host compute. confirmed: {id(diagnostic): True |
    False} for our errors and host-compute warnings (lints and notes are ours alone).
    disagreements: one sentence each, for what XLA and we say differently.
    """

    agrees: bool
    confirmed: Dict[int, bool]
    disagreements: List[str]
    summary: str
    verdict: XlaVerdict
    # XLA's memory analysis beside our per-device bytes (memory_figures()); empty
    # without them.
    memory: List[MemoryFigure] = field(default_factory=list)

    def mark_json(self, diagnostics: Sequence[Diagnostic],
                  json_entries: Sequence[MutableMapping[str, Any]]) -> None:
        """Sets `xla_confirmed` on each JSON entry (`check --format=json`) whose
        diagnostic, at the same position in `diagnostics`, XLA confirms or not."""
        for d, j in zip(diagnostics, json_entries):
            if id(d) in self.confirmed:
                j["xla_confirmed"] = self.confirmed[id(d)]

    def to_json(self) -> ComparisonJson:
        """The `xla` object of `check --format=json --xla=...`: the verdict, `agrees`
        (None without a verdict) and `disagreements`."""
        return {**self.verdict.to_json(),
                "agrees": self.agrees if self.verdict.verdict else None,
                "disagreements": list(self.disagreements),
                "memory_figures": [f.to_json() for f in self.memory]}

    def text(self, file: str) -> str:
        """The lines `check --xla=...` prints for `file`: XLA's verdict, its status lines,
        the round trip's notes, whether it agrees and each difference."""
        v = self.verdict
        lines = [f"{file}: xla: {v.headline()}"]
        if v.verdict and not v.ok and v.error:
            lines += [f"  {line}" for line in v.error.splitlines()[1:4] if line.strip()]
        lines += [f"{file}: xla: note: {n}" for n in v.notes]
        if v.verdict:
            lines.append(f"{file}: xla: {self.summary}")
        lines += [f"{file}: xla: DISAGREES: {d}" for d in self.disagreements]
        lines += [f"{file}: xla: {line}" for line in memory_text(self.memory)]
        return "\n".join(lines) + "\n"

    def exit_status(self, own: int) -> int:
        """XLA's verdict as an exit status (0 compiled, 1 refused); `own` without one."""
        if not self.verdict.verdict:
            return own
        return 0 if self.verdict.ok else 1


def _same_error(d: Diagnostic, verdict: XlaVerdict) -> bool:
    """Whether our error `d` is the one XLA raised: the same code (E1200), or, for an
    error XLA raises without a code (our HO1xxx, docs/errors), XLA's own sentence, which
    our message starts with, in XLA's error text."""
    if verdict.code is not None:
        return d.code == verdict.code
    if not d.code.startswith("HO1") or not verdict.error:
        return False
    sentence = d.message
    for prefix in ("on TPU: ", "on GPU: "):
        if sentence.startswith(prefix):
            sentence = sentence[len(prefix):]
    sentence = sentence.split(": ", 1)[0]
    return bool(sentence) and sentence in verdict.error


def compare(diagnostics: Sequence[Diagnostic], verdict: XlaVerdict,
            ours_memory: Optional[Mapping[str, int]] = None) -> Comparison:
    """Marks each of our errors and HO2001 warnings confirmed or not by XLA's verdict;
    with `ours_memory` (the report's per-device byte figures), XLA's memory analysis
    beside them (memory_figures())."""
    comparison = _compare(diagnostics, verdict)
    if ours_memory is not None:
        comparison.memory = memory_figures(verdict, ours_memory)
    return comparison


def _compare(diagnostics: Sequence[Diagnostic], verdict: XlaVerdict) -> Comparison:
    confirmed: Dict[int, bool] = {}
    disagreements: List[str] = []
    if not verdict.verdict:
        return Comparison(True, {}, [], f"not compared: {verdict.reason}", verdict)
    errors = [d for d in diagnostics if d.severity == "error"]
    ours_ok = not errors
    for d in errors:
        # XLA stops at its first error: every E1200 of ours is confirmed by its E1200.
        confirmed[id(d)] = (not verdict.ok) and _same_error(d, verdict)
    if ours_ok and not verdict.ok:
        disagreements.append(f"XLA refuses the module and hlo-offload found no error: "
                             f"{_first_lines(verdict.error or '', 2)}")
    elif not ours_ok and verdict.ok:
        codes = ", ".join(sorted({d.code for d in errors}))
        disagreements.append(f"hlo-offload reports {len(errors)} error"
                             f"{'s' if len(errors) != 1 else ''} ({codes}) but XLA "
                             "compiles the module")
    elif not ours_ok and not verdict.ok and not any(confirmed[id(d)] for d in errors):
        disagreements.append(
            f"XLA refuses the module with {verdict.code or verdict.status or 'an error'}, "
            f"hlo-offload with {', '.join(sorted({d.code for d in errors}))}")
    # Host compute: a multiset match of our HO2001 instructions and XLA's.
    left = list(verdict.host_compute)
    ours = [d for d in diagnostics if d.code == _HOST_COMPUTE_CODE]
    seen: Dict[str, Diagnostic] = {}
    for d in ours:
        key = _our_host_compute(d)
        if key[0] in seen:  # one instruction, several diagnostics: one answer
            confirmed[id(d)] = confirmed[id(seen[key[0]])]
            continue
        seen[key[0]] = d
        hit = next((i for i, x in enumerate(left) if _same_op(key, x)), None)
        confirmed[id(d)] = hit is not None
        if hit is not None:
            left.pop(hit)
        elif verdict.ok or verdict.code is None:
            disagreements.append(f"hlo-offload warns that {key[0]} ({key[1] or '?'}, "
                                 f"{key[2] or 'no op_name'}) becomes host compute; XLA "
                                 "does not convert it")
    if verdict.ok:
        for x in left:
            disagreements.append(
                f"XLA converts {x.get('name')} ({x.get('opcode') or '?'}, "
                f"{x.get('op_name') or 'no op_name'}"
                + (f", {x['source_file']}:{x['source_line']}" if x.get("source_line") else "")
                + ") into host compute; hlo-offload did not warn")
    n_conf = sum(1 for v in confirmed.values() if v)
    if disagreements:
        summary = (f"DISAGREES ({len(disagreements)} difference"
                   f"{'s' if len(disagreements) != 1 else ''}); XLA's verdict decides")
    elif confirmed:
        summary = (f"agrees: {n_conf} of {len(confirmed)} errors and host-compute "
                   "warnings confirmed")
        if not verdict.ok and sum(1 for d in errors if d.code == verdict.code) > 1:
            summary += " (XLA stops at its first error)"
    else:
        summary = "agrees: no error, no host compute"
    return Comparison(not disagreements, confirmed, disagreements, summary, verdict)



@dataclass
class MemoryFigure:
    """One figure of XLA's memory analysis beside ours, per device, in bytes.

    label: "host arguments", "host outputs", "host temp", "device arguments",
    "device outputs" or "device temp". xla: XLA's figure (`field`, of
    `Compiled.memory_analysis()`). ours: the report's figure (`ours_field`: host_bytes_in,
    host_bytes_out, host_intermediate_bytes, device_bytes_in, device_bytes_out), None where
    the checker has none. explained: XLA's figure recomputed from its compiled module
    (the buffers with XLA's layouts), None where it cannot be. why: how XLA's figure
    and ours differ, part by part ("" when they are equal).
    """

    label: str
    field: str
    xla: int
    ours: Optional[int]
    ours_field: Optional[str]
    explained: Optional[int]
    why: str

    def to_json(self) -> MemoryFigureJson:
        """This figure as JSON (an entry of the `memory_figures` of `check --format=json`)."""
        return {"label": self.label, "xla_field": self.field, "xla": self.xla,
                "ours_field": self.ours_field, "ours": self.ours,
                "explained": self.explained, "why": self.why}


# (label, XLA's memory-analysis field, our report's figure, where XLA's buffers are:
# "params"/"result" of the entry layout and a memory space, "temp" host buffers, None).
_MEMORY_ROWS = (
    ("host arguments", "host_argument_size_in_bytes", "host_bytes_in", ("params", 5)),
    ("host outputs", "host_output_size_in_bytes", "host_bytes_out", ("result", 5)),
    ("host temp", "host_temp_size_in_bytes", "host_intermediate_bytes", ("temp", 5)),
    ("device arguments", "argument_size_in_bytes", "device_bytes_in", ("params", 0)),
    ("device outputs", "output_size_in_bytes", "device_bytes_out", ("result", 0)),
    ("device temp", "temp_size_in_bytes", None, None),
)

# What each opcode of a compiled module's host buffer is, for the explanations.
_HOST_BUFFER_KINDS = {"kCustomCall": "allocated (AllocateBuffer: the offloaded values' "
                                     "buffers)",
                      "kCopyStart": "copy-start destinations (copies into host memory "
                                    "that XLA schedules)"}


def _layout_parts(entry_layout: str) -> Optional[Tuple[str, str]]:
    """(the parameters as a tuple shape, the result shape) of an entry computation
    layout `{(p0, p1)->r}`; None when it is not one."""
    text = entry_layout.strip()
    if not (text.startswith("{(") and text.endswith("}")):
        return None
    depth = 0
    for i, ch in enumerate(text[1:-1], start=1):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "-" and depth == 0 and text.startswith("->", i):
            return text[1:i], text[i + 2:-1]
    return None


def _space_bytes(shape: str, space: int, tiles: bool) -> int:
    from . import _core
    return _core.shape_bytes_by_memory_space(shape, tiles).get(space, 0)


def _top_level(shape: str) -> List[str]:
    """The top-level elements of a tuple shape's text (`(a, (b, c))` -> ["a", "(b, c)"]);
    [] for an array or an empty tuple."""
    text = shape.strip()
    if not text.startswith("(") or not text[1:-1].strip():
        return []
    out, depth, start = [], 0, 1
    for i, ch in enumerate(text[1:-1], start=1):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:-1].strip())
    return out


def memory_figures(verdict: XlaVerdict, ours: Mapping[str, int]) -> List[MemoryFigure]:
    """XLA's memory analysis (verdict.memory) beside our per-device figures (`ours`: the
    report's JSON keys), each difference explained from XLA's compiled module: its
    entry layout and host buffers in XLA's layouts, whose TPU tiles pad the two minor
    dimensions (T(8,128): 128 lanes by 8 sublanes, more rows for narrower types); the
    output tuple's own table of element addresses; the host buffers XLA adds (copies it
    schedules into host memory). Empty without XLA's figures (a refused module, a
    client without memory analysis)."""
    if not verdict.memory:
        return []
    parts = _layout_parts(verdict.entry_layout) if verdict.entry_layout else None
    temp_buffers = [b for b in verdict.host_buffers if not b.get("returned")]
    rows: List[MemoryFigure] = []
    for label, xla_field, ours_field, where in _MEMORY_ROWS:
        if xla_field not in verdict.memory:
            continue
        xla = verdict.memory[xla_field]
        mine = ours.get(ours_field) if ours_field else None
        explained: Optional[int] = None
        why: List[str] = []
        if where is None:
            why.append("XLA's fusion, rematerialization and scheduling decide it; the "
                       "checker does not predict it")
        elif where[0] == "temp":
            tiled = dense = 0
            kinds: Dict[str, List[int]] = {}  # opcode -> [buffers, bytes without tiles]
            for b in temp_buffers:
                b_dense = _space_bytes(b["shape"], 5, False)
                tiled += _space_bytes(b["shape"], 5, True)
                dense += b_dense
                k = kinds.setdefault(b["opcode"], [0, 0])
                k[0] += 1
                k[1] += b_dense
            explained = tiled
            if temp_buffers:
                listed = ", ".join(
                    f"{n} {_HOST_BUFFER_KINDS.get(op, op[1:].lower())} of {b} bytes"
                    for op, (n, b) in kinds.items())
                why.append(f"XLA's compiled module defines {len(temp_buffers)} host "
                           f"buffers, {dense} bytes in all without tiles: {listed}")
            if mine is not None and mine == tiled:
                pass  # the module's own layouts have XLA's tiles: ours count them
            else:
                if mine is not None and dense != mine and temp_buffers:
                    why.append(f"{dense - mine:+d} bytes against ours")
                if tiled != dense:
                    why.append(f"{tiled - dense} bytes of TPU tile padding")
        elif parts is not None:
            shape = parts[0] if where[0] == "params" else parts[1]
            tiled = _space_bytes(shape, where[1], True)
            dense = _space_bytes(shape, where[1], False)
            explained = tiled
            if mine is not None and mine == tiled:
                pass  # the module's own layouts have XLA's tiles: ours count them
            else:
                if mine is not None and dense != mine:
                    why.append(f"XLA's compiled entry layout has {dense} bytes without "
                               f"tiles ({dense - mine:+d} against ours)")
                if tiled != dense:
                    why.append(f"{tiled - dense} bytes of TPU tile padding in XLA's "
                               "layouts")
            elements = len(_top_level(shape)) if where[0] == "result" else 0
            if where[1] == 0 and elements and 0 < xla - tiled <= 8 * elements + 512:
                why.append(f"{xla - tiled} bytes for the output tuple's own table of "
                           f"{elements} element addresses")
                explained = xla
        if explained is not None and explained != xla:
            why.append(f"{xla - explained:+d} bytes that XLA's compiled module does not "
                       "show")
        if mine is not None and mine == xla:
            why = []
        rows.append(MemoryFigure(label, xla_field, xla, mine, ours_field, explained,
                                 "; ".join(why)))
    return rows


def memory_text(figures: List[MemoryFigure]) -> List[str]:
    """The lines that show XLA's memory analysis beside ours ([] without figures)."""
    if not figures:
        return []
    lines = ["memory per device, XLA's memory analysis | hlo-offload (bytes):"]
    width = max(len(f.label) for f in figures)
    for f in figures:
        ours = "-" if f.ours is None else str(f.ours)
        same = " (equal)" if f.ours is not None and f.ours == f.xla else ""
        lines.append(f"  {f.label:<{width}}  {f.xla:>12} | {ours:>12}{same}"
                     + (f": {f.why}" if f.why else ""))
    return lines
