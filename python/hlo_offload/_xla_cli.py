"""`hlo-offload check --xla=tpu|cuda` and `fix --xla=...`: the command line's run, then XLA's
own verdict on each module (hlo_offload._xla), beside ours.

check: the run happens as without --xla (same diagnostics, same output), then each FILE's
module is compiled by XLA's compile-only client; per file, standard error gets XLA's verdict,
whether it agrees with ours and every difference (text and `--format=xla`), or the JSON
document gets an `xla` object per file and `xla_confirmed` on each error and HO2001
(`--format=json`). XLA's verdict decides the exit status: 0 when XLA compiles every module,
1 when it refuses one; a file XLA gave no verdict for keeps ours; usage errors stay 2.
fix: the fix is written as without --xla, then XLA compiles the fixed module; exit 1 when
XLA refuses it.
report: the report is written as without --xla, then each FILE's module is compiled and
XLA's verdict and memory analysis, beside the report's per-device bytes with each
difference explained (hlo_offload._xla.memory_figures), follow on standard error (text),
or in an `xla` object of each report (`--format=json`); exit 1 when XLA refuses a module.
check shows the same memory figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

USAGE_EXIT = 2


def _usage(command: str, message: str) -> int:
    sys.stderr.write(f"hlo-offload: error: {message}\n"
                     f"Run 'hlo-offload {command} --help' for usage.\n")
    return USAGE_EXIT


def _self_command(argv, capture: bool):
    """Runs this package's command line on argv in a child (stdout captured or not)."""
    return subprocess.run([sys.executable, "-m", "hlo_offload", *argv],
                          stdout=subprocess.PIPE if capture else None)


def _option(argv, names):
    """The value of the last option in `names` (`--name=v` or `--name v`), else None."""
    value = None
    for i, a in enumerate(argv):
        if a == "--":
            break
        name, eq, v = a.partition("=")
        if name in names:
            value = v if eq else (argv[i + 1] if i + 1 < len(argv) else None)
    return value


_WITH_VALUE = ("-o", "--output", "--strategy", "--passes", "--pipeline", "--disable",
               "--enable", "--platform", "--format", "--pinned-host-budget", "--max-nodes")


def _files(argv):
    """The FILE arguments of a command line (after the subcommand)."""
    files, skip, command_seen = [], False, False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == "--":
            files += argv[i + 1:]
            break
        if a.startswith("-") and a != "-":
            skip = a in _WITH_VALUE
            continue
        if not command_seen:
            command_seen = True
            continue
        files.append(a)
    return files


def _without_format(argv):
    out, skip = [], False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == "--":
            out += argv[i:]
            break
        if a == "--format":
            skip = True
            continue
        if a.startswith("--format="):
            continue
        out.append(a)
    return out


def run_with_xla(command, argv, backend: str, topology) -> int:
    """The command line run of `argv` with XLA's verdict (see the module's doc)."""
    from . import _xla
    if command not in ("check", "fix", "report"):
        return _usage(command or "", "--xla is an option of check, fix and report")
    if "--split-input-file" in argv:
        return _usage(command, "--xla compiles one module per file: check the modules of a "
                      "split file one by one")
    fmt = _option(argv, ("--format",)) or "text"
    if command == "check" and fmt == "sarif":
        return _usage(command, "--xla works with --format=text, xla or json")
    if command == "report" and fmt not in ("text", "json"):
        return _usage(command, "--xla works with --format=text or json")
    if not _xla.installed(backend):
        sys.stderr.write(f"hlo-offload: error: {_xla._unavailable(backend)}\n")
        return USAGE_EXIT
    wanted = "gpu" if backend == "cuda" else "tpu"
    given = _option(argv, ("--backend",))
    if given is not None and given not in (wanted, "any") and \
            not (wanted == "gpu" and given == "cuda"):
        return _usage(command, f"--backend={given} checks for another backend than "
                      f"--xla={backend} compiles for: leave --backend out, or give "
                      f"--backend={wanted}")
    if given is None and command in argv:
        # XLA compiles for this backend: the check is for it too, so that what its
        # compiler refuses (HO1012 to HO1016) is an error, as XLA's verdict is.
        at = argv.index(command) + 1
        argv = [*argv[:at], "--backend=" + ("gpu" if backend == "cuda" else "tpu"),
                *argv[at:]]
    try:
        if command == "fix":
            return _fix(argv, backend, topology)
        if command == "report":
            return _report(argv, backend, topology, fmt)
        return _check(argv, backend, topology, fmt)
    except _xla.XlaUnavailable as e:
        # Installed, but not usable as asked (the CUDA client without a GPU target
        # config, a topology file that does not exist): what is missing, and exit 2.
        sys.stdout.flush()
        sys.stderr.write(f"hlo-offload: error: --xla={backend}: {e}\n")
        return USAGE_EXIT


