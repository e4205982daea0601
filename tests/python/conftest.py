"""Fixtures shared by the pytest suites of hlo-offload.

`hloff_bin` is the command-line tool under test: $HLOFF_BIN, else build/hlo-offload
of this checkout. `shared_dir` is the shared folder beside the checkout ($HLOFF_SHARED_DIR,
else ../shared); tests that need it are skipped, with the reason, when it is absent.
"""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def hloff_bin() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("HLOFF_BIN", REPO / "build" / "hlo-offload"))
    if not path.is_file():
        pytest.fail(f"hlo-offload not built: {path} (set HLOFF_BIN or run scripts/build.sh)")
    return path


@pytest.fixture(scope="session")
def shared_dir() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("HLOFF_SHARED_DIR", REPO.parent / "shared"))
    if not (path / "corpus").is_dir():
        pytest.skip(f"the shared corpus is not at {path}")
    return path
