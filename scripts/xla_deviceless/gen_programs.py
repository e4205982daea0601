#!/usr/bin/env python3
"""Real XLA's verdict on each JAX program of the test suite, by deviceless compiles.

    python3 scripts/xla_deviceless/gen_programs.py --backend tpu|cuda [--out DIR]
        [--only SUBSTR] [--target-config FILE] [--dump DIR]

Builds every program of tests/python/jax_programs/offload_programs.py exactly as the test
suite does (the same `lowering_platforms=(platform,)` lowering, the same StableHLO edits),
but hands the StableHLO to the backend's compile-only client (xladl.Target) instead of the
tool, and writes `<out>/jax_programs/<name>/result.json`: ok, XLA's error text and code
(E1200 ...), XLA's host-compute warnings from the log and the instructions they convert into
host compute, and `stderr.log` (XLA's warning and error lines). For each instruction a
host-compute warning names, `host_compute_ops` gives its opcode and metadata (`op_name`,
`source_line`) as XLA's own dump before the HostOffloader shows them (XLA dumps into a
temporary folder unless --dump names one). The default --out is the backend's folder under
tests/xla-ref/ (the one gen_ref.py writes; its `programs/` folder is gen_ref.py's and is left
alone).
The platform each program is lowered for is the backend's ("tpu" or "cuda"). The StableHLO
keeps its Python locations (`as_text(debug_info=True)`), as the module JAX hands to PJRT does,
so XLA's metadata carries JAX's op_name and source line. Nothing is executed. All programs of one backend compile in one child process.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xladl  # noqa: E402
from capture_front_end import CaptureFrontEnd, write_program_result  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
PROGRAMS_DIR = os.path.join(REPO, "tests", "python", "jax_programs")
LOG_PREFIX_RE = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ ")
# XLA's error code, host-compute warning and dump lines, read as the package's
# `check(..., xla=...)` reads them.
from hlo_offload._xla import (ERROR_CODE_RE, HOST_COMPUTE_NAME_RE,  # noqa: E402
                              instruction_metadata)


def before_host_offloader_dump(dump_dir, module_name):
    """Text of XLA's dump of module `module_name` right before the HostOffloader, or None."""
    found = sorted(glob.glob(os.path.join(
        dump_dir, "module_*.%s.*before_host-offloader.txt" % module_name)))
    if not found:
        return None
    with open(found[-1], errors="replace") as fh:
        return fh.read()


def child(args, out_root):
    """Compiles each program for args.backend in this process, writing its result.json."""
    sys.path.insert(0, PROGRAMS_DIR)
    import offload_programs
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    tc = xladl.read_target_config(args.topology, args.target_config) \
        if args.backend == "cuda" else None
    target = xladl.Target(args.backend, args.topology, tc)
    platform = {"tpu": "tpu", "cuda": "cuda"}[args.backend]
    for prog in offload_programs.PROGRAMS:
        if args.only and not any(o in prog.name for o in args.only.split(",")):
            continue
        pdir = os.path.join(out_root, "jax_programs", prog.name)
        os.makedirs(pdir, exist_ok=True)
        row = {"name": prog.name, "platform": platform, "stage": "lower", "ok": False}
        log_path = os.path.join(pdir, "stderr.full.log")
        with xladl.StderrCapture(log_path):
            try:
                fe = CaptureFrontEnd()
                prog.build(fe, platform)
                assert fe.platform == platform, fe.platform
                row["stage"] = "compile"
                with mlir.make_ir_context():
                    module = ir.Module.parse(fe.text)
                    module.operation.attributes["sym_name"] = ir.StringAttr.get(
                        "jp_" + prog.name)
                    target.compile_mlir(module)
                row["ok"] = True
            except Exception as e:  # XLA's verdict or a fault; the stage tells which
                # XLA's status without the "Suspected Python Code Location" JAX appends
                # (lines of this checkout's files, which move with every edit).
                row["error"] = re.sub(r"\s*Suspected Python Code Location:.*", "", str(e),
                                      flags=re.S)
                row["error_type"] = type(e).__name__
                m = ERROR_CODE_RE.search(row["error"])
                if m:
                    row["code"], row["code_name"] = m.group(1), m.group(2)
                if row["stage"] != "compile":
                    row["traceback_tail"] = traceback.format_exc().splitlines()[-3:]
        with open(log_path, errors="replace") as fh:
            log = fh.read()
        os.remove(log_path)
        warnings = [LOG_PREFIX_RE.sub("", l) for l in xladl.host_compute_warnings(log)]
        row["host_compute_warning_count"] = len(warnings)
        row["host_compute_warnings"] = [l[:400] for l in warnings[:8]]
        # The instructions XLA converts into host compute, each named once, in log order.
        names = [m.group(1) for m in map(HOST_COMPUTE_NAME_RE.search, warnings) if m]
        row["host_compute_instructions"] = sorted(set(names), key=names.index)
        if args.dump and row["host_compute_instructions"]:
            dump = before_host_offloader_dump(args.dump, "jp_" + prog.name)
            row["host_compute_ops"] = [
                (instruction_metadata(dump, n) if dump else None) or {"name": n}
                for n in row["host_compute_instructions"]]
        keep = [LOG_PREFIX_RE.sub("", l)[:600] for l in log.splitlines()
                if xladl.HOST_COMPUTE_RE.search(l) or re.search(
                    r"\bE1\d{3}\b|Check failed|INVALID_ARGUMENT|UNIMPLEMENTED", l)]
        write_program_result(pdir, row, keep)
        print("%-45s %s %s" % (prog.name, "compiled" if row["ok"] else
                               row.get("code") or row["error"].splitlines()[0][:100],
                               "host-compute-warning x%d" % len(warnings) if warnings else ""))


def main():
    """Runs the child for one backend with xladl.child_env."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["tpu", "cuda"], required=True)
    ap.add_argument("--topology")
    ap.add_argument("--target-config")
    ap.add_argument("--out")
    ap.add_argument("--only")
    ap.add_argument("--dump", help="also write XLA's pass dumps around the offloading "
                    "passes to this folder (not kept in the reference data)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.topology = args.topology or xladl.DEFAULT_TOPOLOGY[args.backend]
    if args.child:
        child(args, os.path.abspath(args.out))
        return 0
    # By default the folder of the compiler that runs (tests/xla-ref/libtpu-<version>-...).
    out_root = os.path.abspath(args.out or os.path.join(
        REPO, "tests", "xla-ref", xladl.ref_folder(args.backend, args.topology)))
    if not xladl.installed(args.backend):
        raise SystemExit("%s is not installed in %s: %s" % (
            args.backend, xladl.pkg_dir(args.backend),
            " ".join(xladl.install_command(args.backend))))
    dump = os.path.abspath(args.dump) if args.dump else tempfile.mkdtemp(
        prefix="xla-programs-dump-")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--backend", args.backend,
           "--topology", args.topology, "--out", out_root, "--dump", dump]
    for flag, value in (("--target-config", args.target_config), ("--only", args.only)):
        if value:
            cmd += [flag, value]
    try:
        rc = subprocess.run(cmd, env=xladl.child_env(args.backend, dump)).returncode
        with open(os.path.join(out_root, "jax_programs", "versions.txt"), "w") as fh:
            fh.write("\n".join(xladl.versions_lines(args.backend, args.topology)) + "\n")
        return rc
    finally:
        if not args.dump:
            shutil.rmtree(dump, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
