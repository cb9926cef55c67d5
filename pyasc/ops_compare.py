"""Comparisons, ``where`` and the logical ops of the tensor API (``OpDef``s of kind ``compare``).

Results of comparisons have dtype ``pyasc.bool`` (PyTorch's ``torch.bool``). All of them compile
to the device (eagerly and inside ``pyasc.jit``, fused with the elementwise ops around them):
comparisons become ``asctensor.compare`` (NaN compares false except with ``ne``), ``where`` becomes
``asctensor.select``; ``isnan`` is ``x != x``, ``isinf``/``isfinite`` compare ``|x|`` with inf. The
logical ops go through half 0/1 values (``select(c, 1, 0)``): ``not`` is ``== 0``, ``and`` a product,
``or`` a maximum, ``xor`` ``!=``. Bool operands are not cast by the tracer (``raw_bool``): the
builders convert them. int8 operands are compared and selected as half. On integers, ``isnan`` and
``isinf`` are false and ``isfinite`` true.
"""

from __future__ import annotations

import numpy as np

from xdsl.dialects import arith
from xdsl.dialects import math as mathd

from pyasc.dialects import asctensor

from . import dtypes as dt
from .errors import PyascError
from .opdef import COMPARE, OpDef


def compare_rule(operands, attrs):
    """Operands are compared in their promoted dtype (bool with bool and int8 with int8: as half,
    which holds every int8 exactly); the result is bool."""
    d = dt.result_type(*operands)
    return (dt.float16 if d in dt.STORAGE_DTYPES else d), dt.bool_


def logical_rule(operands, attrs):
    return dt.bool_, dt.bool_


def where_rule(operands, attrs):
    """``where(cond, x, y)``: the condition must be bool; the result promotes x and y (bool and int8
    values are selected as half, which holds them exactly)."""
    cond = operands[0]
    if cond is not dt.bool_:
        what = cond.name if isinstance(cond, dt.DType) else f"python {type(cond).__name__}"
        raise PyascError("where", f"the condition must be a bool tensor, got {what} "
                         "(compare first, e.g. x > 0)", dtypes=[what])
    d = dt.result_type(*operands[1:])
    return (dt.float16 if d in dt.STORAGE_DTYPES else d), d


def _is_bool(v) -> bool:
    return asctensor.is_bool(v.type)


def _emit(tr, op):
    return tr.emit(op).results[0]


def _shape(operands):
    return asctensor.broadcast_shapes(*[tuple(v.type.get_shape()) for v in operands])


def _broadcast_all(tr, operands):
    """The operands at their common shape; a bool that must broadcast goes through half 0/1 (bytes
    are not broadcast on the device: Duplicate has no 8-bit form)."""
    shape = _shape(operands)
    out = []
    for v in operands:
        if tuple(v.type.get_shape()) != shape and _is_bool(v):
            h = tr.broadcast(_half(tr, v), shape)
            v = _emit(tr, asctensor.CompareOp("ne", h, tr.splat(0.0, dt.float16, shape)))
        out.append(tr.broadcast(v, shape))
    return out


def _half(tr, v):
    """A bool tensor as half 0/1 (``select(v, 1, 0)``)."""
    shape = v.type.get_shape()
    return _emit(tr, asctensor.SelectOp(v, tr.splat(1.0, dt.float16, shape), tr.splat(0.0, dt.float16, shape)))


def _compute_operand(tr, v, compute):
    return tr.cast(_half(tr, v) if _is_bool(v) else v, compute)


def _compare(pred):
    def build(tr, operands, types, attrs):
        a, b = _broadcast_all(tr, operands)
        compute = dt.get_dtype((b if _is_bool(a) else a).type.get_element_type())
        if _is_bool(a) and _is_bool(b):
            compute = dt.float16
        return asctensor.CompareOp(pred, _compute_operand(tr, a, compute), _compute_operand(tr, b, compute))
    return build


def _abs_vs_inf(pred):
    def build(tr, operands, types, attrs):
        (x,) = operands
        d = dt.get_dtype(x.type.get_element_type())
        if not d.is_floating_point:  # an integer is finite: x == x holds, x != x does not
            return asctensor.CompareOp("ne" if pred == "eq" else "eq", x, x)
        a = _emit(tr, mathd.AbsFOp(x))
        return asctensor.CompareOp(pred, a, tr.splat(float("inf"), d, x.type.get_shape()))
    return build


