"""Limit 2: strided Host<->HBM DMA (partial tiles along sublanes) in parameter streaming.

  .venv/bin/python repro_strided.py --variant NAME        # the libtpu of ~/.cache/hlo-offload-xla-deviceless/tpu
  (common.py: which libtpu, where the dumps go)
  ... --list | --variant all | --variant a,b,c

Parameters W[L, D, F] live in pinned_host, sharded over the 8 devices of v5e:2x4; a scan over
layers moves each layer's slice to device inside the loop (jax.device_put(w, device sharding)),
as in parameter streaming. Prints VERDICT and the host DUS/DS/copies of the module after
XLA's HostOffloader pass. Dumps under dumps/<libtpu>/repro_strided/<variant>/.
"""
import common  # noqa: F401
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

F32, BF16 = jnp.float32, jnp.bfloat16

# W: [L, D, F]; wspec: PartitionSpec of W over mesh axis "x" (8 devices);
# per-device shard of one layer = [D/8, F] when wspec = (None, "x", None).
# lspec: PartitionSpec of one layer on device (default: wspec without the layer dim).
# tiling: force W's host layout (jax.experimental.layout.Layout), e.g. ((8, 128),)
def V(D, F, dtype=F32, L=4, wspec=(None, "x", None), mode="scan", B=8, ndev=8, lspec=None,
      tiling=None, m2m=None):
    return dict(D=D, F=F, dtype=dtype, L=L, wspec=wspec, mode=mode, B=B, ndev=ndev,
                lspec=lspec if lspec is not None else wspec[1:], tiling=tiling, m2m=m2m)

