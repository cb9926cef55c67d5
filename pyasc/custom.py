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

The documented list form is the other style: a forward with the parameters ``(inputs, attrs)``
takes a list of tensors and a dict of static attributes (or None) and returns a list of tensors;
its backward is the op registered as ``<name>Grad``, which receives ``[*output_grads, *outputs]``
(``dy, y = inputs``) and returns one gradient per forward input::

    @pyasc.register_op("CustomRelu")
    def relu_forward(inputs, attrs):
        x = inputs[0]
        return [pyasc.maximum(x, 0.0)]

    @pyasc.register_op("CustomReluGrad")
    def relu_backward(inputs, attrs):
        dy, y = inputs
        mask = pyasc.cast(y > 0, dy.dtype)
        return [dy * mask]

    (y,) = relu_forward([x], None)
    (dx,) = relu_forward.vjp([x], None)          # CustomReluGrad([ones, y], {})

The style follows the forward's parameters (exactly ``inputs, attrs``: the list form) or the
explicit ``style="list"`` / ``style="args"``. Registering ``<name>Grad`` (before or after
``<name>``) stores the pair's backward rule on ``<name>``'s definition (its ``backward``).
A list-form op called with anything but a list of tensors raises PyascError.
"""

from __future__ import annotations

import inspect
import keyword
import re
import threading
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


LIST, ARGS = "list", "args"
GRAD_SUFFIX = "Grad"


def _frozen_attrs(name: str, attrs) -> tuple:
    """The documented ``attrs`` dict as a hashable, sorted tuple of (name, value)."""
    if attrs is None:
        return ()
    if not isinstance(attrs, dict):
        raise PyascError(name, f"attrs must be a dict of static attributes or None, got {describe(attrs)}")
    items = []
    for k, v in sorted(attrs.items()):
        v = tuple(v) if isinstance(v, list) else v
        try:
            hash(v)
        except TypeError:
            raise PyascError(name, f"attribute {k!r} must be a Python constant, got {describe(v)}") from None
        items.append((k, v))
    return tuple(items)


def _list_signature(name: str):
    def signature(inputs, attrs=None):
        """The documented form: ``inputs`` a list of tensors, ``attrs`` a dict (or None)."""
        if not isinstance(inputs, list | tuple):
            raise PyascError(name, f"takes a list of tensors as inputs, as in `{name}([x], attrs)`; got "
                             f"{describe(inputs)}")
        if not inputs:
            raise PyascError(name, "needs at least one tensor in inputs")
        tensors = []
        for i, a in enumerate(inputs):
            if not _is_tensor_arg(a):
                raise PyascError(name, f"inputs[{i}] must be a tensor, got {describe(a)}")
            tensors.append(to_pyasc(a, name))
        return tensors, {"layout": (None,) * len(tensors), "kwargs": (("attrs", _frozen_attrs(name, attrs)),)}
    return signature


def _list_forward(name: str, forward):
    """The documented ``forward(inputs, attrs) -> [tensors]`` called in the argument style."""
    def call(*tensors, attrs=()):
        out = forward(list(tensors), dict(attrs))
        if not isinstance(out, list | tuple) or not out or not all(isinstance(t, Tensor) for t in out):
            raise PyascError(name, f"the forward must return a list of tensors, got {describe(out)}")
        return list(out)
    return call


def _link_backward(forward_op: CustomOp, grad) -> None:
    """Store on ``forward_op`` (a list-form op) the backward rule ``grad(inputs, attrs)`` gives:
    its ``<name>Grad`` op, or a ``backward=`` in the same form. The rule is called in the argument
    style, ``rule(grad_output(s), *inputs, attrs=...)``, and recomputes the forward's outputs."""
    def backward(grad_output, *inputs, attrs=()):
        grads = list(grad_output) if isinstance(grad_output, list | tuple) else [grad_output]
        outputs = forward_op(list(inputs), dict(attrs))
        out = grad([*grads, *outputs], dict(attrs))
        if not isinstance(out, list | tuple):
            raise PyascError(getattr(grad, "name", forward_op.name), f"the backward must return a list of "
                             f"tensors, got {describe(out)}")
        return tuple(out)
    backward.__name__ = f"{forward_op.name}_backward"
    backward.grad_op = grad
    object.__setattr__(forward_op, "backward", backward)


