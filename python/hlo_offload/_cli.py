"""The `hlo-offload` console command: the C++ command line (docs/CLI.md), run in this
process, with this package as its front end.

The C++ command line parses every option, its own and the front end's (`--platform`,
`--no-partition`, `--xla`, `--xla-topology`), and asks this module, through the runner
(hlo_offload._runner), for what it cannot do itself:
- `start`: the front end's options checked once, before any file;
- `reads` / `convert`: the files it cannot read as they are: StableHLO (`.mlir`, JAX's
  `Lowered.as_text()`), converted by the JAX front end with JAX's pytree path of every
  entry output and parameter, and, for check and report where jax is installed, HLO files
  of several partitions that XLA has not partitioned yet (a `before_optimizations` dump
  of a sharded program), checked as XLA's SPMD partitioner gives them (docs/SHARDED.md);
- `xla_step`: with `--xla=tpu|cuda`, XLA's own verdict on each file's module, compiled by
  its compile-only client (hlo_offload._xla), beside ours: for check, on standard error
  (text, `--format=xla`) or as an `xla` object per file and `xla_confirmed` on each
  error and HO2001 (`--format=json`), and XLA's verdict decides the exit status (a file
  XLA gave no verdict for keeps ours); for fix, on the fixed module (exit 1 when XLA
  refuses it); for report, XLA's verdict and memory analysis beside the report's
  per-device bytes, each difference explained (hlo_offload._xla.memory_figures).
`install-xla` is this command's own.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _core, _inputs, _partition, _runner, _xla
from ._types import Diagnostic, ParseError

USAGE_EXIT = 2
_STABLEHLO_SUFFIX = ".mlir"
# The commands that check a module of several partitions as XLA's SPMD partitioner gives
# it (docs/SHARDED.md); opt, fix and fmt work on the module as written.
_PARTITIONING_COMMANDS = ("check", "report")


def main(argv: Optional[Sequence[str]] = None, *, replace_process: bool = True) -> int:
    """Runs the command line on `argv` (default sys.argv[1:]) in this process; returns
    the exit status. (`replace_process` is accepted for compatibility: every run is in
    this process.)"""
    del replace_process
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["install-xla"]:
        return _install_xla(args[1:])
    _default_xla_version()
    front_end = _FrontEnd()
    sys.stdout.flush()
    sys.stderr.flush()
    return int(_core.run_command_line(["hlo-offload", *args], front_end.reads,
                                      front_end.convert, front_end.start,
                                      front_end.xla_step, _HELP))


# What this command adds at the end of each help (the options it parses are in the C++
# command line's own lists): its subcommand, the files it reads, its default XLA.
_MLIR_HELP = "A FILE may end in .mlir: StableHLO (JAX's Lowered.as_text()), converted by " \
    "the JAX front end."
_XLA_VERSION_HELP = "--xla-version's default here: the installed libtpu and CUDA plugin " \
    "(hlo_offload._xla.installed_xla_version)."
_HELP = {
    "": ("Subcommands of this Python command line (beside the C++ one's):\n"
         "  install-xla [tpu|cuda]      install XLA's compile-only client for --xla\n"
         + _MLIR_HELP),
    "check": f"{_MLIR_HELP}\n{_XLA_VERSION_HELP}",
    "fix": f"{_MLIR_HELP}\n{_XLA_VERSION_HELP}",
    "report": f"{_MLIR_HELP}\n{_XLA_VERSION_HELP}",
    "opt": f"{_MLIR_HELP}\n{_XLA_VERSION_HELP}",
    "fmt": _MLIR_HELP,
}


def _default_xla_version() -> None:
    """The C++ command line's default `--xla-version` ($HLO_OFFLOAD_XLA_VERSION) from the
    installed libtpu and CUDA plugin (as check() chooses it), unless already set."""
    if "HLO_OFFLOAD_XLA_VERSION" in os.environ:
        return
    version = _xla.installed_xla_version()
    if version:
        os.environ["HLO_OFFLOAD_XLA_VERSION"] = version


def _can_partition() -> bool:
    """Whether XLA's SPMD partitioner can run here (jax is installed)."""
    from importlib.util import find_spec
    return find_spec("jax") is not None


