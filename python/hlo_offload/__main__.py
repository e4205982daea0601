"""`python -m hlo_offload` and the `hlo-offload` console command: the command line of
docs/CLI.md, plus StableHLO files.

Every run is the C++ command line's. Without a StableHLO input the package's `hlo-offload`
program runs with the same arguments (the process becomes it: same output, same exit
status). When a FILE ends in `.mlir` (JAX's `Lowered.as_text()`), the same command line
runs in this process (`_core.run_command_line`), with the `.mlir` files read by the JAX
front end (`hlo_offload._jax`, needs jax): each becomes the HLO module XLA would compile
from it, with JAX's pytree path of every entry output and parameter, so that every flag
works as for HLO files, `check --format=json` gives `output_path` and `input_path`, and the
text names the output by its path. `--platform` says what the `.mlir` files were lowered
for; `--xla` and `install-xla` are this package's own (`_xla_cli`). Where jax is installed,
check and report run in this process too, and an HLO file of several partitions that XLA
has not partitioned yet (a `before_optimizations` dump of a sharded program, alone or in a
folder) is checked as XLA's SPMD partitioner gives it (docs/SHARDED.md), with a note
saying so.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

if TYPE_CHECKING:
    from . import _core

USAGE_EXIT = 2
_STABLEHLO_COMMANDS = ("check", "opt", "fix", "fmt", "report")
_STABLEHLO_SUFFIX = ".mlir"
# The commands that check a module of several partitions as XLA's SPMD partitioner gives
# it (docs/SHARDED.md); opt, fix and fmt work on the module as written.
_PARTITIONING_COMMANDS = ("check", "report")


def _can_partition() -> bool:
    """Whether XLA's SPMD partitioner can run here (jax is installed)."""
    from importlib.util import find_spec
    return find_spec("jax") is not None


def _executable() -> str:
    from importlib.util import find_spec
    spec = find_spec("hlo_offload._core")
    if spec is None or spec.origin is None:
        raise SystemExit("hlo-offload: error: the package's extension is not installed")
    return os.path.join(os.path.dirname(spec.origin), "bin", "hlo-offload")


def _subcommand(argv: Sequence[str]) -> Tuple[Optional[str], int]:
    """The subcommand (first argument that does not start with '-') and its index."""
    for i, a in enumerate(argv):
        if a == "--":
            return None, -1
        if not a.startswith("-"):
            return a, i
    return None, -1


def _stablehlo_inputs(argv: Sequence[str], index: int) -> bool:
    """Whether a FILE after the subcommand (at `index`) is a StableHLO file."""
    after_dashes = False
    for a in argv[index + 1:]:
        if a == "--" and not after_dashes:
            after_dashes = True
            continue
        if (after_dashes or not a.startswith("-")) and a.endswith(_STABLEHLO_SUFFIX):
            return True
    return False