def _check(argv, backend, topology, fmt) -> int:
    from . import _xla
    from ._types import Diagnostic
    doc, status = _first_run(argv, fmt, (0, 1), "result")
    if doc is None:
        return status
    platform = _option(argv, ("--platform",))
    status = 0
    lines = []
    for entry in doc.get("files", []):
        file = entry.get("file")
        diagnostics = [Diagnostic._from_json(j, file=file, module=entry.get("module"),
                                             text="") for j in entry.get("diagnostics", [])]
        own = 1 if any(d.is_error for d in diagnostics) else 0
        verdict = _verdict_of_file(file, backend, topology, platform)
        ours = _memory_of_file(file, platform, argv) if verdict.memory else None
        comparison = _xla.compare(diagnostics, verdict, ours)
        comparison.mark_json(diagnostics, entry.get("diagnostics", []))
        entry["xla"] = comparison.to_json()
        status = max(status, comparison.exit_status(own))
        lines.append(comparison.text(file))
    if fmt == "json":
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write("".join(lines))
    return status


def _first_run(argv, fmt, passing, what):
    """The run without --xla (its output as without the option) and its JSON document:
    (document, 0), or (None, the exit status) when the run ended otherwise than with a
    `passing` status (its JSON output, if any, written) or gave no JSON `what`."""
    first = _self_command(argv, capture=(fmt == "json"))
    if first.returncode not in passing:
        if fmt == "json" and first.stdout:
            sys.stdout.buffer.write(first.stdout)
        return None, first.returncode
    if fmt == "json":
        doc_bytes = first.stdout
    else:
        doc_bytes = subprocess.run([sys.executable, "-m", "hlo_offload",
                                    *_without_format(argv), "--format=json"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    try:
        return json.loads(doc_bytes), 0
    except ValueError:
        sys.stderr.write(f"hlo-offload: error: --xla: no JSON {what} to compare with\n")
        return None, USAGE_EXIT


def _report(argv, backend, topology, fmt) -> int:
    from . import _xla
    doc, status = _first_run(argv, fmt, (0,), "report")
    if doc is None:
        return status
    platform = _option(argv, ("--platform",))
    status = 0
    lines = []
    for rep in (doc if isinstance(doc, list) else [doc]):
        file = rep.get("file")
        verdict = _verdict_of_file(file, backend, topology, platform)
        ours = (_memory_of_file(file, platform, argv) or {}) if verdict.memory else {}
        figures = _xla.memory_figures(verdict, ours)
        rep["xla"] = dict(verdict.to_json(), memory_figures=[f.to_json() for f in figures])
        if verdict.verdict and not verdict.ok:
            status = 1
        lines.append(f"{file}: xla: {verdict.headline()}\n")
        lines += [f"{file}: xla: {line}\n" for line in _xla.memory_text(figures)]
    if fmt == "json":
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write("".join(lines))
    return status


_NO_PARTITION = "--no-partition"


def _memory_of_file(file, platform, argv):
    """The report's byte figures of FILE as check(xla=...) takes them, per device (None when
    the report fails or its figures are global: a sharded module with --no-partition, or
    one the partitioner could not handle)."""
    from . import _inputs, _runner
    import pathlib
    partition = _NO_PARTITION not in argv
    try:
        written = _inputs.resolve(pathlib.Path(file), (), {}, platform=platform, filename=None,
                                split_input_file=False)
        inp = _inputs.partitioned(written) if partition else written
    except (OSError, ValueError, TypeError, ImportError):
        return None
    if not _runner._per_device(inp, written, partition):
        return None
    return _runner._memory_of(inp, _runner._run_args(inp))


def _verdict_of_file(file, backend, topology, platform):
    """XLA's verdict on one input file: StableHLO as it is, HLO text through XLA's parser."""
    from . import _inputs, _runner, _xla
    with open(file, "rb") as fh:
        data = fh.read()
    head = _inputs.decode_head(data)
    if file.endswith(".mlir") or _inputs.looks_like_mlir(head):
        inp = _inputs.from_stablehlo(data, platform, file, file=file)
        return _runner.xla_verdict(inp, backend, topology)
    return _runner.xla_verdict(_inputs.Input(text=data, file=None, path=file), backend, topology)


def _fix(argv, backend, topology) -> int:
    from . import _inputs, _runner
    out_path = _option(argv, ("-o", "--output"))
    in_place = "--in-place" in argv
    to_stdout = out_path in (None, "-") and not in_place
    first = _self_command(argv, capture=to_stdout)
    if to_stdout and first.stdout:
        sys.stdout.buffer.write(first.stdout)
        sys.stdout.flush()
    if first.returncode != 0:
        return first.returncode
    files = _files(argv)
    if to_stdout:
        fixed = first.stdout
    else:
        target = files[-1] if in_place else out_path
        with open(target, "rb") as fh:
            fixed = fh.read()
    name = files[-1] if files else "<fix>"
    verdict = _runner.xla_verdict(_inputs.Input(text=fixed, file=None, path=name), backend,
                               topology)
    if verdict.verdict:
        say = verdict.headline().replace("the module", "the fixed module", 1)
    else:
        say = verdict.headline()
    sys.stderr.write(f"{name}: xla: {say}\n")
    if verdict.verdict and not verdict.ok and verdict.error:
        sys.stderr.write("".join(f"  {line}\n" for line in verdict.error.splitlines()[1:4]
                                 if line.strip()))
    return 1 if verdict.verdict and not verdict.ok else 0
