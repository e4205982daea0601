"""Bad input and bad arguments: every error is an exception of a documented type with a
message (ParseError with line and column for bad text, TypeError/ValueError for bad
arguments, OSError for files), never a crash; the GIL is released while the core works."""
import json
import pathlib
import subprocess
import threading
import time

import pytest

import hlo_offload
from api_helpers import run_cli, split_summary


@pytest.mark.parametrize("text,line,column", [
    ("", 1, 1),
    ("HloModule m\n\nENTRY main {\n  p = f32[4]{0} parameter(0)\n  ROOT n = f32[4]{0} negat(p)\n}\n",
     5, 22),
    ("HloModule m\n\nENTRY main {\n  p = f32[4 parameter(0)\n}\n", 4, 13),
    ("\x00\x01garbage", 1, 1),
    ("HloModule m\n\nENTRY main {\n  ROOT n = f32[4]{0} negate(q)\n}\n", 4, 29),
])
def test_parse_error(cli, tmp_path, text, line, column):
    path = tmp_path / "bad.hlo"
    path.write_bytes(text.encode("utf-8"))
    status, _, err = run_cli(cli, "check", path)
    assert status == 2
    err, summary = split_summary(err)
    assert summary == "hlo-offload: 1 file checked: 1 error (HO0001), no warnings\n"
    for source in (path, text, text.encode("utf-8")):
        with pytest.raises(hlo_offload.ParseError) as info:
            hlo_offload.check(source, filename=str(path))
        e = info.value
        assert isinstance(e, ValueError)
        assert str(e) + "\n" == err
        assert e.path == str(path)
        assert e.message and e.message in str(e)
        # The line and column are those the message starts with.
        assert str(e).startswith(f"{path}:{e.line}:{e.column}: error: ")
    assert (e.line, e.column) == (line, column), str(e)


def test_parse_error_in_fix_and_report():
    for fn in (hlo_offload.fix, hlo_offload.report):
        with pytest.raises(hlo_offload.ParseError):
            fn("HloModule m\nENTRY {")


@pytest.mark.parametrize("source", [None, 42, 1.5, ["HloModule m"], {"a": 1}, object()])
def test_bad_source_type(source):
    with pytest.raises(TypeError) as info:
        hlo_offload.check(source)
    assert "source" in str(info.value) or "jit" in str(info.value)


def test_text_that_is_not_utf8():
    # A str with a lone surrogate has no UTF-8 form. It raised UnicodeEncodeError; it is a
    # ParseError located at the surrogate, whose message can itself be printed.
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check("HloModule m\ud800\n")
    e = info.value
    assert (e.path, e.line, e.column) == ("<string>", 1, 12)
    assert "lone surrogate, U+D800" in e.message
    assert str(e).startswith("<string>:1:12: error: the text holds a lone surrogate")
    assert str(e).split("\n")[1:] == ["HloModule m\ufffd", " " * 11 + "^"]
    str(e).encode("utf-8")
    for fn in (hlo_offload.fix, hlo_offload.report):
        with pytest.raises(hlo_offload.ParseError) as info:
            fn("HloModule m\nENTRY e {\n  p = f32[4]{0} parameter(0) \udcff\n}\n",
               filename="m.hlo")
        assert (info.value.path, info.value.line, info.value.column) == ("m.hlo", 3, 30)
    # Bytes that are not UTF-8 are read as the command line reads them: a parse error
    # here, at the byte.
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(b"HloModule m\n\xff\xfe ENTRY {")
    assert info.value.line == 2


def test_example_arguments_with_text(clean_text):
    with pytest.raises(TypeError, match="example arguments"):
        hlo_offload.check(clean_text, 1, 2)
    with pytest.raises(TypeError, match="example arguments"):
        hlo_offload.check(clean_text, x=1)


@pytest.mark.parametrize("kwargs,error", [
    ({"lints": "yes"}, TypeError),
    ({"lints": 1}, TypeError),
    ({"pinned_host_budget": -1}, ValueError),
    ({"pinned_host_budget": "lots"}, ValueError),
    ({"pinned_host_budget": ""}, ValueError),
    ({"pinned_host_budget": 1 << 63}, ValueError),
    ({"pinned_host_budget": 1.5}, TypeError),
    ({"pinned_host_budget": True}, TypeError),
    ({"platform": 3}, TypeError),
    ({"filename": 3}, TypeError),
    ({"split_input_file": None}, TypeError),
    ({"xla_flags": ["x"]}, TypeError),
    ({"xla_flags": {"no_such_flag": True}}, ValueError),
    ({"xla_flags": {"xla_disable_automatic_host_compute_offload": "on"}}, TypeError),
    ({"pipeline": "gpu"}, ValueError),
    ({"pipeline": None}, TypeError),
])
def test_bad_check_arguments(clean_text, kwargs, error):
    with pytest.raises(error):
        hlo_offload.check(clean_text, **kwargs)


