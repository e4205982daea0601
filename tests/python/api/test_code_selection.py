"""ignore= and select= on check, fix and report: the command line's --disable and
--enable (docs/CLI.md, "Lint options"). What is dropped is gone from the text, the
diagnostics, the JSON and the verdict, exactly as from the command line's output; codes that
are unknown or cannot be disabled are a ValueError."""
import json
import pathlib
import subprocess
import sys

import pytest

import hlo_offload
from api_helpers import REPO, run_cli

# Three modules: HO2001, HO3001 and the error-level lint HO3002 in the first, the note
# HO3014 in the second, E1200 in the third.
MODULES = """\
HloModule gather_host_table, entry_computation_layout={(f32[1024,64]{1,0:S(5)}, s32[16,1]{1,0})->f32[16,64]{1,0}}

ENTRY main {
  table = f32[1024,64]{1,0} parameter(0)
  ids = s32[16,1]{1,0} parameter(1)
  rows = f32[16,64]{1,0} gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}
  ROOT d = f32[16,64]{1,0} custom-call(rows), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
}

// -----
HloModule round_trip, entry_computation_layout={(f32[256]{0})->f32[256]{0}}

ENTRY main {
  x = f32[256]{0} parameter(0)
  h = f32[256]{0} custom-call(x), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  d = f32[256]{0} custom-call(h), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="device"}
  ROOT y = f32[256]{0} tanh(d)
}

// -----
HloModule returned_in_device_memory, entry_computation_layout={(f32[256]{0})->(f32[256]{0}, f32[256]{0})}

ENTRY main {
  x = f32[256]{0} parameter(0)
  t = f32[256]{0} tanh(x)
  h = f32[256]{0} custom-call(t), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT r = (f32[256]{0}, f32[256]{0}) tuple(t, h)
}
"""
GATHER = MODULES.split("// -----")[0]


def _codes(result):
    return [d.code for d in result.diagnostics]


def test_default_reports_every_code():
    result = hlo_offload.check(MODULES, split_input_file=True)
    assert _codes(result) == ["HO2001", "HO3001", "HO3002", "HO3014", "E1200"]


@pytest.mark.parametrize("kwargs,flags,codes", [
    ({"ignore": ["HO3002", "ho2001"]}, ["--disable=HO3002,ho2001"],
     ["HO3001", "HO3014", "E1200"]),
    ({"ignore": "HO3002,HO2001"}, ["--disable", "HO3002", "--disable", "HO2001"],
     ["HO3001", "HO3014", "E1200"]),
    ({"ignore": {"HO300"}}, ["--disable=HO300"], ["HO2001", "HO3014", "E1200"]),
    ({"select": ("HO3014",)}, ["--enable=HO3014"], ["HO3014", "E1200"]),
    ({"select": "HO3", "ignore": ["HO3014"]}, ["--enable=HO3", "--disable=HO3014"],
     ["HO3001", "HO3002", "E1200"]),
    ({"select": ["E1200"]}, ["--enable=E1200"], ["E1200"]),
    ({"ignore": [], "select": None}, [], ["HO2001", "HO3001", "HO3002", "HO3014", "E1200"]),
])
def test_same_as_command_line(cli, tmp_path, kwargs, flags, codes):
    path = tmp_path / "modules.hlo"
    path.write_text(MODULES)
    for source in (path, MODULES):
        result = hlo_offload.check(source, split_input_file=True, filename=str(path),
                                   **kwargs)
        assert _codes(result) == codes
        status, _, err = run_cli(cli, "check", "--split-input-file", *flags, path)
        assert (status, err) == (result.exit_status, str(result))
        status, out, _ = run_cli(cli, "check", "--split-input-file", "--format=json",
                                 *flags, path)
        assert result.to_json() == json.loads(out)


def test_an_ignored_error_lint_does_not_fail():
    assert not hlo_offload.check(GATHER).ok
    result = hlo_offload.check(GATHER, ignore=["HO3002"])
    assert result.ok and result.exit_status == 0
    assert not result.errors
    assert "HO3002" not in str(result)
    assert all(d["code"] != "HO3002"
               for f in result.to_json()["files"] for d in f["diagnostics"])
    # fix: HO3002 stands in the way unless ignored; then there is nothing to fix.
    with pytest.raises(hlo_offload.FixError):
        hlo_offload.fix(GATHER)
    fixed = hlo_offload.fix(GATHER, ignore="HO3002")
    assert not fixed.changed
    assert str(fixed) == GATHER


