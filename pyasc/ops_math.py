"""Elementwise functions and statistics written with the device ops (``OpDef``s of kind
``composite``, each compiled as one program: ``fused.py``).

``square``, ``reciprocal``, ``sign``, ``log1p``, ``expm1``, ``silu``, ``softplus``, ``hardswish``,
``mish``, ``floor``, ``ceil``, ``round`` (half to even), ``trunc``, ``floor_divide`` and
``remainder`` (``//`` and ``%``, with PyTorch's signs), ``var``, ``std``, ``logsumexp``, ``all``
and ``any``. As in PyTorch, float16 and bfloat16 inputs are computed in float32 and rounded once.

Rounding: ``trunc`` converts to int32 and back (the conversion truncates) where ``|x| < 2**23``
(larger floats are integers already; NaN and inf pass through); ``floor``/``ceil`` correct it by
one; ``round`` looks at the exact remainder ``x - trunc(x)``. ``log1p`` and ``expm1`` keep their
accuracy near 0 with Goldberg's correction (``log(u) * x / (u - 1)`` with ``u = 1 + x``). Integer
``//`` and ``%`` divide in float32 and correct the quotient with exact int32 arithmetic.
"""

from __future__ import annotations

import inspect
import math
import numbers

import numpy as np

from . import dtypes as dt
from .args import dims_arg, operand, tensor_operand
from .errors import PyascError, describe
from .fused import fused_op
from .ops_compare import EQ, GT, ISINF, LT, NE, WHERE
from .ops_elementwise import BY_NAME as EW
from .ops_elementwise import CAST
from .ops_reduce import AMAX, AMIN, MEAN, SUM
from .ops_shape import broadcast_mask
from .tensor import Tensor

ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM = (EW[n] for n in ("add", "sub", "mul", "div", "maximum", "minimum"))
EXP, LOG, SQRT, ABS, TANH, SIGMOID = (EW[n] for n in ("exp", "log", "sqrt", "abs", "tanh", "sigmoid"))
F32, I32 = dt.float32, dt.int32
INT_EXACT = 8388608.0       # 2**23: float32 values at least this large are integers


# ----------------------------------------------------------------------------- helpers

def to_dtype(v, d: dt.DType):
    """A tensor or Python number converted to ``d``."""
    if isinstance(v, Tensor):
        return CAST(v, dtype=d)
    return float(v) if d.is_floating_point else int(v)


def _in_float32(fn):
    """``fn`` on a float tensor computed in float32 and rounded back to the input's dtype."""
    def wrapped(x, **attrs):
        return CAST(fn(CAST(x, dtype=F32), **attrs), dtype=x.dtype)
    wrapped.__doc__ = fn.__doc__
    return wrapped


def _float_signature(name: str, **defaults):
    def signature(x, *args, **kwargs):
        x = tensor_operand(name, x)
        if not x.dtype.is_floating_point:
            raise PyascError(name, f"does not support dtype {x.dtype.name} (floating point only)",
                             shapes=[x.shape], dtypes=[x.dtype.name])
        return [x], _attrs(name, defaults, args, kwargs, x)
    return _signature_of(signature, defaults)


def _numeric_signature(name: str, **defaults):
    def signature(x, *args, **kwargs):
        x = tensor_operand(name, x)
        if x.dtype in dt.STORAGE_DTYPES:
            raise PyascError(name, f"does not support dtype {x.dtype.name}; convert with .to(pyasc.int32) first",
                             shapes=[x.shape], dtypes=[x.dtype.name])
        return [x], _attrs(name, defaults, args, kwargs, x)
    return _signature_of(signature, defaults)


def _signature_of(signature, defaults):
    """``signature`` reading as ``(x, <defaults>)`` in help() and IDEs."""
    P = inspect.Parameter
    signature.__signature__ = inspect.Signature(
        [P("x", P.POSITIONAL_OR_KEYWORD)] + [P(k, P.POSITIONAL_OR_KEYWORD, default=v) for k, v in defaults.items()])
    return signature


