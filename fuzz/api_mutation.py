#!/usr/bin/env python3
"""A seeded mutation loop over the Python API: hostile inputs for hlo_offload.check, fix
and report, made from the corpus modules, must give a result or one of the documented
exceptions (ParseError, FixError, ValueError, OSError for files), never a crash, a hang or
another exception.

Deterministic: the same --seed and corpus give the same inputs in the same order. Each
input goes in as bytes, as a str or as a file, to one of the three functions. The loop
stops after --count inputs or --seconds, whichever comes first. An input that breaks the
rule is written to --save-dir (with the function and form) and the exit status is 1; a
crash ends the process (the caller sees the signal), with the input about to run written
to --save-dir/current first.

Usage: fuzz/api_mutation.py [--seed N] [--count N] [--seconds S] [--shared DIR]
                            [--save-dir DIR] [--max-input-bytes N]
"""
import argparse
import os
import pathlib
import random
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent

# Tokens spliced into modules (as fuzz/hlo.dict gives libFuzzer).
def _dictionary():
    tokens = []
    path = HERE / "hlo.dict"
    if path.is_file():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line.startswith('"') and line.endswith('"') and len(line) >= 2:
                tokens.append(line[1:-1].encode().decode("unicode_escape").encode("latin-1"))
    return tokens or [b"HloModule", b"ENTRY", b"ROOT", b"custom-call(", b"S(5)"]


EXTRA_TOKENS = [
    b"{", b"}", b"(", b")", b"[", b"]", b",", b"=", b"\x00", b"\xff\xfe", b"\r\n",
    b"99999999999999999999", b"-1", b"f32[1000000000000,1000000000000]",
    b"(" * 600, b"{" * 600, b"S(5)", b":S(5)", b"MoveToHost", b"MoveToDevice",
    b"// -----\n", b"\xef\xbb\xbf", b"\"", b"\\",
]


def _seeds(shared: pathlib.Path, max_bytes: int):
    seeds = []
    corpus = shared / "corpus"
    if corpus.is_dir():
        for p in sorted(corpus.rglob("*")):
            if p.is_file() and p.suffix in (".hlo", ".txt") and p.name != "SOURCES.md" \
                    and p.stat().st_size <= max_bytes:
                seeds.append(p.read_bytes())
    example = REPO / "examples"
    if example.is_dir():
        seeds += [p.read_bytes() for p in sorted(example.glob("*.hlo"))
                  if p.stat().st_size <= max_bytes]
    if not seeds:
        seeds.append(b"HloModule m\n\nENTRY main {\n  p = f32[4]{0} parameter(0)\n"
                     b"  ROOT n = f32[4]{0} negate(p)\n}\n")
    return seeds


