"""Sharded JAX programs: modules with several partitions.

The meshes are `jax.sharding.AbstractMesh`es, so JAX 0.10.2 lowers an 8-device program on
this one-device machine (for TPU, `lowering_platforms=("tpu",)`); the module says
`mhlo.num_partitions = 8`."""
import re

import pytest

jax = pytest.importorskip("jax", reason="the programs are JAX programs (pip install '.[jax]')")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import AbstractMesh, NamedSharding, PartitionSpec as P  # noqa: E402

import hlo_offload  # noqa: E402
from hlo_offload import _jax  # noqa: E402

F32 = jnp.float32


def streaming_step(devices=8):
    """Parameter streaming over an FSDP mesh: the stacked weights live in pinned host
    memory, sharded on their input dimension, and each scan step moves its layer to the
    device replicated. XLA's SPMD partitioner all-gathers the layer between the host
    dynamic-slice and the MoveToDevice, so XLA (libtpu 0.0.42.1, v5e:2x4) converts the
    slices and all-gathers into host compute."""
    mesh = AbstractMesh((devices,), ("fsdp",))
    # An AbstractMesh's sharding has no memory kind unless given: device_put to one
    # without "device" would leave the layer where it is (in host memory).
    rep = NamedSharding(mesh, P(), memory_kind="device")
    host = NamedSharding(mesh, P(None, "fsdp"), memory_kind="pinned_host")

    def step(ws, x):
        def body(x, w):
            w = jax.device_put(w, rep)
            return jnp.tanh(x @ w), None
        y, _ = jax.lax.scan(body, x, ws)
        return y
    f = jax.jit(step, in_shardings=(host, rep), out_shardings=rep)
    return f, (jax.ShapeDtypeStruct((4, 256, 256), F32), jax.ShapeDtypeStruct((64, 256), F32))


def test_converted_module_keeps_its_partition_count():
    f, args = streaming_step()
    xi = _jax.from_jax(f, *args)
    first = xi.hlo_text.split("\n", 1)[0]
    assert re.search(r", num_partitions=8, frontend_attributes=", first), first
    # XLA's own parser reads it back with the count.
    from jax._src.lib import xla_client
    module = xla_client.hlo.hlo_module_from_text(xi.hlo_text)
    assert "num_partitions=8" in module.to_string().split("\n", 1)[0]


def test_one_device_module_has_no_partition_count():
    f, args = streaming_step(devices=1)
    assert "num_partitions" not in _jax.from_jax(f, *args).hlo_text.split("\n", 1)[0]


def test_xla_compiles_a_sharded_program_for_its_partitions():
    from hlo_offload import _xla
    if not _xla.installed("tpu"):
        pytest.skip("XLA's tpu compile-only client is not installed: hlo-offload install-xla tpu")
    f, args = streaming_step()
    result = hlo_offload.check(f, *args, xla="tpu")
    # 8 partitions: the smallest v5e topology with 8 chips, and XLA's partitioner's
    # all-gathers on the host path become host compute (the deviceless compile's log).
    assert result.xla.topology == "v5e:2x4"
    assert result.xla.ok
    ops = sorted(h["opcode"] for h in result.xla.host_compute)
    assert ops == ["all-gather", "all-gather", "dynamic-slice", "slice"], ops


def test_partitioner_collectives_on_a_host_path_are_host_compute():
    # The partitioned module (jaxlib's CPU compiler ran XLA's SPMD partitioner): the
    # all-gather sits between the host dynamic-slice and the MoveToDevice, as in the
    # deviceless TPU compile's module after tpu-spmd-partitioning.
    f, args = streaming_step()
    result = hlo_offload.check(f, *args)
    assert any("8 partitions: checked as XLA's SPMD partitioner gives it" in n
               for n in result.notes), result.notes
    warned = sorted(d.instruction for d in result.diagnostics if d.code == "HO2001")
    assert warned == ["all-gather", "dynamic-slice"], warned
    assert "f32[1,32,256]" in result.hlo_text      # per-device shapes
    lines = {d.source for d in result.diagnostics if d.code == "HO2001"}
    assert len(lines) == 1   # both are the user's scan line, located there


def test_sharded_streaming_agrees_with_xla_up_to_the_peeled_iteration():
    from hlo_offload import _xla
    if not _xla.installed("tpu"):
        pytest.skip("XLA's tpu compile-only client is not installed: hlo-offload install-xla tpu")
    f, args = streaming_step()
    result = hlo_offload.check(f, *args, xla="tpu")
    # XLA confirms both warnings; what it adds is the first iteration's slice and
    # all-gather, which TPU's collective pipeliner (the `pipelining` passes after
    # tpu-spmd-partitioning, before the HostOffloader) peels out of the loop.
    assert all(d.xla_confirmed for d in result.diagnostics if d.code == "HO2001")
    missed = sorted(re.search(r"XLA converts (\S+) ", x).group(1)
                    for x in result.xla_disagreements)
    assert missed == ["all-gather.3", "slice"], result.xla_disagreements


