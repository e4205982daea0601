"""Real JAX host-offloading programs, each with the verdict XLA gives it and the evidence.

Every program is lowered at test time for TPU and for GPU
(`jit(f).trace(*args).lower(lowering_platforms=(platform,))`), converted by the front end
(StableHLO -> HLO with the memory kinds written into the entry computation layout, as
PJRT does before it compiles) and checked by `hlo-offload check --format=json`.

Verdicts are XLA's, read from its source (openxla/xla of 2026-07-26): the pass pipeline is
ConvertMemoryPlacementToInternalAnnotations (xla/hlo/transforms/
convert_memory_placement_to_internal_annotations.cc), HostOffloadLegalize and HostOffloader
(xla/hlo/transforms/host_offloader.cc), in that order (xla/service/gpu/gpu_compiler.cc;
TPU's compiler is not public: the verdicts assume it runs the same passes). Before them, with one partition, GPU's
`sharding-removal` pipeline (ShardingRemover, xla/service/sharding_remover.cc) removes the
`Sharding` and `xla.sdy.FuncResultSharding` custom-calls that JAX's lowering leaves on the
way (their uses get the operand), and CallInliner (pre-SPMD pipeline) inlines every `call`. Where a verdict rests on what JAX emits (an annotation it adds or not), that was seen
by running JAX 0.10.2 here.

Every verdict also rests on a deviceless compile: scripts/xla_deviceless/gen_programs.py builds
each program exactly as the tests do and compiles its StableHLO with libtpu 0.0.42.1 (TPU
v5e:2x2) and jax-cuda12-plugin 0.10.2 (H100 target config), both with jaxlib 0.10.2; XLA's
verdicts are stored in tests/xla-ref/<backend>/jax_programs/<name>/result.json and
test_xla_verdicts.py requires each program's declared verdict to be the stored one. Each
program's `evidence` starts with what that compile gave ("Deviceless compile: ...") and goes on
with the source reading. Nothing was run on a device.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Callable

CLEAN = "clean"
E1200 = "E1200"
# XLA's offloading passes accept the program (no E1200) but a check later in XLA's compile
# refuses the module they leave, with an INTERNAL error.
INTERNAL = "INTERNAL"


@dataclasses.dataclass
class Program:
    """One JAX program: how to build its XlaInput, and XLA's verdict with the evidence."""

    name: str
    build: Callable  # build(hjax, platform) -> XlaInput
    verdict: str  # CLEAN, E1200 or INTERNAL
    evidence: str  # "Deviceless compile: ..." then the source reading
    e1200_paths: frozenset = frozenset()  # JAX output paths XLA's E1200 is about
    # XLA logs "... does device compute in host memory" (True), does not (False), or it is
    # not known (None: not checked; the program says why).
    host_compute_warning: bool | None = False
    must_contain: tuple = ()  # substrings the converted HLO must contain (sanity)
    xfail: str | None = None  # the tool's verdict differs from XLA's: the exact reason
    # the tool's host-compute warning (HO2001) differs from XLA's: the exact reason
    xfail_warning: str | None = None
    # Why the tool's E1200 names the instruction XLA's does ("starting from ..."); when set,
    # test_program requires the same name, otherwise only XLA's wording.
    same_e1200_start: str | None = None


def _env():
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    dev = NamedSharding(mesh, PartitionSpec(), memory_kind="device")
    return jax, jnp, dev


def _lower(hjax, platform, jitted, *args):
    return hjax.from_jax(jitted, *args, platform=platform)


def _sds(jax, jnp, shape, sharding=None, dtype=None):
    return jax.ShapeDtypeStruct(shape, dtype or jnp.float32, sharding=sharding)


PROGRAMS: list[Program] = []


def program(deviceless, **kw):
    """Registers a program; `deviceless` is what the deviceless compiles gave, on both
    backends unless it says otherwise, and `evidence` the source reading."""
    def deco(fn):
        kw["evidence"] = "Deviceless compile: %s Source reading: %s" % (deviceless,
                                                                        kw["evidence"])
        PROGRAMS.append(Program(name=fn.__name__, build=fn, **kw))
        return fn
    return deco


