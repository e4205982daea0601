"""hlo-offload's verdict against real XLA's, module by module.

The expected data under tests/xla-ref/<backend>-<version>/ comes from deviceless compiles
with real XLA on this machine (scripts/xla_deviceless/gen_ref.py; docs/DEVICELESS.md):
libtpu 0.0.42.1 for a v5e:2x2 topology and the CUDA 12 plugin 0.10.2 for an H100 target
config, both with jax/jaxlib 0.10.2; libtpu 0.0.52 and the CUDA 12 plugin 0.12.0.1 with
jax/jaxlib 0.12.0.1; each folder's modules are checked with that version's semantics
(`--xla-version`); and jax-0.11.2-cuda13-h200/ from a real GPU (an NVIDIA H200
with JAX 0.11.2 and its CUDA 13 plugin: the reference kit's programs, compiled on the device,
stored by scripts/xla_gpu/store_run.py). Each program folder's result.json holds XLA's verdict:
it compiled, or it failed with XLA's error text (E1200 ...), plus XLA's host-compute
warnings from its log. No package is needed at test time: the verdicts are stored.

A verdict is compared when XLA got as far as its HLO passes and answered about the module:
  compiled            hlo-offload `check` exits 0 with no error; XLA's host-compute warning
                      ("does device compute in host memory space") <=> hlo-offload's HO2001
  E1200 (any E1xxx)   hlo-offload reports that code
  INVALID_ARGUMENT    hlo-offload reports an error (exit 1); so does FAILED_PRECONDITION,
                      XLA's verifier rejecting memory spaces after the HostOffloader and
                      libtpu refusing a host transfer (UNIMPLEMENTED: HO1013, HO1015, HO1016)
  XLA's parser        hlo-offload rejects the text too (exit 2)
A module that could not be expressed as StableHLO (the compile-only clients take only
StableHLO; `stage` = convert), or on which XLA failed inside a pass unrelated to
offloading (INTERNAL, NOT_FOUND, RESOURCE_EXHAUSTED, a CHECK crash), is skipped with XLA's
error as the reason. Where hlo-offload disagrees, the test is xfail(strict=True) with the
reason in DISAGREEMENTS.

The corpus cases are read from the shared corpus (skipped when it is absent); a case whose
text no longer matches the sha256 recorded with XLA's verdict fails: regenerate the data.
"""
import collections
import hashlib
import json
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
REF = REPO / "tests" / "xla-ref"
sys.path.insert(0, str(REPO / "scripts" / "xla_deviceless"))
import xladl  # noqa: E402  (split_modules: the same splitting as the generator)

COMPARED_STAGES = ("parse", "compile")
TPU_TRANSFER_LIMIT = re.compile(
    r"UNIMPLEMENTED: (Async slice only supports slicing in 1 dimension|Lane slice updating|"
    r"Updating the lane dimension|Updating the sublane dimension across|Strided Host<->HBM)")
NOT_OFFLOAD_VERDICT = re.compile(r"^(INTERNAL|NOT_FOUND|RESOURCE_EXHAUSTED|TIMEOUT|CRASHED)"
                                 r"|while compiling|=> StableHLO failed")

# name (as in summary.txt) -> reason; the key "*" applies to every backend folder,
# "<folder>:<name>" to one.
_NAME_S1 = (
    "XLA's HLO parser (jaxlib 0.10.2) reads `s1` / `u1` as the primitive types S1 / U1 "
    "(xla_data.proto) and rejects them as instruction names (\"expects name\"); "
    "hlo-offload's parser accepts them, so it checks a module that XLA cannot read")
_TPU_LAYOUT = (
    "libtpu's layout assignment gives the stacked activations a {1,2,0} layout so that the "
    "transpose between the loops becomes a bitcast (before_host-offloader dump: bitcast.5) "
    "and no host compute is needed; the GPU compile keeps the transpose and warns, as "
    "hlo-offload does")
