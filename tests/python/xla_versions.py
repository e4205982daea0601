"""The XLA versions whose verdicts tests/xla-ref/ stores, and the one this environment uses.

Each backend's deviceless verdicts are stored per compiler version (tests/xla-ref/README.md):
libtpu 0.0.42.1 (with jax/jaxlib 0.10.2, Python 3.11) and libtpu 0.0.52 (with jax/jaxlib
0.12.0.1, Python 3.13) for TPU, jax-cuda12-plugin 0.10.2 and 0.12.0.1 (the same JAX
versions) for GPU. A test that compares the
tool with stored verdicts runs the tool with that version's semantics (`--xla-version`); a
test that lowers programs with the installed JAX, or compiles them again, uses the folder of
the compiler this environment has (`series_in_use`), as check() does by default.
"""
import pathlib
from typing import Dict, Optional

REPO = pathlib.Path(__file__).resolve().parents[2]
REF = REPO / "tests" / "xla-ref"

# backend -> {series of its compiler (pipeline/xla_versions.h): stored folder}, oldest first.
FOLDERS: Dict[str, Dict[str, str]] = {
    "tpu": {"0.0.42": "libtpu-0.0.42.1-v5e_2x2", "0.0.52": "libtpu-0.0.52-v5e_2x2"},
    "cuda": {"0.10.2": "cuda12-plugin-0.10.2-h100_sxm",
             "0.12.0.1": "cuda12-plugin-0.12.0.1-h100_sxm"},
}
SHARDED_FOLDERS: Dict[str, Dict[str, str]] = {
    "tpu": {"0.0.42": "libtpu-0.0.42.1-sharded", "0.0.52": "libtpu-0.0.52-sharded"},
    "cuda": {"0.10.2": "cuda12-plugin-0.10.2-sharded",
             "0.12.0.1": "cuda12-plugin-0.12.0.1-sharded"},
}
# The package each backend's series belongs to, as --xla-version names it.
PACKAGE = {"tpu": "libtpu", "cuda": "jax-cuda12-plugin"}


def xla_version_arg(backend: str, series: str) -> str:
    """`--xla-version`'s value for a backend's series ("libtpu-0.0.42")."""
    return "%s-%s" % (PACKAGE[backend], series)


def series_of_folder(folder: str) -> Optional[str]:
    """The series a stored folder is for (FOLDERS and SHARDED_FOLDERS), or None."""
    for table in (FOLDERS, SHARDED_FOLDERS):
        for by_series in table.values():
            for series, name in by_series.items():
                if name == folder:
                    return series
    return None


def series_in_use(backend: str) -> str:
    """The series of the backend's compiler whose semantics check() uses here by default:
    the installed libtpu or CUDA plugin (hlo_offload._xla.installed_versions), read back
    from the core (a version it was not measured against gets the newest known)."""
    from hlo_offload import _core, _xla
    options = _core.PipelineOptions()
    options.xla_version = _xla.installed_xla_version()
    described = dict(part.strip().split(" ", 1) for part in options.xla_version.split(","))
    return described["libtpu" if backend == "tpu" else "jax-cuda-plugin"]


def folder_in_use(backend: str, sharded: bool = False) -> pathlib.Path:
    """The stored folder for the compiler this environment has (series_in_use); the newest
    stored one when that series has none."""
    table = (SHARDED_FOLDERS if sharded else FOLDERS)[backend]
    series = series_in_use(backend)
    return REF / table.get(series, list(table.values())[-1])
