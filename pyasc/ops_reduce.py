"""Reductions and row-wise composites of the tensor API (PyTorch semantics).

``sum/mean/prod/amax/amin(x, dim=None, keepdim=False)``, ``max/min(x)`` (all elements) and
``max/min(x, dim, keepdim)`` (values and indices), ``argmax/argmin``, ``softmax/log_softmax(x, dim)``,
``layer_norm(x, normalized_shape, weight, bias, eps)`` and ``rms_norm``. Inside ``pyasc.jit`` each
call emits its ``asctensor`` op; eagerly it runs a cached one-op ``jit`` program on the simulator
(``pyasc.set_eager_backend("reference")`` runs the NumPy oracle instead). Every op has its NumPy
reference here too (``reference_*``), computed in float64.
"""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ArgKind, ReduceKind

from . import dtypes as dt
from .errors import PyascError, describe, user_location

MaxMin = namedtuple("MaxMin", ["values", "indices"])
_EAGER: dict = {}


def _tensor(op: str, x):
    from .dispatch import _normalise_operand
    from .tensor import Tensor

    x = _normalise_operand(op, x)
    if not isinstance(x, Tensor):
        raise PyascError(op, f"expected a tensor, got {describe(x)}")
    return x


def _dims(op: str, x, dim) -> tuple[int, ...]:
    from .views import _dim

    if dim is None:
        return tuple(range(x.ndim))
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    out = tuple(sorted({_dim(op, d, x.ndim, x.shape) for d in dims}))
    if len(out) != len(dims):
        raise PyascError(op, f"dim {dim} repeats a dimension", shapes=[x.shape])
    return out


def _float_only(op: str, x) -> None:
    if not x.dtype.is_floating_point:
        raise PyascError(op, f"does not support dtype {x.dtype.name}: the vector unit reduces and normalises "
                         "half and float (ReduceSum/ReduceMax/ReduceMin); convert with .float() first",
                         shapes=[x.shape], dtypes=[x.dtype.name])


def _emit(op_name: str, x, build, out_dtype, out_shape, key, reference, *extra):
    """Trace ``build(trace, value, *extra values)`` or run it eagerly as a cached one-op program."""
    from .eager import get_eager_backend
    from .tensor import Tensor

    tensors = [x, *[e for e in extra if e is not None]]
    if x._trace is not None:
        trace = x._trace
        with trace.at(user_location()):
            values = [t._value if t._trace is not None else trace.constant(t._data, t.dtype) for t in tensors]
            extra_values = iter(values[1:])
            out = build(trace, values[0], *[next(extra_values) if e is not None else None for e in extra])
        return Tensor._traced(trace, out, out_dtype, out_shape)
    if get_eager_backend() == "reference":
        return Tensor(np.asarray(reference(*[t.numpy() for t in tensors])).astype(out_dtype.np_dtype), out_dtype)
    from .jit import jit

    cache_key = (op_name, key, tuple(e is None for e in extra))
    fn = _EAGER.get(cache_key)
    if fn is None:
        present = [e is not None for e in extra]

        def one_op(a, *rest):
            it = iter(rest)
            return _CALLS[op_name](a, *[next(it) if p else None for p in present], key=key)

        fn = _EAGER[cache_key] = jit(one_op)
    return fn(*tensors)


# ------------------------------------------------------------------------------------- reductions

def _reduce_call(name: str, kind: ReduceKind):
    def call(x, dim=None, keepdim: bool = False):
        x = _tensor(name, x)
        _float_only(name, x)
        dims = _dims(name, x, dim)
        if not dims:
            return x
        shape = asctensor.reduced_shape(x.shape, dims, keepdim)

        def build(trace, v, key=None):
            return trace.emit(asctensor.ReduceOp(kind, v, dims, keepdim)).results[0]

        ref = {ReduceKind.SUM: np.sum, ReduceKind.MEAN: np.mean, ReduceKind.MAX: np.max,
               ReduceKind.MIN: np.min, ReduceKind.PROD: np.prod}[kind]
        return _emit(name, x, build, x.dtype, shape, (dims, keepdim),
                     lambda a: ref(a.astype(np.float64), axis=dims, keepdims=keepdim))
    call.__name__ = name
    call.__doc__ = f"{kind.value} of ``x`` over ``dim`` (all dims by default); ``keepdim`` keeps them as size 1."
    return call


sum = _reduce_call("sum", ReduceKind.SUM)  # noqa: A001 - PyTorch's name
mean = _reduce_call("mean", ReduceKind.MEAN)
prod = _reduce_call("prod", ReduceKind.PROD)
amax = _reduce_call("amax", ReduceKind.MAX)
amin = _reduce_call("amin", ReduceKind.MIN)


def _arg_call(name: str, kind: ArgKind):
    def call(x, dim=None, keepdim: bool = False):
        x = _tensor(name, x)
        _float_only(name, x)
        if dim is None:
            from .views import reshape

            x, dim = reshape(x, (-1,)), 0
        (axis,) = _dims(name, x, dim)
        shape = asctensor.reduced_shape(x.shape, (axis,), keepdim)

        def build(trace, v, key=None):
            return trace.emit(asctensor.ArgReduceOp(kind, v, axis, keepdim)).results[0]

        ref = np.argmax if kind == ArgKind.MAX else np.argmin

        def reference(a):
            r = ref(a, axis=axis)
            return np.expand_dims(r, axis) if keepdim else r

        return _emit(name, x, build, dt.int32, shape, (axis, keepdim), reference)
    call.__name__ = name
    call.__doc__ = f"index of the first {kind.value} of ``x`` along ``dim`` (int32)."
    return call


