#!/usr/bin/env python3
"""Does real XLA give compile-time host-offloading verdicts here, with no GPU/TPU?

    python3 scripts/xla_deviceless/probe.py [--backends tpu,cuda] [--install]
        [--topology tpu=v5e:2x2,cuda=h100_sxm] [--target-config FILE] [--json OUT]

For each backend it prints one line per trial: `ok`, or `FAILED` with XLA's/JAX's error text
verbatim. Trials: create the compile-only topology; compile (b) a JAX function that
device_puts a value to pinned_host and returns it with out_shardings in pinned_host; (a) the
same with out_shardings in device; the StableHLO of (b) with its result memory kind rewritten
to "device" (single output, and a two-output tuple); an HLO text module from the shared
corpus; and whether XLA_FLAGS=--xla_dump_to wrote the before/after host-offloader dumps.
--install pip-installs a missing backend into its package folder (xladl.PKG_ROOT) first.
Exit status 0 when at least one backend works, else 1.
Each backend runs in its own child process (the plugin is loaded once per process).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xladl  # noqa: E402

CORPUS = os.environ.get("HLOFF_CORPUS", os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "..", "shared", "corpus"))
E1200_CASE = "cases/jax-like/01-jit_step-device-put-aux-output-e1200.hlo"


def first_lines(text, n=4):
    """The first n non-empty lines of text (an exception's message, verbatim)."""
    lines = [l for l in str(text).splitlines() if l.strip()]
    return "\n".join(lines[:n])


def child(backend, topology, target_config_path, dump_dir):
    """Runs the trials inside a process set up by xladl.child_env; prints JSON lines."""
    results = []

    def record(name, ok, detail, **extra):
        row = dict(trial=name, ok=ok, detail=detail, **extra)
        results.append(row)
        print(json.dumps(row), flush=True)

    try:
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        record("import", True, "jax %s, jaxlib %s" % (jax.__version__,
                                                      __import__("jaxlib").__version__))
    except Exception as e:
        record("import", False, "%s: %s" % (type(e).__name__, e))
        return
    try:
        tc = xladl.read_target_config(topology, target_config_path) if backend == "cuda" \
            else None
        target = xladl.Target(backend, topology, tc)
        record("topology", True, "%s: %s; memory kinds %s" % (
            topology, [str(d) for d in target.devices][:4], target.memory_kinds()))
    except Exception as e:
        record("topology", False, "%s: %s" % (type(e).__name__, e))
        return

    # JAX programs are lowered against the target's own device when it lists memory kinds
    # (TPU); the compile-only CUDA device lists none, and JAX then drops every memory kind
    # from the lowering, so for it they are lowered against this machine's CPU device
    # (which has pinned_host) and the StableHLO is compiled for the CUDA target.
    # The CPU device has pinned_host but JAX elides some device_puts on it, so a TPU
    # topology's device is preferred for lowering when libtpu is installed too.
    lower_dev = target.device
    if not isinstance(target.memory_kinds(), list) or "pinned_host" not in target.memory_kinds():
        lower_dev = None
        if xladl.installed("tpu"):
            try:
                from jax.experimental import topologies
                lower_dev = topologies.get_topology_desc(
                    platform="tpu", topology_name=xladl.DEFAULT_TOPOLOGY["tpu"]).devices[0]
            except Exception as e:
                record("lowering_device_tpu", False, "%s: %s" % (type(e).__name__, e))
        if lower_dev is None:
            lower_dev = jax.devices("cpu")[0]
        record("lowering_device", True, "target lists no pinned_host memory; JAX programs "
               "lowered on %s, compiled for %s" % (lower_dev, backend))
    mesh = Mesh(np.array([lower_dev]), ("x",))
    s_dev = NamedSharding(mesh, PartitionSpec(), memory_kind="device")
    s_host = s_dev.with_memory_kind("pinned_host")
    arg = jax.ShapeDtypeStruct((16, 256), jnp.float32, sharding=s_dev)

    def f(x):
        return jax.device_put(x * 2.0, s_host)

    def f2(x):
        return jax.device_put(x * 2.0, s_host), jax.device_put(x * 3.0, s_host)

    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    def compile_text(text):
        with mlir.make_ir_context():
            exe = target.compile_mlir(ir.Module.parse(text))
            return exe.hlo_modules()[0].to_string()

    def summarize(opt):
        layout = opt.split("entry_computation_layout={", 1)[-1].split("}, ", 1)[0]
        roots = [l.strip() for l in opt.splitlines() if l.strip().startswith("ROOT")]
        return "compiled; entry layout %s; S(5) in optimized module: %s; root: %s" % (
            layout, "S(5)" in opt, roots[-1][:120] if roots else "?")

    for name, fn, out, flip in (
            ("jax_b_out_pinned_host", f, s_host, False),
            ("jax_a_out_device", f, s_dev, False),
            ("raw_single_result_flipped_to_device", f, None, True),
            ("raw_tuple_result0_flipped_to_device", f2, None, True)):
        try:
            kw = {"out_shardings": out} if out is not None else {}
            text = jax.jit(fn, in_shardings=(s_dev,), **kw).trace(arg).lower().as_text()
            placed = "annotate_device_placement" in text
            if flip:
                needle = 'mhlo.memory_kind = "pinned_host"'
                if needle not in text:
                    record(name, False, "lowering has no %s result attribute" % needle)
                    continue
                text = text.replace(needle, 'mhlo.memory_kind = "device"', 1)
            record(name, True, summarize(compile_text(text)) +
                   "; annotate_device_placement in lowering: %s" % placed, verdict="compiled")
        except Exception as e:
            verdict = "xla-error" if "INVALID_ARGUMENT" in str(e) else None
            record(name, verdict is not None, "%s: %s" % (type(e).__name__, first_lines(e)),
                   verdict=verdict)

    path = os.path.join(CORPUS, E1200_CASE)
    # The compile-only client takes StableHLO (an ir.Module) only: HLO handed over directly
    # (as an XlaComputation or a serialized HloModuleProto) is refused.
    try:
        from jaxlib import _hlo
        from jax._src.lib import xla_client as xc
        with open(path) as fh:
            proto = _hlo.hlo_module_from_text(fh.read()).as_serialized_hlo_module_proto()
        target.client.compile(_hlo.XlaComputation(proto),
                              executable_devices=xc.DeviceList((target.device,)),
                              compile_options=target.options)
        record("hlo_module_direct", True, "the client compiled an XlaComputation")
    except Exception as e:
        record("hlo_module_direct", False, "%s: %s" % (type(e).__name__, first_lines(e, 3)))
    try:
        with open(path) as fh:
            text = fh.read()
        module, ctx, notes = xladl.hlo_text_to_module(text, "probe_hlo_text")
        with ctx:
            target.compile_mlir(module)
        record("hlo_text_" + os.path.basename(path), True, "compiled; notes %s" % notes,
               verdict="compiled")
    except Exception as e:
        verdict = "xla-error" if "INVALID_ARGUMENT" in str(e) else None
        record("hlo_text_" + os.path.basename(path), verdict is not None,
               "%s: %s" % (type(e).__name__, first_lines(e)), verdict=verdict)

    names = sorted(os.listdir(dump_dir)) if os.path.isdir(dump_dir) else []
    before = [n for n in names if n.endswith("before_host-offloader.txt")]
    after = [n for n in names if "after_host-offloader" in n]
    record("xla_dump_to", bool(before and after),
           "%d files; %d before_host-offloader, %d after_host-offloader; e.g. %s" % (
               len(names), len(before), len(after), (after or before or names or ["-"])[0]))


def run_backend(backend, topology, args):
    """Runs the child for one backend; returns its trial rows."""
    if not xladl.installed(backend):
        if args.install:
            cmd = xladl.install_command(backend)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                return [dict(trial="install", ok=False,
                             detail="%s: %s" % (" ".join(cmd), first_lines(proc.stderr, 8)))]
        else:
            return [dict(trial="install", ok=False, detail="not installed in %s; run with "
                         "--install (%s)" % (xladl.pkg_dir(backend),
                                             " ".join(xladl.install_command(backend))))]
    dump_dir = tempfile.mkdtemp(prefix="xla-deviceless-%s-" % backend)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", backend,
           "--topology", "%s=%s" % (backend, topology)]
    if args.target_config:
        cmd += ["--target-config", args.target_config]
    cmd += ["--dump-dir", dump_dir]
    start = time.time()
    try:
        proc = subprocess.run(cmd, env=xladl.child_env(backend, dump_dir), capture_output=True,
                              text=True, timeout=args.timeout)
        out, err, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        out, err, rc = e.stdout or "", e.stderr or "", "timeout"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    rows = []
    for line in out.splitlines():
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    if rc != 0:
        rows.append(dict(trial="child", ok=False, detail="exit %s; stderr tail: %s" % (
            rc, "\n".join(err.splitlines()[-6:]))))
    hc = xladl.host_compute_warnings(err)
    if hc:
        rows.append(dict(trial="host_compute_warnings", ok=True, detail=hc[0]))
    rows.append(dict(trial="wall_seconds", ok=True, detail="%.1f" % (time.time() - start)))
    return rows


