"""More of PyTorch's elementwise functions, each a composition of ops of the table (``COMPOSITE``), so it compiles
inside ``pyasc.jit`` and differentiates: ``fmax`` and ``fmin`` (NaN only where both are), ``copysign``,
``logaddexp2``, the inverse hyperbolic ``asinh``, ``acosh``, ``atanh`` (and their ``arc*`` names), ``lgamma``,
``digamma`` and ``erfinv`` (float32 series, a few ulp), ``isin``, and
``aminmax`` and ``equal`` of the reductions, ``heaviside``, ``sinc``, ``deg2rad``, ``rad2deg``, ``isposinf``,
``isneginf``, ``isreal``, and the activations ``softshrink``, ``hardshrink``, ``tanhshrink``, ``threshold`` and
``prelu``. Their values, dtypes and errors follow PyTorch's; float16 and bfloat16 inputs of the inverse hyperbolic
functions compute in float32."""

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


_SHIFT = 8  # lgamma and digamma shift arguments below it up to it (their asymptotic series hold past it)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
               0.00943887047, 1.00167406, 2.83297682)


def _polynomial(coefficients, w):
    p = coefficients[0]
    for c in coefficients[1:]:
        p = c + p * w
    return p


def _reflected(x):
    """(x >= 0.5, the argument at least 0.5 that the reflection formulas use (x or 1 - x), pi * (x - round(x)):
    sin and tan of it have the magnitude of those of pi x, exactly 0 at the integers)."""
    upper = x >= 0.5
    return upper, _op("where")(upper, x, 1.0 - x), math.pi * (x - _op("round")(x))


def _shifted(z):
    """(z + 8 where z < 8 else z, the factors z, z + 1, ..., z + 7 (1 where z >= 8), clamped so that no unused
    branch overflows)."""
    low = z < _SHIFT
    zc = _op("minimum")(z, float(_SHIFT))
    w = _op("where")(low, z + float(_SHIFT), z)
    return low, w, [_op("where")(low, zc + float(k), 1.0) for k in range(_SHIFT)]


@_in_float32
def lgamma(x):
    """``log |gamma(x)|``: Stirling's series past 8 (arguments below shifted up by the recurrence), the reflection
    ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` below 0.5; +inf at the non-positive integers and at ±inf."""
    where, log = _op("where"), _op("log")
    upper, z, r = _reflected(x)
    low, w, factors = _shifted(z)
    product = factors[0]
    for f in factors[1:]:
        product = product * f
    inv = 1.0 / w
    inv2 = inv * inv
    stirling = (w - 0.5) * log(w) - w + _HALF_LOG_2PI + inv * (1 / 12 + inv2 * (-1 / 360 + inv2 / 1260))
    positive = stirling - where(low, log(product), 0.0)
    out = where(upper, positive, log(math.pi / _op("abs")(_op("sin")(r))) - positive)
    return where(_op("isinf")(x), math.inf, out)


@_in_float32
def digamma(x):
    """``d/dx lgamma(x)``: its asymptotic series past 8 (arguments below shifted up by the recurrence), the
    reflection ``digamma(1 - x) - pi / tan(pi x)`` below 0.5; -inf at 0, NaN at the negative integers."""
    where, log = _op("where"), _op("log")
    upper, z, r = _reflected(x)
    low, w, factors = _shifted(z)
    steps = 1.0 / factors[0]
    for f in factors[1:]:
        steps = steps + 1.0 / f
    inv = 1.0 / w
    inv2 = inv * inv
    series = log(w) - 0.5 * inv - inv2 * (1 / 12 + inv2 * (-1 / 120 + inv2 / 252))
    positive = series - where(low, steps, 0.0)
    out = where(upper, positive, positive - math.pi / _op("tan")(r))
    integer = x == _op("round")(x)
    out = where(integer & (x < 0), math.nan, where(x == 0, -math.inf, out))
    return where(x == math.inf, math.inf, out)


@_in_float32
def erfinv(x):
    """The inverse of ``erf`` on (-1, 1) (Giles' single-precision approximation, a few ulp): ±inf at ±1, NaN
    past them."""
    where = _op("where")
    w = -_op("log")((1.0 - x) * (1.0 + x))
    central = _polynomial(_GILES_CENTRAL, _op("minimum")(w, 5.0) - 2.5)
    tail = _polynomial(_GILES_TAIL, _op("sqrt")(_op("maximum")(w, 5.0)) - 3.0)
    out = where(w < 5.0, central, tail) * x
    return where(_op("abs")(x) == 1.0, where(x > 0, math.inf, -math.inf), out)


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


