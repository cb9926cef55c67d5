"""Ops written as a composition of other ops and compiled as ONE program.

``fused_op(name, fn, signature)`` makes an ``OpDef`` whose builder calls ``fn`` on the traced
operands: inside ``pyasc.jit`` the parts are traced where the op is called (and fused with the
ops around it like any other), and eagerly the whole composition is one cached compiled program
on the device rather than one launch per part. Its reference is the composition evaluated with
the NumPy reference of every part. Calls with an empty tensor operand run on the host (there is
nothing to compute). Its gradient is that of the composition (``vjp_through``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import SSAValue

from . import dtypes as dt
from . import eager
from .opdef import COMPOSITE, DEVICE, HOST, OpDef
from .tensor import Tensor


def _wrap_traced(tr, v):
    if isinstance(v, SSAValue):
        return Tensor._traced(tr, v, dt.get_dtype(v.type.get_element_type()), v.type.get_shape())
    return v


def _values(tr, out):
    """The IR values of the results (a concrete result becomes a constant of the trace)."""
    if isinstance(out, tuple | list):
        return tuple(_values(tr, o) for o in out)
    return out._value if out.is_traced else tr.constant(out.numpy(), out.dtype)


def _numpy(out):
    if isinstance(out, tuple | list):
        return tuple(o.numpy() for o in out)
    return out.numpy()


def _where_to_run(*operands, **attrs) -> str:
    empty = any(isinstance(o, Tensor) and o.numel() == 0 for o in operands)
    return HOST if empty else DEVICE


def vjp_through(fn: Callable) -> Callable:
    """The VJP rule of a composition: the composition recorded again on the rule's operands and
    differentiated through its parts' own rules."""

    def vjp(ctx, grad):
        from .autograd.functional import vjp as pullback_of

        positions = [i for i, x in enumerate(ctx.inputs) if isinstance(x, Tensor) and x.dtype.is_floating_point]

        def part(*xs):
            args = list(ctx.inputs)
            for i, x in zip(positions, xs):
                args[i] = x
            return fn(*args, **ctx.attrs)

        _, pullback = pullback_of(part, *[ctx.inputs[i] for i in positions])
        got = iter(pullback(grad))
        return tuple(next(got) if i in positions else None for i in range(len(ctx.inputs)))

    vjp.through_composition = True
    return vjp


def fused_op(name: str, fn: Callable, signature: Callable, *, kind: str = COMPOSITE, method: bool = True,
             function: bool = True, pack: Callable = tuple, vjp: Callable | None = None, doc: str = "") -> OpDef:
    """The op ``name`` computing ``fn(*operands, **attrs)`` with ``(operands, attrs) =
    signature(*args, **kwargs)``; ``fn`` applies pyasc ops to Tensors (traced or concrete). Its
    gradient is ``vjp`` when given (a rule cheaper than the composition's), else the composition's."""

    def build(tr, values, types, attrs):
        return _values(tr, fn(*[_wrap_traced(tr, v) for v in values], **attrs))

    def reference(*arrays, **attrs):
        operands = [Tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        with eager.reference_backend():
            return _numpy(fn(*operands, **attrs))

    return OpDef(name, build, reference, signature=signature, eager=_where_to_run, kind=kind, method=method,
                 function=function, pack=pack, vjp=vjp or vjp_through(fn), doc=doc or (fn.__doc__ or ""))