DISAGREEMENTS = {
    "*:xla/053-host-call-feeds-host-call": _NAME_S1,
    "*:xla/055-mth-in-loop-shared-broadcast": _NAME_S1,
    "*:xla/062-conditional-branches-offload": _NAME_S1,
    "*:xla/079-legalize-copy-through-opt-barrier": _NAME_S1,
    "*:xla/080-legalize-xpose-copy-on-param-streaming": _NAME_S1,
    "*:xla/092-convert-unpinned-host": _NAME_S1,
    "libtpu-0.0.42.1-v5e_2x2:bugs/B05-transpose-between-offload-loops": _TPU_LAYOUT,
    "libtpu-0.0.52-v5e_2x2:bugs/B05-transpose-between-offload-loops": _TPU_LAYOUT,
    "cuda12-plugin-0.12.0.1-h100_sxm:bugs/B05-transpose-between-offload-loops": (
        "both convert one transpose into host compute (XLA's warning names \"transpose\"; "
        "`hlo-offload check --xla=cuda` with jax-cuda12-plugin 0.12.0.1 shows it), but "
        "jaxlib 0.12.0.1's conversion of the module to StableHLO and back gives that "
        "transpose the op_name of the tuple around it (\"bwd\", before_host-offloader dump) "
        "where jaxlib 0.10.2 kept the corpus's (\"jit(train_step)/transpose\"), so this "
        "comparison, which matches XLA's instruction to the input's by op_name, cannot "
        "pair them"),
}


def load_rows():
    """Every stored result.json, with its folder (backend) and program directory."""
    rows = []
    for folder in sorted(p for p in REF.iterdir() if (p / "summary.txt").is_file()):
        for result in sorted((folder / "programs").glob("*/result.json")):
            row = json.loads(result.read_text())
            row["_dir"] = result.parent
            row["_folder"] = folder.name
            rows.append(row)
    return rows


ROWS = load_rows()


def xla_verdict(row):
    """'compiled', an error code, 'invalid-argument', 'parse-error', or None (not compared)."""
    if row.get("ok"):
        return "compiled"
    if row.get("stage") not in COMPARED_STAGES:
        return None
    error = row.get("error", "")
    if TPU_TRANSFER_LIMIT.match(error):
        # libtpu refusing a transfer between host memory and device (HO1013, HO1015,
        # HO1016): an error the tool reports, named by its own code.
        return "invalid-argument"
    if "hlo_verifier.cc" in error and "memory space" in error:
        # XLA's verifier, run after the HostOffloader, rejects the memory spaces it left.
        return "invalid-argument"
    if NOT_OFFLOAD_VERDICT.search(error):
        return None
    if row.get("stage") == "parse":
        return "parse-error"
    if row.get("code", "").startswith("E"):
        return row["code"]
    if error.startswith("INVALID_ARGUMENT") or error.startswith("FAILED_PRECONDITION"):
        return "invalid-argument"
    return None


def module_text(row, shared_dir):
    """The module XLA judged: the corpus case's text (sha256-checked) or, for a JAX program,
    XLA's before_optimizations dump."""
    if row["name"].startswith("jax/"):
        dumps = sorted((row["_dir"] / "xla_dump").glob("*before_optimizations.txt"))
        assert dumps, "no before_optimizations dump kept for %s" % row["name"]
        return dumps[0].read_text()
    path = shared_dir / "corpus" / row["source"]
    whole = path.read_text()
    text = whole if row["source"].startswith("real/") else \
        xladl.split_modules(whole)[row["module_index"]]
    assert hashlib.sha256(text.encode()).hexdigest() == row["source_sha256"], (
        "%s changed since XLA's verdict was recorded; rerun gen_ref.py" % path)
    return text


# The backend each folder's compiles are for (`--backend`): the GPU verifier's limits
# (HO1012) and the host gather (HO3002) differ between them.
BACKEND_OF_FOLDER = {"cuda12-plugin-0.10.2-h100_sxm": "gpu", "libtpu-0.0.42.1-v5e_2x2": "tpu",
                     "libtpu-0.0.52-v5e_2x2": "tpu", "cuda12-plugin-0.12.0.1-h100_sxm": "gpu",
                     "jax-0.11.2-cuda13-h200": "gpu"}
# The XLA semantics each folder's verdicts are reproduced with (`--xla-version`).
XLA_VERSION_OF_FOLDER = {
    "cuda12-plugin-0.10.2-h100_sxm": "jax-cuda12-plugin-0.10.2",
    "cuda12-plugin-0.12.0.1-h100_sxm": "jax-cuda12-plugin-0.12.0.1",
    "libtpu-0.0.42.1-v5e_2x2": "libtpu-0.0.42.1", "libtpu-0.0.52-v5e_2x2": "libtpu-0.0.52",
    "jax-0.11.2-cuda13-h200": "jax-cuda13-plugin-0.11.2"}


