"""Deviceless XLA compiles for host-offloading verdicts, on a machine with no GPU or TPU.

Two backends compile without an accelerator through JAX's compile-only clients:

  tpu   libtpu's PJRT plugin (PyPI `libtpu`); a topology such as "v5e:2x2" from
        jax.experimental.topologies.get_topology_desc(platform="tpu", ...), with
        JAX_PLATFORMS=cpu and TPU_SKIP_MDS_QUERY=1 (no metadata server is asked).
  cuda  the CUDA PJRT plugin (PyPI `jax-cuda12-plugin` + `jax-cuda12-pjrt`); a topology
        from get_topology_desc(platform="cuda", target_config=<GpuTargetConfigProto text>,
        topology="1x1x1"). XLA reads `target_config` in PJRT_GpuDeviceTopology_Create
        (xla/pjrt/c/pjrt_c_api_gpu_internal.cc) and then needs no GPU and no driver.

The packages are not installed into site-packages (an installed libtpu changes what a plain
`import jax` does for everyone on the machine); they live in per-backend folders under
PKG_ROOT and are put on sys.path by the child process that compiles.

A module reaches XLA as StableHLO: JAX programs are lowered by JAX; HLO text is parsed by
jaxlib (jaxlib._hlo.hlo_module_from_text) and converted with _jax.mlir.hlo_to_stablehlo.
That conversion drops layouts, so the memory spaces of entry_computation_layout (S(5)) are
put back as `mhlo.memory_kind = "pinned_host"` argument/result attributes, which is how
JAX itself states them and how PJRT turns them into layout memory spaces
(xla/pjrt/utils.cc). It also renames instructions, so XLA's `starting from <name>` names an
instruction of the round-tripped module, not of the input text.
"""

import functools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The package's deviceless compiles (hlo_offload/_xla.py: where the plugins live, how to
# install them, the child's environment); these tools add their own pass dumps.
from hlo_offload import _xla as _pkg  # noqa: E402

PKG_ROOT = _pkg.PKG_ROOT
PACKAGES = _pkg.PACKAGES
XLA_COMMIT_FOR_JAXLIB_0_10_2 = _pkg.XLA_COMMIT
TARGET_CONFIG_PATH = "xla/backends/gpu/target_config/specs/%s.txtpb"
# A git directory of openxla/xla (any clone with that commit), for the GPU target configs.
XLA_MIRROR = os.environ.get("XLA_GIT_DIR", "")

DEFAULT_TOPOLOGY = _pkg.DEFAULT_TOPOLOGY

# Pass-dump regex: XLA applies it to the pass before and after each dump point.
DUMP_PASS_RE = ".*host.*offload.*|.*memory-placement.*"

HOST_COMPUTE_RE = _pkg.HOST_COMPUTE_RE
pkg_dir = _pkg.pkg_dir
installed = _pkg.installed
install_command = _pkg.install_command


# The distributions whose versions decide a compile: JAX, jaxlib and each backend's
# compiler, as importlib.metadata reads them in the compiling child's environment.
PROVENANCE_DISTRIBUTIONS = ("jax", "jaxlib", "libtpu", "jax-cuda12-plugin", "jax-cuda12-pjrt",
                            "jax-cuda13-plugin", "jax-cuda13-pjrt")


@functools.lru_cache(maxsize=None)
def provenance(backend):
    """{distribution: version} of PROVENANCE_DISTRIBUTIONS installed where a compile for
    `backend` runs (the child's environment: the plugin's folder first), plus "python".
    Read with importlib.metadata from the packages themselves, never from constants."""
    import json
    import subprocess
    code = ("import json, sys\n"
            "from importlib import metadata\n"
            "out = {'python': sys.version.split()[0]}\n"
            "for name in %r:\n"
            "    try:\n"
            "        out[name] = metadata.version(name)\n"
            "    except metadata.PackageNotFoundError:\n"
            "        pass\n"
            "print(json.dumps(out))\n" % (PROVENANCE_DISTRIBUTIONS,))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=child_env(backend), check=True)
    return json.loads(proc.stdout)