class _FrontEnd:
    """The callbacks the C++ command line calls (see the module's doc). Each file's
    input, as the runner prepared it, is kept for its XLA step, so that a file is read,
    converted and partitioned once."""

    def __init__(self) -> None:
        self.command = ""
        self.platform: Optional[str] = None
        self.partition = False
        # file -> the runner's prepared input of it (convert), for xla_step.
        self.prepared: Dict[str, _runner.Prepared] = {}
        self._claimed: Dict[str, bool] = {}
        # file -> its bytes, read by reads() to see that it needs partitioning, for
        # convert (the file is read once).
        self._read: Dict[str, bytes] = {}

    def start(self, command: str, options: Any) -> str:
        """The front end's options checked: "" or the error text (exit 2)."""
        self.command = command
        self.partition = bool(options.partition and command in _PARTITIONING_COMMANDS
                              and _can_partition())
        if options.platform:
            from ._jax import _check_platform
            try:
                self.platform = _check_platform(options.platform)
            except ValueError as e:
                return (f"hlo-offload: error: --platform: {e}\n"
                        f"Run 'hlo-offload {command} --help' for usage.\n")
        if options.xla and not _xla.installed(options.xla):
            return f"hlo-offload: error: {_xla._unavailable(options.xla)}\n"
        return ""

    def reads(self, file: str, options: Any) -> bool:
        """Whether this front end reads `file`: StableHLO, or an HLO file of several
        partitions to partition (asked once per file, and about -o)."""
        if file not in self._claimed:
            self._claimed[file] = file.endswith(_STABLEHLO_SUFFIX) or (
                self.partition and not options.split_input and self._unpartitioned(file))
        return self._claimed[file]

    def convert(self, file: str, split_input: bool, options: Any) -> "_core.FrontEndInput":
        """What the runner's input step makes of `file`, for the command line."""
        if file.endswith(_STABLEHLO_SUFFIX):
            return self._convert_stablehlo(file, split_input)
        return self._partitioned_file(file)

    def _convert_stablehlo(self, file: str, split_input: bool) -> "_core.FrontEndInput":
        """The HLO module XLA compiles from the StableHLO file `file`, with the pytree
        names, or why there is none (a located parse error, or an error reported as a
        file that cannot be read); partitioned for check and report."""
        converted = _core.FrontEndInput()
        try:
            with open(file, "rb") as f:
                data = f.read()
            written = _inputs.from_stablehlo(data, self.platform, file, file=file,
                                             split_input_file=split_input)
            inp = _inputs.partitioned(written) if self.partition else written
        except ImportError as e:
            converted.error = f"{file}: {e}"
            return converted
        except ParseError as e:
            # Located like an HLO parse error: in the text and in the JSON (HO0001).
            converted.set_parse_error(str(e), e.line or 0, e.column or 0, e.message)
            return converted
        except (OSError, ValueError, TypeError) as e:
            where = "" if str(e).startswith(f"{file}:") else f"{file}: "
            converted.error = f"{where}{e}"
            return converted
        self.prepared[file] = _runner.Prepared(written=written, inp=inp, xla_backend=None)
        xla = inp.xla
        assert xla is not None  # a StableHLO source is the JAX front end's
        converted.text = xla.hlo_text
        converted.output_paths = list(xla.output_paths)
        converted.input_paths = list(xla.input_paths)
        # The platform lowered for is the backend compiled for (`--backend` unless given).
        converted.backend = _runner._BACKEND_OF_PLATFORM.get(xla.platform, "any")
        converted.notes = list(xla.notes)
        converted.partition_failed = inp.global_shapes
        for d in _runner.front_end_diagnostics(xla, file):
            converted.add_error(d.code, d.message, [n.message for n in d.notes],
                                warning=not d.is_error)
        return converted

    def _partitioned_file(self, file: str) -> "_core.FrontEndInput":
        """An HLO file of several partitions: the module as XLA's SPMD partitioner gives
        it, with a note saying so; the module as written with a note saying why where the
        partitioner cannot run."""
        converted = _core.FrontEndInput()
        data = self._read.pop(file, None)
        if data is None:
            try:
                with open(file, "rb") as fh:
                    data = fh.read()
            except OSError as e:
                converted.error = f"{file}: {e.strerror or e}"
                return converted
        written = _inputs.Input(text=data, file=None, path=file)
        inp = _inputs.partitioned(written)
        self.prepared[file] = _runner.Prepared(written=written, inp=inp, xla_backend=None)
        text = inp.text
        converted.text = text if isinstance(text, str) else bytes(text).decode("utf-8",
                                                                             "replace")
        converted.notes = [n.replace("; line numbers are the partitioned module's "
                                     "(Result.hlo_text)", "") for n in inp.notes]
        converted.partitioned = inp.partitioned_text is not None
        converted.locate_in_source = converted.partitioned
        converted.partition_failed = inp.global_shapes
        return converted

    def _unpartitioned(self, file: str) -> bool:
        """Whether `file` is an HLO module of several partitions that XLA has not
        partitioned yet (hlo_offload._partition.needs_partitioning), its bytes kept for
        convert; False for what cannot be read, which the command line reports."""
        if file == "-":
            return False
        data = _inputs.input_text(_inputs.Input(text=None, file=file, path=file))
        if data is None or _partition.needs_partitioning(data) is None:
            return False
        self._read[file] = bytes(data)
        return True

    # -- --xla ---------------------------------------------------------------------------

    def xla_step(self, command: str, file: str, document: str,
                 options: Any) -> Tuple[str, str, int, bool]:
        """XLA's verdict on one file beside ours: (the file's JSON document with XLA's
        part, the lines for standard error, the exit status, whether to stop because
        XLA's client cannot be used as asked)."""
        backend, topology = options.xla, options.xla_topology or None
        try:
            if command == "fix":
                text, status = self._fix_step(file, document, backend, topology)
                return document, text, status, False
            if command == "report":
                return self._report_step(file, document, backend, topology)
            return self._check_step(file, document, backend, topology)
        except _xla.XlaUnavailable as e:
            # Installed, but not usable as asked (the CUDA client without a GPU target
            # config, a topology file that does not exist): what is missing, and exit 2.
            return document, f"hlo-offload: error: --xla={backend}: {e}\n", USAGE_EXIT, True

    def _check_step(self, file: str, document: str, backend: str,
                    topology: Optional[str]) -> Tuple[str, str, int, bool]:
        entry = json.loads(document)
        diagnostics = [Diagnostic._from_json(j, file=file, module=entry.get("module"),
                                             text="") for j in entry.get("diagnostics", [])]
        own = 1 if any(d.is_error for d in diagnostics) else 0
        prepared = self._prepared(file)
        verdict = _runner.xla_verdict(prepared.written, backend, topology)
        ours = self._memory(prepared) if verdict.memory else None
        comparison = _xla.compare(diagnostics, verdict, ours)
        comparison.mark_json(diagnostics, entry.get("diagnostics", []))
        entry["xla"] = comparison.to_json()
        return (json.dumps(entry, ensure_ascii=False), comparison.text(file),
                comparison.exit_status(own), False)

    def _report_step(self, file: str, document: str, backend: str,
                     topology: Optional[str]) -> Tuple[str, str, int, bool]:
        rep = json.loads(document)
        prepared = self._prepared(file)
        verdict = _runner.xla_verdict(prepared.written, backend, topology)
        ours = (self._memory(prepared) or {}) if verdict.memory else {}
        figures = _xla.memory_figures(verdict, ours)
        rep["xla"] = dict(verdict.to_json(), memory_figures=[f.to_json() for f in figures])
        lines = [f"{file}: xla: {verdict.headline()}\n"]
        lines += [f"{file}: xla: {line}\n" for line in _xla.memory_text(figures)]
        status = 1 if verdict.verdict and not verdict.ok else 0
        return json.dumps(rep, ensure_ascii=False), "".join(lines), status, False

    def _fix_step(self, file: str, fixed: str, backend: str,
                  topology: Optional[str]) -> Tuple[str, int]:
        verdict = _runner.xla_verdict(_inputs.Input(text=fixed, file=None, path=file),
                                      backend, topology)
        say = verdict.headline()
        if verdict.verdict:
            say = say.replace("the module", "the fixed module", 1)
        text = f"{file}: xla: {say}\n"
        if verdict.verdict and not verdict.ok and verdict.error:
            text += "".join(f"  {line}\n" for line in verdict.error.splitlines()[1:4]
                            if line.strip())
        return text, 1 if verdict.verdict and not verdict.ok else 0

    def _prepared(self, file: str) -> _runner.Prepared:
        """The file's input as convert prepared it, else as written (HLO text the
        command line read itself)."""
        if file in self.prepared:
            return self.prepared[file]
        written = _inputs.Input(text=None, file=file, path=file)
        return _runner.Prepared(written=written, inp=written, xla_backend=None)

    def _memory(self, prepared: _runner.Prepared) -> Optional[Dict[str, int]]:
        """The report's byte figures of the module checked, per device (None when the
        report fails or its figures are global: a sharded module with --no-partition,
        or one the partitioner could not handle)."""
        inp, written = prepared.inp, prepared.written
        if not _runner._per_device(inp, written, self.partition):
            return None
        try:
            return _runner._memory_of(inp, _runner._run_args(inp))
        except (OSError, ValueError, TypeError):
            return None


