"""check, fix, report and explain: the public functions of hlo_offload. Each checks
nothing itself: it names its options and hands the source to the one runner
(hlo_offload._runner), which guard(), the pytest plugin and the console command use too.
"""

from __future__ import annotations

import os
from typing import Any, List, Mapping, Optional, Tuple, Union

from . import _core, _runner
from ._runner import MAX_NODES_RANGE, PIPELINES, STRATEGIES, Codes
from ._types import FixedModule, Report, Result, Severity, Strategy

__all__ = ["check", "fix", "report", "explain", "codes", "passes", "executable",
           "STRATEGIES", "PIPELINES", "MAX_NODES_RANGE"]


def check(source: Any, *args: Any, platform: Optional[str] = None, lints: bool = True,
          pinned_host_budget: Union[int, str, None] = None, filename: Optional[str] = None,
          split_input_file: bool = False, xla_flags: Optional[Mapping[str, bool]] = None,
          pipeline: str = "xla", ignore: Codes = None, select: Codes = None,
          xla: Optional[str] = None, xla_topology: Optional[str] = None,
          xla_version: Optional[str] = None, partition: bool = True,
          backend: Optional[str] = None, **kwargs: Any) -> Result:
    """Runs XLA's host-offloading pipeline on `source` and reports what it finds
    (`hlo-offload check`).

    source: HLO text (str or bytes), StableHLO text (as `Lowered.as_text()` prints it), an
        `os.PathLike` file (`.mlir` or StableHLO text goes through JAX), a
        `jax.stages.Lowered`, a `jax.stages.Traced`, or a jitted function, whose example
        arguments (arrays or `jax.ShapeDtypeStruct`s) are `*args` and `**kwargs`.
    platform: what a JAX source is lowered for ("tpu" by default, "cuda", "rocm", "cpu");
        not used for HLO text.
    lints: the HO3xxx lints (`--no-lints` is False). pinned_host_budget: bytes (int) or a
        size such as "16GiB" (`--pinned-host-budget`). filename: the name diagnostics show
        for text (default "<string>", "<bytes>", the file's path, "<function name>").
    split_input_file: modules separated by `// -----` lines. xla_flags: the passes'
        options named as XLA's debug flags, e.g.
        {"xla_disable_automatic_host_compute_offload": True}.
    pipeline: "xla" (XLA's pass order up to the offloader, with the passes before it that
        change what it sees: call inlining, tuple simplification, DCE, reshape-to-bitcast)
        or "offload" (the three offloading passes alone), as `--pipeline`.
    ignore: codes whose diagnostics are dropped (`--disable`), e.g. ["HO3005"] or "HO300"
        (a prefix names every code it starts); select: the only warning and lint codes
        reported (`--enable`). Only HO2xxx and HO3xxx can be ignored: errors XLA raises
        (E1200, HO1xxx), input errors (HO0xxx) and HO9xxx are always reported (ValueError).
    xla: "tpu" or "cuda" also compiles the same module with XLA's compile-only client for
        that backend (docs/DEVICELESS.md), in a child process, and puts its verdict beside
        ours: `result.xla`, `result.xla_agrees`, each error's and HO2001's
        `xla_confirmed`; XLA's verdict decides `ok`. A JAX source is then lowered for that
        backend unless `platform` says otherwise. xla_topology: what to compile for (a
        TPU topology such as "v5e:2x4", chosen by the module's partitions by default; for
        cuda a GPU target config file or XLA spec name, "h100_sxm" by default).
        Raises XlaUnavailable (a RuntimeError, with the install command) when the client
        is not installed.
    xla_version: the XLA whose verdicts to reproduce where versions differ, as
        `--xla-version` takes it ("libtpu-0.0.42.1", "jax-cuda12-plugin-0.10.2", comma-
        separated; "newest"); by default the installed libtpu and CUDA plugin
        (`hlo_offload._xla.installed_xla_version()`). A version not measured gets the
        newest known semantics and a warning; `result.to_json()["xla_semantics"]` says which were used.
    backend: whose compiler's limits are errors (HO1012 to HO1016), as `--backend` takes
        it: "tpu", "gpu" ("cuda", "rocm") or "any"; by default the platform a JAX source
        was lowered for, the backend of `xla`, else "any" (ValueError for one that
        contradicts `xla`).
    partition: a module of several partitions that XLA has not partitioned yet (HLO
        text or file with `num_partitions` > 1, a sharded JAX program) is checked as XLA's
        SPMD partitioner gives it, per device, when jax is installed (docs/SHARDED.md);
        False checks it as written, as one partition, as the C++ command line does
        (HO3017 says so).
    Returns a Result. Raises ParseError (a ValueError) for text that does not parse,
    TypeError/ValueError for bad arguments, OSError for a file that cannot be read,
    ImportError for a JAX source without jax.
    """
    return _runner.run("check", source, args, kwargs, _runner.Options(
        platform=platform, filename=filename, split_input_file=split_input_file,
        partition=partition, lints=lints, pinned_host_budget=pinned_host_budget,
        xla_flags=xla_flags, pipeline=pipeline, ignore=ignore, select=select, xla=xla,
        xla_topology=xla_topology, xla_version=xla_version, backend=backend))