def hloff_check(hloff_bin, text, tmp_path, backend="any", xla_version="newest"):
    """Runs `hlo-offload check --format=json --backend=B --xla-version=V`; returns (exit
    status, diagnostics, stderr)."""
    path = tmp_path / "module.hlo"
    path.write_text(text)
    proc = subprocess.run([str(hloff_bin), "check", "--format=json", f"--backend={backend}",
                           f"--xla-version={xla_version}", str(path)],
                          capture_output=True, text=True, timeout=120)
    diags = []
    if proc.stdout.strip().startswith("{"):
        for f in json.loads(proc.stdout).get("files", []):
            diags += f.get("diagnostics", [])
    return proc.returncode, diags, proc.stderr


_WARNED = re.compile(r'Found an instruction \("([^"]+)"\)')
_OP_NAME = re.compile(r'op_name="([^"]*)"')


def _op_name_in(text, name):
    """The metadata op_name of instruction `name` in HLO `text`, or None."""
    m = re.search(r"^\s*(?:ROOT )?%?" + re.escape(name) + r" = .*$", text, re.M)
    if not m:
        return None
    op = _OP_NAME.search(m.group(0))
    return op.group(1) if op else None


def warned_keys_of_xla(row):
    """What XLA converted into host compute, by the name the input gave the instruction:
    XLA's StableHLO round trip renames instructions but keeps each corpus instruction's
    name as its op_name (gen_ref.py), and a JAX program's instructions carry JAX's
    op_name or keep their names; read from XLA's own before_host-offloader dump."""
    names = {m.group(1) for m in map(_WARNED.search, row.get("host_compute_warnings", [])) if m}
    if not names:
        return set()
    dumps = sorted((row["_dir"] / "xla_dump").glob("*before_host-offloader*"))
    assert dumps, "no before_host-offloader dump kept for %s" % row["name"]
    dump = dumps[0].read_text()
    keys = set()
    for name in names:
        assert re.search(r"^\s*(?:ROOT )?%?" + re.escape(name) + " = ", dump, re.M), (
            "%s not in XLA's dump %s" % (name, dumps[0].name))
        keys.add(_op_name_in(dump, name) or name)
    return keys


def warned_keys_of_tool(row, ho2001, text):
    """The tool's HO2001 instructions, keyed as warned_keys_of_xla keys XLA's: by the
    op_name of the instruction in the module checked, else by its name."""
    keys = set()
    for d in ho2001:
        name = _WARNED.search(d["message"]).group(1)
        keys.add(_op_name_in(text, name) or name)
    return keys


def params():
    """One pytest param per stored module, with its skip or xfail mark."""
    out = []
    for row in ROWS:
        verdict = xla_verdict(row)
        rid = "%s:%s" % (row["_folder"], row["name"])
        marks = []
        if verdict is None:
            first = next((l for l in row.get("error", "").splitlines() if l.strip()), "?")
            marks.append(pytest.mark.skip(reason="not an offloading verdict of XLA "
                                          "(stage %s): %s" % (row.get("stage"), first[:200])))
        reason = DISAGREEMENTS.get(rid) or DISAGREEMENTS.get("*:" + row["name"])
        if reason:
            marks.append(pytest.mark.xfail(strict=True, reason=reason))
        out.append(pytest.param(row, verdict, id=rid, marks=marks))
    return out


@pytest.mark.parametrize("row,verdict", params())
def test_verdict_matches_xla(row, verdict, hloff_bin, shared_dir, tmp_path):
    """hlo-offload's whole-pipeline verdict is XLA's (see the module docstring)."""
    text = module_text(row, shared_dir)
    rc, diags, stderr = hloff_check(hloff_bin, text, tmp_path,
                                    BACKEND_OF_FOLDER[row["_folder"]],
                                    XLA_VERSION_OF_FOLDER[row["_folder"]])
    errors = [d for d in diags if d.get("severity") == "error"]
    codes = sorted({d.get("code") for d in errors})
    ho2001 = [d for d in diags if d.get("code") == "HO2001"]
    if verdict == "compiled":
        assert rc == 0 and not errors, "XLA compiled it; hlo-offload: exit %d, %s %s" % (
            rc, codes, stderr[:300])
        xla_warned = row.get("host_compute_warning_count", 0) > 0
        assert bool(ho2001) == xla_warned, (
            "XLA logged %d host-compute warning(s); hlo-offload gave %d HO2001" % (
                row.get("host_compute_warning_count", 0), len(ho2001)))
        # Instruction by instruction: the set XLA converts is the set the tool warns on.
        assert warned_keys_of_tool(row, ho2001, text) == warned_keys_of_xla(row), (
            "XLA converted %s; hlo-offload warned HO2001 on %s" % (
                sorted(warned_keys_of_xla(row)), sorted(warned_keys_of_tool(row, ho2001, text))))
    elif verdict == "parse-error":
        assert rc == 2, "XLA's parser rejects it (%s); hlo-offload: exit %d, %s" % (
            row["error"].splitlines()[0][:200], rc, codes)
    elif verdict == "invalid-argument":
        assert rc == 1 and errors, "XLA: %s; hlo-offload: exit %d, no error" % (
            row["error"].splitlines()[0][:200], rc)
    else:
        assert rc == 1 and verdict in codes, "XLA: %s; hlo-offload: exit %d, %s %s" % (
            verdict, rc, codes, stderr[:300])


