"""Elementwise arithmetic of the tensor API: ``add`` ... ``gelu``, the bitwise ops and ``cast``
(``OpDef``s of kind ``elementwise``). As in PyTorch, the floating-point functions of integer
tensors give float32 (``float_rule``) and int8 and bool results of ``+``, ``*``, max, min and the
bitwise ops are computed in int32 (``storage_rule``).

One ``OpDef`` per op: its arity and attributes, the compute dtypes it supports, its dtype rule
(PyTorch's promotion unless given), the builder that emits its ``asctensor``-level IR and its NumPy
reference (applied to float64/int64 arrays after the operands were rounded to the compute dtype;
its result is cast to the result dtype). Shapes follow NumPy broadcasting. The tracer inserts
the ``asctensor.cast``, ``asctensor.broadcast`` and splat constants, so a builder only sees
operands that already have the compute type. Adding an op is one entry of ``OPS``.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.ir import Operation, SSAValue

from pyasc.dialects import asctensor

from . import dtypes as dt
from .args import operand
from .dtypes import DType
from .errors import PyascError
from .interop import is_torch_tensor
from .opdef import OpDef
from .ops_compare import LOGICAL_NOT, NE, WHERE
from .tensor import Tensor

FLOATS = dt.FLOAT_DTYPES
INTEGER = (dt.int32,)   # int8 and bool are computed in int32 (``storage_rule``)
ALL = dt.ALL_DTYPES


# ----------------------------------------------------------------------------- dtype rules

def float_rule(operands, attrs) -> tuple[DType, DType]:
    """Like ``promote_rule`` but integer and bool operands are first cast to float32 (torch's ``/``
    and its floating-point functions: ``exp`` of an int32 tensor is float32)."""
    d = dt.result_type(*operands)
    if not d.is_floating_point:
        d = dt.DEFAULT_FLOAT
    return d, d


def storage_rule(operands, attrs) -> tuple[DType, DType]:
    """Like ``promote_rule``, but an int8 or bool result is computed in int32 and converted back
    (int8 wraps modulo 256, bool is ``!= 0``: ``+`` of bools is ``or``, ``*`` is ``and``), as PyTorch."""
    d = dt.result_type(*operands)
    return (dt.int32 if d in dt.STORAGE_DTYPES else d), d


def cast_rule(operands, attrs) -> tuple[DType, DType]:
    """The input's dtype is kept for computing; the result has the requested dtype."""
    return operands[0], dt.get_dtype(attrs["dtype"])


# ----------------------------------------------------------------------------- IR builders

def binary(float_op, int_op=None):
    """The builder of a binary op: ``float_op`` in a floating compute dtype, else ``int_op``."""
    def build(tr, operands: list[SSAValue], types, attrs) -> Operation:
        op_cls = float_op if types.compute.is_floating_point else int_op
        return op_cls(operands[0], operands[1])
    return build


def unary(op_cls):
    """The builder of a unary op: one ``op_cls`` on the operand."""
    def build(tr, operands, types, attrs) -> Operation:
        return op_cls(operands[0])
    return build


def _build_neg(tr, operands, types, attrs) -> Operation:
    (x,) = operands
    if types.compute.is_floating_point:
        return arith.NegfOp(x)
    zero = tr.splat(0, types.compute, x.type.get_shape())
    return arith.SubiOp(zero, x)


def _build_abs(tr, operands, types, attrs) -> Operation:
    """``|x|``: ``math.absf`` in floating point, ``max(x, 0 - x)`` on integers (int32 ``abs(-2**31)``
    wraps to itself, as in PyTorch)."""
    (x,) = operands
    if types.compute.is_floating_point:
        return mathd.AbsFOp(x)
    neg = tr.emit(arith.SubiOp(tr.splat(0, types.compute, x.type.get_shape()), x)).results[0]
    return arith.MaxSIOp(x, neg)


