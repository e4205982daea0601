"""The modules the XLA-parser oracle checks, and what XLA's parser and hlo-offload make of each.

A module is one HLO text: a file of the shared corpus (`real/*`, `cases/**/*.hlo`) or of the
lit suite (`tests/lit/**/*.hlo`), or one piece of such a file when it holds lines that are
exactly `// -----` (its RUN lines feed the pieces separately, by `--split-input-file` or awk).
Each has an id that names its source and file, with `#N` for the Nth piece from 0:
`real/openxla__xla__mobilenet_v2.hlo`, `cases/xla/020-one-mth-two-mtd.hlo`,
`lit/spec/s3.2-tuple-parameter-not-a-start.hlo#1`.

XLA's parser is jaxlib's `hlo_module_from_text`, which is
`xla::ParseAndReturnUnverifiedModule` (xla/python/hlo.cc): the parser alone, without
HloVerifier. It takes a Python str, so a module whose bytes are not UTF-8 cannot be given to it.

Results are computed once per module and kept for the session (`functools.lru_cache`), so the
per-module tests and the test of the whole list of disagreements share them.
"""
import dataclasses
import functools
import os
import pathlib
import re
import shlex
import subprocess
from typing import Optional

REPO = pathlib.Path(__file__).resolve().parents[3]
LIT_DIR = REPO / "tests" / "lit"
# The same rule as the `shared_dir` fixture (tests/python/conftest.py); needed here
# because the module list is made when the tests are collected.
SHARED_DIR = pathlib.Path(os.environ.get("HLOFF_SHARED_DIR", REPO.parent / "shared"))
CORPUS_DIR = SHARED_DIR / "corpus"
SEPARATOR = re.compile(rb"^// -----\r?$", re.M)
# Text that makes a module an offloading one: the annotations the pipeline turns into
# host memory, and host memory space itself.
OFFLOADING = re.compile(rb"MoveToHost|MoveToDevice|annotate_device_placement|\bS\(5\)")
# The options of `opt`/`fix` in RUN lines that change what the passes do (the others,
# -o, --split-input-file, -, only say where the text comes from and goes).
PASS_OPTIONS = ("--passes", "--disable-automatic-host-compute-offload",
                "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
                "--fix-entry-layout-unless-customized")
TOOL_TIMEOUT_S = 120


@dataclasses.dataclass(frozen=True)
class Module:
    """One module of the corpus: its id, source file, bytes, and the pass options
    (tuples of arguments) that the file's RUN lines give `opt` and `fix`."""
    id: str
    path: pathlib.Path
    data: bytes
    opt_options: tuple
    fix_options: tuple

    @property
    def shared(self) -> bool:
        """Whether the module comes from the shared corpus (not the checkout's lit suite)."""
        return not self.id.startswith("lit/")

    @property
    def text(self) -> Optional[str]:
        """The module as str, or None when its bytes are not UTF-8."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    @property
    def offloading(self) -> bool:
        """Whether the module holds offload annotations or host memory space."""
        return OFFLOADING.search(self.data) is not None


def _run_line_options(data: bytes, subcommand: str) -> tuple:
    """The distinct pass-option sets of the `hlo-offload SUBCOMMAND` calls in the RUN lines
    of a file (an empty set always among them), in first-seen order."""
    found = [()]
    for line in data.decode("utf-8", "replace").splitlines():
        if "RUN:" not in line:
            continue
        for call in re.findall(r"hlo-offload\s+" + subcommand + r"\b([^|;&<>]*)", line):
            try:
                words = shlex.split(call)
            except ValueError:
                words = call.split()
            options = []
            for i, word in enumerate(words):
                name = word.split("=", 1)[0]
                if name not in PASS_OPTIONS:
                    continue
                if name == "--passes" and "=" not in word and i + 1 < len(words):
                    word = "--passes=" + words[i + 1]
                options.append(word)
            if tuple(options) not in found:
                found.append(tuple(options))
    return tuple(found)


def _modules_of_file(module_id: str, path: pathlib.Path) -> list:
    data = path.read_bytes()
    opt_options = _run_line_options(data, "opt")
    fix_options = _run_line_options(data, "fix")
    if not SEPARATOR.search(data):
        return [Module(module_id, path, data, opt_options, fix_options)]
    pieces = SEPARATOR.split(data)
    return [Module("%s#%d" % (module_id, i), path, piece.lstrip(b"\r\n"), opt_options,
                   fix_options) for i, piece in enumerate(pieces)]


@functools.lru_cache(maxsize=None)
def shared_modules() -> tuple:
    """The modules of the shared corpus, or () when it is absent."""
    if not CORPUS_DIR.is_dir():
        return ()
    modules = []
    for path in sorted((CORPUS_DIR / "real").iterdir()):
        if path.is_file() and path.suffix != ".md":
            modules += _modules_of_file("real/" + path.name, path)
    for path in sorted((CORPUS_DIR / "cases").rglob("*.hlo")):
        modules += _modules_of_file("cases/" + path.relative_to(CORPUS_DIR / "cases").as_posix(),
                                    path)
    return tuple(modules)


@functools.lru_cache(maxsize=None)
def lit_modules() -> tuple:
    """The modules of the checkout's lit suite (`tests/lit/**/*.hlo`, Inputs/ included)."""
    modules = []
    for path in sorted(LIT_DIR.rglob("*.hlo")):
        modules += _modules_of_file("lit/" + path.relative_to(LIT_DIR).as_posix(), path)
    return tuple(modules)


def all_modules() -> tuple:
    """Every module: the shared corpus's (when present), then the lit suite's."""
    return shared_modules() + lit_modules()


