"""Never a silent pass: a JAX program lowered for the CPU, whose offload annotations JAX
dropped, is an error (HO0002, docs/errors/HO0002.md) as a `Lowered` or text said to be the
CPU's, and a warning as StableHLO text or a `.mlir` file that does not say its platform. Everything here is lowered by jax 0.10.2 on this
CPU-only machine: `jax.jit(f).lower(x)` is a lowering for the CPU, and the same program
lowered with `lowering_platforms=("tpu",)` keeps its `annotate_device_placement` (the
device_put lowering that writes it is registered for 'tpu' and 'gpu' only:
`_tpu_gpu_device_put_lowering` in jax/_src/dispatch.py)."""
import json
import subprocess
import sys

import pytest

import hlo_offload
from api_helpers import device_argument

jax = pytest.importorskip("jax", reason="the JAX front end needs jax (pip install '.[jax]')")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def env():
    return device_argument((8, 128))


def _e1200_step(dev):
    """The README's fault: a value put in unpinned_host and returned with JAX's default
    memory kind ("device"): E1200 on the accelerator."""
    host = dev.with_memory_kind("unpinned_host")

    def step(x):
        return jax.device_put(x * 2.0, host), x + 1.0
    return jax.jit(step)


def test_cpu_lowered_is_an_error_not_a_pass(env):
    dev, x = env
    f = _e1200_step(dev)
    assert [d.code for d in hlo_offload.check(f, x).errors] == ["E1200"]
    lowered = f.lower(x)   # made for the CPU here
    text = lowered.as_text()
    assert "annotate_device_placement" not in text   # what JAX dropped
    result = hlo_offload.check(lowered)
    assert not result.ok and result.exit_status == 1
    d = result.diagnostics[0]
    assert (d.code, d.name, d.severity) == ("HO0002", "InputLoweredForCpu", "error")
    assert [e.code for e in result.errors] == ["HO0002"]
    assert "made for the CPU" in d.message
    how = " ".join(n.message for n in d.notes)
    assert "hlo_offload.check(jax.jit(f), *args)" in how
    assert 'lower(lowering_platforms=("tpu",))' in how
    assert str(result).startswith("<jit_step>: error: HO0002: InputLoweredForCpu: ")
    assert "run `hlo-offload explain HO0002`" in str(result)
    doc = result.to_json()
    entry = doc["files"][0]["diagnostics"][0]
    assert entry == d.to_json() and entry["code"] == "HO0002"
    assert list(entry) == sorted(entry)   # as the core's entries
    assert "1 error" in repr(result)


def test_cpu_lowered_fix_and_report(env):
    dev, x = env
    lowered = _e1200_step(dev).lower(x)
    with pytest.raises(hlo_offload.FixError, match="HO0002") as e:
        hlo_offload.fix(lowered)
    assert e.value.result.errors[0].code == "HO0002"
    rep = hlo_offload.report(lowered)
    assert any(n.startswith("HO0002: ") for n in rep.notes)


def test_cpu_lowered_without_memory_kinds_is_fine(env):
    """Nothing to drop: JAX writes no mhlo.memory_kind when every memory kind is the
    default one, and the CPU's module is then the TPU's (checked here)."""
    _, x = env
    f = jax.jit(lambda x: jnp.sin(x) * 2.0)
    lowered = f.lower(x)
    assert "mhlo.memory_kind" not in lowered.as_text()
    assert lowered.as_text() == f.trace(x).lower(lowering_platforms=("tpu",)).as_text()
    for source in (lowered, lowered.as_text()):
        result = hlo_offload.check(source)
        assert result.ok and result.diagnostics == [] and result.notes == []


def test_platform_cpu_asked_for_is_a_note(env):
    """platform="cpu" on a jitted function is the caller's own choice: a note, as before."""
    dev, x = env
    result = hlo_offload.check(_e1200_step(dev), x, platform="cpu")
    assert result.ok and result.notes and "cpu" in result.notes[0]