def main(argv: Optional[Sequence[str]] = None, *, replace_process: bool = True) -> int:
    """Runs the command line on `argv` (default sys.argv[1:]); returns the exit status.
    With replace_process (the console command), a run without StableHLO inputs replaces
    this process by the `hlo-offload` program; otherwise it runs as a child. A run with
    StableHLO inputs runs the same command line in this process."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command, index = _subcommand(argv)
    if command == "install-xla":
        return _install_xla(argv[index + 1:])
    if any(a in ("-h", "--help") for a in argv[:argv.index("--") if "--" in argv else None]):
        return _help(command, argv)
    _default_xla_version()
    try:
        xla, argv = _xla_options(argv, command)
    except _Usage as e:
        sys.stderr.write(f"hlo-offload: error: {e}\n"
                         f"Run 'hlo-offload {command or ''} --help' for usage.\n")
        return USAGE_EXIT
    if xla is not None:
        # Its child runs this command line again, --no-partition included.
        from ._xla_cli import run_with_xla
        return run_with_xla(command, argv, *xla)
    partition, argv = _partition_option(argv, command)
    if command in _STABLEHLO_COMMANDS and _stablehlo_inputs(argv, index):
        return _run_with_front_end(command, argv, partition)
    if command in _PARTITIONING_COMMANDS and partition and _can_partition():
        # HLO files of several partitions are checked as XLA's SPMD partitioner gives them.
        return _run_with_front_end(command, argv, partition)
    exe = _executable()
    if replace_process:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(exe, ["hlo-offload", *argv])
    return subprocess.call([exe, *argv])


_NO_PARTITION = "--no-partition"


def _partition_option(argv: List[str], command: Optional[str]) -> Tuple[bool, List[str]]:
    """(whether HLO files of several partitions are partitioned first, argv without
    `--no-partition`); the option is check's and report's."""
    end = argv.index("--") if "--" in argv else len(argv)
    if _NO_PARTITION not in argv[:end]:
        return True, argv
    if command not in _PARTITIONING_COMMANDS:
        sys.stderr.write(f"hlo-offload: error: {_NO_PARTITION} is an option of check and "
                         f"report\nRun 'hlo-offload {command or ''} --help' for usage.\n")
        raise SystemExit(USAGE_EXIT)
    return False, [a for i, a in enumerate(argv) if i >= end or a != _NO_PARTITION]


def _default_xla_version() -> None:
    """The C++ command line's default `--xla-version` ($HLO_OFFLOAD_XLA_VERSION) from the
    installed libtpu and CUDA plugin (as check() chooses it), unless already set."""
    if "HLO_OFFLOAD_XLA_VERSION" in os.environ:
        return
    from ._xla import installed_xla_version
    version = installed_xla_version()
    if version:
        os.environ["HLO_OFFLOAD_XLA_VERSION"] = version


# What this command line adds to the C++ one's help (docs/CLI.md: "XLA's own verdict" for
# --xla, "Inputs" for .mlir files and --platform).
_PYTHON_HELP = {
    None: ("Options and subcommands of this Python command line (beside the C++ one's):\n"
           "  install-xla [tpu|cuda]      install XLA's compile-only client for --xla\n"
           "  a FILE ending in .mlir      StableHLO (JAX's Lowered.as_text()), converted by "
           "the JAX front end\n"),
    "check": ("Options of this Python command line (beside the C++ one's):\n"
              "  --platform tpu|cuda|rocm|cpu  what the .mlir FILEs were lowered for (the "
              "text does not say)\n"
              "  --xla tpu|cuda              also compile each FILE with XLA's compile-only "
              "client and put its verdict beside ours (install-xla first)\n"
              "  --xla-topology T            what --xla compiles for (a TPU topology such as "
              "v5e:2x4; for cuda a GPU target config file)\n"
              "  FILE may end in .mlir: StableHLO, converted by the JAX front end\n"
              "  --xla-version's default here: the installed libtpu and CUDA plugin "
              "(hlo_offload._xla.installed_xla_version)\n"),
}
_NO_PARTITION_HELP = ("  --no-partition              take an HLO FILE of several partitions as "
                      "written, as one\n"
                      "                              partition (by default XLA's SPMD "
                      "partitioner runs first\n"
                      "                              where jax is installed; "
                      "docs/SHARDED.md)\n")
_PYTHON_HELP["fix"] = _PYTHON_HELP["check"]
for _c in ("opt", "fmt", "report"):
    _PYTHON_HELP[_c] = ("Options of this Python command line (beside the C++ one's):\n"
                        "  --platform tpu|cuda|rocm|cpu  what the .mlir FILEs were lowered "
                        "for (the text does not say)\n"
                        "  FILE may end in .mlir: StableHLO, converted by the JAX front "
                        "end\n" + ("" if _c == "fmt" else
                                    "  --xla-version's default here: the installed libtpu and "
                                    "CUDA plugin (hlo_offload._xla.installed_xla_version)\n"))
for _c in _PARTITIONING_COMMANDS:
    _PYTHON_HELP[_c] += _NO_PARTITION_HELP
_PYTHON_HELP["report"] += (
    "  --xla tpu|cuda              also compile each FILE with XLA's compile-only client: "
    "its verdict\n"
    "                              and memory analysis beside the report's per-device "
    "bytes\n"
    "  --xla-topology T            what --xla compiles for\n")


def _help(command: Optional[str], argv: List[str]) -> int:
    """The C++ command line's help, then what this command line adds to it."""
    sys.stdout.flush()
    proc = subprocess.run([_executable(), *argv], stdout=subprocess.PIPE)
    sys.stdout.buffer.write(proc.stdout)
    extra = _PYTHON_HELP.get(command)
    if proc.returncode == 0 and extra:
        sys.stdout.write("\n" + extra)
    sys.stdout.flush()
    return proc.returncode


def _option_value(argv: List[str], i: int, name: str, eq: str,
                  value: str) -> Tuple[str, int]:
    """(the value of option `name`, the index after it): `value` when it was written
    `--name=value` (`eq`), else argv[i]; _Usage when argv ends first."""
    if eq:
        return value, i
    if i >= len(argv):
        raise _Usage(f"{name} needs a value")
    return argv[i], i + 1


