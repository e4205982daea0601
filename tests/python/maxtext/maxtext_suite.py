"""The MaxText suite's data (tests/maxtext/, made by scripts/maxtext/gen_suite.py): the
train-step modules XLA received from MaxText 0.2.5's compile-only trainer, its verdicts and
memory figures, and the mistakes made on top of them."""
import gzip
import json
import pathlib

from hlo_offload import _core, _xla

REPO = pathlib.Path(__file__).resolve().parents[3]
SUITE_DIR = REPO / "tests" / "maxtext"


def suite() -> dict:
    return json.loads((SUITE_DIR / "suite.json").read_text())


def module_text(name: str) -> str:
    with gzip.open(SUITE_DIR / "modules" / f"{name}.hlo.gz", "rb") as fh:
        return fh.read().decode("utf-8")


def partitions(text: str) -> int:
    from hlo_offload import _partition
    return _partition.num_partitions(text)


def entry_spaces(text: str):
    """(memory space of each entry parameter, of each entry output) of the module's
    entry computation layout: 5 for a leaf in host memory, else 0."""
    params, result = _xla._layout_parts(_core.entry_layout_text(text))

    def spaces(shape):
        return [5 if _core.shape_bytes_by_memory_space(e).get(5) else 0
                for e in _xla._top_level(shape)]
    return spaces(params), spaces(result)


def _first_host_output_on_device(text: str) -> str:
    """The module with its first host output (optimizer offload: the step counter moved to
    host) declared in device memory: a user's out_shardings without memory_kind."""
    ins, outs = entry_spaces(text)
    outs[outs.index(5)] = 0
    return _core.set_entry_memory_spaces(text, ins, outs)


# Mistakes on top of MaxText's modules, each with the config it starts from and the edit.
MISTAKES = {
    f"e_opt_host_offload_{chips}_output_on_device": {
        "base": f"e_opt_host_offload_{chips}",
        "what": "the first output the optimizer offload keeps in host memory (the step "
                "counter) declared in device memory in the entry computation layout",
        "edit": _first_host_output_on_device,
    }
    for chips in (1, 8)
}


def mistaken_text(name: str) -> str:
    mistake = MISTAKES[name]
    return mistake["edit"](module_text(mistake["base"]))
