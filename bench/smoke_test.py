#!/usr/bin/env python3
"""Smoke test of the benchmark inputs: generated modules of both printing
styles pass `hlo-offload check`, and `fmt` reaches its fixed point on them.

Usage: smoke_test.py HLO_OFFLOAD
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, **kwargs)
    if proc.returncode != 0:
        sys.exit("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode,
                                        proc.stderr.decode()[:4000]))
    return proc.stdout


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for style in ("dump", "opt"):
            path = os.path.join(tmp, style + ".hlo")
            run([sys.executable, os.path.join(HERE, "gen_module.py"),
                 "--instructions", "3000", "--annotations", "80",
                 "--style", style, "-o", path])
            run([binary, "check", path])
            once = run([binary, "fmt", path])
            twice = run([binary, "fmt", "-"], input=once)
            if once != twice:
                sys.exit("fmt is not a fixed point on the %s-style module" % style)
            run([binary, "opt", path])
    print("ok")


if __name__ == "__main__":
    main()
