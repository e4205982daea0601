"""`hlo-offload check --xla=tpu` and `fix --xla=tpu`: the console command's run, then XLA's own
verdict (a deviceless compile, docs/DEVICELESS.md) beside ours, on the README's example.

The example's E1200 is XLA's (the stored deviceless verdict of the corpus case it comes from
says the same); the instruction XLA names differs (`tuple.1`: XLA parses the module after a
round trip through StableHLO, which renames instructions). Tests that compile skip, saying
how to install the client, without libtpu.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from hlo_offload import _xla

REPO = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "offload_step_e1200.hlo"


def _cli(*args, env=None):
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", *map(str, args)],
                          capture_output=True, text=True, timeout=300, env=env)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def tpu():
    if not _xla.installed("tpu"):
        pytest.skip("XLA's tpu compile-only client is not installed: "
                    + " ".join(_xla.install_command("tpu")))


def test_check_text_gives_xlas_verdict_and_agreement(tpu):
    rc, out, err = _cli("check", "--xla=tpu", EXAMPLE)
    assert rc == 1 and out == ""
    # Our diagnostic as without --xla, then XLA's verdict and the comparison.
    assert "error: E1200: CompileTimeHostOffloadOutputLocationMismatch" in err
    xla_lines = [line for line in err.splitlines() if ": xla: " in line]
    assert xla_lines[0].startswith(f"{EXAMPLE}: xla: XLA (libtpu ")
    assert "refuses the module" in xla_lines[0] and "E1200" in xla_lines[0]
    assert xla_lines[-1] == (f"{EXAMPLE}: xla: agrees: 1 of 1 errors and host-compute "
                             "warnings confirmed")
    assert "DISAGREES" not in err


def test_check_json_has_xla_object_and_confirmations(tpu):
    rc, out, err = _cli("check", "--format=json", "--xla", "tpu", EXAMPLE)
    assert rc == 1, err
    entry = json.loads(out)["files"][0]
    x = entry["xla"]
    assert (x["backend"], x["verdict"], x["ok"], x["code"], x["agrees"]) == \
        ("tpu", True, False, "E1200", True)
    assert x["topology"] == "v5e:2x2" and x["seconds"] > 0
    assert x["error"].startswith("INVALID_ARGUMENT: E1200: ")
    assert [(d["code"], d["xla_confirmed"]) for d in entry["diagnostics"]] == [("E1200", True)]


def test_xla_verdict_decides_exit_status(tpu, tmp_path):
    """fix --xla writes the fix and XLA compiles it; check --xla of the fixed module exits 0
    (both compile it), of the original 1 (both refuse it, test above). The API's tests
    (tests/python/jax_programs/test_xla_option.py) cover modules XLA and we disagree on."""
    fixed = tmp_path / "fixed.hlo"
    rc, _, err = _cli("fix", "--strategy=host-output", "--xla=tpu", EXAMPLE, "-o", fixed)
    assert rc == 0, err
    assert f"{EXAMPLE}: xla: XLA (libtpu " in err and "compiles the fixed module" in err
    rc, _, err = _cli("check", "--xla=tpu", fixed)
    assert rc == 0, err
    assert f"{fixed}: xla: agrees: no error, no host compute" in err


def test_fix_to_standard_output_is_compiled(tpu):
    rc, out, err = _cli("fix", "--strategy", "move-to-device", "--xla=tpu", EXAMPLE)
    assert rc == 0, err
    assert out.startswith("HloModule ")
    assert "compiles the fixed module" in err


@pytest.mark.parametrize("args,words", [
    (["check", "--xla=cpu", "x.hlo"], "--xla: 'cpu' is not tpu or cuda"),
    (["fmt", "--xla=tpu", "x.hlo"], "--xla is an option of check, fix and report"),
    (["check", "--xla=", "x.hlo"], "has nothing after '='"),
    (["check", "--xla-topology=v5e:2x4", "x.hlo"], "--xla-topology is for --xla=tpu"),
    (["check", "--xla=tpu", "--format=sarif", "x.hlo"], "--xla works with --format=text"),
    (["check", "--xla=tpu", "--split-input-file", "x.hlo"], "one module per file"),
    (["report", "--xla=tpu", "--format=dot", "x.hlo"], "--xla works with --format=text or json"),
    (["fix", "--no-partition", "x.hlo"], "--no-partition is an option of check and report"),
])
def test_usage_errors(args, words):
    if "--format=sarif" in args or "--split-input-file" in args or "--format=dot" in args:
        if not _xla.installed("tpu"):
            pytest.skip("the client check comes first without libtpu")
    rc, out, err = _cli(*args)
    assert rc == 2 and out == ""
    assert words in err, err


def test_missing_client_names_the_install_command(tmp_path):
    env = dict(os.environ, HLO_OFFLOAD_XLA_PKGS=str(tmp_path))
    env.pop("XLA_DEVICELESS_PKGS", None)
    try:
        import libtpu  # noqa: F401  (installed into this environment: nothing is missing)
        pytest.skip("libtpu is importable in this environment")
    except ImportError:
        pass
    rc, out, err = _cli("check", "--xla=tpu", EXAMPLE, env=env)
    assert rc == 2 and out == ""
    assert "XLA's tpu compile-only client is not installed" in err
    assert "hlo-offload install-xla tpu" in err and "pip install" in err


def test_cuda_without_a_target_config_is_a_usage_error():
    """The CUDA client installed but no GPU target config to compile for: the command's own
    diagnostics, then what is missing, exit 2 (it was a traceback, exit 1)."""
    if not _xla.installed("cuda"):
        pytest.skip("XLA's cuda compile-only client is not installed")
    env = dict(os.environ)
    env.pop("XLA_GIT_DIR", None)
    env.pop("HLO_OFFLOAD_GPU_TARGET_CONFIG_DIR", None)
    rc, _, err = _cli("check", "--xla=cuda", EXAMPLE, env=env)
    assert rc == 2 and "Traceback" not in err, err
    assert "hlo-offload: error: --xla=cuda: the CUDA compile-only client needs a GPU " \
           "target config" in err
    rc, _, err = _cli("check", "--xla=cuda", "--xla-topology=/nonexistent/h100.txtpb", EXAMPLE)
    assert rc == 2 and "Traceback" not in err, err
    assert "no GPU target config file '/nonexistent/h100.txtpb'" in err


def test_install_xla_help():
    rc, out, err = _cli("install-xla", "--help")
    assert rc == 0 and err == ""
    assert out.startswith("install XLA's compile-only client") and "[tpu|cuda]" in out


def test_help_names_the_python_options():
    """The console command's help is the C++ one's and then what this command line adds
    (--platform, --xla, --xla-topology, --no-partition, .mlir files, install-xla)."""
    rc, out, _ = _cli("check", "--help")
    assert rc == 0 and "--pinned-host-budget" in out   # the C++ help
    assert "--platform PLATFORM" in out and "--xla tpu|cuda" in out and ".mlir" in out
    assert "--xla-topology T" in out
    rc, out, _ = _cli("--help")
    assert rc == 0 and "install-xla [tpu|cuda]" in out
    rc, out, _ = _cli("report", "--help")
    assert rc == 0 and "--platform" in out and "--xla tpu|cuda" in out
    assert "--no-partition" in out
    rc, out, _ = _cli("fix", "--help")
    assert rc == 0 and "--xla tpu|cuda" in out and "--no-partition" not in out


def test_compiles_while_another_process_holds_libtpu(tpu, tmp_path):
    """Another process that loaded libtpu without ALLOW_MULTIPLE_LIBTPU_LOAD holds
    /tmp/libtpu_lockfile (a notebook, a test worker); the caller's own
    ALLOW_MULTIPLE_LIBTPU_LOAD=0 is about its process. The compile still runs (libtpu
    0.0.52 here aborted with "ABORTED: Internal error when accessing libtpu multi-process
    lockfile" before the child forced the switch)."""
    holder_code = ("import sys, time\n"
                   "from jax.experimental import topologies\n"
                   "topologies.get_topology_desc(platform='tpu', topology_name='v5e:2x2')\n"
                   "print('holding', flush=True)\n"
                   "time.sleep(120)\n")
    env = _xla.child_env("tpu")
    env.pop("ALLOW_MULTIPLE_LIBTPU_LOAD")
    holder = subprocess.Popen([sys.executable, "-c", holder_code], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        rc, out, err = _cli("check", "--xla=tpu", EXAMPLE,
                            env=dict(os.environ, ALLOW_MULTIPLE_LIBTPU_LOAD="0"))
        assert rc == 1 and "refuses the module" in err and "lockfile" not in err, err
    finally:
        holder.kill()
        holder.wait()


def test_lockfile_refusal_is_said_plainly(monkeypatch):
    """When libtpu still cannot load, the reason says what holds it and what to do."""
    from hlo_offload import _xla as xla

    def fake_run(cmd, env=None, stdout=None, stderr=None, timeout=None):
        with open(cmd[-1], "w") as fh:
            json.dump({"stage": "load", "ok": False, "error": "ABORTED: Internal error when "
                       "accessing libtpu multi-process lockfile. Run \"$ sudo rm "
                       "/tmp/libtpu_lockfile\".", "plugin": "libtpu 0.0.52"}, fh)
        return subprocess.CompletedProcess(cmd, 0)
    monkeypatch.setattr(xla, "_plugin_paths", lambda backend: [])
    monkeypatch.setattr(xla.subprocess, "run", fake_run)
    verdict = xla.compile_module("module m", "hlo", backend="tpu", topology="v5e:2x2")
    assert verdict.verdict is False
    assert verdict.reason.startswith("libtpu could not load: another process holds its "
                                     "lockfile (/tmp/libtpu_lockfile)"), verdict.reason
    assert "fuser /tmp/libtpu_lockfile" in verdict.reason