def _build_pow(tr, operands, types, attrs):
    """``x ** y``: ``math.powf`` in floating point; on integers exact and wrapping as PyTorch, by
    squaring and multiplying: unrolled for a constant exponent (a negative one is an error, as in
    PyTorch), else over the 31 low bits of ``y`` (a negative ``y`` gives 0 unless ``x`` is 1 or -1)."""
    x, y = operands
    if types.compute.is_floating_point:
        return tr.emit(mathd.PowFOp(x, y)).results[0]
    d, shape = types.compute, x.type.get_shape()

    def emit(op):
        return tr.emit(op).results[0]

    exponent = y.owner.scalar if isinstance(y.owner, asctensor.FullOp) else None
    if exponent is not None:
        if exponent < 0:
            raise PyascError("pow", f"integers to negative integer powers are not allowed (exponent {exponent})",
                             dtypes=[d.name], shapes=[tuple(shape)])
        result, base = tr.splat(1, d, shape), x
        while exponent:
            if exponent & 1:
                result = emit(arith.MuliOp(result, base))
            exponent >>= 1
            if exponent:
                base = emit(arith.MuliOp(base, base))
        return result
    zero = tr.splat(0, d, shape)
    result, base = tr.splat(1, d, shape), x
    for k in range(31):
        bit = emit(asctensor.CompareOp("ne", emit(arith.AndIOp(y, tr.splat(1 << k, d, shape))), zero))
        result = emit(asctensor.SelectOp(bit, emit(arith.MuliOp(result, base)), result))
        if k < 30:
            base = emit(arith.MuliOp(base, base))
    unit = emit(asctensor.SelectOp(emit(asctensor.CompareOp("eq", x, tr.splat(-1, d, shape))), result, zero))
    unit = emit(asctensor.SelectOp(emit(asctensor.CompareOp("eq", x, tr.splat(1, d, shape))), result, unit))
    return emit(asctensor.SelectOp(emit(asctensor.CompareOp("lt", y, zero)), unit, result))


def _int_power(x, y):
    """NumPy's power with PyTorch's integer rule for negative exponents (0 unless x is 1 or -1)."""
    if np.issubdtype(np.result_type(x, y), np.integer):
        x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
        neg = y < 0
        out = np.power(x, np.where(neg, -y, y))
        return np.where(neg, np.where(x == 1, 1, np.where(x == -1, out, 0)), out)
    return _safe(np.power)(x, y)


def _build_bitwise_xor(tr, operands, types, attrs) -> Operation:
    """``x ^ y`` as ``(x | y) - (x & y)`` (the bits set in one operand only; exact modulo 2**32)."""
    x, y = operands
    both = tr.emit(arith.AndIOp(x, y)).results[0]
    return arith.SubiOp(tr.emit(arith.OrIOp(x, y)).results[0], both)


def _build_bitwise_not(tr, operands, types, attrs) -> Operation:
    """``~x`` as ``-1 - x`` (two's complement)."""
    (x,) = operands
    return arith.SubiOp(tr.splat(-1, types.compute, x.type.get_shape()), x)


def _logical_not_of_bool(x):
    """``~`` of a bool tensor is ``logical_not`` (PyTorch); ``NotImplemented`` for integers."""
    if isinstance(x, Tensor) and x.dtype is dt.bool_:
        return LOGICAL_NOT(x)
    return NotImplemented


def _build_gelu(tr, operands, types, attrs) -> Operation:
    return asctensor.GeluOp(operands[0], attrs["approximate"])


def _build_cast(tr, operands, types, attrs) -> SSAValue:
    return tr.cast(operands[0], types.results[0][0])  # shared with the casts the tracer inserts


# ----------------------------------------------------------------------------- references

def _erf(x):
    """The Gauss error function of an array: SciPy's when it is installed, else ``math.erf``."""
    try:  # an optional dependency, and slow to import: loaded by the first reference that needs it
        from scipy.special import erf
    except ImportError:  # pragma: no cover - depends on the environment
        return np.vectorize(math.erf, otypes=[np.float64])(x)
    return erf(x)


def _gelu_ref(x, approximate="none"):
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _safe(fn):
    """Run a float64 reference with NumPy's floating-point warnings silenced (inf/nan are data)."""
    def wrapped(*args, **kw):
        with np.errstate(all="ignore"):
            return fn(*args, **kw)
    return wrapped


# ----------------------------------------------------------------------------- gradients
# ``vjp(ctx, g)``: one gradient per operand, of the broadcast shape (autograd sums it back to the
# operand's shape and casts it to its dtype); ``ctx.inputs`` / ``ctx.output`` are the call's tensors.

def _tensor(x) -> bool:
    return isinstance(x, Tensor)


def _add_vjp(ctx, g):
    return g, g


def _sub_vjp(ctx, g):
    return g, -g


def _mul_vjp(ctx, g):
    x, y = ctx.inputs
    return (g * y if _tensor(x) else None), (g * x if _tensor(y) else None)


def _div_vjp(ctx, g):
    x, y = ctx.inputs
    gx = g / y
    return gx, (-gx * ctx.output if _tensor(y) else None)


def _extremum_vjp(pick):
    """maximum/minimum: the gradient goes to the operand picked, split evenly on ties (as PyTorch)."""
    def vjp(ctx, g):
        x, y = ctx.inputs
        half = g * 0.5
        gx = g.where(pick(x, y), half.where(x == y, 0.0))
        gy = g.where(pick(y, x), half.where(x == y, 0.0))
        return gx, gy
    return vjp


def _pow_vjp(ctx, g):
    x, y = ctx.inputs
    gx = g * y * x ** (y - 1) if _tensor(x) else None
    gy = g * ctx.output * (LOG(x) if _tensor(x) else math.log(x)) if _tensor(y) else None
    return gx, gy


