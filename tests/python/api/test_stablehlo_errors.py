"""StableHLO inputs that do not parse, from a newcomer's run of the package: a parse
error is a located HO0001 diagnostic, in the JSON too, as an HLO parse error is; a text
with `// -----` markers is refused with what to do; lone surrogates are a ParseError."""
import json
import subprocess
import sys

import pytest

import hlo_offload

pytest.importorskip("jax", reason="StableHLO text needs jax (pip install '.[jax]')")

# `stablehlo.bogus` is no operation: MLIR refuses it at line 3, column 10 (where the op's
# name starts), as jaxlib 0.10.2's parser said here.
BAD = """\
module @m {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.bogus %arg0
    return %0 : tensor<4xf32>
  }
}
"""

GOOD = """\
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def _cli(*argv):
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", *map(str, argv)],
                          capture_output=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr.decode()


def test_parse_error_is_located_in_json_and_text(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD)
    status, out, err = _cli("check", "--format=json", bad)
    assert status == 2
    (entry,) = json.loads(out)["files"]
    assert entry["file"] == str(bad)
    (d,) = entry["diagnostics"]
    assert (d["code"], d["name"], d["severity"]) == ("HO0001", "ParseError", "error")
    assert d["location"] == {"line": 3, "column": 10}
    assert "stablehlo.bogus" in d["message"]
    # Beside an HLO file, in input order, like an HLO parse error.
    hlo = tmp_path / "bad.hlo"
    hlo.write_text("HloModule m\nENTRY e {\n  p = f32[4] parmeter(0)\n}\n")
    status, out, _ = _cli("check", "--format=json", hlo, bad)
    assert status == 2
    files = json.loads(out)["files"]
    assert [f["file"] for f in files] == [str(hlo), str(bad)]
    assert [f["diagnostics"][0]["code"] for f in files] == ["HO0001", "HO0001"]
    # Text: the parser's form, the StableHLO line and a caret under column 10.
    status, _, err = _cli("check", bad)
    assert status == 2
    first, line, caret = err.splitlines()[:3]
    assert first.startswith(f"{bad}:3:10: error: not a StableHLO module jaxlib can parse: ")
    assert line == "    %0 = stablehlo.bogus %arg0"
    assert caret == " " * 9 + "^"
    status, out, _ = _cli("check", "--format=sarif", bad)
    assert status == 2
    (res,) = json.loads(out)["runs"][0]["results"]
    assert res["ruleId"] == "HO0001"
    # The API: a ParseError at the same place.
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(BAD)
    assert (info.value.line, info.value.column) == (3, 10)
    assert str(info.value).startswith("<string>:3:10: error: ")
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(bad)
    assert info.value.path == str(bad)


def test_split_input_file_on_stablehlo_is_refused_with_what_to_do(tmp_path):
    two = tmp_path / "two.mlir"
    two.write_text(GOOD + "// -----\n" + GOOD)
    marker = GOOD.count("\n") + 1
    status, out, err = _cli("check", "--split-input-file", two)
    assert status == 2 and out == b""
    assert err.startswith(f"hlo-offload: error: {two}:{marker}: ")
    assert "--split-input-file) is not supported for StableHLO text" in err
    assert "in a file of its own" in err
    with pytest.raises(ValueError, match="not supported for StableHLO text"):
        hlo_offload.check(GOOD + "// -----\n" + GOOD, split_input_file=True)
    # Without the flag MLIR's complaint (a symbol defined twice) says why as well.
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(two)
    assert f"line {marker} is a `// -----` marker" in info.value.message
    # One module and the flag: nothing to split, checked as before.
    one = tmp_path / "one.mlir"
    one.write_text(GOOD)
    assert _cli("check", "--split-input-file", one)[0] == 0
    assert hlo_offload.check(GOOD, split_input_file=True).ok


def test_lone_surrogate_in_stablehlo_text():
    text = GOOD.replace('"result"', '"result\ud800"')
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(text)
    e = info.value
    assert (e.line, e.column) == (2, 1 + GOOD.split("\n")[1].index('"result"') + 7)
    assert "U+D800" in e.message
    str(e).encode("utf-8")  # printable
    # Bytes that are not UTF-8 (a StableHLO file is read as UTF-8).
    with pytest.raises(hlo_offload.ParseError) as info:
        hlo_offload.check(GOOD.encode().replace(b"@main", b"@m\xffin"))
    assert info.value.line == 2 and "0xff" in info.value.message


def test_max_nodes_of_a_stablehlo_file_as_the_program_takes_it(tmp_path, cli):
    # The .mlir run took --max-nodes=0, which the program refuses for an HLO file.
    one = tmp_path / "one.mlir"
    one.write_text(GOOD)
    hlo = tmp_path / "one.hlo"
    hlo.write_text(hlo_offload.check(one).hlo_text)
    for n in (0, (1 << 30) + 1):
        program = subprocess.run([cli, "report", f"--max-nodes={n}", str(hlo)],
                                 capture_output=True, timeout=60)
        status, out, err = _cli("report", f"--max-nodes={n}", one)
        assert (status, out, err) == (2, b"", program.stderr.decode())
    assert _cli("report", "--max-nodes=1", one)[0] == 0
