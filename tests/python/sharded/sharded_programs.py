"""Sharded host-offloading programs: the JAX suite's patterns on meshes of 1, 2, 4 and 8 devices.

Each program is a function of a mesh (`MESHES`: FSDP meshes `("fsdp",)` of 1, 2, 4 and 8
devices, 2-D meshes `("fsdp", "tp")` of 2x2 and 4x2) returning `(jitted function, example
arguments)` or StableHLO text. The meshes are `jax.sharding.AbstractMesh`es, so JAX lowers
an 8-device program on a one-device machine (for TPU); every device sharding names
`memory_kind="device"` (an AbstractMesh sharding without a memory kind does not move data
to the device).

XLA's verdict on each (program, mesh) is a deviceless compile for each backend of `BACKENDS`
(scripts/xla_deviceless/gen_sharded.py, the program lowered for that platform): libtpu
0.0.42.1 (v5e:2x2 for up to 4 partitions, v5e:2x4 for 8), stored in
tests/xla-ref/libtpu-0.0.42.1-sharded/<program>-<mesh>/result.json, and jax-cuda12-plugin
0.10.2 (1x1xN GPUs of XLA's H100 target config), stored in
tests/xla-ref/cuda12-plugin-0.10.2-sharded/. Each program declares that verdict per mesh
(`verdict`) and the opcodes XLA converts into host compute (`host_compute`, sorted), with the
evidence, for TPU, and what differs on GPU (`gpu=`); test_sharded_suite.py requires the
declarations to be the stored results and compares hlo-offload's check of the same program,
lowered for the same platform, with them.

Keep every line a program's instructions come from inside its own function: the stored
source lines are compared as (function, line within it), so edits elsewhere in this file
leave the stored data valid.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable

CLEAN = "clean"
E1200 = "E1200"
REFUSED = "REFUSED"

# name -> (shape, axis names)
MESHES = {
    "fsdp1": ((1,), ("fsdp",)),
    "fsdp2": ((2,), ("fsdp",)),
    "fsdp4": ((4,), ("fsdp",)),
    "fsdp8": ((8,), ("fsdp",)),
    "fsdp2_tp2": ((2, 2), ("fsdp", "tp")),
    "fsdp4_tp2": ((4, 2), ("fsdp", "tp")),
}
FSDP = ("fsdp1", "fsdp2", "fsdp4", "fsdp8")


def mesh_devices(mesh_name):
    shape, _ = MESHES[mesh_name]
    n = 1
    for s in shape:
        n *= s
    return n


# XLA's backends the suite is compiled for; each case is lowered for the platform of the
# same name and checked by hlo-offload for it (tpu: backend tpu, cuda: backend gpu).
BACKENDS = ("tpu", "cuda")


@dataclasses.dataclass
class ShardedProgram:
    """One program over several meshes, with XLA's verdict on each and the evidence.

    Every field but name, build and meshes is a dict by backend ("tpu", "cuda"):
    verdict / host_compute: {backend: {mesh: ...}}, XLA's verdict (CLEAN, E1200, REFUSED) and
    the sorted opcodes of the instructions XLA converts into host compute (its
    HostOffloader's "Found an instruction ... which does device compute in host memory
    space" warnings). evidence: {backend: "Deviceless compile: ..." then the reading of XLA's
    source}. differences: {backend: {mesh: (reason, xla_only, ours_only)}} where
    hlo-offload's host-compute warnings differ from XLA's: the reason (naming XLA's file and
    function; the comparisons of that case are strict xfails) and the opcodes only XLA
    converts and only hlo-offload warns about (required exactly).
    """

    name: str
    build: Callable
    meshes: tuple
    verdict: dict
    host_compute: dict
    evidence: dict
    differences: dict

    def lower_input(self, mesh, platform="tpu"):
        """build(mesh) for `platform`: a program that lowers itself (StableHLO text) takes
        the platform; a jitted function is lowered for it by whoever checks it."""
        import inspect
        if "platform" in inspect.signature(self.build).parameters:
            return self.build(mesh, platform=platform)
        return self.build(mesh)


PROGRAMS: list[ShardedProgram] = []


def program(meshes, verdict=None, host_compute=(), evidence="", differences=None, gpu=None,
            versions=None):
    """Registers a program. verdict, host_compute, evidence and differences are TPU's;
    verdict and host_compute: one value for every mesh, or a dict by mesh.

    gpu: what differs on GPU (the CUDA plugin's compile), a dict with any of verdict,
    host_compute, evidence and differences: verdict, host_compute and evidence default to
    TPU's (the same result, the same reading of XLA's code), differences to none (TPU's
    come from libtpu's own passes).

    versions: what one compiler version does otherwise, {"tpu@0.0.52": dict(...)} with any
    of verdict, host_compute, evidence and differences; each becomes that field's
    "tpu@0.0.52" entry (tests/python/xla_versions.py; `declared` reads it)."""
    def per_mesh(v):
        return dict(v) if isinstance(v, dict) else {m: v for m in meshes}

    def opcodes(v):
        return {m: tuple(sorted(ops)) for m, ops in per_mesh(v).items()}
    gpu = dict(gpu or {})
    unknown = set(gpu) - {"verdict", "host_compute", "evidence", "differences"}
    assert not unknown, unknown

    def deco(fn):
        PROGRAMS.append(ShardedProgram(
            name=fn.__name__, build=fn, meshes=tuple(meshes),
            verdict={"tpu": per_mesh(verdict),
                     "cuda": per_mesh(gpu.get("verdict", verdict))},
            host_compute={"tpu": opcodes(host_compute),
                          "cuda": opcodes(gpu.get("host_compute", host_compute))},
            evidence={"tpu": evidence, "cuda": gpu.get("evidence", evidence)},
            differences={"tpu": dict(differences or {}),
                         "cuda": dict(gpu.get("differences") or {})}))
        prog = PROGRAMS[-1]
        for key, changes in (versions or {}).items():
            assert set(changes) <= {"verdict", "host_compute", "evidence", "differences"}, \
                changes
            backend = key.split("@")[0]
            prog.verdict[key] = per_mesh(changes["verdict"]) if "verdict" in changes \
                else prog.verdict[backend]
            prog.host_compute[key] = opcodes(changes["host_compute"]) \
                if "host_compute" in changes else prog.host_compute[backend]
            prog.evidence[key] = changes.get("evidence", prog.evidence[backend])
            prog.differences[key] = dict(changes.get("differences",
                                                     prog.differences[backend]))
        return fn
    return deco


def declared(prog, field, backend, series):
    """A program's declared `field` (verdict, host_compute, evidence, differences) for
    `backend` as compiled by its compiler `series` (a "tpu@0.0.52" entry wins over "tpu")."""
    value = getattr(prog, field)
    return value.get("%s@%s" % (backend, series), value[backend])


def locate(line):
    """"function:+offset" of a line of this file: the top-level function it lies in and
    the line's offset from that function's `def` (None outside every function)."""
    for name, start, end in _FUNCTIONS:
        if start <= line <= end:
            return "%s:+%d" % (name, line - start)
    return None


def _functions():
    import ast
    with open(__file__) as fh:
        tree = ast.parse(fh.read())
    return [(n.name, n.lineno, n.end_lineno) for n in tree.body
            if isinstance(n, ast.FunctionDef)]


_FUNCTIONS = _functions()


def cases():
    """[(program, mesh name)] of every case, in declaration order."""
    return [(p, m) for p in PROGRAMS for m in p.meshes]


def _env(mesh_name):
    import jax
    import jax.numpy as jnp
    from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P
    # JAX caches the jaxprs of inner jitted functions (the scan's dynamic_index_in_dim)
    # with the source lines of their first trace: without this, a program's
    # instructions could carry the lines of a program built before it.
    jax.clear_caches()
    shape, axes = MESHES[mesh_name]
    mesh = AbstractMesh(shape, axes)

    def dev(*spec):
        return NamedSharding(mesh, P(*spec), memory_kind="device")

    def host(*spec, kind="pinned_host"):
        return NamedSharding(mesh, P(*spec), memory_kind=kind)
    return jax, jnp, dev, host, ("tp" in axes)


def _sds(jax, jnp, shape, dtype=None):
    return jax.ShapeDtypeStruct(shape, dtype or jnp.float32)


# The collective pipeliner's peeled first iteration (see the programs that stream a
# layer through an all-gather).
PEELED = (
    "TPU's collective pipeliner (xla/service/collective_pipeliner.cc, "
    "CollectivePipeliner::Run, libtpu's `pipelining` passes after tpu-spmd-partitioning and "
    "before the HostOffloader) peels the loop's first all-gather and the slice feeding it "
    "out of the while loop; XLA converts that copy into host compute too, so it lists one "
    "more all-gather and a slice than hlo-offload, which runs XLA's partitioner but not "
    "libtpu's own pipelining passes")


_STREAM_HC = ("all-gather", "all-gather", "dynamic-slice", "slice")


def _peeled(meshes):
    """The peeled iteration on these meshes: XLA converts one more all-gather and a slice."""
    return {m: (PEELED, ("all-gather", "slice"), ()) for m in meshes}


# On a 2-D mesh the layer is sharded on two dimensions.
_PER_DIM_GATHER = (
    "; and on a 2-D mesh XLA's partitioner as jaxlib's CPU compiler runs it "
    "(xla/service/spmd/spmd_partitioner.cc, SpmdPartitioner::AllGatherShards, "
    "AllGatherShardsInternal with per_dim_ag) gathers the layer sharded over fsdp and tp "
    "with one all-gather per sharded dimension, where libtpu's tpu-spmd-partitioning uses "
    "one all-gather over both axes: hlo-offload warns on two all-gathers in the loop, XLA "
    "converts one in the loop and one in the peeled iteration, so only the slice is "
    "XLA's alone")


# libtpu's partitioner and the one jaxlib's CPU compiler runs place the reshard of a
# MoveToDevice differently.
_MOVE_TO_DEVICE_RESHARD = (
    "XLA's partitioner as jaxlib's CPU compiler runs it (xla/service/spmd/"
    "custom_call_handler.cc, SpmdPartitioningVisitor::HandleCustomCall) gives a MoveToDevice "
    "its operand's sharding and reshards after it, so the device_put's replicated copy puts "
    "the all-gather of the sharded host parameter before the MoveToDevice, where "
    "hlo-offload warns HO2001; libtpu's tpu-spmd-partitioning gives the MoveToDevice the "
    "sharding propagated to it (the moments' fsdp sharding) and reshards its operand "
    "before it (all-gather, copy, dynamic-slice back to the shard), which later passes "
    "fold away before the HostOffloader, so XLA converts nothing. hlo-offload does not "
    "model libtpu's partitioner (it is not public)", (), ("all-gather", "all-gather"))


# What XLA's GPU compiler does differently (jax-cuda12-plugin 0.10.2, XLA at jaxlib 0.10.2's
# commit).
_GPU_PARTITIONER = (
    "XLA's GPU compiler partitions with XLA's own SPMD partitioner "
    "(xla/service/gpu/gpu_spmd_pipeline.cc, AddSPMDPasses: ShardyXLA, then "
    "StatefulRngSpmdPartitioner), the one jaxlib's CPU compiler runs for hlo-offload")

_GPU_NO_PIPELINER = (
    "; no iteration is peeled out of the loop: the GPU compiler adds the all-gather "
    "CollectivePipeliner only with xla_gpu_enable_pipelined_all_gather, false by default "
    "(xla/debug_options_flags.cc), or at a higher optimization effort "
    "(xla/service/gpu/gpu_compiler.cc, IsPassEnabledAtOptimizationEffort)")

# On a 2-D mesh the layer's all-gather over tp changes its layout.
_GPU_LAYOUT_TRANSPOSES = (
    "XLA's GPU compiler assigns layouts before its HostOffloader "
    "(xla/service/gpu/gpu_compiler.cc: RunLayoutAssignmentPasses, "
    "RunLayoutNormalizationPasses, then OptimizeHloPostLayoutAssignment adds the "
    "HostOffloader after LayoutNormalization): GpuLayoutAssignment::AddBackendConstraints "
    "(xla/backends/gpu/transforms/layout_assignment.cc) makes an all-gather's gathered "
    "dimension the most major, so the all-gather over tp (the layer's second dimension) gets "
    "layout {0,1}, which layout assignment carries back to the host dynamic-slice and the "
    "loop's stacked weights: it copies the pinned_host parameter into that layout before "
    "the loop and copies back to {1,0} between the two all-gathers. HostOffloadLegalize "
    "leaves both copies (the module after layout assignment still has them when layout "
    "normalization runs), LayoutNormalizationVisitor::HandleCopy "
    "(xla/service/layout_normalization.cc) rewrites each into a transpose, and the "
    "HostOffloader converts the two transposes into host compute. hlo-offload does not run "
    "layout assignment (its modules keep their default layouts): it warns on the "
    "all-gathers and the dynamic-slice only")

_GPU_STREAM_HC = ("all-gather", "dynamic-slice")


# --- parameter streaming: stacked weights in pinned_host, one layer per scan step -----------

@program(FSDP + ("fsdp2_tp2", "fsdp4_tp2"), verdict=CLEAN,
         host_compute={"fsdp1": (), "fsdp2": _STREAM_HC, "fsdp4": _STREAM_HC,
                       "fsdp8": _STREAM_HC, "fsdp2_tp2": _STREAM_HC, "fsdp4_tp2": _STREAM_HC},
         evidence="Deviceless compile: compiled on every mesh. One device: no host-compute "
                  "warning. Several: XLA converts the loop's dynamic-slice and all-gather and "
                  "the peeled first iteration's slice and all-gather into host compute (one "
                  "all-gather over both axes on the 2-D meshes). Source reading: with one "
                  "partition the per-layer dynamic-slice leads to its MoveToDevice "
                  "(SliceLeadsToMoveToDeviceCustomCall, host_offloader.cc); with several, "
                  "the SPMD partitioner gathers the layer between the host dynamic-slice and "
                  "the MoveToDevice (the device_put's sharding is replicated), and "
                  "WalkDownHostMemoryOffloadPaths converts what is not allowed on a host path.",
         differences=dict(_peeled(("fsdp2", "fsdp4", "fsdp8")),
                          **{m: (PEELED + _PER_DIM_GATHER, ("slice",), ())
                             for m in ("fsdp2_tp2", "fsdp4_tp2")}),
         gpu=dict(
             host_compute={"fsdp1": (), "fsdp2": _GPU_STREAM_HC, "fsdp4": _GPU_STREAM_HC,
                           "fsdp8": _GPU_STREAM_HC,
                           "fsdp2_tp2": _GPU_STREAM_HC + ("all-gather", "transpose",
                                                          "transpose"),
                           "fsdp4_tp2": _GPU_STREAM_HC + ("all-gather", "transpose",
                                                          "transpose")},
             evidence="Deviceless compile: compiled on every mesh. One device: no "
                      "host-compute warning. Several: XLA converts the loop's dynamic-slice "
                      "and all-gather into host compute; on the 2-D meshes two all-gathers "
                      "(one per sharded dimension) and two transposes. Source reading: "
                      + _GPU_PARTITIONER + ", which gathers the layer between the host "
                      "dynamic-slice and the MoveToDevice, one all-gather per sharded "
                      "dimension (SpmdPartitioner::AllGatherShards)" + _GPU_NO_PIPELINER +
                      ". The transposes: " + _GPU_LAYOUT_TRANSPOSES + ".",
             differences={m: (_GPU_LAYOUT_TRANSPOSES, ("transpose", "transpose"), ())
                          for m in ("fsdp2_tp2", "fsdp4_tp2")}))
def stream_layers_replicated(mesh_name):
    """The layer is moved to the device replicated: the SPMD partitioner all-gathers it
    between the host dynamic-slice and the MoveToDevice."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    ws_host = host(None, "fsdp", "tp") if tp else host(None, "fsdp")

    def step(ws, x):
        def body(x, w):
            w = jax.device_put(w, dev())
            return jnp.tanh(x @ w), None
        y, _ = jax.lax.scan(body, x, ws)
        return y
    f = jax.jit(step, in_shardings=(ws_host, dev()), out_shardings=dev())
    return f, (_sds(jax, jnp, (4, 256, 256)), _sds(jax, jnp, (64, 256)))


@program(("fsdp1", "fsdp2", "fsdp8", "fsdp4_tp2"), verdict=CLEAN, host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: the layer keeps its host sharding on the device, so the "
                  "partitioner inserts no collective on the host path and the per-layer "
                  "dynamic-slice leads to its MoveToDevice "
                  "(SliceLeadsToMoveToDeviceCustomCall, host_offloader.cc).")
def stream_layers_sharded(mesh_name):
    """The layer is moved to the device with the sharding it has in host memory: no
    collective on the host path."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    spec = (None, "fsdp", "tp") if tp else (None, "fsdp")

    def step(ws, x):
        def body(x, w):
            w = jax.device_put(w, dev(*spec[1:]))
            return jnp.tanh(x @ w), None
        y, _ = jax.lax.scan(body, x, ws)
        return y
    f = jax.jit(step, in_shardings=(host(*spec), dev()), out_shardings=dev())
    return f, (_sds(jax, jnp, (4, 256, 256)), _sds(jax, jnp, (64, 256)))


@program(("fsdp2_tp2", "fsdp4_tp2"), verdict=CLEAN, host_compute=_STREAM_HC,
         evidence="Deviceless compile: compiled; XLA converts the dynamic-slice and "
                  "all-gather of the loop and of its peeled first iteration (slice) into "
                  "host compute. Source reading: the all-gather over fsdp sits between the "
                  "host dynamic-slice and the MoveToDevice, as in stream_layers_replicated.",
         differences=_peeled(("fsdp2_tp2", "fsdp4_tp2")),
         gpu=dict(host_compute=_GPU_STREAM_HC,
                  evidence="Deviceless compile: compiled; XLA converts the loop's "
                           "dynamic-slice and all-gather into host compute. Source "
                           "reading: " + _GPU_PARTITIONER + "; the all-gather over fsdp "
                           "sits between the host dynamic-slice and the MoveToDevice" +
                           _GPU_NO_PIPELINER + ". The layer's gathered dimension is its "
                           "first, already the most major: no layout change, no transpose."))
def stream_layers_tp(mesh_name):
    """2-D mesh: the weights are in host memory sharded over fsdp and tp, the layer moves
    to the device sharded over tp only (an all-gather over fsdp on the host path)."""
    jax, jnp, dev, host, tp = _env(mesh_name)

    def step(ws, x):
        def body(x, w):
            w = jax.device_put(w, dev(None, "tp"))
            return jnp.tanh(x @ w), None
        y, _ = jax.lax.scan(body, x, ws)
        return y
    f = jax.jit(step, in_shardings=(host(None, "fsdp", "tp"), dev("fsdp")),
                out_shardings=dev("fsdp"))
    return f, (_sds(jax, jnp, (4, 256, 256)), _sds(jax, jnp, (64, 256)))


# --- remat activation offloading in a scan -----------------------------------------------------

@program(FSDP + ("fsdp2_tp2",), verdict=CLEAN, host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: the forward scan writes each residual with a MoveToHost "
                  "into a dynamic-update-slice of the stacked carry and the backward scan "
                  "reads it by dynamic-slice and MoveToDevice (HandleDynamicUpdateSlices, "
                  "SliceLeadsToMoveToDeviceCustomCall); the residual keeps the batch "
                  "sharding, so no collective lands on the host path.")
def remat_offload_scan(mesh_name):
    """grad of a scanned layer whose residual is offloaded by
    save_and_offload_only_these_names; the batch is sharded over fsdp (and the weights over
    tp on a 2-D mesh)."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    from jax.ad_checkpoint import checkpoint_name
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["x"],
        offload_src="device", offload_dst="pinned_host")

    def layer(x, w):
        x = checkpoint_name(x, "x")
        return jnp.tanh(x @ w), None

    def loss(ws, x):
        y, _ = jax.lax.scan(jax.checkpoint(layer, policy=policy, prevent_cse=False), x, ws)
        return jnp.sum(y * y)
    w_spec = dev(None, None, "tp") if tp else dev()
    f = jax.jit(jax.grad(loss), in_shardings=(w_spec, dev("fsdp")), out_shardings=w_spec)
    return f, (_sds(jax, jnp, (4, 128, 128)), _sds(jax, jnp, (64, 128)))


