"""User-defined ops: ``@pyasc.register_op("name")``.

::

    @pyasc.register_op("swish", backward=lambda g, x: g * (s := pyasc.sigmoid(x)) * (1 + x * (1 - s)))
    def swish(x, beta=1.0):
        return x * pyasc.sigmoid(beta * x)

    y = swish(x)                         # eagerly: one compiled program
    f = pyasc.jit(lambda x: swish(x) + 1)  # inside jit: one op in the traced IR

The forward is a decomposition into pyasc ops. Inside a traced function a call becomes **one op**
of the tensor-level IR, ``func.call @swish_0(...) {pyasc.custom_op = "swish"}``, whose callee is a
private function holding the decomposition traced for that call's shapes and dtypes; the
``inline-custom-ops`` pass at the start of the ``asctensor`` stage inlines it, so the rest of the compiler sees ordinary
ops. A custom op is an ``OpDef`` of kind ``custom`` whose builder traces the forward: eagerly a
call compiles the same one-op program (cached per signature like any eager op); a decomposition
that uses an op with no compiler lowering yet runs op by op instead (host ops on the host).

Tensor arguments (pyasc, NumPy or torch) are the op's operands; Python numbers and keyword
arguments are static. The optional ``backward(grad_output, *inputs)`` returns one gradient per
tensor input, built from pyasc ops as well (without it, a registered op ``<name>Grad`` taking the
same arguments is the backward). It is the op's gradient rule for autograd, and can be called by
hand through ``op.vjp(*inputs, grad_output=None)`` (eagerly or inside ``jit``).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

from pyasc.dialects.asctensor import CUSTOM_OP_ATTR

from . import dtypes as dt
from .creation import ones_like, to_pyasc
from .errors import PyascError, describe
from .interop import is_torch_tensor
from .autograd.tape import VJPContext
from .opdef import CUSTOM, DEVICE_OR_HOST, OpDef
from .ops import OPS
from .tensor import Tensor
from .tracing import Trace, symbol_name

CUSTOM_ATTR = CUSTOM_OP_ATTR
CUSTOM_OPS: dict[str, CustomOp] = {}


def _is_tensor_arg(a) -> bool:
    return isinstance(a, Tensor) or is_torch_tensor(a) or (isinstance(a, np.ndarray) and a.dtype.kind in "biuf")


def _merge(tensors, layout):
    it = iter(tensors)
    return [next(it) if slot is None else slot[1] for slot in layout]


def _split(name: str, args):
    """The tensor arguments of a call (the op's operands) and its layout: None for a tensor,
    ``("static", value)`` for a Python constant."""
    tensors, layout = [], []
    for a in args:
        if _is_tensor_arg(a):
            tensors.append(to_pyasc(a, name))
            layout.append(None)
        elif isinstance(a, bool | int | float | str | None | tuple):
            layout.append(("static", a))
        else:
            raise PyascError(name, f"arguments must be tensors or Python constants, got {describe(a)}")
    return tensors, layout


def _signature(name: str):
    def signature(*args, **kwargs):
        """Tensor arguments are the op's operands; Python numbers and keyword arguments are static."""
        tensors, layout = _split(name, args)
        if not tensors:
            raise PyascError(name, "needs at least one tensor argument")
        return tensors, {"layout": tuple(layout), "kwargs": tuple(sorted(kwargs.items()))}
    return signature


@dataclass(frozen=True, eq=False, repr=False)
class CustomOp(OpDef):
    """A registered op; call it like a function."""

    forward: Callable | None = None
    backward: Callable | None = None

    def __repr__(self) -> str:
        return f"<pyasc custom op '{self.name}'>"

    def evaluate(self, operands, attrs, types=None):
        """Eagerly without a device lowering (or with the reference backend): the forward, op by op."""
        return self.forward(*_merge(operands, attrs["layout"]), **dict(attrs["kwargs"]))

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "vjp", CustomVJP(self))


