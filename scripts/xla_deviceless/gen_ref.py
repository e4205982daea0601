#!/usr/bin/env python3
"""Keep real XLA's host-offloading verdicts, from deviceless compiles, as test data.

    python3 scripts/xla_deviceless/gen_ref.py --backend tpu|cuda [--topology NAME]
        [--out tests/xla-ref/<backend>-<version>] [--cases DIR] [--only SUBSTR]
        [--no-jax] [--case-timeout 120]

Compiles every module of every `.hlo` case under --cases (default: the shared corpus's
cases/; `// -----` splits a file into modules) and the JAX programs of the shared
xla-reference kit (../shared/xla-reference/gen_jax_dumps.py beside the checkout, imported, not copied) for
one backend of xladl.py, and writes, per module, `programs/<name>/`:

  result.json   stage (parse | convert | lower | compile), ok, XLA's error text, its code
                (E1200 ...), XLA's host-compute warnings from the log, notes
  xla_dump/     XLA's dumps, trimmed: before_optimizations (the module as XLA got it),
                before/after host-offloader (and legalize / memory-placement), kept when
                under --max-dump-bytes

plus `summary.txt` (one line each) and `versions.txt`.
Nothing is executed. Compiles run in one child process per batch; a case that hangs or
crashes the child is recorded as TIMEOUT/CRASHED and the batch resumes after it.
"""

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xladl  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("HLOFF_SHARED_DIR", os.path.join(os.path.dirname(REPO), "shared"))
KIT = os.path.join(SHARED, "xla-reference", "gen_jax_dumps.py")

# Kept by default: the input and output of each of the three offloading passes (the
# pass-exact data), and for JAX programs the module as XLA got it (a corpus case's own text
# is its input). --all-pass-dumps keeps every dump that names one of them.
KEEP_DUMP_RE = re.compile(r"before_host-offloader\.txt$|after_host-offloader|"
                          r"before_host-offload-legalize\.txt$|after_host-offload-legalize|"
                          r"before_convert-memory-placement-to-internal-annotations\.txt$|"
                          r"after_convert-memory-placement-to-internal-annotations")
KEEP_DUMP_JAX_RE = re.compile(r"before_optimizations\.txt$")
KEEP_DUMP_ALL_RE = re.compile(r"before_optimizations\.txt$|host-offload|memory-placement")
# Dumps named after the TPU-only passes around the HostOffloader are left out.
SKIP_DUMP_RE = re.compile(r"host-offloading-prepare|host-offload-normalization|"
                          r"host_compute_asyncifier")
CONVERT_FAILED = "=> StableHLO failed"
# absl/glog line prefix (severity, date, time, thread): dropped so that data regenerate alike.
LOG_PREFIX_RE = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ ")
ERROR_CODE_RE = re.compile(r"\b(E\d{4}): ([A-Za-z]+)")
# JAX programs of the kit that need a loaded client (they compile with compile_and_load).
KIT_SKIP = {"a2_raw_result_flipped_to_device":
            "compiles through a loaded client; the compile-only client takes an ir.Module "
            "(the same flip is probe.py's raw_* trials)"}


# Modules of the corpus's real/ folder that carry host offloading (SOURCES.md there).
REAL_OFFLOAD = ["openxla__xla__offload_scan_output.hlo",
                "openxla__xla__hlo_llama3_8b_bf16_activation_offloading_1x8.hlo",
                "openxla__xla__nv_maxtext_deepseek_1n4g_jit_train_step_before_optimization.hlo"]


def list_cases(cases_dir, only, real=()):
    """[(name, source path relative to the corpus folder, module index, module text)].

    Every module of every .hlo file under cases_dir, then each file of `real` (names in the
    corpus's real/ folder beside cases_dir, one module each).
    """
    corpus = os.path.dirname(os.path.abspath(cases_dir))
    out = []
    paths = sorted(glob.glob(os.path.join(cases_dir, "**", "*.hlo"), recursive=True))
    for path in paths + [os.path.join(corpus, "real", r) for r in real]:
        rel = os.path.relpath(path, corpus)
        with open(path) as fh:
            text = fh.read()
        mods = [text] if rel.startswith("real" + os.sep) else xladl.split_modules(text)
        for i, text in enumerate(mods):
            name = os.path.relpath(path, cases_dir if path in paths else corpus)
            name = os.path.splitext(name)[0] + ("" if len(mods) == 1 else "#%d" % i)
            if only and not any(o in name for o in only.split(",")):
                continue
            out.append((name, rel, i, text))
    return out


