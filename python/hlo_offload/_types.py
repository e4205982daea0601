"""The values the API returns and the exceptions it raises.

Every value is built from what the command line prints: a `Diagnostic` from one entry of
`check --format=json` (docs/CLI.md), `str()` of a `Result` from the text `check` writes on
standard error, a `Report` from `report --format=...`. Nothing here recomputes what the C++
core decided.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import html
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

if __package__:
    from . import _core
else:  # loaded on its own beside the JAX front end (_jax._sibling): the installed one
    from hlo_offload import _core

__all__ = [
    "Severity",
    "Strategy",
    "ParseError",
    "FixError",
    "Location",
    "Hop",
    "Note",
    "FixSuggestion",
    "Diagnostic",
    "Result",
    "Report",
    "FixedModule",
]


class _StrEnum(str, enum.Enum):
    """A str-valued enum whose members are their values wherever a str is expected: equal
    to them (`Severity.ERROR == "error"`), and printed and formatted as them (`str()`,
    f-strings and `json.dumps` give `error`), on every Python version the package takes
    (3.11 and later would print a mixed-in enum as `Severity.ERROR`), and hashed as them
    (a dict keyed by `"error"` finds `Severity.ERROR`)."""

    def __str__(self) -> str:
        return str(self.value)

    def __hash__(self) -> int:
        return hash(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Severity(_StrEnum):
    """How bad a diagnostic is, as the command line names it: `"error"` (check exits
    with status 1), `"warning"` or `"note"`. A str: `d.severity == "error"` holds. The
    members are the core's severities (`_core.Severity`), spelled as the core spells
    them."""

    ERROR = _core.Severity.ERROR.spelling
    WARNING = _core.Severity.WARNING.spelling
    NOTE = _core.Severity.NOTE.spelling


class Strategy(_StrEnum):
    """How `fix` makes an E1200 go away (`hlo-offload fix --strategy=`): declare the output
    in host memory (`"host-output"`), or move the value back to device memory before it is
    returned (`"move-to-device"`). A str: `fix(src, strategy="move-to-device")` works. The
    members are the core's fix strategies (`_core.FixStrategy`, pipeline/choices.h),
    spelled as `--strategy` spells them."""

    HOST_OUTPUT = _core.FixStrategy.HOST_OUTPUT.spelling
    MOVE_TO_DEVICE = _core.FixStrategy.MOVE_TO_DEVICE.spelling


class ParseError(ValueError):
    """The text is not an HLO module the parser accepts (or a limit of README "Limits" is
    exceeded), not a StableHLO module MLIR parses (then `line` and `column` are MLIR's, in
    the StableHLO text), or not text at all (a str with a lone surrogate, StableHLO bytes
    that are not UTF-8: located at it).

    `path` is the name shown for the input, `line` and `column` (1-based) where the parser
    stopped, `message` what it expected; `str(error)` is the command line's complete message
    (`path:line:col: error: ...`, the source line and a caret).
    """

    def __init__(self, rendered: str, *, path: str, line: Optional[int], column: Optional[int],
                 message: str):
        super().__init__(rendered)
        self.path = path
        self.line = line
        self.column = column
        self.message = message

    def __reduce__(self) -> Tuple[Callable[..., ParseError],
                                  Tuple[str, str, Optional[int], Optional[int], str]]:
        return (_make_parse_error, (self.args[0], self.path, self.line, self.column, self.message))


def _make_parse_error(rendered: str, path: str, line: Optional[int], column: Optional[int],
                      message: str) -> ParseError:
    """ParseError from its pickled fields (ParseError.__reduce__)."""
    return ParseError(rendered, path=path, line=line, column=column, message=message)


def _located_parse_error(text: str, path: str, line: int, column: int,
                         message: str) -> ParseError:
    """A ParseError at `line`:`column` (1-based; the column counts UTF-8 bytes, as the
    HLO parser's do) of `text`, rendered as the parser renders its errors: `path:line:col:
    error: message`, the source line and a caret under the column."""
    lines = text.split("\n", line)  # only as far as the line
    shown = lines[line - 1] if 0 < line <= len(lines) else ""
    shown = shown.rstrip("\r")
    # What cannot be printed is shown as U+FFFD (a lone surrogate would make str(e)
    # itself unprintable); control characters as blanks, as the parser shows them.
    shown = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else
                    (" " if ord(c) < 0x20 and c != "\t" else c) for c in shown)
    rendered = f"{path}:{line}:{column}: error: {message}"
    if shown and len(shown) < 400:
        prefix = shown.encode("utf-8")[:max(column - 1, 0)].decode("utf-8", "replace")
        caret = "".join("\t" if c == "\t" else " " for c in prefix)
        rendered += f"\n{shown}\n{caret}^"
    return ParseError(rendered, path=path, line=line, column=column, message=message)


def _undecodable_bytes_error(data: bytes, error: UnicodeDecodeError,
                             path: str) -> ParseError:
    """The ParseError for StableHLO bytes that are not UTF-8 (MLIR reads UTF-8 text),
    located at the first bad byte."""
    at = error.start
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    text = data.decode("utf-8", "replace")
    message = (f"byte 0x{data[at]:02x} is not UTF-8, and StableHLO text is read as "
               "UTF-8")
    return _located_parse_error(text, path, line, column, message)


def _unencodable_text_error(text: str, error: UnicodeEncodeError, path: str) -> ParseError:
    """The ParseError for a str that has no UTF-8 form: a lone surrogate (U+D800 to
    U+DFFF, e.g. a file decoded with errors="surrogateescape"), located at its line and
    column."""
    at = error.start
    line = text.count("\n", 0, at) + 1
    line_start = text.rfind("\n", 0, at) + 1
    column = len(text[line_start:at].encode("utf-8")) + 1  # the text before is valid
    code = ord(text[at])
    message = (f"the text holds a lone surrogate, U+{code:04X}, which is not a Unicode "
               "character and has no UTF-8 form (a str decoded with "
               "errors='surrogateescape' or 'surrogatepass'?): pass the bytes instead, "
               "or the text without it")
    return _located_parse_error(text, path, line, column, message)


class FixError(ValueError):
    """`fix` could not rewrite the module: an error other than E1200 stands in the way, or
    the fixed module still fails its re-check. `result` holds the diagnostics that say why
    (what `hlo-offload fix` prints before it exits with status 1)."""

    def __init__(self, message: str, result: "Result"):
        super().__init__(message)
        self.result = result


@dataclass(frozen=True)
class Location:
    """A position in the module text: 1-based line and column."""

    line: int
    column: int

    @classmethod
    def _from_json(cls, j: Optional[Dict[str, Any]]) -> Optional["Location"]:
        if not j:
            return None
        return cls(int(j["line"]), int(j["column"]))


@dataclass(frozen=True)
class Hop:
    """One step of the path an offloaded tensor took: the instruction, its computation, the
    shape index tracked there (a tuple) and where the instruction is in the text."""

    instruction: str
    computation: str
    shape_index: Tuple[int, ...]
    location: Optional[Location] = None


@dataclass(frozen=True)
class Note:
    """A note attached to a diagnostic, with its own location."""

    message: str
    location: Optional[Location] = None


@dataclass(frozen=True)
class FixSuggestion:
    """A way to fix a diagnostic: the strategy `hlo-offload fix --strategy=` takes
    (`"host-output"`, `"move-to-device"`, ...) and a paragraph that says what it does."""

    strategy: str
    description: str


@dataclass(frozen=True)
class Diagnostic:
    """One finding, as `check --format=json` describes it (docs/CLI.md).

    code: `"E1200"`, `"HO3004"`, ...; name: `"CompileTimeHostOffloadOutputLocationMismatch"`;
    severity: `"error"`, `"warning"` or `"note"`; message: XLA's sentence (byte for byte for
    XLA's own codes). output_index: the entry output's shape index (a tuple) or None;
    output_path / input_path: JAX's pytree path of that output (`result['opt_state']['mu']`)
    or of the entry parameter the diagnostic is about (`params['w']`), None when unknown
    (HLO text has no pytree). source: `(file, line)` of the user's program from `metadata`,
    or None. path: the hops from the offload to the output. fixes: FixSuggestion values.
    xla_confirmed: with `check(..., xla=...)`, whether XLA's own compile confirms this error
    or host-compute warning (True / False); None for lints and notes, which are ours alone,
    and without XLA. `str(d)` is the diagnostic as the command line prints it.
    """

    code: str
    name: str
    severity: Severity
    message: str
    output_index: Optional[Tuple[int, ...]] = None
    output_path: Optional[str] = None
    input_path: Optional[str] = None
    source: Optional[Tuple[Optional[str], Optional[int]]] = None
    path: Tuple[Hop, ...] = ()
    fixes: Tuple[FixSuggestion, ...] = ()
    notes: Tuple[Note, ...] = ()
    location: Optional[Location] = None
    file: Optional[str] = None
    module: Optional[str] = None
    instruction: Optional[str] = None
    computation: Optional[str] = None
    start: Optional[str] = None
    op_name: Optional[str] = None
    help_uri: Optional[str] = None
    xla_confirmed: Optional[bool] = None
    _json: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _text: str = field(default="", repr=False, compare=False)

    @classmethod
    def _from_json(cls, j: Dict[str, Any], *, file: Optional[str], module: Optional[str],
                   text: str) -> "Diagnostic":
        src = j.get("source")
        source = None
        op_name = None
        if src:
            op_name = src.get("op_name")
            if "file" in src or "line" in src:
                source = (src.get("file"), src.get("line"))
        index = j.get("output_index")
        return cls(
            code=j["code"],
            name=j["name"],
            severity=Severity(j["severity"]),
            message=j["message"],
            output_index=tuple(index) if index is not None else None,
            output_path=j.get("output_path"),
            input_path=j.get("input_path"),
            source=source,
            path=tuple(Hop(h["instruction"], h["computation"], tuple(h["shape_index"]),
                           Location._from_json(h.get("location")))
                       for h in j.get("path", ())),
            fixes=tuple(FixSuggestion(f["strategy"], f["description"])
                        for f in j.get("fixes", ())),
            notes=tuple(Note(n["message"], Location._from_json(n.get("location")))
                        for n in j.get("notes", ())),
            location=Location._from_json(j.get("location")),
            file=file,
            module=module,
            instruction=j.get("instruction"),
            computation=j.get("computation"),
            start=j.get("start"),
            op_name=op_name,
            help_uri=j.get("help_uri"),
            _json=j,
            _text=text,
        )

    @property
    def is_error(self) -> bool:
        """Whether this diagnostic is an error (a check with it exits with status 1)."""
        return self.severity == Severity.ERROR

    def to_json(self) -> Dict[str, Any]:
        """This diagnostic's object of `check --format=json` (a fresh copy; with XLA's
        verdict, `xla_confirmed` where it applies)."""
        j = copy.deepcopy(self._json)
        if self.xla_confirmed is not None:
            j["xla_confirmed"] = self.xla_confirmed
        return j

    def __str__(self) -> str:
        return self._text


def _front_end_diagnostic(code: str, name: str, message: str, *, file: str,
                          notes: Sequence[str] = (),
                          severity: Severity = Severity.ERROR) -> Diagnostic:
    """An error (or warning) the Python front end reports before the core runs (HO0002:
    a lowering for the CPU, or text that may be one), shaped as the core shapes an
    unlocated diagnostic: the text of src/diag/render.cc `RenderText`
    (`FILE: error: CODE: Name: message`, its notes, the page to read) and the JSON entry
    of `DiagnosticToJson` (keys sorted)."""
    help_uri = f"docs/errors/{code}.md"
    text = f"{file}: {severity.value}: {code}: {name}: {message}\n"
    text += "".join(f"  {file}: note: {n}\n" for n in notes)
    text += f"  note: see {help_uri} or run `hlo-offload explain {code}`\n"
    j: Dict[str, Any] = {"code": code, "fixes": [], "help_uri": help_uri,
                         "message": message, "name": name, "severity": severity.value}
    if notes:
        j["notes"] = [{"message": n} for n in notes]
    j = dict(sorted(j.items()))   # nlohmann's objects are sorted by key
    return Diagnostic(code=code, name=name, severity=severity, message=message,
                      notes=tuple(Note(n) for n in notes), file=file, help_uri=help_uri,
                      _json=j, _text=text)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class Result:
    """What `check` found in one input.

    ok: True when no diagnostic is an error (`hlo-offload check` would exit 0; warnings and
    notes allowed). diagnostics: every Diagnostic, in the order the command line prints them.
    `str(result)` is the text the command line writes (GNU style, with source lines and
    notes, the diagnostics of one cause folded into the first as there, then the summary
    line, `summary`: "hlo-offload: 1 file checked: no errors, no warnings" for a clean
    program), `to_json()` the `--format=json` object (a dict, one entry per diagnostic,
    with `group` / `group_size` where they fold).
    modules: the names of the modules checked. hlo_text: for a JAX source and for a module
    that XLA's SPMD partitioner partitioned first, the HLO module that was checked (None
    for other text and files). notes: what the front end wants the caller to know (e.g. a
    CPU lowering, which drops offload annotations; that the module was partitioned).

    With `check(..., xla="tpu")`: `xla` is XLA's own verdict (an XlaVerdict: its error
    text and code, the instructions it converts into host compute, the time it took),
    `xla_agrees` whether it and ours agree, `xla_disagreements` each difference in a
    sentence; each error and host-compute warning has `xla_confirmed`. XLA's verdict then
    decides `ok` and `exit_status` (when XLA gave one: `xla.verdict`). `xla_memory` lists
    XLA's memory analysis beside the report's per-device bytes, each difference explained
    (hlo_offload._xla.MemoryFigure; `str(result)` and the JSON's `xla.memory_figures` show
    them too).

    The diagnostics and the JSON object are made from the core's result when first asked
    for (a module with thousands of warnings costs nothing until then).
    """

    def __init__(self, *, text: str, offsets: Sequence[int],
                 render_json: Callable[[], str], counts: Sequence[int], exit_status: int,
                 modules: Sequence[str], file: str, notes: Sequence[str] = (),
                 hlo_text: Optional[str] = None, xla_input: Any = None,
                 front: Sequence[Diagnostic] = (), folded_text: Optional[str] = None,
                 summary: str = ""):
        # `front`: errors of the JAX front end (HO0002), before the core's diagnostics.
        self._front = list(front)
        front_text = "".join(d._text for d in self._front)
        self._text = front_text + text
        # What the command line prints: a group's diagnostics folded into its first
        # (diag/group.h); `text` has each diagnostic in full, for str(d).
        self._folded = front_text + (text if folded_text is None else folded_text)
        self.summary = summary
        self._offsets = [len(front_text) + o for o in offsets]
        self._render_json: Optional[Callable[[], str]] = render_json  # () -> JSON text
        self._json: Optional[Dict[str, Any]] = None
        self._diagnostics: Optional[List[Diagnostic]] = None
        self._lock = threading.Lock()
        counts = list(counts)
        counts[0] += sum(d.severity == "error" for d in self._front)
        counts[1] += sum(d.severity == "warning" for d in self._front)
        self._counts = tuple(counts)
        self.exit_status = max(exit_status, 1) \
            if any(d.severity == "error" for d in self._front) else exit_status
        self.modules = list(modules)
        self.file = file
        self.notes = list(notes)
        self.hlo_text = hlo_text
        self.xla_input = xla_input
        # hlo_offload.XlaVerdict with check(..., xla=...). The XLA side's values are Any
        # here: this module is below hlo_offload._xla and imports nothing of it.
        self.xla: Any = None
        self.xla_agrees: Optional[bool] = None
        self.xla_disagreements: List[str] = []
        self.xla_memory: List[Any] = []
        self._xla_comparison: Any = None

    def _attach_xla(self, verdict: Any, comparison: Any) -> None:
        """Puts XLA's verdict beside ours, as `comparison` (hlo_offload._xla.compare of
        this result's diagnostics) has it: marks each error and host-compute warning
        confirmed or not, and lets XLA's verdict decide; `xla_memory` is XLA's memory
        analysis beside the report's per-device bytes."""
        diagnostics = self.diagnostics
        assert self._json is not None  # made with the diagnostics
        self.xla_memory = list(comparison.memory)
        comparison.mark_json(diagnostics, [j for entry in self._json["files"]
                                           for j in entry.get("diagnostics", ())])
        self._diagnostics = [
            dataclasses.replace(d, xla_confirmed=comparison.confirmed[id(d)])
            if id(d) in comparison.confirmed else d for d in diagnostics]
        self.xla = verdict
        self._json["xla"] = comparison.to_json()
        self.xla_agrees = self._json["xla"]["agrees"]
        self.xla_disagreements = list(comparison.disagreements)
        self._xla_comparison = comparison
        self.exit_status = comparison.exit_status(self.exit_status)

    def xla_text(self) -> str:
        """The lines `check --xla=...` prints about XLA's verdict ("" without one)."""
        if self._xla_comparison is None:
            return ""
        text: str = self._xla_comparison.text(self.file)
        return text

    def _materialize(self) -> None:
        with self._lock:
            if self._json is not None:
                return
            import json
            assert self._render_json is not None
            doc = json.loads(self._render_json())
            self._render_json = None  # the core's result can go
            diagnostics = list(self._front)
            if self._front and doc["files"]:
                first = doc["files"][0]
                first.setdefault("diagnostics", [])[:0] = [d.to_json()
                                                           for d in self._front]
                diagnostics = [dataclasses.replace(d, module=first.get("module"))
                               for d in self._front]
            k = 0
            skip = len(self._front)
            for entry in doc["files"]:
                for j in entry.get("diagnostics", ()):
                    if skip:
                        skip -= 1
                        continue
                    a, b = self._offsets[k], self._offsets[k + 1]
                    diagnostics.append(Diagnostic._from_json(
                        j, file=entry.get("file"), module=entry.get("module"),
                        text=self._text[a:b]))
                    k += 1
            self._diagnostics = diagnostics
            self._json = doc

    @property
    def diagnostics(self) -> List[Diagnostic]:
        """Every diagnostic, in the order the command line prints them."""
        if self._diagnostics is None:
            self._materialize()
        assert self._diagnostics is not None
        return self._diagnostics

    @property
    def ok(self) -> bool:
        """True when no diagnostic is an error (XLA's verdict decides when it gave one)."""
        if self.xla is not None and self.xla.verdict:
            xla_ok: bool = self.xla.ok
            return xla_ok
        return self._counts[0] == 0

    @property
    def errors(self) -> List[Diagnostic]:
        """The diagnostics that are errors."""
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def warnings(self) -> List[Diagnostic]:
        """The diagnostics that are warnings."""
        return [d for d in self.diagnostics if d.severity == Severity.WARNING]

    def to_json(self) -> Dict[str, Any]:
        """The `check --format=json` object: `{"version": 1, "files": [...]}` (a fresh
        copy; diagnostics gain `output_path` / `input_path` where they are known)."""
        if self._json is None:
            self._materialize()
        assert self._json is not None
        return copy.deepcopy(self._json)

    def __str__(self) -> str:
        notes = "".join(f"hlo-offload: note: {n}\n" for n in self.notes)
        return notes + self._folded + self.summary + self.xla_text()

    def __repr__(self) -> str:
        counts = dict(zip(("error", "warning", "note"), self._counts))
        what = ", ".join(_plural(counts[s], s) for s in ("error", "warning", "note"))
        name = ", ".join(self.modules) or self.file
        return f"<hlo_offload.Result {'ok' if self.ok else 'not ok'}: {what} ({name})>"

    def _repr_html_(self) -> str:
        colours = {"error": "#b00020", "warning": "#9a6700", "note": "#0b57d0"}
        parts = ['<div class="hlo-offload-result">']
        verdict = "no error" if self.ok else _plural(len(self.errors), "error")
        parts.append(f"<p><b>hlo-offload check</b> of {html.escape(self.file)}: "
                     f"{html.escape(verdict)}, {_plural(len(self.warnings), 'warning')}</p>")
        for n in self.notes:
            parts.append(f"<p><i>note: {html.escape(n)}</i></p>")
        if self.diagnostics:
            parts.append('<table><tr><th>severity</th><th>code</th><th>output</th>'
                         '<th>message</th><th>source</th></tr>')
            for d in self.diagnostics:
                output = d.output_path or (
                    "{" + ",".join(map(str, d.output_index)) + "}"
                    if d.output_index is not None else "")
                src = f"{d.source[0]}:{d.source[1]}" if d.source else ""
                parts.append(
                    f'<tr><td style="color:{colours.get(d.severity, "inherit")}">'
                    f"{d.severity}</td><td>{html.escape(d.code)} {html.escape(d.name)}</td>"
                    f"<td><code>{html.escape(output)}</code></td>"
                    f"<td>{html.escape(d.message)}</td><td>{html.escape(src)}</td></tr>")
            parts.append("</table>")
            parts.append("<details><summary>full text</summary><pre>"
                         f"{html.escape(self._text)}</pre></details>")
        parts.append("</div>")
        return "\n".join(parts)


class Report:
    """The offload report of an input (`hlo-offload report`, docs/REPORT.md).

    `str(report)` is the text report, `to_json()` the `--format=json` object (a dict; with
    several modules a list of them), `to_dot()` the Graphviz picture, `to_html()` the
    self-contained page, which `_repr_html_` shows in a notebook.
    """

    def __init__(self, *, render: Callable[[str], str], file: str, modules: Sequence[str],
                 notes: Sequence[str] = ()):
        self._render = render
        self._cache: Dict[str, str] = {}
        self.file = file
        self.modules = list(modules)
        self.notes = list(notes)
        # With report(..., xla="tpu"): XLA's verdict (an XlaVerdict) and its memory
        # analysis beside the report's per-device bytes (MemoryFigure each).
        self.xla: Any = None
        self.xla_memory: List[Any] = []
        # The memory figures as lines of text (hlo_offload._xla.memory_text).
        self.xla_lines: List[str] = []

    def _get(self, fmt: str) -> str:
        if fmt not in self._cache:
            self._cache[fmt] = self._render(fmt)
        return self._cache[fmt]

    def to_json(self) -> Any:
        """The `report --format=json` object (a dict; a list of them for several modules);
        with xla=, its `xla` object: XLA's verdict and `memory_figures`."""
        import json
        data = json.loads(self._get("json"))
        if self.xla is not None and isinstance(data, dict):
            data["xla"] = dict(self.xla.to_json(),
                               memory_figures=[f.to_json() for f in self.xla_memory])
        return data

    def to_dot(self) -> str:
        """The `report --format=dot` picture (Graphviz)."""
        return self._get("dot")

    def to_html(self) -> str:
        """The `report --format=html` page, with the picture."""
        return self._get("html")

    def __str__(self) -> str:
        text = self._get("text")
        if self.xla is None:
            return text
        lines = [f"xla: {self.xla.headline()}"] + [f"xla: {line}"
                                                    for line in self.xla_lines]
        return text + "\n" + "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"<hlo_offload.Report of {', '.join(self.modules) or self.file}>"

    def _repr_html_(self) -> str:
        # The page is complete (its own <html> and styles): a notebook shows it in a frame
        # of its own so that its styles stay inside.
        page = html.escape(self.to_html(), quote=True)
        return (f'<iframe srcdoc="{page}" style="width:100%;height:640px;border:0" '
                'sandbox=""></iframe>')


class FixedModule(str):
    """The fixed HLO text (a str: write it, parse it, check it again), with what was done.

    changed: False when nothing needed a fix (the text is the input's, byte for byte).
    fixed_outputs: the entry output indices the fix changed (tuples); fixed_output_paths:
    their JAX pytree paths where known. output_memory_kinds: the memory kind of every entry
    output after the fix ("device", "pinned_host" or "unpinned_host") — for a JAX source a
    pytree with the structure of the function's outputs, ready for
    `jax.tree.map(lambda s, k: s.with_memory_kind(k), out_shardings, kinds)`; for
    StableHLO text the tree its `jax.result_info` names describe (dicts and tuples, see
    `hlo_offload._jax.pytree_from_result_paths`), else (HLO text, or names that describe
    no tree) a list, one per leaf of the entry result. diagnostics: the fix's notes (e.g. nothing to
    fix) and what the re-check of the fixed module reported.
    With `fix(..., xla="tpu")`: `xla` is XLA's verdict on the fix (an XlaVerdict) and
    `xla_accepts` whether XLA compiles it (None when XLA gave no verdict); else both None.
    """

    changed: bool
    strategy: Strategy
    fixed_outputs: List[Tuple[int, ...]]
    fixed_output_paths: List[str]
    output_memory_kinds: Any
    diagnostics: List[Diagnostic]
    xla: Any = None
    xla_accepts: Optional[bool] = None

    def __new__(cls, text: str, **attrs: Any) -> "FixedModule":
        self = super().__new__(cls, text)
        for k, v in attrs.items():
            setattr(self, k, v)
        return self

    @property
    def text(self) -> str:
        """The fixed module as a plain str."""
        return str.__str__(self)

    def __repr__(self) -> str:
        what = ("fixed " + ", ".join(self.fixed_output_paths or
                                     ["{" + ",".join(map(str, i)) + "}"
                                      for i in self.fixed_outputs])
                if self.changed else "nothing to fix")
        if self.xla is not None:
            said: Dict[Optional[bool], str] = {True: "XLA accepts it",
                                               False: "XLA refuses it"}
            what += "; " + said.get(self.xla_accepts, "no verdict from XLA")
        return f"<hlo_offload.FixedModule ({self.strategy}): {what}; {len(self)} characters>"