# --- device_put inside jit ------------------------------------------------------------

@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=('_xla_buffer_placement="pinned_host"',
                                      "{1,0:S(5)}"),
         evidence="The MoveToHost's path reaches the entry output, whose layout has memory "
                  "space 5 (JAX writes mhlo.memory_kind=\"pinned_host\" on the result from "
                  "out_shardings): HostOffloader::WalkDownHostMemoryOffloadPaths "
                  "(host_offloader.cc) `continue`s at an entry output with "
                  "Layout::kHostMemorySpace (\"output streamed\").")
def put_pinned_host_out_pinned_host(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")
    f = jax.jit(lambda x: jax.device_put(x * 2.0, host), out_shardings=host)
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("{1,0:S(5)}",),
         evidence="Without out_shardings JAX 0.10.2 propagates the memory kind of the "
                  "device_put to the result (mhlo.memory_kind=\"pinned_host\", seen here), "
                  "so the output layout is S(5) and "
                  "HostOffloader::WalkDownHostMemoryOffloadPaths accepts the output as "
                  "above.")
def put_pinned_host_default_out(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")
    f = jax.jit(lambda x: jax.device_put(x * 2.0, host))
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=('_xla_buffer_placement="device"',),
         evidence="out_shardings says device: JAX 0.10.2 wraps the output in "
                  "annotate_device_placement(\"device\") (mlir.py wrap_with_memory_kind, seen "
                  "here), which ConvertMemoryPlacementToInternalAnnotations turns into a "
                  "MoveToDevice; WalkDownHostMemoryOffloadPaths ends the path at a "
                  "MoveToDevice (`continue`), so no E1200.")
def put_pinned_host_out_device(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")
    f = jax.jit(lambda x: jax.device_put(x * 2.0, host), out_shardings=dev)
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


_UNPINNED_EVIDENCE = (
    "ConvertMemoryPlacementToInternalAnnotations maps \"unpinned_host\" to a MoveToHost "
    "(\"XLA currently does not differentiate between pinned and unpinned host\"), while "
    "PJRT's GetMemorySpaceColor (xla/pjrt/utils.cc) gives an unpinned_host result memory "
    "space 6 (Layout::kUnpinnedHostMemorySpace); WalkDownHostMemoryOffloadPaths only "
    "accepts Layout::kHostMemorySpace (5) at an entry output, so it returns "
    "CompileTimeHostOffloadOutputLocationMismatch.")

_FUNC_RESULT_SHARDING_EVIDENCE = (
    " With out_shardings the result passes through a Shardy `xla.sdy.FuncResultSharding` "
    "custom-call; with one partition GPU's sharding-removal pipeline (RunSPMDPasses in "
    "gpu_compiler.cc) removes it with ShardingRemover (xla/service/sharding_remover.cc) "
    "before ConvertMemoryPlacementToInternalAnnotations' annotations reach HostOffloader "
    "(with several partitions ShardyXLA's round-trip import does, "
    "sdy_round_trip/import_shardy_attrs.cc handleFuncResultSharding), so the path reaches the "
    "entry output. Were it left, the walk would stop there: GetSuccessors "
    "(xla/service/host_offload_utils.cc) follows a custom call only when it aliases the "
    "operand (CustomCallReusesBuffer), though kCustomCall is in IsValidDuringPureMemoryOffload.")


_SAME_START_AS_XLA = (
    "The walk starts at the user of the first MoveToHost, which is the MoveToHost that "
    "out_shardings' annotate_device_placement becomes once ShardingRemover "
    "(xla/service/sharding_remover.cc; the tool's sharding-remover) has given the Sharding "
    "custom-call's uses to its operand (GetStartingInstructions, host_offloader.cc). XLA's "
    "ConvertMemoryPlacementToInternalAnnotations names each MoveToHost it makes from the "
    "module's name uniquer (custom-call, custom-call.1, ...), and so does the tool's; both "
    "convert the annotations in the same order and neither module has another instruction "
    "named custom-call*, so the number agrees, where the names of other instructions differ "
    "(XLA's come from its own StableHLO import).")


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=('_xla_buffer_placement="unpinned_host"',
                                      "->f32[16,256]{1,0}}"),
         evidence="Without out_shardings JAX 0.10.2 writes mhlo.memory_kind=\"device\" on "
                  "the result of a device_put to unpinned_host (seen here; it propagates "
                  "pinned_host, not unpinned_host), so PJRT gives the output memory space 0 "
                  "(GetOutputMemoryKinds, xla/pjrt/utils.cc); "
                  "ConvertMemoryPlacementToInternalAnnotations maps \"unpinned_host\" to a "
                  "MoveToHost, which here is the entry's root. "
                  "HostOffloader::GetStartingInstructions walks from the MoveToHost's "
                  "successors (GetSuccessors, host_offload_utils.cc) and the entry root has "
                  "none, so HandleMoveToHostCustomCall only replaces the root by a copy to "
                  "memory space 5 without checking the entry layout: XLA compiles it (the "
                  "tool adds its HO3004 warning: the output is declared in device memory "
                  "but returned as a host copy).")