@program(("fsdp1", "fsdp4", "fsdp2_tp2", "fsdp4_tp2"), verdict=CLEAN,
         host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: as remat_offload_scan, for the MLP's hidden activation.")
def remat_offload_mlp_scan(mesh_name):
    """A 2-layer MLP block per scan step, its hidden activation ("h", sharded over fsdp and
    tp on a 2-D mesh) offloaded by the policy."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    from jax.ad_checkpoint import checkpoint_name
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["h"],
        offload_src="device", offload_dst="pinned_host")

    def block(x, p):
        h = checkpoint_name(jax.nn.relu(x @ p["w1"]), "h")
        return x + h @ p["w2"], None

    def loss(params, x):
        y, _ = jax.lax.scan(jax.checkpoint(block, policy=policy, prevent_cse=False), x,
                            params)
        return jnp.mean(y * y)
    shard = {"w1": dev(None, None, "tp"), "w2": dev(None, "tp", None)} if tp else \
        {"w1": dev(None, "fsdp", None), "w2": dev(None, None, "fsdp")}
    params = {"w1": _sds(jax, jnp, (3, 128, 256)), "w2": _sds(jax, jnp, (3, 256, 128))}
    f = jax.jit(jax.grad(loss), in_shardings=(shard, dev("fsdp")), out_shardings=shard)
    return f, (params, _sds(jax, jnp, (32, 128)))


# --- AdamW with the optimizer state in pinned_host ---------------------------------------------

def _adamw(jax, jnp, to_dev, to_host):
    def step(p, mu, nu, g):
        mu = 0.9 * jax.device_put(mu, to_dev) + 0.1 * g
        nu = 0.999 * jax.device_put(nu, to_dev) + 0.001 * g * g
        p = p - 1e-3 * (mu / (jnp.sqrt(nu) + 1e-8) + 0.01 * p)
        return p, jax.device_put(mu, to_host), jax.device_put(nu, to_host)
    return step


@program(FSDP, verdict=CLEAN, host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: the moments' host parameters end at their MoveToDevice "
                  "and the MoveToHost paths at S(5) outputs "
                  "(HostOffloader::WalkDownHostMemoryOffloadPaths); the sharding does not "
                  "change on a host path.")
def adamw_host_state(mesh_name):
    """AdamW moments in pinned_host, sharded as the parameters (fsdp), moved to the
    device with the same sharding, updated and put back."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    d, h = dev("fsdp"), host("fsdp")
    s = _sds(jax, jnp, (256, 128))
    f = jax.jit(_adamw(jax, jnp, d, h), in_shardings=(d, h, h, d), out_shardings=(d, h, h))
    return f, (s, s, s, s)


@program(("fsdp1", "fsdp2", "fsdp8"), verdict=CLEAN,
         host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. In "
                  "libtpu's module after tpu-spmd-partitioning the host parameter is "
                  "all-gathered, copied, dynamic-sliced back to its shard and then moved by "
                  "a MoveToDevice of the shard's shape (the MoveToDevice has the moments' "
                  "fsdp sharding, propagated by shardy-xla); before the HostOffloader the "
                  "parameter feeds the MoveToDevice directly. Source reading: nothing is "
                  "left on the host path.",
         differences={m: _MOVE_TO_DEVICE_RESHARD for m in ("fsdp2", "fsdp8")},
         gpu=dict(
             host_compute={"fsdp1": (), "fsdp2": ("all-gather", "all-gather"),
                           "fsdp8": ("all-gather", "all-gather")},
             evidence="Deviceless compile: compiled on every mesh; with several devices "
                      "XLA converts the all-gathers of the two host moments into host "
                      "compute. Source reading: " + _GPU_PARTITIONER + ", which gives a "
                      "MoveToDevice its operand's sharding (xla/service/spmd/"
                      "custom_call_handler.cc, SpmdPartitioningVisitor::HandleCustomCall): "
                      "after spmd-partitioning each sharded host parameter is all-gathered "
                      "and copied (the device_put) before its MoveToDevice, and "
                      "WalkDownHostMemoryOffloadPaths converts the all-gather."),
         versions={"tpu@0.0.52": dict(
             host_compute={"fsdp1": (), "fsdp2": ("all-gather", "all-gather"),
                           "fsdp8": ("all-gather", "all-gather")},
             evidence="Deviceless compile (libtpu 0.0.52, jax 0.12.0.1): compiled on every "
                      "mesh; with several devices XLA converts the all-gathers of the two "
                      "host moments into host compute, as the GPU compile does. Source "
                      "reading: as for GPU, the partitioner all-gathers each sharded host "
                      "moment before its MoveToDevice and WalkDownHostMemoryOffloadPaths "
                      "converts the all-gather.",
             differences={})})
def adamw_host_state_replicated_update(mesh_name):
    """AdamW moments in pinned_host sharded over fsdp, moved to the device replicated (the
    parameters and gradients are replicated): the partitioner all-gathers them between the
    host parameter and the MoveToDevice."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    h = host("fsdp")
    s = _sds(jax, jnp, (256, 128))
    f = jax.jit(_adamw(jax, jnp, dev(), h), in_shardings=(dev(), h, h, dev()),
                out_shardings=(dev(), h, h))
    return f, (s, s, s, s)


# --- host outputs ------------------------------------------------------------------------------

@program(("fsdp1", "fsdp2", "fsdp8"), verdict=CLEAN, host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: the MoveToHost feeds the dynamic-update-slice of the "
                  "stacked carry, whose path ends at an S(5) entry output "
                  "(HandleDynamicUpdateSlices, WalkDownHostMemoryOffloadPaths).")
def scan_stack_host_output(mesh_name):
    """A scan stacks one value per step, put to pinned_host, into a pinned_host output
    (sharded over fsdp on its second dimension)."""
    jax, jnp, dev, host, tp = _env(mesh_name)

    def f(xs, c0):
        def body(c, x):
            y = jnp.sin(c * x)
            return c + 1.0, jax.device_put(y, host("fsdp"))
        _, ys = jax.lax.scan(body, c0, xs)
        return ys
    jf = jax.jit(f, in_shardings=(dev(None, "fsdp"), dev("fsdp")),
                 out_shardings=host(None, "fsdp"))
    return jf, (_sds(jax, jnp, (6, 64, 128)), _sds(jax, jnp, (64, 128)))


@program(("fsdp1", "fsdp2", "fsdp8"), verdict=E1200, host_compute=(),
         evidence="Deviceless compile: INVALID_ARGUMENT: E1200: "
                  "CompileTimeHostOffloadOutputLocationMismatch on every mesh. Source "
                  "reading: the result's memory kind says device (PJRT gives it memory space "
                  "0), and the MoveToHost's path reaches it once the FuncResultSharding "
                  "custom-call is gone (ShardingRemover with one partition, Shardy's import "
                  "with several); WalkDownHostMemoryOffloadPaths returns the error.")
def e1200_func_result_sharding(mesh_name, platform="tpu"):
    """The optimizer state is put in pinned host memory while the result's memory kind says
    device: the StableHLO as XLA receives it when a module produced elsewhere says
    "device" (JAX 0.10.2 writes "pinned_host" there, so the text is edited). The state
    reaches the output through xla.sdy.FuncResultSharding."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    d, h = dev("fsdp"), host("fsdp")

    def step(w, mu, g):
        mu = jax.device_put(mu, d) * 0.9 + g
        return w - 0.1 * mu, jax.device_put(mu, h)
    f = jax.jit(step, in_shardings=(d, h, d), out_shardings=(d, h))
    s = _sds(jax, jnp, (256, 128))
    text = f.trace(s, s, s).lower(lowering_platforms=(platform,)).as_text(debug_info=True)
    pat = re.compile(r'(jax\.result_info = "result\[1\]"(?:, [^,}]*)*?, '
                     r'mhlo\.memory_kind = )"pinned_host"')
    text, n = pat.subn(r'\1"device"', text)
    assert n == 1
    return text


@program(("fsdp1", "fsdp4"), verdict=E1200, host_compute=(),
         evidence="Deviceless compile: INVALID_ARGUMENT: E1200: "
                  "CompileTimeHostOffloadOutputLocationMismatch on both meshes. Source "
                  "reading: PJRT gives an unpinned_host output memory space 6 "
                  "(GetMemorySpaceColor, xla/pjrt/utils.cc) and WalkDownHostMemoryOffloadPaths "
                  "accepts only Layout::kHostMemorySpace (5) at an entry output.")
def e1200_unpinned_host_output(mesh_name):
    """The state is put to pinned_host but out_shardings says unpinned_host."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    d = dev("fsdp")

    def step(w, g):
        return w - 0.1 * g, jax.device_put(g * g, host("fsdp"))
    f = jax.jit(step, in_shardings=(d, d),
                out_shardings=(d, host("fsdp", kind="unpinned_host")))
    s = _sds(jax, jnp, (256, 128))
    return f, (s, s)


# --- host compute -----------------------------------------------------------------------------

@program(("fsdp1", "fsdp2", "fsdp8"), verdict=CLEAN, host_compute=("add", "multiply"),
         evidence="Deviceless compile: compiled on every mesh; XLA converts the multiply and "
                  "the add into host compute. Source reading: HandleInputStreaming walks from "
                  "the pinned_host parameter; WalkDownHostMemoryOffloadPaths converts the "
                  "element-wise instructions (need_to_wrap_instruction_as_host_compute) and "
                  "the result's MoveToDevice ends the path. Element-wise ops keep the "
                  "sharding: no collective.")
def host_elementwise(mesh_name):
    """A pinned_host parameter (sharded over fsdp) feeds a multiply and an add; the result
    goes to the device with the same sharding."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    f = jax.jit(lambda x: x * 2.0 + 1.0, in_shardings=(host("fsdp"),),
                out_shardings=dev("fsdp"))
    return f, (_sds(jax, jnp, (256, 128)),)