def e1200_behind_func_result_sharding(devices=8):
    """A step whose optimizer state is put in pinned host memory while the result's
    memory kind says device: the StableHLO as XLA receives it when a module exported or
    produced elsewhere says "device" (JAX 0.10.2 itself writes "pinned_host" there, so the
    text is edited). The state reaches the output through xla.sdy.FuncResultSharding."""
    mesh = AbstractMesh((devices,), ("fsdp",))
    dev = NamedSharding(mesh, P("fsdp"), memory_kind="device")
    host = NamedSharding(mesh, P("fsdp"), memory_kind="pinned_host")

    def step(w, mu, g):
        mu = jax.device_put(mu, dev) * 0.9 + g
        return w - 0.1 * mu, jax.device_put(mu, host)
    f = jax.jit(step, in_shardings=(dev, host, dev), out_shardings=(dev, host))
    sds = jax.ShapeDtypeStruct((256, 128), F32)
    text = f.trace(sds, sds, sds).lower(lowering_platforms=("tpu",)).as_text(
        debug_info=True)
    pat = re.compile(r'(jax\.result_info = "result\[1\]"(?:, [^,}]*)*?, '
                     r'mhlo\.memory_kind = )"pinned_host"')
    text, n = pat.subn(r'\1"device"', text)
    assert n == 1
    return text


@pytest.mark.parametrize("devices", [1, 8])
def test_e1200_behind_func_result_sharding(devices):
    text = e1200_behind_func_result_sharding(devices)
    assert "xla.sdy.FuncResultSharding" in _jax.from_stablehlo_text(text).hlo_text
    result = hlo_offload.check(text)
    errors = [d for d in result.diagnostics if d.code == "E1200"]
    assert len(errors) == 1, str(result)
    assert errors[0].output_path == "result[1]"


def test_report_of_a_sharded_program_is_per_device_with_the_global_figures():
    f, args = streaming_step()
    report = hlo_offload.report(f, *args)
    data = report.to_json()
    # The host parameter f32[4,256,256] (1 MiB) is f32[4,32,256] on each of 8 devices.
    assert data["host_bytes_in"] == 4 * 32 * 256 * 4
    note = next(n for n in report.notes if n.startswith("the report's bytes are per device"))
    assert f"host bytes in {4 * 256 * 256 * 4} bytes" in note, note


def _read_half_layers():
    """A scan reading half of each layer's rows from pinned host memory: the host
    dynamic-slice slices two dimensions (1 of 4 layers, 128 of 256 rows)."""
    mesh = AbstractMesh((1,), ("x",))
    host = NamedSharding(mesh, P(), memory_kind="pinned_host")
    dev = NamedSharding(mesh, P(), memory_kind="device")

    def step(ws, x):
        def body(x, i):
            w = jax.lax.dynamic_slice(ws, (i, 0, 0), (1, 128, 256))[0]
            w = jax.device_put(w, dev)
            return jnp.tanh(x @ w.T) @ w, None
        y, _ = jax.lax.scan(body, x, jnp.arange(4))
        return y
    f = jax.jit(step, in_shardings=(host, dev), out_shardings=dev)
    return f, (jax.ShapeDtypeStruct((4, 256, 256), F32), jax.ShapeDtypeStruct((8, 256), F32))


def test_tpu_refuses_an_async_slice_of_two_dimensions():
    # Lowered for TPU with libtpu 0.0.42's semantics: HO1013 is an error (libtpu 0.0.42.1:
    # UNIMPLEMENTED "Async slice only supports slicing in 1 dimension"); libtpu 0.0.52
    # compiles it (deviceless, jax 0.12.0.1), and so does the CUDA plugin: not reported.
    f, args = _read_half_layers()
    old = hlo_offload.check(f, *args, xla_version="libtpu-0.0.42.1")
    errors = [d for d in old.diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["HO1013"], errors
    assert old.to_json()["xla_semantics"].startswith("libtpu 0.0.42,")
    new = hlo_offload.check(f, *args, xla_version="libtpu-0.0.52")
    assert new.ok and "HO1013" not in {d.code for d in new.diagnostics}, new
    assert "HO1013" not in {d.code for d in hlo_offload.check(
        f, *args, platform="cuda", xla_version="libtpu-0.0.42.1").diagnostics}


def test_async_slice_error_agrees_with_xla():
    from hlo_offload import _xla
    if not _xla.installed("tpu"):
        pytest.skip("XLA's tpu compile-only client is not installed: hlo-offload install-xla tpu")
    f, args = _read_half_layers()
    # With the installed libtpu's semantics (the default) the tool agrees with it:
    # libtpu 0.0.42 refuses the module, libtpu 0.0.52 compiles it.
    result = hlo_offload.check(f, *args, xla="tpu")
    if result.xla.plugin.startswith("libtpu 0.0.42"):
        assert result.xla.status == "UNIMPLEMENTED" and result.xla.code is None
        assert any(d.code == "HO1013" for d in result.diagnostics)
    else:
        assert result.xla.ok, result.xla
        assert not any(d.code == "HO1013" for d in result.diagnostics)
    assert result.xla_agrees, result.xla_disagreements
    assert all(d.xla_confirmed for d in result.diagnostics if d.code == "HO1013")


def test_console_command_partitions_a_sharded_mlir_file(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "step.mlir"
    path.write_text(e1200_behind_func_result_sharding(8))
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert "the module has 8 partitions: checked as XLA's SPMD partitioner gives it" in proc.stderr
    assert "error: E1200:" in proc.stderr
    # fix edits the module as written: no partitioning there.
    fixed = subprocess.run([sys.executable, "-m", "hlo_offload", "fix", "--strategy=host-output", str(path)],
                           capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stderr
    assert "partitions: checked" not in fixed.stderr