def put_unpinned_host_default_out(hjax, platform):
    jax, jnp, dev = _env()
    unpinned = dev.with_memory_kind("unpinned_host")
    f = jax.jit(lambda x: jax.device_put(x * 2.0, unpinned))
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


@program(deviceless=("E1200 (\"Tensor which is moved to host (starting from tuple.1) is returned"
                     " from the entry computation but the layout for this output is not set to "
                     "host memory.\")."),
         verdict=E1200, e1200_paths=frozenset({"result[0]"}),
         must_contain=('_xla_buffer_placement="unpinned_host"',
                       "->(f32[16,256]{1,0}, f32[16,256]{1,0})}"),
         evidence="As put_unpinned_host_default_out, but the host value is one of two "
                  "outputs: JAX 0.10.2 again writes mhlo.memory_kind=\"device\" on it (seen "
                  "here). The MoveToHost's successor is the root tuple, which "
                  "GetStartingInstructions takes as the start; WalkDownHostMemoryOffloadPaths "
                  "finds the entry output {0} in memory space 0 and returns "
                  "CompileTimeHostOffloadOutputLocationMismatch (starting from the tuple). "
                  "A JAX program that XLA refuses with E1200 as written.")
def put_unpinned_host_tuple_default_out(hjax, platform):
    jax, jnp, dev = _env()
    unpinned = dev.with_memory_kind("unpinned_host")
    f = jax.jit(lambda x: (jax.device_put(x * 2.0, unpinned), x + 1.0))
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


@program(deviceless=("E1200, starting from custom-call.1: in the before_host-offloader dumps the"
                     " Sharding and xla.sdy.FuncResultSharding custom-calls are gone and "
                     "custom-call.1 is the second MoveToHost, the user of the first; output {0} "
                     "is S(6)."),
         verdict=E1200, e1200_paths=frozenset({"result[0]"}),
         must_contain=('_xla_buffer_placement="unpinned_host"', "{1,0:S(6)}",
                       'custom_call_target="xla.sdy.FuncResultSharding"'),
         evidence=_UNPINNED_EVIDENCE + " Here out_shardings asks for unpinned_host, so the "
                  "output is S(6); JAX adds a second annotate_device_placement(\"unpinned_host\") "
                  "and the root is a tuple, so the walk reaches output {0}." +
                  _FUNC_RESULT_SHARDING_EVIDENCE,
         same_e1200_start="custom-call.1 in XLA and in the tool. " + _SAME_START_AS_XLA)
