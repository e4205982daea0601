#!/usr/bin/env python3
"""XLA's verdict on each JAX program of the test suite, compiled on a real GPU.

    python3 scripts/xla_gpu/run_programs.py --out DIR [--only SUBSTR,...] [--jobs N]

For a machine with an NVIDIA GPU and JAX's CUDA plugin, and without the package: the
programs of tests/python/jax_programs/offload_programs.py are lowered by the JAX installed
there for `cuda`, as the tests lower them (scripts/xla_deviceless/capture_front_end.py), and
compiled by that JAX's own GPU client for the local GPU (nothing is executed). Each program
runs in its own process, so XLA's log is its own and a crash ends only that program.

Writes, per program, `DIR/jax_programs/<name>/`:
  result.json    the same fields as scripts/xla_deviceless/gen_programs.py writes (ok, stage,
                 XLA's error and code, host-compute warnings, the instructions they name and
                 their metadata from XLA's dump before the HostOffloader), plus `seconds`
  lowered.mlir   the StableHLO that was compiled (with its Python locations)
  stderr.log     XLA's warning and error lines
and `DIR/versions.txt` (jax, jaxlib, the CUDA plugin, the GPU). The regular expressions
and the metadata reader are the package's (python/hlo_offload/_xla.py, loaded by path).
"""

import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROGRAMS_DIR = os.path.join(REPO, "tests", "python", "jax_programs")
sys.path.insert(0, os.path.join(REPO, "scripts", "xla_deviceless"))
sys.path.insert(0, PROGRAMS_DIR)


def _load_xla_helpers():
    """python/hlo_offload/_xla.py as a plain module (it imports only the standard library),
    so that this script needs no built package."""
    spec = importlib.util.spec_from_file_location(
        "hlo_offload_xla", os.path.join(REPO, "python", "hlo_offload", "_xla.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


X = _load_xla_helpers()
from capture_front_end import write_program_result  # noqa: E402
# Lines of XLA's log worth keeping beside the verdict.
KEEP_RE = re.compile(r"\bE1\d{3}\b|Check failed|INVALID_ARGUMENT|UNIMPLEMENTED|INTERNAL")


def child(name, pdir, dump_dir):
    """Builds and compiles program `name` in this process; writes result.json's fields as
    `partial.json` (the parent adds the log's findings)."""
    import offload_programs
    from capture_front_end import CaptureFrontEnd
    row = {"name": name, "platform": "cuda", "stage": "lower", "ok": False}
    start = time.time()
    try:
        prog = next(p for p in offload_programs.PROGRAMS if p.name == name)
        fe = CaptureFrontEnd()
        prog.build(fe, "cuda")
        with open(os.path.join(pdir, "lowered.mlir"), "w") as fh:
            fh.write(fe.text)
        row["stage"] = "compile"
        import jax
        from jax._src import compiler
        from jax._src.interpreters import mlir
        from jax._src.lib import xla_client as xc
        from jax._src.lib.mlir import ir
        device = jax.devices("gpu")[0]
        options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
        with mlir.make_ir_context():
            module = ir.Module.parse(fe.text)
            module.operation.attributes["sym_name"] = ir.StringAttr.get("jp_" + name)
            device.client.compile_and_load(
                module, executable_devices=xc.DeviceList((device,)),
                compile_options=options)
        row["ok"] = True
    except Exception as e:  # XLA's verdict, or a fault: the stage tells which
        row["error"] = re.sub(r"\s*Suspected Python Code Location:.*", "", str(e), flags=re.S)
        row["error_type"] = type(e).__name__
        m = X.ERROR_CODE_RE.search(row["error"])
        if m:
            row["code"], row["code_name"] = m.group(1), m.group(2)
        if row["stage"] != "compile":
            row["traceback_tail"] = traceback.format_exc().splitlines()[-3:]
    row["seconds"] = round(time.time() - start, 2)
    with open(os.path.join(pdir, "partial.json"), "w") as fh:
        json.dump(row, fh)


def run_one(name, out_root, timeout):
    """Runs the child for `name`; returns its result row (written as result.json)."""
    pdir = os.path.join(out_root, "jax_programs", name)
    os.makedirs(pdir, exist_ok=True)
    dump_dir = tempfile.mkdtemp(prefix="xla-gpu-dump-")
    env = dict(os.environ)
    env.update({
        "JAX_PLATFORMS": os.environ.get("XLA_GPU_JAX_PLATFORMS", "cuda"),
        # Several compiles share one GPU: no process takes its memory up front.
        "XLA_PYTHON_CLIENT_PREALLOCATE": "false",
        "TF_CPP_MIN_LOG_LEVEL": "0",
        "XLA_FLAGS": (env.get("XLA_FLAGS", "") + " --xla_dump_to=%s "
                      "--xla_dump_hlo_pass_re=host-offloader" % dump_dir).strip(),
    })
    log_path = os.path.join(pdir, "stderr.full.log")
    try:
        with open(log_path, "w") as log:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", name, "--out", pdir,
                 "--dump", dump_dir], env=env, stdout=log, stderr=subprocess.STDOUT,
                timeout=timeout)
        status = proc.returncode
    except subprocess.TimeoutExpired:
        status = "timeout"
    try:
        with open(os.path.join(pdir, "partial.json")) as fh:
            row = json.load(fh)
        os.remove(os.path.join(pdir, "partial.json"))
    except OSError:
        row = {"name": name, "platform": "cuda", "stage": "crash", "ok": False,
               "error": "the compiling process ended without a result (%s)" % status}
    with open(log_path, errors="replace") as fh:
        log = fh.read()
    os.remove(log_path)
    warnings = X.host_compute_warnings(log)
    row["host_compute_warning_count"] = len(warnings)
    row["host_compute_warnings"] = [w[:400] for w in warnings[:8]]
    names = [m.group(1) for m in map(X.HOST_COMPUTE_NAME_RE.search, warnings) if m]
    row["host_compute_instructions"] = sorted(set(names), key=names.index)
    if row["host_compute_instructions"]:
        found = sorted(glob.glob(os.path.join(
            dump_dir, "module_*.jp_%s.*before_host-offloader.txt" % name)))
        dump = open(found[-1], errors="replace").read() if found else None
        row["host_compute_ops"] = [
            (X.instruction_metadata(dump, n) if dump else None) or {"name": n}
            for n in row["host_compute_instructions"]]
    shutil.rmtree(dump_dir, ignore_errors=True)
    keep = [X.LOG_PREFIX_RE.sub("", l)[:600] for l in log.splitlines()
            if X.HOST_COMPUTE_RE.search(l) or KEEP_RE.search(l)]
    write_program_result(pdir, row, keep)
    return row