def _build_isnan(tr, operands, types, attrs):
    (x,) = operands
    return asctensor.CompareOp("ne", x, x)


def _logical(kind):
    def build(tr, operands, types, attrs):
        hs = [_half(tr, v) for v in _broadcast_all(tr, [tr.cast(v, dt.bool_) for v in operands])]
        zero = tr.splat(0.0, dt.float16, hs[0].type.get_shape())
        if kind == "not":
            return asctensor.CompareOp("eq", hs[0], zero)
        if kind == "xor":
            return asctensor.CompareOp("ne", hs[0], hs[1])
        combined = _emit(tr, (arith.MulfOp if kind == "and" else arith.MaximumfOp)(hs[0], hs[1]))
        return asctensor.CompareOp("ne", combined, zero)
    return build


def _build_where(tr, operands, types, attrs):
    c, x, y = _broadcast_all(tr, operands)
    if not _is_bool(c):
        raise PyascError("where", "the condition must be a bool tensor")
    return asctensor.SelectOp(c, tr.cast(x, types.compute), tr.cast(y, types.compute))


def _where_vjp(ctx, g):
    """The gradient goes to the operand selected: ``x`` where the condition holds, else ``y``."""
    c = ctx.inputs[0]
    return None, WHERE(c, g, 0.0), WHERE(c, 0.0, g)


_COMPARISON = {"rule": compare_rule, "raw_bool": True, "kind": COMPARE}
_FLOAT_TEST = {"rule": compare_rule, "kind": COMPARE}   # integers are finite, never NaN
_LOGICAL = {"rule": logical_rule, "dtypes": (dt.bool_,), "raw_bool": True, "kind": COMPARE}

EQ = OpDef("eq", _compare("eq"), np.equal, 2, **_COMPARISON, doc="x == y")
NE = OpDef("ne", _compare("ne"), np.not_equal, 2, **_COMPARISON, doc="x != y")
LT = OpDef("lt", _compare("lt"), np.less, 2, **_COMPARISON, doc="x < y")
LE = OpDef("le", _compare("le"), np.less_equal, 2, **_COMPARISON, doc="x <= y")
GT = OpDef("gt", _compare("gt"), np.greater, 2, **_COMPARISON, doc="x > y")
GE = OpDef("ge", _compare("ge"), np.greater_equal, 2, **_COMPARISON, doc="x >= y")
ISNAN = OpDef("isnan", _build_isnan, np.isnan, 1, **_FLOAT_TEST, doc="x is NaN")
ISINF = OpDef("isinf", _abs_vs_inf("eq"), np.isinf, 1, **_FLOAT_TEST, doc="x is +-inf")
ISFINITE = OpDef("isfinite", _abs_vs_inf("lt"), np.isfinite, 1, **_FLOAT_TEST, doc="x is neither inf nor NaN")
LOGICAL_NOT = OpDef("logical_not", _logical("not"), lambda x: x == 0, 1, **_LOGICAL, doc="not x")
LOGICAL_AND = OpDef("logical_and", _logical("and"), lambda x, y: (x != 0) & (y != 0), 2, **_LOGICAL, doc="x and y")
LOGICAL_OR = OpDef("logical_or", _logical("or"), lambda x, y: (x != 0) | (y != 0), 2, **_LOGICAL, doc="x or y")
LOGICAL_XOR = OpDef("logical_xor", _logical("xor"), lambda x, y: (x != 0) ^ (y != 0), 2, **_LOGICAL, doc="x xor y")
WHERE = OpDef("where", _build_where, lambda c, x, y: np.where(c != 0, x, y), 3, rule=where_rule, raw_bool=True,
              kind=COMPARE, method=False, vjp=_where_vjp, doc="x where cond else y (NumPy broadcasting of all three)")

OPS = [EQ, NE, LT, LE, GT, GE, ISNAN, ISINF, ISFINITE, LOGICAL_NOT, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, WHERE]
