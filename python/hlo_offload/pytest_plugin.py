"""The pytest plugin: `pytest --hlo-offload` checks every `jax.jit` lowering a test makes
before JAX compiles it (`hlo_offload.guard()` around each test), and fails the test whose
program XLA would refuse on the accelerator, with the diagnostic.

Registered by the package's `pytest11` entry point (pyproject.toml), so it is there
wherever hlo-offload is installed, and does nothing without `--hlo-offload`; loading it
imports neither jax nor the extension.

    pytest --hlo-offload                      # fail a test whose jit has an error
    pytest --hlo-offload --hlo-offload-on-error=warn   # warn instead (the test goes on)
    pytest --hlo-offload --hlo-offload-platform=cuda

Each test's checks are in its report (section "hlo-offload"), and the terminal summary
lists the tests whose programs have errors. A test marked
`@pytest.mark.hlo_offload_skip` is not checked.
"""

from __future__ import annotations

import pytest

_KEY = "hlo_offload_checked"


def pytest_addoption(parser):
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


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "hlo_offload_skip: do not check this test's jit lowerings "
                   "(pytest --hlo-offload)")
    if config.getoption("hlo_offload"):
        config.stash[_stash_key] = []


_stash_key = pytest.StashKey[list]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if not item.config.getoption("hlo_offload") or item.get_closest_marker("hlo_offload_skip") is not None:
        yield
        return
    from ._guard import guard
    g = guard(on_error=item.config.getoption("hlo_offload_on_error"), platform=item.config.getoption("hlo_offload_platform"))
    with g:
        outcome = yield
    lines = []
    bad = []
    for name, result in g.results:
        what = "ok" if result.ok else ", ".join(
            f"{d.code}" + (f" on {d.output_path}" if d.output_path else "")
            for d in result.errors)
        lines.append(f"jit({name}): {what}")
        if not result.ok:
            bad.append(f"jit({name}): {what}")
    if lines:
        item.add_report_section("call", "hlo-offload", "\n".join(lines))
    item.config.stash[_stash_key].append((item.nodeid, len(g.results), bad))
    del outcome


def pytest_terminal_summary(terminalreporter, exitstatus, config):
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
