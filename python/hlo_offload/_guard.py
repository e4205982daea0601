"""guard(): check every `jax.jit` lowering made inside a block before it compiles.

The hook is JAX's one function that every top-level jit lowering goes through:
`jax._src.pjit._pjit_lower` (JAX 0.10.2). A call of a jitted function that misses JAX's
cache lowers there (`_pjit_call_impl_python` -> `_resolve_and_lower` -> `_pjit_lower`,
then `computation.compile()`), and so does `jitted.trace(...).lower(...)`
(`Traced.lower` in jax/_src/stages.py -> `_resolve_and_lower`). A jit nested in another
is lowered inside its caller's module (`_pjit_lowering`, an MLIR rule), not there, so each
program is checked once, whole. `_resolve_and_lower` calls `_pjit_lower` by its module
global name, so replacing that name reaches both paths; nothing else of JAX changes.

The module checked is the lowering for the accelerator (`platform`, "tpu" by default):
when JAX lowered for another platform (the CPU of a machine without a TPU, which drops the
offload annotations: docs/errors/HO0002.md), the same jaxpr is lowered once more for
`platform`, as `jax.jit(f).trace(*args).lower(lowering_platforms=(platform,))` does, and
the module JAX compiles is left as it was.
"""

from __future__ import annotations

import functools
import threading
import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, TypeVar

if TYPE_CHECKING:
    from ._types import Result

__all__ = ["guard", "OffloadCheckError", "OffloadCheckWarning"]

_F = TypeVar("_F", bound=Callable[..., Any])

_ACCELERATORS = ("tpu", "cuda", "rocm")


class OffloadCheckError(RuntimeError):
    """A jit lowering checked by `guard()` has an error (E1200, ...), raised before JAX
    compiles it. `result` is the `Result` (what `check` returns), `name` the jitted
    function's name; `str(e)` is the diagnostic text."""

    def __init__(self, name: str, result: "Result"):
        super().__init__(f"hlo-offload: jit({name}) would not compile on the "
                         f"accelerator:\n{result}")
        self.name = name
        self.result = result


class OffloadCheckWarning(UserWarning):
    """What `guard(on_error="warn")` warns with: the diagnostic text of a lowering that
    has an error."""


_lock = threading.Lock()
_active: List["guard"] = []  # the guards entered, innermost last
# JAX's _pjit_lower while the hook is in place (jax is not typed here: its functions and
# lowerings are Any).
_original: Optional[Callable[..., Any]] = None
_local = threading.local()  # re-entry: the guard's own lowering for the accelerator


def _install() -> None:
    global _original
    from jax._src import pjit
    if _original is None:
        _original = pjit._pjit_lower
        pjit._pjit_lower = _hooked


def _uninstall() -> None:
    global _original
    from jax._src import pjit
    if _original is not None:
        pjit._pjit_lower = _original
        _original = None


def _hooked(jaxpr: Any, *args: Any, **kwargs: Any) -> Any:
    original = _original
    assert original is not None  # the hook is in place only with it
    computation = original(jaxpr, *args, **kwargs)
    if getattr(_local, "busy", False):
        return computation
    with _lock:
        current = _active[-1] if _active else None
    if current is not None:
        _local.busy = True
        try:
            current._check_lowering(original, computation, jaxpr, args, kwargs)
        finally:
            _local.busy = False
    return computation


