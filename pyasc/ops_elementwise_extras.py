"""More of PyTorch's elementwise functions, each a composition of ops of the table (``COMPOSITE``), so it compiles
inside ``pyasc.jit`` and differentiates: ``fmax`` and ``fmin`` (NaN only where both are), ``copysign``,
``logaddexp2``, the inverse hyperbolic ``asinh``, ``acosh``, ``atanh`` (and their ``arc*`` names), ``isin``, and
``aminmax`` and ``equal`` of the reductions. Their values, dtypes and errors follow PyTorch's; float16 and
bfloat16 inputs of the inverse hyperbolic functions compute in float32."""

from __future__ import annotations

import math
import numbers
from collections import namedtuple

import numpy as np

from . import dtypes as dt
from .args import tensor_operand
from .creation import full_like, zeros_like
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
from .tensor import Tensor

_LN2 = math.log(2.0)
_BIG = 2.0 ** 28  # past it, x^2 + 1 is x^2 in float32: asinh(x) = log(2x), acosh(x) = log(2x)

AminMax = namedtuple("AminMax", ["min", "max"])


def _op(name):
    from .ops import get_op

    return get_op(name)


def _operands(name: str, a, b) -> tuple[Tensor, Tensor]:
    """``a`` and ``b`` as tensors of their promoted dtype (a Python number takes the tensor's kind, as in PyTorch)."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise PyascError(name, f"expected a tensor among the operands, got {type(a).__name__} and "
                         f"{type(b).__name__}")
    out = dt.result_type(*(v.dtype if isinstance(v, Tensor) else v for v in (a, b)))
    pair = []
    for v, other in ((a, b), (b, a)):
        if isinstance(v, Tensor):
            pair.append(v if v.dtype is out else v.to(out))
        else:
            pair.append(full_like(other, v, dtype=out))
    return pair[0], pair[1]


def _floating(name: str, a, b) -> tuple[Tensor, Tensor]:
    a, b = _operands(name, a, b)
    if not a.dtype.is_floating_point:
        a, b = a.to(dt.float32), b.to(dt.float32)
    return a, b


def _ignoring_nan(name: str, pick: str):
    """``fmax`` or ``fmin``: ``pick`` (maximum or minimum) of ``a`` and ``b``; where one is NaN, the other (NaN
    only where both are)."""
    def fn(a, b):
        a, b = _operands(name, a, b)
        m = _op(pick)(a, b)
        if not a.dtype.is_floating_point:
            return m
        where, isnan = _op("where"), _op("isnan")
        return where(isnan(a), b, where(isnan(b), a, m))
    fn.__name__ = name
    fn.__doc__ = f"The {'larger' if pick == 'maximum' else 'smaller'} of ``a`` and ``b``; where one is NaN, the other."
    return fn


fmax, fmin = _ignoring_nan("fmax", "maximum"), _ignoring_nan("fmin", "minimum")


def copysign(a, b):
    """The magnitude of ``a`` with the sign of ``b`` (-0.0 is negative); integers give float32."""
    a, b = _floating("copysign", a, b)
    magnitude = _op("abs")(a)
    return _op("where")(_op("signbit")(b), -magnitude, magnitude)


def logaddexp2(a, b):
    """``log2(2**a + 2**b)`` without overflow: the larger plus ``log2(1 + 2**-|a - b|)``; equal infinities give
    themselves."""
    a, b = _floating("logaddexp2", a, b)
    larger = _op("maximum")(a, b)
    spread = _op("abs")(a - b)
    out = larger + _op("log2")(1.0 + _op("exp2")(-spread))
    return _op("where")(a == b, a + 1.0, out)


def _in_float32(fn):
    def wrapped(x):
        x = tensor_operand(fn.__name__, x)
        if not x.dtype.is_floating_point:
            return fn(x.to(dt.float32))
        if x.dtype in (dt.float16, dt.bfloat16):
            return fn(x.to(dt.float32)).to(x.dtype)
        return fn(x)
    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


@_in_float32
def asinh(x):
    """``sign(x) log(|x| + sqrt(x^2 + 1))``, as ``log1p(|x| + x^2 / (1 + sqrt(1 + x^2)))`` (no cancellation near
    0) and ``log(|x|) + log 2`` past 2^28."""
    where, log, log1p, sqrt = _op("where"), _op("log"), _op("log1p"), _op("sqrt")
    ax = _op("abs")(x)
    small = _op("minimum")(ax, _BIG)
    near = log1p(small + small * small / (1.0 + sqrt(1.0 + small * small)))
    far = log(_op("maximum")(ax, _BIG)) + _LN2
    magnitude = where(ax > _BIG, far, near)
    return where(_op("signbit")(x), -magnitude, magnitude)


@_in_float32
def acosh(x):
    """``log(x + sqrt(x^2 - 1))`` for x >= 1 (NaN below), as ``log1p(t + sqrt(2t + t^2))`` with t = x - 1 (no
    cancellation near 1) and ``log(x) + log 2`` past 2^28."""
    where, log, log1p, sqrt = _op("where"), _op("log"), _op("log1p"), _op("sqrt")
    t = _op("clamp")(x, 1.0, _BIG) - 1.0
    near = log1p(t + sqrt(2.0 * t + t * t))
    far = log(_op("maximum")(x, _BIG)) + _LN2
    return where(x < 1.0, math.nan, where(x > _BIG, far, near))


@_in_float32
def atanh(x):
    """``sign(x) log1p(2|x| / (1 - |x|)) / 2`` (odd, so that no digits cancel near -1): ±inf at ±1, NaN past
    them."""
    ax = _op("abs")(x)
    magnitude = 0.5 * _op("log1p")(2.0 * ax / (1.0 - ax))
    return _op("where")(_op("signbit")(x), -magnitude, magnitude)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is among ``test_elements`` (a tensor, a list or a number), or with
    ``invert`` whether it is not; NaN is in nothing."""
    if not isinstance(elements, Tensor):
        if not isinstance(test_elements, Tensor):
            raise PyascError("isin", "expected a tensor among elements and test_elements")
        elements = full_like(test_elements.reshape(-1)[:1], elements).reshape(())
    if not isinstance(test_elements, Tensor):
        values = np.asarray(test_elements).reshape(-1)
        kind = dt.result_type(elements.dtype, values.tolist()[0]) if values.size else elements.dtype
        test_elements = Tensor(values.astype(kind.np_dtype), kind)
    common = dt.promote_types(elements.dtype, test_elements.dtype)
    e = elements if elements.dtype is common else elements.to(common)
    t = test_elements.reshape(-1)
    t = t if t.dtype is common else t.to(common)
    if t.shape[0] == 0:
        found = zeros_like(e, dtype=dt.bool_)
    else:
        found = (e.unsqueeze(-1) == t).any(-1)
    return ~found if invert else found