def _is_linked(op: CustomOp) -> bool:
    return op.backward is None or getattr(op.backward, "grad_op", None) is not None


@dataclass(frozen=True, eq=False, repr=False)
class CustomOp(OpDef):
    """A registered op; call it like a function."""

    forward: Callable | None = None
    backward: Callable | None = None
    style: str = ARGS

    def __repr__(self) -> str:
        return f"<pyasc custom op '{self.name}'>"

    def evaluate(self, operands, attrs, types=None):
        """Eagerly without a device lowering (or with the reference backend): the forward, op by op."""
        return self.forward(*_merge(operands, attrs["layout"]), **dict(attrs["kwargs"]))

    # -- gradients --------------------------------------------------------------------------
    def _list_vjp(self, inputs, attrs=None, grad_outputs=None):
        """``op.vjp([x], attrs, grad_outputs=None)`` of a list-form op: a list of input gradients."""
        if self.backward is None:
            raise PyascError(self.name, f"has no backward; register the op '{self.name}{GRAD_SUFFIX}'")
        tensors, bound = self.signature(inputs, attrs)
        grads = grad_outputs
        if grads is None:
            grads = [ones_like(o) if not o.is_traced else 1.0 for o in self(inputs, attrs)]
        out = self.backward(grads, *tensors, **dict(bound["kwargs"]))
        if len(out) != len(tensors):
            raise PyascError(self.name, f"{self.name}{GRAD_SUFFIX} returned {len(out)} gradient(s) for "
                             f"{len(tensors)} input(s)")
        return list(out)

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

    def _gradients(self, grad_output, tensors, layout, **kwargs):
        grads = self._backward()(grad_output, *_merge(tensors, layout), **kwargs)
        grads = tuple(grads) if isinstance(grads, tuple | list) else (grads,)
        if len(grads) != len(tensors):
            raise PyascError(self.op.name, f"backward returned {len(grads)} gradient(s) for {len(tensors)} "
                             "tensor input(s)")
        return grads

    def __call__(self, *inputs, grad_output=None, grad_outputs=None):
        if len(inputs) == 2 and isinstance(inputs[0], VJPContext):   # as the op's VJP rule
            ctx, grad = inputs
            kwargs = dict(ctx.attrs["kwargs"]) if self.op.style == LIST else {}
            return self._gradients(grad, ctx.inputs, ctx.attrs["layout"], **kwargs)
        if self.op.style == LIST:
            return self.op._list_vjp(*inputs, grad_outputs=grad_outputs if grad_outputs is not None else grad_output)
        tensors, layout = _split(self.op.name, inputs)
        if grad_output is None:
            out = self.op(*inputs)
            grad_output = ones_like(out) if not out.is_traced else 1.0
        return self._gradients(grad_output, tensors, layout)


_TRACING = threading.local()  # per thread: the signatures whose forwards are being traced


def _trace_forward(name: str, forward):
    """The builder of a custom op: a private function holding ``forward`` traced for the call's
    shapes and dtypes (one per signature and static arguments), and one ``func.call`` of it. A forward
    that calls its own op with the same signature would never finish tracing: refused by name."""
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
            tracing = getattr(_TRACING, "sigs", None)
            if tracing is None:
                tracing = _TRACING.sigs = []
            if sig in tracing:
                shapes = ", ".join(f"{d.name}{list(s)}" for s, d in specs)
                raise PyascError(name, f"the forward of custom op '{name}' calls '{name}' itself on the same "
                                       f"shapes and dtypes ({shapes}): its decomposition would never end")
            sym = f"{symbol_name(name)}_{len(outer.callee_names)}"
            outer.callee_names[sig] = None  # reserved while the forward is traced: symbols stay unique
            tracing.append(sig)
            try:
                results_meta = outer.callee_names[sig] = _trace_callee(outer, sym, name, forward, specs, layout,
                                                                       kwargs)
            except BaseException:
                del outer.callee_names[sig]
                raise
            finally:
                tracing.pop()
        sym, outs, is_tuple = results_meta
        call = func.CallOp(SymbolRefAttr(sym), values, [d.tensor_type(s) for s, d in outs])
        call.attributes[CUSTOM_ATTR] = StringAttr(name)
        outer.emit(call)
        return tuple(call.results) if is_tuple else call.results[0]
    return build


