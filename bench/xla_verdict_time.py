"""What each way of checking a JAX program costs: the static check
(`hlo_offload.check(f, *args)`: lowering for the TPU, conversion, the pipeline) against the
static check with XLA's own verdict (`check(f, *args, xla="tpu")`: the same, plus a
deviceless compile by libtpu in a child process), best of N runs. The XLA column is split
into the whole child process (starting Python, JAX and the client) and XLA's compile alone.

    .venv/bin/python3 bench/xla_verdict_time.py [--runs=N]

Needs jax and libtpu (`hlo-offload install-xla tpu`); prints figures, asserts nothing.
"""
import argparse
import time

import jax

import hlo_offload
from guard_overhead import decoder, train_step


def best(fn, runs):
    """(the fastest run's seconds, that run's result)."""
    runs_done = []
    for _ in range(runs):
        jax.clear_caches()
        t0 = time.perf_counter()
        result = fn()
        runs_done.append((time.perf_counter() - t0, result))
    return min(runs_done, key=lambda r: r[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    runs = ap.parse_args().runs
    print(f"jax {jax.__version__}, best of {runs}")
    print(f"{'program':36s} {'static':>8s} {'+xla':>8s} {'child':>8s} {'compile':>8s}")
    for make in (train_step, decoder):
        name, f, args = make()
        static, _ = best(lambda: hlo_offload.check(f, *args), runs)
        both, result = best(lambda: hlo_offload.check(f, *args, xla="tpu"), runs)
        v = result.xla
        print(f"{name:36s} {static:7.2f}s {both:7.2f}s {v.total_seconds:7.2f}s "
              f"{v.seconds:7.2f}s")


if __name__ == "__main__":
    main()