argmax = _arg_call("argmax", ArgKind.MAX)
argmin = _arg_call("argmin", ArgKind.MIN)


def _max_min(name: str, whole, arg):
    def call(x, dim=None, keepdim: bool = False):
        if dim is None:
            return whole(x)
        return MaxMin(whole(x, dim, keepdim), arg(x, dim, keepdim))
    call.__name__ = name
    call.__doc__ = (f"``{name}(x)``: the {name}imum of all elements; ``{name}(x, dim, keepdim)``: a named tuple "
                    "(values, indices) along ``dim``.")
    return call


max = _max_min("max", amax, argmax)  # noqa: A001
min = _max_min("min", amin, argmin)  # noqa: A001


# ------------------------------------------------------------------------------------- composites

def _softmax_call(name: str, op_cls, log: bool):
    def call(x, dim: int = -1):
        x = _tensor(name, x)
        _float_only(name, x)
        (axis,) = _dims(name, x, dim)

        def build(trace, v, key=None):
            return trace.emit(op_cls(v, axis)).results[0]

        def reference(a):
            a = a.astype(np.float64)
            s = a - a.max(axis=axis, keepdims=True)
            lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
            return s - lse if log else np.exp(s - lse)

        return _emit(name, x, build, x.dtype, x.shape, axis, reference)
    call.__name__ = name
    call.__doc__ = f"{'log of the ' if log else ''}softmax of ``x`` along ``dim``."
    return call


softmax = _softmax_call("softmax", asctensor.SoftmaxOp, False)
log_softmax = _softmax_call("log_softmax", asctensor.LogSoftmaxOp, True)


def _norm_args(name: str, x, normalized_shape, weight, bias):
    x = _tensor(name, x)
    _float_only(name, x)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or k > x.ndim or x.shape[x.ndim - k:] != normalized_shape:
        raise PyascError(name, f"normalized_shape {list(normalized_shape)} does not match the trailing dims of "
                         f"the input of shape {list(x.shape)}", shapes=[x.shape], dtypes=[x.dtype.name])
    params = []
    for pname, p in (("weight", weight), ("bias", bias)):
        if p is None:
            params.append(None)
            continue
        p = _tensor(name, p)
        if p.shape != normalized_shape:
            raise PyascError(name, f"{pname} of shape {list(p.shape)} does not match normalized_shape "
                             f"{list(normalized_shape)}", shapes=[x.shape, p.shape])
        if p.dtype is not x.dtype:
            from .dispatch import apply

            p = apply("cast", p, dtype=x.dtype)
        params.append(p)
    return x, k, params


def _norm_call(name: str, op_cls, rms: bool):
    def call(x, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
        x, k, (w, b) = _norm_args(name, x, normalized_shape, weight, bias)
        eps = float(eps)

        def build(trace, v, wv=None, bv=None, key=None):
            return trace.emit(op_cls(v, k, eps, wv, bv)).results[0]

        def reference(a, *params):
            a = a.astype(np.float64)
            axes = tuple(range(a.ndim - k, a.ndim))
            if rms:
                y = a / np.sqrt((a * a).mean(axis=axes, keepdims=True) + eps)
            else:
                mu = a.mean(axis=axes, keepdims=True)
                y = (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
            it = iter(params)
            if w is not None:
                y = y * next(it).astype(np.float64)
            if b is not None:
                y = y + next(it).astype(np.float64)
            return y

        return _emit(name, x, build, x.dtype, x.shape, (k, eps), reference, w, b)
    call.__name__ = name
    call.__doc__ = (f"{'root-mean-square' if rms else 'layer'} normalisation over the trailing ``normalized_shape`` "
                    "dims, with optional affine ``weight`` and ``bias``.")
    return call


layer_norm = _norm_call("layer_norm", asctensor.LayerNormOp, False)
rms_norm = _norm_call("rms_norm", asctensor.RmsNormOp, True)


_CALLS = {
    "sum": lambda x, key: sum(x, *key), "mean": lambda x, key: mean(x, *key),
    "prod": lambda x, key: prod(x, *key), "amax": lambda x, key: amax(x, *key),
    "amin": lambda x, key: amin(x, *key), "argmax": lambda x, key: argmax(x, *key),
    "argmin": lambda x, key: argmin(x, *key), "softmax": lambda x, key: softmax(x, key),
    "log_softmax": lambda x, key: log_softmax(x, key),
}


def _norm_eager(fn):
    def run(x, w=None, b=None, key=None):
        k, eps = key
        return fn(x, x.shape[x.ndim - k:], w, b, eps)
    return run


_CALLS.update({"layer_norm": _norm_eager(layer_norm), "rms_norm": _norm_eager(rms_norm)})

__all__ = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "softmax", "log_softmax",
           "layer_norm", "rms_norm", "MaxMin"]
