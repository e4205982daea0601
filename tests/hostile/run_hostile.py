#!/usr/bin/env python3
"""The hostile-inputs suite: hlo-offload must answer every input with a verdict
or a located error, quickly, and never lose data.

Inputs are generated from the shared corpus (truncations at sampled points of
every file, byte flips, deleted and duplicated lines, NUL bytes) and built by
hand (cycles, self-references, recursive computations, undefined and
duplicate names, binary garbage, an empty file, 10^5-deep nesting, 10^5-wide
tuples, limits crossed). For each input the suite runs

    hlo-offload opt INPUT -o OUT     (OUT holds a sentinel beforehand)

and, for a sample, `check --format=json` and `fix --in-place` on a copy, and
demands: the exit status is 0, 1 or 2, within the time limit; exit 2 comes
with a message on standard error; no sanitizer report; the input is
unchanged; on failure OUT still holds its sentinel (and `fix --in-place`
left the file as it was); no temporary file is left behind.

Usage: run_hostile.py --binary PATH [--shared DIR] [--timeout S] [--seed N]
                      [--keep DIR]
Exit status 0 when every input passes; failing inputs are copied to --keep.
"""

import argparse
import os
import resource
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

SANITIZER_MARKERS = (
    "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer",
    "runtime error:",
    "UndefinedBehaviorSanitizer",
    "terminate called",
)
SENTINEL = b"sentinel: hlo-offload must not touch this file on failure\n"

# A small valid module with host offloading, the base of the built cases.
BASE = b"""HloModule m, entry_computation_layout={(f32[8]{0})->f32[8]{0}}

ENTRY main {
  p = f32[8]{0} parameter(0)
  h = f32[8]{0} custom-call(p), custom_call_target="MoveToHost"
  ROOT d = f32[8]{0} custom-call(h), custom_call_target="MoveToDevice"
}
"""


def corpus_files(shared):
    files = []
    for sub in ("cases", "real"):
        root = os.path.join(shared, "corpus", sub)
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".hlo", ".txt")):
                    files.append(os.path.join(dirpath, name))
    return sorted(files)


def mutations(path, data, rng):
    """Mutated copies of one corpus file: (label, bytes)."""
    name = os.path.basename(path)
    big = len(data) > 200_000
    out = []
    # Truncations: sampled points, more for small files (big files take
    # longest to run, and a prefix of them is mostly more of the same).
    points = 2 if big else 6
    for i in range(points):
        cut = rng.randrange(1, len(data)) if len(data) > 1 else 0
        out.append((f"{name}:truncate@{cut}", data[:cut]))
    if big:
        cut = rng.randrange(len(data) // 2)
        out.append((f"{name}:flip@{cut}", flip(data, cut, rng)))
        return out
    lines = data.split(b"\n")
    for i in range(3):
        cut = rng.randrange(len(data))
        out.append((f"{name}:flip@{cut}", flip(data, cut, rng)))
    for i in range(2):
        k = rng.randrange(len(lines))
        out.append((f"{name}:delete-line@{k + 1}",
                    b"\n".join(lines[:k] + lines[k + 1:])))
        k = rng.randrange(len(lines))
        out.append((f"{name}:duplicate-line@{k + 1}",
                    b"\n".join(lines[:k + 1] + lines[k:])))
    k = rng.randrange(len(data))
    out.append((f"{name}:nul@{k}", data[:k] + b"\0" + data[k:]))
    return out


def flip(data, at, rng):
    return data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:]


def module(body, header=b"HloModule m"):
    return header + b"\n\n" + body


