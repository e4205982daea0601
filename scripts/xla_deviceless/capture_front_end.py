"""The front end a JAX program of tests/python/jax_programs/offload_programs.py is built with,
when the tools want its StableHLO rather than the tool's verdict (gen_programs.py here, and
scripts/xla_gpu/run_programs.py on a GPU machine). Needs JAX only, not the package."""


class CaptureFrontEnd(object):
    """Stands in for the JAX front end (hlo_offload._jax) a program's build() calls: keeps
    the StableHLO text the front end would convert, lowered the same way."""

    def __init__(self):
        self.text = None
        self.platform = None

    def from_jax(self, source, *args, platform=None, **kwargs):
        """As hlo_offload._jax.from_jax: a Lowered as it is, else trace and lower for
        `platform`; returns self (the text is in self.text)."""
        import jax
        if isinstance(source, jax.stages.Lowered):
            lowered = source
            plats = getattr(getattr(lowered, "_lowering", None), "_platforms", None) or ()
            self.platform = platform or (plats[0] if plats else "tpu")
        else:
            self.platform = platform or "tpu"
            lowered = source.trace(*args, **kwargs).lower(
                lowering_platforms=(self.platform,))
        self.text = lowered.as_text(debug_info=True)
        return self

    def from_stablehlo_text(self, text, platform=None, **kwargs):
        """As hlo_offload._jax.from_stablehlo_text: keeps the text."""
        self.text, self.platform = text, platform or "tpu"
        return self


def write_program_result(pdir, row, kept_log_lines):
    """Writes one program's `result.json` (`row`, keys sorted) and, when XLA's log had
    lines worth keeping (its warnings and errors, at most 50), `stderr.log` in `pdir`."""
    import json
    import os
    if kept_log_lines:
        with open(os.path.join(pdir, "stderr.log"), "w") as fh:
            fh.write("\n".join(kept_log_lines[:50]) + "\n")
    with open(os.path.join(pdir, "result.json"), "w") as fh:
        json.dump(row, fh, indent=1, sort_keys=True)
        fh.write("\n")
