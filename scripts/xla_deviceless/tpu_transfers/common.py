"""Shared harness of the TPU transfer-limit programs (repro_lane.py, repro_strided.py): a
deviceless TPU compile with the libtpu of hlo_offload's install_xla() folder
(~/.cache/hlo-offload-xla-deviceless/tpu; $HLO_OFFLOAD_XLA_PKGS moves it), whose version is read
from its metadata. Imported before jax. Dumps go to $TPU_TRANSFERS_DUMPS (default
/tmp/tpu-transfers/dumps)/<libtpu version>/<script>/<variant>/: the module before optimizations
(the tool's input: tests/lit/backend/Inputs/tpu-transfers/), the HostOffloader's input and output,
the StableHLO and verdict.txt.

    .venv/bin/python scripts/xla_deviceless/tpu_transfers/repro_lane.py --variant scan_scalar
    HLO_OFFLOAD_XLA_PKGS=~/.cache/hlo-offload-xla-deviceless-py313 \
        .venv-py313/bin/python scripts/xla_deviceless/tpu_transfers/repro_lane.py --variant all
"""
import glob
import os
import re
import shutil
import sys
from importlib import metadata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "python"))
HOME = os.path.expanduser("~")
LIBTPU_DIR = os.path.join(os.environ.get("HLO_OFFLOAD_XLA_PKGS", os.environ.get(
    "XLA_DEVICELESS_PKGS", os.path.join(HOME, ".cache", "hlo-offload-xla-deviceless"))), "tpu")
LIBTPU_VER = next((d.version for d in metadata.distributions(name="libtpu", path=[LIBTPU_DIR])),
                  "unknown")
sys.path.insert(0, LIBTPU_DIR)
for k, v in dict(JAX_PLATFORMS="cpu", TPU_SKIP_MDS_QUERY="1", TPU_ACCELERATOR_TYPE="v5litepod-4",
                 TPU_WORKER_HOSTNAMES="localhost", TPU_WORKER_ID="0",
                 TPU_STDERR_LOG_LEVEL="1", TPU_MIN_LOG_LEVEL="1", TPU_LOG_DIR="disabled").items():
    os.environ.setdefault(k, v)
os.environ["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "true"
os.environ["PYTHONPATH"] = LIBTPU_DIR

ROOT = os.environ.get("TPU_TRANSFERS_DUMPS", "/tmp/tpu-transfers")


def setup_dump(script, variant):
    d = os.path.join(ROOT, "dumps", LIBTPU_VER, script, variant)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    os.environ["XLA_FLAGS"] = ("--xla_dump_to=%s --xla_dump_hlo_pass_re=host-offloader"
                               % d)
    return d


def topology(name="v5e:2x2"):
    from jax.experimental import topologies
    return topologies.get_topology_desc(platform="tpu", topology_name=name)


def compile_and_report(script, variant, lowered, dump_dir):
    """Compile a jax Lowered; write lowered text, verdict, error. Returns (ok, err)."""
    with open(os.path.join(dump_dir, "lowered.stablehlo.mlir"), "w") as fh:
        fh.write(lowered.as_text())
    err = None
    try:
        lowered.compile()
        ok = True
    except Exception as e:  # XLA's error
        ok = False
        err = str(e)
    with open(os.path.join(dump_dir, "verdict.txt"), "w") as fh:
        fh.write(("OK\n" if ok else "ERROR\n") + (err or ""))
    first = "" if ok else err.strip().splitlines()[0]
    kind = "OK"
    if not ok:
        if ("Lane slice updating" in err or "Updating the lane dimension" in err
                or "lane dimension must start on chunk" in err):
            kind = "LANE-DUS"
        elif "Strided Host" in err or "Strided host" in err:
            kind = "STRIDED-DMA"
        else:
            kind = "OTHER"
    print("VERDICT libtpu=%s script=%s variant=%s: %s %s" % (LIBTPU_VER, script, variant, kind, first))
    if not ok:
        print("---- error ----")
        print(err[:4000])
    for p in glob.glob(os.path.join(dump_dir, "*")):  # keep the dumps small
        b = os.path.basename(p)
        if not ("host-offload" in b or b.endswith("before_optimizations.txt")
                or b in ("lowered.stablehlo.mlir", "verdict.txt")):
            if os.path.isdir(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.remove(p)
    after = glob.glob(os.path.join(dump_dir, "*after_host-offloader*"))
    print("dump:", dump_dir, "(after_host-offloader files: %d)" % len(after))
    return ok, err


_INTERESTING = re.compile(r"(dynamic-update-slice|dynamic-slice|copy-start|copy\(|copy-done)")


def summarize_after(dump_dir, limit=40):
    """Print the host<->device data movement of the after_host-offloader module:
    dynamic-update-slice / dynamic-slice / copy instructions touching S(5)."""
    files = sorted(glob.glob(os.path.join(dump_dir, "*after_host-offloader*")))
    if not files:
        print("  (no after_host-offloader dump)")
        return
    n = 0
    for line in open(files[-1]):
        line = line.strip()
        if "S(5)" not in line or not _INTERESTING.search(line):
            continue
        line = re.sub(r", metadata=.*", "", line)
        line = re.sub(r", backend_config=.*", "", line)
        print("  AFTER-HO:", line[:400])
        n += 1
        if n >= limit:
            break


def run_all(script_path, names, only=None):
    """Run each variant in its own process (a CHECK failure in libtpu kills the process)."""
    import subprocess
    for name in names:
        if only and name not in only:
            continue
        p = subprocess.run([sys.executable, script_path, "--variant", name],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out = p.stdout
        lines = [l for l in out.splitlines() if l.startswith(("VERDICT", "  AFTER-HO"))]
        if p.returncode != 0 and not any(l.startswith("VERDICT") for l in lines):
            fat = [l for l in out.splitlines() if l.startswith("F") and "Check failed" in l]
            pyerr = [l for l in out.splitlines() if re.match(r"^[A-Za-z_.]*(Error|Exception):", l)]
            msg = fat[0] if fat else ("PYTHON-EXCEPTION " + pyerr[-1][:300] if pyerr
                                      else "exit %d" % p.returncode)
            lines.insert(0, "VERDICT libtpu=%s script=%s variant=%s: CRASH %s"
                         % (LIBTPU_VER, os.path.basename(script_path)[:-3], name, msg))
            d = os.path.join(ROOT, "dumps", LIBTPU_VER, os.path.basename(script_path)[:-3], name)
            if os.path.isdir(d):
                with open(os.path.join(d, "verdict.txt"), "w") as fh:
                    fh.write("CRASH\n" + "\n".join(l for l in out.splitlines()
                                                    if l.startswith(("F", "E")))[:20000])
        print("\n".join(lines), flush=True)


def main(script_path, variants, run, default):
    """The scripts' command line: --variant NAME (default `default`), a comma-separated list
    or "all" (each in its own process: run_all), --list."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default=default)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(variants))
    elif a.variant == "all" or "," in a.variant:
        run_all(script_path, list(variants),
                None if a.variant == "all" else a.variant.split(","))
    else:
        run(a.variant)
