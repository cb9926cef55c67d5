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
``asctensor`` level inlines it (``inline_custom_ops``), so the rest of the compiler sees ordinary
ops. Eagerly a call compiles the same one-op program (cached per signature like any eager op);
a decomposition that uses an op with no compiler lowering yet runs op by op instead (host ops on
the host).

Tensor arguments (pyasc, NumPy or torch) are the op's operands; Python numbers and keyword
arguments are static. The optional ``backward(grad_output, *inputs)`` returns one gradient per
tensor input, built from pyasc ops as well; pyasc has no autograd engine yet, so it is called
explicitly through ``op.vjp(*inputs, grad_output=None)`` (eagerly or inside ``jit``).
"""

from __future__ import annotations

import keyword
import re

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.rewriter import Rewriter

from .errors import HostOnlyError, PyascError, describe, user_location

CUSTOM_ATTR = "pyasc.custom_op"
CUSTOM_OPS: dict[str, CustomOp] = {}


def _is_tensor_arg(a) -> bool:
    from .interop import is_torch_tensor
    from .tensor import Tensor

    return isinstance(a, Tensor) or is_torch_tensor(a) or (
        isinstance(a, np.ndarray) and a.dtype.kind in "biuf")


class CustomOp:
    """A registered op; call it like a function."""

    def __init__(self, name: str, forward, backward=None, doc: str | None = None):
        self.name = name
        self.forward = forward
        self.backward = backward
        self.__doc__ = doc or getattr(forward, "__doc__", None) or f"custom op {name}"
        self.__name__ = name
        self._eager: dict = {}

    def __repr__(self) -> str:
        return f"<pyasc custom op '{self.name}'>"

    # -- calls ------------------------------------------------------------------------------
    def _split(self, args):
        from .interop import to_pyasc

        tensors, layout = [], []
        for a in args:
            if _is_tensor_arg(a):
                tensors.append(to_pyasc(a, self.name))
                layout.append(None)
            elif isinstance(a, bool | int | float | str | None | tuple):
                layout.append(("static", a))
            else:
                raise PyascError(self.name, f"arguments must be tensors or Python constants, got {describe(a)}")
        return tensors, layout

    def __call__(self, *args, **kwargs):
        tensors, layout = self._split(args)
        if not tensors:
            raise PyascError(self.name, "needs at least one tensor argument")
        if any(t.is_traced for t in tensors):
            return self._trace_call(tensors, layout, kwargs)
        return self._eager_call(tensors, layout, kwargs)

    def _merge(self, tensors, layout):
        it = iter(tensors)
        return [next(it) if slot is None else slot[1] for slot in layout]

    def _trace_call(self, tensors, layout, kwargs):
        from .tensor import Tensor
        from .tracing import Trace, current_trace, symbol_name

        outer = current_trace()
        traces = {id(t._trace): t._trace for t in tensors if t._trace is not None}
        if outer is None or any(tr is not outer for tr in traces.values()):
            raise PyascError(self.name, "a traced tensor was used outside its pyasc.jit function")
        loc = user_location()
        try:
            static_key = repr((tuple(s for s in layout if s is not None), sorted(kwargs.items())))
        except Exception:  # noqa: BLE001
            static_key = str(id(kwargs))
        sig = (self.name, tuple((t.shape, t.dtype.name) for t in tensors), static_key)
        results_meta = outer.callee_names.get(sig)
        if results_meta is None:
            sym = f"{symbol_name(self.name)}_{len(outer.callees)}"
            sub = Trace(sym, [(t.shape, t.dtype, f"arg{i}") for i, t in enumerate(tensors)], outer.target)
            with sub:
                proxies = [Tensor._traced(sub, v, t.dtype, t.shape) for v, t in zip(sub.block.args, tensors)]
                result = self.forward(*self._merge(proxies, layout), **kwargs)
                is_tuple = isinstance(result, tuple | list)
                results = list(result) if is_tuple else [result]
                if not results or not all(isinstance(r, Tensor) for r in results):
                    raise PyascError(self.name, "the forward of a custom op must return a tensor or a tuple of "
                                     f"tensors, got {describe(result)}")
                values = []
                for r in results:
                    if r._trace is None:
                        values.append(sub.constant(r.numpy(), r.dtype))
                    elif r._trace is not sub:
                        raise PyascError(self.name, "the forward returned a tensor of another traced function")
                    else:
                        values.append(r._value)
                if sub.lifted:
                    raise PyascError(self.name, "the forward of a custom op uses a concrete non-uniform tensor "
                                     "inside jit; pass it as an argument instead")
                fn = sub.finish_callee(values, sym)
            fn.attributes[CUSTOM_ATTR] = StringAttr(self.name)
            outer.callees.extend(sub.callees)
            outer.callees.append(fn)
            results_meta = (sym, [(tuple(v.type.get_shape()), r.dtype) for v, r in zip(values, results)], is_tuple)
            outer.callee_names[sig] = results_meta
        sym, outs, is_tuple = results_meta
        operands = [t._value if t._trace is not None else outer.constant(t._data, t.dtype) for t in tensors]
        call = func.CallOp(SymbolRefAttr(sym), operands, [d.tensor_type(s) for s, d in outs])
        call.attributes[CUSTOM_ATTR] = StringAttr(self.name)
        outer.emit(call, loc)
        out = [Tensor._traced(outer, v, d, s) for v, (s, d) in zip(call.results, outs)]
        return tuple(out) if is_tuple else out[0]

    def _eager_call(self, tensors, layout, kwargs):
        from .eager import get_eager_backend
        from .jit import jit

        key = (tuple((t.shape, t.dtype.name) for t in tensors), repr(layout), repr(sorted(kwargs.items())))
        mode = self._eager.get(key)
        if mode == "host" or get_eager_backend() == "reference":
            return self.forward(*self._merge(tensors, layout), **kwargs)
        if mode is None:
            op = self

            def program(*ts):
                return op(*op._merge(list(ts), layout), **kwargs)

            program.__name__ = f"custom_{self.name}"
            program.__qualname__ = program.__name__
            try:
                mode = jit(program).compile(*tensors)
            except HostOnlyError:
                self._eager[key] = "host"
                return self.forward(*self._merge(tensors, layout), **kwargs)
            self._eager[key] = mode
        out = mode(*tensors)
        for t in (out if isinstance(out, tuple) else (out,)):
            t._device = tensors[0]._device
        return out

    # -- gradients --------------------------------------------------------------------------
    def vjp(self, *inputs, grad_output=None):
        """The gradients of the op's tensor inputs given ``grad_output`` (ones by default), from
        the registered backward; a tuple with one entry per tensor input."""
        if self.backward is None:
            raise PyascError(self.name, "has no backward; register it with register_op(name, backward=...)")
        tensors, layout = self._split(inputs)
        if grad_output is None:
            from .creation import ones_like

            out = self(*inputs)
            grad_output = ones_like(out) if not out.is_traced else 1.0
        grads = self.backward(grad_output, *self._merge(tensors, layout))
        grads = tuple(grads) if isinstance(grads, tuple | list) else (grads,)
        if len(grads) != len(tensors):
            raise PyascError(self.name, f"backward returned {len(grads)} gradient(s) for {len(tensors)} tensor input(s)")
        return grads


def register_op(name: str, *, backward=None, replace: bool = False, doc: str | None = None):
    """Decorator: define op ``name`` by a decomposition into pyasc ops (see the module doc)."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) or keyword.iskeyword(name):
        raise PyascError("register_op", f"op name must be an identifier, got {describe(name)}")
    if backward is not None and not callable(backward):
        raise PyascError("register_op", f"backward must be callable, got {describe(backward)}")
    from .ops import OPS

    if not replace and (name in CUSTOM_OPS or name in OPS):
        raise PyascError("register_op", f"an op named '{name}' is already registered (use replace=True)")

    def decorate(forward):
        if not callable(forward):
            raise PyascError("register_op", f"expected a function, got {describe(forward)}")
        op = CustomOp(name, forward, backward, doc)
        CUSTOM_OPS[name] = op
        return op

    return decorate


def get_custom_op(name: str) -> CustomOp:
    try:
        return CUSTOM_OPS[name]
    except KeyError:
        raise PyascError("get_custom_op", f"no custom op named '{name}'") from None
