#!/usr/bin/env python3
"""Stores what a GPU machine's XLA said, as the tests read it under tests/xla-ref/.

    python3 scripts/xla_gpu/store_run.py --programs DIR --reference DIR --out tests/xla-ref/NAME

--programs: the folder run_programs.py wrote (versions.txt, jax_programs/<name>/); copied as
    it is into <out>/jax_programs/ (result.json, lowered.mlir, stderr.log).
--reference: an unpacked xla-reference run (the reference kit's run.sh on the GPU machine:
    versions.txt, summary.txt, programs/<name>/ with result.json, stderr.log and xla_dump/).
    Each program becomes <out>/programs/jax__<name>/ in the layout of the deviceless folders
    (scripts/xla_deviceless/gen_ref.py, tests/python/xla_ref/test_xla_ref.py): result.json
    with name "jax/<name>", ok, stage, error, code and XLA's host-compute warnings from the
    log; xla_dump/ with the module as XLA got it (before_optimizations) and the
    HostOffloader's input and output; and one summary.txt line per program.
Either may be left out. <out>/versions.txt is the programs run's, else the reference run's.
"""

import argparse
import glob
import importlib.util
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def _xla_helpers():
    spec = importlib.util.spec_from_file_location(
        "hlo_offload_xla", os.path.join(REPO, "python", "hlo_offload", "_xla.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


X = _xla_helpers()
# The dumps a test reads: the module XLA got and the HostOffloader's input and output.
KEEP_DUMPS = ("*before_optimizations.txt", "*before_host-offloader.txt",
              "*after_host-offloader*.txt")


def store_reference(src, out):
    """Converts an xla-reference run's programs; returns the summary lines."""
    lines = []
    for pdir in sorted(glob.glob(os.path.join(src, "programs", "*"))):
        with open(os.path.join(pdir, "result.json")) as fh:
            kit = json.load(fh)
        name = kit["name"]
        log_path = os.path.join(pdir, "stderr.log")
        log = open(log_path, errors="replace").read() if os.path.exists(log_path) else ""
        warnings = X.host_compute_warnings(log)
        row = {"name": "jax/" + name, "description": kit.get("description"),
               "ok": bool(kit.get("ok")), "stage": kit.get("stage"),
               "device": kit.get("device"), "jax_version": kit.get("jax_version"),
               "host_compute_warning_count": len(warnings),
               "host_compute_warnings": [w[:400] for w in warnings[:8]]}
        if not row["ok"]:
            error = kit.get("error") or kit.get("error_first_line") or ""
            row["error"] = error
            m = X.ERROR_CODE_RE.search(error)
            if m:
                row["code"], row["code_name"] = m.group(1), m.group(2)
        dest = os.path.join(out, "programs", "jax__" + name)
        os.makedirs(os.path.join(dest, "xla_dump"), exist_ok=True)
        kept = []
        for pattern in KEEP_DUMPS:
            for f in sorted(glob.glob(os.path.join(pdir, "xla_dump", pattern))):
                shutil.copy(f, os.path.join(dest, "xla_dump"))
                kept.append(os.path.basename(f))
        row["dump_files_kept"] = kept
        with open(os.path.join(dest, "result.json"), "w") as fh:
            json.dump(row, fh, indent=1, sort_keys=True)
            fh.write("\n")
        if warnings:
            with open(os.path.join(dest, "stderr.log"), "w") as fh:
                fh.write("\n".join(warnings) + "\n")
        verdict = "compiled ok" if row["ok"] else "error[%s]: %s" % (
            row["stage"], row.get("code") or (row.get("error") or "").splitlines()[0][:80])
        lines.append("%-60s %s%s" % (row["name"], verdict,
                                     "  host-compute-warning x%d" % len(warnings)
                                     if warnings else ""))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs")
    ap.add_argument("--reference")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if not args.programs and not args.reference:
        ap.error("nothing to store: give --programs, --reference or both")
    os.makedirs(args.out, exist_ok=True)
    versions = None
    if args.reference:
        lines = store_reference(args.reference, args.out)
        with open(os.path.join(args.out, "summary.txt"), "w") as fh:
            fh.write("\n".join(lines) + "\n")
        versions = os.path.join(args.reference, "versions.txt")
    if args.programs:
        dest = os.path.join(args.out, "jax_programs")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(os.path.join(args.programs, "jax_programs"), dest)
        versions = os.path.join(args.programs, "versions.txt")
    shutil.copy(versions, os.path.join(args.out, "versions.txt"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