def _attrs(name, defaults, args, kwargs, x) -> dict:
    if len(args) > len(defaults):
        raise PyascError(name, f"takes at most {len(defaults)} argument(s) after the tensor, got {len(args)}",
                         shapes=[x.shape])
    given = dict(zip(defaults, args))
    unknown = set(kwargs) - set(defaults)
    if unknown:
        raise PyascError(name, f"got unexpected keyword argument(s) {sorted(unknown)}", shapes=[x.shape])
    return {**defaults, **given, **kwargs}


def trunc32(x):
    """trunc of a float32 tensor (NaN, inf and |x| >= 2**23 unchanged)."""
    t = CAST(CAST(x, dtype=I32), dtype=F32)
    return WHERE(LT(ABS(x), INT_EXACT), t, x)


def floor32(x):
    t = trunc32(x)
    return WHERE(LT(x, t), SUB(t, 1.0), t)


def _ceil32(x):
    t = trunc32(x)
    return WHERE(GT(x, t), ADD(t, 1.0), t)


def _round32(x):
    """Round half to even (PyTorch's ``round``)."""
    t = trunc32(x)
    f = SUB(x, t)                                   # exact: |f| < 1
    half = MUL(t, 0.5)
    odd = NE(trunc32(half), half)
    up = WHERE(GT(f, 0.5), 1.0, WHERE(LT(f, -0.5), -1.0, 0.0))
    tie = WHERE(EQ(ABS(f), 0.5), WHERE(odd, WHERE(GT(f, 0.0), 1.0, -1.0), 0.0), 0.0)
    return ADD(t, ADD(up, tie))


def _rounding(fn32, name: str):
    def rounded(x, **attrs):
        if not x.dtype.is_floating_point:
            return MUL(x, 1)                         # integers are their own rounding (a copy)
        return _in_float32(fn32)(x)
    rounded.__doc__ = f"{name} of x (integer tensors are returned as a copy)"
    return rounded


def _round(x, decimals=0):
    """x rounded half to even, to ``decimals`` decimal places (as torch.round)."""
    if not x.dtype.is_floating_point:
        return MUL(x, 1)
    if decimals == 0:
        return _in_float32(_round32)(x)
    scale = 10.0 ** decimals
    return CAST(DIV(_round32(MUL(CAST(x, dtype=F32), scale)), scale), dtype=x.dtype)


def _square(x):
    """x * x"""
    return MUL(x, x)


def _reciprocal(x):
    """1 / x (integers give float32)"""
    return DIV(1.0, x)


def _sign(x):
    """-1, 0 or 1 by the sign of x (0 for NaN, as torch.sign)."""
    return CAST(WHERE(GT(x, 0), 1, WHERE(LT(x, 0), -1, 0)), dtype=x.dtype)


def _log1p32(x):
    u = ADD(x, 1.0)
    r = MUL(LOG(u), DIV(x, SUB(u, 1.0)))
    return WHERE(EQ(u, 1.0), x, WHERE(EQ(u, math.inf), x, r))


def _expm1_32(x):
    u = EXP(x)
    r = MUL(SUB(u, 1.0), DIV(x, LOG(u)))
    r = WHERE(EQ(u, 1.0), x, r)
    r = WHERE(EQ(u, 0.0), -1.0, r)
    return WHERE(EQ(u, math.inf), u, r)


def _silu32(x):
    return MUL(x, SIGMOID(x))


def _softplus32(x, beta=1.0, threshold=20.0):
    xb = MUL(x, float(beta))
    soft = _log1p32(EXP(xb))
    if beta != 1:
        soft = DIV(soft, float(beta))
    return WHERE(GT(xb, float(threshold)), x, soft)


def _hardswish32(x):
    return DIV(MUL(x, MINIMUM(MAXIMUM(ADD(x, 3.0), 0.0), 6.0)), 6.0)


def _mish32(x):
    return MUL(x, TANH(_softplus32(x)))


