"""Makes the MaxText suite of tests/maxtext/ (its README.md says what it holds).

    python scripts/maxtext/gen_suite.py compile --maxtext-python PY [NAME...]
    python scripts/maxtext/gen_suite.py xla [NAME...]

compile: runs MaxText's compile-only trainer (train_compile_verdict.py, with PY: a Python
with `maxtext[tpu]==0.2.5`) for each config of CONFIGS, keeps the train step XLA receives
as tests/maxtext/modules/NAME.hlo.gz and MaxText's verdict and XLA's memory analysis in
tests/maxtext/suite.json, with the versions that ran in tests/maxtext/versions.txt.

xla: in an environment with hlo-offload and libtpu (`hlo-offload install-xla tpu`),
compiles each stored module again through the package's deviceless compile
(hlo_offload._xla.compile_module: the same module as HLO text) and stores, per config, the
compiled entry layout and host buffers that explain XLA's memory figures, and, per entry
of MISTAKES, the mistaken module's verdict (the mistake is made by the test from the
stored module: see tests/python/maxtext/maxtext_suite.py).
"""

import argparse
import gzip
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
SUITE = REPO / "tests" / "maxtext"
sys.path.insert(0, str(REPO / "tests" / "python" / "maxtext"))
import maxtext_suite  # noqa: E402

# The small dense model every config shares (a few seconds of compile each).
COMMON = ["dataset_type=synthetic", "enable_checkpointing=False",
          "compile_topology_num_slices=1", "base_emb_dim=256", "base_num_query_heads=4",
          "base_num_kv_heads=4", "base_mlp_dim=512", "base_num_decoder_layers=2",
          "head_dim=64", "vocab_size=1024", "max_target_length=128",
          "per_device_batch_size=1"]

# name -> (compile_topology, the config's own knobs).
CONFIGS = {}
for chips in (1, 8):
    topology = f"v5e-{chips}"
    CONFIGS[f"a_minimal_offloaded_{chips}"] = (topology, ["remat_policy=minimal_offloaded"])
    CONFIGS[f"b_qkv_proj_offloaded_{chips}"] = (topology, ["remat_policy=qkv_proj_offloaded"])
    CONFIGS[f"c_custom_offload_{chips}"] = (topology, [
        "remat_policy=custom", "decoder_layer_input=offload", "query_proj=offload",
        "key_proj=offload", "value_proj=offload"])
    CONFIGS[f"d_param_host_offload_{chips}"] = (topology, [
        "parameter_memory_host_offload=True", "param_scan_axis=0"])
    CONFIGS[f"e_opt_host_offload_{chips}"] = (topology, ["optimizer_memory_host_offload=True"])
    CONFIGS[f"h_baseline_full_{chips}"] = (topology, ["remat_policy=full"])
CONFIGS["d0_param_host_offload_scanaxis1_8"] = ("v5e-8", ["parameter_memory_host_offload=True"])
CONFIGS["f_grad_accum2_minimal_offloaded_8"] = ("v5e-8", [
    "remat_policy=minimal_offloaded", "gradient_accumulation_steps=2"])
CONFIGS["g_noscan_minimal_offloaded_8"] = ("v5e-8", [
    "remat_policy=minimal_offloaded", "scan_layers=False"])


def _load():
    path = SUITE / "suite.json"
    return json.loads(path.read_text()) if path.is_file() else {"configs": {},
                                                                 "mistakes": {}}


def _save(suite):
    (SUITE / "suite.json").write_text(json.dumps(suite, indent=1, sort_keys=True) + "\n")