def put_unpinned_host_tuple_out_unpinned_host(hjax, platform):
    jax, jnp, dev = _env()
    unpinned = dev.with_memory_kind("unpinned_host")
    f = jax.jit(lambda x: (jax.device_put(x * 2.0, unpinned), x + 1.0),
                out_shardings=(unpinned, dev))
    return _lower(hjax, platform, f, _sds(jax, jnp, (16, 256), dev))


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=('_xla_buffer_placement="device"', "{1,0:S(5)}"),
         evidence="A pinned_host argument device_put to \"device\" inside jit, then computed "
                  "on: JAX 0.10.2 emits annotate_device_placement(\"device\") only for a value "
                  "not already on device (seen here), which becomes a MoveToDevice; "
                  "HandleInputStreaming's walk from the host parameter ends there "
                  "(WalkDownHostMemoryOffloadPaths `continue`s at a MoveToDevice) and "
                  "HostOffloader::RunImpl removes the MoveToDevice "
                  "(HandleMoveToDeviceCustomCall).")
def put_device_inside_jit(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def f(x):
        return jnp.sin(jax.device_put(x, dev)) + 1.0
    jf = jax.jit(f, in_shardings=(host,), out_shardings=dev)
    return _lower(hjax, platform, jf, _sds(jax, jnp, (16, 256), host))


# --- shardings with memory kinds ------------------------------------------------------

@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("{1,0:S(5)}",),
         evidence="in_shardings and out_shardings in pinned_host: the host parameter's "
                  "path (HandleInputStreaming) ends at the MoveToDevice of the device_put; "
                  "the result's MoveToHost (from the device_put back and from out_shardings) "
                  "reaches an S(5) output: WalkDownHostMemoryOffloadPaths accepts both.")
def shardings_host_in_host_out(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def f(p, g):
        p_d = jax.device_put(p, dev)
        return jax.device_put(p_d - 0.1 * g, host)
    jf = jax.jit(f, in_shardings=(host, dev), out_shardings=host)
    return _lower(hjax, platform, jf, _sds(jax, jnp, (64, 128), host),
                  _sds(jax, jnp, (64, 128), dev))


# --- activation offloading (remat policies) --------------------------------------------

def checkpoint_name(x, name):
    from jax.ad_checkpoint import checkpoint_name as name_it
    return name_it(x, name)


def _offload_policy(jax, names):
    return jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=list(names),
        offload_src="device", offload_dst="pinned_host")


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=('_xla_buffer_placement="pinned_host"',
                                      '_xla_buffer_placement="device"'),
         evidence="Each scanned layer's residual 'x' is offloaded by the policy: the forward "
                  "scan writes it with a MoveToHost into a dynamic-update-slice of the stacked "
                  "carry, the backward scan reads it by dynamic-slice and MoveToDevice. "
                  "HostOffloader::HandleDynamicUpdateSlices and SliceLeadsToMoveToDeviceCustomCall "
                  "accept exactly this (the pattern host_offloader_test.cc tests as "
                  "activation offloading); no output is on the path.")
def remat_offload_scan_grad(hjax, platform):
    jax, jnp, dev = _env()
    policy = _offload_policy(jax, ["x"])

    def layer(x, w):
        x = checkpoint_name(x, "x")
        return jnp.tanh(x @ w), None

    def loss(ws, x):
        y, _ = jax.lax.scan(jax.checkpoint(layer, policy=policy, prevent_cse=False), x, ws)
        return jnp.sum(y * y)
    jf = jax.jit(jax.grad(loss))
    return _lower(hjax, platform, jf, _sds(jax, jnp, (4, 128, 128), dev),
                  _sds(jax, jnp, (16, 128), dev))


