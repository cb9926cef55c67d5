"""Eager execution: an op on concrete tensors runs as a compiled one-op program.

The program is traced and compiled through the same path as ``pyasc.jit`` and cached by op,
operand shapes and dtypes, Python scalar operands, attributes and target, so repeating a call
compiles nothing; the compiled program also goes to jit's disk cache (``PYASC_CACHE_DIR``), so a
new process running the same op on the same shapes re-parses it instead of compiling. The
``"reference"`` backend (``set_eager_backend`` or ``PYASC_EAGER=reference``)
evaluates the NumPy oracle of the op table instead, without compiling.
"""

from __future__ import annotations

import os

from .device import default_target
from .tensor import Tensor

BACKENDS = ("simulator", "reference")
_backend = os.environ.get("PYASC_EAGER", "simulator")
_cache: dict = {}


def set_eager_backend(name: str) -> None:
    """Choose how eager ops run: ``"simulator"`` (compile and simulate) or ``"reference"``."""
    global _backend
    if name not in BACKENDS:
        raise ValueError(f"unknown eager backend '{name}'; choose one of {BACKENDS}")
    _backend = name


def get_eager_backend() -> str:
    return _backend


def cache_info() -> dict:
    """Number of compiled one-op programs held by the eager cache."""
    return {"programs": len(_cache)}


def clear_cache() -> None:
    _cache.clear()


def _key(op, operands, attrs):
    parts = []
    for o in operands:
        if isinstance(o, Tensor):
            parts.append(("tensor", o.shape, o.dtype.name))
        else:
            parts.append(("scalar", type(o).__name__, repr(o)))
    attr_key = tuple(sorted((k, str(v)) for k, v in attrs.items())) if attrs else ()
    return op.name, tuple(parts), attr_key, default_target()


def _one_op_program(op, operands, attrs):
    """A Python function of the tensor operands only (scalars baked in) applying ``op``."""
    from .dispatch import apply

    positions = [i for i, o in enumerate(operands) if isinstance(o, Tensor)]
    template = [None if isinstance(o, Tensor) else o for o in operands]  # keep no data alive

    def program(*tensors):
        args = list(template)
        for i, t in zip(positions, tensors):
            args[i] = t
        return apply(op.name, *args, **attrs)

    program.__name__ = f"eager_{op.name}"
    program.__qualname__ = program.__name__
    return program


def run_eager(op, operands, attrs, result_dtype, shape) -> Tensor:
    """Compute ``op`` on concrete operands; returns a new concrete Tensor."""
    if _backend == "reference":
        from .ops import reference

        return Tensor(reference(op.name, *operands, **attrs), result_dtype)
    from .jit import jit

    key = _key(op, operands, attrs)
    compiled = _cache.get(key)
    tensors = [o for o in operands if isinstance(o, Tensor)]
    if compiled is None:   # compiled once per signature, through jit's memory and disk caches
        compiled = jit(_one_op_program(op, operands, attrs)).compile(*tensors)
        _cache[key] = compiled
    return compiled(*tensors)


def run_eager_program(name: str, program, tensors: list, key: tuple = ()):
    """``program(*tensors)`` compiled once per signature (``name``, shapes, dtypes, ``key``) and
    simulated, like a one-op program; None when the reference backend is chosen or the program has
    no lowering for these operands (the caller then computes on the host)."""
    from .errors import PyascError
    from .jit import jit

    if _backend == "reference":
        return None
    full = (name, tuple((t.shape, t.dtype.name) for t in tensors), key, default_target())
    compiled = _cache.get(full)
    if compiled is None:
        try:
            compiled = jit(program).compile(*tensors)
        except PyascError:  # no device lowering for these operands
            compiled = False
        _cache[full] = compiled
    return compiled(*tensors) if compiled is not False else None