def mutate(rng: random.Random, data: bytes, tokens) -> bytes:
    """One to four random edits of `data` (mostly one, so that many mutants still parse
    and reach the passes)."""
    for _ in range(rng.choices((1, 2, 3, 4), weights=(60, 25, 10, 5))[0]):
        kind = rng.randrange(9)
        n = len(data)
        if kind == 0 and n:  # flip a byte
            i = rng.randrange(n)
            data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        elif kind == 1 and n:  # truncate
            data = data[:rng.randrange(n)]
        elif kind in (2, 3):  # delete or duplicate a line
            lines = data.split(b"\n")
            if lines:
                i = rng.randrange(len(lines))
                if kind == 2:
                    del lines[i]
                else:
                    lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif kind == 4:  # insert a token
            i = rng.randrange(n + 1)
            data = data[:i] + rng.choice(tokens) + data[i:]
        elif kind == 5 and n:  # replace a number by another
            digits = [i for i in range(n) if 48 <= data[i] <= 57]
            if digits:
                i = rng.choice(digits)
                data = data[:i] + rng.choice([b"0", b"5", b"65535", b"2147483648",
                                              b"9223372036854775808"]) + data[i + 1:]
        elif kind == 6:  # swap two lines
            lines = data.split(b"\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif kind == 7 and n:  # delete a span
            i = rng.randrange(n)
            data = data[:i] + data[i + rng.randint(1, 64):]
        elif kind == 8 and n:  # copy a span elsewhere
            i = rng.randrange(n)
            span = data[i:i + rng.randint(1, 256)]
            j = rng.randrange(n + 1)
            data = data[:j] + span + data[j:]
    return data


def run(seed: int, count: int, seconds: float, shared: pathlib.Path, save_dir: pathlib.Path,
        max_bytes: int) -> int:
    import hlo_offload

    allowed = (hlo_offload.ParseError, hlo_offload.FixError, ValueError, OSError)
    rng = random.Random(seed)
    tokens = _dictionary() + EXTRA_TOKENS
    seeds = _seeds(shared, max_bytes)
    save_dir.mkdir(parents=True, exist_ok=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="hloff-api-fuzz-"))
    calls = {"check": hlo_offload.check, "fix": hlo_offload.fix,
             "report": hlo_offload.report}
    start = time.monotonic()
    done = failures = 0
    outcomes = {"result": 0, "ParseError": 0, "FixError": 0, "ValueError": 0, "OSError": 0}
    slowest = (0.0, None)
    current = save_dir / "current"
    while done < count and time.monotonic() - start < seconds:
        data = mutate(rng, rng.choice(seeds), tokens)
        name = rng.choice(sorted(calls))
        form = rng.choice(["bytes", "str", "file"])
        kwargs = {}
        if name == "fix":
            kwargs["strategy"] = rng.choice(hlo_offload.STRATEGIES)
        elif name == "check" and rng.random() < 0.3:
            kwargs["split_input_file"] = True
        if form == "bytes":
            source = data
        elif form == "str":
            source = data.decode("utf-8", "replace")
        else:
            source = work / f"input-{done}.hlo"
            source.write_bytes(data)
        current.write_bytes(data)
        t0 = time.monotonic()
        try:
            value = calls[name](source, **kwargs)
            str(value)
            if name == "report":
                value.to_json()
                value.to_dot()
            elif name == "check":
                value.to_json()
                [str(d) for d in value.diagnostics]
            outcomes["result"] += 1
        except allowed as e:
            for key, cls in (("ParseError", hlo_offload.ParseError),
                             ("FixError", hlo_offload.FixError),
                             ("ValueError", ValueError), ("OSError", OSError)):
                if isinstance(e, cls):
                    outcomes[key] += 1
                    break
            if not str(e):
                failures += 1
                _save(save_dir, done, data, name, form, kwargs, "empty message: " + repr(e))
        except BaseException as e:  # noqa: BLE001 - every other exception is a finding
            if isinstance(e, KeyboardInterrupt):
                raise
            failures += 1
            _save(save_dir, done, data, name, form, kwargs, f"{type(e).__name__}: {e}")
        elapsed = time.monotonic() - t0
        if elapsed > slowest[0]:
            slowest = (elapsed, f"input {done} ({name}, {form}, {len(data)} bytes)")
        if form == "file":
            source.unlink()
        done += 1
    current.unlink(missing_ok=True)
    print(f"api_mutation: seed {seed}: {done} inputs in {time.monotonic() - start:.1f} s, "
          + ", ".join(f"{k} {v}" for k, v in outcomes.items())
          + f"; slowest {slowest[0] * 1000:.0f} ms ({slowest[1]}); {failures} failures")
    return 1 if failures else 0


def _save(save_dir, i, data, name, form, kwargs, why):
    (save_dir / f"failure-{i}.hlo").write_bytes(data)
    (save_dir / f"failure-{i}.txt").write_text(f"{name}({form}, {kwargs}): {why}\n")
    print(f"api_mutation: input {i}: {name}({form}, {kwargs}): {why}", file=sys.stderr)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--shared", type=pathlib.Path,
                    default=pathlib.Path(os.environ.get("HLOFF_SHARED_DIR",
                                                        REPO.parent / "shared")))
    ap.add_argument("--save-dir", type=pathlib.Path, default=REPO / "build-py" / "api-fuzz")
    ap.add_argument("--max-input-bytes", type=int, default=64 << 10)
    a = ap.parse_args(argv)
    return run(a.seed, a.count, a.seconds, a.shared, a.save_dir, a.max_input_bytes)


if __name__ == "__main__":
    sys.exit(main())
