"""The API on module text written here: what a Result and its Diagnostics hold."""
import pathlib

import hlo_offload
from api_helpers import run_cli


def test_clean_module(clean_text):
    result = hlo_offload.check(clean_text)
    assert result.ok
    assert result.diagnostics == []
    # Nothing found: the summary line alone, as the command line ends check.
    assert str(result) == "hlo-offload: 1 file checked: no errors, no warnings\n"
    assert result.summary == str(result)
    j = result.to_json()
    # The XLA whose semantics were used: the installed libtpu and CUDA plugin.
    assert j.pop("xla_semantics").startswith("libtpu 0.0.")
    assert j == {"version": 1, "files": [
        {"file": "<string>", "module": "clean", "diagnostics": []}]}
    assert result.modules == ["clean"]
    assert "ok" in repr(result) and "0 errors" in repr(result)
    assert "no error" in result._repr_html_()


def test_e1200(e1200_text):
    result = hlo_offload.check(e1200_text, filename="step.hlo")
    assert not result.ok
    assert result.exit_status == 1
    (d,) = result.errors
    assert d.code == "E1200"
    assert d.name == "CompileTimeHostOffloadOutputLocationMismatch"
    assert d.severity == "error"
    assert d.message == (
        "Tensor which is moved to host (starting from out) is returned from the entry "
        "computation but the layout for this output is not set to host memory.")
    assert d.output_index == (1,)
    assert d.output_path is None
    assert d.source == ("/home/user/step.py", 13)
    assert d.op_name == "jit(step)/device_put"
    assert [(h.instruction, h.shape_index) for h in d.path] == [("host", ()), ("out", (1,))]
    assert [f.strategy for f in d.fixes] == ["host-output", "move-to-device"]
    assert (d.location.line, d.location.column) == (15, 3)
    assert d.file == "step.hlo" and d.module == "offload_step"
    assert str(result).startswith("step.hlo:15:3: error: E1200: ")
    assert str(d) + result.summary == str(result)
    assert result.summary == "hlo-offload: 1 file checked: 1 error (E1200), no warnings\n"
    html = result._repr_html_()
    assert "E1200" in html and "1 error" in html


def test_text_equals_file(tmp_path, cli, e1200_text):
    path = tmp_path / "step.hlo"
    path.write_text(e1200_text)
    _, _, err = run_cli(cli, "check", path)
    assert str(hlo_offload.check(path)) == err
    assert str(hlo_offload.check(e1200_text, filename=str(path))) == err
    assert str(hlo_offload.check(e1200_text.encode(), filename=str(path))) == err
    assert str(hlo_offload.check(bytearray(e1200_text.encode()), filename=str(path))) == err
    assert str(hlo_offload.check(memoryview(e1200_text.encode()), filename=str(path))) == err
    # Standard input is named as the command line names it.
    _, _, err_stdin = run_cli(cli, "check", "-", stdin=e1200_text.encode())
    assert str(hlo_offload.check(e1200_text, filename="<stdin>")) == err_stdin


def test_options(e1200_text):
    # lints=False drops HO3xxx only; the pinned-host budget adds HO3012 when exceeded.
    text = e1200_text.replace("->(f32[], f32[32,256]{1,0})", "->(f32[], f32[32,256]{1,0:S(5)})")
    assert hlo_offload.check(text).ok
    over = hlo_offload.check(text, pinned_host_budget=1024)
    assert [d.code for d in over.diagnostics] == ["HO3012"]
    assert [d.code for d in hlo_offload.check(text, pinned_host_budget="1KiB").diagnostics] \
        == ["HO3012"]
    assert hlo_offload.check(text, pinned_host_budget="1GiB").diagnostics == []
    assert hlo_offload.check(text, pinned_host_budget=1024, lints=False).diagnostics == []
    # XLA V4's entry-layout auto-fix: the output is set to host memory instead of E1200.
    assert hlo_offload.check(
        e1200_text, xla_flags={"fix_entry_layout_unless_customized": True}).ok


def test_unicode_text():
    text = ('HloModule m\n\nENTRY main {\n  p = f32[4]{0} parameter(0), '
            'metadata={op_name="jit(f)/\u00e9t\u00e9" source_file="/tmp/\u00fc.py" source_line=3}\n'
            '  ROOT n = f32[4]{0} negate(p)\n}\n')
    assert hlo_offload.check(text).ok
    assert hlo_offload.check(text.encode("utf-8")).ok


def test_explain_codes_passes(cli):
    page = hlo_offload.explain("E1200")
    _, out, _ = run_cli(cli, "explain", "E1200")
    assert page == out
    assert hlo_offload.explain("e1200") == page
    codes = hlo_offload.codes()
    assert ("E1200", "CompileTimeHostOffloadOutputLocationMismatch") in [c[:2] for c in codes]
    assert all(c[2] in ("error", "warning", "note") for c in codes)
    names = [p[0] for p in hlo_offload.passes()]
    assert "host-offloader" in names
    # The pages are also installed as files of the package.
    docs = pathlib.Path(hlo_offload.__file__).parent
    installed = pathlib.Path(hlo_offload.executable()).parent.parent / "docs" / "errors"
    assert (installed / "E1200.md").is_file(), (docs, installed)


def test_version(cli):
    _, out, _ = run_cli(cli, "--version")
    assert hlo_offload.__version__ in out
