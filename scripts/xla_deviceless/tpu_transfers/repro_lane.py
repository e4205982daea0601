"""Limit 1: lane (minor-dimension) slicing of an async dynamic-update-slice into pinned_host.

  .venv/bin/python repro_lane.py --variant NAME        # the libtpu of ~/.cache/hlo-offload-xla-deviceless/tpu
  (common.py: which libtpu, where the dumps go)
  ... --list  | --variant all

Each variant is a small jitted program on one device of v5e:2x2 (or 8 devices of v5e:2x4 for
the *_8dev ones) whose loop writes into a pinned_host buffer. Prints VERDICT and the host
DUS/DS/copies of the module after XLA's HostOffloader pass. Dumps under
dumps/<libtpu>/repro_lane/<variant>/.
"""
import common  # noqa: F401  (sets env + libtpu path before jax)
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

L = 4
F32, BF16 = jnp.float32, jnp.bfloat16

# name -> spec
#  kind scan : lax.scan whose body moves its per-iteration output `per` to host (JAX stacks
#              ys with a dynamic-update-slice into a [L, *per] buffer inside the while loop)
#  kind scan2: the same with two host outputs of the same shape (one zero-broadcast shared)
#  kind dus  : fori_loop; buf = zeros(buf) ; buf = dynamic_update_slice(buf, host(upd), idx(i))
#  kind scan_dev_then_host: fix; stack on device, move the whole ys to host after the loop
VARIANTS = {
    # --- scan stacking on host ---
    "scan_scalar":       dict(kind="scan", per=(), dtype=F32),          # ys f32[4]   rank 1
    "scan_vec1":         dict(kind="scan", per=(1,), dtype=F32),        # ys f32[4,1]
    "scan_vec100":       dict(kind="scan", per=(100,), dtype=F32),      # ys f32[4,100]
    "scan_vec128":       dict(kind="scan", per=(128,), dtype=F32),      # ys f32[4,128]
    "scan_mat8x128":     dict(kind="scan", per=(8, 128), dtype=F32),    # ys f32[4,8,128]
    "scan_mat3x100":     dict(kind="scan", per=(3, 100), dtype=F32),    # ys f32[4,3,100]
    "scan_bf16_scalar":  dict(kind="scan", per=(), dtype=BF16),
    "scan_bf16_vec128":  dict(kind="scan", per=(128,), dtype=BF16),
    "scan_bf16_mat":     dict(kind="scan", per=(16, 128), dtype=BF16),
    "scan_scalar_L128":  dict(kind="scan", per=(), dtype=F32, L=128),   # ys f32[128]
    "scan_scalar_L256":  dict(kind="scan", per=(), dtype=F32, L=256),
    # stacked dim = second-minor with a T(8,128) tile, several lane tiles per row
    "scan_L16_vec256":   dict(kind="scan", per=(256,), dtype=F32, L=16),    # ys f32[16,256]
    "scan_L16_vec128":   dict(kind="scan", per=(128,), dtype=F32, L=16),    # ys f32[16,128]
    "scan_L8_vec256":    dict(kind="scan", per=(256,), dtype=F32, L=8),
    "scan_L4_vec256":    dict(kind="scan", per=(256,), dtype=F32, L=4),
    # per-iteration [d, F] with d < L: layout {2,0,1} puts L second-minor (strided rows)
    "scan_L8_mat3x128":  dict(kind="scan", per=(3, 128), dtype=F32, L=8),
    "scan_L16_mat3x128": dict(kind="scan", per=(3, 128), dtype=F32, L=16),
    "scan_L16_mat2x256": dict(kind="scan", per=(2, 256), dtype=F32, L=16),
    # --- a zero broadcast shared by two host writes (scan with two host outputs) ---
    "scan2_scalar":      dict(kind="scan2", per=(), dtype=F32),
    "scan2_vec128":      dict(kind="scan2", per=(128,), dtype=F32),
    # --- explicit DUS into a host buffer ---
    # lane dim sliced, rank 1, update 128 aligned at i*128
    "dus_r1_lane128":    dict(kind="dus", buf=(L * 128,), upd=(128,), idx=lambda i: (i * 128,)),
    "dus_r1_lane256":    dict(kind="dus", buf=(L * 256,), upd=(256,), idx=lambda i: (i * 256,)),
    "dus_r1_lane64":     dict(kind="dus", buf=(L * 64,), upd=(64,), idx=lambda i: (i * 64,)),
    "dus_r1_lane1":      dict(kind="dus", buf=(L,), upd=(1,), idx=lambda i: (i,)),
    "dus_r1_lane128_off64": dict(kind="dus", buf=(L * 128 + 64,), upd=(128,), idx=lambda i: (i * 128 + 64,)),
    "dus_r1_lane128_dyn":   dict(kind="dus", buf=(L * 128 + 128,), upd=(128,), idx=lambda i: (i * 37,)),
    "dus_r1_bf16_lane128":  dict(kind="dus", buf=(L * 128,), upd=(128,), idx=lambda i: (i * 128,), dtype=BF16),
    "dus_r1_bf16_lane256":  dict(kind="dus", buf=(L * 256,), upd=(256,), idx=lambda i: (i * 256,), dtype=BF16),
    # lane AND sublane sliced (the strided rule, HBM->host direction)
    "dus_r2_rows8_lane128":  dict(kind="dus", buf=(8 * L, 512), upd=(8, 128), idx=lambda i: (i * 8, 128)),
    "dus_r2_rows12_lane128": dict(kind="dus", buf=(12 * L, 512), upd=(12, 128), idx=lambda i: (i * 12, 128)),
    "dus_r2_rowsall_lane128": dict(kind="dus", buf=(12, 512), upd=(12, 128), idx=lambda i: (0, i * 128)),
    # rank 2, lane (dim 1) sliced
    "dus_r2_lane128":    dict(kind="dus", buf=(8, L * 128), upd=(8, 128), idx=lambda i: (0, i * 128)),
    "dus_r2_lane64":     dict(kind="dus", buf=(8, L * 64), upd=(8, 64), idx=lambda i: (0, i * 64)),
    "dus_r2_lane1":      dict(kind="dus", buf=(8, L), upd=(8, 1), idx=lambda i: (0, i)),
    # rank 2, major (sublane) dim sliced
    "dus_r2_major1_w128": dict(kind="dus", buf=(L, 128), upd=(1, 128), idx=lambda i: (i, 0)),
    "dus_r2_major1_w100": dict(kind="dus", buf=(L, 100), upd=(1, 100), idx=lambda i: (i, 0)),
    "dus_r2_major8_w128": dict(kind="dus", buf=(8 * L, 128), upd=(8, 128), idx=lambda i: (i * 8, 0)),
    "dus_r2_major2_w128": dict(kind="dus", buf=(2 * L, 128), upd=(2, 128), idx=lambda i: (i * 2, 0)),
    # rank 2, both minor dims partially updated
    "dus_r2_major1_lane64of128": dict(kind="dus", buf=(L, 128), upd=(1, 64), idx=lambda i: (i, 0)),
    "dus_r2_major12_w256": dict(kind="dus", buf=(12 * L, 256), upd=(12, 256), idx=lambda i: (i * 12, 0)),
    "dus_r2_major12_w128": dict(kind="dus", buf=(12 * L, 128), upd=(12, 128), idx=lambda i: (i * 12, 0)),
    "dus_r2_major4_w256":  dict(kind="dus", buf=(16 * L, 256), upd=(4, 256), idx=lambda i: (i * 4, 0)),
    "dus_r3_mid12":        dict(kind="dus", buf=(2, 12 * L, 256), upd=(2, 12, 256), idx=lambda i: (0, i * 12, 0)),
    "dus_r2_major1_lane128of256": dict(kind="dus", buf=(L, 256), upd=(1, 128), idx=lambda i: (i, 128)),
    # rank 3, major dim sliced (outside the tile)
    "dus_r3_major_w100":  dict(kind="dus", buf=(L, 3, 100), upd=(1, 3, 100), idx=lambda i: (i, 0, 0)),
    "dus_r3_lane1":       dict(kind="dus", buf=(2, 8, L), upd=(2, 8, 1), idx=lambda i: (0, 0, i)),
    # --- fixes ---
    "fix_scalar_dev_then_host": dict(kind="scan_dev_then_host", per=(), dtype=F32),
    "fix_scalar_as_row128": dict(kind="scan_pad", per=(), dtype=F32, pad=128),
    "fix_scalar_L_major":   dict(kind="scan", per=(1, 128), dtype=F32),
}