def _abs_vjp(ctx, g):
    (x,) = ctx.inputs
    return g.where(x > 0, (-g).where(x < 0, 0.0))


def _erf_vjp(ctx, g):
    (x,) = ctx.inputs
    return g * (2.0 / math.sqrt(math.pi)) * (-(x * x)).exp()


def _gelu_vjp(ctx, g):
    (x,) = ctx.inputs
    if ctx.attrs["approximate"] == "tanh":
        k, c = math.sqrt(2.0 / math.pi), 0.044715
        t = (k * (x + c * x * x * x)).tanh()
        return g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * c * x * x))
    cdf = 0.5 * (1.0 + (x * (1.0 / math.sqrt(2.0))).erf())
    pdf = (-0.5 * x * x).exp() * (1.0 / math.sqrt(2.0 * math.pi))
    return g * (cdf + x * pdf)


VJP = {
    "add": _add_vjp,
    "sub": _sub_vjp,
    "mul": _mul_vjp,
    "div": _div_vjp,
    "maximum": _extremum_vjp(lambda a, b: a > b),
    "minimum": _extremum_vjp(lambda a, b: a < b),
    "pow": _pow_vjp,
    "neg": lambda ctx, g: -g,
    "exp": lambda ctx, g: g * ctx.output,
    "log": lambda ctx, g: g / ctx.inputs[0],
    "sqrt": lambda ctx, g: g * 0.5 / ctx.output,
    "rsqrt": lambda ctx, g: g * -0.5 * ctx.output * ctx.output * ctx.output,
    "abs": _abs_vjp,
    "sin": lambda ctx, g: g * ctx.inputs[0].cos(),
    "cos": lambda ctx, g: -g * ctx.inputs[0].sin(),
    "tan": lambda ctx, g: g * (1.0 + ctx.output * ctx.output),
    "tanh": lambda ctx, g: g * (1.0 - ctx.output * ctx.output),
    "erf": _erf_vjp,
    "relu": lambda ctx, g: g * WHERE(ctx.output > 0, 1.0, 0.0).to(g.dtype),  # a float mask: no bool crosses kernels
    "sigmoid": lambda ctx, g: g * ctx.output * (1.0 - ctx.output),
    "gelu": _gelu_vjp,
    "cast": lambda ctx, g: g,
}


# ----------------------------------------------------------------------------- the table

def _check_gelu(attrs):
    if attrs["approximate"] not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {attrs['approximate']!r}")


def _check_cast(attrs):
    attrs["dtype"] = dt.get_dtype(attrs["dtype"])


def _cast_without_converting(x, dtype=None, **others):
    """The casts the op does not compute itself: to the operand's own dtype (the operand) and from or
    to bool: eagerly on the host, inside ``pyasc.jit`` ``x != 0`` and ``where(x, 1, 0)`` (int8 through
    float16 and int32). ``NotImplemented`` for every other cast."""
    if others or dtype is None:
        return NotImplemented
    if is_torch_tensor(x) or isinstance(x, np.ndarray):
        x = operand("cast", x)
    if not isinstance(x, Tensor):
        return NotImplemented
    try:
        d = dt.get_dtype(dtype)
    except TypeError as e:
        raise PyascError("cast", str(e)) from None
    if x.dtype is d:
        return x
    if dt.bool_ not in (x.dtype, d):
        return NotImplemented
    if x._trace is not None:
        if d is dt.bool_:  # compiled as a comparison with zero
            return NE(CAST(x, dtype=dt.float16) if x.dtype is dt.int8 else x, 0)
        ones = WHERE(x, 1, 0)  # compiled as a selection of 1 or 0
        return ones if ones.dtype is d else CAST(ones, dtype=d)
    a = x.numpy()
    return Tensor(a != 0 if d is dt.bool_ else a.astype(d.np_dtype), d, device=x._device)


CAST = OpDef("cast", _build_cast, lambda x, dtype=None: x, dtypes=ALL + (dt.int8,), rule=cast_rule,
             attrs={"dtype": None}, check_attrs=_check_cast, decompose=_cast_without_converting, method=False, vjp=VJP["cast"],
             doc="x converted to dtype (float to int truncates toward zero)")

FLOAT_FN = {"dtypes": FLOATS, "rule": float_rule}   # a floating-point function (int32 -> float32)