def versions_lines(backend, topology):
    """versions.txt's lines on what ran: each installed distribution of provenance() and
    its version ("libtpu 0.0.52"), the backend and the topology."""
    found = provenance(backend)
    lines = ["%s %s" % (name, found[name]) for name in PROVENANCE_DISTRIBUTIONS
             if name in found]
    lines += ["backend %s" % backend, "topology %s" % topology,
              "python %s" % found["python"]]
    return lines


def ref_folder(backend, topology, suffix=None):
    """tests/xla-ref/ folder name for the compiler that runs: `libtpu-<version>-<topology>`
    or `cuda12-plugin-<version>-<topology>` (`suffix` instead of the topology, e.g.
    "sharded"), the version read from the installed package (provenance)."""
    found = provenance(backend)
    if backend == "tpu":
        name = "libtpu-%s" % found.get("libtpu", "unknown")
    else:
        plugin = next((d for d in ("jax-cuda12-plugin", "jax-cuda13-plugin") if d in found),
                      "jax-cuda12-plugin")
        name = "%s-%s" % (plugin.replace("jax-", ""), found.get(plugin, "unknown"))
    tail = suffix or topology.replace(":", "_")
    return "%s-%s" % (name, tail)


def child_env(backend, dump_dir=None, extra_flags=""):
    """Environment for a child process that compiles for `backend` (the package's, with
    this folder on the path and the pass dumps of DUMP_PASS_RE into `dump_dir`)."""
    env = _pkg.child_env(backend, extra_path=[HERE])
    flags = [extra_flags] if extra_flags else []
    if dump_dir:
        flags += ["--xla_dump_to=%s" % dump_dir, "--xla_dump_hlo_pass_re=%s" % DUMP_PASS_RE]
    if flags:
        env["XLA_FLAGS"] = " ".join(flags)
    return env


