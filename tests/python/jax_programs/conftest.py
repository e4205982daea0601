"""Fixtures of the JAX program suite: the front end under test and a `check` runner.

Each test module skips itself (pytest.importorskip) when jax is not installed. The front end is
`hlo_offload._jax` of the installed package, else `python/hlo_offload/_jax.py` of this
checkout (it needs nothing else of the package).
"""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def _load_front_end():
    try:
        from hlo_offload import _jax  # the installed package
        return _jax
    except ImportError:
        pass
    path = REPO / "python" / "hlo_offload" / "_jax.py"
    spec = importlib.util.spec_from_file_location("hlo_offload_jax_front_end", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def hjax():
    """The JAX front end module (from_jax, from_stablehlo_text, XlaInput, ...)."""
    return _load_front_end()


class CheckResult:
    """What `hlo-offload check --format=json` said about one module."""

    def __init__(self, rc, report, stderr, path):
        self.rc = rc
        self.report = report
        self.stderr = stderr
        self.path = path
        files = report.get("files", []) if report else []
        self.diagnostics = [d for f in files for d in f.get("diagnostics", [])]

    def codes(self, severity=None):
        return [d["code"] for d in self.diagnostics
                if severity is None or d.get("severity") == severity]

    def errors(self):
        return [d for d in self.diagnostics if d.get("severity") == "error"]

    def __repr__(self):
        return (f"CheckResult(rc={self.rc}, codes={self.codes()}, file={self.path}, "
                f"stderr={self.stderr[-2000:]!r})")


@pytest.fixture
def check(hloff_bin, tmp_path):
    """check(hlo_text, name, platform=None) -> CheckResult: runs the tool on the module
    text, with `--backend` set to the platform it was lowered for (tpu, cuda), as the
    Python front end sets it, and the XLA semantics of the installed libtpu and CUDA plugin
    (`--xla-version`, as check() chooses them)."""
    import os
    env = dict(os.environ)
    try:
        from hlo_offload import _xla
        env["HLO_OFFLOAD_XLA_VERSION"] = _xla.installed_xla_version()
    except ImportError:
        pass

    def run(hlo_text, name="module", platform=None):
        path = tmp_path / f"{name}.hlo"
        path.write_text(hlo_text)
        backend = [f"--backend={platform}"] if platform else []
        proc = subprocess.run([str(hloff_bin), "check", "--format=json", *backend, str(path)],
                              capture_output=True, text=True, timeout=60, env=env)
        try:
            report = json.loads(proc.stdout) if proc.stdout.strip() else None
        except ValueError:
            report = None
        return CheckResult(proc.returncode, report, proc.stderr, path)
    return run