def build(spec, mesh):
    dev = NamedSharding(mesh, P())
    host = dev.with_memory_kind("pinned_host")
    kind = spec["kind"]
    n = spec.get("L", L)
    dtype = spec.get("dtype", F32)
    if kind in ("scan", "scan2", "scan_dev_then_host", "scan_pad"):
        per = spec["per"]

        def f(xs):
            def body(c, x):
                y = x * 2
                if kind == "scan_pad":  # per-iteration scalar -> a full 128-lane row
                    y = jnp.broadcast_to(y, (spec["pad"],))
                if kind == "scan_dev_then_host":
                    return c, y
                if kind == "scan2":
                    return c, (jax.device_put(y, host), jax.device_put(y + 1, host))
                return c, jax.device_put(y, host)
            _, ys = jax.lax.scan(body, jnp.zeros((), dtype), xs)
            if kind == "scan_dev_then_host":
                ys = jax.device_put(ys, host)
            return ys
        args = (jax.ShapeDtypeStruct((n,) + per, dtype, sharding=dev),)
        outs = (host, host) if kind == "scan2" else host
        return jax.jit(f, in_shardings=(dev,), out_shardings=outs), args
    if kind == "dus":
        buf_shape, upd_shape, idx = spec["buf"], spec["upd"], spec["idx"]

        def f(x):
            def body(i, buf):
                u = jax.device_put(x * (i + 1).astype(dtype), host)
                return jax.lax.dynamic_update_slice(buf, u, idx(i))
            # the buffer is made on device and moved to host (JAX requires both DUS operands
            # in the same memory space); XLA turns the moved broadcast into AllocateBuffer
            buf = jax.device_put(jnp.zeros(buf_shape, dtype), host)
            return jax.lax.fori_loop(0, n, body, buf)
        args = (jax.ShapeDtypeStruct(upd_shape, dtype, sharding=dev),)
        return jax.jit(f, in_shardings=(dev,), out_shardings=host), args
    raise ValueError(kind)


def run(name):
    spec = VARIANTS[name]
    d = common.setup_dump("repro_lane", name)
    topo = common.topology("v5e:2x2")
    mesh = Mesh(np.array(topo.devices[:1]), ("x",))
    fn, args = build(spec, mesh)
    low = fn.trace(*args).lower(lowering_platforms=("tpu",))
    ok, err = common.compile_and_report("repro_lane", name, low, d)
    common.summarize_after(d)
    return ok


if __name__ == "__main__":
    common.main(__file__, VARIANTS, run, default="scan_scalar")