def test_stablehlo_text_of_a_cpu_lowering(env):
    """Text does not say its platform: a CPU lowering of a program that had device_puts
    reads like any lowering of a program that has none (and whose check is exact), so
    HO0002 is a warning there and the module is checked as it is."""
    dev, x = env
    f = _e1200_step(dev)
    cpu_text = f.lower(x).as_text()
    tpu_text = f.trace(x).lower(lowering_platforms=("tpu",)).as_text()
    result = hlo_offload.check(cpu_text)
    assert result.ok and result.errors == []
    d = result.diagnostics[0]
    assert (d.code, d.severity) == ("HO0002", "warning")
    assert "does not say which platform" in d.message
    assert any("platform=\"tpu\"" in n.message for n in d.notes)
    assert str(result).startswith("<string>: warning: HO0002: InputLoweredForCpu: ")
    assert "1 warning" in repr(result)
    # Said to be a TPU lowering: believed, and no warning (it is clean, the annotations
    # being gone).
    said_tpu = hlo_offload.check(cpu_text, platform="tpu")
    assert said_tpu.ok and "HO0002" not in [d.code for d in said_tpu.diagnostics]
    # Said to be a CPU lowering: an error, with the Lowered's words.
    said = hlo_offload.check(cpu_text, platform="cpu")
    assert said.errors[0].code == "HO0002" and "made for the CPU" in said.errors[0].message
    # The TPU lowering has the device_put's annotation: no HO0002, the real E1200.
    tpu = hlo_offload.check(tpu_text)
    assert [e.code for e in tpu.errors] == ["E1200"]
    assert "HO0002" not in [d.code for d in tpu.diagnostics]


def test_text_whose_only_annotations_a_cpu_lowering_also_writes(env):
    """out_shardings' annotation on a result is written for every platform
    (mlir.py lower_jaxpr_to_fun, wrap_with_memory_kind): with the device_put's gone, a CPU
    lowering keeps it, and its text still gets the HO0002 warning; the TPU text has the
    device_put's annotation (after its sharding constraint) and does not."""
    dev, x = env
    host = dev.with_memory_kind("pinned_host")
    f = jax.jit(lambda x: jax.device_put(x * 2.0, host), out_shardings=host)
    cpu_text = f.lower(x).as_text()
    tpu_text = f.trace(x).lower(lowering_platforms=("tpu",)).as_text()
    assert cpu_text.count("annotate_device_placement") == 1
    assert tpu_text.count("annotate_device_placement") == 2
    assert [(d.code, d.severity) for d in hlo_offload.check(cpu_text).diagnostics] == [
        ("HO0002", "warning")]
    assert hlo_offload.check(tpu_text).diagnostics == []


def _cli(*argv):
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", *map(str, argv)],
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def test_command_line_mlir_of_a_cpu_lowering(env, tmp_path):
    dev, x = env
    f = _e1200_step(dev)
    cpu = tmp_path / "cpu.mlir"
    cpu.write_text(f.lower(x).as_text())
    tpu = tmp_path / "tpu.mlir"
    tpu.write_text(f.trace(x).lower(lowering_platforms=("tpu",)).as_text())
    status, _, err = _cli("check", cpu)
    assert status == 0
    assert f"{cpu}: warning: HO0002: InputLoweredForCpu: " in err
    assert "1 warning (HO0002)" in err
    status, out, _ = _cli("check", "--format=json", cpu, tpu)
    assert status == 1
    files = json.loads(out)["files"]
    assert [[d["code"] for d in f["diagnostics"]] for f in files] == [["HO0002"], ["E1200"]]
    assert files[0]["diagnostics"][0]["severity"] == "warning"
    status, out, _ = _cli("check", "--format=sarif", cpu)
    assert status == 0
    results = json.loads(out)["runs"][0]["results"]
    assert results[0]["ruleId"] == "HO0002" and results[0]["level"] == "warning"
    # Said to be the CPU's, it is an error, and nothing is written for it.
    status, _, err = _cli("check", "--platform=cpu", cpu)
    assert status == 1 and f"{cpu}: error: HO0002: InputLoweredForCpu: " in err
    # --platform says what the file was lowered for.
    status, _, err = _cli("check", "--platform=tpu", cpu)
    assert status == 0 and "HO0002" not in err
    assert _cli("check", "--platform=tpu", tpu)[0] == 1
    status, _, err = _cli("check", "--platform=xpu", cpu)
    assert status == 2 and "unknown platform" in err
    # Nothing is written for a CPU lowering.
    out_file = tmp_path / "out.hlo"
    status, _, err = _cli("opt", "--platform=cpu", "-o", out_file, cpu)
    assert status == 1 and "HO0002" in err and not out_file.exists()