def read_target_config(name, explicit_path=None):
    """GpuTargetConfigProto text for GPU `name` (e.g. "h100_sxm").

    Reads `explicit_path` when given, else XLA's spec file at XLA_COMMIT_FOR_JAXLIB_0_10_2
    from a local XLA git dir (XLA_GIT_DIR). Raises RuntimeError when neither is readable.
    """
    if explicit_path:
        with open(explicit_path) as fh:
            return fh.read()
    import subprocess
    spec = TARGET_CONFIG_PATH % name
    if not XLA_MIRROR:
        raise RuntimeError("no GPU target config: give --target-config FILE (XLA's %s at "
                           "commit %s) or set XLA_GIT_DIR to a git directory of openxla/xla"
                           % (spec, XLA_COMMIT_FOR_JAXLIB_0_10_2))
    try:
        return subprocess.run(
            ["git", "-C", XLA_MIRROR, "show", "%s:%s" % (XLA_COMMIT_FOR_JAXLIB_0_10_2, spec)],
            check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError("no GPU target config: give --target-config FILE (XLA's %s at "
                           "commit %s); reading it from %s failed: %s"
                           % (spec, XLA_COMMIT_FOR_JAXLIB_0_10_2, XLA_MIRROR, e))


# ---------------------------------------------------------------------------------------
# Child side: everything below imports JAX and must run with child_env().
# ---------------------------------------------------------------------------------------

# The compile-only target is the package's (hlo_offload/_xla_compile.py), which its
# `check(..., xla=...)` uses in the same way.
from hlo_offload._xla_compile import Target  # noqa: E402,F401


def _split_top(text):
    """Splits `text` at commas outside (), {}, [] and quotes."""
    parts, depth, cur, quote = [], 0, [], False
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "({[":
            depth += 1
        elif not quote and ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _matching(text, start):
    """Index of the bracket closing the one at text[start]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack = []
    for i in range(start, len(text)):
        ch = text[i]
        if ch in pairs:
            stack.append(pairs[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return i
    return -1


def entry_memory_spaces(hlo_text):
    """Host-memory flags of the entry layout's parameters and (flattened) results.

    Returns (params, results, note): lists of booleans (True = S(5)) per top-level parameter
    and per top-level result leaf, or None where the layout is absent or nested tuples make
    the StableHLO signature differ; note says why.
    """
    key = "entry_computation_layout={"
    pos = hlo_text.find(key)
    if pos < 0:
        return None, None, "no entry_computation_layout"
    start = pos + len(key) - 1
    end = _matching(hlo_text, start)
    body = hlo_text[start + 1:end]
    if not body.startswith("("):
        return None, None, "unexpected entry_computation_layout"
    pend = _matching(body, 0)
    params = _split_top(body[1:pend])
    result = body[pend + 1:].strip()
    if result.startswith("->"):
        result = result[2:].strip()
    note = ""

    def host(leaf):
        return "S(5)" in leaf

    p_flags = []
    for p in params:
        if p.startswith("("):
            if "S(5)" in p:
                note += "tuple parameter with S(5) leaves: memory kinds not restated; "
            p_flags.append(False)
        else:
            p_flags.append(host(p))
    if result.startswith("("):
        leaves = _split_top(result[1:_matching(result, 0)])
        if any(l.startswith("(") for l in leaves):
            return p_flags, None, note + "nested result tuple: result memory kinds not restated"
        r_flags = [host(l) for l in leaves]
    else:
        r_flags = [host(result)]
    return p_flags, r_flags, note


def hlo_text_to_module(hlo_text, module_name):
    """HLO text -> (ir.Module in a fresh JAX MLIR context, context, notes).

    Restates S(5) entry-layout memory spaces as mhlo.memory_kind attributes on @main and
    renames the module to `module_name` (XLA's dump files carry that name). Raises on
    parse or conversion errors (the exception text is XLA's).
    """
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax
    from jax._src.lib.mlir import ir
    from jaxlib import _hlo
    notes = {}
    hlo_module = _hlo.hlo_module_from_text(hlo_text)
    bytecode = _jax.mlir.hlo_to_stablehlo(hlo_module.as_serialized_hlo_module_proto())
    ctx = mlir.make_ir_context()
    with ctx:
        module = ir.Module.parse(bytecode)
        module.operation.attributes["sym_name"] = ir.StringAttr.get(module_name)
        p_flags, r_flags, note = entry_memory_spaces(hlo_text)
        if note:
            notes["memory_kinds"] = note
        main = None
        for op in module.body.operations:
            if op.operation.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
                main = op
        if main is None:
            raise RuntimeError("converted module has no @main")
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)

        def restate(attr_name, flags, count, what):
            if flags is None:
                return
            if len(flags) != count:
                notes["memory_kinds_" + what] = (
                    "entry layout has %d %s, @main has %d: not restated"
                    % (len(flags), what, count))
                return
            if not any(flags):
                return
            old = main.attributes[attr_name] if attr_name in main.attributes else None
            dicts = []
            for i, is_host in enumerate(flags):
                entries = {}
                if old is not None:
                    d = ir.DictAttr(ir.ArrayAttr(old)[i])
                    for j in range(len(d)):
                        na = d[j]
                        entries[na.name] = na.attr
                if is_host:
                    entries["mhlo.memory_kind"] = ir.StringAttr.get("pinned_host")
                dicts.append(ir.DictAttr.get(entries))
            main.attributes[attr_name] = ir.ArrayAttr.get(dicts)
            notes["pinned_host_" + what] = [i for i, f in enumerate(flags) if f]

        restate("arg_attrs", p_flags, len(ftype.inputs), "params")
        restate("res_attrs", r_flags, len(ftype.results), "results")
    return module, ctx, notes


def split_modules(text):
    """Splits a `--split-input-file` case at `// -----` lines into module texts."""
    chunks = re.split(r"^// -----\s*$", text, flags=re.MULTILINE)
    return [c for c in chunks if "HloModule" in c]


class StderrCapture(object):
    """Redirects file descriptor 2 (where XLA's C++ logging goes) into a file."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.fh = open(self.path, "w")
        os.dup2(self.fh.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.fh.close()
        return False


def host_compute_warnings(log_text):
    """XLA's 'device compute in host memory space' warnings in a log, one per line."""
    return [line.strip() for line in log_text.splitlines() if HOST_COMPUTE_RE.search(line)]
