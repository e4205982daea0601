"""Sharded JAX programs: modules with several partitions.

The meshes are `jax.sharding.AbstractMesh`es, so JAX 0.10.2 lowers an 8-device program on
this one-device machine (for TPU, `lowering_platforms=("tpu",)`); the module says
`mhlo.num_partitions = 8`."""
import re

import pytest

jax = pytest.importorskip("jax", reason="the programs are JAX programs")
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
