"""The tape: the backward graph recorded while ops run, and the context a VJP rule sees.

A tensor that requires a gradient is a *leaf* (``requires_grad=True`` set by the user) or the result
of a recorded op (its ``grad_fn`` is the op's :class:`Node`). ``OpDef.apply`` calls :func:`record`
after every op: when gradient recording is on and an operand requires a gradient, the op becomes a
node holding its operands, attributes and results, and its floating-point results require a gradient.
Composite ops are recorded as the ops they decompose into.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ..errors import user_location
from ..tensor import Tensor

_enabled = True


def is_grad_enabled() -> bool:
    """True when ops are recorded for differentiation (the default)."""
    return _enabled


class set_grad_enabled:  # noqa: N801 - PyTorch's name
    """Turn gradient recording on or off inside a ``with`` block (or for a decorated function)."""

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)
        self._saved: list[bool] = []

    def __enter__(self):
        global _enabled
        self._saved.append(_enabled)
        _enabled = self.mode
        return self

    def __exit__(self, *exc) -> None:
        global _enabled
        _enabled = self._saved.pop()

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapped


class no_grad(set_grad_enabled):  # noqa: N801
    """No op is recorded inside ``with pyasc.no_grad():`` (inference, optimizer updates)."""

    def __init__(self):
        super().__init__(False)


class enable_grad(set_grad_enabled):  # noqa: N801
    """Ops are recorded inside the block, even within ``no_grad``."""

    def __init__(self):
        super().__init__(True)


@dataclass(eq=False)
class Node:
    """One recorded op: what its VJP rule needs (operands, attributes, results)."""

    op: object                  # the OpDef
    operands: list              # Tensors, Python numbers, None
    attrs: dict
    types: object               # the op's Types for this call (None when the builder decides)
    outputs: list = field(default_factory=list)
    several: bool = False       # the op returned a tuple of results
    location: str = "<unknown>"

    @property
    def parents(self) -> list[Node]:
        return [o._grad_fn for o in self.operands if isinstance(o, Tensor) and o._grad_fn is not None]

    def signature(self, ref) -> tuple:
        """What makes two recorded calls the same for a compiled backward; ``ref`` names tensors."""
        def one(o):
            if isinstance(o, Tensor):
                return ("tensor", ref(o), o._requires_grad)
            return ("value", type(o).__name__, repr(o))
        return (self.op, tuple(sorted((k, repr(v)) for k, v in self.attrs.items())),
                tuple(one(o) for o in self.operands), tuple(ref(o) for o in self.outputs))


def _needs_grad(operands) -> bool:
    return any(isinstance(o, Tensor) and o._requires_grad for o in operands)


def record(op, operands: list, attrs: dict, types, result):
    """Record one application of ``op`` (see the module doc) and return its result unchanged."""
    if not _enabled or not _needs_grad(operands):
        return result
    several = isinstance(result, tuple | list)
    outs = [r for r in (result if several else [result]) if isinstance(r, Tensor)]
    node = Node(op, list(operands), dict(attrs), types, outs, several, user_location())
    for r in outs:
        if r.dtype.is_floating_point and not any(r is o for o in operands):
            r._requires_grad = True
            r._grad_fn = node
    return result


class VJPContext:
    """What an op's VJP rule ``vjp(ctx, grad)`` sees: the call's operands (``inputs``), results
    (``outputs``; ``output`` for the only one) and attributes, and helpers to shape gradients.
    Operands and results are the tensors of the program the backward is recorded into."""

    def __init__(self, name: str, inputs: list, outputs: list, attrs: dict, types=None):
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        self.types = types

    @property
    def output(self) -> Tensor:
        return self.outputs[0]

    @staticmethod
    def zeros(shape, dtype) -> Tensor:
        """A zero tensor (inside ``pyasc.jit`` a splat constant of the program)."""
        from ..creation import zeros

        return zeros(*shape, dtype=dtype)

    @staticmethod
    def ones(shape, dtype) -> Tensor:
        from ..creation import ones

        return ones(*shape, dtype=dtype)

    @staticmethod
    def expand(g: Tensor, like: Tensor) -> Tensor:
        """``g`` broadcast to the shape of ``like`` (NumPy's rules): a selection between g and itself
        under a condition of like's shape, whatever its values (also for NaN)."""
        if g.shape == like.shape:
            return g
        return g.where(like == like, g)

    @staticmethod
    def sum_to(g: Tensor, shape) -> Tensor:
        """``g`` summed over the dimensions broadcasting added to reach its shape from ``shape``:
        the leading ones dropped, the size-1 ones kept."""
        shape = tuple(shape)
        if g.shape == shape:
            return g
        lead = g.ndim - len(shape)
        if lead:
            g = g.sum(dim=tuple(range(lead)))
        ones = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
        if ones:
            g = g.sum(dim=ones, keepdim=True)
        return g.reshape(*shape) if g.shape != shape else g