def _install_xla(args: List[str]) -> int:
    """`hlo-offload install-xla [tpu|cuda]`: installs the compile-only client."""
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(
            "install XLA's compile-only client for a backend (used by --xla)\n"
            "Usage: hlo-offload install-xla [tpu|cuda]\n\n"
            "  tpu   libtpu (the default)\n"
            "  cuda  the CUDA plugin; --xla=cuda also needs a GPU target config "
            "(--xla-topology=FILE, or an openxla/xla clone in XLA_GIT_DIR; "
            "docs/DEVICELESS.md)\n"
            f"Installs with: {' '.join(_xla.install_command('tpu'))}\n")
        return 0
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.stderr.write("hlo-offload: error: usage: hlo-offload install-xla [tpu|cuda]\n")
        return USAGE_EXIT
    try:
        backend = _xla.check_backend(args[0] if args else "tpu")
    except ValueError as e:
        sys.stderr.write(f"hlo-offload: error: {e}\n")
        return USAGE_EXIT
    sys.stderr.write(f"hlo-offload: running {' '.join(_xla.install_command(backend))}\n")
    try:
        folder = _xla.install_xla(backend)
    except RuntimeError as e:
        sys.stderr.write(f"hlo-offload: error: {e}\n")
        return 1
    sys.stderr.write(f"hlo-offload: XLA's {backend} compile-only client is in {folder}\n")
    return 0