@program(deviceless=("XLA logs the host-compute warning (host_offloader.cc: \"Encountered "
                     "dynamic-slice on tensor which is in host memory. dynamic-slice.20 does not"
                     " move the tensor back to device ... will be converted into host compute\","
                     " then \"Found an instruction (\\\"dynamic-slice.20\\\") which does device "
                     "compute in host memory space\"; dynamic-slice.10 on GPU) and the compile "
                     "then fails with INTERNAL: on TPU \"during context [post-optimization]: The"
                     " async-start expects the shape of operand 0 to match the async shape at "
                     "index {0} (f32[2,3,8,64]{3,2,1,0:T(8,128)} vs "
                     "f32[2,3,8,64]{3,2,1,0:T(8,128)S(5)})\", on GPU \"during context "
                     "[end-of-post-layout_assignment]: Expected instruction to have shape equal "
                     "to (..., f32[2,3,8,64]{3,2,1,0}, ...), actual shape is (..., "
                     "f32[2,3,8,64]{3,2,1,0:S(5)}, ...)\" for the outer loop's tuple. So the "
                     "clean verdict once declared here was wrong. The S(5) value in that "
                     "tuple is the forward outer scan's dynamic-update-slice, which stacks the "
                     "inner scan's host stack and which XLA moves to host memory without a "
                     "warning."),
         verdict=INTERNAL, host_compute_warning=True,
         must_contain=('_xla_buffer_placement="pinned_host"',),
         evidence="The offload policy inside a scan nested in a scan: the inner scan stacks "
                  "its residuals by dynamic-update-slice after a MoveToHost, and the outer "
                  "scan stacks that host stack again by a dynamic-update-slice into its own "
                  "buffer. The backward outer scan's dynamic-slice of that buffer does not "
                  "lead to a MoveToDevice (it feeds the inner backward scan), so "
                  "the HostOffloader (host_offloader.cc, its \"does not move the tensor back "
                  "to device\" warning) makes it host compute; the module it "
                  "leaves has an S(5) value where the loop's shape says device memory.",
         xfail="XLA's compile fails after the offloading passes with INTERNAL (TPU: the "
               "async-start operand shape check after optimization; GPU: the "
               "end-of-post-layout_assignment shape check of the outer loop's tuple, an "
               "f32[2,3,8,64] in S(5) where device memory is expected); the tool models XLA "
               "only up to the HostOffloader and reports warnings only (HO2001, HO2002, "
               "HO3005, HO3007, HO3009), exit 0",
         xfail_warning=(
             "XLA converts one instruction into host compute, the backward outer scan's "
             "dynamic-slice of the stacked host buffer (dynamic-slice.10 on GPU, .20 on TPU); "
             "the tool warns HO2001 for it (dynamic_slice.10) and also for the forward outer "
             "scan's dynamic-update-slice (dynamic_update_slice.4) that writes the inner "
             "scan's host stack into the outer buffer, which XLA's HostOffloader moves to "
             "host memory without a warning (its S(5) result is what XLA's later INTERNAL "
             "shape check names: dynamic-update-slice.2 in tuple.9 on GPU)"))
def remat_offload_nested_scan_grad(hjax, platform):
    jax, jnp, dev = _env()
    policy = _offload_policy(jax, ["h"])

    def inner(h, w):
        h = checkpoint_name(h, "h")
        return jnp.sin(h @ w), None

    def outer(x, ws):
        y, _ = jax.lax.scan(jax.checkpoint(inner, policy=policy, prevent_cse=False), x, ws)
        return y, None

    def loss(ws, x):
        y, _ = jax.lax.scan(outer, x, ws)
        return jnp.sum(y)
    jf = jax.jit(jax.grad(loss))
    return _lower(hjax, platform, jf, _sds(jax, jnp, (2, 3, 64, 64), dev),
                  _sds(jax, jnp, (8, 64), dev))


# --- host compute -------------------------------------------------------------------------