def num_partitions(hlo_text):
    """num_partitions of an HloModule header line (1 when absent)."""
    m = re.search(r"\bnum_partitions=(\d+)", hlo_text.split("\n", 1)[0] if
                  hlo_text.startswith("HloModule") else hlo_text[:4000])
    return int(m.group(1)) if m else 1


def safe_dir(name):
    """Folder name under programs/ for a module name (suite/file#k -> suite__file__mk)."""
    return re.sub(r"[^A-Za-z0-9_.#-]", "_", name.replace("/", "__")).replace("#", "__m")


def load_kit():
    """Imports the shared xla-reference kit (gen_jax_dumps.py) from its own file."""
    spec = importlib.util.spec_from_file_location("gen_jax_dumps", KIT)
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    return kit


# ---------------------------------------------------------------------------------------
# Child
# ---------------------------------------------------------------------------------------

class KitCtx(object):
    """The kit's Ctx with the shardings placed on the lowering device (no jax.devices())."""

    def __init__(self, kit, device):
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
        self.jax, self.jnp, self.np = jax, jnp, np
        self.dev = device
        mesh = Mesh(np.array([device]), ("x",))
        self.s_dev = NamedSharding(mesh, PartitionSpec(), memory_kind="device")
        self.s_host = self.s_dev.with_memory_kind("pinned_host")
        self.sharding_kind = "NamedSharding(1-device mesh, P())"
        self.f32, self.bf16 = jnp.float32, jnp.bfloat16
        # The kit's Ctx methods, bound to this object.
        for meth in ("sds", "to_host", "to_dev", "space", "offload_policy",
                     "checkpoint_name", "host_compute"):
            setattr(self, meth, getattr(kit.Ctx, meth).__get__(self))


class KitRec(object):
    """The part of the kit's Recorder that its programs call, compiling for a Target."""

    def __init__(self, target, module_name, row):
        self.target, self.module_name, self.row = target, module_name, row
        self.result = row
        self.stage = "trace"

    def note(self, key, value):
        self.row.setdefault("notes", {})[key] = value if isinstance(
            value, (str, int, float, bool, type(None), list, dict)) else repr(value)

    def lower_and_compile(self, jitted, *args):
        from jax._src.interpreters import mlir
        from jax._src.lib.mlir import ir
        self.stage = self.row["stage"] = "lower"
        text = jitted.lower(*args).as_text()
        self.stage = self.row["stage"] = "compile"
        with mlir.make_ir_context():
            module = ir.Module.parse(text)
            module.operation.attributes["sym_name"] = ir.StringAttr.get(self.module_name)
            self.target.compile_mlir(module)