def test_reference_data_present():
    """Both backends' data are there and most of it is comparable."""
    folders = {r["_folder"] for r in ROWS}
    assert len(folders) >= 2, folders
    compared = [r for r in ROWS if xla_verdict(r) is not None]
    assert len(compared) >= 100, len(compared)


# ---- the HostOffloader alone, on XLA's own input to it --------------------------------
# XLA's dump `...before_host-offloader.txt` is exactly the module HostOffloader got; its
# `...after_host-offloader...` dump is what it made. `hlo-offload opt --passes=host-offloader`
# on the first must give XLA's verdict (E1200 or not, host-compute warning or not) and the
# same memory spaces: for every instruction in both outputs, the same number of S(5) leaves
# in its shape and the same _xla_compute_type="host" marking. This takes the passes that run
# before the HostOffloader out of the comparison.

INSTR_RE = re.compile(r"^\s*(?:ROOT\s+)?%?([A-Za-z_][\w.\-]*)\s*=\s*(.*)$")
COMP_RE = re.compile(r"^\s*(?:ENTRY\s+)?%?([A-Za-z_][\w.\-]*)\s.*\{\s*$")

# (folder or "*") ":" name -> reason, for the pass-level test.
PASS_DISAGREEMENTS = {}


def _shape_of(rest):
    """The shape at the start of an instruction's right-hand side (a tuple shape whole)."""
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                return rest[:i + 1]
    return rest.split(" ", 1)[0]


def memory_spaces(text):
    """{computation/instruction: (S(5) leaves, host-compute)} of an HLO module's text."""
    out, comp = {}, ""
    for line in text.splitlines():
        m = INSTR_RE.match(line)
        if m and not line.lstrip().startswith("HloModule"):
            out["%s/%s" % (comp, m.group(1))] = (_shape_of(m.group(2)).count("S(5)"),
                                                 '_xla_compute_type="host"' in line)
            continue
        c = COMP_RE.match(line)
        if c and not line.lstrip().startswith("HloModule"):
            comp = c.group(1)
    return out


def tuple_reads(text):
    """{computation/instruction} of the get-tuple-element instructions of a module's text."""
    out, comp = set(), ""
    for line in text.splitlines():
        m = INSTR_RE.match(line)
        if m and not line.lstrip().startswith("HloModule"):
            if " get-tuple-element(" in line:
                out.add("%s/%s" % (comp, m.group(1)))
            continue
        c = COMP_RE.match(line)
        if c and not line.lstrip().startswith("HloModule"):
            comp = c.group(1)
    return out


def pass_params():
    """One param per module whose HostOffloader input XLA dumped (and that ran or gave E1200)."""
    out = []
    for row in ROWS:
        dumps = sorted((row["_dir"] / "xla_dump").glob("*before_host-offloader.txt")) \
            if (row["_dir"] / "xla_dump").is_dir() else []
        if len(dumps) != 1:
            continue
        after = sorted((row["_dir"] / "xla_dump").glob("*after_host-offloader*"))
        if after:
            verdict = "ran"
        elif row.get("code") == "E1200":
            verdict = "E1200"
        else:
            continue  # the compile stopped inside the pass for another reason
        rid = "%s:%s" % (row["_folder"], row["name"])
        reason = PASS_DISAGREEMENTS.get(rid) or PASS_DISAGREEMENTS.get("*:" + row["name"])
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(row, dumps[0], after[0] if after else None, verdict,
                                id=rid, marks=marks))
    return out


