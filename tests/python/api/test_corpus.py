"""The API on every corpus file (the shared cases and the real dumps), against the
command line on the same file: str(result) is what `hlo-offload check FILE` writes, to_json()
what `--format=json` prints, for a path, for the text as a str and as bytes; a file the
parser refuses raises ParseError with the command line's message. The C++ command line
checks a module of several partitions as written, so the API is asked to (partition=False);
the partitioned check of the sharded dumps is test_sharded_corpus.py's."""
import json
import pathlib

import pytest

import hlo_offload
from api_helpers import FOLDED_NOTE, run_cli, split_summary


def _split(path: pathlib.Path) -> bool:
    return any(line.strip() == "// -----" for line in
               path.read_text(encoding="utf-8", errors="replace").splitlines())


def _compare(cli, path: pathlib.Path, source, **kwargs):
    split = kwargs.get("split_input_file", False)
    extra = (["--split-input-file"] if split else []) + (
        ["--pipeline=" + kwargs["pipeline"]] if "pipeline" in kwargs else [])
    status, _, err = run_cli(cli, "check", *extra, path)
    _, out_json, _ = run_cli(cli, "check", "--format=json", *extra, path)
    cli_json = json.loads(out_json)
    cli_has_parse_error = any(
        d["code"] == "HO0001" for f in cli_json["files"] for d in f["diagnostics"])
    if cli_has_parse_error:
        # The API raises for the first module that does not parse; the command line
        # prints the parser's message and exits 2.
        assert status == 2
        with pytest.raises(hlo_offload.ParseError) as info:
            hlo_offload.check(source, partition=False, **kwargs)
        e = info.value
        assert str(e) in err
        first = next(d for f in cli_json["files"] for d in f["diagnostics"]
                     if d["code"] == "HO0001")
        assert (e.line, e.column) == (first["location"]["line"], first["location"]["column"])
        assert e.message == first["message"]
        assert e.path == str(path)
        return None
    result = hlo_offload.check(source, partition=False, **kwargs)
    text, summary = split_summary(err)
    assert str(result) == err and result.summary == summary
    assert result.to_json() == cli_json
    assert result.exit_status == status
    assert result.ok == (status == 0)
    # The summary counts every diagnostic of the JSON.
    flat = [d for f in cli_json["files"] for d in f["diagnostics"]]
    for severity in ("error", "warning"):
        n = sum(d["severity"] == severity for d in flat)
        assert (f" {n} {severity}" if n else f" no {severity}s") in summary, summary
    # Each diagnostic is the JSON entry and, unless the text folds it into the first of
    # its group, the text block of the command line (which lists the group's other
    # outputs in one more note).
    assert [d.to_json() for d in result.diagnostics] == flat
    shown = [str(d) for d, (i, j) in zip(
        result.diagnostics,
        [(i, j) for f in cli_json["files"] for i, j in enumerate(f["diagnostics"])])
        if j.get("group", i) == i]
    assert "".join(shown) == FOLDED_NOTE.sub("", text)
    return result


def test_path(cli, corpus_file):
    result = _compare(cli, corpus_file, corpus_file)
    if result is not None:
        assert result.file == str(corpus_file)


def test_pipeline_offload(cli, corpus_file):
    """pipeline="offload" is `--pipeline=offload`: the three offloading passes alone."""
    _compare(cli, corpus_file, corpus_file, pipeline="offload")


def test_split_input_file(cli, corpus_file):
    if not _split(corpus_file):
        pytest.skip("no '// -----' line in this file")
    _compare(cli, corpus_file, corpus_file, split_input_file=True)


def test_text_and_bytes(cli, corpus_file):
    if corpus_file.stat().st_size > 1 << 20:
        pytest.skip("large file: the path test covers it")
    data = corpus_file.read_bytes()
    _compare(cli, corpus_file, data, filename=str(corpus_file))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    _compare(cli, corpus_file, text, filename=str(corpus_file))


def test_diagnostic_fields(corpus_file):
    """Each Diagnostic's attributes are its JSON entry's keys."""
    try:
        result = hlo_offload.check(corpus_file, partition=False)
    except hlo_offload.ParseError:
        return
    for d in result.diagnostics:
        j = d.to_json()
        assert d.code == j["code"] and d.name == j["name"]
        assert d.severity in ("error", "warning", "note")
        assert d.message == j["message"]
        assert d.output_index == (tuple(j["output_index"]) if "output_index" in j else None)
        assert d.output_path is None and d.input_path is None  # HLO text has no pytree
        if "source" in j and ("file" in j["source"] or "line" in j["source"]):
            assert d.source == (j["source"].get("file"), j["source"].get("line"))
        else:
            assert d.source is None
        assert [h.instruction for h in d.path] == [h["instruction"] for h in j.get("path", [])]
        assert [f.strategy for f in d.fixes] == [f["strategy"] for f in j["fixes"]]
        if "location" in j:
            assert (d.location.line, d.location.column) == (j["location"]["line"],
                                                           j["location"]["column"])
