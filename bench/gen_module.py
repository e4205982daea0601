#!/usr/bin/env python3
"""Generates large, realistic HLO modules for hlo-offload's benchmarks.

A module is a transformer-like training step written the way XLA prints one:
a chain of "stages", each a forward scan (while loop) over its layers and a
backward scan over them again. Every forward loop body is a decoder layer
(RMS norm, a softmax-attention stand-in, a SiLU MLP, a residual add) with
its own reduction computations; the offload annotations sit inside the loop
bodies, as JAX's remat offloading puts them:

- stacked residuals: `annotate_device_placement` to pinned_host, a reshape
  and a dynamic-update-slice into a stack carried by the loop, read back in
  the backward loop by dynamic-slice and an annotation to device (the
  pattern HostOffloader turns into an AllocateBuffer and host copies);
- direct round trips: an annotation to pinned_host immediately moved back
  to device by a second annotation, its value added into the layer output.

Every instruction carries metadata (op_name, source_file, source_line).
Two printing styles: `dump` is what XLA_FLAGS=--xla_dump_to writes before
optimizations (`%` names, typed operands, computation signatures); `opt` is
what hlo-opt prints today (bare names, untyped operands, `/*index=N*/`
markers). The module passes `hlo-offload check` without an error.

Usage:
  gen_module.py --instructions N --annotations A [--style dump|opt] [-o FILE]

N is a target: the module has N instructions give or take a few (the exact
count is printed on standard error). A is the exact number of MoveToHost
annotations. Deterministic: the same arguments give the same bytes.
"""
import argparse
import sys

DT = "bf16"
B, S, H = 8, 512, 1024
LAYERS = 4  # trip count of each scan
ACT = (B, S, H)
SRC = [
    "/workspace/maxtext/MaxText/layers/models.py",
    "/workspace/maxtext/MaxText/layers/attentions.py",
    "/workspace/maxtext/MaxText/layers/linears.py",
    "/workspace/maxtext/MaxText/train.py",
]


def arr(dtype, dims):
    return ("a", dtype, tuple(dims))


def tup(elems):
    return ("t", tuple(elems))


def shape_text(shape):
    if shape[0] == "t":
        parts = []
        for k, e in enumerate(shape[1]):
            parts.append(("/*index=%d*/" % k if k and k % 5 == 0 else "") +
                         shape_text(e))
        return "(" + ", ".join(parts) + ")"
    _, dtype, dims = shape
    text = "%s[%s]" % (dtype, ",".join(map(str, dims)))
    if dims:
        text += "{" + ",".join(str(d) for d in reversed(range(len(dims)))) + "}"
    return text


def sig_text(shape):
    """A shape as computation signatures print it (no layouts)."""
    if shape[0] == "t":
        parts = []
        for k, e in enumerate(shape[1]):
            parts.append(("/*index=%d*/" % k if k and k % 5 == 0 else "") +
                         sig_text(e))
        return "(" + ", ".join(parts) + ")"
    return "%s[%s]" % (shape[1], ",".join(map(str, shape[2])))


S32 = arr("s32", ())
SCALAR = arr(DT, ())
ACT_SHAPE = arr(DT, ACT)
ROW_SHAPE = arr(DT, ACT[:2])
W_SHAPE = arr(DT, (LAYERS, H, H))
W_SLICE = arr(DT, (1, H, H))
W_MAT = arr(DT, (H, H))
STACK = arr(DT, (LAYERS,) + ACT)
STACK_SLICE = arr(DT, (1,) + ACT)


class Instr:
    __slots__ = ("name", "op", "shape", "operands", "attrs", "md", "literal")

    def __init__(self, name, op, shape, operands, attrs, md, literal=None):
        self.name, self.op, self.shape = name, op, shape
        self.operands, self.attrs, self.md = operands, attrs, md
        self.literal = literal


class Module:
    def __init__(self, style):
        self.style = style
        self.next_id = 1
        self.comps = []
        self.count = 0

    def nid(self):
        i = self.next_id
        self.next_id += 1
        return i


