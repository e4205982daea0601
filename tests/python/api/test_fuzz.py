"""The seeded mutation loop of fuzz/api_mutation.py, bounded: hostile inputs made from the
corpus modules give a result or a documented exception, never a crash or a hang. It runs
in a child process so that a crash is reported as one (with the input in the save
folder) instead of ending the test run."""
import pathlib
import subprocess
import sys

from api_helpers import REPO, shared_path


def test_mutation_loop(tmp_path):
    script = REPO / "fuzz" / "api_mutation.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--seed", "14", "--count", "3000", "--seconds", "90",
         "--shared", str(shared_path()), "--save-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300)
    current = tmp_path / "current"
    assert proc.returncode == 0, (
        f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}\n"
        + (f"input being run: {current.read_bytes()[:2000]!r}" if current.exists() else ""))
    assert "failures" in proc.stdout and " 0 failures" in proc.stdout, proc.stdout
