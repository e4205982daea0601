"""Accepting a finding in the JAX program itself: a `jax.named_scope` named
hlo_offload_ignore_<CODE>[_<CODE>...] around the lines puts the marker into the op_name of
their instructions (JAX's name stack, as JAX 0.10.2 lowers it here), and the diagnostics of
those codes about them are dropped, as --disable drops them for the whole module. Errors XLA
raises cannot be accepted this way, as they cannot be disabled."""
import pytest

jax = pytest.importorskip("jax", reason="the inline marker is a JAX named_scope"
                             " (pip install '.[jax]')")
import jax.numpy as jnp  # noqa: E402

import hlo_offload  # noqa: E402


def _program(scope):
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])

    def f(x):
        h = jax.device_put(x, s.with_memory_kind("pinned_host"))
        with jax.named_scope(scope):
            y = h * 2.0          # device compute on host data: XLA's host-compute warning
        return jax.device_put(y, s.with_memory_kind("device"))
    return jax.jit(f), jnp.ones((256, 128))


def _codes(result):
    return sorted({d.code for d in result.diagnostics})


def test_named_scope_accepts_the_code_it_names():
    f, x = _program("step")
    assert "HO2001" in _codes(hlo_offload.check(f, x))
    f, x = _program("hlo_offload_ignore_HO2001")
    result = hlo_offload.check(f, x)
    assert "HO2001" not in _codes(result)
    assert "hlo_offload_ignore_HO2001" in result.hlo_text


def test_named_scope_with_several_codes_and_other_codes_stay():
    f, x = _program("hlo_offload_ignore_HO3001_HO2001")
    assert "HO2001" not in _codes(hlo_offload.check(f, x))
    f, x = _program("hlo_offload_ignore_HO3014")
    assert "HO2001" in _codes(hlo_offload.check(f, x))