def main():
    """Runs each backend's child and prints its trials; exit 0 when one backend works."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="tpu,cuda")
    ap.add_argument("--topology", default="",
                    help="backend=name,... (tpu: v5e:2x2, v4:2x2x1, v6e:2x2; cuda: a spec "
                         "name of xla/backends/gpu/target_config/specs, e.g. h100_sxm)")
    ap.add_argument("--target-config", help="GpuTargetConfigProto text file for cuda")
    ap.add_argument("--install", action="store_true")
    ap.add_argument("--json", help="also write all rows to this file")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--dump-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    topo = dict(xladl.DEFAULT_TOPOLOGY)
    for item in filter(None, args.topology.split(",")):
        k, _, v = item.partition("=")
        topo[k] = v
    if args.child:
        child(args.child, topo[args.child], args.target_config, args.dump_dir)
        return 0
    report, working = {}, 0
    for backend in filter(None, args.backends.split(",")):
        print("== %s (topology %s, packages %s)" % (backend, topo[backend],
                                                    " ".join(xladl.PACKAGES[backend])))
        rows = run_backend(backend, topo[backend], args)
        report[backend] = rows
        for row in rows:
            detail = row["detail"].replace("\n", "\n      ")
            status = {"compiled": "COMPILED", "xla-error": "XLA ERROR"}.get(
                row.get("verdict"), "ok" if row["ok"] else "FAILED")
            print("  %-40s %s  %s" % (row["trial"], status, detail))
        key = [r for r in rows if r["trial"] in ("topology", "jax_b_out_pinned_host",
                                                 "xla_dump_to")]
        verdict = len(key) == 3 and all(r["ok"] for r in key)
        working += verdict
        print("  => %s: %s" % (backend, "deviceless compile WORKS" if verdict else "does not work"))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    return 0 if working else 1


if __name__ == "__main__":
    sys.exit(main())