VARIANTS = {
    # f32, second-minor (D) sharded: per-device sublane extent D/8
    "f32_d32_f128":   V(32, 128),     # shard [4,128]   sublanes 4  (not multiple of 8)
    "f32_d64_f128":   V(64, 128),     # shard [8,128]   sublanes 8
    "f32_d128_f128":  V(128, 128),    # shard [16,128]
    "f32_d96_f128":   V(96, 128),     # shard [12,128]
    "f32_d16_f128":   V(16, 128),     # shard [2,128]
    "f32_d8_f128":    V(8, 128),      # shard [1,128]
    "f32_d32_f256":   V(32, 256),     # shard [4,256]
    "f32_d64_f100":   V(64, 100),     # shard [8,100]   lanes not a multiple of 128
    # f32, minor (F) sharded: per-device [D, F/8]
    "f32_d8_f1024_fshard":  V(8, 1024, wspec=(None, None, "x")),   # shard [8,128]
    "f32_d4_f1024_fshard":  V(4, 1024, wspec=(None, None, "x")),   # shard [4,128]
    # bf16 (packing 2: tile (16,128) or (8,128)(2,1))
    "bf16_d64_f128":  V(64, 128, BF16),    # shard [8,128]
    "bf16_d128_f128": V(128, 128, BF16),   # shard [16,128]
    "bf16_d256_f128": V(256, 128, BF16),   # shard [32,128]
    "bf16_d32_f128":  V(32, 128, BF16),    # shard [4,128]
    # replicated W (full [D,F] per device)
    "f32_d4_f128_repl": V(4, 128, wspec=(None, None, None)),
    "f32_d8_f128_repl": V(8, 128, wspec=(None, None, None)),
    # shard [L, d, F] with d < L: TPU's layout may put L second-minor
    "f32_L4_d24_f128":   V(24, 128, L=4),    # shard [4,3,128]
    "f32_L8_d24_f128":   V(24, 128, L=8),    # shard [8,3,128]
    "f32_L8_d16_f128":   V(16, 128, L=8),    # shard [8,2,128]
    "f32_L16_d8_f128":   V(8, 128, L=16),    # shard [16,1,128]
    "f32_L8_d24_f100":   V(24, 100, L=8),    # shard [8,3,100]
    "f32_L4_d24_f100":   V(24, 100, L=4),    # shard [4,3,100]
    "f32_L8_d40_f128":   V(40, 128, L=8),    # shard [8,5,128]
    # W sharded along the layer dim
    "lshard_f32_L8_d32_f128": V(32, 128, L=8, wspec=("x", None, None), lspec=(None, None)),
    # 2-D mesh (fsdp=2, tp=4) train step, bf16 params streamed from host, SGD update written back to host
    "tstep_bf16_L4_d64_f512":  dict(mode="tstep", L=4, D=64, F=512, dtype=BF16),
    "tstep_bf16_L4_d24_f512":  dict(mode="tstep", L=4, D=24, F=512, dtype=BF16),   # fsdp shard 12 rows
    "tstep_bf16_L4_d20_f512":  dict(mode="tstep", L=4, D=20, F=512, dtype=BF16),   # fsdp shard 10 rows
    "tstep_f32_L4_d24_f512":   dict(mode="tstep", L=4, D=24, F=512, dtype=F32),
    "tstep_f32_L6_d20_f1024":  dict(mode="tstep", L=6, D=20, F=1024, dtype=F32),
    # W's host layout forced to T(8,128) while the per-device shard has < 8 rows
    "tiled8_f32_d32_f256":  V(32, 256, tiling=((8, 128),)),   # shard [4,4,256] T(8,128)
    "tiled8_f32_d32_f128":  V(32, 128, tiling=((8, 128),)),   # shard [4,4,128] T(8,128)
    "tiled8_f32_d64_f256":  V(64, 256, tiling=((8, 128),)),   # shard [4,8,256] T(8,128)
    "tiled8_f32_d96_f256":  V(96, 256, tiling=((8, 128),)),   # shard [4,12,256]
    "tiled8_f32_d16_f256":  V(16, 256, tiling=((8, 128),)),   # shard [4,2,256]
    "tiled4_f32_d32_f256":  V(32, 256, tiling=((4, 128),)),   # shard [4,4,256] T(4,128)
    # activation offloading (checkpoint policy) in an 8-device train step; x sharded on batch
    "remat_f32_b32_h256":  dict(mode="remat", L=4, B=32, H=256, dtype=F32, xspec=("x", None)),   # 4 rows/dev
    "remat_f32_b64_h256":  dict(mode="remat", L=4, B=64, H=256, dtype=F32, xspec=("x", None)),   # 8 rows/dev
    "remat_f32_b96_h256":  dict(mode="remat", L=4, B=96, H=256, dtype=F32, xspec=("x", None)),   # 12 rows/dev
    "remat_f32_b16_h256":  dict(mode="remat", L=4, B=16, H=256, dtype=F32, xspec=("x", None)),   # 2 rows/dev
    "remat_bf16_b32_h256": dict(mode="remat", L=4, B=32, H=256, dtype=BF16, xspec=("x", None)),
    "remat_bf16_b96_h256": dict(mode="remat", L=4, B=96, H=256, dtype=BF16, xspec=("x", None)),
    "remat_bf16_b128_h256": dict(mode="remat", L=4, B=128, H=256, dtype=BF16, xspec=("x", None)), # 16 rows
    "remat_f32_b8_h1024_hshard": dict(mode="remat", L=4, B=8, H=1024, dtype=F32, xspec=(None, "x")),
    # 2-D mesh (fsdp=2, tp=4); host W replicated; the layer sharded (fsdp, tp) on device
    "tstep_repl_f32_L4_d24_f512": dict(mode="tstep", L=4, D=24, F=512, dtype=F32, host_repl=True),
    "tstep_repl_f32_L4_d32_f512": dict(mode="tstep", L=4, D=32, F=512, dtype=F32, host_repl=True),
    # fixes for the 8-device train step
    "tstep_f32_L4_d32_f512":      dict(mode="tstep", L=4, D=32, F=512, dtype=F32),   # 16 rows/dev
    "tstep_f32_L4_d64_f512":      dict(mode="tstep", L=4, D=64, F=512, dtype=F32),   # 32 rows/dev
    "tstep_repl_whole_f32_L4_d24_f512": dict(mode="tstep", L=4, D=24, F=512, dtype=F32, host_repl=True, whole=True),
    "tstep_whole_f32_L4_d24_f512": dict(mode="tstep", L=4, D=24, F=512, dtype=F32, whole=True),
    "tstep_repl_f32_L4_d24_f512_tp1": dict(mode="tstep", L=4, D=24, F=512, dtype=F32, host_repl=True, mesh=(8, 1)),
    "tstep_repl_f32_L4_d64_f128_tp1": dict(mode="tstep", L=4, D=64, F=128, dtype=F32, host_repl=True, mesh=(8, 1)),
    # host W replicated, the layer sharded on device: each device takes its rows of the
    # host copy (SPMD dynamic-slice along D, the second-minor / sublane dimension)
    "repl2rows_f32_d32_f128":  V(32, 128, wspec=(None, None, None), lspec=("x", None)),  # 4 rows
    "repl2rows_f32_d64_f128":  V(64, 128, wspec=(None, None, None), lspec=("x", None)),  # 8 rows
    "repl2rows_f32_d96_f128":  V(96, 128, wspec=(None, None, None), lspec=("x", None)),  # 12 rows
    "repl2rows_f32_d128_f128": V(128, 128, wspec=(None, None, None), lspec=("x", None)), # 16 rows
    "repl2rows_bf16_d64_f128":  V(64, 128, BF16, wspec=(None, None, None), lspec=("x", None)),   # 8
    "repl2rows_bf16_d128_f128": V(128, 128, BF16, wspec=(None, None, None), lspec=("x", None)),  # 16
    "repl2rows_bf16_d256_f128": V(256, 128, BF16, wspec=(None, None, None), lspec=("x", None)),  # 32
    "repl2rows_f32_d32_f256":  V(32, 256, wspec=(None, None, None), lspec=("x", None)),  # 4 rows
    "repl2rows_f32_d96_f256":  V(96, 256, wspec=(None, None, None), lspec=("x", None)),  # 12 rows
    "repl2rows_f32_d16_f512":  V(16, 512, wspec=(None, None, None), lspec=("x", None)),  # 2 rows
    "repl2rows_bf16_d96_f256": V(96, 256, BF16, wspec=(None, None, None), lspec=("x", None)),  # 12
    "repl2cols_f32_d8_f1024":  V(8, 1024, wspec=(None, None, None), lspec=(None, "x")),  # 128 cols
    "repl2cols_f32_d8_f512":   V(8, 512, wspec=(None, None, None), lspec=(None, "x")),   # 64 cols
    # host W sharded on F, the layer on device sharded on D (a resharding on the way in)
    "f2d_f32_d32_f1024": V(32, 1024, wspec=(None, None, "x"), lspec=("x", None)),
    # per-layer vectors (bias / norm scale) stacked as W[L, F]: the scan slices dim 0, the
    # second-minor (sublane) dim of a 2-D array. F sharded over 8 devices -> shard [L, F/8]
    "vec_f32_L4_f1024":   V(None, 1024, L=4, wspec=(None, "x"), mode="vec"),    # shard [4,128]
    "vec_f32_L4_f2048":   V(None, 2048, L=4, wspec=(None, "x"), mode="vec"),    # shard [4,256]
    "vec_f32_L8_f2048":   V(None, 2048, L=8, wspec=(None, "x"), mode="vec"),    # shard [8,256]
    "vec_f32_L16_f2048":  V(None, 2048, L=16, wspec=(None, "x"), mode="vec"),   # shard [16,256]
    "vec_f32_L12_f2048":  V(None, 2048, L=12, wspec=(None, "x"), mode="vec"),   # shard [12,256]
    "vec_bf16_L4_f2048":  V(None, 2048, BF16, L=4, wspec=(None, "x"), mode="vec"),
    "vec_bf16_L16_f2048": V(None, 2048, BF16, L=16, wspec=(None, "x"), mode="vec"),
    "vec_f32_L4_f1024_repl": V(None, 1024, L=4, wspec=(None, None), mode="vec"),  # [4,1024]
    "vec1dev_f32_L4_f256": V(None, 256, L=4, wspec=(None, None), mode="vec", ndev=1),
    # explicit dynamic-slice of a host array inside a fori_loop, moved to device:
    # W shape `wshape` (host), slice `sizes` at idx(i); `wspec` shards W over 8 devices
    "ds_r3_mid1_s16":  dict(mode="ds", wshape=(2, 16, 256), sizes=(2, 1, 256), idx=lambda i: (0, i, 0)),
    "ds_r3_mid8_s16":  dict(mode="ds", wshape=(2, 16, 256), sizes=(2, 8, 256), idx=lambda i: (0, i * 8, 0)),
    "ds_r3_mid1_s16_a1": dict(mode="ds", wshape=(1, 16, 256), sizes=(1, 1, 256), idx=lambda i: (0, i, 0)),
    "ds_r2_rows1_s16": dict(mode="ds", wshape=(16, 256), sizes=(1, 256), idx=lambda i: (i, 0)),
    "ds_r2_rows4_s16": dict(mode="ds", wshape=(16, 256), sizes=(4, 256), idx=lambda i: (i * 4, 0)),
    "ds_r2_rows1_s16_f128": dict(mode="ds", wshape=(16, 128), sizes=(1, 128), idx=lambda i: (i, 0)),
    "ds_r2_rows1_s16_f100": dict(mode="ds", wshape=(16, 100), sizes=(1, 100), idx=lambda i: (i, 0)),
    "ds_r2_rows1_s16_f200": dict(mode="ds", wshape=(16, 200), sizes=(1, 200), idx=lambda i: (i, 0)),
    "ds_r2_rows3_s16_f384": dict(mode="ds", wshape=(16, 384), sizes=(3, 384), idx=lambda i: (i * 3, 0)),
    "ds_r2_bf16_rows1_s32":  dict(mode="ds", wshape=(32, 256), sizes=(1, 256), idx=lambda i: (i, 0), dtype=BF16),
    "ds_r2_bf16_rows2_s32":  dict(mode="ds", wshape=(32, 256), sizes=(2, 256), idx=lambda i: (i * 2, 0), dtype=BF16),
    "ds_r2_bf16_rows8_s32":  dict(mode="ds", wshape=(32, 256), sizes=(8, 256), idx=lambda i: (i * 8, 0), dtype=BF16),
    "ds_r2_bf16_rows16_s32": dict(mode="ds", wshape=(32, 256), sizes=(16, 256), idx=lambda i: (i * 16, 0), dtype=BF16),
    "ds_r3_bf16_mid2":       dict(mode="ds", wshape=(2, 32, 256), sizes=(2, 2, 256), idx=lambda i: (0, i * 2, 0), dtype=BF16),
    "ds_r2_rows12_s48_f256": dict(mode="ds", wshape=(48, 256), sizes=(12, 256), idx=lambda i: (i * 12, 0)),
    "ds_r2_rows12_s48_f128": dict(mode="ds", wshape=(48, 128), sizes=(12, 128), idx=lambda i: (i * 12, 0)),
    "ds_r2_rows4_s16_f256_T8": dict(mode="ds", wshape=(64, 256), sizes=(4, 256), idx=lambda i: (i * 4, 0)),
    "ds_r3_rows12": dict(mode="ds", wshape=(2, 48, 256), sizes=(2, 12, 256), idx=lambda i: (0, i * 12, 0)),
    # W[8,3,128]: TPU lays it out {2,0,1} (dim 0 second-minor, T(8,128)); slices of dim 0
    "ds_L8_d3_take1": dict(mode="ds", wshape=(8, 3, 128), sizes=(1, 3, 128), idx=lambda i: (i, 0, 0), ndev=1),
    "ds_L8_d3_take2": dict(mode="ds", wshape=(8, 3, 128), sizes=(2, 3, 128), idx=lambda i: (i * 2, 0, 0), ndev=1),
    "ds_L8_d3_take4": dict(mode="ds", wshape=(8, 3, 128), sizes=(4, 3, 128), idx=lambda i: (i * 4, 0, 0), ndev=1),
    "ds_L16_d3_take8": dict(mode="ds", wshape=(16, 3, 128), sizes=(8, 3, 128), idx=lambda i: (i * 8, 0, 0), ndev=1),
    "ds_L16_d3_take2_f256": dict(mode="ds", wshape=(16, 3, 256), sizes=(2, 3, 256), idx=lambda i: (i * 2, 0, 0), ndev=1),
    "ds_bf16_L16_d3_take2": dict(mode="ds", wshape=(16, 3, 256), sizes=(2, 3, 256), idx=lambda i: (i * 2, 0, 0), ndev=1, dtype=BF16),
    "ds_bf16_L16_d3_take4": dict(mode="ds", wshape=(16, 3, 256), sizes=(4, 3, 256), idx=lambda i: (i * 4, 0, 0), ndev=1, dtype=BF16),
    "ds_bf16_L32_d3_take8": dict(mode="ds", wshape=(32, 3, 256), sizes=(8, 3, 256), idx=lambda i: (i * 8, 0, 0), ndev=1, dtype=BF16),
    "ds_bf16_L32_d3_take16": dict(mode="ds", wshape=(32, 3, 256), sizes=(16, 3, 256), idx=lambda i: (i * 16, 0, 0), ndev=1, dtype=BF16),
    "ds_bf16_r2_rows4_s32": dict(mode="ds", wshape=(32, 256), sizes=(4, 256), idx=lambda i: (i * 4, 0), ndev=1, dtype=BF16),
    "ds_bf16_r3_mid4": dict(mode="ds", wshape=(2, 32, 256), sizes=(2, 4, 256), idx=lambda i: (0, i * 4, 0), ndev=1, dtype=BF16),
    "ds_bf16_r3_mid2_f128": dict(mode="ds", wshape=(4, 32, 128), sizes=(4, 2, 128), idx=lambda i: (0, i * 2, 0), ndev=1, dtype=BF16),
    "ds_f32_r3_mid2_f128": dict(mode="ds", wshape=(4, 32, 128), sizes=(4, 2, 128), idx=lambda i: (0, i * 2, 0), ndev=1),
    "ds_r4_mid12": dict(mode="ds", wshape=(2, 3, 48, 256), sizes=(2, 3, 12, 256), idx=lambda i: (0, 0, i * 12, 0), ndev=1),
    "ds_r3_bf16_mid12": dict(mode="ds", wshape=(2, 48, 256), sizes=(2, 12, 256), idx=lambda i: (0, i * 12, 0), ndev=1, dtype=BF16),
    "ds_r3_bf16_mid6": dict(mode="ds", wshape=(2, 48, 256), sizes=(2, 6, 256), idx=lambda i: (0, i * 6, 0), ndev=1, dtype=BF16),
    "ds_r3_mid20": dict(mode="ds", wshape=(2, 80, 256), sizes=(2, 20, 256), idx=lambda i: (0, i * 20, 0), ndev=1),
    "ds_r2_rows20": dict(mode="ds", wshape=(80, 256), sizes=(20, 256), idx=lambda i: (i * 20, 0), ndev=1),
    "ds_r2_rows9": dict(mode="ds", wshape=(36, 256), sizes=(9, 256), idx=lambda i: (i * 9, 0), ndev=1),
    "ds_r2_rows12_lane128": dict(mode="ds", wshape=(48, 512), sizes=(12, 128), idx=lambda i: (i * 12, 128), ndev=1),
    # slices along BOTH the sublane (second-minor) and the lane (minor) dimension
    "ds2_rows12_lane128at128": dict(mode="ds", wshape=(48, 512), sizes=(12, 128), idx=lambda i: (i * 12, 128), ndev=1),
    "ds2_rows12_lane128at0":   dict(mode="ds", wshape=(48, 512), sizes=(12, 128), idx=lambda i: (i * 12, 0), ndev=1),
    "ds2_rows8_lane128":       dict(mode="ds", wshape=(32, 512), sizes=(8, 128), idx=lambda i: (i * 8, 128), ndev=1),
    "ds2_rows16_lane128":      dict(mode="ds", wshape=(64, 512), sizes=(16, 128), idx=lambda i: (i * 16, 128), ndev=1),
    "ds2_rows1_lane128":       dict(mode="ds", wshape=(8, 512), sizes=(1, 128), idx=lambda i: (i, 128), ndev=1),
    "ds2_rows4_lane128":       dict(mode="ds", wshape=(16, 512), sizes=(4, 128), idx=lambda i: (i * 4, 128), ndev=1),
    "ds2_rows4at0_lane128":    dict(mode="ds", wshape=(16, 512), sizes=(4, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds2_rows12_lane256":      dict(mode="ds", wshape=(48, 512), sizes=(12, 256), idx=lambda i: (i * 12, 256), ndev=1),
    "ds2_rows12_lanedyn128":   dict(mode="ds", wshape=(48, 512), sizes=(12, 128), idx=lambda i: (i * 12, i * 128), ndev=1),
    "ds2_rowsall_lane128":     dict(mode="ds", wshape=(12, 512), sizes=(12, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds2_rowsall8_lane128":    dict(mode="ds", wshape=(8, 512), sizes=(8, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds1_lane128_only":        dict(mode="ds", wshape=(16, 512), sizes=(16, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds2_bf16_rows12_lane128": dict(mode="ds", wshape=(48, 512), sizes=(12, 128), idx=lambda i: (i * 12, 128), ndev=1, dtype=BF16),
    "ds2_bf16_rows16_lane128": dict(mode="ds", wshape=(64, 512), sizes=(16, 128), idx=lambda i: (i * 16, 128), ndev=1, dtype=BF16),
    "ds2_bf16_rows8_lane128":  dict(mode="ds", wshape=(32, 512), sizes=(8, 128), idx=lambda i: (i * 8, 128), ndev=1, dtype=BF16),
    "ds3_r3_rows12_lane128":   dict(mode="ds", wshape=(2, 48, 512), sizes=(1, 12, 128), idx=lambda i: (1, i * 12, 128), ndev=1),
    "ds2_T4_rows2_lane128":    dict(mode="ds", wshape=(4, 512), sizes=(2, 128), idx=lambda i: (2 * (i % 2), 128), ndev=1),
    "ds2_T4_rows1_lane128":    dict(mode="ds", wshape=(4, 512), sizes=(1, 128), idx=lambda i: (i, 128), ndev=1),
    "ds2_rows8_off4_lane128":  dict(mode="ds", wshape=(40, 512), sizes=(8, 128), idx=lambda i: (i * 8 + 4, 128), ndev=1),
    "ds2_rows12of16_lane128":  dict(mode="ds", wshape=(16, 512), sizes=(12, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds2_rows4of4_lane128":    dict(mode="ds", wshape=(4, 512), sizes=(4, 128), idx=lambda i: (0, i * 128), ndev=1),
    "ds2_rows1_lane128_r3maj": dict(mode="ds", wshape=(4, 8, 512), sizes=(1, 8, 128), idx=lambda i: (i, 0, 128), ndev=1),
    # 8 devices: host W replicated, layer on device sharded 2-D -> SPMD slices the host copy
    "ds8_2d_rows12_lane128":   dict(mode="ds", wshape=(96, 4096), sizes=(96, 4096), idx=lambda i: (0, 0), ndev=8),
    # the same slices of an array sharded over 8 devices (sharded on the lane dim)
    "ds8_r2_rows1_s16_f2048": dict(mode="ds", wshape=(16, 2048), sizes=(1, 2048), idx=lambda i: (i, 0), wspec=(None, "x")),
    "ds8_r3_mid1": dict(mode="ds", wshape=(8, 16, 256), sizes=(8, 1, 256), idx=lambda i: (0, i, 0), wspec=("x", None, None)),
    # whole W moved to device before the loop (no slicing of host memory)
    "fix_whole_f32_d32_f128": V(32, 128, mode="whole"),
    # train step (forward + grad) with streamed params
    "grad_f32_d32_f128": V(32, 128, mode="grad"),
    "grad_f32_d64_f128": V(64, 128, mode="grad"),
    # train step whose gradients go back to pinned_host (out_shardings memory_kind pinned_host)
    "gradhost_f32_d32_f128":  V(32, 128, mode="gradhost"),
    "gradhost_f32_L8_d24_f128": V(24, 128, L=8, mode="gradhost"),
    "gradhost_f32_d64_f128":  V(64, 128, mode="gradhost"),
}


def build_ds(spec, mesh, x_s):
    """fori_loop: w = dynamic_slice(W_host, idx(i), sizes); moved to device; summed."""
    wshape, sizes, idx = spec["wshape"], spec["sizes"], spec["idx"]
    wsp = spec.get("wspec", (None,) * len(wshape))
    w_host = NamedSharding(mesh, P(*wsp)).with_memory_kind("pinned_host")
    sl_dev = NamedSharding(mesh, P(*wsp))

    def f(W):
        def body(i, acc):
            w = jax.lax.dynamic_slice(W, idx(i), sizes)
            w = jax.device_put(w, sl_dev)
            return acc + jnp.sum(jnp.tanh(w).astype(jnp.float32))
        return jax.lax.fori_loop(0, 4, body, jnp.zeros((), jnp.float32))
    args = (jax.ShapeDtypeStruct(wshape, spec.get("dtype", F32), sharding=w_host),)
    return jax.jit(f, in_shardings=(w_host,), out_shardings=x_s), args


def build_tstep(spec):
    """8-device train step on a (fsdp=2, tp=4) mesh; W[L, D, F] (+ bias b[L, F]) in
    pinned_host sharded P(None, 'fsdp', 'tp'); each layer moved to device in the scan;
    grads by value_and_grad; SGD-updated params returned to pinned_host."""
    topo = common.topology("v5e:2x4")
    mesh = Mesh(np.array(topo.devices).reshape(*spec.get("mesh", (2, 4))), ("fsdp", "tp"))
    L, D, F, dtype = spec["L"], spec["D"], spec["F"], spec["dtype"]
    ws = NamedSharding(mesh, P(None, "fsdp", "tp"))
    bs = NamedSharding(mesh, P(None, "tp"))
    wh, bh = ws.with_memory_kind("pinned_host"), bs.with_memory_kind("pinned_host")
    if spec.get("host_repl"):   # parameters replicated in host memory
        wh = NamedSharding(mesh, P()).with_memory_kind("pinned_host")
        bh = NamedSharding(mesh, P()).with_memory_kind("pinned_host")
    wl, bl = NamedSharding(mesh, P("fsdp", "tp")), NamedSharding(mesh, P("tp"))
    xs = NamedSharding(mesh, P("fsdp", None))

    def loss_fn(params, x):
        W, b = params
        if spec.get("whole"):   # fix: move all layers to device once, before the scan
            W, b = jax.device_put(W, ws), jax.device_put(b, bs)

        def body(h, wb):
            w, bb = wb
            w = jax.device_put(w, wl)
            bb = jax.device_put(bb, bl)
            y = jnp.tanh(h @ w + bb)
            return h + y @ w.T, None
        h, _ = jax.lax.scan(body, x, (W, b))
        return jnp.mean(h.astype(jnp.float32) ** 2)

    def step(W, b, x):
        loss, (gW, gb) = jax.value_and_grad(loss_fn)((W, b), x)
        gW = jax.device_put(gW, ws); gb = jax.device_put(gb, bs)
        W2 = jax.device_put(W, ws) - 0.01 * gW.astype(dtype)
        b2 = jax.device_put(b, bs) - 0.01 * gb.astype(dtype)
        return loss, jax.device_put(W2, wh), jax.device_put(b2, bh)
    args = (jax.ShapeDtypeStruct((L, D, F), dtype, sharding=wh),
            jax.ShapeDtypeStruct((L, F), dtype, sharding=bh),
            jax.ShapeDtypeStruct((16, D), dtype, sharding=xs))
    return jax.jit(step, in_shardings=(wh, bh, xs),
                   out_shardings=(NamedSharding(mesh, P()), wh, bh)), args


def build_remat(spec):
    """8-device train step; per-layer activations offloaded to pinned_host by the
    checkpoint policy (DUS into a host buffer in the forward scan, DS back in the backward)."""
    from jax.ad_checkpoint import checkpoint_name
    topo = common.topology("v5e:2x4")
    mesh = Mesh(np.array(topo.devices), ("x",))
    L, B, H, dtype = spec["L"], spec["B"], spec["H"], spec["dtype"]
    xs = NamedSharding(mesh, P(*spec["xspec"]))
    ws = NamedSharding(mesh, P())
    pol = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=["act"],
        offload_src="device", offload_dst="pinned_host")

    def layer(h, w):
        a = checkpoint_name(jnp.tanh(h @ w), "act")
        return a @ w.T + h, None

    def loss(W, x):
        h, _ = jax.lax.scan(jax.checkpoint(layer, policy=pol), x, W)
        return jnp.mean(h.astype(jnp.float32) ** 2)
    f = jax.value_and_grad(loss)
    args = (jax.ShapeDtypeStruct((L, H, H), dtype, sharding=ws),
            jax.ShapeDtypeStruct((B, H), dtype, sharding=xs))
    return jax.jit(f, in_shardings=(ws, xs), out_shardings=(NamedSharding(mesh, P()), ws)), args


def build(spec, mesh):
    if spec["mode"] == "remat":
        return build_remat(spec)
    if spec["mode"] == "tstep":
        return build_tstep(spec)
    x_s = NamedSharding(mesh, P())
    if spec["mode"] == "ds":
        return build_ds(spec, mesh, x_s)
    L, D, F, dtype = spec["L"], spec["D"], spec["F"], spec["dtype"]
    w_dev = NamedSharding(mesh, P(*spec["wspec"]))
    w_host = w_dev.with_memory_kind("pinned_host")
    layer_dev = NamedSharding(mesh, P(*spec["lspec"]))
    mode = spec["mode"]
    if mode == "vec":
        # W[L, F]: per-layer vectors; h[B, F] scaled by each layer's vector
        def f(W, x):
            def body(h, w):
                w = jax.device_put(w, layer_dev)
                return jnp.tanh(h * w[None, :]), None
            h, _ = jax.lax.scan(body, x, W)
            return jnp.sum(h.astype(jnp.float32))
        xs = NamedSharding(mesh, P(None, *spec["wspec"][1:]))
        args = (jax.ShapeDtypeStruct((L, F), dtype, sharding=w_host),
                jax.ShapeDtypeStruct((spec["B"], F), dtype, sharding=xs))
        return jax.jit(f, in_shardings=(w_host, xs), out_shardings=x_s), args

    def forward(W, x):
        if mode == "whole":
            W = jax.device_put(W, w_dev)

        def body(h, w):
            if mode != "whole":
                w = jax.device_put(w, layer_dev)       # host -> device inside the loop
            return h + jnp.tanh(h @ w) @ w.T, None
        h, _ = jax.lax.scan(body, x, W)
        return jnp.sum(h.astype(jnp.float32))

    if mode in ("grad", "gradhost"):
        def f(W, x):
            loss, g = jax.value_and_grad(forward)(W, x)
            return loss, g
        outs = (x_s, w_host if mode == "gradhost" else w_dev)
    else:
        f = forward
        outs = x_s
    w_in = w_host
    if spec.get("tiling"):
        from jax.experimental.layout import Format, Layout
        w_in = Format(Layout(spec.get("m2m") or (0, 1, 2), tiling=spec["tiling"]), w_host)
    args = (jax.ShapeDtypeStruct((L, D, F), dtype, sharding=w_in),
            jax.ShapeDtypeStruct((spec["B"], D), dtype, sharding=x_s))
    return jax.jit(f, in_shardings=(w_in, x_s), out_shardings=outs), args


def run(name):
    spec = VARIANTS[name]
    d = common.setup_dump("repro_strided", name)
    ndev = spec.get("ndev", 8)
    topo = common.topology("v5e:2x4" if ndev > 4 else "v5e:2x2")
    mesh = Mesh(np.array(topo.devices[:ndev]), ("x",))
    fn, args = build(spec, mesh)
    low = fn.trace(*args).lower(lowering_platforms=("tpu",))
    common.compile_and_report("repro_strided", name, low, d)
    common.summarize_after(d)


if __name__ == "__main__":
    common.main(__file__, VARIANTS, run, default="f32_d32_f128")