def test_report_checks_the_codes():
    assert "gather_host_table" in str(hlo_offload.report(GATHER, ignore=["HO3005"]))
    with pytest.raises(ValueError, match="unknown diagnostic code 'HO3999'"):
        hlo_offload.report(GATHER, select=["HO3999"])


@pytest.mark.parametrize("fn", [hlo_offload.check, hlo_offload.fix, hlo_offload.report])
def test_unknown_code_lists_the_valid_ones(fn):
    with pytest.raises(ValueError) as info:
        fn(GATHER, ignore=["HO3099"])
    message = str(info.value)
    assert message.startswith("ignore: unknown diagnostic code 'HO3099'")
    assert "HO2001, HO2002, HO2003, HO3001" in message
    with pytest.raises(ValueError, match="^select: unknown diagnostic code 'bogus'"):
        fn(GATHER, select="bogus")


@pytest.mark.parametrize("code", ["E1200", "1200", "HO1001", "HO0001", "HO9002", "HO"])
def test_errors_xla_raises_cannot_be_ignored(code):
    with pytest.raises(ValueError, match="cannot be disabled") as info:
        hlo_offload.check(GATHER, ignore=[code])
    assert "always reported" in str(info.value)


@pytest.mark.parametrize("value", [42, [3005], b"HO3005", {"HO3005": True}, ["HO3005", None]])
def test_wrong_types(value):
    with pytest.raises(TypeError, match="ignore"):
        hlo_offload.check(GATHER, ignore=value)
    with pytest.raises(TypeError, match="select"):
        hlo_offload.check(GATHER, select=value)


def test_a_list_of_no_code_is_refused():
    with pytest.raises(ValueError, match="names no diagnostic code"):
        hlo_offload.check(GATHER, ignore=[","])


def test_command_line_usage_errors(cli, tmp_path):
    path = tmp_path / "gather.hlo"
    path.write_text(GATHER)
    status, _, err = run_cli(cli, "check", "--disable=HO3099", path)
    assert status == 2
    assert err.startswith("hlo-offload: error: --disable: unknown diagnostic code 'HO3099'")
    status, _, err = run_cli(cli, "check", "--disable=E1200", path)
    assert status == 2 and "E1200 cannot be disabled" in err
    status, _, err = run_cli(cli, "check", "--disable=HO3002", path)
    assert status == 0 and "HO3002" not in err


def test_stablehlo_files(tmp_path):
    # A .mlir file runs in Python (python -m hlo_offload): the options and their usage
    # errors are the program's.
    pytest.importorskip("jax", reason="StableHLO files need jax (pip install '.[jax]')")
    from test_cli import STABLEHLO
    path = tmp_path / "step.mlir"
    path.write_text(STABLEHLO)

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "hlo_offload", *args],
                              capture_output=True, timeout=300)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    status, out, _ = run("check", "--format=json", "--enable=HO3014", str(path))
    assert json.loads(out) == hlo_offload.check(path, select=["HO3014"]).to_json()
    codes = [d["code"] for f in json.loads(out)["files"] for d in f["diagnostics"]]
    assert set(codes) <= {"HO3014", "E1200"} and "E1200" in codes
    status, _, err = run("check", "--disable=HO3099", str(path))
    assert status == 2
    assert err.startswith("hlo-offload: error: --disable: unknown diagnostic code 'HO3099'")
    status, _, err = run("check", "--disable=E1200", str(path))
    assert status == 2 and "E1200 cannot be disabled" in err


BACKEND_CASE = REPO / "tests" / "lit" / "backend" / "ho1014-unpinned-host-gpu.hlo"


@pytest.mark.parametrize("backend", ["gpu", "cuda", "tpu", "any"])
def test_backend_is_the_command_lines(cli, backend):
    """check(backend=) is `--backend`: the same diagnostics and exit status (HO1014 is an
    error of the GPU's compiler only)."""
    result = hlo_offload.check(pathlib.Path(BACKEND_CASE), backend=backend)
    status, out, _ = run_cli(cli, "check", f"--backend={backend}", "--format=json",
                             BACKEND_CASE)
    assert result.to_json() == json.loads(out)
    assert result.exit_status == status
    assert ("HO1014" in [d.code for d in result.errors]) == (backend in ("gpu", "cuda"))


def test_backend_refused():
    with pytest.raises(ValueError, match="unknown backend 'cpu'"):
        hlo_offload.check(pathlib.Path(BACKEND_CASE), backend="cpu")
    with pytest.raises(TypeError, match="backend must be a str"):
        hlo_offload.check(pathlib.Path(BACKEND_CASE), backend=1)