OPS = [
    OpDef("add", binary(arith.AddfOp, arith.AddiOp), np.add, 2, rule=storage_rule, vjp=VJP["add"], doc="x + y"),
    OpDef("sub", binary(arith.SubfOp, arith.SubiOp), np.subtract, 2, vjp=VJP["sub"], doc="x - y"),
    OpDef("mul", binary(arith.MulfOp, arith.MuliOp), np.multiply, 2, rule=storage_rule, vjp=VJP["mul"], doc="x * y"),
    OpDef("div", binary(arith.DivfOp), _safe(np.divide), 2, **FLOAT_FN,
          vjp=VJP["div"], doc="x / y, true division (integer operands give float32, as in PyTorch)"),
    OpDef("maximum", binary(arith.MaximumfOp, arith.MaxSIOp), np.maximum, 2, rule=storage_rule, vjp=VJP["maximum"],
          doc="elementwise maximum, NaN propagating"),
    OpDef("minimum", binary(arith.MinimumfOp, arith.MinSIOp), np.minimum, 2, rule=storage_rule, vjp=VJP["minimum"],
          doc="elementwise minimum, NaN propagating"),
    OpDef("pow", _build_pow, _int_power, 2, dtypes=FLOATS + (dt.int32,), vjp=VJP["pow"],
          doc="x ** y (integers: exact, wrapping as PyTorch's)"),
    OpDef("neg", _build_neg, np.negative, vjp=VJP["neg"], doc="-x"),
    OpDef("exp", unary(mathd.ExpOp), _safe(np.exp), **FLOAT_FN, vjp=VJP["exp"], doc="e ** x"),
    OpDef("log", unary(mathd.LogOp), _safe(np.log), **FLOAT_FN, vjp=VJP["log"], doc="natural logarithm"),
    OpDef("sqrt", unary(mathd.SqrtOp), _safe(np.sqrt), **FLOAT_FN, vjp=VJP["sqrt"], doc="square root"),
    OpDef("rsqrt", unary(mathd.RsqrtOp), _safe(lambda x: 1.0 / np.sqrt(x)), **FLOAT_FN, vjp=VJP["rsqrt"], doc="1 / sqrt(x)"),
    OpDef("abs", _build_abs, np.abs, vjp=VJP["abs"], doc="absolute value"),
    OpDef("sin", unary(mathd.SinOp), np.sin, **FLOAT_FN, vjp=VJP["sin"], doc="sine"),
    OpDef("cos", unary(mathd.CosOp), np.cos, **FLOAT_FN, vjp=VJP["cos"], doc="cosine"),
    OpDef("tan", unary(mathd.TanOp), _safe(np.tan), **FLOAT_FN, vjp=VJP["tan"], doc="tangent"),
    OpDef("tanh", unary(mathd.TanhOp), np.tanh, **FLOAT_FN, vjp=VJP["tanh"], doc="hyperbolic tangent"),
    OpDef("erf", unary(mathd.ErfOp), _erf, **FLOAT_FN, vjp=VJP["erf"], doc="Gauss error function"),
    OpDef("relu", unary(asctensor.ReluOp), lambda x: np.where(np.isnan(x), x, np.maximum(x, 0)), vjp=VJP["relu"], doc="max(x, 0)"),
    OpDef("sigmoid", unary(asctensor.SigmoidOp), _safe(lambda x: 1.0 / (1.0 + np.exp(-x))), **FLOAT_FN,
          vjp=VJP["sigmoid"], doc="1 / (1 + exp(-x))"),
    OpDef("gelu", _build_gelu, _safe(_gelu_ref), dtypes=FLOATS, attrs={"approximate": "none"}, check_attrs=_check_gelu,
          vjp=VJP["gelu"], doc="GELU as in PyTorch: x * Phi(x) exactly ('none') or with the tanh approximation"),
    OpDef("bitwise_and", binary(None, arith.AndIOp), np.bitwise_and, 2, dtypes=INTEGER, rule=storage_rule,
          doc="x & y, bit by bit (integer and bool tensors; bool: logical and)"),
    OpDef("bitwise_or", binary(None, arith.OrIOp), np.bitwise_or, 2, dtypes=INTEGER, rule=storage_rule,
          doc="x | y, bit by bit (integer and bool tensors; bool: logical or)"),
    OpDef("bitwise_xor", _build_bitwise_xor, np.bitwise_xor, 2, dtypes=INTEGER, rule=storage_rule,
          doc="x ^ y, bit by bit (integer and bool tensors; bool: logical xor)"),
    OpDef("bitwise_not", _build_bitwise_not, np.invert, dtypes=INTEGER, rule=storage_rule,
          decompose=_logical_not_of_bool, doc="~x, bit by bit (integer tensors; bool: logical not)"),
    CAST,
]

BY_NAME = {op.name: op for op in OPS}
# the ops other modules build on
ADD, MUL, NEG, MAXIMUM, MINIMUM, POW, SQRT, RSQRT, ABS, LOG = (
    BY_NAME[n] for n in ("add", "mul", "neg", "maximum", "minimum", "pow", "sqrt", "rsqrt", "abs", "log"))