class guard:
    """Checks every `jax.jit` lowering made inside its block before JAX compiles it.

        with hlo_offload.guard():
            state = train_step(state, batch)       # OffloadCheckError before compile()

        @hlo_offload.guard(on_error="warn")
        def main(): ...

    on_error: "raise" (OffloadCheckError, the default: the program is not compiled) or
        "warn" (an OffloadCheckWarning with the diagnostic text; JAX goes on).
    platform: the accelerator the programs are checked for, "tpu" (default), "cuda" or
        "rocm": a lowering JAX made for another platform (the CPU) is lowered once more
        for it.
    check_kwargs: what `check` takes besides the source (lints, pinned_host_budget,
        xla_flags, pipeline, ignore, select, partition, backend, xla, xla_topology,
        xla_version), with the same meaning: each lowering runs through the runner that
        check() uses. A sharded program (several partitions) is checked as XLA's SPMD
        partitioner gives it (partition=False checks it as written); with xla="tpu", XLA
        compiles it too and its verdict decides. TypeError for an option check() does not
        take.
    `results` lists (name, Result) of every lowering checked; `checked` counts them.
    Guards nest (the innermost one checks); one guard may be entered again.
    """

    def __init__(self, *, on_error: str = "raise", platform: str = "tpu",
                 **check_kwargs: Any):
        if on_error not in ("raise", "warn"):
            raise ValueError(f"on_error must be 'raise' or 'warn', not {on_error!r}")
        from ._jax import _check_platform
        platform = _check_platform(platform)
        if platform not in _ACCELERATORS:
            raise ValueError(f"guard checks lowerings for an accelerator (tpu, cuda, rocm), "
                             f"not {platform!r}: the CPU drops the offload annotations")
        self.on_error = on_error
        self.platform = platform
        from ._runner import Options
        import dataclasses
        # check()'s options (fix's strategy and report's max_nodes are not check's).
        known = {f.name for f in dataclasses.fields(Options)} - {"strategy", "max_nodes",
                                                                  "platform"}
        unknown = sorted(set(check_kwargs) - known)
        if unknown:
            raise TypeError(f"guard() takes check()'s options ({', '.join(sorted(known))}), "
                            f"not {', '.join(unknown)}")
        self.options = Options(**check_kwargs)
        self.check_kwargs = check_kwargs
        self.results: List[Tuple[str, "Result"]] = []
        self._depth = 0

    @property
    def checked(self) -> int:
        return len(self.results)

    def __enter__(self) -> "guard":
        from ._jax import _import_jax
        _import_jax()
        with _lock:
            _active.append(self)
            self._depth += 1
            _install()
        return self

    def __exit__(self, *exc: object) -> None:
        with _lock:
            # The innermost entry of this guard goes (entries leave in reverse order).
            for i in range(len(_active) - 1, -1, -1):
                if _active[i] is self:
                    del _active[i]
                    break
            self._depth -= 1
            if not _active:
                _uninstall()

    def __call__(self, fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapper  # type: ignore[return-value]  # functools.wraps keeps fn's signature

    # -- checking ------------------------------------------------------------------------

    def _check_lowering(self, original: Callable[..., Any], computation: Any, jaxpr: Any,
                        args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
        name = args[6] if len(args) > 6 else kwargs.get("name", "f")
        result = self._check(original, computation, jaxpr, args, kwargs, name)
        self.results.append((name, result))
        if result.ok:
            return
        if self.on_error == "raise":
            raise OffloadCheckError(name, result)
        from ._runner import user_stacklevel
        warnings.warn(OffloadCheckWarning(
            f"hlo-offload: jit({name}) would not compile on the accelerator:\n{result}"),
            stacklevel=user_stacklevel(("jax.", "jaxlib.")))

    def _check(self, original: Callable[..., Any], computation: Any, jaxpr: Any,
               args: Tuple[Any, ...], kwargs: Dict[str, Any], name: str) -> "Result":
        from ._inputs import Input
        from ._jax import _convert
        from ._runner import run
        from jax._src.interpreters import mlir
        platforms = tuple(getattr(computation, "_platforms", None) or ())
        if platforms != (self.platform,):
            kw = dict(kwargs)
            kw["lowering_platforms"] = (self.platform,)
            kw["lowering_parameters"] = mlir.LoweringParameters()
            kw["pgle_profiler"] = None
            computation = original(jaxpr, *args, **kw)
        module = computation.stablehlo()
        in_avals = (getattr(computation, "compile_args", None) or {}).get(
            "global_in_avals") or ()
        from jax._src import dispatch
        tuple_args = bool(dispatch.should_tuple_args(len(in_avals), self.platform))
        xla = _convert(module, platform=self.platform, tuple_args=tuple_args,
                       out_tree=None, notes=[])
        inp = Input(text=xla.hlo_text, file=None, path=f"<jit_{name}>", xla=xla)
        return run("check", inp, options=self.options)