def _float_result(x):
    return x if x.dtype.is_floating_point else CAST(x, dtype=F32)


def _log1p(x):
    """log(1 + x), accurate near 0 (integers give float32)."""
    x = _float_result(x)
    return _in_float32(_log1p32)(x)


def _expm1(x):
    """exp(x) - 1, accurate near 0 (integers give float32)."""
    x = _float_result(x)
    return _in_float32(_expm1_32)(x)


# ----------------------------------------------------------------------------- // and %

def _division_signature(name: str):
    def signature(x, other):
        a, b = operand(name, x), operand(name, other)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise PyascError(name, f"needs a tensor operand, got {describe(a)} and {describe(b)}")
        for v in (a, b):
            if isinstance(v, Tensor) and v.dtype in dt.STORAGE_DTYPES:
                raise PyascError(name, f"does not support dtype {v.dtype.name}; convert with .to(pyasc.int32)",
                                 shapes=[v.shape], dtypes=[v.dtype.name])
        d = dt.result_type(*[v.dtype if isinstance(v, Tensor) else v for v in (a, b)])
        if not d.is_floating_point and _has_zero(b):
            raise PyascError(name, "integer division by zero (ZeroDivisionError)",
                             shapes=[getattr(a, "shape", None), getattr(b, "shape", None)])
        return [a, b], {}
    return signature


def _has_zero(b) -> bool:
    if isinstance(b, Tensor):
        return not b.is_traced and b.numel() > 0 and bool((b.numpy() == 0).any())
    return b == 0


def _int_quotient(a, b):
    """floor(a / b) of int32 operands and the remainder with b's sign (exact)."""
    af, bf = to_dtype(a, F32), to_dtype(b, F32)
    q = CAST(DIV(af, bf), dtype=I32)                    # trunc of the float quotient: off by a little
    for _ in range(2):                                  # refined with the exact remainder
        r = SUB(a, MUL(q, b))
        q = ADD(q, CAST(DIV(CAST(r, dtype=F32), bf), dtype=I32))
    s = WHERE(LT(b, 0), -1, 1) if isinstance(b, Tensor) else (-1 if b < 0 else 1)
    babs = MUL(b, s) if isinstance(b, Tensor) else abs(b)
    r = SUB(a, MUL(q, b))
    below = WHERE(LT(MUL(r, s), 0), 1, 0)              # r has the other sign than b
    q, r = SUB(q, below), ADD(r, MUL(below, b))
    above = WHERE(LT(MUL(r, s), babs), 0, 1)           # |r| >= |b|
    return ADD(q, above), SUB(r, MUL(above, b))


def _both(x, y):
    """x and y, each a bool tensor or a Python bool."""
    if x is False or y is False:
        return False
    return y if x is True else x if y is True else x & y


def _float_quotient(a, b):
    """floor(a / b) and a - floor(a / b) * b; as in PyTorch, an infinite a has no quotient (NaN)
    and a finite a over an infinite b gives 0 and a, or -1 and b when their signs differ. The
    masks are float 0/1 until they have the result's shape (bools do not broadcast on the device)."""
    q = floor32(DIV(a, b))
    r = SUB(a, MUL(q, b))
    if isinstance(a, Tensor):
        q = ADD(q, WHERE(ISINF(a), math.nan, 0.0))
    inf_b = WHERE(ISINF(b), 1.0, 0.0) if isinstance(b, Tensor) else float(math.isinf(b))
    finite_a = WHERE(LT(ABS(a), math.inf), 1.0, 0.0) if isinstance(a, Tensor) else float(math.isfinite(a))
    if 0.0 in [v for v in (inf_b, finite_a) if isinstance(v, float)]:
        return q, r
    by_inf = True
    if isinstance(inf_b, Tensor) or isinstance(finite_a, Tensor):
        by_inf = broadcast_mask(GT(MUL(inf_b, finite_a), 0.5), q.shape)
    apart = LT(MUL(a, b), 0.0)
    q_inf, r_inf = WHERE(apart, -1.0, 0.0), WHERE(apart, b, a)
    if by_inf is True:
        return q_inf, r_inf
    return WHERE(by_inf, q_inf, q), WHERE(by_inf, r_inf, r)


