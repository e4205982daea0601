"""What XLA's dump says of an instruction it converts into host compute (its opcode, its
metadata's op_name and the user's line) is read by the core's parser
(_core.instruction_metadata, behind hlo_offload._xla.instruction_metadata): on every XLA
dump before the HostOffloader stored in tests/xla-ref (every instruction) and every
module of the shared corpus (50 instructions of each), it gives what the package's
regular expressions gave before, the escapes of an op_name decoded (JAX's `params['w']`, which the dump prints as
`params[\\'w\\']`)."""
import os
import re
import subprocess
from typing import Optional

import pytest

from hlo_offload import _core, _xla

from api_helpers import REPO, corpus_files, shared_path

NAME = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = ", re.M)


def _dumps():
    listed = subprocess.run(["git", "ls-files", "tests/xla-ref/*before_host-offloader*"],
                            cwd=REPO, capture_output=True, text=True)
    return [REPO / p for p in listed.stdout.split()]


def _corpus_modules():
    shared = shared_path()
    return corpus_files(shared) if (shared / "corpus").is_dir() else []


# The reading before: regular expressions over the instruction's line and the printer's
# stack-frame tables.
def _skip_shape(text: str, i: int) -> int:
    if text[i] != "(":
        return text.index(" ", i)
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1
    raise ValueError(text[i:i + 80])


def _table(hlo_text: str, title: str) -> dict:
    m = re.search(r"^%s\n((?:\d+ .*\n)*)" % title, hlo_text, re.M)
    return dict(line.split(" ", 1) for line in m.group(1).splitlines()) if m else {}


def _metadata_before(hlo_text: str, name: str) -> Optional[dict]:
    m = re.search(r"^\s*(?:ROOT\s+)?%?" + re.escape(name) + r" = ", hlo_text, re.M)
    if not m:
        return None
    end = hlo_text.find("\n", m.end())
    line = hlo_text[m.end():end if end >= 0 else len(hlo_text)]
    op = re.match(r"\s*([\w-]+)\(", line[_skip_shape(line, 0):])
    meta = re.search(r"metadata=\{([^}]*)\}", line)
    fields = dict(re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', meta.group(1))) if meta else {}
    row = {"name": name, "opcode": op.group(1) if op else None,
           "op_name": fields.get("op_name", '""')[1:-1].replace('\\"', '"') or None}
    if "source_line" in fields:
        row["source_file"] = os.path.basename(fields.get("source_file", '""')[1:-1])
        row["source_line"] = int(fields["source_line"])
    elif "stack_frame_id" in fields:
        frame = _table(hlo_text, "StackFrames").get(fields["stack_frame_id"], "")
        location_id = re.search(r"file_location_id=(\d+)", frame)
        loc = _table(hlo_text, "FileLocations").get(
            location_id.group(1) if location_id else "", "")
        file_id = re.search(r"file_name_id=(\d+)", loc)
        line_no = re.search(r"\bline=(\d+)", loc)
        if file_id and line_no:
            names = _table(hlo_text, "FileNames")
            row["source_file"] = os.path.basename(names.get(file_id.group(1), '""')[1:-1])
            row["source_line"] = int(line_no.group(1))
    return row


def _differences(text: str, most: Optional[int] = None):
    """(name, before, now) of each instruction of `text` read differently: every
    instruction, or `most` of them spread over the module (each reading parses it)."""
    names = list(dict.fromkeys(NAME.findall(text)))
    if most is not None and len(names) > most:
        names = names[::len(names) // most + 1]
    differences = []
    for name in names:
        try:
            before = _metadata_before(text, name)
        except ValueError:
            # The line is not all of the instruction (a tuple shape printed over several
            # lines): the reading before failed; the parser reads it.
            if _xla.instruction_metadata(text, name) is None:
                differences.append((name, "no reading before", None))
            continue
        if before is not None and before["op_name"]:
            before["op_name"] = before["op_name"].replace("\\'", "'")
        now = _xla.instruction_metadata(text, name)
        if now != before:
            differences.append((name, before, now))
    return differences


def _one_module(text: str) -> bool:
    """Whether `text` is one HLO module that parses."""
    outcome = _core.run("fmt", text, None, _core.PipelineOptions())
    try:
        return outcome.exit_status == 0 and outcome.module_count == 1
    finally:
        outcome.release()


def test_every_stored_dump_reads_as_before():
    dumps = _dumps()
    assert len(dumps) > 100, "the XLA dumps of tests/xla-ref"
    located = 0
    for dump in dumps:
        text = dump.read_text(errors="replace")
        assert _one_module(text), f"{dump} does not parse"
        assert not _differences(text), (dump, _differences(text)[:3])
        located += "StackFrames" in text
    assert located, "some dumps locate their instructions with stack-frame tables"


@pytest.mark.parametrize("module", _corpus_modules(), ids=lambda p: p.name)
def test_every_corpus_module_reads_as_before(module):
    text = module.read_text(errors="replace")
    if not _one_module(text):
        # Not one module (split input, or a case of the corpus that does not parse):
        # nothing to read instruction by instruction.
        assert _xla.instruction_metadata(text, "anything") is None
        return
    assert not _differences(text, most=50)


def test_what_is_read():
    text = ("HloModule m\n\nENTRY e {\n"
            "  p = f32[4]{0} parameter(0), metadata={op_name=\"params[\\'w\\']\"}\n"
            "  ROOT t = (f32[4]{0}) tuple(p), metadata={op_name=\"jit(f)/t\" "
            "source_file=\"/home/u/step.py\" source_line=12}\n}\n")
    assert _xla.instruction_metadata(text, "p") == \
        {"name": "p", "opcode": "parameter", "op_name": "params['w']"}
    assert _xla.instruction_metadata(text, "t") == \
        {"name": "t", "opcode": "tuple", "op_name": "jit(f)/t", "source_file": "step.py",
         "source_line": 12}
    assert _xla.instruction_metadata(text, "missing") is None
    assert _xla.instruction_metadata("HloModule broken\nENTRY {", "p") is None