def child(args, names_file, progress_file, out_root):
    """Compiles each module named in names_file (in this process), writing its result.json;
    progress_file names the module being compiled, for the parent's watch."""
    with open(names_file) as fh:
        todo = json.load(fh)
    tc = xladl.read_target_config(args.topology, args.target_config) \
        if args.backend == "cuda" else None
    target = xladl.Target(args.backend, args.topology, tc)
    kinds = target.memory_kinds()
    lower_dev = target.device
    if not isinstance(kinds, list) or "pinned_host" not in kinds:
        # The compile-only CUDA device lists no memories and JAX then drops every memory
        # kind. The CPU device has pinned_host but JAX elides some device_puts on it (the
        # one inside a scan body of jax/j), so JAX programs are lowered against a TPU
        # topology's device when libtpu is there, and on the CPU device only otherwise.
        lower_dev = None
        if xladl.installed("tpu"):
            try:
                from jax.experimental import topologies
                lower_dev = topologies.get_topology_desc(
                    platform="tpu", topology_name=xladl.DEFAULT_TOPOLOGY["tpu"]).devices[0]
            except Exception as e:  # recorded per program below
                print("TPU topology for lowering failed: %r" % (e,), file=sys.stderr)
        if lower_dev is None:
            import jax
            lower_dev = jax.devices("cpu")[0]
    kit = None
    real = () if args.no_real else REAL_OFFLOAD
    cases = {c[0]: c for c in list_cases(args.cases, None, real)} if any(
        not t["name"].startswith("jax/") for t in todo) else {}
    spmd_targets = {}
    for item in todo:
        name, mname = item["name"], item["module"]
        with open(progress_file, "w") as fh:
            fh.write(name)
        pdir = os.path.join(out_root, "programs", safe_dir(name))
        os.makedirs(pdir, exist_ok=True)
        row = {"name": name, "module_name": mname, "stage": "parse", "ok": False}
        log_path = os.path.join(pdir, "stderr.full.log")
        with xladl.StderrCapture(log_path):
            try:
                if name.startswith("jax/"):
                    if kit is None:
                        kit = load_kit()
                    prog = name[4:]
                    fn, expect, description = kit.PROGRAMS[prog]
                    row.update(expect=expect, description=description,
                               lowered_on=str(lower_dev))
                    rec = KitRec(target, mname, row)
                    row["stage"] = "trace"
                    ctx = KitCtx(kit, lower_dev)
                    ctx.rec = rec
                    fn(ctx, rec)
                else:
                    _, rel, idx, text = cases[name]
                    row.update(source=rel, module_index=idx,
                               source_sha256=hashlib.sha256(text.encode()).hexdigest())
                    row["stage"] = "parse"
                    from jaxlib import _hlo
                    _hlo.hlo_module_from_text(text)  # XLA's own parser, alone
                    row["stage"] = "convert"
                    module, ctx, notes = xladl.hlo_text_to_module(text, mname)
                    if notes:
                        row["notes"] = notes
                    row["stage"] = "compile"
                    parts = num_partitions(text)
                    use = target
                    if parts > 1:
                        # An SPMD module: as many devices as its partitions.
                        row["num_partitions"] = parts
                        # SPMD (as JAX compiles), except for a module written per
                        # partition: partition-id and no shardings.
                        spmd = "sharding=" in text or "partition-id(" not in text
                        row["spmd_partitioning"] = spmd
                        if (parts, spmd) not in spmd_targets:
                            topo = args.topology if args.backend == "cuda" else (
                                {4: "v5e:2x2", 8: "v5e:2x4"}.get(parts, args.topology))
                            spmd_targets[(parts, spmd)] = xladl.Target(
                                args.backend, topo, tc, parts, spmd)
                        use = spmd_targets[(parts, spmd)]
                        row["topology"] = use.topology if args.backend == "tpu" else \
                            "%s x%d" % (args.topology, parts)
                    with ctx:
                        use.compile_mlir(module)
                row["ok"] = True
            except Exception as e:  # XLA's verdict or a fault; the stage tells which
                text = str(e)
                row["error"] = text
                row["error_type"] = type(e).__name__
                if row["stage"] == "compile" and CONVERT_FAILED in text:
                    # Legalizing to StableHLO failed at the start of the compile: the
                    # module never reached XLA's HLO passes.
                    row["stage"] = "convert"
                m = ERROR_CODE_RE.search(text)
                if m:
                    row["code"], row["code_name"] = m.group(1), m.group(2)
                if row["stage"] in ("parse", "convert", "lower", "trace"):
                    row["traceback_tail"] = traceback.format_exc().splitlines()[-3:]
        with open(log_path, errors="replace") as fh:
            log = fh.read()
        warnings = [LOG_PREFIX_RE.sub("", l) for l in xladl.host_compute_warnings(log)]
        row["host_compute_warning_count"] = len(warnings)
        row["host_compute_warnings"] = [l[:400] for l in warnings[:8]]
        with open(os.path.join(pdir, "result.json"), "w") as fh:
            json.dump(row, fh, indent=1, sort_keys=True)
    with open(progress_file, "w") as fh:
        fh.write("")


