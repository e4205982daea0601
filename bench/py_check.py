#!/usr/bin/env python3
"""Times hlo_offload.check on the ~100 MB generated module against the command line on
the same file, and prints the figures (a benchmark, not a test).

The module is bench/gen_module.py's 360k-instruction, 3.6k-MoveToHost training step in
XLA dump style (103.8 MB; the README's Performance table), generated into bench/out/ as
bench/run.py does. For each way of calling, the best of --reps runs on a warm page cache:

- the command line: `hlo-offload check FILE` as a process (the package's own program,
  hlo_offload.executable(), unless --bin names another), wall clock;
- hlo_offload.check(pathlib.Path(FILE)) in this process (the file is mapped by the core);
- the same and str() of its result (the text the command line writes);
- hlo_offload.check(data) with the file's bytes already in memory (bytes object);
- a whole `python -c "import hlo_offload; hlo_offload.check(...)"` process.

Beside the wall clock, the best CPU time (user + system, every thread, from getrusage),
which another job on the machine disturbs less.

Every run must find no error (the module is clean). The target: the API costs at most
10% more than the command line.

Usage: bench/py_check.py [--reps N] [--bin PATH] [--module FILE]
"""
import argparse
import math
import os
import pathlib
import resource
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET = 1.10


def cpu_seconds() -> float:
    """User + system CPU time of this process (every thread) and its waited-for
    children so far."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def timed(fn):
    """(wall seconds, CPU seconds) of one call."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, cpu_seconds() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--bin", help="the command line to compare with (default: the "
                    "package's own hlo-offload)")
    ap.add_argument("--module", help="a module file instead of the generated one")
    a = ap.parse_args(argv)

    import hlo_offload

    if a.module:
        path = pathlib.Path(a.module)
    else:
        import run as bench_run  # bench/run.py: the generator and its cache
        out_dir = HERE / "out"
        out_dir.mkdir(exist_ok=True)
        path = pathlib.Path(bench_run.generate(str(out_dir), 360_000, 3_600, "dump"))
    exe = a.bin or hlo_offload.executable()
    size = path.stat().st_size

    def cli():
        proc = subprocess.run([exe, "check", str(path)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        if proc.returncode != 0:
            sys.exit(f"{exe} check exited {proc.returncode}: {proc.stderr[:2000]!r}")

    def api_path():
        r = hlo_offload.check(path)
        if not r.ok:
            sys.exit(f"hlo_offload.check found an error:\n{str(r)[:2000]}")

    def api_text():
        # What the command line also does: the text report of the 3,600 warnings.
        r = hlo_offload.check(path)
        if not r.ok or not str(r):
            sys.exit("hlo_offload.check found an error, or no text")

    data = path.read_bytes()

    def api_bytes():
        r = hlo_offload.check(data, filename=str(path))
        if not r.ok:
            sys.exit("hlo_offload.check(bytes) found an error")

    def process():
        code = (f"import hlo_offload, pathlib, sys; "
                f"sys.exit(0 if hlo_offload.check(pathlib.Path({str(path)!r})).ok else 1)")
        if subprocess.run([sys.executable, "-c", code]).returncode != 0:
            sys.exit("the python -c process failed")

    # Warm the page cache and the imports once.
    cli()
    api_path()
    # Interleave the runs so that the machine's noise falls on both alike.
    fns = {"cli": cli, "api_path": api_path, "api_text": api_text, "api_bytes": api_bytes,
           "process": process}
    samples = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    for _ in range(a.reps):
        for k, fn in fns.items():
            wall, used = timed(fn)
            samples[k].append(wall)
            cpu[k].append(used)
    b = {k: min(v) for k, v in samples.items()}
    bc = {k: min(v) for k, v in cpu.items()}
    print(f"module: {path} ({size / 1e6:.1f} MB); best of {a.reps}; cores: {os.cpu_count()}")
    print(f"command line ({exe}):")
    print(f"  hlo-offload check FILE                      {b['cli']:.3f} s"
          f"                              CPU {bc['cli']:.3f} s")
    for k, label in (("api_path", "hlo_offload.check(Path(FILE))"),
                     ("api_text", "str(hlo_offload.check(Path(FILE)))"),
                     ("api_bytes", "hlo_offload.check(bytes)"),
                     ("process", "python -c 'hlo_offload.check(Path(FILE))'")):
        ratio = b[k] / b["cli"]
        cratio = bc[k] / bc["cli"]
        print(f"  {label:<44}{b[k]:.3f} s  {ratio:5.2f}x the command line "
              f"({(ratio - 1) * 100:+6.1f}%)   CPU {bc[k]:.3f} s  {cratio:5.2f}x")
    for k in samples:
        print(f"  {k} runs: " + " ".join(f"{t:.3f}" for t in samples[k]))
    for what, d in (("wall clock", b), ("CPU time", bc)):
        ratio = d["api_path"] / d["cli"]
        print(f"target: hlo_offload.check within {int(round((TARGET - 1) * 100))}% of the "
              f"command line, {what}: {'met' if ratio <= TARGET else 'not met'} "
              f"({ratio:.3f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
