"""`python -m hlo_offload` and the `hlo-offload` console command: the command line of
docs/CLI.md, plus StableHLO files.

Without a StableHLO input the package's `hlo-offload` program runs with the same arguments
(the process becomes it: same output, same exit status). When a FILE ends in `.mlir` (JAX's
`Lowered.as_text()`), the run happens here: each StableHLO file becomes the HLO module XLA
would compile from it (`hlo_offload._jax`, needs jax), with JAX's pytree path of every
entry output and parameter, so that `check --format=json` gives `output_path` and
`input_path`, and the text names the output by its path. Lines and columns of such a file
are those of that HLO module (`fmt FILE` prints it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

USAGE_EXIT = 2
_STABLEHLO_COMMANDS = ("check", "opt", "fix", "fmt", "report")


def _executable() -> str:
    from importlib.util import find_spec
    spec = find_spec("hlo_offload._core")
    if spec is None or spec.origin is None:
        raise SystemExit("hlo-offload: error: the package's extension is not installed")
    return os.path.join(os.path.dirname(spec.origin), "bin", "hlo-offload")


def _subcommand(argv):
    """The subcommand (first argument that does not start with '-') and its index."""
    for i, a in enumerate(argv):
        if a == "--":
            return None, -1
        if not a.startswith("-"):
            return a, i
    return None, -1


def _stablehlo_inputs(argv, index) -> bool:
    after_dashes = False
    for a in argv[index + 1:]:
        if a == "--" and not after_dashes:
            after_dashes = True
            continue
        if (after_dashes or not a.startswith("-")) and a.endswith(".mlir"):
            return True
    return False


def main(argv=None, *, replace_process: bool = True) -> int:
    """Runs the command line on `argv` (default sys.argv[1:]); returns the exit status.
    With replace_process (the console command), a run without StableHLO inputs replaces
    this process by the `hlo-offload` program; otherwise it runs as a child."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command, index = _subcommand(argv)
    if command == "install-xla":
        return _install_xla(argv[index + 1:])
    try:
        xla, argv = _xla_options(argv, command)
    except _Usage as e:
        sys.stderr.write(f"hlo-offload: error: {e}\n"
                         f"Run 'hlo-offload {command or ''} --help' for usage.\n")
        return USAGE_EXIT
    if xla is not None:
        from ._xla_cli import run_with_xla
        return run_with_xla(command, argv, *xla)
    if command in _STABLEHLO_COMMANDS and _stablehlo_inputs(argv, index):
        return _StableHloRun(command, argv[:index] + argv[index + 1:]).run()
    exe = _executable()
    if replace_process:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(exe, ["hlo-offload", *argv])
    return subprocess.call([exe, *argv])


def _option_value(argv, i, name, eq, value):
    """(the value of option `name`, the index after it): `value` when it was written
    `--name=value` (`eq`), else argv[i]; _Usage when argv ends first."""
    if eq:
        return value, i
    if i >= len(argv):
        raise _Usage(f"{name} needs a value")
    return argv[i], i + 1


def _xla_options(argv, command):
    """(backend, topology) of `--xla=tpu|cuda` and `--xla-topology=T` (check and fix),
    and argv without them; (None, argv) when --xla is not given."""
    backend = topology = None
    rest = []
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
        if command not in ("check", "fix"):
            raise _Usage(f"{name} is an option of check and fix")
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


def _install_xla(args) -> int:
    """`hlo-offload install-xla [tpu|cuda]`: installs the compile-only client."""
    from . import _xla
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


def console_main() -> None:
    """The `hlo-offload` console command."""
    sys.exit(main())


class _Usage(Exception):
    pass


