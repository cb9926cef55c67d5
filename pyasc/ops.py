"""The op table: every op of the tensor API is defined here exactly once.

An :class:`OpDef` holds the op's name, its arity and attributes, the dtypes it supports, its
dtype rule, the builder that emits its ``asctensor``-level IR and its NumPy reference semantics
(the oracle tests compare the compiled program against). Shapes follow NumPy broadcasting for
every elementwise op. The tracer (``tracing.py``) inserts the ``asctensor.cast``,
``asctensor.broadcast`` and splat constants, so a builder only sees operands that already have
the result type.
"""

from __future__ import annotations

import math as _math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.ir import Operation, SSAValue

from pyasc.dialects import asctensor

from . import dtypes as dt
from .dtypes import DType

try:  # scipy is optional: the exact erf is also available from the math module
    from scipy.special import erf as _erf
except ImportError:  # pragma: no cover - depends on the environment
    _erf = np.vectorize(_math.erf, otypes=[np.float64])

FLOATS = dt.FLOAT_DTYPES
ALL = dt.ALL_DTYPES


# ----------------------------------------------------------------------------- dtype rules

def promote_rule(operands, attrs) -> tuple[DType, DType]:
    """PyTorch promotion over tensor dtypes and Python scalars; compute and result agree."""
    d = dt.result_type(*operands)
    return d, d


def true_div_rule(operands, attrs) -> tuple[DType, DType]:
    """Like ``promote_rule`` but integer operands are first cast to float32 (torch's ``/``)."""
    d = dt.result_type(*operands)
    if not d.is_floating_point:
        d = dt.DEFAULT_FLOAT
    return d, d


def cast_rule(operands, attrs) -> tuple[DType, DType]:
    """The input's dtype is kept for computing; the result has the requested dtype."""
    return operands[0], dt.get_dtype(attrs["dtype"])


# ----------------------------------------------------------------------------- IR builders

def _binary(float_op, int_op=None) -> Callable:
    def build(tr, operands: list[SSAValue], result_dtype: DType, attrs) -> Operation:
        op_cls = float_op if result_dtype.is_floating_point else int_op
        return op_cls(operands[0], operands[1])
    return build


def _unary(op_cls) -> Callable:
    def build(tr, operands, result_dtype, attrs) -> Operation:
        return op_cls(operands[0])
    return build


def _build_neg(tr, operands, result_dtype, attrs) -> Operation:
    (x,) = operands
    if result_dtype.is_floating_point:
        return arith.NegfOp(x)
    zero = tr.splat(0, result_dtype, x.type.get_shape())
    return arith.SubiOp(zero, x)


def _build_gelu(tr, operands, result_dtype, attrs) -> Operation:
    return asctensor.GeluOp(operands[0], attrs["approximate"])


def _build_cast(tr, operands, result_dtype, attrs) -> SSAValue:
    return tr.cast(operands[0], result_dtype)  # shared with the casts the tracer inserts


# ----------------------------------------------------------------------------- references

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


# ----------------------------------------------------------------------------- the table

@dataclass(frozen=True)
class OpDef:
    """One op: name, arity, attributes (name -> default), supported compute dtypes, dtype rule,
    IR builder and NumPy reference (applied to float64/int64 arrays after the operands were
    converted to the compute dtype; its result is cast to the result dtype)."""

    name: str
    arity: int
    build: Callable             # (trace, operand values, result dtype, attrs) -> Operation | SSAValue
    reference: Callable
    dtypes: tuple[DType, ...] = ALL
    rule: Callable = promote_rule
    attrs: dict = field(default_factory=dict)
    doc: str = ""
    check_attrs: Callable | None = None
    # True while the compiler has no lowering for the op: eagerly it runs its NumPy reference on
    # the host (not on the simulated device); inside ``pyasc.jit`` it raises a PyascError.
    host: bool = False

    def normalise_attrs(self, given: dict) -> dict:
        """The op's attributes with defaults filled in; raises TypeError on unknown names."""
        unknown = set(given) - set(self.attrs)
        if unknown:
            raise TypeError(f"{self.name}() got unexpected keyword argument(s) {sorted(unknown)}")
        out = {**self.attrs, **given}
        if self.check_attrs is not None:
            self.check_attrs(out)
        return out


def _check_gelu(attrs):
    if attrs["approximate"] not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {attrs['approximate']!r}")


def _check_cast(attrs):
    attrs["dtype"] = dt.get_dtype(attrs["dtype"])


OPS: dict[str, OpDef] = {}


def _def(op: OpDef) -> None:
    OPS[op.name] = op