def _divided(a, b, which: int):
    d = dt.result_type(*[v.dtype if isinstance(v, Tensor) else v for v in (a, b)])
    if d.is_floating_point:
        a32, b32 = to_dtype(a, F32), to_dtype(b, F32)
        return CAST(_float_quotient(a32, b32)[which], dtype=d)
    return _int_quotient(to_dtype(a, I32), to_dtype(b, I32))[which]


def _floor_divide(a, b):
    """floor(a / b) (PyTorch's ``//``)."""
    return _divided(a, b, 0)


def _remainder(a, b):
    """a - floor(a / b) * b: the remainder with b's sign (PyTorch's ``%``)."""
    return _divided(a, b, 1)


# ----------------------------------------------------------------------------- statistics

def _variance_signature(name: str):
    def signature(x, dim=None, *, correction=None, keepdim=False, unbiased=None):
        x = tensor_operand(name, x)
        if not x.dtype.is_floating_point:
            raise PyascError(name, f"does not support dtype {x.dtype.name} (floating point only, as torch)",
                             shapes=[x.shape], dtypes=[x.dtype.name])
        if isinstance(dim, bool):       # var(x, unbiased)
            dim, unbiased = None, dim
        if correction is not None and unbiased is not None:
            raise PyascError(name, "give either correction or unbiased, not both", shapes=[x.shape])
        c = correction if correction is not None else (1 if unbiased is None or unbiased else 0)
        if isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise PyascError(name, f"correction must be a number, got {describe(c)}", shapes=[x.shape])
        return [x], {"dims": dims_arg(name, dim, x.ndim, x.shape), "correction": c, "keepdim": bool(keepdim)}
    return signature


def _var(x, dims, correction, keepdim):
    """Variance over ``dim`` with Bessel's ``correction`` (N - correction in the denominator)."""
    x32 = CAST(x, dtype=F32)
    n = math.prod(x.shape[d] for d in dims)
    centred = SUB(x32, MEAN(x32, dim=dims, keepdim=True))
    s = SUM(MUL(centred, centred), dim=dims, keepdim=keepdim)
    return CAST(DIV(s, float(max(n - correction, 0))), dtype=x.dtype)


def _std(x, dims, correction, keepdim):
    """Standard deviation over ``dim`` with Bessel's ``correction``."""
    return CAST(SQRT(_var(CAST(x, dtype=F32), dims, correction, keepdim)), dtype=x.dtype)


def _logsumexp_signature(x, dim, keepdim=False):
    x = tensor_operand("logsumexp", x)
    if x.dtype in dt.STORAGE_DTYPES:
        raise PyascError("logsumexp", f"does not support dtype {x.dtype.name}", shapes=[x.shape])
    return [x], {"dims": dims_arg("logsumexp", dim, x.ndim, x.shape), "keepdim": bool(keepdim)}


def _logsumexp(x, dims, keepdim):
    """log(sum(exp(x))) over ``dim``, computed from the maximum (no overflow)."""
    res = x.dtype if x.dtype.is_floating_point else F32
    if not x.is_traced and x.numel() == 0:      # the sum of nothing is 0: -inf, or an empty result
        shape = tuple(1 if d in dims else n for d, n in enumerate(x.shape) if keepdim or d not in dims)
        return Tensor(np.full(shape, -np.inf, res.np_dtype), res)
    x32 = CAST(x, dtype=F32)
    m = AMAX(x32, dim=dims, keepdim=True)
    m = WHERE(ISINF(m), 0.0, m)
    s = SUM(EXP(SUB(x32, m)), dim=dims, keepdim=keepdim)
    r = ADD(LOG(s), m.reshape(s.shape))
    return CAST(r, dtype=x.dtype if x.dtype.is_floating_point else F32)


