"""HO0002 on every program of the suite: each is lowered by jax 0.10.2 for the CPU and for
the TPU, as StableHLO text, and the front end must tell the CPU text of a program whose
annotations were dropped from its TPU text (docs/JAX.md, "Lowered for the CPU").

- Where the two texts differ (the CPU lowering dropped a device_put's or a remat offload's
  annotation), the CPU text gets `platform_unknown` (HO0002, a warning: the text does not
  say its platform) and the TPU text does not.
- Where they are the same text, nothing tells them apart: a text whose program uses memory
  kinds then gets the same warning, and its check is exact whatever it was lowered for;
  the programs where that happens to a TPU lowering are listed here, so that a change shows.
- Text said to be the CPU's (platform="cpu") is HO0002, an error.
- A `Lowered` made for the CPU is HO0002 exactly when its program uses memory kinds.
"""
import re

import pytest

jax = pytest.importorskip("jax", reason="the JAX program suite needs jax and jaxlib"
                             " (pip install '.[jax]')")

from offload_programs import PROGRAMS  # noqa: E402

# TPU lowerings whose text is byte for byte their CPU lowering's and whose program uses
# memory kinds (host arguments computed on or sliced with no device_put in the program;
# an out_shardings-only host result): the text cannot say what it was lowered for.
SAME_TEXT_WITH_MEMORY_KINDS = {
    "host_param_arithmetic",
    "host_index_const_no_put",
    "host_index_traced_no_put",
    "host_dynamic_slice_no_put",
    "out_shardings_unpinned_host_only",
}


class _Recorder:
    """Stands in for the front end in a program's build(): keeps the StableHLO text
    lowered for `platform` (and the Lowered, when the program makes one)."""

    def __init__(self, platform):
        self.platform = platform
        self.text = None
        self.lowered = None

    def from_jax(self, source, *args, platform=None, **kwargs):
        if isinstance(source, jax.stages.Lowered):
            self.lowered = source
        else:
            self.lowered = source.trace(*args, **kwargs).lower(
                lowering_platforms=(platform or self.platform,))
        self.text = self.lowered.as_text()

    def from_stablehlo_text(self, text, platform=None, **kwargs):
        self.text = text


def _texts(prog):
    out = {}
    for platform in ("tpu", "cpu"):
        r = _Recorder(platform)
        prog.build(r, platform)
        out[platform] = r
    return out


# Programs whose text the suite edits after JAX lowered it (_flip_result_kinds: results'
# mhlo.memory_kind set to "device"). JAX writes out_shardings' annotation of a result with
# that result's own kind; edited, the CPU text's out_shardings annotation (pinned_host on a
# "device" result) is one no JAX lowering writes, and the front end takes it for a TPU
# one. Only the TPU text is required here.
EDITED_TEXT = {"train_step_out_shardings_wrong_kind"}

_MAIN_KIND = re.compile(r"func\.func public @main\(.*mhlo\.memory_kind")


@pytest.mark.parametrize("prog", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_cpu_text_is_told_from_tpu_text(prog, hjax):
    lowered = _texts(prog)
    tpu, cpu = lowered["tpu"].text, lowered["cpu"].text
    cpu_flag = hjax.from_stablehlo_text(cpu).platform_unknown
    tpu_flag = hjax.from_stablehlo_text(tpu).platform_unknown
    # Text never reads as certainly the CPU's: at most it may be (a warning).
    assert hjax.from_stablehlo_text(cpu).cpu_lowering is None
    uses_kinds = bool(_MAIN_KIND.search(cpu))
    if prog.name in EDITED_TEXT:
        assert tpu_flag is None, tpu_flag
        return
    if tpu != cpu:
        assert "annotate_device_placement" in tpu
        assert cpu_flag is not None, "a CPU lowering that dropped annotations passed"
        assert tpu_flag is None, tpu_flag
    else:
        assert (cpu_flag is not None) == uses_kinds
        assert (prog.name in SAME_TEXT_WITH_MEMORY_KINDS) == uses_kinds
    # Said to be what it is, the text is believed.
    assert hjax.from_stablehlo_text(tpu, platform="tpu").cpu_lowering is None
    assert (hjax.from_stablehlo_text(cpu, platform="cpu").cpu_lowering is not None) == \
        uses_kinds
    # A Lowered made for the CPU: HO0002 exactly when the program uses memory kinds.
    cpu_lowered = lowered["cpu"].lowered
    if cpu_lowered is not None:
        r = hjax.from_jax(cpu_lowered)
        assert r.platform == "cpu"
        assert (r.cpu_lowering is not None) == uses_kinds