def built_cases(rng):
    """Inputs written by hand: (label, bytes)."""
    n = 100_000
    cases = [
        ("empty", b""),
        ("whitespace", b" \n\t\r\n"),
        ("only-comments", b"// nothing here\n/* still nothing */\n"),
        ("unterminated-block-comment", BASE + b"/* no end"),
        ("unterminated-string", BASE.replace(b'"MoveToHost"', b'"MoveToHost')),
        ("nul-only", b"\0" * 64),
        ("utf8-bom", b"\xef\xbb\xbf" + BASE),
        ("crlf", BASE.replace(b"\n", b"\r\n")),
        ("non-utf8-metadata", BASE.replace(
            b'custom_call_target="MoveToHost"',
            b'custom_call_target="MoveToHost", metadata={op_name="\xff\xfe" '
            b'source_file="\xc3\x28.py" source_line=1}')),
        ("header-only", b"HloModule m\n"),
        ("two-modules", BASE + BASE),
        # Graph faults.
        ("self-reference", module(b"ENTRY e {\n  a = f32[] add(a, a)\n}\n")),
        ("cycle", module(b"ENTRY e {\n  a = f32[] add(b, b)\n"
                         b"  ROOT b = f32[] negate(a)\n}\n")),
        ("control-cycle", module(
            b"ENTRY e {\n  a = f32[] constant(1), control-predecessors={b}\n"
            b"  ROOT b = f32[] constant(2), control-predecessors={a}\n}\n")),
        ("recursive-call", module(
            b"f {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n\n"
            b"ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n")),
        ("mutual-recursion", module(
            b"f {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=g\n}\n\n"
            b"g {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n\n"
            b"ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f\n}\n")),
        ("while-body-is-entry", module(
            b"c {\n  p = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n\n"
            b"ENTRY e {\n  p = f32[] parameter(0)\n"
            b"  ROOT w = f32[] while(p), condition=c, body=e\n}\n")),
        ("undefined-operand", module(b"ENTRY e {\n  ROOT a = f32[] negate(nope)\n}\n")),
        ("undefined-computation", module(
            b"ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=nope\n}\n")),
        ("undefined-control-predecessor", module(
            b"ENTRY e {\n  ROOT a = f32[] constant(1), control-predecessors={nope}\n}\n")),
        ("duplicate-instruction", module(
            b"ENTRY e {\n  a = f32[] constant(1)\n  a = f32[] constant(2)\n}\n")),
        ("duplicate-computation", module(
            b"f {\n  ROOT a = f32[] constant(1)\n}\n\nf {\n  ROOT a = f32[] constant(1)\n}\n")),
        ("two-entries", module(
            b"ENTRY e {\n  ROOT a = f32[] constant(1)\n}\n\nENTRY f {\n  ROOT a = f32[] constant(1)\n}\n")),
        ("two-roots", module(
            b"ENTRY e {\n  ROOT a = f32[] constant(1)\n  ROOT b = f32[] constant(2)\n}\n")),
        ("duplicate-parameter-number", module(
            b"ENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] parameter(0)\n}\n")),
        ("duplicate-attribute", BASE.replace(
            b'custom_call_target="MoveToHost"',
            b'custom_call_target="MoveToHost", custom_call_target="MoveToHost"')),
        ("gte-out-of-range", module(
            b"ENTRY e {\n  p = (f32[], f32[]) parameter(0)\n"
            b"  ROOT g = f32[] get-tuple-element(p), index=7\n}\n")),
        ("gte-of-array", module(
            b"ENTRY e {\n  p = f32[] parameter(0)\n"
            b"  ROOT g = f32[] get-tuple-element(p), index=0\n}\n")),
        ("gte-shape-mismatch", module(
            b"ENTRY e {\n  p = (f32[8,32]{1,0}, f32[]) parameter(0)\n"
            b"  ROOT g = f32[] get-tuple-element(p), index=0\n}\n")),
        ("tuple-shape-mismatch", module(
            b"ENTRY e {\n  p = f32[8]{0} parameter(0)\n"
            b"  ROOT t = (f32[9]{0}) tuple(p)\n}\n")),
        ("while-shape-mismatch", module(
            b"c {\n  p = f32[8] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n\n"
            b"b {\n  p = f32[8] parameter(0)\n  ROOT r = f32[] constant(1)\n}\n\n"
            b"ENTRY e {\n  p = f32[8] parameter(0)\n"
            b"  ROOT w = f32[8] while(p), condition=c, body=b\n}\n")),
        ("annotation-shape-mismatch", module(
            b"ENTRY e {\n  p = f32[4]{0} parameter(0)\n"
            b"  ROOT h = f32[5]{0} custom-call(p), custom_call_target=\"annotate_device_placement\", "
            b"frontend_attributes={_xla_buffer_placement=\"pinned_host\"}\n}\n")),
        ("entry-layout-mismatch", BASE.replace(b"->f32[8]{0}", b"->f32[9]{0}")),
        # Numbers out of range.
        ("dimension-overflow", module(
            b"ENTRY e {\n  ROOT p = f32[99999999999999999999] parameter(0)\n}\n")),
        ("dimension-product-overflow", module(
            b"ENTRY e {\n  ROOT p = f32[4294967296,4294967296] parameter(0)\n}\n")),
        ("byte-size-overflow", module(
            b"ENTRY e {\n  ROOT p = f64[4611686018427387904] parameter(0)\n}\n")),
        ("tile-padding-overflow", module(
            b"ENTRY e {\n  ROOT p = f32[9223372036854775807]{0:T(1024)} parameter(0)\n}\n")),
        ("negative-tile", module(
            b"ENTRY e {\n  ROOT p = f32[8]{0:T(-5)} parameter(0)\n}\n")),
        ("element-size-overflow", module(
            b"ENTRY e {\n  ROOT p = f32[8]{0:E(9223372036854775807)} parameter(0)\n}\n")),
        ("huge-parameter-number", module(
            b"ENTRY e {\n  ROOT p = f32[] parameter(16777215)\n}\n")),
        ("parameter-number-overflow", module(
            b"ENTRY e {\n  ROOT p = f32[] parameter(99999999999999999999999)\n}\n")),
        ("negative-dimension", module(b"ENTRY e {\n  ROOT p = f32[-1] parameter(0)\n}\n")),
        ("huge-gte-index", module(
            b"ENTRY e {\n  p = (f32[]) parameter(0)\n"
            b"  ROOT g = f32[] get-tuple-element(p), index=9223372036854775807\n}\n")),
        ("huge-slice", module(
            b"ENTRY e {\n  p = f32[8] parameter(0)\n"
            b"  ROOT s = f32[8] slice(p), slice={[0:99999999999999999999999]}\n}\n")),
        ("too-many-dimensions", module(
            b"ENTRY e {\n  ROOT p = f32[" + b",".join([b"1"] * 5000) + b"] parameter(0)\n}\n")),
        ("long-name", module(b"ENTRY e {\n  ROOT " + b"a" * 1_000_000 + b" = f32[] constant(1)\n}\n")),
        ("long-line-garbage", b"HloModule " + b"x" * 1_000_000),
    ]
    # 10^5-deep nesting in every nesting construct.
    deep = {
        "tuple-shape": b"ENTRY e {\n  ROOT p = " + b"(" * n + b"f32[]" + b")" * n + b" parameter(0)\n}\n",
        "literal": b"ENTRY e {\n  ROOT c = f32[1] constant(" + b"{" * n + b"1" + b"}" * n + b")\n}\n",
        "attribute-braces": b"ENTRY e {\n  ROOT c = f32[] constant(1), sharding=" + b"{" * n + b"}" * n + b"\n}\n",
        "attribute-brackets": b"ENTRY e {\n  ROOT c = f32[] constant(1), foo=" + b"[" * n + b"]" * n + b"\n}\n",
        "operand-parens": b"ENTRY e {\n  ROOT c = f32[] add(" + b"(" * n + b"\n}\n",
        "signature": b"ENTRY e " + b"(" * n + b")" * n + b" -> f32[] {\n  ROOT c = f32[] constant(1)\n}\n",
        "entry-layout": None,
        "layout-parens": b"ENTRY e {\n  ROOT p = f32[8]{0:D(" + b"(" * n + b")" * n + b")} parameter(0)\n}\n",
        "frontend-attributes": b"ENTRY e {\n  ROOT c = f32[] constant(1), frontend_attributes={a=" + b"{" * n + b"}" * n + b"}\n}\n",
        "metadata": b"ENTRY e {\n  ROOT c = f32[] constant(1), metadata={op_name=" + b"{" * n + b"}" * n + b"}\n}\n",
        "unbalanced-open": b"ENTRY e {\n  ROOT c = f32[] constant(1), x=" + b"{" * n + b"\n}\n",
    }
    deep["entry-layout"] = (b", entry_computation_layout={(" + b"(" * n + b"f32[]" + b")" * n + b")->f32[]}")
    for label, body in deep.items():
        if label == "entry-layout":
            cases.append((f"deep-{label}", module(
                b"ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n", b"HloModule m" + body)))
        else:
            cases.append((f"deep-{label}", module(body)))
    # Nesting just inside the limit (512) goes through the whole pipeline:
    # every recursion over shapes (printer, layouts, comparisons) at full depth.
    limit = 512
    at_limit = b"(" * limit + b"f32[8]{0}" + b")" * limit
    cases.append(("nesting-at-limit", module(
        b"ENTRY e {\n  p = " + at_limit + b" parameter(0)\n"
        b"  h = " + at_limit + b" custom-call(p), custom_call_target=\"MoveToHost\"\n"
        b"  ROOT d = " + at_limit + b" custom-call(h), custom_call_target=\"MoveToDevice\"\n}\n")))
    cases.append(("nesting-at-limit-e1200", module(
        b"ENTRY e {\n  p = " + at_limit + b" parameter(0)\n"
        b"  ROOT h = " + at_limit + b" custom-call(p), custom_call_target=\"MoveToHost\"\n}\n",
        b"HloModule m, entry_computation_layout={(" + at_limit + b")->" + at_limit + b"}")))
    cases.append(("literal-at-limit", module(
        b"ENTRY e {\n  ROOT c = f32[1] constant(" + b"{" * limit + b"1" + b"}" * limit + b")\n}\n")))
    cases.append(("attribute-at-limit", module(
        b"ENTRY e {\n  ROOT c = f32[] constant(1), sharding=" + b"{" * limit + b"}" * limit + b"\n}\n")))
    # 10^6 escapes in one string (a backend_config, metadata): the scan for
    # the closing quote must not start again after every escape.
    escapes = 1_000_000
    cases.append(("many-escapes-in-one-string", module(
        b"ENTRY e {\n  p = f32[4]{0} parameter(0), backend_config=\"" + b"\\\\" * escapes
        + b"\"\n  ROOT r = f32[4]{0} negate(p), metadata={op_name=\"" + b"x\\ny" * escapes
        + b"\"}\n}\n")))
    # 10^5-wide: a tuple and its shape, parameters, users, chains, calls.
    names = [b"p%d" % i for i in range(n)]
    params = b"".join(b"  p%d = f32[] parameter(%d)\n" % (i, i) for i in range(n))
    shape = b"(" + b", ".join([b"f32[]"] * n) + b")"
    cases.append(("wide-tuple", module(
        b"ENTRY e {\n" + params + b"  ROOT t = " + shape + b" tuple(" + b", ".join(names) + b")\n}\n")))
    cases.append(("wide-tuple-shape-parameter", module(
        b"ENTRY e {\n  p = " + shape + b" parameter(0)\n"
        b"  ROOT g = f32[] get-tuple-element(p), index=99999\n}\n")))
    cases.append(("wide-tuple-of-moves", module(
        b"ENTRY e {\n  p = f32[8]{0} parameter(0)\n"
        b"  h = f32[8]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n"
        b"  ROOT t = (" + b", ".join([b"f32[8]{0}"] * n) + b") tuple(" + b", ".join([b"h"] * n) + b")\n}\n")))
    # Fan-out and fan-in of offloaded values: one MoveToHost with many
    # MoveToDevice users, and many MoveToHosts, each gathered in one tuple.
    # The passes find operand positions and detach users one at a time, as
    # XLA's do, which is quadratic in the fan (README, "Limits"): 10^4 takes a
    # fraction of a second (fix, which runs the pipeline twice, close to one),
    # 10^5 from seconds to half a minute. Hence 5000 here.
    fan = 5_000
    cases.append(("many-move-to-hosts", module(
        b"ENTRY e {\n  p = f32[8]{0} parameter(0)\n"
        + b"".join(b"  h%d = f32[8]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n" % i
                   for i in range(fan))
        + b"  ROOT t = (" + b", ".join([b"f32[8]{0}"] * fan) + b") tuple("
        + b", ".join(b"h%d" % i for i in range(fan)) + b")\n}\n")))
    cases.append(("many-users", module(
        b"ENTRY e {\n  p = f32[8]{0} parameter(0)\n"
        b"  h = f32[8]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n"
        + b"".join(b"  u%d = f32[8]{0} custom-call(h), custom_call_target=\"MoveToDevice\"\n" % i
                   for i in range(fan))
        + b"  ROOT t = (" + b", ".join([b"f32[8]{0}"] * fan) + b") tuple("
        + b", ".join(b"u%d" % i for i in range(fan)) + b")\n}\n")))
    callers = n // 2  # 3 MB of text already
    cases.append(("many-callers", module(
        b"f {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n\n"
        b"ENTRY e {\n  p = f32[] parameter(0)\n"
        + b"".join(b"  c%d = f32[] call(p), to_apply=f\n" % i for i in range(callers))
        + b"  ROOT t = (" + b", ".join([b"f32[]"] * callers) + b") tuple("
        + b", ".join(b"c%d" % i for i in range(callers)) + b")\n}\n")))
    # A wide tuple taken apart and put together again: tuple-simplifier
    # replaces every get-tuple-element, each an operand of one wide tuple.
    wide = n // 2
    cases.append(("wide-tuple-of-get-tuple-elements", module(
        b"ENTRY e {\n  p = f32[] parameter(0)\n"
        + b"  t = (" + b", ".join([b"f32[]"] * wide) + b") tuple("
        + b", ".join([b"p"] * wide) + b")\n"
        + b"".join(b"  g%d = f32[] get-tuple-element(t), index=%d\n" % (i, i) for i in range(wide))
        + b"  ROOT r = (" + b", ".join([b"f32[]"] * wide) + b") tuple("
        + b", ".join(b"g%d" % i for i in range(wide)) + b")\n}\n")))
    # Reshapes that algsimp makes bitcasts, each an operand of one wide tuple.
    cases.append(("wide-tuple-of-bitcast-reshapes", module(
        b"ENTRY e {\n  p = f32[1]{0} parameter(0)\n"
        + b"".join(b"  r%d = f32[] reshape(p)\n" % i for i in range(wide))
        + b"  ROOT t = (" + b", ".join([b"f32[]"] * wide) + b") tuple("
        + b", ".join(b"r%d" % i for i in range(wide)) + b")\n}\n")))
    chain = b"".join(b"  c%d = f32[8]{0} negate(c%d)\n" % (i + 1, i) for i in range(n))
    cases.append(("long-chain", module(
        b"ENTRY e {\n  c0 = f32[8]{0} parameter(0)\n" + chain
        + b"  h = f32[8]{0} custom-call(c%d), custom_call_target=\"MoveToHost\"\n" % n
        + b"  ROOT d = f32[8]{0} custom-call(h), custom_call_target=\"MoveToDevice\"\n}\n")))
    calls = b"".join(
        b"f%d {\n  p = f32[8]{0} parameter(0)\n  ROOT c = f32[8]{0} call(p), to_apply=f%d\n}\n\n" % (i, i + 1)
        for i in range(n // 10))
    cases.append(("deep-call-chain", module(
        b"f%d {\n  p = f32[8]{0} parameter(0)\n"
        b"  ROOT h = f32[8]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n}\n\n" % (n // 10)
        + calls
        + b"ENTRY e {\n  p = f32[8]{0} parameter(0)\n  c = f32[8]{0} call(p), to_apply=f0\n"
        b"  ROOT d = f32[8]{0} custom-call(c), custom_call_target=\"MoveToDevice\"\n}\n")))
    # Binary garbage of a few sizes.
    for size in (1, 17, 4096, 1 << 20):
        cases.append((f"garbage-{size}", bytes(rng.randrange(256) for _ in range(min(size, 4096)))
                      * max(1, size // 4096)))
    return cases


class Runner:
    """Runs the binary on one input after another and checks each answer."""

    def __init__(self, binary, cpu_limit, work, keep):
        self.binary = binary
        self.cpu_limit = cpu_limit
        # A hang is cut off by the wall clock; the limit itself is on CPU time,
        # so that a busy machine does not fail the suite.
        self.wall_limit = max(10.0, 10 * cpu_limit)
        self.work = work
        self.keep = keep
        self.failures = []
        self.runs = 0
        self.slowest = (0.0, "")
        self.env = dict(os.environ)
        # Sanitizer reports must not pass for exit 1 (a diagnosed error).
        for var, code in (("ASAN_OPTIONS", 86), ("UBSAN_OPTIONS", 87)):
            options = self.env.get(var, "")
            self.env[var] = (options + ":" if options else "") + f"exitcode={code}"

    def run(self, label, args, cwd):
        """(exit status or None for a hang, stdout, stderr, CPU seconds)."""
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run([self.binary] + args, cwd=cwd, stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=self.wall_limit, env=self.env)
        except subprocess.TimeoutExpired as e:
            return None, b"", e.stderr or b"", self.wall_limit
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.runs += 1
        if cpu > self.slowest[0]:
            self.slowest = (cpu, f"{label} ({args[0]})")
        return proc.returncode, proc.stdout, proc.stderr, cpu

    def fail(self, label, data, why):
        self.failures.append(f"{label}: {why}")
        if self.keep:
            os.makedirs(self.keep, exist_ok=True)
            safe = re.sub(r"[^A-Za-z0-9_.@-]", "_", label)[:150]
            with open(os.path.join(self.keep, safe + ".hlo"), "wb") as f:
                f.write(data)

    def common_checks(self, result, what, json_out=False):
        rc, stdout, stderr, cpu = result
        text = stderr.decode("utf-8", "replace")
        for marker in SANITIZER_MARKERS:
            if marker in text:
                return f"{what}: sanitizer report\n{text[-1500:]}"
        if rc is None:
            return f"{what}: no answer within {self.wall_limit:.0f} s"
        if cpu > self.cpu_limit:
            return f"{what}: answered after {cpu:.2f} s of CPU time (limit {self.cpu_limit} s)"
        if rc not in (0, 1, 2):
            return f"{what}: exit status {rc}\n{text[-400:]}"
        if rc == 2 and not stderr.strip():
            # `check --format=json` reports parse errors in its JSON.
            if not (json_out and b'"severity": "error"' in stdout):
                return f"{what}: exit 2 without a message"
        return None

    def check(self, label, data, full):
        case_dir = tempfile.mkdtemp(dir=self.work)
        try:
            problem = self._check(label, data, full, case_dir)
        finally:
            shutil.rmtree(case_dir, ignore_errors=True)
        if problem is not None:
            self.fail(label, data, problem)

    def _check(self, label, data, full, case_dir):
        src = os.path.join(case_dir, "in")
        out_dir = os.path.join(case_dir, "out")
        os.makedirs(src)
        os.makedirs(out_dir)
        target = os.path.join(src, "input.hlo")
        result_path = os.path.join(out_dir, "result.hlo")
        with open(target, "wb") as f:
            f.write(data)
        with open(result_path, "wb") as f:
            f.write(SENTINEL)
        result = self.run(label, ["opt", "in/input.hlo", "-o", "out/result.hlo"], case_dir)
        problem = self.common_checks(result, "opt -o")
        if problem is not None:
            return problem
        rc = result[0]
        with open(target, "rb") as f:
            if f.read() != data:
                return "opt -o: the input changed"
        if sorted(os.listdir(src)) != ["input.hlo"]:
            return f"opt -o: files appeared beside the input: {sorted(os.listdir(src))}"
        left = sorted(os.listdir(out_dir))
        if left != ["result.hlo"]:
            return f"opt -o: files left in the output folder: {left}"
        with open(result_path, "rb") as f:
            written = f.read()
        if rc != 0 and written != SENTINEL:
            return f"opt -o: exit {rc} but the output file was written"
        if rc == 0 and written == SENTINEL:
            return "opt -o: exit 0 but the output file was not written"
        if not full:
            return None
        result = self.run(label, ["check", "--format=json", "in/input.hlo"], case_dir)
        problem = self.common_checks(result, "check --format=json", json_out=True)
        if problem is not None:
            return problem
        result = self.run(label, ["fix", "--strategy=move-to-device", "--in-place",
                                  "in/input.hlo"], case_dir)
        problem = self.common_checks(result, "fix --in-place")
        if problem is not None:
            return problem
        with open(target, "rb") as f:
            after = f.read()
        if result[0] != 0 and after != data:
            return f"fix --in-place: exit {result[0]} but the file changed"
        if sorted(os.listdir(src)) != ["input.hlo"]:
            return f"fix --in-place: files left: {sorted(os.listdir(src))}"
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--shared", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared"))
    parser.add_argument("--timeout", type=float, default=1.0,
                        help="CPU seconds allowed per run (sanitizer builds need more)")
    parser.add_argument("--seed", type=int, default=20260726)
    parser.add_argument("--keep", default="")
    parser.add_argument("--full-every", type=int, default=3,
                        help="also run check and fix --in-place on every Nth input")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(args.seed)
    started = time.monotonic()
    cases = built_cases(rng)
    files = corpus_files(args.shared)
    if not files:
        print(f"hostile: no corpus under {args.shared}", file=sys.stderr)
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        cases.append((os.path.basename(path), data))
        cases.extend(mutations(path, data, rng))
    with tempfile.TemporaryDirectory(prefix="hloff-hostile-") as work:
        runner = Runner(binary, args.timeout, work, args.keep)
        for i, (label, data) in enumerate(cases):
            # check and fix re-run the pipeline several times: on a sample of
            # the inputs, and not on the largest (megabytes of real modules).
            full = (i % args.full_every == 0 or i < 80) and len(data) < 1_000_000
            runner.check(label, data, full)
    elapsed = time.monotonic() - started
    print(f"hostile: {len(cases)} inputs, {runner.runs} runs in {elapsed:.1f} s "
          f"(seed {args.seed}, limit {args.timeout} s of CPU time per run); slowest "
          f"{runner.slowest[0]:.2f} s: {runner.slowest[1]}")
    for failure in runner.failures:
        print(f"FAIL {failure}")
    if runner.failures:
        print(f"hostile: {len(runner.failures)} of {len(cases)} inputs failed"
              + (f"; inputs kept in {args.keep}" if args.keep else ""))
        return 1
    print("hostile: all inputs answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
