"""The tape: the backward graph recorded while ops run, and the context a VJP rule sees.

A tensor that requires a gradient is a *leaf* (``requires_grad=True`` set by the user) or the result
of a recorded op (its ``grad_fn`` is the op's :class:`Node`). ``OpDef.apply`` calls :func:`record`
after every op: when gradient recording is on and an operand requires a gradient, the op becomes a
node holding its operands, attributes and results, and its floating-point results require a gradient.
Composite ops are recorded as the ops they decompose into.
"""

from __future__ import annotations

import functools
import weakref
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


# the recorded nodes that name each tensor (by id, with a weak reference to it): an in-place update moves them
# to the tensor's value before the update (``retarget``)
_nodes_of: dict[int, tuple[weakref.ref, list]] = {}


def _remember(t: Tensor, node) -> None:
    entry = _nodes_of.get(id(t))
    if entry is None or entry[0]() is not t:
        if len(_nodes_of) > 4096:
            for k in [k for k, (ref, _) in _nodes_of.items() if ref() is None]:
                del _nodes_of[k]
        entry = _nodes_of[id(t)] = (weakref.ref(t), [])
    entry[1].append(node)


def retarget(t: Tensor, old: Tensor) -> None:
    """The recorded nodes that name ``t`` name ``old`` instead (``t``'s value before an in-place update)."""
    entry = _nodes_of.pop(id(t), None)
    if entry is None or entry[0]() is not t:
        return
    for node in entry[1]:
        node.operands = [old if o is t else o for o in node.operands]
        node.outputs = [old if o is t else o for o in node.outputs]
        _remember(old, node)


def record(op, operands: list, attrs: dict, types, result):
    """Record one application of ``op`` (see the module doc) and return its result unchanged."""
    if not _enabled or not _needs_grad(operands):
        return result
    several = isinstance(result, tuple | list)
    outs = [r for r in (result if several else [result]) if isinstance(r, Tensor)]
    node = Node(op, list(operands), dict(attrs), types, outs, several, user_location())
    for t in {id(t): t for t in (*operands, *outs) if isinstance(t, Tensor)}.values():
        _remember(t, node)
    for r in outs:
        if r.dtype.is_floating_point and not any(r is o for o in operands):
            r._requires_grad = True
            r._grad_fn = node
    return result


def record_expand(src: Tensor, out: Tensor) -> Tensor:
    """Record ``out`` as ``src`` broadcast to its shape (the op ``expand``: its gradient is summed back)."""
    from ..ops import get_op

    return record(get_op("expand"), [src], {"shape": out.shape}, None, out)


def record_copy(src: Tensor, out: Tensor) -> Tensor:
    """Record ``out`` as a copy of ``src`` (the op ``clone``: its gradient passes through unchanged)."""
    from ..ops import get_op

    return record(get_op("clone"), [src], {}, None, out)


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


def is_view(t: Tensor) -> bool:
    """``t`` views another tensor's storage (eagerly) or value (inside ``pyasc.jit``)."""
    from ..functionalize import is_root
    from ..tensor import _is_view_value

    if t._trace is not None:
        return (id(t) in t._trace.view_ids or _is_view_value(t._value)) and not is_root(t._trace, t)
    return t._concrete("view").base is not None


def keep_history(t: Tensor, op: str) -> None:
    """Before an in-place update of ``t`` that gradients see: the recorded ops that read or made ``t`` read a tensor
    holding its value before the update (a copy, eagerly) instead. A leaf that requires grad is refused, as the
    update would be lost (a view is updated through ``view_update``, which calls this for it)."""
    from ..errors import PyascError

    if t._requires_grad and t._grad_fn is None:
        raise PyascError(op, "a leaf tensor that requires grad is updated in place: update a clone of it, or "
                         "update it under pyasc.no_grad()", shapes=[t.shape])
    if t._trace is not None:
        old = Tensor._traced(t._trace, t._value, t.dtype, t.shape)
    else:
        old = Tensor(t._concrete(op).copy(), t.dtype, device=t.device)
    old._requires_grad, old._grad_fn = t._requires_grad, t._grad_fn
    retarget(t, old)
