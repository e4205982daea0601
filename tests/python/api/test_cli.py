"""`python -m hlo_offload` and the `hlo-offload` console command: the package's command
line, byte for byte, plus StableHLO files (with jax) whose JSON names outputs by their
pytree paths."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import hlo_offload
from api_helpers import run_cli


def _run(cmd, stdin=None):
    proc = subprocess.run(cmd, input=stdin, capture_output=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def _run_program(cli, argv, stdin=None):
    """The package's program as the console command runs it: named hlo-offload, with the
    installed libtpu and CUDA plugin as its default --xla-version ($HLO_OFFLOAD_XLA_VERSION,
    which the console command sets)."""
    from hlo_offload import _xla
    env = dict(os.environ, HLO_OFFLOAD_XLA_VERSION=_xla.installed_xla_version())
    proc = subprocess.run(["hlo-offload", *argv], executable=cli, input=stdin,
                          capture_output=True, timeout=300, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def _console() -> str:
    # The console command is installed beside the interpreter (a venv's or the
    # installation's bin/), else on PATH.
    here = pathlib.Path(sys.executable).parent / "hlo-offload"
    found = str(here) if here.is_file() else shutil.which("hlo-offload")
    if found is None:
        pytest.fail("the hlo-offload console command is not installed")
    return found


ARGS = [
    ["check", "{hlo}"],
    ["check", "--format=json", "{hlo}"],
    ["check", "--format=xla", "{hlo}"],
    ["check", "--format=sarif", "{hlo}"],
    ["check", "--no-lints", "--trace", "{hlo}"],
    ["fix", "--strategy=host-output", "{hlo}"],
    ["report", "--format=json", "{hlo}"],
    ["fmt", "{hlo}"],
    ["explain", "E1200"],
    ["--version"],
    ["--list-passes"],
    ["chek", "{hlo}"],
    ["check"],
]


@pytest.mark.parametrize("args", ARGS, ids=[" ".join(a) or "(none)" for a in ARGS])
def test_same_as_executable(tmp_path, cli, e1200_text, args):
    hlo = tmp_path / "step.hlo"
    hlo.write_text(e1200_text)
    argv = [a.replace("{hlo}", str(hlo)) for a in args]
    expected = _run_program(cli, argv)
    assert _run([sys.executable, "-m", "hlo_offload", *argv]) == expected
    assert _run([_console(), *argv]) == expected


def test_usage_is_the_executables_then_the_console_commands_own(cli):
    """Without a subcommand: the program's usage (exit 2), then what the console command
    adds (install-xla, .mlir FILEs)."""
    status, out, err = _run_program(cli, [])
    for got in (_run([sys.executable, "-m", "hlo_offload"]), _run([_console()])):
        assert got[0] == status == 2 and got[1] == out
        assert got[2].startswith(err.rstrip(b"\n")) and b"install-xla [tpu|cuda]" in got[2]


def test_stdin(cli, e1200_text):
    expected = _run_program(cli, ["check", "-"], stdin=e1200_text.encode())
    assert expected[0] == 1
    assert _run([_console(), "check", "-"], stdin=e1200_text.encode()) == expected


# StableHLO as `jax.jit(step).lower(...).as_text()` prints it for TPU, with one change:
# the result that JAX declared in pinned_host memory (it follows the device_put) is
# declared in device memory, as out_shardings with a device sharding declares it when
# JAX adds no transfer back. XLA raises E1200 for such a module.
STABLEHLO = """\
module @jit_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result['acts']['h']", mhlo.memory_kind = "device"}, tensor<f32> {jax.result_info = "result['loss']", mhlo.memory_kind = "device"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
    %2 = stablehlo.custom_call @annotate_device_placement(%1) {backend_config = "", has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
    return %2, %3 : tensor<4x4xf32>, tensor<f32>
  }
}
"""


@pytest.fixture
def mlir_file(tmp_path):
    pytest.importorskip("jax", reason="StableHLO files need jax (pip install '.[jax]')")
    path = tmp_path / "step.mlir"
    path.write_text(STABLEHLO)
    return path


def test_stablehlo_json_names_output(mlir_file):
    for cmd in ([sys.executable, "-m", "hlo_offload"], [_console()]):
        status, out, err = _run([*cmd, "check", "--format=json", str(mlir_file)])
        assert status == 1, err
        doc = json.loads(out)
        (entry,) = doc["files"]
        assert entry["file"] == str(mlir_file)
        (e1200,) = [d for d in entry["diagnostics"] if d["code"] == "E1200"]
        assert e1200["output_index"] == [0]
        assert e1200["output_path"] == "result['acts']['h']"


def test_stablehlo_text_and_api(mlir_file):
    status, _, err = _run([sys.executable, "-m", "hlo_offload", "check", str(mlir_file)])
    assert status == 1
    text = err.decode()
    assert "E1200" in text and "result['acts']['h']" in text
    for source in (mlir_file, STABLEHLO, STABLEHLO.encode()):
        result = hlo_offload.check(source, filename=str(mlir_file))
        (d,) = result.errors
        assert d.output_path == "result['acts']['h']"
        assert d.output_index == (0,)
        assert d.to_json()["output_path"] == "result['acts']['h']"
        assert result.hlo_text is not None and result.hlo_text.startswith("HloModule")
    # The API's JSON is the command line's for the same file.
    _, out, _ = _run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                      str(mlir_file)])
    assert hlo_offload.check(mlir_file).to_json() == json.loads(out)
    # fix: the memory kinds that compile, as the pytree the jax.result_info names
    # describe (what fix of the jitted function gives: tests/python/api/test_jax_text.py).
    fixed = hlo_offload.fix(mlir_file)
    assert fixed.fixed_output_paths == ["result['acts']['h']"]
    assert fixed.output_memory_kinds == {"acts": {"h": "pinned_host"}, "loss": "device"}
    assert not hlo_offload.check(fixed).errors


def test_stablehlo_fmt_and_usage(mlir_file, tmp_path):
    status, out, err = _run([sys.executable, "-m", "hlo_offload", "fmt", str(mlir_file)])
    assert status == 0, err
    assert out.startswith(b"HloModule jit_step")
    target = tmp_path / "out.hlo"
    status, out, err = _run([sys.executable, "-m", "hlo_offload", "fix",
                             "--strategy=host-output", "-o", str(target), str(mlir_file)])
    assert status == 0, err
    assert out == b""
    assert not hlo_offload.check(target).errors
    status, _, err = _run([sys.executable, "-m", "hlo_offload", "fix", "--in-place",
                           "--strategy=host-output", str(mlir_file)])
    assert status == 2 and b"--in-place" in err
    # HLO text under a .mlir name would be read back as StableHLO and refused.
    misnamed = tmp_path / "fixed.mlir"
    status, _, err = _run([sys.executable, "-m", "hlo_offload", "fix", "--strategy=host-output",
                           "-o", str(misnamed), str(mlir_file)])
    assert status == 2 and b"name it .hlo" in err and not misnamed.exists()
    status, _, err = _run([sys.executable, "-m", "hlo_offload", "check", "--format=dot",
                           str(mlir_file)])
    assert status == 2 and err.startswith(b"hlo-offload: error: ")
    bad = tmp_path / "bad.mlir"
    bad.write_text("module { this is not mlir")
    status, _, err = _run([sys.executable, "-m", "hlo_offload", "check", str(bad)])
    assert status == 2 and str(bad).encode() in err


def test_stablehlo_mixed_with_hlo(mlir_file, tmp_path, e1200_text, cli):
    hlo = tmp_path / "step.hlo"
    hlo.write_text(e1200_text)
    _, hlo_json, _ = _run([cli, "check", "--format=json", str(hlo)])
    status, out, _ = _run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                           str(hlo), str(mlir_file)])
    assert status == 1
    files = json.loads(out)["files"]
    assert files[0] == json.loads(hlo_json)["files"][0]
    assert files[1]["file"] == str(mlir_file)