@program(FSDP, verdict=CLEAN,
         host_compute={"fsdp1": ("reduce",), "fsdp2": ("all-reduce", "reduce"),
                       "fsdp4": ("all-reduce", "reduce"), "fsdp8": ("all-reduce", "reduce")},
         evidence="Deviceless compile: compiled on every mesh; XLA converts the reduce into "
                  "host compute, and on several devices the partitioner's all-reduce after it "
                  "too. Source reading: the reduced dimension is sharded, so the SPMD "
                  "partitioner reduces each shard and all-reduces the partial sums, both "
                  "before the result's MoveToDevice (WalkDownHostMemoryOffloadPaths).")
def host_reduction(mesh_name):
    """A reduction over a pinned_host array sharded over fsdp on the reduced dimension,
    the result on the device replicated: the partitioner adds an all-reduce after the
    local reduce, both on the host path."""
    jax, jnp, dev, host, tp = _env(mesh_name)
    f = jax.jit(lambda x: jnp.sum(x, axis=0), in_shardings=(host("fsdp"),),
                out_shardings=dev())
    return f, (_sds(jax, jnp, (256, 128)),)


# --- no offloading ----------------------------------------------------------------------------

@program(("fsdp1", "fsdp8", "fsdp2_tp2"), verdict=CLEAN, host_compute=(),
         evidence="Deviceless compile: compiled on every mesh, no host-compute warning. "
                  "Source reading: no memory kind other than device, so no MoveToHost or "
                  "host parameter: the HostOffloader has nothing to walk.")
def clean_sharded_mlp(mesh_name):
    """A sharded MLP step without memory kinds (nothing in host memory)."""
    jax, jnp, dev, host, tp = _env(mesh_name)

    def loss(ws, x):
        return jnp.mean(jnp.tanh(jnp.tanh(x @ ws["w1"]) @ ws["w2"]) ** 2)

    def step(ws, x):
        g = jax.grad(loss)(ws, x)
        return jax.tree.map(lambda w, gw: w - 0.1 * gw, ws, g)
    shard = {"w1": dev(None, "tp"), "w2": dev("tp", None)} if tp else \
        {"w1": dev("fsdp", None), "w2": dev(None, "fsdp")}
    ws = {"w1": _sds(jax, jnp, (128, 256)), "w2": _sds(jax, jnp, (256, 128))}
    f = jax.jit(step, in_shardings=(shard, dev("fsdp")), out_shardings=shard)
    return f, (ws, _sds(jax, jnp, (32, 128)))
