#!/usr/bin/env python3
"""Real XLA's verdict on each sharded program of the test suite, by deviceless compiles.

    python3 scripts/xla_deviceless/gen_sharded.py [--out DIR] [--only SUBSTR[,SUBSTR]]

Builds every (program, mesh) case of tests/python/sharded/sharded_programs.py as the tests
do, converts it with the package's JAX front end (the StableHLO `check(..., xla="tpu")`
hands to XLA, with its Python locations) and compiles it with libtpu's compile-only client
through `hlo_offload._xla.compile_module`: v5e:2x2 for up to 4 partitions, v5e:2x4 for 8.
Writes `<out>/<program>-<mesh>/result.json`: ok, XLA's status and code, the first line of its
error, the topology and partition count, and for each instruction XLA's HostOffloader
converts into host compute its name, opcode, op_name, source line and that line as
"function:+offset" within sharded_programs.py (sharded_programs.locate). The default --out
is tests/xla-ref/libtpu-0.0.42.1-sharded. Needs `hlo-offload install-xla tpu`. Nothing is
executed; one compiling child process per case.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SUITE = os.path.join(REPO, "tests", "python", "sharded")
OUT = os.path.join(REPO, "tests", "xla-ref", "libtpu-0.0.42.1-sharded")


def build_input(prog, mesh):
    """The front end's XlaInput of one case (a jitted function or StableHLO text)."""
    from hlo_offload import _jax
    built = prog.build(mesh)
    if isinstance(built, str):
        return _jax.from_stablehlo_text(built, platform="tpu")
    f, args = built
    return _jax.from_jax(f, *args, platform="tpu")


def xla_result(prog, mesh):
    """XLA's result for one case, as stored in result.json."""
    import sharded_programs as sp
    from hlo_offload import _xla
    xi = build_input(prog, mesh)
    n = sp.mesh_devices(mesh)
    v = _xla.compile_module(xi.stablehlo, "stablehlo", backend="tpu", num_partitions=n,
                            module_name="sh_%s_%s" % (prog.name, mesh))
    if not v.verdict:
        raise RuntimeError("%s-%s: XLA gave no verdict: %s" % (prog.name, mesh, v.reason))
    row = {"program": prog.name, "mesh": mesh, "num_partitions": n, "backend": "tpu",
           "topology": v.topology, "plugin": v.plugin, "ok": v.ok, "status": v.status,
           "code": v.code,
           "error": (v.error or "").strip().splitlines()[0] if v.error else None}
    ops = []
    for h in v.host_compute:
        line = h.get("source_line")
        ops.append({"name": h.get("name"), "opcode": h.get("opcode"),
                    "op_name": h.get("op_name"), "source_file": h.get("source_file"),
                    "source_line": line,
                    "where": sp.locate(line) if line and h.get("source_file") ==
                    "sharded_programs.py" else None})
    row["host_compute"] = ops
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--only", help="cases whose <program>-<mesh> contains one of these")
    args = ap.parse_args()
    sys.path.insert(0, SUITE)
    import sharded_programs as sp
    from hlo_offload import _xla
    if not _xla.installed("tpu"):
        raise SystemExit("libtpu's compile-only client is not installed: hlo-offload "
                         "install-xla tpu")
    for prog, mesh in sp.cases():
        case = "%s-%s" % (prog.name, mesh)
        if args.only and not any(o in case for o in args.only.split(",")):
            continue
        row = xla_result(prog, mesh)
        folder = os.path.join(args.out, case)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "result.json"), "w") as fh:
            json.dump(row, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print("%-55s %-8s %s %s" % (case, row["topology"], "compiled" if row["ok"] else
                                    row["code"] or row["error"],
                                    " ".join(sorted(h["opcode"] or "?"
                                                    for h in row["host_compute"]))),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
