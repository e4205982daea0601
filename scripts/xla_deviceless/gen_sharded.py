#!/usr/bin/env python3
"""Real XLA's verdict on each sharded program of the test suite, by deviceless compiles.

    python3 scripts/xla_deviceless/gen_sharded.py [--backend tpu|cuda] [--out DIR]
        [--only SUBSTR[,SUBSTR]]

Builds every (program, mesh) case of tests/python/sharded/sharded_programs.py as the tests
do, converts it with the package's JAX front end for the backend's platform (the StableHLO
`check(..., xla=backend)` hands to XLA, with its Python locations) and compiles it through
`hlo_offload._xla.compile_module` with the backend's compile-only client:

  tpu   libtpu, v5e:2x2 for up to 4 partitions, v5e:2x4 for 8 (the default).
  cuda  the CUDA PJRT plugin, 1x1xN GPUs of XLA's H100 target config
        (xla/backends/gpu/target_config/specs/h100_sxm.txtpb at jaxlib's XLA commit: set
        XLA_GIT_DIR to an XLA git directory, or HLO_OFFLOAD_GPU_TARGET_CONFIG_DIR).

Writes `<out>/<program>-<mesh>/result.json`: ok, XLA's status and code, the first line of its
error, the topology and partition count, and for each instruction XLA's HostOffloader
converts into host compute its name, opcode, op_name, source line and that line as
"function:+offset" within sharded_programs.py (sharded_programs.locate). The default --out
is tests/xla-ref/libtpu-0.0.42.1-sharded (tpu) or tests/xla-ref/cuda12-plugin-0.10.2-sharded
(cuda). Needs `hlo-offload install-xla tpu` (or `cuda`). Nothing is executed; one compiling
child process per case.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SUITE = os.path.join(REPO, "tests", "python", "sharded")
OUTS = {"tpu": os.path.join(REPO, "tests", "xla-ref", "libtpu-0.0.42.1-sharded"),
        "cuda": os.path.join(REPO, "tests", "xla-ref", "cuda12-plugin-0.10.2-sharded")}
OUT = OUTS["tpu"]
# The JAX platform each backend's programs are lowered for.
PLATFORM = {"tpu": "tpu", "cuda": "cuda"}


def build_input(prog, mesh, backend="tpu"):
    """The front end's XlaInput of one case (a jitted function or StableHLO text), lowered
    for the backend's platform."""
    from hlo_offload import _jax
    platform = PLATFORM[backend]
    built = prog.lower_input(mesh, platform)
    if isinstance(built, str):
        return _jax.from_stablehlo_text(built, platform=platform)
    f, args = built
    return _jax.from_jax(f, *args, platform=platform)


def xla_result(prog, mesh, backend="tpu"):
    """XLA's result for one case, as stored in result.json."""
    import sharded_programs as sp
    from hlo_offload import _xla
    xi = build_input(prog, mesh, backend)
    n = sp.mesh_devices(mesh)
    v = _xla.compile_module(xi.stablehlo, "stablehlo", backend=backend, num_partitions=n,
                            module_name="sh_%s_%s" % (prog.name, mesh))
    if not v.verdict:
        raise RuntimeError("%s-%s: XLA gave no verdict: %s" % (prog.name, mesh, v.reason))
    row = {"program": prog.name, "mesh": mesh, "num_partitions": n, "backend": backend,
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
    ap.add_argument("--backend", choices=sorted(OUTS), default="tpu")
    ap.add_argument("--out", help="default: tests/xla-ref/<compiler>-<version>-sharded, the "
                    "version read from the installed package (e.g. %s)" %
                    os.path.relpath(OUTS["tpu"], REPO))
    ap.add_argument("--only", help="cases whose <program>-<mesh> contains one of these")
    args = ap.parse_args()
    sys.path.insert(0, SUITE)
    sys.path.insert(0, HERE)
    import xladl
    # By default the folder of the compiler that runs: libtpu-<version>-sharded.
    out = args.out or os.path.join(REPO, "tests", "xla-ref",
                                   xladl.ref_folder(args.backend, "", suffix="sharded"))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "versions.txt"), "w") as fh:
        fh.write("\n".join(xladl.versions_lines(
            args.backend, "by partitions (v5e:2x2 up to 4, v5e:2x4 for 8)"
            if args.backend == "tpu" else "1x1xN of h100_sxm")) + "\n")
    import sharded_programs as sp
    from hlo_offload import _xla
    if not _xla.installed(args.backend):
        raise SystemExit("XLA's %s compile-only client is not installed: hlo-offload "
                         "install-xla %s" % (args.backend, args.backend))
    if args.backend == "cuda":
        try:
            _xla.read_target_config(_xla.DEFAULT_TOPOLOGY["cuda"])
        except _xla.XlaUnavailable as e:  # the message says where to get it
            raise SystemExit(str(e))
    for prog, mesh in sp.cases():
        case = "%s-%s" % (prog.name, mesh)
        if args.only and not any(o in case for o in args.only.split(",")):
            continue
        row = xla_result(prog, mesh, args.backend)
        folder = os.path.join(out, case)
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
