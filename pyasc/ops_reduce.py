"""Reductions and row-wise composites of the tensor API (PyTorch semantics; ``OpDef``s of kind
``reduce``).

``sum/mean/prod/amax/amin(x, dim=None, keepdim=False)``, ``max/min(x)`` (all elements) and
``max/min(x, dim, keepdim)`` (values and indices), ``argmax/argmin``, ``softmax/log_softmax(x, dim)``,
``layer_norm(x, normalized_shape, weight, bias, eps)`` and ``rms_norm``. Inside ``pyasc.jit`` each
call emits its ``asctensor`` op; eagerly it runs a cached one-op program on the simulator
(``pyasc.set_eager_backend("reference")`` runs the NumPy reference instead, computed in float64).
The vector unit reduces and normalises floating-point tensors only: integer and bool reductions
run in float32 where that is exact or else by combining halves with int32 vector arithmetic
(``int32_reduction``), eagerly and inside ``pyasc.jit`` alike.
"""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ArgKind, ReduceKind

from . import amp
from . import dtypes as dt
from .args import dims_arg, tensor_operand
from .errors import PyascError, describe
from .opdef import COMPOSITE, REDUCE, OpDef, Types
from .ops_compare import EQ, WHERE
from .ops_elementwise import BY_NAME
from .tensor import Tensor

MaxMin = namedtuple("MaxMin", ["values", "indices"])


def _float_only(op: str, x) -> None:
    if not x.dtype.is_floating_point:
        raise PyascError(op, f"does not support dtype {x.dtype.name}: the vector unit reduces and normalises "
                         "half and float (ReduceSum/ReduceMax/ReduceMin); convert with .float() first",
                         shapes=[x.shape], dtypes=[x.dtype.name])


# ------------------------------------------------------------------------------------- reductions

def _policy(name: str, x):
    """``x`` cast to the dtype the active precision policy computes op ``name`` in."""
    if amp.active() and x.dtype.is_floating_point:
        want = amp.target_dtype(name)
        if want is not None and want is not x.dtype:
            return x.to(want)
    return x


def _reduce_signature(name: str):
    def signature(x, dim=None, keepdim: bool = False):
        x = _policy(name, tensor_operand(name, x))
        _float_only(name, x)
        return [x], {"dims": dims_arg(name, dim, x.ndim, x.shape), "keepdim": keepdim}
    return signature


# results of integer and bool reductions (PyTorch's, with int64 as int32)
_COUNTS = {"sum", "prod"}            # sums and products count in int32
_EXACT_F32 = 2 ** 24                 # float32 holds every integer up to this


def integer_reduction(name: str, x, reference, dims, keepdim: bool, result: dt.DType):
    """An integer or bool reduction on the device: through float32 where that is exact (bool and
    int8 sums below 2**24; None, the caller reduces in float32), else exactly in int32 by halving
    (``int32_reduction``). An empty eager input has no elements to move: its result (zeros, ones
    or PyTorch's error for the extremum of nothing) is made on the host."""
    if x._trace is None and 0 in x.shape:
        a = x._concrete(name)
        wide = a.astype(np.int64) if a.dtype != np.bool_ or name in _COUNTS else a
        try:
            r = reference(wide, dims, keepdim)
        except ValueError as e:     # the extremum of nothing (PyTorch raises too)
            raise PyascError(name, f"cannot reduce an empty tensor ({e})", shapes=[x.shape],
                             dtypes=[x.dtype.name]) from None
        return Tensor(np.asarray(r).astype(result.np_dtype), result, device=x._device)
    bound = 1 if x.dtype is dt.bool_ else 128
    span = 1
    for d in (dims if dims is not None else range(x.ndim)):
        span *= x.shape[d]
    if x.dtype not in (dt.bool_, dt.int8) or name == "prod" or span * bound >= _EXACT_F32:
        return int32_reduction(name, x, dims, keepdim).to(result)
    return None