def _truth_signature(name: str):
    def signature(x, dim=None, keepdim=False):
        x = tensor_operand(name, x)
        dims = dims_arg(name, dim, x.ndim, x.shape)
        return [x], {"dims": dims, "keepdim": bool(keepdim)}
    return signature


def _truth(reduce):
    def fn(x, dims, keepdim):
        if not x.is_traced and x.numel() == 0:      # nothing to reduce: torch's empty all/any
            whole = np.all if reduce is AMIN else np.any
            return Tensor(np.asarray(whole(x.numpy() != 0, axis=dims, keepdims=keepdim)), dt.bool_)
        if x.dtype is dt.bool_:
            b = x if dims else NE(CAST(x, dtype=dt.float16), 0)       # a copy when nothing is reduced
        else:
            b = NE(CAST(x, dtype=dt.float16) if x.dtype is dt.int8 else x, 0)
        if not dims:
            return b
        return NE(reduce(WHERE(b, 1.0, 0.0), dim=dims, keepdim=keepdim), 0.0)
    return fn


def _all(x, dims, keepdim):
    """True where every element over ``dim`` is nonzero."""
    return _truth(AMIN)(x, dims, keepdim)


def _any(x, dims, keepdim):
    """True where some element over ``dim`` is nonzero."""
    return _truth(AMAX)(x, dims, keepdim)


# ----------------------------------------------------------------------------- the table

def _f(name, fn, vjp=None, **defaults):
    return fused_op(name, _in_float32(fn), _float_signature(name, **defaults), vjp=vjp)


# the gradients of the compositions above whose selected branches would give 0 * inf = NaN when differentiated
# part by part (log1p and expm1 at 0, softplus and mish far from 0)

def _log1p_vjp(ctx, g):
    return (g / (ctx.inputs[0] + 1.0),)


def _expm1_vjp(ctx, g):
    return (g * (ctx.output + 1.0),)


def _softplus_vjp(ctx, g):
    x, beta, threshold = ctx.inputs[0], float(ctx.attrs["beta"]), float(ctx.attrs["threshold"])
    xb = x * beta
    return (WHERE(GT(xb, threshold), g, g * SIGMOID(xb)),)


def _mish_vjp(ctx, g):
    """d/dx x tanh(softplus(x)) = tanh(sp) + x (1 - tanh(sp)^2) sigmoid(x)."""
    x = ctx.inputs[0]
    t = TANH(_in_float32(_softplus32)(x))
    return (g * (t + x * (1.0 - t * t) * SIGMOID(x)),)


OPS = [
    fused_op("square", _square, _numeric_signature("square")),
    fused_op("reciprocal", _reciprocal, _numeric_signature("reciprocal")),
    fused_op("sign", _sign, _numeric_signature("sign")),
    fused_op("log1p", _log1p, _numeric_signature("log1p"), vjp=_log1p_vjp),
    fused_op("expm1", _expm1, _numeric_signature("expm1"), vjp=_expm1_vjp),
    _f("silu", _silu32),
    _f("softplus", _softplus32, _softplus_vjp, beta=1.0, threshold=20.0),
    _f("hardswish", _hardswish32),
    _f("mish", _mish32, _mish_vjp),
    fused_op("floor", _rounding(floor32, "floor"), _numeric_signature("floor")),
    fused_op("ceil", _rounding(_ceil32, "ceil"), _numeric_signature("ceil")),
    fused_op("trunc", _rounding(trunc32, "trunc"), _numeric_signature("trunc")),
    fused_op("round", _round, _numeric_signature("round", decimals=0)),
    fused_op("floor_divide", _floor_divide, _division_signature("floor_divide")),
    fused_op("remainder", _remainder, _division_signature("remainder")),
    fused_op("var", _var, _variance_signature("var")),
    fused_op("std", _std, _variance_signature("std")),
    fused_op("logsumexp", _logsumexp, _logsumexp_signature),
    fused_op("all", _all, _truth_signature("all")),
    fused_op("any", _any, _truth_signature("any")),
]