def _trace_callee(outer, sym: str, name: str, forward, specs: list, layout, kwargs: dict) -> tuple:
    """``forward`` traced as the private function ``sym`` of ``outer`` for arguments ``specs``: (its symbol,
    its results' shapes and dtypes, whether it returns a tuple). Custom ops it calls share ``outer``'s
    callees by signature (a forward may call its own op on other shapes)."""
    sub = Trace(sym, [(s, d, f"arg{i}") for i, (s, d) in enumerate(specs)], outer.target)
    sub.callee_names = outer.callee_names
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
    return sym, [(tuple(v.type.get_shape()), r.dtype) for v, r in zip(outs, results)], is_tuple


def _style_of(forward, style) -> str:
    if style is not None:
        if style not in (LIST, ARGS):
            raise PyascError("register_op", f"style must be {LIST!r} or {ARGS!r}, got {describe(style)}")
        return style
    try:
        params = list(inspect.signature(forward).parameters)
    except (TypeError, ValueError):
        return ARGS
    return LIST if params == ["inputs", "attrs"] else ARGS


def register_op(name: str, *, backward=None, replace: bool = False, doc: str | None = None, style=None):
    """Decorator: define op ``name`` by a decomposition into pyasc ops (see the module doc).
    ``style``: ``"list"`` (the documented ``forward(inputs, attrs)``), ``"args"``, or None to follow
    the forward's parameters."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) or keyword.iskeyword(name):
        raise PyascError("register_op", f"op name must be an identifier, got {describe(name)}")
    if backward is not None and not callable(backward):
        raise PyascError("register_op", f"backward must be callable, got {describe(backward)}")
    if not replace and (name in CUSTOM_OPS or name in OPS):
        raise PyascError("register_op", f"an op named '{name}' is already registered (use replace=True)")

    def decorate(forward):
        if not callable(forward):
            raise PyascError("register_op", f"expected a function, got {describe(forward)}")
        kind = _style_of(forward, style)
        run = _list_forward(name, forward) if kind == LIST else forward
        op = CustomOp(name, _trace_forward(name, run), signature=(_list_signature if kind == LIST else _signature)(name),
                      eager=DEVICE_OR_HOST, kind=CUSTOM, method=False, pack=list if kind == LIST else tuple,
                      function=False, doc=doc or getattr(forward, "__doc__", None) or f"custom op {name}",
                      forward=run, backward=None if kind == LIST else backward, style=kind)
        CUSTOM_OPS[name] = op
        if kind == LIST:     # the documented pair <name> / <name>Grad is the op and its backward
            fwd, grad = CUSTOM_OPS.get(name[: -len(GRAD_SUFFIX)]), CUSTOM_OPS.get(name + GRAD_SUFFIX)
            if name.endswith(GRAD_SUFFIX) and fwd is not None and fwd.style == LIST and _is_linked(fwd):
                _link_backward(fwd, op)
            if backward is not None:
                _link_backward(op, backward)
            elif grad is not None and grad.style == LIST:
                _link_backward(op, grad)
        return op

    return decorate


def get_custom_op(name: str) -> CustomOp:
    try:
        return CUSTOM_OPS[name]
    except KeyError:
        raise PyascError("get_custom_op", f"no custom op named '{name}'") from None