# the int32 elementwise op combining two halves, and the op's name for the index reductions
_COMBINE = {"sum": "add", "prod": "mul", "amax": "maximum", "amin": "minimum", "max": "maximum",
            "min": "minimum", "argmax": "maximum", "argmin": "minimum"}


def _halve(combine, v, dim: int):
    """``v`` reduced along ``dim`` to size 1 by combining halves elementwise (log2 n steps; the
    element an odd length leaves over is combined at the end)."""
    def sl(start, stop):
        return tuple(slice(start, stop) if i == dim else slice(None) for i in range(v.ndim))

    left = []
    while v.shape[dim] > 1:
        n = v.shape[dim]
        h = n // 2
        if n % 2:
            left.append(v[sl(n - 1, n)])
        v = combine(v[sl(0, h)], v[sl(h, 2 * h)])
    for rest in left:
        v = combine(v, rest)
    return v


def int32_reduction(name: str, x, dims, keepdim: bool):
    """An integer or bool reduction, exact in int32: the vector unit has no
    integer ReduceSum/ReduceMax, so halves are combined with int32 Add/Mul/Max/Min (sums and
    products wrap around modulo 2**32 as PyTorch's int32 do). ``argmax``/``argmin`` give the first
    index where x equals its extremum. ``dims`` None: over all elements."""
    combine = BY_NAME[_COMBINE[name]]
    v = x.to(dt.int32)
    if dims is None:
        v, dims = v.reshape(-1), (0,)
    if name in ("argmax", "argmin"):
        (d,) = dims
        n = v.shape[d]
        best = _halve(combine, v, d)
        pos = np.arange(n, dtype=np.int32).reshape([n if i == d else 1 for i in range(v.ndim)])
        pos = Tensor(np.ascontiguousarray(np.broadcast_to(pos, v.shape)), dt.int32)
        first = WHERE(EQ(v, best), pos, n)
        r = _halve(BY_NAME["minimum"], first, d)
    else:
        r = v
        for d in sorted(dims, reverse=True):
            r = _halve(combine, r, d)
    if not keepdim:
        r = r.reshape(*asctensor.reduced_shape(v.shape, tuple(dims), False))
    return r


def _nothing_to_reduce(name: str, reference, op_ref):
    def decompose(x, dim=None, keepdim: bool = False):
        """``x`` itself when ``dim`` names no dimension; integer and bool inputs (see
        ``integer_reduction``)."""
        if isinstance(dim, tuple | list) and not dim or dim is None and getattr(x, "ndim", None) == 0:
            x = tensor_operand(name, x)
            if name in _COUNTS and not x.dtype.is_floating_point:
                return x.to(dt.int32)
            _float_only(name, x)
            return x
        x = tensor_operand(name, x)
        if x.dtype.is_floating_point or name == "mean":
            return NotImplemented
        result = dt.int32 if name in _COUNTS else x.dtype
        dims = dims_arg(name, dim, x.ndim, x.shape)
        out = integer_reduction(name, x, lambda a, d, k: reference(a, axis=d, keepdims=k), dims, keepdim, result)
        if out is not None:
            return out
        return op_ref()(x.to(dt.float32), dim, keepdim).to(result)
    return decompose


def _reduce_infer(operands, attrs) -> Types:
    x = operands[0]
    return Types(x.dtype, ((x.dtype, asctensor.reduced_shape(x.shape, attrs["dims"], attrs["keepdim"])),))


# ------------------------------------------------------------------------------------- gradients
# ``vjp(ctx, g)`` of each op (see ``autograd.tape.VJPContext``); reductions broadcast g back.

def _kept(ctx, t):
    """A reduction's result (or its gradient) with the reduced dims kept as size 1."""
    x = ctx.inputs[0]
    shape = asctensor.reduced_shape(x.shape, ctx.attrs["dims"], True)
    return t if t.shape == shape else t.reshape(*shape)


def _sum_vjp(ctx, g):
    return ctx.expand(_kept(ctx, g), ctx.inputs[0])


def _mean_vjp(ctx, g):
    x = ctx.inputs[0]
    n = 1
    for d in ctx.attrs["dims"]:
        n *= x.shape[d]
    return ctx.expand(_kept(ctx, g) * (1.0 / n), x)