# ---------------------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------------------

def collect_dumps(dump_dir, out_root, items, max_bytes, all_dumps):
    """Moves each module's kept dump files into programs/<name>/xla_dump/."""
    names = sorted(os.listdir(dump_dir)) if os.path.isdir(dump_dir) else []
    for item in items:
        pdir = os.path.join(out_root, "programs", safe_dir(item["name"]))
        rpath = os.path.join(pdir, "result.json")
        if not os.path.exists(rpath):
            continue
        with open(rpath) as fh:
            row = json.load(fh)
        mine = [n for n in names if (".%s." % item["module"]) in n and n.endswith(".txt")]
        kept, dropped = [], []
        for n in mine:
            keep = KEEP_DUMP_ALL_RE.search(n) if all_dumps else (
                KEEP_DUMP_RE.search(n) or (item["name"].startswith("jax/") and
                                           KEEP_DUMP_JAX_RE.search(n)))
            if not keep or SKIP_DUMP_RE.search(n):
                continue
            src = os.path.join(dump_dir, n)
            if os.path.getsize(src) > max_bytes:
                dropped.append("%s (%d bytes)" % (n, os.path.getsize(src)))
                continue
            os.makedirs(os.path.join(pdir, "xla_dump"), exist_ok=True)
            # The compilation id XLA puts in TPU dump names changes between runs.
            short = re.sub(r"^module_\d+\.", "", n)
            short = re.sub(r"\.cl_\d+\.", ".", short)
            shutil.copyfile(src, os.path.join(pdir, "xla_dump", short))
            kept.append(short)
        row["dump_files_kept"] = kept
        if dropped:
            row["dump_files_too_large"] = dropped
        row["after_host_offloader_dumped"] = any("after_host-offloader" in k for k in kept)
        with open(rpath, "w") as fh:
            json.dump(row, fh, indent=1, sort_keys=True)