def heaviside(input, values):  # noqa: A002 - PyTorch's names
    """0 where ``input`` < 0, ``values`` where it is 0, 1 where it is > 0 (and 0 at NaN, as PyTorch's kernel)."""
    x, v = tensor_operand("heaviside", input), tensor_operand("heaviside", values)
    if x.dtype is not v.dtype:
        raise PyascError("heaviside", f"is not implemented for tensors with different dtypes ({x.dtype.name} and "
                         f"{v.dtype.name})", shapes=[x.shape, v.shape])
    where = _op("where")
    return where(x == 0, v, where(x > 0, full_like(x, 1), full_like(x, 0)))


def _floating_unary(name: str, x) -> Tensor:
    x = tensor_operand(name, x)
    return x if x.dtype.is_floating_point else x.to(dt.float32)


def sinc(input):  # noqa: A002
    """``sin(pi x) / (pi x)``, 1 at 0 (integers give float32)."""
    x = _floating_unary("sinc", input)
    product = x * math.pi
    return _op("where")(x == 0, 1.0, _op("sin")(product) / product)


def deg2rad(input):  # noqa: A002
    """Degrees to radians (integers give float32)."""
    return _floating_unary("deg2rad", input) * (math.pi / 180.0)


def rad2deg(input):  # noqa: A002
    """Radians to degrees (integers give float32)."""
    return _floating_unary("rad2deg", input) * (180.0 / math.pi)


def isposinf(input):  # noqa: A002
    """Whether each element is +inf (never, for integers)."""
    x = tensor_operand("isposinf", input)
    return x == math.inf if x.dtype.is_floating_point else zeros_like(x, dtype=dt.bool_)


def isneginf(input):  # noqa: A002
    """Whether each element is -inf (never, for integers)."""
    x = tensor_operand("isneginf", input)
    return x == -math.inf if x.dtype.is_floating_point else zeros_like(x, dtype=dt.bool_)


def isreal(input):  # noqa: A002
    """Whether each element is real: every element of a (real) pyasc tensor."""
    return full_like(tensor_operand("isreal", input), True, dtype=dt.bool_)


def _activation_input(name: str, x) -> Tensor:
    x = tensor_operand(name, x)
    if not x.dtype.is_floating_point:
        raise PyascError(name, f"expected a floating-point input, got {x.dtype.name}", shapes=[x.shape])
    return x


def softshrink(input, lambd=0.5):  # noqa: A002
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    x = _activation_input("softshrink", input)
    if lambd < 0:
        raise PyascError("softshrink", f"lambda must be greater or equal to 0, but found to be {lambd}",
                         shapes=[x.shape])
    where = _op("where")
    return where(x > lambd, x - lambd, where(x < -lambd, x + lambd, x * 0.0))


def hardshrink(input, lambd=0.5):  # noqa: A002
    """``x`` where ``|x| > lambd``, else 0 (NaN stays NaN)."""
    x = _activation_input("hardshrink", input)
    return _op("where")((x >= -lambd) & (x <= lambd), 0.0, x)


def tanhshrink(input):  # noqa: A002
    """``x - tanh(x)``."""
    x = _activation_input("tanhshrink", input)
    return x - _op("tanh")(x)


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    """``x`` where ``x > threshold``, else ``value`` (NaN stays NaN)."""
    x = tensor_operand("threshold", input)
    out = _op("where")(x <= threshold, full_like(x, value), x)
    if inplace:
        x.copy_(out)
        return x
    return out


def prelu(input, weight):  # noqa: A002
    """``x`` where ``x > 0``, else ``weight * x``: one weight, or one per channel (dim 1)."""
    x, w = _activation_input("prelu", input), tensor_operand("prelu", weight)
    channels = x.shape[1] if x.ndim >= 2 else 1
    if w.ndim > 1 or w.numel() not in (1, channels):
        raise PyascError("prelu", f"weight of shape {w.shape} must have 1 element or one per channel "
                         f"({channels}, dim 1 of the input)", shapes=[x.shape, w.shape])
    if w.numel() > 1:
        w = w.reshape((channels,) + (1,) * (x.ndim - 2))
    elif w.ndim:
        w = w.reshape(())
    return _op("where")(x > 0, x, w * x)


_FUNCTIONS = [fmax, fmin, copysign, logaddexp2, asinh, acosh, atanh, lgamma, digamma, erfinv, isin, aminmax, equal,
              heaviside, sinc, deg2rad, rad2deg, isposinf, isneginf, isreal, softshrink, hardshrink, tanhshrink,
              threshold, prelu]
_METHODS = {fmax, fmin, copysign, logaddexp2, asinh, acosh, atanh, lgamma, digamma, erfinv, aminmax, equal,
            heaviside, sinc, deg2rad, rad2deg, isposinf, isneginf, isreal}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
OPS += [OpDef(f"arc{f.__name__[1:]}", decompose=f, kind=COMPOSITE, method=True) for f in (asinh, acosh, atanh)]