@pytest.mark.parametrize("row,before,after,verdict", pass_params())
def test_host_offloader_pass_matches_xla(row, before, after, verdict, hloff_bin):
    """hlo-offload's HostOffloader on XLA's own input gives XLA's verdict and memory spaces."""
    proc = subprocess.run([str(hloff_bin), "opt", "--passes=host-offloader", "--no-lints",
                           str(before)], capture_output=True, text=True, timeout=120)
    warned = "warning: HO2001" in proc.stderr
    if verdict == "E1200":
        assert proc.returncode == 1 and "E1200" in proc.stderr, (
            "XLA's HostOffloader: %s; hlo-offload: exit %d %s" % (
                row["error"].splitlines()[1][:200], proc.returncode, proc.stderr[:300]))
        # Same input module, so the same walk start: XLA's `starting from <name>`.
        start = re.search(r"starting from (\S+)\)", row["error"]).group(1)
        assert "starting from %s)" % start in proc.stderr, (
            "XLA starts from %s; hlo-offload: %s" % (start, proc.stderr[:300]))
        return
    assert proc.returncode == 0, "XLA's HostOffloader ran; hlo-offload: exit %d %s" % (
        proc.returncode, proc.stderr[:400])
    assert warned == (row.get("host_compute_warning_count", 0) > 0), (
        "XLA logged %d host-compute warning(s); hlo-offload HO2001: %s" % (
            row.get("host_compute_warning_count", 0), warned))
    # XLA's dumps as hlo-offload reads them: JAX 0.11's print compact get-tuple-element
    # operands (`%x#0`), which the parser makes into get-tuple-element instructions.
    def read(path):
        fmt = subprocess.run([str(hloff_bin), "fmt", str(path)], capture_output=True,
                             text=True, timeout=120)
        assert fmt.returncode == 0, fmt.stderr[:300]
        return fmt.stdout
    xla, ours = memory_spaces(read(after)), memory_spaces(proc.stdout)
    # The instructions of the pass's input are compared by name. The ones the pass makes
    # (copies, AllocateBuffers) are compared as a multiset: their names come from the
    # module's name uniquer, whose state XLA carries from every earlier pass (JAX 0.10.2's
    # XLA named two new copies copy.2 and copy.3, JAX 0.11.2's copy.1 and copy.2).
    given = set(memory_spaces(read(before)))
    common = sorted(set(xla) & set(ours) & given)
    assert common, "no instruction in common between XLA's and hlo-offload's output"
    diff = ["%s: XLA %s, hlo-offload %s" % (k, xla[k], ours[k]) for k in common
            if xla[k] != ours[k]]
    assert not diff, "(S(5) leaves, host compute) differ on %d of %d instructions: %s" % (
        len(diff), len(common), "; ".join(diff[:6]))
    # A get-tuple-element printed compactly (`%x#1`) has no name in the dump: when the
    # pass makes it a root, XLA prints the name it had before, unknown to the reader.
    gtes = {k for text in (read(after), proc.stdout) for k in tuple_reads(text)}
    made = [collections.Counter(v for k, v in spaces.items()
                                if k not in given and k not in gtes)
            for spaces in (xla, ours)]
    assert made[0] == made[1], "the new instructions differ: XLA %s, hlo-offload %s" % (
        dict(made[0]), dict(made[1]))


# ---- the stored verdicts still hold for the installed XLA (only where it is installed) ---
LIVE_SAMPLE = ["jax-like/01-jit_step-device-put-aux-output-e1200",
               "jax-like/02-jit_step-device-put-aux-output-pinned-host",
               "xla/058-tanh-on-host-memory"]


@pytest.mark.parametrize("folder,backend", [("cuda12-plugin-0.10.2-h100_sxm", "cuda"),
                                            ("libtpu-0.0.42.1-v5e_2x2", "tpu")])
def test_live_compile_gives_stored_verdict(folder, backend, shared_dir, tmp_path):
    """Recompiles a few modules with the installed plugin; skipped when it is absent."""
    if not xladl.installed(backend):
        pytest.skip("%s is not installed in %s (%s)" % (
            backend, xladl.pkg_dir(backend), " ".join(xladl.install_command(backend))))
    if backend == "cuda":
        try:
            xladl.read_target_config(xladl.DEFAULT_TOPOLOGY["cuda"])
        except RuntimeError as e:
            pytest.skip(str(e))
    out = tmp_path / folder
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "xla_deviceless" / "gen_ref.py"),
         "--backend", backend, "--out", str(out), "--no-jax", "--only", ",".join(LIVE_SAMPLE),
         "--cases", str(shared_dir / "corpus" / "cases")],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for name in LIVE_SAMPLE:
        sub = name.replace("/", "__")
        fresh = json.loads((out / "programs" / sub / "result.json").read_text())
        stored = json.loads((REF / folder / "programs" / sub / "result.json").read_text())
        for key in ("ok", "stage", "code", "error", "host_compute_warning_count"):
            assert fresh.get(key) == stored.get(key), (name, key, fresh.get(key),
                                                       stored.get(key))