@program(deviceless=("compiled, no host-compute warning: before the HostOffloader "
                     "(before_host-offloader dumps) the host computation is already an "
                     "async-start of a HostExecute custom-call on execution_thread \"host\", "
                     "which the HostOffloader does not walk into."),
         verdict=CLEAN, host_compute_warning=False,
         evidence="compute_on('device_host') lowers the update to a call with "
                  "_xla_compute_type=\"host\" on pinned_host inputs and outputs; the outputs "
                  "are declared pinned_host, so the paths from the host parameters and from "
                  "the gradient's MoveToHost end at S(5) outputs "
                  "(WalkDownHostMemoryOffloadPaths). GPU's HostComputeAsyncifier and "
                  "HostOffloadingPrepare (host_offloading_prepare.cc; libtpu runs "
                  "host-offloading-prepare-convert-to-custom-call) run before the "
                  "HostOffloader, which is why XLA logs no host-compute warning.",
         xfail_warning=(
             "XLA turns the _xla_compute_type=\"host\" call into an async HostExecute on "
             "execution_thread \"host\" before the HostOffloader (both backends' "
             "before_host-offloader dumps), so its walk never enters the host computation; "
             "the tool keeps the call, walks into it and warns HO2001 on the arithmetic "
             "inside"))
def compute_on_host_update(hjax, platform):
    jax, jnp, dev = _env()
    from jax.experimental.compute_on import compute_on
    host = dev.with_memory_kind("pinned_host")

    @compute_on("device_host")
    @jax.jit
    def update(p, m, g):
        m2 = 0.9 * m + 0.1 * g
        return p - 0.01 * m2, m2

    def step(p, m, g):
        return update(p, m, jax.device_put(g, host))
    jf = jax.jit(step, in_shardings=(host, host, dev), out_shardings=(host, host))
    return _lower(hjax, platform, jf, _sds(jax, jnp, (64, 128), host),
                  _sds(jax, jnp, (64, 128), host), _sds(jax, jnp, (64, 128), dev))


@program(deviceless="compiled, with the host-compute warning for multiply.1 and add.1.",
         verdict=CLEAN, host_compute_warning=True,
         evidence="A pinned_host parameter feeds a multiply and an add with no device_put: "
                  "HandleInputStreaming walks from the parameter, and "
                  "WalkDownHostMemoryOffloadPaths meets instructions it does not account for "
                  "(`need_to_wrap_instruction_as_host_compute`): it logs \"Found an "
                  "instruction ... which does device compute in host memory space. "
                  "Converting into host compute\" and goes on; out_shardings=device makes JAX "
                  "wrap the result in a MoveToDevice, which ends the path, so no E1200.")
def host_param_arithmetic(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")
    jf = jax.jit(lambda x: x * 2.0 + 1.0, in_shardings=(host,), out_shardings=dev)
    return _lower(hjax, platform, jf, _sds(jax, jnp, (16, 256), host))


# --- parameter offloading -----------------------------------------------------------------

@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("{2,1,0:S(5)}",),
         evidence="Stacked weights in pinned_host, one layer per scan step moved to device: "
                  "HandleInputStreaming walks from the host parameter into the while loop; "
                  "the per-layer dynamic-slice is followed by the MoveToDevice, which "
                  "SliceLeadsToMoveToDeviceCustomCall accepts as the end of the host path "
                  "(parameter streaming). JAX 0.10.2 lowers the scan's slice and body to "
                  "`call`s, which XLA inlines before the offloading passes (CallInliner in "
                  "RunPreSPMDPartitionerPasses, gpu_compiler.cc), and puts a `Sharding` "
                  "custom-call before the MoveToDevice, which ShardingRemover removes; the "
                  "squeeze is a bitcast reshape, which "
                  "InstructionIsAllowedBetweenDsAndMoveToDevice allows. So XLA is silent "
                  "(the tool, which inlines the calls and looks through the `Sharding` "
                  "custom-call, agrees).")
def param_streaming_scan(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def f(ws, x):
        def body(c, w):
            return jnp.tanh(c @ jax.device_put(w, dev)), None
        y, _ = jax.lax.scan(body, x, ws)
        return y
    jf = jax.jit(f, in_shardings=(host, dev), out_shardings=dev)
    return _lower(hjax, platform, jf, _sds(jax, jnp, (4, 128, 128), host),
                  _sds(jax, jnp, (16, 128), dev))


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("input_output_alias=",),
         evidence="Donated pinned_host parameters updated on device and returned to "
                  "pinned_host: JAX aliases each output to its donated input "
                  "(input_output_alias; both S(5)), the host parameters' paths end at their "
                  "MoveToDevice and the results' MoveToHost paths end at S(5) outputs "
                  "(WalkDownHostMemoryOffloadPaths).")