def aminmax(x, *, dim=None, keepdim=False):
    """``(min, max)`` of ``x`` (over ``dim``), as a named tuple."""
    x = tensor_operand("aminmax", x)
    if dim is None:
        if keepdim:
            return AminMax(x.amin(tuple(range(x.ndim)), keepdim=True), x.amax(tuple(range(x.ndim)), keepdim=True))
        return AminMax(x.amin(), x.amax())
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise PyascError("aminmax", f"dim must be an integer, got {dim!r}", shapes=[x.shape])
    return AminMax(x.amin(dim, keepdim=keepdim), x.amax(dim, keepdim=keepdim))


def equal(a, b) -> bool:
    """Whether ``a`` and ``b`` have the same shape and elements (a Python bool: not inside ``pyasc.jit``)."""
    a, b = tensor_operand("equal", a), tensor_operand("equal", b)
    if a.shape != b.shape:
        return False
    return bool((a == b).all().item())


_FUNCTIONS = [fmax, fmin, copysign, logaddexp2, asinh, acosh, atanh, isin, aminmax, equal]
_METHODS = {fmax, fmin, copysign, logaddexp2, asinh, acosh, atanh, aminmax, equal}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
OPS += [OpDef(f"arc{f.__name__[1:]}", decompose=f, kind=COMPOSITE, method=True) for f in (asinh, acosh, atanh)]
