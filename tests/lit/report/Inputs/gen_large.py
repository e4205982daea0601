#!/usr/bin/env python3
"""Writes a large HLO module with one offloaded activation, for the report's
scaling test: `gen_large.py N` prints a module of about N instructions, a
chain of elementwise ops with a MoveToHost a quarter of the way down and the
matching MoveToDevice three quarters down (the shape of activation
offloading in a long training step). Deterministic."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
n = max(n, 16)
shape = "f32[1024]{0}"
out = sys.stdout
out.write("HloModule large_offload, entry_computation_layout="
          "{(f32[1024]{0})->f32[1024]{0}}\n\nENTRY main {\n")
out.write(f"  p = {shape} parameter(0)\n")
prev = "p"
mth, mtd = n // 4, 3 * n // 4
for i in range(n):
    name = f"v.{i}"
    if i == mth:
        out.write(f"  act = {shape} tanh({prev})\n")
        out.write(f"  saved = {shape} custom-call(act), custom_call_target=\"MoveToHost\"\n")
        out.write(f"  {name} = {shape} add(act, act)\n")
    elif i == mtd:
        out.write(f"  back = {shape} custom-call(saved), custom_call_target=\"MoveToDevice\"\n")
        out.write(f"  {name} = {shape} multiply({prev}, back)\n")
    else:
        out.write(f"  {name} = {shape} add({prev}, {prev})\n")
    prev = name
out.write(f"  ROOT r = {shape} negate({prev})\n}}\n")
