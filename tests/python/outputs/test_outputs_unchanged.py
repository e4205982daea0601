"""Every output of the command line, the console command and the Python API on the
corpus is the one stored for the installed jax (snapshot.py says how they are made and
stored). A change that moves one fails here with the inputs and runs that moved; run
`snapshot.py --dump DIR` before and after to see the difference, and `--write` to store
the new outputs once the change is meant."""

import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import snapshot  # noqa: E402


def test_outputs_unchanged(shared_dir, hloff_bin):
    stored_file = snapshot.stored_path()
    if not stored_file.is_file():
        pytest.skip(f"no outputs stored for this jax ({stored_file.name}): "
                    "snapshot.py --write stores them")
    stored = json.loads(stored_file.read_text())
    # Every corpus file and lit case, a quarter of the stored programs and of the 8-chip
    # MaxText steps (snapshot.py without --quick runs them all).
    now = snapshot.snapshot(shared_dir, str(hloff_bin),
                            [sys.executable, "-m", "hlo_offload"], quick=True)
    missing = sorted(set(now) - set(stored))
    assert not missing, f"outputs with no stored digest: {missing[:10]}"
    moved = sorted(k for k in now if stored[k] != now[k])
    assert not moved, (f"{len(moved)} of {len(now)} outputs moved "
                       f"(snapshot.py --dump DIR shows them):\n" + "\n".join(moved[:60]))