def donated_host_buffers(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def step(params, grads):
        new = jax.tree.map(lambda p, g: jax.device_put(jax.device_put(p, dev) - 0.1 * g, host),
                           params, grads)
        return new
    p = {"w": _sds(jax, jnp, (64, 128), host), "b": _sds(jax, jnp, (128,), host)}
    g = {"w": _sds(jax, jnp, (64, 128), dev), "b": _sds(jax, jnp, (128,), dev)}
    jf = jax.jit(step, in_shardings=({"w": host, "b": host}, {"w": dev, "b": dev}),
                 out_shardings={"w": host, "b": host}, donate_argnums=(0,))
    return _lower(hjax, platform, jf, p, g)


# --- outputs left in host memory ----------------------------------------------------------

@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("{2,1,0:S(5)}",),
         evidence="A scan stacks one host-put value per step into a pinned_host output and "
                  "one device value into a device output: the MoveToHost feeds the "
                  "dynamic-update-slice of the stacked carry, whose path ends at an S(5) "
                  "entry output (HandleDynamicUpdateSlices, WalkDownHostMemoryOffloadPaths); "
                  "the device stack never meets a MoveToHost.")
def outputs_left_in_host(hjax, platform):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def f(xs, c0):
        def body(c, x):
            y = jnp.sin(c * x)
            return c + 1.0, (jax.device_put(y, host), y * 2.0)
        _, (ys_h, ys_d) = jax.lax.scan(body, c0, xs)
        return ys_h, ys_d
    jf = jax.jit(f, out_shardings=(host, dev))
    return _lower(hjax, platform, jf, _sds(jax, jnp, (6, 32, 128), dev),
                  _sds(jax, jnp, (32, 128), dev))


# --- a nested-pytree train step whose optimizer state comes back in the wrong memory kind --

def _train_step_lowered(platform, with_out_shardings):
    jax, jnp, dev = _env()
    host = dev.with_memory_kind("pinned_host")

    def step(state, batch):
        params, opt = state["params"], state["opt_state"]
        grads = jax.tree.map(lambda p: jnp.mean(batch) * p, params)
        mu = jax.tree.map(lambda m, g: 0.9 * jax.device_put(m, dev) + 0.1 * g,
                          opt["mu"], grads)
        nu = jax.tree.map(lambda v, g: 0.99 * jax.device_put(v, dev) + 0.01 * g * g,
                          opt["nu"], grads)
        new_params = jax.tree.map(lambda p, m, v: p - 0.01 * m / (jnp.sqrt(v) + 1e-8),
                                  params, mu, nu)
        new_opt = {"mu": jax.tree.map(lambda m: jax.device_put(m, host), mu),
                   "nu": jax.tree.map(lambda v: jax.device_put(v, host), nu),
                   "count": opt["count"] + 1}
        return {"params": new_params, "opt_state": new_opt, "loss": jnp.sum(batch)}

    shapes = {"w": (64, 128), "b": (128,)}
    state = {
        "params": {k: _sds(jax, jnp, s, dev) for k, s in shapes.items()},
        "opt_state": {"mu": {k: _sds(jax, jnp, s, host) for k, s in shapes.items()},
                      "nu": {k: _sds(jax, jnp, s, host) for k, s in shapes.items()},
                      "count": _sds(jax, jnp, (), dev, jnp.int32)},
    }
    batch = _sds(jax, jnp, (8, 64), dev)
    kw = {}
    if with_out_shardings:
        kw["out_shardings"] = {
            "params": {"w": dev, "b": dev},
            "opt_state": {"mu": {"w": host, "b": host}, "nu": {"w": host, "b": host},
                          "count": dev},
            "loss": dev}
    return jax.jit(step, **kw).trace(state, batch).lower(lowering_platforms=(platform,))