def _xla_options(argv: List[str], command: Optional[str]
                 ) -> Tuple[Optional[Tuple[str, Optional[str]]], List[str]]:
    """(backend, topology) of `--xla=tpu|cuda` and `--xla-topology=T` (check, fix, report),
    and argv without them; (None, argv) when --xla is not given."""
    backend: Optional[str] = None
    topology: Optional[str] = None
    rest: List[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            rest += argv[i - 1:]
            break
        name, eq, value = a.partition("=")
        if name not in ("--xla", "--xla-topology"):
            rest.append(a)
            continue
        if command not in ("check", "fix", "report"):
            raise _Usage(f"{name} is an option of check, fix and report")
        value, i = _option_value(argv, i, name, eq, value)
        if value == "":
            raise _Usage(f"'{a}' has nothing after '='" if eq else f"{name} needs a value")
        if name == "--xla":
            from ._xla import check_backend
            try:
                backend = check_backend(value)
            except ValueError:
                raise _Usage(f"--xla: '{value}' is not tpu or cuda (XLA's compile-only "
                             "clients: libtpu, the CUDA plugin)") from None
        else:
            topology = value
    if topology is not None and backend is None:
        raise _Usage("--xla-topology is for --xla=tpu or --xla=cuda")
    return (None if backend is None else (backend, topology)), rest


def _install_xla(args: List[str]) -> int:
    """`hlo-offload install-xla [tpu|cuda]`: installs the compile-only client."""
    from . import _xla
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


def _platform_option(argv: List[str]) -> Tuple[Optional[str], List[str]]:
    """The value of `--platform=P` / `--platform P` (what the `.mlir` files were lowered
    for: the text does not say) and argv without it; _Usage for a value the JAX front
    end does not know. An option of this command alone: the C++ command line never sees
    it."""
    platform = None
    rest: List[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            rest += argv[i - 1:]
            break
        name, eq, value = a.partition("=")
        if name != "--platform":
            rest.append(a)
            continue
        if eq and value == "":
            raise _Usage(f"'{a}' has nothing after '='")
        value, i = _option_value(argv, i, name, eq, value)
        if value == "":
            raise _Usage(f"{name} needs a value (it is empty)")
        from ._jax import _check_platform
        try:
            platform = _check_platform(value)
        except ValueError as e:
            raise _Usage(f"--platform: {e}") from None
    return platform, rest


def _convert(file: str, split_input: bool, platform: Optional[str],
             partition: bool = False) -> "_core.FrontEndInput":
    """What the JAX front end makes of the StableHLO file `file`, for the command line:
    the HLO module XLA compiles from it with the pytree names, or why there is none (a
    located parse error, or an error reported as a file that cannot be read). With
    `partition` (check, report), a module with several partitions is the one XLA's SPMD
    partitioner gives (docs/SHARDED.md), with a note saying so."""
    from . import _core, _inputs, _runner
    from ._types import ParseError
    converted = _core.FrontEndInput()
    try:
        with open(file, "rb") as f:
            data = f.read()
        inp = _inputs.from_stablehlo(data, platform, file, file=file,
                                   split_input_file=split_input)
        if partition:
            inp = _inputs.partitioned(inp)
        xla = inp.xla
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


def _unpartitioned(file: str) -> bool:
    """Whether `file` is an HLO module of several partitions that XLA has not partitioned
    yet (hlo_offload._partition.needs_partitioning); False for what cannot be read, which
    the command line reports."""
    from . import _core, _partition
    if file == "-":
        return False
    try:
        if os.path.getsize(file) > _core.MAX_INPUT_BYTES:
            return False
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    return _partition.needs_partitioning(data) is not None


def _partitioned_file(file: str) -> "_core.FrontEndInput":
    """An HLO file of several partitions for the command line: the module as XLA's SPMD
    partitioner gives it, with a note saying so; the module as written with a note saying
    why where the partitioner cannot run."""
    from . import _core, _inputs, _runner
    converted = _core.FrontEndInput()
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError as e:
        converted.error = f"{file}: {e.strerror or e}"
        return converted
    inp = _inputs.partitioned(_inputs.Input(text=data, file=None, path=file))
    text = inp.text
    converted.text = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
    converted.notes = [n.replace("; line numbers are the partitioned module's "
                                 "(Result.hlo_text)", "") for n in inp.notes]
    converted.partitioned = inp.partitioned_text is not None
    converted.locate_in_source = converted.partitioned
    converted.partition_failed = inp.global_shapes
    return converted


def _run_with_front_end(command: str, argv: List[str], partition: bool = True) -> int:
    """The C++ command line on `argv` in this process, with the `.mlir` files converted by
    the JAX front end and, for check and report unless not `partition`
    (`--no-partition`), the modules of several partitions partitioned by XLA's SPMD
    partitioner (see the module's doc)."""
    try:
        platform, rest = _platform_option(argv)
    except _Usage as e:
        sys.stderr.write(f"hlo-offload: error: {e}\n"
                         f"Run 'hlo-offload {command} --help' for usage.\n")
        return USAGE_EXIT
    from . import _core
    sys.stdout.flush()
    sys.stderr.flush()
    partition = partition and command in _PARTITIONING_COMMANDS and _can_partition()
    # A file of several modules is partitioned module by module only from the API.
    split = any(a == "--split-input-file" for a in rest)
    # Whether the front end reads each file: asked once per file (and about -o).
    claimed: dict = {}

    def reads(file: str) -> bool:
        if file not in claimed:
            claimed[file] = file.endswith(_STABLEHLO_SUFFIX) or (
                partition and not split and _unpartitioned(file))
        return claimed[file]

    def convert(file: str, split_input: bool) -> "_core.FrontEndInput":
        if file.endswith(_STABLEHLO_SUFFIX):
            return _convert(file, split_input, platform, partition=partition)
        return _partitioned_file(file)

    return _core.run_command_line(["hlo-offload", *rest], reads, convert)


def console_main() -> None:
    """The `hlo-offload` console command."""
    sys.exit(main())


class _Usage(Exception):
    pass


if __name__ == "__main__":
    sys.exit(main())
