"""Inverse trigonometric functions and ``erfc``, each one program of the vector ops (``fused_op``) with its own
gradient rule: ``atan`` (a polynomial fitted on [0, 1] and ``pi/2 - atan(1/x)`` above, within 1.4 ulp),
``atan2`` (its quadrants from the signs), ``asin`` and ``acos`` (through ``atan2``), ``erfc`` (``1 - erf`` where no
digits cancel, else a Chebyshev fit of ``erfc(x) exp(x^2)`` with a relative error below 1.2e-7; the rounding of ``x^2``
adds up to a few tens of ulp far in the tail). float16/bfloat16 compute in float32, integers give float32, as
PyTorch's."""

from __future__ import annotations

import math

import numpy as np

from . import dtypes as dt
from .args import tensor_operand
from .fused import fused_op

# atan(x) = x + x z P(z), z = x^2, on [0, 1]: P's coefficients, lowest first, fitted for the least largest
# relative error of atan (1.7e-8, below float32's half ulp); evaluated in float32, atan is within 1.4 ulp
_ATAN_P = (-0.33333152532577515, 0.19993773102760315, -0.14211055636405945, 0.10666003078222275,
           -0.07552210241556168, 0.043211814016103745, -0.016367899253964424, 0.002920684637501836)
_HALF_PI_HI = float(np.float32(math.pi / 2))     # pi/2 as the sum of two float32 values
_HALF_PI_LO = math.pi / 2 - _HALF_PI_HI
_ERFC_T = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587,
           -0.82215223, 0.17087277)


def _op(name):
    from .ops import get_op

    return get_op(name)


def _float(name: str, x) -> Tensor:
    x = tensor_operand(name, x)
    return x if x.dtype.is_floating_point else x.to(dt.float32)


def _unary(name: str):
    def signature(x):
        return [_float(name, x)], {}
    return signature


def _binary(name: str):
    def signature(y, x):
        y, x = _float(name, y), _float(name, x)
        if y.dtype is not x.dtype:     # PyTorch's promotion of two float dtypes that differ: float32 here
            y, x = y.to(dt.float32), x.to(dt.float32)
        return [y, x], {}
    return signature


def _in_float32(fn):
    """``fn`` computed in float32 for a float16/bfloat16 input, its result rounded back."""
    def wrapped(*xs):
        narrow = xs[0].dtype in (dt.float16, dt.bfloat16)
        out = fn(*(x.to(dt.float32) for x in xs)) if narrow else fn(*xs)
        return out.to(xs[0].dtype) if narrow else out
    wrapped.__doc__ = fn.__doc__
    return wrapped


@_in_float32
def _atan(x):
    """``atan(x)``: the polynomial on |x| <= 1; above, ``pi/2 + atan(-1/|x|)``, whose sum keeps the rounding error
    of ``pi/2 + r`` (Knuth's two-sum) to add it back with the small terms."""
    w = _op("where")
    a = _op("abs")(x)
    big = a > 1.0
    r = w(big, -1.0 / w(big, a, 1.0), a)
    z = r * r
    p = _ATAN_P[-1]
    for c in reversed(_ATAN_P[:-1]):
        p = p * z + c
    hi = w(big, _HALF_PI_HI, 0.0)
    total = hi + r
    r_part = total - hi
    lost = (hi - (total - r_part)) + (r - r_part)
    y = total + ((p * z * r + w(big, _HALF_PI_LO, 0.0)) + lost)
    return w(x < 0, -y, y)


@_in_float32
def _atan2(y, x):
    """The angle of the point (x, y): ``atan(y / x)``, moved by pi into the left half-plane; on the y axis +-pi/2,
    at the origin 0."""
    w = _op("where")
    r = _atan(y / w(x == 0, 1.0, x))
    left = w(y < 0, r - math.pi, r + math.pi)
    axis = w(y > 0, math.pi / 2, w(y < 0, -math.pi / 2, y * 0.0))
    return w(x > 0, r, w(x < 0, left, w(_op("isnan")(x), x, axis)))


def _cosine_side(x):
    return _op("sqrt")((1.0 - x) * (1.0 + x))


@_in_float32
def _asin(x):
    return _atan2(x, _cosine_side(x))


@_in_float32
def _acos(x):
    return _atan2(_cosine_side(x), x)


@_in_float32
def _erfc(x):
    """``1 - erf(x)`` below 0.5; above, ``t exp(-x^2 + poly(t))`` with ``t = 1 / (1 + x / 2)``."""
    t = 1.0 / (1.0 + 0.5 * _op("abs")(x))
    poly = t * _ERFC_T[-1] + _ERFC_T[-2]
    for c in reversed(_ERFC_T[:-2]):
        poly = poly * t + c
    tail = t * _op("exp")(poly - x * x)
    return _op("where")(x < 0.5, 1.0 - _op("erf")(x), tail)


def _atan_vjp(ctx, g):
    (x,) = ctx.inputs
    return g / (x * x + 1.0)


def _atan2_vjp(ctx, g):
    y, x = ctx.inputs
    r2 = x * x + y * y
    return g * x / r2, -g * y / r2


def _asin_vjp(ctx, g):
    (x,) = ctx.inputs
    return g / _cosine_side(x)


def _acos_vjp(ctx, g):
    (x,) = ctx.inputs
    return -g / _cosine_side(x)


def _erfc_vjp(ctx, g):
    (x,) = ctx.inputs
    return g * (-2.0 / math.sqrt(math.pi)) * (-(x * x)).exp()


OPS = [
    fused_op("atan", _atan, _unary("atan"), vjp=_atan_vjp),
    fused_op("arctan", _atan, _unary("arctan"), vjp=_atan_vjp),
    fused_op("atan2", _atan2, _binary("atan2"), vjp=_atan2_vjp),
    fused_op("arctan2", _atan2, _binary("arctan2"), vjp=_atan2_vjp),
    fused_op("asin", _asin, _unary("asin"), vjp=_asin_vjp),
    fused_op("arcsin", _asin, _unary("arcsin"), vjp=_asin_vjp),
    fused_op("acos", _acos, _unary("acos"), vjp=_acos_vjp),
    fused_op("arccos", _acos, _unary("arccos"), vjp=_acos_vjp),
    fused_op("erfc", _erfc, _unary("erfc"), vjp=_erfc_vjp),
]