_MU_NU = frozenset({"result['opt_state']['mu']['b']", "result['opt_state']['mu']['w']",
                    "result['opt_state']['nu']['b']", "result['opt_state']['nu']['w']"})


def _flip_result_kinds(text, paths, to="device"):
    """Rewrites the mhlo.memory_kind of the results named `paths` in StableHLO text."""
    count = 0
    for path in paths:
        pat = re.compile(r'(jax\.result_info = "' + re.escape(path) +
                         r'"(?:, [^,}]*)*?, mhlo\.memory_kind = )"pinned_host"')
        text, n = pat.subn(r'\1"' + to + '"', text)
        count += n
    if count != len(paths):
        raise AssertionError(f"flipped {count} result memory kinds, wanted {len(paths)}")
    return text


@program(deviceless="E1200, starting from tuple.1 (XLA stops at the first).",
         verdict=E1200, e1200_paths=_MU_NU,
         must_contain=('_xla_buffer_placement="pinned_host"',),
         evidence="The StableHLO of a train step whose optimizer state is put back to "
                  "pinned_host, as XLA receives it when the results' mhlo.memory_kind says "
                  "\"device\" (JAX 0.10.2 itself writes \"pinned_host\" there, so the text is "
                  "edited: the situation of a module exported or produced elsewhere). PJRT "
                  "gives those outputs memory space 0 (GetOutputMemoryKinds, "
                  "LayoutModesToXlaShapes in xla/pjrt/utils.cc) and each mu/nu MoveToHost "
                  "reaches its output: WalkDownHostMemoryOffloadPaths returns "
                  "CompileTimeHostOffloadOutputLocationMismatch (XLA stops at the first; "
                  "the tool reports every one).")
def train_step_opt_state_wrong_kind(hjax, platform):
    lowered = _train_step_lowered(platform, with_out_shardings=False)
    text = _flip_result_kinds(lowered.as_text(debug_info=True), sorted(_MU_NU))
    return hjax.from_stablehlo_text(text, platform=platform)


@program(deviceless="compiled, no host-compute warning.",
         verdict=CLEAN, must_contain=("{1,0:S(5)}",),
         evidence="The same train step as JAX 0.10.2 lowers it: the optimizer state's "
                  "results carry mhlo.memory_kind=\"pinned_host\", so every MoveToHost reaches "
                  "an S(5) output (WalkDownHostMemoryOffloadPaths); the parameters' host "
                  "inputs end at their MoveToDevice.")
def train_step_opt_state_host(hjax, platform):
    return hjax.from_jax(_train_step_lowered(platform, with_out_shardings=False))


@program(deviceless=("E1200, starting from custom-call.7 (the out_shardings MoveToHost: as in "
                     "put_unpinned_host_tuple_out_unpinned_host, the Sharding and "
                     "xla.sdy.FuncResultSharding custom-calls are gone before the "
                     "HostOffloader)."),
         verdict=E1200, e1200_paths=frozenset({"result['opt_state']['mu']['w']"}),
         must_contain=('custom_call_target="xla.sdy.FuncResultSharding"',),
         evidence="As train_step_opt_state_wrong_kind, with out_shardings (JAX adds "
                  "annotate_device_placement(\"pinned_host\") on those results, a second "
                  "MoveToHost) and one result's memory kind edited to \"device\"." +
                  _FUNC_RESULT_SHARDING_EVIDENCE + " E1200 on that output.",
         same_e1200_start="custom-call.7 in XLA and in the tool. " + _SAME_START_AS_XLA)
def train_step_out_shardings_wrong_kind(hjax, platform):
    lowered = _train_step_lowered(platform, with_out_shardings=True)
    text = _flip_result_kinds(lowered.as_text(debug_info=True),
                              ["result['opt_state']['mu']['w']"])
    return hjax.from_stablehlo_text(text, platform=platform)