def _prod_vjp(ctx, g):
    """The product of the other elements: the product over the nonzero ones, divided by the element when no
    element is 0, itself for the one 0, and 0 when another element is 0 too (as PyTorch)."""
    x = ctx.inputs[0]
    dims = ctx.attrs["dims"]
    zero = x == 0
    nonzero = WHERE(zero, 1.0, x).to(x.dtype)
    rest = PROD(nonzero, dim=dims, keepdim=True)
    zeros = SUM(WHERE(zero, 1.0, 0.0), dim=dims, keepdim=True)
    others = WHERE(zero, WHERE(zeros == 1.0, rest, 0.0), WHERE(zeros == 0.0, rest / nonzero, 0.0)).to(x.dtype)
    return ctx.expand(_kept(ctx, g), x) * others


def _extremum_vjp(ctx, g):
    """amax/amin: the gradient is shared evenly by the elements equal to the result (as PyTorch)."""
    x = ctx.inputs[0]
    hit = WHERE(x == _kept(ctx, ctx.output), 1.0, 0.0).to(x.dtype)
    count = SUM(hit, dim=ctx.attrs["dims"], keepdim=True)
    return hit * ctx.expand(_kept(ctx, g) / count, x)


def _softmax_vjp(ctx, g):
    y, axis = ctx.output, ctx.attrs["axis"]
    return y * (g - SUM(g * y, dim=axis, keepdim=True))


def _log_softmax_vjp(ctx, g):
    y, axis = ctx.output, ctx.attrs["axis"]
    return g - y.exp() * SUM(g, dim=axis, keepdim=True)


def _norm_vjp(rms: bool):
    """layer_norm / rms_norm: the normalised input is recomputed from x (float32 for half inputs)."""
    def vjp(ctx, g):
        x, w, b = ctx.inputs
        k = len(ctx.attrs["normalized_shape"])
        axes = tuple(range(x.ndim - k, x.ndim))
        lead = tuple(range(x.ndim - k))
        xf, gf = x.to(dt.float32), g.to(dt.float32)
        centred = xf if rms else xf - MEAN(xf, dim=axes, keepdim=True)
        rstd = (MEAN(centred * centred, dim=axes, keepdim=True) + ctx.attrs["eps"]).rsqrt()
        xhat = centred * rstd
        gw = SUM(gf * xhat, dim=lead) if w is not None and lead else (gf * xhat if w is not None else None)
        gb = (SUM(gf, dim=lead) if lead else gf) if b is not None else None
        gh = gf * w.to(dt.float32) if w is not None else gf
        inner = gh - xhat * MEAN(gh * xhat, dim=axes, keepdim=True)
        if not rms:
            inner = inner - MEAN(gh, dim=axes, keepdim=True)
        return rstd * inner, gw, gb
    return vjp


def _reduction(name: str, kind: ReduceKind, reference, vjp=None) -> OpDef:
    def build(tr, values, types, attrs):
        return asctensor.ReduceOp(kind, values[0], attrs["dims"], attrs["keepdim"])

    return OpDef(name, build, lambda a, dims, keepdim: reference(a, axis=dims, keepdims=keepdim),
                 signature=_reduce_signature(name), infer=_reduce_infer,
                 decompose=_nothing_to_reduce(name, reference, lambda: _REDUCTIONS[name]),
                 kind=REDUCE, vjp=vjp, doc=f"{kind.value} of x over dim (all dims by default); keepdim keeps them as size 1.")


SUM = _reduction("sum", ReduceKind.SUM, np.sum, _sum_vjp)
MEAN = _reduction("mean", ReduceKind.MEAN, np.mean, _mean_vjp)
PROD = _reduction("prod", ReduceKind.PROD, np.prod, _prod_vjp)
AMAX = _reduction("amax", ReduceKind.MAX, np.max, _extremum_vjp)
AMIN = _reduction("amin", ReduceKind.MIN, np.min, _extremum_vjp)
_REDUCTIONS = {op.name: op for op in (SUM, MEAN, PROD, AMAX, AMIN)}