def compile_configs(python, names):
    base = subprocess.run(
        [python, "-c", "import maxtext, os; print(os.path.join(os.path.dirname("
                       "maxtext.__file__), 'configs', 'base.yml'))"],
        check=True, capture_output=True, text=True).stdout.strip()
    versions = subprocess.run(
        [python, "-c", "from importlib import metadata as m; import sys; "
                       "print('\\n'.join(f'{p}=={m.version(p)}' for p in ('maxtext', 'jax', "
                       "'jaxlib', 'libtpu', 'flax'))); print('python==' + sys.version.split()[0])"],
        check=True, capture_output=True, text=True).stdout
    (SUITE / "versions.txt").write_text(versions)
    (SUITE / "modules").mkdir(parents=True, exist_ok=True)
    suite = _load()
    for name in names:
        topology, knobs = CONFIGS[name]
        with tempfile.TemporaryDirectory(prefix="maxtext-") as tmp:
            verdict_file = os.path.join(tmp, "verdict.json")
            env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={tmp}/dump --xla_dump_hlo_as_text")
            argv = [python, str(pathlib.Path(__file__).with_name("train_compile_verdict.py")),
                    verdict_file, base, f"run_name={name}",
                    f"base_output_directory={tmp}/out", f"compile_topology={topology}",
                    *COMMON, *knobs]
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            verdict = json.loads(pathlib.Path(verdict_file).read_text())
            entry = {"compile_topology": topology, "knobs": knobs,
                     "maxtext": {"ok": verdict["ok"], "seconds": verdict["seconds"]}}
            if not verdict["ok"]:
                entry["maxtext"]["error"] = verdict.get("error", "")
            else:
                dumps = sorted(pathlib.Path(tmp, "dump").glob(
                    "*jit_train_step*before_optimizations.txt"),
                    key=lambda p: p.stat().st_size)
                with open(dumps[-1], "rb") as src, \
                        open(SUITE / "modules" / f"{name}.hlo.gz", "wb") as raw, \
                        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as dst:
                    shutil.copyfileobj(src, dst)
                entry["xla"] = {"ok": True, "host_compute": verdict["host_compute"],
                                "memory": verdict["memory"]}
            suite["configs"][name] = entry
            print(f"{name}: {'ok' if verdict['ok'] else verdict.get('error')} "
                  f"({verdict['seconds']} s)")
    _save(suite)


def xla_figures(names):
    from hlo_offload import _xla
    suite = _load()
    for name in names:
        entry = suite["configs"][name]
        if "xla" not in entry:
            continue
        text = maxtext_suite.module_text(name)
        v = _xla.compile_module(text, "hlo", backend="tpu",
                                num_partitions=maxtext_suite.partitions(text),
                                module_name="jit_train_step")
        # MaxText's own compile and this one (the module as HLO text, through StableHLO)
        # may fuse differently: device temp can differ; the arguments, outputs and host
        # buffers that the tests explain must not.
        differ = sorted(k for k, b in v.memory.items()
                        if entry["xla"]["memory"].get(k) not in (None, b))
        if not v.ok or differ:
            print(f"{name}: the compile through the package differs from MaxText's: "
                  f"ok={v.ok} {v.error or ''}" + "".join(
                      f" {k} {entry['xla']['memory'][k]} -> {v.memory[k]}" for k in differ))
        entry["xla"].update(plugin=v.plugin, entry_layout=v.entry_layout,
                            host_buffers=v.host_buffers, memory_via_package=v.memory,
                            topology_via_package=v.topology)
        print(f"{name}: {v.headline()}")
    for name, mistake in maxtext_suite.MISTAKES.items():
        text = maxtext_suite.mistaken_text(name)
        v = _xla.compile_module(text, "hlo", backend="tpu",
                                num_partitions=maxtext_suite.partitions(text),
                                module_name="jit_train_step")
        suite["mistakes"][name] = {"base": mistake["base"], "plugin": v.plugin,
                                   "ok": v.ok, "code": v.code,
                                   "error": (v.error or "").splitlines()[:2],
                                   "host_compute": [h["name"] for h in v.host_compute]}
        print(f"{name}: {v.headline()}")
    _save(suite)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="stage", required=True)
    c = sub.add_parser("compile")
    c.add_argument("--maxtext-python", required=True)
    c.add_argument("names", nargs="*")
    x = sub.add_parser("xla")
    x.add_argument("names", nargs="*")
    args = parser.parse_args()
    names = args.names or list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"unknown configs: {', '.join(unknown)}")
    if args.stage == "compile":
        compile_configs(args.maxtext_python, names)
    else:
        xla_figures(names)


if __name__ == "__main__":
    main()
