"""Every flag of the command line works for StableHLO (`.mlir`) files too: the console
command runs the C++ command line for them, with the file converted by the JAX front end,
so that no flag of docs/CLI.md is refused for a `.mlir` FILE ("the following argument was
not expected") where it is taken for an HLO file."""
import json
import re
import subprocess
import sys

import pytest

import hlo_offload
from hlo_offload.__main__ import main
from api_helpers import REPO
from test_cli import STABLEHLO

# The flags docs/CLI.md names that are not options of check, opt, fix, report or fmt on a
# FILE: global ones, XLA's and other programs' (quoted for comparison), placeholders, and the
# console command's --xla (tests/python/api/test_cli_xla.py; it needs XLA's client).
NOT_FILE_FLAGS = {"--help", "--version", "--list-passes", "--xla", "--xla-topology",
                  "--xla_dump_to", "--vmodule", "--target", "--no-deps", "--name",
                  "--select", "--ignore"}

# The options mirroring XLA's debug flags (README, "Commands").
XLA_DEBUG_FLAGS = ["--disable-automatic-host-compute-offload",
                   "--allow-h2h-copy-when-automatic-host-compute-offload-disabled",
                   "--fix-entry-layout-unless-customized"]

OUT = "{out}"


def _runs():
    """(subcommand, its flags) for every flag of every subcommand that reads a FILE."""
    first_pass = hlo_offload.passes()[0][0]
    common = [["--pipeline=xla"], ["--pipeline=offload"], ["--pipeline", "offload"],
              ["--disable=HO3005"], ["--disable", "HO3005,HO3014"], ["--enable=HO300"],
              ["--backend=tpu"], ["--backend=gpu"], ["--backend=cuda"], ["--backend=any"],
              ["--xla-version=libtpu-0.0.42.1"], ["--xla-version", "newest"],
              *[[f] for f in XLA_DEBUG_FLAGS]]
    runs = []
    for flags in common + [["--format=text"], ["--format=xla"], ["--format=json"],
                           ["--format", "sarif"], ["--trace"], ["--trace=2"], ["--no-lints"],
                           ["--pinned-host-budget=16GiB"], ["--pinned-host-budget", "1KiB"],
                           ["--split-input-file"], ["--platform=tpu"], ["--no-partition"]]:
        runs.append(("check", flags))
    for flags in common + [[f"--passes={first_pass}"], ["-o", OUT], [f"--output={OUT}"],
                           ["--no-lints"], ["--split-input-file"], ["--trace"]]:
        runs.append(("opt", flags))
    for strategy in ("host-output", "move-to-device"):
        runs.append(("fix", [f"--strategy={strategy}"]))
    for flags in common + [["-o", OUT], ["--split-input-file"]]:
        runs.append(("fix", ["--strategy=host-output", *flags]))
    for flags in [f for f in common if not f[0].startswith("--disable-") and
                  not f[0].startswith("--allow-") and not f[0].startswith("--fix-")] + [
            *[[f] for f in XLA_DEBUG_FLAGS], ["--format=text"], ["--format=json"],
            ["--format=dot"], ["--format=html"], ["-o", OUT], ["--split-input-file"],
            ["--max-nodes=5"], ["--max-nodes", "7"], ["--no-partition"]]:
        runs.append(("report", flags))
    for flags in (["-o", OUT], ["--split-input-file"]):
        runs.append(("fmt", flags))
    return runs


RUNS = _runs()


@pytest.fixture(scope="module")
def mlir(tmp_path_factory):
    pytest.importorskip("jax", reason="StableHLO files need jax (pip install '.[jax]')")
    path = tmp_path_factory.mktemp("flags") / "step.mlir"
    path.write_text(STABLEHLO)
    return path


def test_the_list_has_every_flag_of_the_docs():
    """A flag added to docs/CLI.md is added here, and so checked for `.mlir` files."""
    documented = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9_-]*",
                                (REPO / "docs" / "CLI.md").read_text()))
    tested = {a.split("=", 1)[0] for _, flags in RUNS for a in flags if a.startswith("-")}
    tested |= {"--strategy", "--in-place"}  # fix's, below
    assert documented - NOT_FILE_FLAGS <= tested, documented - NOT_FILE_FLAGS - tested


@pytest.mark.parametrize("command,flags", RUNS,
                         ids=[f"{c} {' '.join(f)}" for c, f in RUNS])
def test_flag_is_accepted_for_mlir(mlir, tmp_path, capfd, command, flags):
    out = tmp_path / "out.hlo"
    argv = [command, *(a.replace(OUT, str(out)) for a in flags), str(mlir)]
    status = main(argv, replace_process=False)
    _, err = capfd.readouterr()
    assert "not expected" not in err, err
    assert status in (0, 1), (status, err)
    if OUT in flags or any(OUT in a for a in flags):
        assert status != 0 or out.is_file(), err


def test_in_place_is_refused_for_mlir(mlir, capfd):
    """The HLO text fix writes would replace the StableHLO file: refused, with what to do."""
    status = main(["fix", "--strategy=host-output", "--in-place", str(mlir)],
                  replace_process=False)
    _, err = capfd.readouterr()
    assert status == 2
    assert err == ("hlo-offload: error: --in-place would write HLO text into a StableHLO "
                   "file; use -o\nRun 'hlo-offload fix --help' for usage.\n")
    assert mlir.read_text() == STABLEHLO


def test_pipeline_offload_from_the_console_command(mlir):
    """`python -m hlo_offload check --pipeline=offload x.mlir` (the console command refused
    it once, running a command line of its own for .mlir files)."""
    proc = subprocess.run([sys.executable, "-m", "hlo_offload", "check", "--format=json",
                           "--pipeline=offload", str(mlir)], capture_output=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    (entry,) = json.loads(proc.stdout)["files"]
    (e1200,) = [d for d in entry["diagnostics"] if d["code"] == "E1200"]
    assert e1200["output_path"] == "result['acts']['h']"
