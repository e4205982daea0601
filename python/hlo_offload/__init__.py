"""hlo-offload: XLA's host-memory-offloading passes on HLO text and JAX programs.

    import hlo_offload
    result = hlo_offload.check(jax.jit(step, out_shardings=...), state, batch)
    print(result)      # E1200 ... output result['opt_state']['mu'] ...
    result.ok          # False

check() reports what XLA's ConvertMemoryPlacementToInternalAnnotations, HostOffloadLegalize
and HostOffloader say about a module (E1200 etc., XLA's wording) and the lints (HO3xxx);
fix() rewrites the module so that E1200 goes away (and, for JAX, gives the pytree of output
memory kinds that compiles); report() says what is offloaded and what it costs; explain()
prints a code's page. Sources: HLO text, StableHLO text, files, and, with jax installed
(`pip install 'hlo-offload[jax]'`), jitted functions, `jax.stages.Traced` and `Lowered`.
`xla="tpu"` puts XLA's own verdict beside ours, from a deviceless compile by libtpu
(`install_xla()` installs it). The command line is `hlo-offload` (or `python -m
hlo_offload`), as docs/CLI.md describes.
"""

from ._api import PIPELINES, STRATEGIES, check, codes, executable, explain, fix, passes, report
from ._core import version as _version
from ._guard import OffloadCheckError, OffloadCheckWarning, guard
from ._xla import XlaUnavailable, XlaVerdict, install_xla
from ._types import (
    Diagnostic,
    FixedModule,
    FixError,
    FixSuggestion,
    Hop,
    Location,
    Note,
    ParseError,
    Report,
    Result,
    Severity,
    Strategy,
)

__version__ = _version()

__all__ = [
    "check",
    "fix",
    "report",
    "explain",
    "guard",
    "codes",
    "passes",
    "executable",
    "PIPELINES",
    "STRATEGIES",
    "Result",
    "Diagnostic",
    "Severity",
    "Strategy",
    "Report",
    "FixedModule",
    "Hop",
    "Location",
    "Note",
    "FixSuggestion",
    "ParseError",
    "FixError",
    "OffloadCheckError",
    "OffloadCheckWarning",
    "XlaUnavailable",
    "XlaVerdict",
    "install_xla",
    "__version__",
]