def versions(out_root):
    """Writes versions.txt: the JAX packages and the GPU."""
    from importlib import metadata
    lines = []
    for dist in sorted(d.metadata["Name"] for d in metadata.distributions()):
        if dist.startswith("jax"):
            lines.append("%s: %s" % (dist, metadata.version(dist)))
    try:
        smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
        lines.append("gpu: " + smi.stdout.strip())
    except (OSError, subprocess.SubprocessError) as e:
        lines.append("gpu: nvidia-smi failed (%s)" % e)
    with open(os.path.join(out_root, "versions.txt"), "w") as fh:
        fh.write("\n".join(sorted(set(lines))) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", help="programs whose name contains one of these (comma list)")
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--timeout", type=float, default=150, help="seconds per program")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--dump", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.out, args.dump)
        return 0
    import offload_programs
    out_root = os.path.abspath(args.out)
    os.makedirs(out_root, exist_ok=True)
    versions(out_root)
    names = [p.name for p in offload_programs.PROGRAMS
             if not args.only or any(o in p.name for o in args.only.split(","))]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for row in pool.map(lambda n: run_one(n, out_root, args.timeout), names):
            verdict = "compiled" if row["ok"] else "%s: %s" % (
                row["stage"], row.get("code") or ((row.get("error") or "").splitlines() or [""])[0][:100]
                or row.get("error_type", ""))
            print("%-45s %s%s" % (row["name"], verdict,
                                  " host-compute-warning x%d" % row["host_compute_warning_count"]
                                  if row["host_compute_warning_count"] else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
