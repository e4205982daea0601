"""The MaxText suite: hlo-offload on the train steps MaxText 0.2.5 hands XLA, against
libtpu 0.0.52's verdicts (tests/maxtext/README.md).

Each config is a small dense model compiled by MaxText's compile-only trainer for v5e-1 or
v5e-8 with one host-offloading knob (remat offload policies, parameter and optimizer
offload, gradient accumulation, no scan) or none. The tests require

- the check of every module, from Python and from the console command, to agree with
  XLA's verdict (every config compiles) and its host-compute warnings (XLA converts
  nothing into host compute) instruction by instruction, with no HO3004 on MaxText's
  RNG-state inputs; a module of 8 partitions is checked partitioned where the installed
  jaxlib can run the partitioner on it (its named shardings need jaxlib 0.12), else as
  written with a note that says why and how to get the partitioned check;
- the mistakes made on top of them (tests/python/maxtext/maxtext_suite.py MISTAKES) to
  give XLA's error;
- XLA's memory analysis to be explained, figure by figure, from the per-device bytes of
  the report and XLA's compiled module (its entry layout and host buffers, stored);
- with libtpu installed, one module compiled again with check(xla="tpu") and
  report(xla="tpu") to give the same verdict and figures.
"""
import json
import os
import subprocess
import sys

import pytest

import hlo_offload
from hlo_offload import _xla

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import maxtext_suite as ms  # noqa: E402

SUITE = ms.suite()
CONFIGS = sorted(n for n, e in SUITE["configs"].items() if "xla" in e)
MISTAKES = sorted(ms.MISTAKES)


