"""The child side of running XLA's own SPMD partitioner (`hlo_offload._partition`): run as
a script by the package, never imported by it (it starts JAX with N host devices, which
the caller's process may have started with one).

    python _spmd_partition.py REQUEST.json RESULT.json

REQUEST: {"module_file": path of HLO text whose placement annotations are already the
internal MoveToHost / MoveToDevice custom-calls, "num_partitions": N, "dump_dir": path}.
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
first (`prepare`):
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

import glob
import json
import os
import sys
import time


def main(request_file, result_file):
    with open(request_file) as fh:
        req = json.load(fh)
    n = int(req["num_partitions"])
    dump = req["dump_dir"]
    os.environ["XLA_FLAGS"] = " ".join([
        "--xla_force_host_platform_device_count=%d" % n,
        "--xla_dump_to=%s" % dump,
        "--xla_dump_hlo_pass_re=spmd-partitioning",
        "--xla_disable_hlo_passes=strip-memory-placement-annotations",
    ])
    os.environ["JAX_PLATFORMS"] = "cpu"
    result = {"ok": False, "module": "", "error": "", "seconds": 0.0}
    start = time.perf_counter()
    try:
        import numpy as np
        import jax
        from jax._src import compiler
        from jax._src.lib import _jax
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import _xla_compile  # type: ignore[import-not-found]  # a sibling script, on sys.path above
        with open(req["module_file"]) as fh:
            text = fh.read()
        module, ctx, _ = _xla_compile.hlo_text_to_module(text, req.get("module_name", "module"))
        with ctx:
            shardy, notes = prepare(module)
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


# JAX's custom_partitioning custom-call and what it becomes here (see the module's doc).
CUSTOM_PARTITIONING = "CustomSPMDPartitioning"
OPAQUE_CUSTOM_PARTITIONING = "hlo_offload.custom_partitioning"


def prepare(module):
    """Undoes what the HLO-to-StableHLO conversion adds that XLA's partitioning of the
    original module would not see (the module's doc); inside the module's context.
    Returns (whether Shardy partitions the module, notes for the user)."""
    from jax._src.lib.mlir import ir
    top = module.operation
    front = top.attributes["mhlo.frontend_attributes"] \
        if "mhlo.frontend_attributes" in top.attributes else None
    round_trip = front is not None and "xla.sdy.meshes" in ir.DictAttr(front)
    funcs, ops = [], []  # every func.func; every other op with an mhlo.sharding
    opaque = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name == "func.func":
                        funcs.append(child)
                    elif "mhlo.sharding" in child.attributes:
                        ops.append(child)
                    if child.name == "stablehlo.custom_call" and ir.StringAttr(
                            child.attributes["call_target_name"]).value == CUSTOM_PARTITIONING:
                        child.attributes["call_target_name"] = ir.StringAttr.get(
                            OPAQUE_CUSTOM_PARTITIONING)
                        opaque.append(_location_name(child.location))
                    visit(child)

    visit(top)
    mesh = None if round_trip else _first_named_mesh(funcs, ops, ir)
    if round_trip:
        for func in funcs:
            _edit_shardings(func, ir, lambda value: None)
        for op in ops:
            fa = op.attributes["mhlo.frontend_attributes"] \
                if "mhlo.frontend_attributes" in op.attributes else None
            if fa is None or "xla.sdy.sharding" not in ir.DictAttr(fa):
                del op.attributes["mhlo.sharding"]
    elif mesh is not None:
        # Named shardings (HloShardingV3): a `{replicated}` beside them is the same
        # sharding on their mesh.
        replicated = "{%s, replicated}" % mesh
        for func in funcs:
            _edit_shardings(func, ir, lambda value: replicated
                            if value == "{replicated}" else value)
        for op in ops:
            if ir.StringAttr(op.attributes["mhlo.sharding"]).value == "{replicated}":
                op.attributes["mhlo.sharding"] = ir.StringAttr.get(replicated)
    notes = []
    if opaque:
        shown = ", ".join('"%s"' % o for o in opaque[:3]) + (", ..." if len(opaque) > 3 else "")
        notes.append(
            "%d %s custom-call%s of jax.experimental.custom_partitioning (%s) %s partitioned "
            "as replicated: their own partitioning is a Python callback of the process that "
            "lowered the module" % (len(opaque), CUSTOM_PARTITIONING,
                                    "" if len(opaque) == 1 else "s", shown,
                                    "is" if len(opaque) == 1 else "are"))
    return round_trip or mesh is not None, notes


def _first_named_mesh(funcs, ops, ir):
    """The `mesh[...]` of the first named sharding (HloShardingV3, as JAX 0.12.1 prints
    `sharding={mesh['data'=1,'fsdp'=8], [{'fsdp'}, {}]}`), or None when there is none."""
    def mesh_of(value):
        start = value.find("mesh[")
        end = value.find("]", start)
        return value[start:end + 1] if start >= 0 and end > start else None

    for func in funcs:
        for name in ("arg_attrs", "res_attrs"):
            if name not in func.attributes:
                continue
            for d in ir.ArrayAttr(func.attributes[name]):
                d = ir.DictAttr(d)
                if "mhlo.sharding" in d:
                    found = mesh_of(ir.StringAttr(d["mhlo.sharding"]).value)
                    if found:
                        return found
    for op in ops:
        found = mesh_of(ir.StringAttr(op.attributes["mhlo.sharding"]).value)
        if found:
            return found
    return None


def _edit_shardings(func, ir, edit):
    """Replaces each `mhlo.sharding` of a function's arguments and results by
    edit(value): a str, or None to remove it."""
    for name in ("arg_attrs", "res_attrs"):
        if name not in func.attributes:
            continue
        dicts = []
        changed = False
        for d in ir.ArrayAttr(func.attributes[name]):
            d = ir.DictAttr(d)
            entries = {d[j].name: d[j].attr for j in range(len(d))}
            if "mhlo.sharding" in entries:
                value = ir.StringAttr(entries["mhlo.sharding"]).value
                new = edit(value)
                if new != value:
                    changed = True
                    if new is None:
                        del entries["mhlo.sharding"]
                    else:
                        entries["mhlo.sharding"] = ir.StringAttr.get(new)
            dicts.append(ir.DictAttr.get(entries))
        if changed:
            func.attributes[name] = ir.ArrayAttr.get(dicts)


def _location_name(location):
    """The HLO instruction name an op's location carries (`loc("custom-call.5")`)."""
    text = str(location)
    start = text.find('"')
    end = text.find('"', start + 1)
    return text[start + 1:end] if 0 <= start < end else text


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
