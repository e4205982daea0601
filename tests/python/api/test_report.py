"""report(): text, JSON, DOT and HTML are what `hlo-offload report --format=...` writes."""
import json
import shutil

import pytest

import hlo_offload
from api_helpers import run_cli


def test_report_formats(cli, tmp_path, e1200_text):
    path = tmp_path / "step.hlo"
    path.write_text(e1200_text)
    rep = hlo_offload.report(path)
    assert str(rep) == run_cli(cli, "report", path)[1]
    assert rep.to_json() == json.loads(run_cli(cli, "report", "--format=json", path)[1])
    assert rep.to_dot() == run_cli(cli, "report", "--format=dot", path)[1]
    assert rep.to_dot().startswith("digraph")
    assert rep.to_json()["module"] == "offload_step"
    assert rep.modules == ["offload_step"]
    assert "Report" in repr(rep)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
def test_report_html(cli, tmp_path, e1200_text):
    path = tmp_path / "step.hlo"
    path.write_text(e1200_text)
    rep = hlo_offload.report(path)
    page = rep.to_html()
    assert page == run_cli(cli, "report", "--format=html", path)[1]
    assert "<svg" in page
    frame = rep._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "&lt;svg" in frame


def test_report_corpus(cli, corpus_file):
    """The C++ command line reports a sharded module as written (partition=False)."""
    status, out, err = run_cli(cli, "report", "--format=json", corpus_file)
    if status != 0:
        with pytest.raises(ValueError) as info:  # ParseError or the report's error
            hlo_offload.report(corpus_file, partition=False)
        assert str(info.value).strip().splitlines()[0] in err
        return
    rep = hlo_offload.report(corpus_file, partition=False)
    assert rep.to_json() == json.loads(out)
    assert str(rep) == run_cli(cli, "report", corpus_file)[1]