def fix(source: Any, *args: Any, strategy: Union[str, Strategy] = Strategy.HOST_OUTPUT,
        platform: Optional[str] = None, filename: Optional[str] = None,
        xla_flags: Optional[Mapping[str, bool]] = None, pipeline: str = "xla",
        ignore: Codes = None, select: Codes = None, xla: Optional[str] = None,
        xla_topology: Optional[str] = None, xla_version: Optional[str] = None,
        backend: Optional[str] = None, **kwargs: Any) -> FixedModule:
    """Rewrites the module so that every E1200 goes away (`hlo-offload fix`), re-checks it,
    and returns the fixed HLO text as a FixedModule (a str).

    strategy: "host-output" (declare each faulty output in host memory) or
        "move-to-device" (move the value back to device memory before it is returned), as
        a str or a Strategy.
    For a JAX source, `.output_memory_kinds` is the fix in JAX's own terms: the pytree of
    output memory kinds that compiles, with the structure of the function's outputs.
    pipeline, ignore, select, backend: as for check() (an ignored error-level lint such as HO3002
    no longer stands in the way of the fix). xla, xla_topology: as for check(): XLA
    compiles what the fix suggests and `.xla` / `.xla_accepts` say whether it accepts it;
    for a JAX or StableHLO source with strategy "host-output", that is the lowering with
    the new output memory kinds (what JAX compiles once `out_shardings` say them), else
    the fixed HLO module. Raises FixError (a ValueError, with `.result`) when the module
    cannot be fixed; XlaUnavailable as check(); else as check().
    """
    return _runner.run("fix", source, args, kwargs, _runner.Options(
        platform=platform, filename=filename, xla_flags=xla_flags, pipeline=pipeline,
        ignore=ignore, select=select, xla=xla, xla_topology=xla_topology,
        xla_version=xla_version, backend=backend, strategy=strategy))



def report(source: Any, *args: Any, platform: Optional[str] = None,
           filename: Optional[str] = None, max_nodes: int = 400,
           split_input_file: bool = False, xla_flags: Optional[Mapping[str, bool]] = None,
           pipeline: str = "xla", ignore: Codes = None, select: Codes = None,
           xla_version: Optional[str] = None, partition: bool = True,
           xla: Optional[str] = None, xla_topology: Optional[str] = None,
           backend: Optional[str] = None, **kwargs: Any) -> Report:
    """The offload report (`hlo-offload report`): what is offloaded, its bytes, where each
    path ends, host memory, transfers, and the picture.

    Returns a Report: `str()` the text, `.to_json()`, `.to_dot()`, `.to_html()`, and
    `_repr_html_` for notebooks. max_nodes: the most path instructions drawn, 1 to 2^30
    as `--max-nodes` (ValueError otherwise). pipeline, ignore, select: as for check()
    (the report shows only the errors that stop the pipeline, which are always
    reported; the codes are checked all the same). partition: as for check(); the
    report of a partitioned module gives per-device bytes, and a note the global ones.
    xla, xla_topology: as for check(): XLA compiles the module too, and the report shows
    its verdict and its memory analysis beside the report's per-device bytes, each
    difference explained (`report.xla`, `report.xla_memory`, the JSON's `xla` object).
    For a jitted function or Traced, the offloaded activations are named by their `checkpoint_name` (read from the jaxpr;
    docs/REPORT.md). Raises as check().
    """
    return _runner.run("report", source, args, kwargs, _runner.Options(
        platform=platform, filename=filename, split_input_file=split_input_file,
        partition=partition, xla_flags=xla_flags, pipeline=pipeline, ignore=ignore,
        select=select, xla=xla, xla_topology=xla_topology, xla_version=xla_version,
        backend=backend, max_nodes=max_nodes))



def explain(code: str) -> str:
    """The documentation page of a diagnostic code (`hlo-offload explain E1200`)."""
    if not isinstance(code, str):
        raise TypeError(f"code must be a str such as 'E1200', not {type(code).__name__}")
    page = _core.explain(code.strip())
    if page is None:
        raise ValueError(f"unknown diagnostic code {code!r}")
    return page


def codes() -> List[Tuple[str, str, Severity, str]]:
    """(code, name, severity, summary) of every diagnostic code."""
    return [(code, name, Severity(severity), summary)
            for code, name, severity, summary in _core.codes()]


def passes() -> List[Tuple[str, str]]:
    """(name, description) of every pass `opt --passes=` takes."""
    return [(name, description) for name, description in _core.passes()]


def executable() -> str:
    """The path of the package's `hlo-offload` command-line program."""
    return os.path.join(os.path.dirname(_core.__file__), "bin", "hlo-offload")
