"""Fixtures of the API suite: the installed package, the command line it installs, and
the corpus files (one test per file).

The command line compared against is the package's own `hlo-offload` program
(hlo_offload.executable()), so that both sides come from one build.
"""
import os
import pathlib

import pytest

try:
    import hlo_offload
except ImportError as e:  # a failure, not a skip: the suite is what tests the package
    raise ImportError(f"the API suite needs the package installed (pip install . from the "
                      f"checkout): {e}") from e

from api_helpers import CLEAN_TEXT, E1200_TEXT, REPO, corpus_files, shared_path

# The package's program, run as a child, reproduces the XLA the API reproduces: the
# installed libtpu and CUDA plugin ($HLO_OFFLOAD_XLA_VERSION, as the console command sets
# it), whichever test runs first.
os.environ.setdefault("HLO_OFFLOAD_XLA_VERSION",
                      hlo_offload._xla.installed_xla_version())


@pytest.fixture(scope="session")
def cli() -> str:
    path = pathlib.Path(hlo_offload.executable())
    if not path.is_file():
        pytest.fail(f"the package's command line is missing: {path}")
    return str(path)


def pytest_generate_tests(metafunc):
    if "corpus_file" in metafunc.fixturenames:
        shared = shared_path()
        files = corpus_files(shared) if (shared / "corpus").is_dir() else []
        if not files:
            metafunc.parametrize("corpus_file", [pytest.param(
                None, marks=pytest.mark.skip(reason=f"no shared corpus at {shared}"))])
        else:
            ids = [str(p.relative_to(shared / "corpus")) for p in files]
            metafunc.parametrize("corpus_file", files, ids=ids)


@pytest.fixture(scope="session")
def examples() -> pathlib.Path:
    return REPO / "examples"


@pytest.fixture
def e1200_text() -> str:
    return E1200_TEXT


@pytest.fixture
def clean_text() -> str:
    return CLEAN_TEXT