def _arg_signature(name: str):
    def signature(x, dim=None, keepdim: bool = False):
        x = _policy(name, tensor_operand(name, x))
        _float_only(name, x)
        if dim is not None:
            (dim,) = dims_arg(name, dim, x.ndim, x.shape)
        return [x], {"dim": dim, "keepdim": keepdim}
    return signature


def _arg_infer(operands, attrs) -> Types:
    x, dim = operands[0], attrs["dim"]
    shape, axis = (x.shape, dim) if dim is not None else ((x.numel(),), 0)
    return Types(x.dtype, ((dt.int32, asctensor.reduced_shape(shape, (axis,), attrs["keepdim"])),))


def _arg_reduction(name: str, kind: ArgKind, reference) -> OpDef:
    def build(tr, values, types, attrs):
        v, dim = values[0], attrs["dim"]
        if dim is None:   # over all elements: of the flattened tensor
            n = 1
            for d in v.type.get_shape():
                n *= d
            if tuple(v.type.get_shape()) != (n,):
                v = tr.emit(asctensor.ReshapeOp(v, (n,))).results[0]
            dim = 0
        return asctensor.ArgReduceOp(kind, v, dim, attrs["keepdim"])

    def ref(a, dim, keepdim):
        if dim is None:
            a, dim = a.reshape(-1), 0
        r = reference(a, axis=dim)
        return np.expand_dims(r, dim) if keepdim else r

    def decompose(x, dim=None, keepdim: bool = False):
        """Integer and bool inputs (see ``integer_reduction``)."""
        x = tensor_operand(name, x)
        if x.dtype.is_floating_point:
            return NotImplemented
        if x.dtype is dt.bool_:
            raise PyascError(name, "does not support bool input (as PyTorch)", shapes=[x.shape],
                             dtypes=[x.dtype.name])
        dims = None if dim is None else dims_arg(name, dim, x.ndim, x.shape)
        out = integer_reduction(name, x, lambda a, d, k: ref(a, None if d is None else d[0], k), dims, keepdim,
                                dt.int32)
        if out is not None:
            return out
        return _ARGS[name](x.to(dt.float32), dim, keepdim)

    return OpDef(name, build, ref, signature=_arg_signature(name), infer=_arg_infer, kind=REDUCE, decompose=decompose,
                 doc=f"index of the first {kind.value} of x along dim (int32; all elements by default).")


ARGMAX = _arg_reduction("argmax", ArgKind.MAX, np.argmax)
ARGMIN = _arg_reduction("argmin", ArgKind.MIN, np.argmin)
_ARGS = {"argmax": ARGMAX, "argmin": ARGMIN}


def _max_min(name: str, whole: OpDef, arg: OpDef) -> OpDef:
    def decompose(x, dim=None, keepdim: bool = False):
        if dim is None:
            return whole(x)
        if not isinstance(dim, numbers.Integral) and hasattr(dim, "shape"):  # max(a, b): the elementwise maximum
            from .ops_elementwise import BY_NAME

            return BY_NAME["maximum" if name == "max" else "minimum"](x, dim)
        x = tensor_operand(name, x)
        at = x.to(dt.int32) if x.dtype is dt.bool_ else x      # (arg refuses bool, max(x, dim) does not)
        return MaxMin(whole(x, dim, keepdim), arg(at, dim, keepdim))

    return OpDef(name, decompose=decompose, kind=COMPOSITE,
                 doc=f"{name}(x): the {name}imum of all elements; {name}(x, dim, keepdim): a named tuple "
                     "(values, indices) along dim.")


MAX = _max_min("max", AMAX, ARGMAX)
MIN = _max_min("min", AMIN, ARGMIN)


# ------------------------------------------------------------------------------------- row-wise

def _same_as_input(operands, attrs) -> Types:
    x = operands[0]
    return Types(x.dtype, ((x.dtype, x.shape),))


