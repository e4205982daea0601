"""The child side of a deviceless XLA compile (`hlo_offload._xla`): run as a script by the
package with the backend's compile-only client on its path, never imported by the package
itself (it imports JAX, and the client must not load into the caller's process).

    python _xla_compile.py REQUEST.json RESULT.json

REQUEST: {"backend": "tpu"|"cuda", "topology": "v5e:2x2"|"h100_sxm", "target_config": text
(cuda), "num_partitions": N, "module_file": path, "module_format": "stablehlo"|"hlo",
"module_name": str, "result_memory_kinds": [kind per flat result] or null}.
RESULT: {"stage": "load"|"convert"|"compile", "ok": bool, "error": text, "error_type": str,
"seconds": compile time, "plugin": "libtpu 0.0.42.1", "notes": [...], "memory": {field:
bytes} of the executable's memory analysis (MEMORY_FIELDS), "entry_layout": the compiled
module's entry_computation_layout with XLA's layouts}.

XLA's log (host-compute warnings, E1200 context) goes to this process's standard error,
which the parent reads. A CHECK failure inside XLA ends this process with a signal; the
parent reports that as XLA crashing.

Also imported by the project's scripts/xla_deviceless tools for `Target`.

JAX's objects (devices, the client, MLIR modules and ops, jaxlib's HLO bindings) are typed
`Any`: JAX is imported inside the functions and its types are not followed (pyproject.toml).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from types import ModuleType
from typing import (Any, Callable, Dict, List, Literal, Optional, Sequence, Set, Tuple,
                    TypedDict, Union)

# A layout's memory space: `{1,0:S(5)}`, `{0:T(256)S(5)}`.
_MEMORY_SPACE_RE = re.compile(r"S\((\d+)\)")
# Memory space -> JAX memory kind (xla/pjrt/utils.cc, GetMemorySpaceColor).
_KIND_OF_SPACE = {5: "pinned_host", 6: "unpinned_host"}


class Request(TypedDict):
    """REQUEST (the module's doc), as `hlo_offload._xla` writes it."""

    backend: str  # "tpu" or "cuda"
    topology: str
    target_config: Optional[str]  # GpuTargetConfigProto text (cuda), else None
    num_partitions: int
    module_file: str
    module_format: str  # "stablehlo" or "hlo"
    module_name: str
    result_memory_kinds: Optional[Sequence[str]]


class HostBuffer(TypedDict):
    """A buffer in host memory that the compiled module defines (_host_buffers)."""

    name: str
    opcode: str  # jaxlib's HloOpcode name without its class: "kCopyStart"
    shape: str  # with XLA's layout
    computation: str
    returned: bool  # the entry computation returns it (an output, not a temp)


class _ResultFields(TypedDict):
    stage: Literal["load", "convert", "compile"]
    ok: bool
    notes: List[str]


class Result(_ResultFields, total=False):
    """RESULT (the module's doc): `stage`, `ok` and `notes` always; the rest as far as the
    compile got (`error` and `error_type` when it raised)."""

    error: str
    error_type: str
    seconds: float
    plugin: str
    memory: Dict[str, int]
    entry_layout: str
    host_buffers: List[HostBuffer]


class Target(object):
    """A compile-only device of one backend, and how to compile for it."""

    def __init__(self, backend: str, topology: str, target_config_text: Optional[str] = None,
                 num_partitions: int = 1, spmd: bool = True) -> None:
        """A 1-device target, or one of `num_partitions` devices (SPMD-partitioned when
        `spmd`, else each partition runs the module as written, as XLA's MPMD mode).

        For tpu, `topology` must have at least that many devices (v5e:2x2 has 4, v5e:2x4 8);
        for cuda the topology is 1 x 1 x num_partitions GPUs of the target config.
        Raises RuntimeError when the topology has too few devices; the client's own
        exception when it cannot be made.
        """
        import numpy as np
        from jax.experimental import topologies
        from jax._src import compiler
        from jax._src.lib import xla_client as xc
        self.backend = backend
        self.topology = topology
        if backend == "tpu":
            topo = topologies.get_topology_desc(platform="tpu", topology_name=topology)
        else:
            topo = topologies.get_topology_desc(
                platform="cuda", topology_name="", target_config=target_config_text,
                topology="1x1x%d" % num_partitions)
        if len(topo.devices) < num_partitions:
            raise RuntimeError("topology %s has %d devices, the module needs %d"
                               % (topology, len(topo.devices), num_partitions))
        self.devices: Sequence[Any] = topo.devices[:num_partitions]
        self.device: Any = topo.devices[0]
        self.client: Any = self.device.client
        self._xc: ModuleType = xc
        self.options: Any = compiler.get_compile_options(  # jaxlib's CompileOptions
            num_replicas=1, num_partitions=num_partitions,
            device_assignment=np.array([list(self.devices)], dtype=object))
        # JAX always asks for SPMD partitioning; a module without shardings that reads
        # partition-id is written per partition and would be refused by the partitioner.
        self.options.executable_build_options.use_spmd_partitioning = bool(spmd)

    def memory_kinds(self) -> Union[List[str], str]:
        """Sorted memory kinds of the target device, or a string saying why there are none."""
        try:
            return sorted(str(m.kind) for m in self.device.addressable_memories())
        except Exception as e:  # not every compile-only device lists memories
            return "unavailable: %r" % (e,)

    def compile_mlir(self, module: Any) -> Any:
        """Compiles an ir.Module (inside its context); returns the executable or raises
        XLA's error (E1200 and the rest come as the client's exception)."""
        return self.client.compile(module, executable_devices=self._xc.DeviceList(
            tuple(self.devices)), compile_options=self.options)


def _leaf_spaces(shape: Any) -> List[int]:
    """Memory space of each array leaf of an xla_client Shape, depth first."""
    if shape.is_tuple():
        return [s for t in shape.tuple_shapes() for s in _leaf_spaces(t)]
    layout = shape.layout() if shape.is_array() else None
    m = _MEMORY_SPACE_RE.search(layout.to_string()) if layout is not None else None
    return [int(m.group(1)) if m else 0]


def hlo_text_to_module(hlo_text: str, module_name: str) -> Tuple[Any, Any, List[str]]:
    """HLO text -> (ir.Module in a fresh JAX MLIR context, context, notes).

    XLA's own parser reads the text (jaxlib's hlo_module_from_text); jaxlib converts it to
    StableHLO, which drops layouts, so the host memory spaces of the entry parameters and
    results (from the parsed program shape) are restated as `mhlo.memory_kind` attributes,
    as JAX states them and PJRT turns them back into layouts (xla/pjrt/utils.cc). Tuple
    parameters and nested result tuples cannot be restated: a note says so. Raises the
    parser's or converter's exception.
    """
    from jax._src.interpreters import mlir
    from jax._src.lib import _jax
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir
    from jaxlib import _hlo
    notes: List[str] = []
    hlo_module = _hlo.hlo_module_from_text(hlo_text)
    proto = hlo_module.as_serialized_hlo_module_proto()
    program = xc.XlaComputation(proto).program_shape()
    bytecode = _jax.mlir.hlo_to_stablehlo(proto)
    ctx = mlir.make_ir_context()
    with ctx:
        module = ir.Module.parse(bytecode)
        module.operation.attributes["sym_name"] = ir.StringAttr.get(module_name)
        main = _main(module, ir)
        ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        params = program.parameter_shapes()
        if any(p.is_tuple() and any(_leaf_spaces(p)) for p in params):
            notes.append("a tuple parameter has leaves in host memory: their memory kinds "
                         "are not restated")
        p_spaces = [0 if p.is_tuple() else _leaf_spaces(p)[0] for p in params]
        result = program.result_shape()
        r_spaces: Optional[List[int]] = _leaf_spaces(result)
        if result.is_tuple() and any(t.is_tuple() for t in result.tuple_shapes()):
            notes.append("the result is a nested tuple: its memory kinds are not restated")
            r_spaces = None
        _set_memory_kinds(main, "arg_attrs", p_spaces, len(ftype.inputs), ir, notes)
        _set_memory_kinds(main, "res_attrs", r_spaces, len(ftype.results), ir, notes)
        _drop_empty_tilings(module.operation, ir)
    return module, ctx, notes


# The custom_call attributes that jaxlib 0.12's HLO-to-StableHLO conversion writes, empty,
# on every custom-call with layouts (a Pallas kernel's tpu_custom_call): an op with them is
# a `custom_call_v2`, which the StableHLO version of an older plugin (libtpu 0.0.52: 1.16.3)
# cannot express, so that the compile fails while serializing ("Failed to serialize StableHLO
# to plugin version"). Empty, they say nothing; JAX's own lowering does not write them.
_TILING_ATTRS = ("operand_tilings", "result_tilings")


def _drop_empty_tilings(op: Any, ir: ModuleType) -> None:
    """Removes the custom-calls' empty tiling attributes (_TILING_ATTRS), recursively."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                if child.name == "stablehlo.custom_call":
                    for name in _TILING_ATTRS:
                        if name in child.attributes and all(
                                len(ir.ArrayAttr(t)) == 0
                                for t in ir.ArrayAttr(child.attributes[name])):
                            del child.attributes[name]
                _drop_empty_tilings(child, ir)


# JAX's custom_partitioning custom-call and what it becomes here (_spmd_partition's doc).
CUSTOM_PARTITIONING = "CustomSPMDPartitioning"
OPAQUE_CUSTOM_PARTITIONING = "hlo_offload.custom_partitioning"


def prepare_sharding(module: Any) -> Tuple[bool, List[str]]:
    """Undoes what the HLO-to-StableHLO conversion adds that XLA's partitioning of the
    original module would not see (_spmd_partition's doc: Shardy round-trip modules lose
    their GSPMD `mhlo.sharding` twins, a `{replicated}` beside named shardings gets their
    mesh, custom_partitioning calls become opaque); inside the module's context. Returns
    (whether Shardy partitions the module, notes for the user)."""
    from jax._src.lib.mlir import ir
    top = module.operation
    front = top.attributes["mhlo.frontend_attributes"] \
        if "mhlo.frontend_attributes" in top.attributes else None
    round_trip = front is not None and "xla.sdy.meshes" in ir.DictAttr(front)
    funcs: List[Any] = []  # every func.func
    ops: List[Any] = []  # every other op with an mhlo.sharding
    opaque: List[str] = []

    def visit(op: Any) -> None:
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
    notes: List[str] = []
    if opaque:
        shown = ", ".join('"%s"' % o for o in opaque[:3]) + (", ..." if len(opaque) > 3 else "")
        notes.append(
            "%d %s custom-call%s of jax.experimental.custom_partitioning (%s) %s partitioned "
            "as replicated: their own partitioning is a Python callback of the process that "
            "lowered the module" % (len(opaque), CUSTOM_PARTITIONING,
                                    "" if len(opaque) == 1 else "s", shown,
                                    "is" if len(opaque) == 1 else "are"))
    return round_trip or mesh is not None, notes


def _first_named_mesh(funcs: Sequence[Any], ops: Sequence[Any],
                      ir: ModuleType) -> Optional[str]:
    """The `mesh[...]` of the first named sharding (HloShardingV3, as JAX 0.12.1 prints
    `sharding={mesh['data'=1,'fsdp'=8], [{'fsdp'}, {}]}`), or None when there is none."""
    def mesh_of(value: str) -> Optional[str]:
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


def _edit_shardings(func: Any, ir: ModuleType, edit: Callable[[str], Optional[str]]) -> None:
    """Replaces each `mhlo.sharding` of a function's arguments and results by
    edit(value): a str, or None to remove it."""
    for name in ("arg_attrs", "res_attrs"):
        if name not in func.attributes:
            continue
        dicts: List[Any] = []
        changed = False
        for d in ir.ArrayAttr(func.attributes[name]):
            d = ir.DictAttr(d)
            entries: Dict[str, Any] = {d[j].name: d[j].attr for j in range(len(d))}
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


def _location_name(location: Any) -> str:
    """The HLO instruction name an op's location carries (`loc("custom-call.5")`)."""
    text = str(location)
    start = text.find('"')
    end = text.find('"', start + 1)
    return text[start + 1:end] if 0 <= start < end else text


def _main(module: Any, ir: ModuleType) -> Any:
    """The module's @main func.func op; raises RuntimeError when there is none."""
    for op in module.body.operations:
        if op.operation.name == "func.func" and \
                ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise RuntimeError("the module has no @main function")


def _set_memory_kinds(main: Any, attr_name: str, spaces: Optional[Sequence[int]], count: int,
                      ir: ModuleType, notes: List[str]) -> None:
    """Sets `mhlo.memory_kind` of each argument or result of `main` whose memory space is
    host memory (keeps every other attribute); `spaces` None leaves them as they are."""
    if spaces is None:
        return
    if len(spaces) != count:
        notes.append("the module has %d %s in its layout and @main %d: memory kinds not "
                     "restated" % (len(spaces), attr_name, count))
        return
    kinds = [_KIND_OF_SPACE.get(s) for s in spaces]
    _set_kinds(main, attr_name, kinds, ir, keep_device=True)


def _set_kinds(main: Any, attr_name: str, kinds: Sequence[Optional[str]], ir: ModuleType,
               keep_device: bool = False) -> None:
    """Writes `mhlo.memory_kind` = kinds[i] on argument/result i ("device" removes a host
    kind; None, or "device" with keep_device, leaves the entry as it is)."""
    if not any(k not in (None, "device") for k in kinds) and keep_device:
        return
    old = main.attributes[attr_name] if attr_name in main.attributes else None
    dicts: List[Any] = []
    for i, kind in enumerate(kinds):
        entries: Dict[str, Any] = {}
        if old is not None:
            d = ir.DictAttr(ir.ArrayAttr(old)[i])
            for j in range(len(d)):
                entries[d[j].name] = d[j].attr
        if kind in ("pinned_host", "unpinned_host"):
            entries["mhlo.memory_kind"] = ir.StringAttr.get(kind)
        elif kind == "device" and not keep_device:
            entries.pop("mhlo.memory_kind", None)
        dicts.append(ir.DictAttr.get(entries))
    main.attributes[attr_name] = ir.ArrayAttr.get(dicts)


def _plugin_version(backend: str) -> str:
    """The backend's plugin and its version ("libtpu 0.0.42.1"), or only its name."""
    from importlib import metadata
    name = {"tpu": "libtpu", "cuda": "jax-cuda12-plugin"}[backend]
    try:
        return "%s %s" % (name, metadata.version(name))
    except Exception:  # a plugin found without its metadata
        return name


def run(request: Request, out: Result) -> None:
    """Compiles the request's module, filling `out`, the RESULT object (see the module's
    doc) as it goes; raises what stops it (its stage is in `out`)."""
    out["plugin"] = _plugin_version(request["backend"])
    target = Target(request["backend"], request["topology"], request.get("target_config"),
                    int(request.get("num_partitions") or 1))
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir
    out["stage"] = "convert"
    with open(request["module_file"], "rb") as fh:
        data = fh.read()
    name = request.get("module_name") or "module"
    if request["module_format"] == "hlo":
        module, ctx, notes = hlo_text_to_module(data.decode("utf-8"), name)
        out["notes"] += notes
        if int(request.get("num_partitions") or 1) > 1:
            with ctx:
                shardy, notes = prepare_sharding(module)
            out["notes"] += notes
            target.options.executable_build_options.use_shardy_partitioner = shardy
    else:
        ctx = mlir.make_ir_context()
        with ctx:
            module = ir.Module.parse(data)
            module.operation.attributes["sym_name"] = ir.StringAttr.get(name)
    kinds = request.get("result_memory_kinds")
    if kinds is not None:
        with ctx:
            main = _main(module, ir)
            ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
            if len(kinds) != len(ftype.results):
                raise RuntimeError("%d result memory kinds for %d results of @main"
                                   % (len(kinds), len(ftype.results)))
            _set_kinds(main, "res_attrs", kinds, ir)
    out["stage"] = "compile"
    start = time.perf_counter()
    with ctx:
        executable = target.compile_mlir(module)
    out["seconds"] = time.perf_counter() - start
    out["ok"] = True
    out["memory"], out["entry_layout"], out["host_buffers"] = _memory_analysis(executable)


# The executable's memory analysis (jaxlib's CompiledMemoryStats, what
# `Compiled.memory_analysis()` returns; xla::CompiledMemoryStats): per device, in bytes.
# Every int field is kept (newer jaxlibs add peak_memory_in_bytes, total_allocation_bytes...).
MEMORY_FIELDS = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                 "temp_size_in_bytes", "generated_code_size_in_bytes",
                 "host_argument_size_in_bytes", "host_output_size_in_bytes",
                 "host_alias_size_in_bytes", "host_temp_size_in_bytes",
                 "host_generated_code_size_in_bytes")