class Comp:
    def __init__(self, mod, prefix, scope, entry=False):
        self.mod, self.scope, self.entry = mod, scope, entry
        self.name = "%s.%d" % (prefix, mod.nid())
        self.instrs, self.params, self.callees = [], [], []
        self.root = None
        self.line, self.file = 100, SRC[0]
        mod.comps.append(self)

    def at(self, line, file_index=0):
        self.line, self.file = line, SRC[file_index]
        return self

    def add(self, op, shape, operands=(), attrs=(), prim=None, literal=None,
            name=None):
        if name is None:
            name = "%s.%d" % (op, self.mod.nid())
        md = 'op_name="%s/%s" source_file="%s" source_line=%d' % (
            self.scope, prim or op, self.file, self.line)
        ins = Instr(name, op, shape, list(operands), list(attrs), md, literal)
        self.instrs.append(ins)
        self.mod.count += 1
        return ins

    def param(self, shape, argname=None):
        k = len(self.params)
        ins = self.add("parameter", shape, prim="param", literal=str(k),
                       name="Arg_%d.%d" % (k, self.mod.nid()))
        if argname is not None:
            ins.md = 'op_name="%s"' % argname
        self.params.append(ins)
        return ins

    def const(self, shape, value):
        return self.add("constant", shape, literal=value, prim="constant")

    def gte(self, t, i):
        return self.add("get-tuple-element", t.shape[1][i], [t],
                        ["index=%d" % i], prim="while")

    def unary(self, op, x, prim=None):
        return self.add(op, x.shape, [x], prim=prim)

    def binary(self, op, x, y, prim=None):
        return self.add(op, x.shape, [x, y], prim=prim)

    def bcast(self, x, shape, dims):
        return self.add("broadcast", shape, [x],
                        ["dimensions={%s}" % ",".join(map(str, dims))],
                        prim="broadcast_in_dim")

    def reduce(self, x, init, dims, shape, kind):
        region = reduction(self.mod, self.scope, kind)
        self.callees.append(region)
        return self.add("reduce", shape, [x, init],
                        ["dimensions={%s}" % ",".join(map(str, dims)),
                         "to_apply=%s" % ref(self.mod, region.name)],
                        prim="reduce_" + kind)

    def dot(self, x, w, shape):
        return self.add("dot", shape, [x, w],
                        ["lhs_contracting_dims={2}", "rhs_contracting_dims={0}"],
                        prim="dot_general")

    def annotate(self, x, placement):
        return self.add(
            "custom-call", x.shape, [x],
            ['custom_call_target="annotate_device_placement"',
             "custom_call_has_side_effect=true",
             'frontend_attributes={_xla_buffer_placement="%s"}' % placement],
            prim="device_put")

    def tuple(self, elems):
        return self.add("tuple", tup([e.shape for e in elems]), elems,
                        prim="while")


def ref(mod, name):
    return ("%" + name) if mod.style == "dump" else name


def reduction(mod, scope, kind):
    comp = Comp(mod, "region", scope + "/reduce_" + kind)
    a = comp.param(SCALAR)
    b = comp.param(SCALAR)
    comp.root = comp.binary("add" if kind == "sum" else "maximum", a, b)
    return comp


def condition(mod, scope, carry):
    comp = Comp(mod, "region", scope + "/while/cond")
    p = comp.param(carry)
    i = comp.gte(p, 0)
    n = comp.const(S32, str(LAYERS))
    comp.root = comp.add("compare", arr("pred", ()), [i, n], ["direction=LT"],
                         prim="lt")
    return comp


def rms_norm(c, x):
    c.at(211, 0)
    sq = c.binary("multiply", x, x, prim="integer_pow")
    zero = c.const(SCALAR, "0")
    red = c.reduce(sq, zero, [2], ROW_SHAPE, "sum")
    eps = c.const(SCALAR, "1e-06")
    beps = c.bcast(eps, ROW_SHAPE, [])
    m = c.binary("add", red, beps)
    rs = c.unary("rsqrt", m)
    brs = c.bcast(rs, ACT_SHAPE, [0, 1])
    return c.binary("multiply", x, brs, prim="mul")


