"""Overhead of hlo_offload.guard() on a program's lowering: the wall time of
`jax.jit(f).trace(*args).lower()` (what a jitted call does on a cache miss before it
compiles) without and with the guard, and of the first call (lowering and compile), best
of N runs with JAX's caches cleared before each. Under the guard on a machine without a
TPU the lowering is made twice (JAX's for the CPU, the guard's for the TPU), converted to
HLO with the memory kinds applied and checked.

    .venv/bin/python3 bench/guard_overhead.py [--runs=N]
"""
import argparse
import sys
import time
import pathlib

import jax
import jax.numpy as jnp

import hlo_offload

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"
                       / "jax_programs"))


def train_step():
    """The README's train step, clean (the optimizer state comes back on host)."""
    from jax.sharding import SingleDeviceSharding
    host = SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")

    def step(state, batch):
        mu = jax.device_put(state["opt"]["mu"] * 0.9 + batch, host)
        return {"opt": {"mu": mu, "count": state["opt"]["count"] + 1},
                "loss": jnp.sum(batch)}
    state = {"opt": {"mu": jnp.zeros((256, 1024)), "count": jnp.zeros((), jnp.int32)}}
    return "train step (README)", jax.jit(step), (state, jnp.ones((256, 1024)))


def decoder():
    """The suite's 4-layer decoder train step with a remat offload policy
    (decoder_remat_offload_names_f32 of tests/python/jax_programs)."""
    import offload_programs as op
    jax_, jnp_, dev = op._env()
    step = op._decoder_train_step(
        jax_, jnp_, op._offload_policy(jax_, ["attn_out", "mlp_hidden"]))
    params = op._decoder_params(jax_, jnp_, dev, 4, 256, 1024, jnp_.float32)
    batch = op._batch(jax_, jnp_, dev, 8, 128, 256, jnp_.float32)
    concrete = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), (params, batch))
    return "decoder, 4 layers, remat offload", jax.jit(step), concrete


def best(fn, runs):
    times = []
    for _ in range(runs):
        jax.clear_caches()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    runs = ap.parse_args().runs
    print(f"jax {jax.__version__}, {jax.devices()[0].platform}, best of {runs}")
    print(f"{'program':36s} {'lower':>8s} {'guarded':>8s} {'extra':>8s} "
          f"{'1st call':>9s} {'guarded':>8s} {'extra':>8s}")
    for make in (train_step, decoder):
        name, f, args = make()
        lower = best(lambda: f.trace(*args).lower(), runs)

        def guarded_lower():
            with hlo_offload.guard():
                f.trace(*args).lower()
        g_lower = best(guarded_lower, runs)
        call = best(lambda: jax.block_until_ready(f(*args)), runs)

        def guarded_call():
            with hlo_offload.guard():
                jax.block_until_ready(f(*args))
        g_call = best(guarded_call, runs)
        print(f"{name:36s} {lower*1e3:7.1f}ms {g_lower*1e3:7.1f}ms "
              f"{(g_lower-lower)*1e3:+7.1f}ms {call*1e3:8.1f}ms {g_call*1e3:7.1f}ms "
              f"{(g_call-call)*1e3:+7.1f}ms")


if __name__ == "__main__":
    main()