@functools.lru_cache(maxsize=None)
def by_id() -> dict:
    """Module id -> Module."""
    return {m.id: m for m in all_modules()}


# --- XLA's parser -------------------------------------------------------------------------

def jaxlib_version() -> tuple:
    """The installed jaxlib's (major, minor), whose parser is the oracle; (0, 0) without
    jaxlib (the oracle tests skip then)."""
    from importlib import metadata
    try:
        return tuple(int(p) for p in metadata.version("jaxlib").split(".")[:2])
    except metadata.PackageNotFoundError:
        return (0, 0)


def reads_compact_gte() -> bool:
    """Whether the installed jaxlib's parser reads compact get-tuple-element operands
    (`%p#1#0`): jaxlib 0.10.2's does not ("expects ... but sees #", run here); jaxlib
    0.12.0.1's does (run here), and JAX 0.11.2's XLA prints them in its dumps
    (tests/xla-ref/jax-0.11.2-cuda13-h200)."""
    return jaxlib_version() >= (0, 11)


def xla_hlo():
    """jaxlib's HLO bindings (`jax._src.lib.hlo`, the module `jaxlib._hlo` in jaxlib 0.10.2)."""
    from jax._src.lib import hlo
    return hlo


def canonical_options():
    """XLA's HloPrintOptions::Canonical(): instruction names canonicalized, no metadata or
    backend_config, operand shapes printed."""
    return xla_hlo().HloPrintOptions.canonical()


def full_options(large_constants: bool = True):
    """XLA's default printing (names, metadata, backend_config, control predecessors), with
    large constants printed in full when large_constants: what canonical printing leaves out
    is compared too."""
    options = xla_hlo().HloPrintOptions()
    options.print_large_constants = large_constants
    return options


# An elided constant, `constant({...})`. XLA's parser fills it with values from a counter
# that lives as long as the process (hlo_parser.cc, the kDots case of the literal parser: a
# static uint32_t), so two parses of one text print different values: such a text is printed
# with its large constants elided.
ELIDED_CONSTANT = "{...}"


@dataclasses.dataclass(frozen=True)
class XlaResult:
    """What XLA's parser made of a text: error is None when it parsed; canonical and full
    are its printings with canonical_options() and full_options() (large constants elided
    when the text elides one)."""
    error: Optional[str]
    canonical: str = ""
    full: str = ""


def xla_parse(text: str) -> XlaResult:
    """Parses text with XLA's parser and prints it back twice (see XlaResult)."""
    hlo = xla_hlo()
    try:
        module = hlo.hlo_module_from_text(text)
    except Exception as error:  # jax.errors.JaxRuntimeError: INVALID_ARGUMENT ...
        return XlaResult(error=str(error))
    large_constants = ELIDED_CONSTANT not in text
    return XlaResult(error=None, canonical=module.to_string(canonical_options()),
                     full=module.to_string(full_options(large_constants)))


@functools.lru_cache(maxsize=None)
def xla_input(module_id: str) -> XlaResult:
    """XLA's parse of the module's own text (the module must be UTF-8)."""
    text = by_id()[module_id].text
    assert text is not None, module_id + " is not UTF-8"
    return xla_parse(text)


# --- hlo-offload --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ToolResult:
    """One run of hlo-offload on a module given on standard input."""
    args: tuple
    returncode: int
    stdout: bytes
    stderr: str


def run_tool(binary: pathlib.Path, args: tuple, data: bytes) -> ToolResult:
    """Runs `hlo-offload ARGS -` with data on standard input."""
    proc = subprocess.run([str(binary), *args, "-"], input=data, capture_output=True,
                          timeout=TOOL_TIMEOUT_S)
    return ToolResult(tuple(args), proc.returncode, proc.stdout,
                      proc.stderr.decode("utf-8", "replace"))


@functools.lru_cache(maxsize=None)
def tool_fmt(binary: pathlib.Path, module_id: str) -> ToolResult:
    """`hlo-offload fmt` of the module (exit 0, or 2 on a parse error)."""
    return run_tool(binary, ("fmt",), by_id()[module_id].data)


def accepted_by_us(binary: pathlib.Path, module_id: str) -> bool:
    """Whether hlo-offload parses the module (`fmt` exits 0)."""
    result = tool_fmt(binary, module_id)
    assert result.returncode in (0, 2), (
        "fmt exited %d on %s:\n%s" % (result.returncode, module_id, result.stderr))
    return result.returncode == 0


def disagreement(binary: pathlib.Path, module_id: str) -> Optional[str]:
    """'xla-rejects' (we accept, XLA's parser does not), 'we-reject' (the reverse), or None
    when both accept or both reject. A module that is not UTF-8 gives None (see
    NOT_UTF8 in test_xla_disagreements.py)."""
    if by_id()[module_id].text is None:
        return None
    xla_ok = xla_input(module_id).error is None
    ours_ok = accepted_by_us(binary, module_id)
    if xla_ok == ours_ok:
        return None
    return "xla-rejects" if ours_ok else "we-reject"


def short(message: str, lines: int = 8) -> str:
    """The first lines of an error message, for assertion messages."""
    return "\n".join(message.splitlines()[:lines])


def module_or_skip(module_id, request):
    """The module `module_id` of by_id(), after skipping (through the `shared_dir` fixture)
    when it comes from the shared corpus and that is absent; `module_id` None is the
    placeholder parameter of an absent corpus."""
    import pytest
    if module_id is None:
        request.getfixturevalue("shared_dir")  # skips: the shared corpus is absent
        pytest.fail("the shared corpus is present but has no modules")
    module = by_id()[module_id]
    if module.shared:
        request.getfixturevalue("shared_dir")
    return module