class CustomVJP:
    """The gradient of a custom op: its registered ``backward(grad_output, *inputs)``, else the custom
    op ``<name>Grad`` called the same way. It is the op's VJP rule (``vjp(ctx, grad)``, used by
    autograd) and can be called by hand: ``op.vjp(*inputs, grad_output=None)`` gives the gradients
    of the tensor inputs for ``grad_output`` (ones by default), a tuple with one per tensor input."""

    def __init__(self, op: CustomOp):
        self.op = op

    def _backward(self):
        if self.op.backward is not None:
            return self.op.backward
        grad_op = CUSTOM_OPS.get(f"{self.op.name}Grad")
        if grad_op is None:
            raise PyascError(self.op.name, "has no backward; register it with register_op(name, backward=...) "
                             f"or register the op '{self.op.name}Grad'")
        return grad_op

    def _gradients(self, grad_output, tensors, layout):
        grads = self._backward()(grad_output, *_merge(tensors, layout))
        grads = tuple(grads) if isinstance(grads, tuple | list) else (grads,)
        if len(grads) != len(tensors):
            raise PyascError(self.op.name, f"backward returned {len(grads)} gradient(s) for {len(tensors)} "
                             "tensor input(s)")
        return grads

    def __call__(self, *inputs, grad_output=None):
        if len(inputs) == 2 and isinstance(inputs[0], VJPContext):   # as the op's VJP rule
            ctx, grad = inputs
            return self._gradients(grad, ctx.inputs, ctx.attrs["layout"])
        tensors, layout = _split(self.op.name, inputs)
        if grad_output is None:
            out = self.op(*inputs)
            grad_output = ones_like(out) if not out.is_traced else 1.0
        return self._gradients(grad_output, tensors, layout)


def _trace_forward(name: str, forward):
    """The builder of a custom op: a private function holding ``forward`` traced for the call's
    shapes and dtypes (one per signature and static arguments), and one ``func.call`` of it."""
    def build(outer, values, types, attrs):
        layout, kwargs = attrs["layout"], dict(attrs["kwargs"])
        specs = [(tuple(v.type.get_shape()), dt.get_dtype(v.type.get_element_type())) for v in values]
        try:
            static_key = repr((tuple(s for s in layout if s is not None), attrs["kwargs"]))
        except Exception:  # noqa: BLE001
            static_key = str(id(attrs))
        sig = (name, tuple((s, d.name) for s, d in specs), static_key)
        results_meta = outer.callee_names.get(sig)
        if results_meta is None:
            sym = f"{symbol_name(name)}_{len(outer.callees)}"
            sub = Trace(sym, [(s, d, f"arg{i}") for i, (s, d) in enumerate(specs)], outer.target)
            with sub:
                proxies = [Tensor._traced(sub, v, d, s) for v, (s, d) in zip(sub.block.args, specs)]
                result = forward(*_merge(proxies, layout), **kwargs)
                is_tuple = isinstance(result, tuple | list)
                results = list(result) if is_tuple else [result]
                if not results or not all(isinstance(r, Tensor) for r in results):
                    raise PyascError(name, "the forward of a custom op must return a tensor or a tuple of "
                                     f"tensors, got {describe(result)}")
                outs = []
                for r in results:
                    if r._trace is None:
                        outs.append(sub.constant(r.numpy(), r.dtype))
                    elif r._trace is not sub:
                        raise PyascError(name, "the forward returned a tensor of another traced function")
                    else:
                        outs.append(r._value)
                if sub.lifted:
                    raise PyascError(name, "the forward of a custom op uses a concrete non-uniform tensor "
                                     "inside jit; pass it as an argument instead")
                fn = sub.finish_callee(outs, sym)
            fn.attributes[CUSTOM_ATTR] = StringAttr(name)
            outer.callees.extend(sub.callees)
            outer.callees.append(fn)
            results_meta = (sym, [(tuple(v.type.get_shape()), r.dtype) for v, r in zip(outs, results)], is_tuple)
            outer.callee_names[sig] = results_meta
        sym, outs, is_tuple = results_meta
        call = func.CallOp(SymbolRefAttr(sym), values, [d.tensor_type(s) for s, d in outs])
        call.attributes[CUSTOM_ATTR] = StringAttr(name)
        outer.emit(call)
        return tuple(call.results) if is_tuple else call.results[0]
    return build


def register_op(name: str, *, backward=None, replace: bool = False, doc: str | None = None):
    """Decorator: define op ``name`` by a decomposition into pyasc ops (see the module doc)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) or keyword.iskeyword(name):
        raise PyascError("register_op", f"op name must be an identifier, got {describe(name)}")
    if backward is not None and not callable(backward):
        raise PyascError("register_op", f"backward must be callable, got {describe(backward)}")
    if not replace and (name in CUSTOM_OPS or name in OPS):
        raise PyascError("register_op", f"an op named '{name}' is already registered (use replace=True)")

    def decorate(forward):
        if not callable(forward):
            raise PyascError("register_op", f"expected a function, got {describe(forward)}")
        op = CustomOp(name, _trace_forward(name, forward), signature=_signature(name), eager=DEVICE_OR_HOST,
                      kind=CUSTOM, method=False,
                      function=False, doc=doc or getattr(forward, "__doc__", None) or f"custom op {name}",
                      forward=forward, backward=backward)
        CUSTOM_OPS[name] = op
        return op

    return decorate


def get_custom_op(name: str) -> CustomOp:
    try:
        return CUSTOM_OPS[name]
    except KeyError:
        raise PyascError("get_custom_op", f"no custom op named '{name}'") from None
