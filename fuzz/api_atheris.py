#!/usr/bin/env python3
"""An atheris (coverage-guided, libFuzzer-driven) fuzz target for the Python API:
hlo_offload.check, fix and report on arbitrary bytes must give a result or a documented
exception (ParseError, FixError, ValueError), never a crash or another exception.

    pip install atheris
    fuzz/api_atheris.py -max_total_time=600 -dict=fuzz/hlo.dict CORPUS_DIR ...

The first byte picks the function and the form of the input (bytes or str); the rest is
the module text. Seed it with the shared corpus (../shared/corpus/cases). Without atheris
use fuzz/api_mutation.py, the seeded mutation loop the test suite runs.
"""
import sys

try:
    import atheris
except ImportError:
    sys.exit("api_atheris.py needs atheris: pip install atheris")

with atheris.instrument_imports():
    import hlo_offload

ALLOWED = (hlo_offload.ParseError, hlo_offload.FixError, ValueError)


def one_input(data: bytes) -> None:
    if not data:
        return
    choice, text = data[0], data[1:]
    source = text if choice & 1 else text.decode("utf-8", "replace")
    try:
        which = (choice >> 1) % 4
        if which == 0:
            r = hlo_offload.check(source)
            r.to_json()
            str(r)
        elif which == 1:
            str(hlo_offload.fix(source, strategy="host-output"))
        elif which == 2:
            str(hlo_offload.fix(source, strategy="move-to-device"))
        else:
            rep = hlo_offload.report(source)
            rep.to_json()
            rep.to_dot()
    except ALLOWED as e:
        if not str(e):
            raise AssertionError(f"{type(e).__name__} without a message") from e


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