# ---- the other two offloading passes alone, on XLA's own input to each ------------------
# For convert-memory-placement-to-internal-annotations and host-offload-legalize, XLA's dumps
# `...before_<pass>.txt` and `...after_<pass>...` bracket the pass. hlo-offload's
# `opt --passes=<pass>` on the first must run (XLA's did), leave as many MoveToHost and
# MoveToDevice custom calls as XLA's, and give every instruction present in both outputs the
# same opcode, operands (by name) and S(5) leaves.

OTHER_PASSES = ("convert-memory-placement-to-internal-annotations", "host-offload-legalize")


def _split_operands(text):
    """Splits an operand list at top-level commas."""
    depth, cur, out = 0, [], []
    for ch in text:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def instructions(text):
    """{computation/instruction: (opcode, operand names, S(5) leaves)} of an HLO module."""
    out, comp = {}, ""
    for line in text.splitlines():
        if line.lstrip().startswith("HloModule"):
            continue
        m = INSTR_RE.match(line)
        if m:
            rest = m.group(2)
            shape = _shape_of(rest)
            tail = rest[len(shape):].strip()
            opcode, _, args = tail.partition("(")
            depth, end = 1, 0
            for i, ch in enumerate(args):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    end = i
                    break
            args = re.sub(r"/\*.*?\*/", "", args[:end])  # XLA's /*index=5*/ comments
            operands = tuple(o.split()[-1].lstrip("%") for o in _split_operands(args) if o)
            out["%s/%s" % (comp, m.group(1))] = (opcode.strip(), operands, shape.count("S(5)"))
            continue
        c = COMP_RE.match(line)
        if c:
            comp = c.group(1)
    return out


def other_pass_params():
    """One param per module and pass (convert, legalize) with both dumps present."""
    out = []
    for row in ROWS:
        dump = row["_dir"] / "xla_dump"
        if not dump.is_dir():
            continue
        for pass_name in OTHER_PASSES:
            before = sorted(dump.glob("*before_%s.txt" % pass_name))
            after = sorted(dump.glob("*after_%s*" % pass_name))
            if len(before) != 1 or len(after) != 1:
                continue
            rid = "%s:%s:%s" % (row["_folder"], row["name"], pass_name)
            reason = PASS_DISAGREEMENTS.get(rid) or PASS_DISAGREEMENTS.get(
                "*:%s:%s" % (row["name"], pass_name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(pass_name, before[0], after[0], id=rid, marks=marks))
    return out


@pytest.mark.parametrize("pass_name,before,after", other_pass_params())
def test_other_pass_matches_xla(pass_name, before, after, hloff_bin):
    """hlo-offload's pass on XLA's own input gives XLA's output (see the comment above)."""
    proc = subprocess.run([str(hloff_bin), "opt", "--passes=" + pass_name, "--no-lints",
                           str(before)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, "XLA's %s ran; hlo-offload: exit %d %s" % (
        pass_name, proc.returncode, proc.stderr[:400])
    xla_text = after.read_text()
    for target in ("MoveToHost", "MoveToDevice"):
        needle = 'custom_call_target="%s"' % target
        assert proc.stdout.count(needle) == xla_text.count(needle), (
            "%s: XLA leaves %d, hlo-offload %d" % (target, xla_text.count(needle),
                                                   proc.stdout.count(needle)))
    # Instructions a pass creates get names of its own choosing (custom-call.4 in XLA's,
    # custom-call in hlo-offload's): operands that name no instruction of the input count
    # as "<new>".
    old_names = {k.split("/", 1)[1] for k in instructions(before.read_text())}

    def norm(table):
        return {k: (op, tuple(o if o in old_names else "<new>" for o in operands), s5)
                for k, (op, operands, s5) in table.items()}

    xla, ours = norm(instructions(xla_text)), norm(instructions(proc.stdout))
    common = sorted(set(xla) & set(ours))
    assert common, "no instruction in common between XLA's and hlo-offload's output"
    diff = ["%s: XLA %s, hlo-offload %s" % (k, xla[k], ours[k]) for k in common
            if xla[k] != ours[k]]
    assert not diff, "(opcode, operands, S(5) leaves) differ on %d of %d instructions: %s" % (
        len(diff), len(common), "; ".join(diff[:4]))
