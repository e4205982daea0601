"""The pytest plugin: `pytest --hlo-offload` checks every `jax.jit` lowering a test makes
before JAX compiles it (`hlo_offload.guard()` around each test), and fails the test whose
program XLA would refuse on the accelerator, with the diagnostic.

Registered by the package's `pytest11` entry point (pyproject.toml), so it is there
wherever hlo-offload is installed, and does nothing without `--hlo-offload`; loading it
imports neither jax nor the extension.

    pytest --hlo-offload                      # fail a test whose jit has an error
    pytest --hlo-offload --hlo-offload-on-error=warn   # warn instead (the test goes on)
    pytest --hlo-offload --hlo-offload-platform=cuda
    pytest --hlo-offload --hlo-offload-disable=HO3005 --hlo-offload-xla=tpu

The options are check()'s and the console command's, by the same names
(`--hlo-offload-disable` is `--disable` and ignore=, `--hlo-offload-no-partition` is
`--no-partition` and partition=False, ...): every lowering runs through the runner that
check() and the console command use, so the same options give the same answer.

Each test's checks are in its report (section "hlo-offload"), and the terminal summary
lists the tests whose programs have errors. A test marked
`@pytest.mark.hlo_offload_skip` is not checked.
"""

from __future__ import annotations

from typing import Any, Dict, Generator, List, Tuple

import pytest

_KEY = "hlo_offload_checked"


# (option, check()'s keyword, help): the options that take a value, as the console
# command names them.
_CHECK_OPTIONS = (
    ("disable", "ignore", "codes whose diagnostics are dropped (--disable; ignore=)"),
    ("enable", "select", "the only warning and lint codes reported (--enable; select=)"),
    ("pipeline", "pipeline", "xla (default) or offload (--pipeline; pipeline=)"),
    ("backend", "backend", "whose compiler's limits are errors: tpu, gpu, any "
                           "(--backend; backend=)"),
    ("xla", "xla", "also compile each lowering with XLA's compile-only client for tpu or "
                   "cuda; its verdict decides (--xla; xla=)"),
    ("xla-topology", "xla_topology", "what --hlo-offload-xla compiles for (--xla-topology)"),
    ("xla-version", "xla_version", "the XLA whose verdicts to reproduce (--xla-version)"),
    ("pinned-host-budget", "pinned_host_budget",
     "HO3012's pinned host budget, such as 16GiB (--pinned-host-budget)"),
)


def _check_kwargs(config: pytest.Config) -> Dict[str, Any]:
    """check()'s keywords from the plugin's options."""
    kwargs: Dict[str, Any] = {}
    for option, keyword, _ in _CHECK_OPTIONS:
        value = config.getoption("hlo_offload_" + option.replace("-", "_"))
        if value is not None:
            kwargs[keyword] = value
    if config.getoption("hlo_offload_no_partition"):
        kwargs["partition"] = False
    if config.getoption("hlo_offload_no_lints"):
        kwargs["lints"] = False
    return kwargs


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hlo-offload")
    group.addoption(
        "--hlo-offload", action="store_true", default=False, dest="hlo_offload",
        help="check every jax.jit lowering of each test before it compiles "
             "(hlo_offload.guard): a test whose program has an error such as E1200 fails")
    group.addoption(
        "--hlo-offload-on-error", action="store", default="raise",
        choices=("raise", "warn"), dest="hlo_offload_on_error",
        help="raise (default: the test fails) or warn (the test goes on)")
    group.addoption(
        "--hlo-offload-platform", action="store", default="tpu",
        dest="hlo_offload_platform",
        help="the accelerator the lowerings are checked for: tpu (default), cuda, rocm")
    for option, _, text in _CHECK_OPTIONS:
        group.addoption(f"--hlo-offload-{option}", action="store", default=None,
                        dest="hlo_offload_" + option.replace("-", "_"), help=text)
    group.addoption(
        "--hlo-offload-no-partition", action="store_true", default=False,
        dest="hlo_offload_no_partition",
        help="check a sharded program as written, as one partition (--no-partition)")
    group.addoption(
        "--hlo-offload-no-lints", action="store_true", default=False,
        dest="hlo_offload_no_lints", help="no HO3xxx lints (--no-lints)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "hlo_offload_skip: do not check this test's jit lowerings "
                   "(pytest --hlo-offload)")
    if config.getoption("hlo_offload"):
        config.stash[_stash_key] = []


# (test id, lowerings checked, the lowerings with errors) of each test.
_stash_key = pytest.StashKey[List[Tuple[str, int, List[str]]]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    if not item.config.getoption("hlo_offload") or \
            item.get_closest_marker("hlo_offload_skip") is not None:
        yield
        return
    from ._guard import guard
    g = guard(on_error=item.config.getoption("hlo_offload_on_error"),
              platform=item.config.getoption("hlo_offload_platform"),
              **_check_kwargs(item.config))
    with g:
        outcome = yield
    lines = []
    bad = []
    for name, result in g.results:
        what = "ok" if result.ok else ", ".join(
            f"{d.code}" + (f" on {d.output_path}" if d.output_path else "")
            for d in result.errors)
        warned = [d.code + (f" on {d.output_path}" if d.output_path else "")
                  for d in result.warnings]
        lines.append(f"jit({name}): {what}" +
                     (f"; warnings: {', '.join(warned)}" if warned else ""))
        if not result.ok:
            bad.append(f"jit({name}): {what}")
    if lines:
        item.add_report_section("call", "hlo-offload", "\n".join(lines))
    item.config.stash[_stash_key].append((item.nodeid, len(g.results), bad))
    del outcome


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int,
                            config: pytest.Config) -> None:
    if not config.getoption("hlo_offload"):
        return
    records = config.stash.get(_stash_key, [])
    checked = sum(n for _, n, _ in records)
    tests = sum(1 for _, n, _ in records if n)
    bad = [(nodeid, b) for nodeid, _, b in records if b]
    tr = terminalreporter
    tr.section("hlo-offload")
    tr.write_line(f"{checked} jit lowering(s) checked in {tests} test(s); "
                  f"{len(bad)} test(s) with errors")
    for nodeid, b in bad:
        tr.write_line(f"{nodeid}: {'; '.join(b)}")