@pytest.mark.parametrize("max_nodes", [0, (1 << 30) + 1])
def test_max_nodes_the_command_line_refuses(clean_text, cli, tmp_path, max_nodes):
    # report(max_nodes=0) was taken (and drawn as 1) where `report --max-nodes=0` exits
    # with status 2 (the program's range, 1 to 2^30: src/tool/driver.cc).
    hlo = tmp_path / "m.hlo"
    hlo.write_text(clean_text)
    proc = subprocess.run([cli, "report", f"--max-nodes={max_nodes}", str(hlo)],
                          capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert f"--max-nodes: Value {max_nodes} not in range 1 to 1073741824" in \
        proc.stderr.decode()
    with pytest.raises(ValueError, match="from 1 to 1073741824"):
        hlo_offload.report(clean_text, max_nodes=max_nodes)


def test_max_nodes_the_command_line_takes(clean_text, cli, tmp_path):
    hlo = tmp_path / "m.hlo"
    hlo.write_text(clean_text)
    for n in (1, 1 << 30):
        proc = subprocess.run([cli, "report", "--format=json", f"--max-nodes={n}", str(hlo)],
                              capture_output=True, timeout=60)
        assert proc.returncode == 0
        assert hlo_offload.report(hlo, max_nodes=n).to_json() == json.loads(proc.stdout)


def test_bad_fix_and_report_arguments(clean_text):
    with pytest.raises(ValueError, match="strategy"):
        hlo_offload.fix(clean_text, strategy="somewhere")
    with pytest.raises(TypeError):
        hlo_offload.fix(clean_text, strategy=None)
    with pytest.raises(ValueError):
        hlo_offload.report(clean_text, max_nodes=-1)
    with pytest.raises(TypeError):
        hlo_offload.report(clean_text, max_nodes="9")
    with pytest.raises(ValueError, match="unknown diagnostic code"):
        hlo_offload.explain("E9999x")
    with pytest.raises(TypeError):
        hlo_offload.explain(1200)


def test_files(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        hlo_offload.check(tmp_path / "missing.hlo")
    assert "missing.hlo" in str(info.value)
    with pytest.raises(IsADirectoryError):
        hlo_offload.check(tmp_path)
    unreadable = tmp_path / "locked.hlo"
    unreadable.write_text("HloModule m\n")
    unreadable.chmod(0)
    try:
        import os
        if os.geteuid() != 0:  # root reads it anyway
            with pytest.raises(OSError):
                hlo_offload.check(unreadable)
    finally:
        unreadable.chmod(0o644)


def test_file_name_as_text(tmp_path, clean_text):
    path = tmp_path / "m.hlo"
    path.write_text(clean_text)
    with pytest.raises(TypeError, match="pathlib.Path"):
        hlo_offload.check(str(path))


def test_path_named_dash(tmp_path, monkeypatch, clean_text):
    # pathlib.Path("-") is a file named "-", never standard input.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError):
        hlo_offload.check(pathlib.Path("-"))
    (tmp_path / "-").write_text(clean_text)
    assert hlo_offload.check(pathlib.Path("-")).modules == ["clean"]


def test_fix_cannot_fix():
    # An error other than E1200 stands in the way: the parameter's shape disagrees
    # with the entry computation layout... (HO9xxx / lint errors are not fixable).
    text = ("HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\n"
            "ENTRY main {\n  p = f32[4]{0} parameter(0)\n"
            "  h = f32[4]{0} custom-call(p), custom_call_target=\"MoveToHost\"\n"
            "  ROOT s = f32[4]{0} sine(h)\n}\n")
    result = hlo_offload.check(text, xla_flags={"xla_disable_automatic_host_compute_offload": True})
    assert not result.ok
    with pytest.raises(hlo_offload.FixError) as info:
        hlo_offload.fix(text, xla_flags={"xla_disable_automatic_host_compute_offload": True})
    assert isinstance(info.value, ValueError)
    assert info.value.result.errors
    assert info.value.result.errors[0].code in str(info.value)


def _big_module(n: int) -> str:
    lines = ["HloModule big, entry_computation_layout={(f32[16]{0})->f32[16]{0}}", "",
             "ENTRY main {", "  v0 = f32[16]{0} parameter(0)"]
    for i in range(1, n):
        lines.append(f"  v{i} = f32[16]{{0}} negate(v{i - 1})")
    lines.append(f"  ROOT r = f32[16]{{0}} negate(v{n - 1})")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_gil_released():
    """While one thread checks a large module, another runs Python code."""
    text = _big_module(300_000).encode()
    t0 = time.perf_counter()
    hlo_offload.check(text)
    alone = time.perf_counter() - t0
    ticks = 0
    done = threading.Event()

    def worker():
        hlo_offload.check(text)
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    start = time.perf_counter()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    elapsed = time.perf_counter() - start
    # With the GIL held through the check, the loop would not run during it at all.
    assert alone > 0.05, alone
    assert ticks >= max(5, int(elapsed * 1000 * 0.2)), (ticks, elapsed)


def test_threads_agree(e1200_text):
    """Checks on several threads at once give each the same result."""
    expected = str(hlo_offload.check(e1200_text))
    results = [None] * 8

    def work(i):
        results[i] = str(hlo_offload.check(e1200_text))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 8