_def(OpDef("add", 2, _binary(arith.AddfOp, arith.AddiOp), np.add, doc="x + y"))
_def(OpDef("sub", 2, _binary(arith.SubfOp, arith.SubiOp), np.subtract, doc="x - y"))
_def(OpDef("mul", 2, _binary(arith.MulfOp, arith.MuliOp), np.multiply, doc="x * y"))
_def(OpDef("div", 2, _binary(arith.DivfOp), _safe(np.divide), FLOATS, true_div_rule,
           doc="x / y (true division: integer operands give float32)"))
_def(OpDef("maximum", 2, _binary(arith.MaximumfOp, arith.MaxSIOp), np.maximum,
           doc="elementwise maximum, NaN propagating"))
_def(OpDef("minimum", 2, _binary(arith.MinimumfOp, arith.MinSIOp), np.minimum,
           doc="elementwise minimum, NaN propagating"))
_def(OpDef("pow", 2, _binary(mathd.PowFOp), _safe(np.power), FLOATS, doc="x ** y (float only)"))
_def(OpDef("neg", 1, _build_neg, np.negative, doc="-x"))
_def(OpDef("exp", 1, _unary(mathd.ExpOp), _safe(np.exp), FLOATS, doc="e ** x"))
_def(OpDef("log", 1, _unary(mathd.LogOp), _safe(np.log), FLOATS, doc="natural logarithm"))
_def(OpDef("sqrt", 1, _unary(mathd.SqrtOp), _safe(np.sqrt), FLOATS, doc="square root"))
_def(OpDef("rsqrt", 1, _unary(mathd.RsqrtOp), _safe(lambda x: 1.0 / np.sqrt(x)), FLOATS,
           doc="1 / sqrt(x)"))
_def(OpDef("abs", 1, _unary(mathd.AbsFOp), np.abs, FLOATS, doc="absolute value (float only)"))
_def(OpDef("tanh", 1, _unary(mathd.TanhOp), np.tanh, FLOATS, doc="hyperbolic tangent"))
_def(OpDef("erf", 1, _unary(mathd.ErfOp), lambda x: _erf(x), FLOATS, doc="Gauss error function"))
_def(OpDef("relu", 1, _unary(asctensor.ReluOp), lambda x: np.where(np.isnan(x), x, np.maximum(x, 0)),
           doc="max(x, 0)"))
_def(OpDef("sigmoid", 1, _unary(asctensor.SigmoidOp), _safe(lambda x: 1.0 / (1.0 + np.exp(-x))), FLOATS,
           doc="1 / (1 + exp(-x))"))
_def(OpDef("gelu", 1, _build_gelu, _safe(_gelu_ref), FLOATS, attrs={"approximate": "none"},
           check_attrs=_check_gelu, doc="x * Phi(x), exact ('none') or tanh approximation"))
_def(OpDef("cast", 1, _build_cast, lambda x, dtype=None: x, ALL + (dt.int8,), cast_rule, attrs={"dtype": None},
           check_attrs=_check_cast, doc="convert to another dtype"))


def get_op(name: str) -> OpDef:
    return OPS[name]


# ----------------------------------------------------------------------------- oracle

def _as_compute(x, dtype: DType) -> np.ndarray:
    """An operand (array or Python scalar) rounded to ``dtype`` and widened to float64/int64."""
    a = np.asarray(x)
    if not isinstance(x, np.ndarray):
        a = np.asarray(x, dtype=np.float64 if dtype.is_floating_point else np.int64)
    with np.errstate(all="ignore"):
        a = a.astype(dtype.np_dtype)
    return a.astype(np.float64 if dtype.is_floating_point else np.int64)


def reference(name: str, *operands, **attrs) -> np.ndarray:
    """The NumPy oracle of op ``name``: operands (NumPy arrays, pyasc Tensors or Python scalars)
    are rounded to the op's compute dtype, computed in float64 (int64 for integers) and the
    result is cast to the op's result dtype. Returns a NumPy array."""
    from .tensor import Tensor

    op = OPS[name]
    attrs = op.normalise_attrs(attrs)
    arrays, kinds = [], []
    for o in operands:
        if isinstance(o, Tensor):
            o = o.numpy()
        if isinstance(o, np.ndarray):
            kinds.append(dt.from_numpy_dtype(o.dtype))
        else:
            kinds.append(o)
        arrays.append(o)
    compute, result = op.rule(kinds, attrs)
    wide = [_as_compute(a, compute) for a in arrays]
    kw = {k: v for k, v in attrs.items() if k != "dtype"}
    out = np.asarray(op.reference(*wide, **kw))
    if result is dt.bool_:
        return out != 0
    if result.is_floating_point or not compute.is_floating_point:
        with np.errstate(all="ignore"):
            return out.astype(result.np_dtype)
    with np.errstate(all="ignore"):  # float -> int truncates toward zero, as asctensor.cast
        return np.trunc(out).astype(np.int64).astype(result.np_dtype)
