"""The child side of running XLA's own SPMD partitioner (`hlo_offload._partition`): run as
a script by the package, never imported by it (it starts JAX with N host devices, which
the caller's process may have started with one).

    python _spmd_partition.py REQUEST.json RESULT.json

REQUEST: {"module_file": path of HLO text whose placement annotations are already the
internal MoveToHost / MoveToDevice custom-calls, "num_partitions": N, "dump_dir": path,
"module_name": str}.
RESULT: {"ok": bool, "module": the partitioned HLO text, "error": text, "seconds": float,
"shardy": bool, "notes": [text]}.

jaxlib's CPU compiler runs the partitioner XLA's TPU and GPU compilers run (the
`spmd-partitioner` pipeline: call inlining, the Shardy import `shardy-xla`, then
`spmd-partitioning`). Its `pre-spmd-partitioner` pipeline first strips memory-placement
annotations, MoveToHost and MoveToDevice included (the CPU has no host offloading): that
pass is disabled here, as TPU and GPU convert the annotations before partitioning and keep
them. The module after `spmd-partitioning` is written by XLA's pass dump; the compile then
fails on the MoveToDevice custom-call (the CPU has no implementation for it), which is
expected and ends the work early.

The module reaches the compiler as XLA's own HLO module converted to StableHLO
(`hlo_text_to_module`), not as JAX's lowering, and two things of that conversion are undone
first (`_xla_compile.prepare_sharding`, which the deviceless compile of HLO text shares):
- A module that Shardy lowered (its `xla.sdy.meshes` frontend attribute; JAX's default
  since 0.7) is partitioned by Shardy, as XLA does for it: the conversion adds GSPMD
  `mhlo.sharding` attributes beside the `xla.sdy.sharding` frontend attributes (on the
  parameters and results of the functions, ...), and PJRT's MLIR-to-HLO step then
  switches Shardy off (xla/pjrt/mlir_to_hlo.cc, MlirToXlaComputation, after
  `xla::sdy::hasGspmdAttrsOrOps`), which leaves the `xla.sdy.*` custom-calls to GSPMD's
  partitioner, whose RET_CHECK refuses them (spmd_partitioner.cc). Shardy's round-trip
  import reads the `xla.sdy.*` frontend attributes and drops `mhlo.sharding`
  (xla/service/spmd/shardy/sdy_round_trip), so the attributes that have no Shardy
  counterpart are removed here.
- JAX's `custom_partitioning` (`CustomSPMDPartitioning` custom-calls) partitions by calling
  back into the Python process that lowered the module, by a key this process does not
  have (the callback fails and XLA aborts). Each becomes an opaque custom-call that the
  partitioner treats as any unknown one: its operands and result replicated.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from typing import List, TypedDict


class Request(TypedDict):
    """REQUEST (the module's doc), as `hlo_offload._partition` writes it."""

    module_file: str
    num_partitions: int
    dump_dir: str
    module_name: str


class _ResultFields(TypedDict):
    ok: bool
    module: str
    error: str
    seconds: float


class Result(_ResultFields, total=False):
    """RESULT (the module's doc): `shardy` and `notes` once the module was converted."""

    shardy: bool
    notes: List[str]


def main(request_file: str, result_file: str) -> None:
    """Reads REQUEST, partitions its module, writes RESULT (whatever XLA said)."""
    with open(request_file) as fh:
        req: Request = json.load(fh)
    n = int(req["num_partitions"])
    dump = req["dump_dir"]
    os.environ["XLA_FLAGS"] = " ".join([
        "--xla_force_host_platform_device_count=%d" % n,
        "--xla_dump_to=%s" % dump,
        "--xla_dump_hlo_pass_re=spmd-partitioning",
        "--xla_disable_hlo_passes=strip-memory-placement-annotations",
    ])
    os.environ["JAX_PLATFORMS"] = "cpu"
    result: Result = {"ok": False, "module": "", "error": "", "seconds": 0.0}
    start = time.perf_counter()
    try:
        import numpy as np
        import jax
        from jax._src import compiler
        from jax._src.lib import _jax
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        # A sibling script, on sys.path above; mypy checks this file as a module of the
        # package, where no top-level _xla_compile is found (it types the calls as Any).
        import _xla_compile  # type: ignore[import-not-found]
        with open(req["module_file"]) as fh:
            text = fh.read()
        module, ctx, _ = _xla_compile.hlo_text_to_module(text, req.get("module_name", "module"))
        shardy: bool
        notes: List[str]
        with ctx:
            shardy, notes = _xla_compile.prepare_sharding(module)
        result["shardy"] = shardy
        result["notes"] = notes
        devices = jax.devices("cpu")[:n]
        options = compiler.get_compile_options(
            num_replicas=1, num_partitions=n,
            device_assignment=np.array([list(devices)], dtype=object))
        options.executable_build_options.use_shardy_partitioner = shardy
        with ctx:
            try:
                compiler.backend_compile_and_load(
                    devices[0].client, module, _jax.DeviceList(tuple(devices)), options, [])
                compile_error = ""
            except Exception as e:  # expected: no CPU implementation of MoveToDevice
                compile_error = str(e)
        found = sorted(glob.glob(os.path.join(dump, "*after_spmd-partitioning*.txt")))
        if found:
            with open(found[-1]) as fh:
                result["module"] = fh.read()
            result["ok"] = True
        else:
            result["error"] = compile_error or "XLA wrote no module after spmd-partitioning"
    except Exception as e:
        result["error"] = "%s: %s" % (type(e).__name__, e)
    result["seconds"] = time.perf_counter() - start
    with open(result_file, "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
