"""Helpers of the API suite: the command line run as a process, the corpus files, and
module texts written for the tests."""
import os
import pathlib
import re
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]


def run_cli(cli, *args, stdin=None):
    """(exit status, stdout as text, stderr as text) of the package's command line."""
    proc = subprocess.run([cli, *map(str, args)], input=stdin, capture_output=True,
                          timeout=120)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


# The line `check` writes last in text format (docs/CLI.md, "Diagnostics").
SUMMARY = re.compile(r"hlo-offload: \d+ files? checked: (\d+ could not be read, )?"
                     r"(no errors|\d+ errors? \([^)]*\)), (no warnings|\d+ warnings? \([^)]*\))"
                     r"(, \d+ notes? \([^)]*\))?\n")


def split_summary(err: str):
    """(the diagnostics, the summary line) of what `check` writes on standard error in
    text format: the summary is its last line. str(result) is the first part."""
    lines = err.splitlines(keepends=True)
    assert lines and SUMMARY.fullmatch(lines[-1]), f"no summary line at the end: {err[-300:]!r}"
    return "".join(lines[:-1]), lines[-1]


def without_summary(err: str) -> str:
    """What `check` wrote on standard error in text format, without its summary line."""
    return split_summary(err)[0]


# The note by which the text of a group's first diagnostic lists the others' outputs
# (docs/CLI.md): absent from that diagnostic's own text (str(d)).
FOLDED_NOTE = re.compile(r"^  note: and \d+ more outputs?\b.*\n", re.MULTILINE)


def device_argument(shape):
    """(the device sharding of one device's mesh, an f32 argument of `shape` placed with
    it): what the JAX programs of the suite are traced with. Needs jax."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    mesh = Mesh(np.array(jax.devices()[:1]), ("x",))
    dev = NamedSharding(mesh, PartitionSpec(), memory_kind="device")
    return dev, jax.ShapeDtypeStruct(shape, jnp.float32, sharding=dev)


def shared_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("HLOFF_SHARED_DIR", REPO.parent / "shared"))


def corpus_files(shared: pathlib.Path):
    corpus = shared / "corpus"
    files = sorted((corpus / "cases").rglob("*.hlo"))
    files += sorted(p for p in (corpus / "real").iterdir()
                    if p.suffix in (".hlo", ".txt") and p.name != "SOURCES.md")
    return files


E1200_TEXT = """\
HloModule offload_step, entry_computation_layout={(f32[32,256]{1,0})->(f32[], f32[32,256]{1,0})}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[32,256]{1,0} parameter(0)
  act = f32[32,256]{1,0} tanh(x), metadata={op_name="jit(step)/tanh" source_file="/home/user/step.py" source_line=12}
  host = f32[32,256]{1,0} custom-call(act), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}, metadata={op_name="jit(step)/device_put" source_file="/home/user/step.py" source_line=13}
  zero = f32[] constant(0)
  loss = f32[] reduce(act, zero), dimensions={0,1}, to_apply=add
  ROOT out = (f32[], f32[32,256]{1,0}) tuple(loss, host)
}
"""

CLEAN_TEXT = """\
HloModule clean, entry_computation_layout={(f32[8]{0})->f32[8]{0}}

ENTRY main {
  x = f32[8]{0} parameter(0)
  ROOT y = f32[8]{0} negate(x)
}
"""