def _softmax(name: str, op_cls, log: bool) -> OpDef:
    vjp = _log_softmax_vjp if log else _softmax_vjp
    def signature(x, dim: int = -1):
        x = _policy(name, tensor_operand(name, x))
        _float_only(name, x)
        (axis,) = dims_arg(name, dim, x.ndim, x.shape)
        return [x], {"axis": axis}

    def build(tr, values, types, attrs):
        return op_cls(values[0], attrs["axis"])

    def reference(a, axis):
        s = a - a.max(axis=axis, keepdims=True, initial=-np.inf)   # (initial: an empty row)
        lse = np.log(np.exp(s).sum(axis=axis, keepdims=True))
        return s - lse if log else np.exp(s - lse)

    return OpDef(name, build, reference, signature=signature, infer=_same_as_input, kind=REDUCE, vjp=vjp,
                 doc=f"{'log of the ' if log else ''}softmax of x along dim.")


SOFTMAX = _softmax("softmax", asctensor.SoftmaxOp, False)
LOG_SOFTMAX = _softmax("log_softmax", asctensor.LogSoftmaxOp, True)


def _norm(name: str, op_cls, rms: bool) -> OpDef:
    def rms_signature(x, normalized_shape, weight=None, eps=None, *, bias=None):
        """PyTorch's ``rms_norm`` (``eps`` None: the machine epsilon of the input's dtype), and a bias."""
        return signature(x, normalized_shape, weight, bias, eps)

    def signature(x, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
        x = _policy(name, tensor_operand(name, x))
        _float_only(name, x)
        if eps is None and rms:
            eps = float(np.finfo(np.float32).eps) if x.dtype is dt.float32 else \
                {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}[x.dtype.name]
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
            raise PyascError(name, f"eps must be a number, got {describe(eps)}", shapes=[x.shape])
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (int(normalized_shape),)
        normalized_shape = tuple(normalized_shape)
        k = len(normalized_shape)
        if k == 0 or k > x.ndim or x.shape[x.ndim - k:] != normalized_shape:
            raise PyascError(name, f"normalized_shape {list(normalized_shape)} does not match the trailing dims "
                             f"of the input of shape {list(x.shape)}", shapes=[x.shape], dtypes=[x.dtype.name])
        params = []
        for pname, p in (("weight", weight), ("bias", bias)):
            if p is not None:
                p = tensor_operand(name, p)
                if p.shape != normalized_shape:
                    raise PyascError(name, f"{pname} of shape {list(p.shape)} does not match normalized_shape "
                                     f"{list(normalized_shape)}", shapes=[x.shape, p.shape])
            params.append(p)
        return [x, *params], {"normalized_shape": normalized_shape, "eps": float(eps)}

    def build(tr, values, types, attrs):
        x, w, b = values   # weight and bias in the input's dtype
        w, b = (None if p is None else tr.cast(p, types.compute) for p in (w, b))
        return op_cls(x, len(attrs["normalized_shape"]), attrs["eps"], w, b)

    def reference(a, w, b, normalized_shape, eps):
        axes = tuple(range(a.ndim - len(normalized_shape), a.ndim))
        if rms:
            y = a / np.sqrt((a * a).mean(axis=axes, keepdims=True) + eps)
        else:
            mu = a.mean(axis=axes, keepdims=True)
            y = (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
        return y

    return OpDef(name, build, reference, signature=rms_signature if rms else signature, infer=_same_as_input,
                 kind=REDUCE, method=False,
                 vjp=_norm_vjp(rms), doc=f"{'root-mean-square' if rms else 'layer'} normalisation over the trailing normalized_shape "
                     "dims, with optional affine weight and bias (cast to the input's dtype).")


LAYER_NORM = _norm("layer_norm", asctensor.LayerNormOp, False)
RMS_NORM = _norm("rms_norm", asctensor.RmsNormOp, True)

OPS = [SUM, MEAN, PROD, AMAX, AMIN, ARGMAX, ARGMIN, MAX, MIN, SOFTMAX, LOG_SOFTMAX, LAYER_NORM, RMS_NORM]
