"""MaxText's compile-only trainer with its verdict written as JSON (tests/maxtext/README.md).

    python train_compile_verdict.py VERDICT.json BASE.yml key=value ...

Runs `maxtext.trainers.pre_train.train_compile` (MaxText 0.2.5: it lowers and compiles the
train step for `compile_topology` with libtpu's compile-only client, no TPU needed) with the
given config, in this process, and writes VERDICT.json:

  ok: MaxText compiled the train step; error: the exception when not (MaxText's own
  refusals, such as its parameter-offload assertion, come before XLA sees anything);
  memory: every int field of the compiled train step's `memory_analysis()` (bytes per
  device); host_compute: XLA's HostOffloader warnings "Found an instruction (...) which
  does device compute in host memory space" from this process's output; seconds: the
  whole run, imports included; argv.

Set XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text to keep the module XLA receives
(`*jit_train_step*before_optimizations.txt`). Runs in MaxText's own environment (Python
3.12, `pip install maxtext[tpu]==0.2.5`), which hlo-offload does not need.
"""

import time

_START = time.time()

import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402

# XLA's HostOffloader (xla/hlo/transforms/host_offloader.cc) logs each instruction it
# converts into host compute with this sentence.
HOST_COMPUTE = re.compile(r'Found an instruction \("([^"]+)"\) which does device compute')


def _memory(analysis):
    """Every int field of a CompiledMemoryStats, by name; None without one."""
    if analysis is None:
        return None
    out = {}
    for name in dir(analysis):
        if name.startswith("_"):
            continue
        value = getattr(analysis, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            out[name] = value
    return out


def main(argv):
    verdict_path, config = argv[1], argv[2:]
    verdict = {"ok": False, "argv": config}
    captured = {}
    # XLA logs to the process's standard error (fd 2): a file keeps it for the warnings
    # while it is copied through.
    log = tempfile.TemporaryFile()
    saved_err = os.dup(2)
    sys.stderr.flush()
    os.dup2(log.fileno(), 2)
    try:
        from absl import flags
        flags.FLAGS.mark_as_parsed()
        from maxtext.trainers.pre_train import train_compile

        compile_step = train_compile.jit_and_compile

        def keep(*args, **kwargs):
            compiled = compile_step(*args, **kwargs)
            captured.setdefault("memory", _memory(compiled.memory_analysis()))
            return compiled

        train_compile.jit_and_compile = keep
        train_compile.main(["train_compile.py", *config])
        verdict["ok"] = True
    except BaseException as e:  # MaxText's or XLA's refusal: the verdict says which
        verdict["error"] = f"{type(e).__module__}.{type(e).__name__}: {str(e)[:2000]}"
        traceback.print_exc()
    finally:
        sys.stderr.flush()
        os.dup2(saved_err, 2)
    log.seek(0)
    text = log.read().decode("utf-8", "replace")
    sys.stderr.write(text)
    verdict["memory"] = captured.get("memory")
    names = []
    for m in HOST_COMPUTE.finditer(text):
        if m.group(1) not in names:
            names.append(m.group(1))
    verdict["host_compute"] = names
    verdict["seconds"] = round(time.time() - _START, 3)
    with open(verdict_path, "w") as fh:
        json.dump(verdict, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