def run_batches(args, items, out_root):
    """Runs children until every item has a result; a hang or crash is recorded for the item
    that caused it and the next child starts after it. Then collects the dumps."""
    dump_dir = tempfile.mkdtemp(prefix="xla-ref-dump-")
    work = tempfile.mkdtemp(prefix="xla-ref-work-")
    remaining = list(items)
    while remaining:
        names_file = os.path.join(work, "todo.json")
        progress = os.path.join(work, "progress.txt")
        with open(names_file, "w") as fh:
            json.dump(remaining, fh)
        if os.path.exists(progress):
            os.remove(progress)
        cmd = [sys.executable, os.path.abspath(__file__), "--child", names_file, progress,
               "--backend", args.backend, "--topology", args.topology, "--cases", args.cases,
               *(["--no-real"] if args.no_real else []),
               "--out", out_root]
        if args.target_config:
            cmd += ["--target-config", args.target_config]
        env = xladl.child_env(args.backend, dump_dir)
        timeout = args.case_timeout * len(remaining) + 60
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        # Watch progress: a case that runs past --case-timeout is killed and recorded.
        current, since = None, time.time()
        status = None
        while True:
            try:
                proc.wait(timeout=2)
                status = "exit %d" % proc.returncode
                break
            except subprocess.TimeoutExpired:
                pass
            try:
                with open(progress) as fh:
                    now = fh.read()
            except OSError:
                now = None
            if now != current:
                current, since = now, time.time()
            elif now and time.time() - since > args.case_timeout:
                proc.kill()
                proc.wait()
                status = "TIMEOUT"
                break
            if time.time() - since > timeout:
                proc.kill()
                proc.wait()
                status = "TIMEOUT"
                break
        err = proc.stderr.read() if proc.stderr else ""
        try:
            with open(progress) as fh:
                last = fh.read()
        except OSError:
            last = None
        done = {it["name"] for it in remaining if os.path.exists(os.path.join(
            out_root, "programs", safe_dir(it["name"]), "result.json"))}
        if not last:  # finished (or died before starting any case)
            if proc.returncode not in (0, None) and not done:
                raise SystemExit("child failed before any case: %s\n%s" % (
                    status, "\n".join(err.splitlines()[-15:])))
            break
        # `last` hung or crashed the child: record it and go on after it.
        pdir = os.path.join(out_root, "programs", safe_dir(last))
        os.makedirs(pdir, exist_ok=True)
        fatal = []
        try:
            with open(os.path.join(pdir, "stderr.full.log"), errors="replace") as fh:
                fatal = [LOG_PREFIX_RE.sub("", l)[:600] for l in fh.read().splitlines()
                         if re.search(r"Check failed|^F\d{4}|RET_CHECK|\*\*\* ", l)][:8]
            # Signal lines name pids, tids and addresses: only the signal is kept.
            fatal = [re.sub(r"^\*\*\* (SIG[A-Z]+).*", r"*** \1", l) for l in fatal]
        except OSError:
            pass
        row = {"name": last, "ok": False, "stage": "compile",
               "error": "%s while compiling (child %s); XLA's fatal log lines:\n%s" % (
                   "TIMEOUT" if status == "TIMEOUT" else "CRASHED", status,
                   "\n".join(fatal) or "(none)"),
               "code": "TIMEOUT" if status == "TIMEOUT" else "CRASHED"}
        with open(os.path.join(pdir, "result.json"), "w") as fh:
            json.dump(row, fh, indent=1, sort_keys=True)
        idx = [it["name"] for it in remaining].index(last)
        remaining = remaining[idx + 1:]
    collect_dumps(dump_dir, out_root, items, args.max_dump_bytes, args.all_pass_dumps)
    shutil.rmtree(dump_dir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


def versions_text(args):
    """versions.txt: the installed jax, jaxlib and compiler packages (read from their
    metadata, xladl.versions_lines), backend, topology, Python; for cuda ptxas and the
    target config; the XLA commit where jaxlib's is known; the dump flags."""
    lines = xladl.versions_lines(args.backend, args.topology)
    found = dict(l.split(" ", 1) for l in lines)
    if args.backend == "cuda":
        # XLA's GPU compile runs ptxas (found on PATH or under a CUDA directory) for the cubin.
        ptxas = shutil.which("ptxas")
        try:
            ver = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout \
                if ptxas else ""
        except OSError:
            ver = ""
        lines.append("ptxas %s %s" % (ptxas or "not on PATH",
                                      (ver.strip().splitlines() or [""])[-1]))
        lines.append("target_config xla/backends/gpu/target_config/specs/%s.txtpb at XLA %s"
                     % (args.topology, xladl.XLA_COMMIT_FOR_JAXLIB_0_10_2))
    # The XLA commit jaxlib 0.10.2 was built from (its release notes); other jaxlibs do not
    # say theirs.
    lines.append("jaxlib_xla_commit %s" % (xladl.XLA_COMMIT_FOR_JAXLIB_0_10_2
                                          if found.get("jaxlib") == "0.10.2" else "unknown"))
    lines.append("xla_flags --xla_dump_to=DIR --xla_dump_hlo_pass_re=%s" % xladl.DUMP_PASS_RE)
    return "\n".join(lines) + "\n"


def summary_line(row):
    """One summary.txt line: name, verdict, host-compute warnings, dumps kept."""
    if row.get("ok"):
        verdict = "compiled ok"
    elif row.get("code"):
        verdict = "error[%s]: %s" % (row.get("stage"), row["code"])
    else:
        first = next((l for l in row.get("error", "").splitlines() if l.strip()), "?")
        verdict = "error[%s]: %s" % (row.get("stage"), first[:140])
    extra = []
    if row.get("host_compute_warnings"):
        extra.append("host-compute-warning x%d" % row.get("host_compute_warning_count", 0))
    extra.append("pass-dumps=%d" % len(row.get("dump_files_kept", [])))
    return "%-60s %s  %s" % (row["name"], verdict, " ".join(extra))


def main():
    """Compiles the cases and programs for one backend and writes the reference folder."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["tpu", "cuda"])
    ap.add_argument("--topology")
    ap.add_argument("--target-config")
    ap.add_argument("--out")
    ap.add_argument("--cases", default=os.path.join(SHARED, "corpus", "cases"))
    ap.add_argument("--only", help="keep only names containing one of these (comma-separated)")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--no-cases", action="store_true")
    ap.add_argument("--no-real", action="store_true",
                    help="leave out the corpus's real/ offloading modules")
    ap.add_argument("--case-timeout", type=int, default=120)
    ap.add_argument("--max-dump-bytes", type=int, default=64 * 1024)
    ap.add_argument("--all-pass-dumps", action="store_true")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not args.backend:
        ap.error("--backend is required")
    args.topology = args.topology or xladl.DEFAULT_TOPOLOGY[args.backend]
    if args.child:
        child(args, args.child[0], args.child[1], args.out)
        return 0
    if not xladl.installed(args.backend):
        raise SystemExit("%s is not installed in %s: %s" % (
            args.backend, xladl.pkg_dir(args.backend), " ".join(xladl.install_command(
                args.backend))))
    if not args.out:
        args.out = os.path.join(REPO, "tests", "xla-ref",
                                xladl.ref_folder(args.backend, args.topology))
    out_root = os.path.abspath(args.out)
    if os.path.isdir(os.path.join(out_root, "programs")):
        shutil.rmtree(os.path.join(out_root, "programs"))
    os.makedirs(out_root, exist_ok=True)
    items = []
    if not args.no_cases:
        for n, (name, _, _, _) in enumerate(list_cases(
                args.cases, args.only, () if args.no_real else REAL_OFFLOAD)):
            items.append({"name": name, "module": "c%03d" % n})
    if not args.no_jax:
        kit = load_kit()
        for n, prog in enumerate(kit.ORDER):
            name = "jax/" + prog
            if args.only and not any(o in name for o in args.only.split(",")):
                continue
            if prog in KIT_SKIP:
                print("skip %s: %s" % (name, KIT_SKIP[prog]))
                continue
            items.append({"name": name, "module": "jax%02d_%s" % (n, prog.split("_")[0])})
    t0 = time.time()
    run_batches(args, items, out_root)
    rows = []
    for item in items:
        pdir = os.path.join(out_root, "programs", safe_dir(item["name"]))
        try:
            with open(os.path.join(pdir, "result.json")) as fh:
                rows.append(json.load(fh))
        except OSError:
            rows.append({"name": item["name"], "ok": False, "stage": "missing",
                         "error": "no result"})
        log = os.path.join(pdir, "stderr.full.log")
        if os.path.exists(log):
            # Only the lines worth keeping: XLA's warnings and errors, not its init chatter.
            with open(log, errors="replace") as fh:
                keep = [l for l in fh.read().splitlines()
                        if xladl.HOST_COMPUTE_RE.search(l) or re.search(
                            r"\bE1\d{3}\b|Check failed|INVALID_ARGUMENT|UNIMPLEMENTED", l)]
            os.remove(log)
            if keep:
                with open(os.path.join(pdir, "stderr.log"), "w") as fh:
                    fh.write("\n".join(LOG_PREFIX_RE.sub("", l)[:600] for l in keep[:50]) +
                             "\n")
        if not rows[-1].get("ok") and rows[-1].get("error"):
            with open(os.path.join(pdir, "error.txt"), "w") as fh:
                fh.write("stage: %s\n\n%s\n" % (rows[-1].get("stage"), rows[-1]["error"]))

    with open(os.path.join(out_root, "summary.txt"), "w") as fh:
        fh.write("".join(summary_line(r) + "\n" for r in rows))
    with open(os.path.join(out_root, "versions.txt"), "w") as fh:
        fh.write(versions_text(args))
    print("%d modules in %.0f s -> %s" % (len(rows), time.time() - t0, out_root))
    by = {}
    for r in rows:
        key = "compiled" if r.get("ok") else (r.get("code") or "error[%s]" % r.get("stage"))
        by[key] = by.get(key, 0) + 1
    print("verdicts: %s" % ", ".join("%s %d" % kv for kv in sorted(by.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