class _StableHloRun:
    """One run of check/opt/fix/fmt/report over files of which some are StableHLO."""

    def __init__(self, command: str, args):
        self.command = command
        self.args = args

    # -- arguments ---------------------------------------------------------------------

    def _parse(self):
        c = self.command
        opts = {"format": "text", "output": None, "in_place": False, "strategy": None,
                "passes": [], "lints": True, "budget": None, "trace": 0, "split": False,
                "max_nodes": 400, "flags": {}, "files": [], "platform": None, "disable": [], "enable": [],
                "backend": None}
        with_value = {"--format", "-o", "--output", "--strategy", "--passes",
                      "--pinned-host-budget", "--max-nodes", "--platform", "--disable", "--enable",
                      "--backend"}
        flags = {
            "--disable-automatic-host-compute-offload": "xla_disable_automatic_host_compute_offload",
            "--allow-h2h-copy-when-automatic-host-compute-offload-disabled":
                "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled",
            "--fix-entry-layout-unless-customized": "fix_entry_layout_unless_customized",
        }
        args = list(self.args)
        i = 0
        only_files = False
        while i < len(args):
            a = args[i]
            i += 1
            if only_files or not a.startswith("-") or a == "-":
                opts["files"].append(a)
                continue
            if a == "--":
                only_files = True
                continue
            name, eq, value = a.partition("=")
            if eq and value == "":
                raise _Usage(f"'{a}' has nothing after '='")
            if name in ("--help", "-h"):
                raise _Usage("--help: run 'hlo-offload " + c + " --help' (without a .mlir file)")
            if name == "--trace":
                if eq:
                    if not value.isdigit():
                        raise _Usage(f"the trace level is a whole number, 0 or more (got '{value}')")
                    opts["trace"] = int(value)
                else:
                    opts["trace"] = 1
                continue
            if name in flags and not eq:
                opts["flags"][flags[name]] = True
                continue
            if name == "--no-lints" and not eq:
                opts["lints"] = False
                continue
            if name == "--split-input-file" and not eq:
                opts["split"] = True
                continue
            if name == "--in-place" and not eq:
                opts["in_place"] = True
                continue
            if name in with_value:
                value, i = _option_value(args, i, name, eq, value)
                if value == "":
                    raise _Usage(f"{name} needs a value (it is empty)")
                if name == "--format":
                    opts["format"] = value
                elif name in ("-o", "--output"):
                    opts["output"] = value
                elif name == "--strategy":
                    opts["strategy"] = value
                elif name == "--passes":
                    opts["passes"] = [p for p in value.split(",") if p]
                    if not opts["passes"]:
                        raise _Usage("--passes names no pass (see --list-passes)")
                elif name == "--pinned-host-budget":
                    opts["budget"] = value
                elif name == "--platform":
                    # What a .mlir file was lowered for (the text does not say); an
                    # unknown one is refused with the front end's words.
                    from ._jax import _check_platform
                    try:
                        opts["platform"] = _check_platform(value)
                    except ValueError as e:
                        raise _Usage(f"--platform: {e}") from None
                elif name == "--backend":
                    if c == "fmt" or value not in ("tpu", "gpu", "cuda", "rocm", "any"):
                        raise _Usage(f"--backend: '{value}' is not one of tpu, gpu, cuda, "
                                     "rocm, any" if c != "fmt" else
                                     f"the following argument was not expected: {name}")
                    opts["backend"] = value
                elif name in ("--disable", "--enable"):
                    if c == "fmt":
                        raise _Usage(f"the following argument was not expected: {name}")
                    opts[name[2:]].append(value)
                elif name == "--max-nodes":
                    if not value.isdigit():
                        raise _Usage(f"--max-nodes: '{value}' is not a whole number")
                    from ._api import MAX_NODES_RANGE
                    low, high = MAX_NODES_RANGE
                    if not low <= int(value) <= high:
                        # The program's own words (CLI11's range check, src/tool/driver.cc).
                        raise _Usage(f"--max-nodes: Value {value} not in range {low} to "
                                     f"{high}")
                    opts["max_nodes"] = int(value)
                continue
            raise _Usage(f"the following argument was not expected: {a}")
        allowed_formats = {"check": ("text", "xla", "json", "sarif"),
                           "report": ("text", "json", "dot", "html")}
        if c in allowed_formats:
            if opts["format"] not in allowed_formats[c]:
                raise _Usage(f"--format: '{opts['format']}' is not one of "
                             f"{', '.join(allowed_formats[c])}")
        elif opts["format"] != "text":
            raise _Usage(f"{c} takes no --format")
        if c == "fix":
            if opts["strategy"] is None:
                raise _Usage("--strategy is required (host-output or move-to-device)")
            if opts["strategy"] not in ("host-output", "move-to-device"):
                raise _Usage(f"--strategy: '{opts['strategy']}' is not host-output or "
                             "move-to-device")
        if opts["in_place"]:
            raise _Usage("--in-place would write HLO text into a StableHLO file; use -o")
        if c in ("opt", "fix", "fmt") and (opts["output"] or "").endswith(".mlir"):
            # A .mlir file is read back as StableHLO, by its name.
            raise _Usage(f"-o: '{opts['output']}' would hold the HLO text {c} writes, and a "
                         ".mlir file is read as StableHLO; name it .hlo")
        if not opts["files"]:
            raise _Usage("FILE is required")
        if c != "check" and len(opts["files"]) > 1:
            raise _Usage(f"{c} takes one FILE")
        return opts

    # -- running -----------------------------------------------------------------------

    def run(self) -> int:
        try:
            opts = self._parse()
        except _Usage as e:
            sys.stderr.write(f"hlo-offload: error: {e}\n"
                             f"Run 'hlo-offload {self.command} --help' for usage.\n")
            return USAGE_EXIT
        from . import _api, _core
        try:
            budget = _api._budget(opts["budget"]) if opts["budget"] is not None else None
        except ValueError as e:
            sys.stderr.write(f"hlo-offload: error: --pinned-host-budget: {e}\n")
            return USAGE_EXIT
        for key in ("disable", "enable"):
            if opts[key]:
                # The program's own words (diag/code_selection.h), as a usage error.
                parsed = _core.parse_codes(f"--{key}", opts[key], key == "disable")
                if isinstance(parsed, str):
                    sys.stderr.write(f"hlo-offload: error: {parsed}\n")
                    return USAGE_EXIT
        if self.command == "opt" and opts["passes"]:
            known = {name for name, _ in _core.passes()}
            for p in opts["passes"]:
                if p not in known:
                    sys.stderr.write(f"hlo-offload: error: unknown pass '{p}' "
                                     "(see --list-passes)\n")
                    return USAGE_EXIT
        self.front = {}   # outcome id -> the front end's diagnostics (HO0002)
        outcomes = []
        status = 0
        several = len(opts["files"]) > 1
        err_parts = []
        unread = 0
        for file in opts["files"]:
            outcome, code, err = self._run_file(file, opts, budget)
            status = max(status, code)
            err_parts.append(err)
            unread += outcome is None
            if outcome is not None:
                outcomes.append(outcome)
                front = self.front.get(id(outcome), [])
                if front and (opts["format"] == "text" or self.command != "check"):
                    err_parts.append("".join(map(str, front)))
                elif front and opts["format"] == "xla":
                    err_parts.append("".join(
                        (f"{file}: " if several else "") +
                        f"INVALID_ARGUMENT: {d.message}\n" for d in front))
                if opts["format"] in ("text", "xla") or self.command != "check":
                    err_parts.append(_api._decode(outcome.diagnostics(
                        opts["format"] if self.command == "check" else "text", several)))
        if self.command == "check" and opts["format"] == "text":
            # The summary line the program ends check with (CheckSummary), over every
            # input, the front end's HO0002 and the inputs it could not read included.
            front_codes = [d.code for o in outcomes for d in self.front.get(id(o), [])]
            err_parts.append(_core.check_summary(outcomes, front_codes, unread))
        sys.stderr.write("".join(err_parts))
        sys.stderr.flush()
        out = self._output(outcomes, opts, status)
        if out is None:
            return status
        if opts["output"] in (None, "-"):
            sys.stdout.buffer.write(out)
            sys.stdout.flush()
            return status
        try:
            _write_atomically(opts["output"], out)
        except OSError as e:
            sys.stderr.write(f"hlo-offload: error: cannot write to '{opts['output']}': "
                             f"{e.strerror or e}\n")
            return USAGE_EXIT
        return status

    def _run_file(self, file, opts, budget):
        """(outcome or None, exit status, what goes to standard error first)."""
        from . import _api, _core
        inp = _api._Input(text=None, file=file, path=file)
        note = ""
        if file.endswith(".mlir"):
            from ._types import ParseError
            try:
                with open(file, "rb") as f:
                    data = f.read()
                xla = _api._from_stablehlo(data, opts["platform"], file, file=file,
                                           split_input_file=opts["split"]).xla
            except ImportError as e:
                return None, USAGE_EXIT, f"hlo-offload: error: {file}: {e}\n"
            except ParseError as e:
                # Located like an HLO parse error: in the text and in the JSON (HO0001).
                outcome = _core.parse_error(self.command, file, str(e), e.line or 0,
                                            e.column or 0, e.message)
                return outcome, USAGE_EXIT, note
            except (OSError, ValueError, TypeError) as e:
                where = "" if str(e).startswith(f"{file}:") else f"{file}: "
                return None, USAGE_EXIT, f"hlo-offload: error: {where}{e}\n"
            inp = _api._Input(text=xla.hlo_text, file=None, path=file, xla=xla)
            for n in xla.notes:
                note += f"hlo-offload: note: {file}: {n}\n"

        args = _api._run_args(inp, lints=opts["lints"],
                              strategy=opts["strategy"] or "host-output",
                              split_input_file=opts["split"] and inp.xla is None,
                              xla_flags=opts["flags"], max_nodes=opts["max_nodes"],
                              ignore=opts["disable"], select=opts["enable"])
        args.pinned_host_budget = budget
        if opts["backend"] is not None:
            args.backend = opts["backend"]
        args.trace_level = opts["trace"]
        args.passes = opts["passes"]
        args.keep_modules = self.command in ("opt", "fmt", "fix")
        outcome = _core.run(self.command, inp.text, inp.file, args)
        if inp.xla is not None and opts["format"] in ("text", "xla") and \
                self.command == "check" and any(outcome.counts()):
            note += (f"hlo-offload: note: {file} is StableHLO: a diagnostic is located at "
                     "its line in your program (or in the file), then at its line in the "
                     "HLO module XLA compiles from it, which lies past the file's own "
                     "lines\n")
        front = _api.front_end_diagnostics(inp.xla, file)
        if front and not outcome.read_error:
            # HO0002: the file was lowered for the CPU; an error whatever the core found,
            # and nothing is written (opt, fix, report).
            self.front[id(outcome)] = front
            return outcome, max(outcome.exit_status, 1), note
        if outcome.read_error:
            msg = _api._decode(outcome.read_error)
            if opts["format"] == "json" and self.command == "check":
                return outcome, USAGE_EXIT, note + f"hlo-offload: error: {msg}\n"
            return None, USAGE_EXIT, note + f"hlo-offload: error: {msg}\n"
        return outcome, outcome.exit_status, note

    def _output(self, outcomes, opts, status):
        from . import _core
        c = self.command
        if c == "check":
            if opts["format"] == "json":
                return self._with_front(_core.render_json(outcomes), outcomes, "json")
            if opts["format"] == "sarif":
                return self._with_front(_core.render_sarif(outcomes), outcomes, "sarif")
            return None
        if status != 0 or not outcomes:
            return None
        if c == "report":
            return _core.render_reports(outcomes, opts["format"])
        return _core.printed_modules(outcomes)


    def _with_front(self, rendered: bytes, outcomes, fmt: str) -> bytes:
        """The core's JSON or SARIF document with the front end's diagnostics (HO0002)
        put first among their file's, as the core would put its own."""
        if not any(id(o) in self.front for o in outcomes):
            return rendered
        import json
        doc = json.loads(rendered)
        if fmt == "json":
            for entry, o in zip(doc["files"], outcomes):
                entry.setdefault("diagnostics", [])[:0] = [
                    d.to_json() for d in self.front.get(id(o), [])]
        else:
            run = doc["runs"][0]
            rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
            added = []
            for o in outcomes:
                for d in self.front.get(id(o), []):
                    result = {"level": "error", "locations": [{"physicalLocation": {
                        "artifactLocation": {"uri": d.file}}}],
                        "message": {"text": d.message}, "ruleId": d.code}
                    if d.code in rules:
                        result["ruleIndex"] = rules.index(d.code)
                    added.append(result)
            run["results"][:0] = added
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _write_atomically(path: str, data: bytes) -> None:
    """Writes `data` to `path` through a temporary file in its folder, fsync and rename, so
    that a failed run leaves no partial file (docs/CLI.md, "Files")."""
    if os.path.isdir(path):
        raise IsADirectoryError(21, "it is a directory")
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "wb") as f:  # a device or FIFO is written into
            f.write(data)
        return
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(target) + ".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if os.path.exists(target):
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


if __name__ == "__main__":
    sys.exit(main())
