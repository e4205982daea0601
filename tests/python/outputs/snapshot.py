"""Every output of hlo-offload on the shared corpus, the MaxText suite's modules and the
stored JAX programs' StableHLO, as digests: the C++ command line (check text, JSON,
SARIF; report JSON; fix), the package's console command (check text and JSON, report
text, fix) and the Python API (check, report, fix). A change that must not move any
output (a refactoring) is checked by comparing the digests before and after:
test_outputs_unchanged.py compares with the digests stored in tests/python/outputs/
for the installed jax version.

    python tests/python/outputs/snapshot.py --write    # store the digests anew
    python tests/python/outputs/snapshot.py --dump DIR # every output in full, to diff

Outputs are normalised where they cannot repeat: the partitioner's run time, the
temporary folder of the decompressed modules, and the folder of this repository (also
where the stored programs recorded it). The command line's XLA semantics are fixed
($HLO_OFFLOAD_XLA_VERSION=newest); the API's are the installed XLA's, as .ci/run installs
it (HLO_OFFLOAD_XLA_PKGS for the Python 3.13 environment), which the stored digests name
through the jax version.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gzip
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from typing import Callable, Dict, List, Optional, Tuple

REPO = pathlib.Path(__file__).resolve().parents[3]
STORED = pathlib.Path(__file__).resolve().parent

# The XLA semantics are fixed, so that the outputs do not depend on the installed libtpu.
ENV = {"HLO_OFFLOAD_XLA_VERSION": "newest", "ALLOW_MULTIPLE_LIBTPU_LOAD": "1"}
_SECONDS = re.compile(r"ran the partitioner in \d+(?:\.\d+)? s")


def stored_path() -> pathlib.Path:
    """The digests stored for the installed jax (outputs move with its partitioner)."""
    try:
        import jax
        version = jax.__version__
    except ImportError:
        version = "none"
    return STORED / f"jax-{version}.json"


def inputs(shared: pathlib.Path, scratch: pathlib.Path,
           quick: bool = False) -> List[Tuple[str, pathlib.Path]]:
    """(name, path) of every input: the corpus's real modules and lit cases, the MaxText
    suite's modules (decompressed into `scratch`), the stored programs' StableHLO. With
    `quick`, every corpus file and lit case but a quarter of the StableHLO programs (each
    console run of one starts jax) and of the 8-chip MaxText steps (each is partitioned)."""
    corpus = shared / "corpus"
    found: List[Tuple[str, pathlib.Path]] = []
    for p in sorted((corpus / "real").iterdir()):
        if p.suffix in (".hlo", ".txt") and p.name != "SOURCES.md":
            found.append((f"corpus/{p.relative_to(corpus)}", p))
    for p in sorted((corpus / "cases").rglob("*.hlo")):
        found.append((f"corpus/{p.relative_to(corpus)}", p))
    steps = sorted((REPO / "tests" / "maxtext" / "modules").glob("*.hlo.gz"))
    sharded = [p for p in steps if p.name.endswith("_8.hlo.gz")]
    for p in steps:
        if quick and p in sharded and sharded.index(p) % 4:
            continue
        out = scratch / p.name[:-3]
        out.write_bytes(gzip.decompress(p.read_bytes()))
        found.append((f"maxtext/{out.name}", out))
    for i, p in enumerate(sorted((REPO / "tests" / "xla-ref").rglob("lowered.mlir"))):
        if quick and i % 4:
            continue
        found.append((f"xla-ref/{p.parent.relative_to(REPO / 'tests' / 'xla-ref')}.mlir", p))
    return found


# A file of this repository named by an absolute path: the checkout's own, and those the
# stored programs' StableHLO recorded where they were made.
_REPO_FILE = re.compile(r"/(?:[\w.+-]+/)+?(?=(?:tests/python|scripts/xla_\w+)/)")


def _normalise(data: str, scratch: pathlib.Path, shared: pathlib.Path) -> str:
    data = _SECONDS.sub("ran the partitioner in N s", data)
    data = data.replace(str(scratch), "<scratch>").replace(str(shared), "<shared>") \
        .replace(str(REPO), "<repo>")
    return _REPO_FILE.sub("<repo>/", data)


def _split(path: pathlib.Path) -> List[str]:
    text = path.read_bytes()[:8 << 20].decode("utf-8", "replace")
    return ["--split-input-file"] if re.search(r"^// -----", text, re.M) else []


def command_runs(name: str, path: pathlib.Path, exe: str, console: List[str]
                 ) -> List[Tuple[str, List[str]]]:
    """(key, argv) of every command-line run of one input."""
    split = _split(path)
    f = str(path)
    runs: List[Tuple[str, List[str]]] = []
    if not name.endswith(".mlir"):
        runs += [
            ("exe check", [exe, "check", *split, f]),
            ("exe check json", [exe, "check", "--format=json", *split, f]),
            ("exe check sarif", [exe, "check", "--format=sarif", *split, f]),
            ("exe fix", [exe, "fix", *split, f]),
        ]
        if not split:
            runs.append(("exe report json", [exe, "report", "--format=json", f]))
    runs += [
        ("console check", [*console, "check", *split, f]),
        ("console check json", [*console, "check", "--format=json", *split, f]),
        ("console fix", [*console, "fix", *split, f]),
    ]
    if not split:
        runs.append(("console report", [*console, "report", f]))
    return [(f"{name} | {key}", argv) for key, argv in runs]


def _run(argv: List[str]) -> str:
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={**os.environ, **ENV}, timeout=600)
    return (f"exit {proc.returncode}\n--- stdout\n{proc.stdout.decode('utf-8', 'replace')}"
            f"--- stderr\n{proc.stderr.decode('utf-8', 'replace')}")


def api_runs(name: str, path: pathlib.Path) -> List[Tuple[str, Callable[[], str]]]:
    """(key, call) of every Python API run of one input."""
    import hlo_offload as ho
    split = bool(_split(path))

    def outcome(fn: Callable[[], object], render: Callable[[object], str]) -> str:
        try:
            value = fn()
        except Exception as e:  # the error is the output
            return f"raised {type(e).__name__}: {e}"
        return render(value)

    def check() -> str:
        return outcome(lambda: ho.check(path, split_input_file=split),
                       lambda r: f"{r}\n{json.dumps(r.to_json(), indent=1, sort_keys=True)}")

    def report() -> str:
        return outcome(lambda: ho.report(path),
                       lambda r: f"{r}\n{json.dumps(r.to_json(), indent=1, sort_keys=True)}")

    def fix() -> str:
        return outcome(lambda: ho.fix(path), str)

    runs: List[Tuple[str, Callable[[], str]]] = [("api check", check)]
    if not split:
        runs += [("api report", report), ("api fix", fix)]
    return [(f"{name} | {key}", call) for key, call in runs]


def snapshot(shared: pathlib.Path, exe: str, console: List[str],
             dump: Optional[pathlib.Path] = None, quick: bool = False) -> Dict[str, str]:
    """Digest (sha256, 16 hex digits) of every output, by '<input> | <run>' (of the
    inputs `quick` keeps, see inputs())."""
    out: Dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        scratch = pathlib.Path(tmp)
        found = inputs(shared, scratch, quick)
        texts: Dict[str, str] = {}
        jobs = [job for name, path in found for job in command_runs(name, path, exe, console)]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for key, text in zip([k for k, _ in jobs], pool.map(_run, [a for _, a in jobs])):
                texts[key] = text
        os.environ.update(ENV)
        for name, path in found:
            for key, call in api_runs(name, path):
                texts[key] = call()
        for key, text in texts.items():
            text = _normalise(text, scratch, shared)
            out[key] = hashlib.sha256(text.encode()).hexdigest()[:16]
            if dump is not None:
                target = dump / (re.sub(r"[^\w.-]+", "_", key) + ".txt")
                target.write_text(text)
    return dict(sorted(out.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="store the digests")
    parser.add_argument("--dump", type=pathlib.Path, help="write every output to DIR")
    parser.add_argument("--quick", action="store_true",
                        help="the test's inputs only (see inputs())")
    parser.add_argument("--shared", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("HLOFF_SHARED_DIR",
                                                            REPO.parent / "shared")))
    parser.add_argument("--exe", default=os.environ.get("HLOFF_BIN",
                                                        str(REPO / "build" / "hlo-offload")))
    args = parser.parse_args()
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    digests = snapshot(args.shared, args.exe, [sys.executable, "-m", "hlo_offload"],
                       args.dump, args.quick)
    if args.write:
        stored_path().write_text(json.dumps(digests, indent=1) + "\n")
        print(f"{len(digests)} digests written to {stored_path()}")
        return 0
    stored = json.loads(stored_path().read_text())
    moved = sorted(k for k in digests if stored.get(k) != digests[k])
    for k in moved:
        print(f"moved: {k}")
    print(f"{len(digests)} outputs, {len(moved)} moved")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
