"""Writes the JAX lowerings the report's user-terms tests read (JAX 0.10.2).

Each program is the gradient of a loss over layers whose activation is named
with jax.ad_checkpoint.checkpoint_name and offloaded by the remat policy
save_and_offload_only_these_names(offload_src="device",
offload_dst="pinned_host"), lowered for TPU on a CPU-only machine and
converted to HLO text by the package's JAX front end
(hlo_offload._jax.from_jax: jax.jit(f).trace(*args).lower(
lowering_platforms=("tpu",)), with metadata). Run with the project's .venv:
  .venv/bin/python tests/lit/report/Inputs/jax_remat_programs.py DIR
"""
import sys

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name
import hlo_offload._jax as hj


def policy(*names):
    return jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=[], names_which_can_be_offloaded=list(names),
        offload_src="device", offload_dst="pinned_host")


def layer(x, w):
    h = checkpoint_name(jnp.tanh(x @ w), "attn_out")
    return jnp.sin(h @ w), None


def scoped_layer(x, w):
    with jax.named_scope("attn_out"):
        h = checkpoint_name(jnp.tanh(x @ w), "attn_out")
    return jnp.sin(h @ w), None


def two_name_layer(x, w):
    with jax.named_scope("attn_out"):
        a = checkpoint_name(jnp.tanh(x @ w[0]), "attn_out")
    with jax.named_scope("mlp_hidden"):
        m = checkpoint_name(jnp.sin(a @ w[1]), "mlp_hidden")
    return jnp.cos(m @ w[0]), None


def scan_loss(f, *names):
    def loss(ws, x):
        y, _ = jax.lax.scan(jax.checkpoint(f, policy=policy(*names)), x, ws)
        return jnp.sum(y)
    return loss


def unrolled_loss(ws, x):
    for i in range(4):
        x, _ = jax.checkpoint(scoped_layer, policy=policy("attn_out"))(x, ws[i])
    return jnp.sum(x)


def main(out):
    f32 = jnp.float32
    programs = {
        # 4 layers in a scan, f32[8,16] activations: the name is nowhere.
        "jax-scan4-remat.hlo": (scan_loss(layer, "attn_out"), (4, 16, 16), (8, 16)),
        # The same with jax.named_scope("attn_out") around the named line.
        "jax-scan4-remat-scope.hlo": (scan_loss(scoped_layer, "attn_out"), (4, 16, 16), (8, 16)),
        # Two names per layer, each in its scope.
        "jax-scan4-two-names.hlo": (scan_loss(two_name_layer, "attn_out", "mlp_hidden"),
                                    (4, 2, 16, 16), (8, 16)),
        # 4 layers unrolled by a Python loop: 4 offloads of one name.
        "jax-unrolled4-remat-scope.hlo": (unrolled_loss, (4, 16, 16), (8, 16)),
        # 12 layers in a scan, f32[1024,256] (1 MiB) activations: 12 MiB stacked on the host.
        "jax-scan12-remat-12mib.hlo": (scan_loss(layer, "attn_out"), (12, 256, 256), (1024, 256)),
    }
    for name, (loss, w, x) in programs.items():
        args = (jax.ShapeDtypeStruct(w, f32), jax.ShapeDtypeStruct(x, f32))
        text = hj.from_jax(jax.jit(jax.grad(loss)), *args).hlo_text
        with open(f"{out}/{name}", "w") as f:
            f.write(f"// Written by jax_remat_programs.py (JAX {jax.__version__}): see there.\n")
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