def forward_body(mod, scope, stage, carry, n_stack, n_direct):
    c = Comp(mod, "region", scope + "/while/body/remat/decoder_layer")
    p = c.param(carry)
    c.at(98, 0)
    i = c.gte(p, 0)
    x = c.gte(p, 1)
    w = c.gte(p, 2)
    stacks = [c.gte(p, 3 + j) for j in range(n_stack)]
    c0 = c.const(S32, "0")
    ds = c.add("dynamic-slice", W_SLICE, [w, i, c0, c0],
               ["dynamic_slice_sizes={1,%d,%d}" % (H, H)], prim="dynamic_slice")
    wm = c.add("reshape", W_MAT, [ds], prim="reshape")
    xn = rms_norm(c, x)
    c.at(312, 1)
    q = c.dot(xn, wm, ACT_SHAPE)
    ninf = c.const(SCALAR, "-inf")
    mx = c.reduce(q, ninf, [2], ROW_SHAPE, "max")
    bmx = c.bcast(mx, ACT_SHAPE, [0, 1])
    sub = c.binary("subtract", q, bmx, prim="sub")
    ex = c.unary("exponential", sub, prim="exp")
    zero = c.const(SCALAR, "0")
    sm = c.reduce(ex, zero, [2], ROW_SHAPE, "sum")
    bsm = c.bcast(sm, ACT_SHAPE, [0, 1])
    pr = c.binary("divide", ex, bsm, prim="div")
    c.at(154, 2)
    h = c.dot(pr, wm, ACT_SHAPE)
    sg = c.unary("logistic", h)
    act = c.binary("multiply", h, sg, prim="mul")
    o = c.dot(act, wm, ACT_SHAPE)
    c.at(240, 0)
    y = c.binary("add", x, o)
    residuals = [xn, act, pr, h]
    new_stacks = []
    for j in range(n_stack):
        c.at(250 + j, 0)
        ann = c.annotate(residuals[j % len(residuals)], "pinned_host")
        r = c.add("reshape", STACK_SLICE, [ann], prim="reshape")
        new_stacks.append(c.add("dynamic-update-slice", STACK,
                                [stacks[j], r, i, c0, c0, c0],
                                prim="dynamic_update_slice"))
    for k in range(n_direct):
        c.at(300 + k % 50, 0)
        a = c.annotate(residuals[k % len(residuals)], "pinned_host")
        d = c.annotate(a, "device")
        y = c.binary("add", y, d)
    c.at(98, 0)
    one = c.const(S32, "1")
    i1 = c.binary("add", i, one)
    c.root = c.tuple([i1, y, w] + new_stacks)
    return c


def backward_body(mod, scope, carry, n_stack):
    c = Comp(mod, "region", scope + "/while/body/transpose(jvp(decoder_layer))")
    p = c.param(carry)
    c.at(98, 0)
    i = c.gte(p, 0)
    g = c.gte(p, 1)
    w = c.gte(p, 2)
    stacks = [c.gte(p, 3 + j) for j in range(n_stack)]
    c0 = c.const(S32, "0")
    last = c.const(S32, str(LAYERS - 1))
    ri = c.binary("subtract", last, i, prim="sub")
    for j in range(n_stack):
        c.at(250 + j, 0)
        ds = c.add("dynamic-slice", STACK_SLICE, [stacks[j], ri, c0, c0, c0],
                   ["dynamic_slice_sizes={1,%d,%d,%d}" % ACT],
                   prim="dynamic_slice")
        r = c.add("reshape", ACT_SHAPE, [ds], prim="reshape")
        dev = c.annotate(r, "device")
        g = c.binary("multiply", g, dev, prim="mul")
    c.at(154, 2)
    wds = c.add("dynamic-slice", W_SLICE, [w, ri, c0, c0],
                ["dynamic_slice_sizes={1,%d,%d}" % (H, H)], prim="dynamic_slice")
    wm = c.add("reshape", W_MAT, [wds], prim="reshape")
    gd = c.dot(g, wm, ACT_SHAPE)
    g2 = c.binary("add", g, gd)
    c.at(98, 0)
    one = c.const(S32, "1")
    i1 = c.binary("add", i, one)
    c.root = c.tuple([i1, g2, w] + stacks)
    return c