def _jaxlib_partitions_named_shardings() -> bool:
    """Whether the installed jaxlib's partitioner reads JAX 0.12's named shardings
    (`sharding={mesh[...], ...}`): jaxlib 0.10.2 aborts on them (UseNamedShardingLeaf)."""
    from importlib import metadata
    try:
        major, minor = (int(x) for x in metadata.version("jaxlib").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    return (major, minor) >= (0, 12)


def _check(name):
    text = ms.module_text(name)
    return text, hlo_offload.check(text, filename=f"{name}.hlo")


def _partition_note(result, n):
    return next((note for note in result.notes if f"has {n} partitions" in note), None)


@pytest.mark.parametrize("name", CONFIGS)
def test_verdict_and_warnings(name):
    """XLA compiles every config and converts nothing into host compute: no error, no
    HO2001, and no warning at all (the lints included: HO3004 on the RNG inputs was the
    one MaxText gave)."""
    stored = SUITE["configs"][name]["xla"]
    assert stored["ok"] and stored["host_compute"] == []
    text, result = _check(name)
    assert result.ok, str(result)
    host_compute = [d for d in result.diagnostics if d.code == "HO2001"]
    assert [d.message for d in host_compute] == []
    warnings = [f"{d.code}: {d.message}" for d in result.diagnostics
                if d.severity in ("error", "warning")]
    assert warnings == []
    assert not [d for d in result.diagnostics if d.code == "HO3004"]
    n = ms.partitions(text)
    if n == 1:
        assert _partition_note(result, 8) is None
        return
    note = _partition_note(result, n)
    assert note is not None, result.notes
    if _jaxlib_partitions_named_shardings():
        assert "checked as XLA's SPMD partitioner gives it" in note, note
        assert "Shardy's sharding propagation" in note, note
        assert result.hlo_text is not None  # the partitioned module
        assert not [d for d in result.diagnostics if d.code == "HO3017"]
    else:
        # jaxlib 0.10.2: the partitioner refuses the named shardings; the note says so
        # first, with how to get the partitioned check, and the module is checked as
        # written, without HO3017 (which would send the user to the same partitioner).
        assert note.startswith(f"the module has {n} partitions and this jaxlib ("), note
        assert "cannot partition its named shardings" in note and "jax>=0.12" in note
        assert not [d for d in result.diagnostics if d.code == "HO3017"]


@pytest.mark.parametrize("name", MISTAKES)
def test_mistake_gives_xla_error(name):
    stored = SUITE["mistakes"][name]
    assert not stored["ok"] and stored["code"] == "E1200", stored
    result = hlo_offload.check(ms.mistaken_text(name), filename=f"{name}.hlo")
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert [d.code for d in errors] == ["E1200"], str(result)
    assert errors[0].output_index == (24,)
    # The user's line survives the partitioner (the annotation's metadata goes with the
    # MoveToHost that replaces it): MaxText's jit of the train step.
    assert errors[0].source is not None and errors[0].source[0].endswith(
        "train_compile.py"), errors[0].source
    assert stored["error"][1].startswith(errors[0].message.split(" (starting from")[0])


def _stored_verdict(name) -> _xla.XlaVerdict:
    stored = SUITE["configs"][name]["xla"]
    return _xla.XlaVerdict(backend="tpu", topology=SUITE["configs"][name]["compile_topology"],
                           plugin=stored["plugin"], ok=True, memory=stored["memory"],
                           entry_layout=stored["entry_layout"],
                           host_buffers=stored["host_buffers"])


def _ours(report):
    data = report.to_json()
    return {k: data[k] for k in ("host_bytes_in", "host_bytes_out",
                                 "host_intermediate_bytes", "device_bytes_in",
                                 "device_bytes_out")}


@pytest.mark.parametrize("name", CONFIGS)
def test_memory_figures_explained(name):
    """XLA's memory analysis (MaxText's compile) beside the report's per-device bytes:
    every figure but device temp is XLA's compiled module's buffers with its layouts
    (explained == XLA's figure); without tiles they are ours, but for the host buffers
    XLA adds (copy-start destinations of its own host copies)."""
    text = ms.module_text(name)
    if ms.partitions(text) > 1 and not _jaxlib_partitions_named_shardings():
        pytest.skip("the report is per device only partitioned, which the named shardings "
                    "of JAX 0.12 need jaxlib >= 0.12 for")
    report = hlo_offload.report(text, filename=f"{name}.hlo")
    figures = _xla.memory_figures(_stored_verdict(name), _ours(report))
    by_label = {f.label: f for f in figures}
    assert set(by_label) == {"host arguments", "host outputs", "host temp",
                             "device arguments", "device outputs", "device temp"}
    for f in figures:
        if f.label == "device temp":
            assert f.ours is None and f.explained is None
            continue
        assert f.explained == f.xla, (f.label, f.xla, f.explained, f.why)
        assert "against ours" not in f.why or f.label == "host temp", (f.label, f.why)
    temp = by_label["host temp"]
    added = sum(_xla._space_bytes(b["shape"], 5, False)
                for b in SUITE["configs"][name]["xla"]["host_buffers"]
                if not b["returned"] and b["opcode"] == "kCopyStart")
    allocated = sum(_xla._space_bytes(b["shape"], 5, False)
                    for b in SUITE["configs"][name]["xla"]["host_buffers"]
                    if not b["returned"] and b["opcode"] != "kCopyStart")
    if "scan_layers=False" in SUITE["configs"][name]["knobs"]:
        # Without a scan each layer's residual is its own copy into host memory.
        assert added == temp.ours, (added, temp.ours)
    else:
        assert allocated == temp.ours, (allocated, temp.ours, temp.why)


def _libtpu_0052_missing():
    """Why the live tests cannot compile here, with how to install what they need, or None:
    they need libtpu 0.0.52, the XLA whose verdicts the suite stores, which goes with jax
    0.12 (README, 'Supported JAX and XLA versions')."""
    have = _xla.installed_versions().get("libtpu", "") if _xla.installed("tpu") else ""
    if have.startswith("0.0.52"):
        return None
    found = "libtpu %s is installed" % have if have else "libtpu is not installed"
    if _jaxlib_partitions_named_shardings():
        return "needs libtpu 0.0.52 (the suite's XLA); %s: %s -m pip install --no-deps " \
            "--target %s libtpu==0.0.52" % (found, sys.executable, _xla.pkg_dir("tpu"))
    return "needs libtpu 0.0.52 (the suite's XLA), which goes with jax 0.12, which this " \
        "environment does not have: in the Python 3.13 environment, with " \
        "HLO_OFFLOAD_XLA_PKGS set to a folder of its own, python -m pip install --no-deps " \
        "--target $HLO_OFFLOAD_XLA_PKGS/tpu libtpu==0.0.52 (README, 'Supported JAX and XLA " \
        "versions')"


LIVE_XLA_MISSING = _libtpu_0052_missing()


@pytest.mark.skipif(LIVE_XLA_MISSING is not None, reason=str(LIVE_XLA_MISSING))
def test_live_check_and_report_with_xla():
    name = "a_minimal_offloaded_8"
    text = ms.module_text(name)
    result = hlo_offload.check(text, filename=f"{name}.hlo", xla="tpu")
    assert result.xla.ok and result.xla_agrees, result.xla_text()
    stored = SUITE["configs"][name]["xla"]
    rows = {f.label: f for f in result.xla_memory}
    for label, key in (("host temp", "host_temp_size_in_bytes"),
                       ("device arguments", "argument_size_in_bytes"),
                       ("host arguments", "host_argument_size_in_bytes")):
        assert rows[label].xla == stored["memory"][key]
        assert rows[label].explained == rows[label].xla
    assert "memory per device, XLA's memory analysis | hlo-offload" in str(result)
    report = hlo_offload.report(text, filename=f"{name}.hlo", xla="tpu")
    assert report.xla.ok
    assert "host temp" in str(report) and "TPU tile padding" in str(report)
    figures = report.to_json()["xla"]["memory_figures"]
    assert {f["label"]: f["xla"] for f in figures}["host temp"] == \
        stored["memory"]["host_temp_size_in_bytes"]


@pytest.mark.parametrize("name", ["a_minimal_offloaded_8", "e_opt_host_offload_1"])
def test_console_command_agrees_with_check(tmp_path, name):
    """`python -m hlo_offload check FILE` (the console command) checks a MaxText dump as
    check() does: the same diagnostics and notes, partitioned alike."""
    path = tmp_path / f"{name}.hlo"
    path.write_text(ms.module_text(name))
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                           str(path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    result = hlo_offload.check(path)
    assert [d["code"] for f in doc["files"] for d in f["diagnostics"]] == \
        [d.code for d in result.diagnostics]
    text = subprocess.run([sys.executable, "-m", "hlo_offload", "check", str(path)],
                          capture_output=True, text=True, timeout=600).stderr
    for note in result.notes:
        head = note.split(" in ")[0][:60]
        assert head in text, (head, text[:2000])


def _console(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "hlo_offload", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_console_no_partition_is_the_cpp_command_line(tmp_path):
    """--no-partition: the module as written, as one partition, as the C++ command line
    checks it (HO3017 says so); an option of check and report only."""
    path = tmp_path / "a_minimal_offloaded_8.hlo"
    path.write_text(ms.module_text("a_minimal_offloaded_8"))
    ours = _console("check", "--no-partition", path)
    cpp = subprocess.run([hlo_offload.executable(), "check", str(path)],
                         capture_output=True, text=True, timeout=600)
    assert (ours.returncode, ours.stderr) == (cpp.returncode, cpp.stderr)
    assert "HO3017" in ours.stderr
    assert hlo_offload.check(path, partition=False).to_json() == json.loads(
        _console("check", "--no-partition", "--format=json", path).stdout)
    bad = _console("fix", "--no-partition", path)
    assert bad.returncode == 2 and "--no-partition is an option of check and report" in \
        bad.stderr


def test_console_report_is_per_device_as_report(tmp_path):
    name = "e_opt_host_offload_8"
    path = tmp_path / f"{name}.hlo"
    path.write_text(ms.module_text(name))
    proc = _console("report", "--format=json", path)
    assert proc.returncode == 0, proc.stderr
    rep = hlo_offload.report(path)
    assert json.loads(proc.stdout) == rep.to_json()
    if _jaxlib_partitions_named_shardings():
        # Per device: an eighth of the optimizer state the module as written keeps on host.
        written = hlo_offload.report(path, partition=False).to_json()
        assert 0 < rep.to_json()["host_bytes_in"] < written["host_bytes_in"]


@pytest.mark.skipif(LIVE_XLA_MISSING is not None, reason=str(LIVE_XLA_MISSING))
def test_console_report_with_xla(tmp_path):
    name = "d_param_host_offload_8"
    path = tmp_path / f"{name}.hlo"
    path.write_text(ms.module_text(name))
    proc = _console("report", "--xla=tpu", path)
    assert proc.returncode == 0, proc.stderr
    assert f"{path}: xla: XLA (libtpu 0.0.52" in proc.stderr
    stored = SUITE["configs"][name]["xla"]["memory"]
    line = next(x for x in proc.stderr.splitlines() if "host arguments" in x)
    assert line.split()[4] == str(stored["host_argument_size_in_bytes"]), line
    doc = json.loads(_console("report", "--xla=tpu", "--format=json", path).stdout)
    figures = {f["label"]: f for f in doc["xla"]["memory_figures"]}
    assert figures["host arguments"]["xla"] == stored["host_argument_size_in_bytes"]
    assert figures["host arguments"]["explained"] == figures["host arguments"]["xla"]


@pytest.mark.skipif(not _xla.installed("tpu"),
                    reason="XLA's tpu compile-only client is not installed: hlo-offload "
                    "install-xla tpu")
@pytest.mark.skipif(_jaxlib_partitions_named_shardings(),
                    reason="for a jaxlib older than 0.12, whose parser does not read JAX "
                    "0.12's compact operands; this one reads them")
def test_old_jaxlib_says_why_it_cannot_compile_a_newer_dump():
    """jaxlib 0.10.2's parser does not read the compact operands (`%x#0`) of JAX 0.12's
    dumps: no verdict, and the reason says to install jax >= 0.12."""
    result = hlo_offload.check(ms.module_text("e_opt_host_offload_1"), xla="tpu")
    assert not result.xla.verdict
    assert "compact operands" in result.xla.reason and "jax>=0.12" in result.xla.reason