# Opcodes whose result shares the storage of an operand or of another value (XLA's
# HloDataflowAnalysis defines no new buffer for them): a host buffer is defined elsewhere.
_FORWARDING_OPCODES = frozenset((
    "kParameter", "kGetTupleElement", "kTuple", "kBitcast", "kCopyDone", "kWhile",
    "kConditional", "kCall", "kOptimizationBarrier", "kDynamicUpdateSlice", "kAsyncDone",
    "kAsyncUpdate", "kDomain", "kAddDependency"))


def _memory_analysis(executable: Any) -> Tuple[Dict[str, int], str, List[HostBuffer]]:
    """({field: bytes} of the compiled executable's memory analysis, the compiled module's
    entry_computation_layout with XLA's layouts (TPU tiles), "" when it cannot be read,
    the host buffers the compiled module defines: [{"name", "opcode", "shape"}], the
    shape with XLA's layout); ({}, "", []) where the client does not give them."""
    memory: Dict[str, int] = {}
    try:
        stats = executable.get_compiled_memory_stats()
    except Exception:  # not every client implements it
        stats = None
    if stats is not None:
        names = list(MEMORY_FIELDS) + sorted(
            n for n in dir(stats) if not n.startswith("_") and n not in MEMORY_FIELDS)
        for name in names:
            value = getattr(stats, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                memory[name] = value
    layout = ""
    buffers: List[HostBuffer] = []
    try:
        module = executable.hlo_modules()[0]
        text = module.to_string()
        header = text.split("\n", 1)[0]  # the HloModule line
        at = header.find("entry_computation_layout=")
        if at >= 0:
            layout = _braced(header, at + len("entry_computation_layout="))
        buffers = _host_buffers(module, text)
    except Exception:
        pass
    return memory, layout, buffers


def _host_buffers(module: Any, text: str) -> List[HostBuffer]:
    """The buffers in host memory (S(5)) that the compiled module's non-fusion
    instructions define: a result that forwards no other value's storage (not
    _FORWARDING_OPCODES), and the destination of a copy-start (element {0} of its
    tuple); "returned" when the entry computation returns it (an output, not a temp).
    `text` is the module's printed text (it names the entry computation)."""
    at = text.find("\nENTRY ")
    entry_name = text[at + 7:].split(" ", 1)[0].lstrip("%") if at >= 0 else None
    out: List[HostBuffer] = []
    returned: Set[str] = set()
    for computation in module.make_nonfusion_computations():
        if _get(computation, "name") == entry_name:
            returned = _returned(_get(computation, "root_instruction"))
        for instr in _get(computation, "instructions"):
            opcode = str(_get(instr, "opcode")).rsplit(".", 1)[-1]
            if opcode in _FORWARDING_OPCODES:
                continue
            shape = _get(instr, "shape")
            if opcode == "kCopyStart" and shape.is_tuple():
                shape = shape.tuple_shapes()[0]
            if not shape.is_array():
                continue
            # The parent reads the memory space with its own parser; here only a filter.
            shape_text = str(shape)
            if "S(5)" in shape_text[shape_text.find("{"):]:
                out.append({"name": _get(instr, "name"), "opcode": opcode,
                            "shape": shape_text, "computation": _get(computation, "name"),
                            "returned": False})
    for b in out:
        b["returned"] = b["name"] in returned
    return out


def _get(obj: Any, name: str) -> Any:
    """jaxlib's HLO bindings give some properties as methods and others as attributes,
    differently by version: the value either way."""
    value = getattr(obj, name)
    return value() if callable(value) else value


def _returned(root: Any) -> Set[str]:
    """Names of the instructions whose buffers the entry root returns: through tuples
    and the forwarding instructions of the root's operands (bitcast, copy-done, ...)."""
    names: Set[str] = set()
    stack = [root]
    while stack:
        instr = stack.pop()
        name = _get(instr, "name")
        if name in names:
            continue
        names.add(name)
        opcode = str(_get(instr, "opcode")).rsplit(".", 1)[-1]
        operands = list(_get(instr, "operands"))
        if opcode == "kTuple":
            stack.extend(operands)
        elif opcode in _FORWARDING_OPCODES and operands:
            stack.append(operands[0])
    return names


def _braced(text: str, start: int) -> str:
    """The balanced `{...}` of `text` that starts at `start` ("" when unbalanced)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    return ""


def main(argv: Sequence[str]) -> int:
    """Reads REQUEST, writes RESULT; exits 0 when RESULT was written (whatever XLA said)."""
    with open(argv[1]) as fh:
        request: Request = json.load(fh)
    out: Result = {"stage": "load", "ok": False, "notes": []}
    start = time.perf_counter()
    try:
        run(request, out)
    except Exception as e:  # XLA's verdict (or why there is none): the stage says which
        out["error"] = str(e)
        out["error_type"] = type(e).__name__
        out.setdefault("seconds", time.perf_counter() - start)
    with open(argv[2] + ".tmp", "w") as fh:
        json.dump(out, fh)
    os.replace(argv[2] + ".tmp", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
