"""`python -m hlo_offload` and the `hlo-offload` console command: the command line of
docs/CLI.md, run in this process with the package as its front end (hlo_offload._cli):
StableHLO files, HLO files of several partitions partitioned by XLA's SPMD partitioner,
and `--xla`, XLA's own verdict beside ours."""

from __future__ import annotations

import sys

from ._cli import main

__all__ = ["main", "console_main"]


def console_main() -> None:
    """The `hlo-offload` console command."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
