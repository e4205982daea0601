"""What checking a MaxText train step costs, beside what MaxText's compile-only trainer
costs for the same config (tests/maxtext/): for each stored module, best of N runs of

  check    hlo_offload.check(text): the partition step (XLA's SPMD partitioner through
           jaxlib's CPU compiler, in a child process) and the pipeline;
  split    the partitioner child's own time, from the check's note;
  console  `python -m hlo_offload check FILE`, a fresh process (imports included);
  +xla     check(text, xla="tpu"): the same with libtpu's deviceless compile beside it
           (only with --xla; needs `hlo-offload install-xla tpu`);

and `train_compile`, MaxText's whole compile-only run for that config (stored, one run:
Python 3.12, maxtext 0.2.5, libtpu 0.0.52). Prints figures, asserts nothing.

    .venv-py313/bin/python3 bench/maxtext_check_time.py [--runs=N] [--xla] [NAME...]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python", "maxtext"))
import maxtext_suite as ms  # noqa: E402

import hlo_offload  # noqa: E402

_SPLIT = re.compile(r"ran the partitioner in ([0-9.]+) s")


def best(fn, runs):
    """(the fastest run's seconds, that run's result)."""
    done = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        done.append((time.perf_counter() - t0, result))
    return min(done, key=lambda r: r[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--xla", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    suite = ms.suite()["configs"]
    names = args.names or sorted(n for n, e in suite.items() if "xla" in e)
    import jaxlib
    print(f"jaxlib {jaxlib.__version__}, best of {args.runs}; seconds")
    print(f"{'config':36s} {'parts':>5s} {'check':>7s} {'split':>7s} {'console':>8s}"
          + (f" {'+xla':>7s}" if args.xla else "") + f" {'train_compile':>14s}")
    for name in names:
        text = ms.module_text(name)
        check_s, result = best(lambda: hlo_offload.check(text, filename=name), args.runs)
        split = next((m.group(1) for n in result.notes for m in [_SPLIT.search(n)] if m),
                     "-")
        with tempfile.NamedTemporaryFile("w", suffix=".hlo", delete=False) as fh:
            fh.write(text)
        try:
            console_s, _ = best(lambda: subprocess.run(
                [sys.executable, "-m", "hlo_offload", "check", fh.name],
                capture_output=True), args.runs)
        finally:
            os.unlink(fh.name)
        row = (f"{name:36s} {ms.partitions(text):5d} {check_s:7.2f} {split:>7s} "
               f"{console_s:8.2f}")
        if args.xla:
            xla_s, _ = best(lambda: hlo_offload.check(text, filename=name, xla="tpu"),
                            args.runs)
            row += f" {xla_s:7.2f}"
        print(row + f" {suite[name]['maxtext']['seconds']:14.1f}", flush=True)


if __name__ == "__main__":
    main()