def stage_plan(n_instr, n_annot):
    """Chooses stages and, per stage, (stacked, direct) annotation counts."""
    # Instructions of a stage without annotations, and per annotation kind.
    base = 96
    per_stack = 12  # 3 forward, 4 backward, 2 entry (broadcast, gte), 3 gte
    per_direct = 3

    def total(stages):
        stacked = min(n_annot, 2 * stages)
        return (stages * base + stacked * per_stack +
                (n_annot - stacked) * per_direct)

    # The most stages that fit (total() grows with the number of stages).
    lo, hi = 1, max(1, n_instr // base)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if total(mid) <= n_instr:
            lo = mid
        else:
            hi = mid - 1
    stages = lo
    stacked = min(n_annot, 2 * stages)
    direct = n_annot - stacked
    plan = []
    for s in range(stages):
        n_stack = stacked // stages + (1 if s < stacked % stages else 0)
        n_direct = direct // stages + (1 if s < direct % stages else 0)
        plan.append((n_stack, n_direct))
    return plan


def build(n_instr, n_annot, style):
    mod = Module(style)
    plan = stage_plan(n_instr, n_annot)
    entry = Comp(mod, "main", "jit(train_step)/jit(main)", entry=True)
    scope = "jit(train_step)/jit(main)"
    x = entry.param(ACT_SHAPE, "batch['inputs']")
    weights = [entry.param(W_SHAPE, "params['stage_%d']['w']" % s)
               for s in range(len(plan))]
    for s, (n_stack, n_direct) in enumerate(plan):
        sscope = "%s/stage_%d" % (scope, s)
        carry = tup([S32, ACT_SHAPE, W_SHAPE] + [STACK] * n_stack)
        fcond = condition(mod, sscope, carry)
        fbody = forward_body(mod, sscope, s, carry, n_stack, n_direct)
        bcond = condition(mod, sscope + "/transpose", carry)
        bbody = backward_body(mod, sscope + "/transpose", carry, n_stack)
        entry.callees += [fcond, fbody, bcond, bbody]
        entry.at(400 + s % 100, 3)
        c0 = entry.const(S32, "0")
        zero = entry.const(SCALAR, "0")
        bufs = [entry.bcast(zero, STACK, []) for _ in range(n_stack)]
        t = entry.tuple([c0, x, weights[s]] + bufs)
        wf = entry.add("while", carry, [t],
                       ["condition=%s" % ref(mod, fcond.name),
                        "body=%s" % ref(mod, fbody.name)], prim="while")
        y = entry.gte(wf, 1)
        stacks = [entry.gte(wf, 3 + j) for j in range(n_stack)]
        t2 = entry.tuple([c0, y, weights[s]] + stacks)
        wb = entry.add("while", carry, [t2],
                       ["condition=%s" % ref(mod, bcond.name),
                        "body=%s" % ref(mod, bbody.name)], prim="while")
        x = entry.gte(wb, 1)
    # Pad with an elementwise tail (the loss and optimizer arithmetic).
    ops = ["tanh", "negate", "exponential", "abs"]
    k = 0
    while mod.count < n_instr - 1:
        entry.at(500 + k % 200, 3)
        x = entry.unary(ops[k % len(ops)], x)
        k += 1
    entry.root = entry.tuple([x])
    return mod


def operand_text(mod, ins):
    parts = []
    for k, o in enumerate(ins.operands):
        marker = ""
        if mod.style == "opt" and k and k % 5 == 0:
            marker = "/*index=%d*/" % k
        if mod.style == "dump":
            parts.append("%s %%%s" % (shape_text(o.shape), o.name))
        else:
            parts.append(marker + o.name)
    return ", ".join(parts)


def write(mod, out):
    dump = mod.style == "dump"
    pct = "%" if dump else ""
    entry = mod.comps[0]
    params = ", ".join(shape_text(p.shape) for p in entry.params)
    out.write("HloModule jit_train_step, entry_computation_layout={(%s)->%s}, "
              "allow_spmd_sharding_propagation_to_output={true}\n\n" %
              (params, shape_text(entry.root.shape)))
    # Callees before their callers, the entry last, as XLA prints them.
    order, placed = [], set()

    def place(comp):
        for callee in comp.callees:
            if id(callee) not in placed:
                place(callee)
        placed.add(id(comp))
        order.append(comp)

    place(entry)
    for comp in order:
        head = ("ENTRY " if comp.entry else "") + pct + comp.name
        if dump:
            sig = ", ".join("%s: %s" % (p.name, sig_text(p.shape))
                            for p in comp.params)
            head += " (%s) -> %s" % (sig, sig_text(comp.root.shape))
        lines = [head + " {\n"]
        for ins in comp.instrs:
            if ins.literal is not None:
                args = ins.literal
            else:
                args = operand_text(mod, ins)
            attrs = "".join(", " + a for a in ins.attrs)
            lines.append("  %s%s%s = %s %s(%s)%s, metadata={%s}\n" % (
                "ROOT " if ins is comp.root else "", pct, ins.name,
                shape_text(ins.shape), ins.op, args, attrs, ins.md))
        lines.append("}\n\n")
        out.write("".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--instructions", type=int, required=True)
    parser.add_argument("--annotations", type=int, required=True)
    parser.add_argument("--style", choices=["dump", "opt"], default="dump")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    mod = build(args.instructions, args.annotations, args.style)
    # Entry first in the list for the header; print order puts it last.
    if args.output == "-":
        write(mod, sys.stdout)
    else:
        with open(args.output, "w", buffering=1 << 20) as f:
            write(mod, f)
    print("%d instructions, %d computations, %d MoveToHost" %
          (mod.count, len(mod.comps), args.annotations), file=sys.stderr)


if __name__ == "__main__":
    main()
