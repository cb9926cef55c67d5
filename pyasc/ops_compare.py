"""Comparisons, ``where`` and the logical ops, registered into the op table (``ops.OPS``).

Results of comparisons have dtype ``pyasc.bool`` (PyTorch's ``torch.bool``). All of them compile
to the device (eagerly and inside ``pyasc.jit``, fused with the elementwise ops around them):
comparisons become ``asctensor.compare`` (NaN compares false except with ``ne``), ``where`` becomes
``asctensor.select``; ``isnan`` is ``x != x``, ``isinf``/``isfinite`` compare ``|x|`` with inf. The
logical ops go through half 0/1 values (``select(c, 1, 0)``): ``not`` is ``== 0``, ``and`` a product,
``or`` a maximum, ``xor`` ``!=``. Bool operands are not cast by the tracer (``RAW_BOOL_OPERANDS``):
the builders convert them.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from xdsl.dialects import arith
from xdsl.dialects import math as mathd

from pyasc.dialects import asctensor

from .errors import PyascError
from .ops import OPS, OpDef

# ops whose bool operands reach the builder uncast (the tracer only broadcasts them)
RAW_BOOL_OPERANDS = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "logical_not", "logical_and", "logical_or",
                               "logical_xor", "where"})


def compare_rule(operands, attrs):
    """Operands are compared in their promoted dtype (bool with bool: as half 0/1); the result is bool."""
    d = dt.result_type(*operands)
    return (dt.float16 if d is dt.bool_ else d), dt.bool_


def logical_rule(operands, attrs):
    return dt.bool_, dt.bool_


def where_rule(operands, attrs):
    """``where(cond, x, y)``: the condition must be bool; the result promotes x and y."""
    cond = operands[0]
    if cond is not dt.bool_:
        what = cond.name if isinstance(cond, dt.DType) else f"python {type(cond).__name__}"
        raise PyascError("where", f"the condition must be a bool tensor, got {what} "
                         "(compare first, e.g. x > 0)", dtypes=[what])
    d = dt.result_type(*operands[1:])
    return d, d


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
    def build(tr, operands, result_dtype, attrs):
        a, b = _broadcast_all(tr, operands)
        compute = dt.get_dtype((b if _is_bool(a) else a).type.get_element_type())
        if _is_bool(a) and _is_bool(b):
            compute = dt.float16
        return asctensor.CompareOp(pred, _compute_operand(tr, a, compute), _compute_operand(tr, b, compute))
    return build


def _abs_vs_inf(pred):
    def build(tr, operands, result_dtype, attrs):
        (x,) = operands
        d = dt.get_dtype(x.type.get_element_type())
        a = _emit(tr, mathd.AbsFOp(x))
        return asctensor.CompareOp(pred, a, tr.splat(float("inf"), d, x.type.get_shape()))
    return build


def _build_isnan(tr, operands, result_dtype, attrs):
    (x,) = operands
    return asctensor.CompareOp("ne", x, x)


def _truth(tr, v):
    """Half 0/1 of ``v != 0`` (``v`` itself when it is bool)."""
    if not _is_bool(v):
        d = dt.get_dtype(v.type.get_element_type())
        v = _emit(tr, asctensor.CompareOp("ne", v, tr.splat(0, d, v.type.get_shape())))
    return _half(tr, v)


def _logical(kind):
    def build(tr, operands, result_dtype, attrs):
        hs = [_truth(tr, v) for v in _broadcast_all(tr, operands)]
        zero = tr.splat(0.0, dt.float16, hs[0].type.get_shape())
        if kind == "not":
            return asctensor.CompareOp("eq", hs[0], zero)
        if kind == "xor":
            return asctensor.CompareOp("ne", hs[0], hs[1])
        combined = _emit(tr, (arith.MulfOp if kind == "and" else arith.MaximumfOp)(hs[0], hs[1]))
        return asctensor.CompareOp("ne", combined, zero)
    return build


def _build_where(tr, operands, result_dtype, attrs):
    c, x, y = _broadcast_all(tr, operands)
    if not _is_bool(c):
        raise PyascError("where", "the condition must be a bool tensor")
    return asctensor.SelectOp(c, x, y)


def _def(name, arity, build, ref, rule, doc, dtypes=dt.ALL_DTYPES):
    OPS[name] = OpDef(name, arity, build, ref, dtypes, rule, doc=doc)


_def("eq", 2, _compare("eq"), np.equal, compare_rule, "x == y")
_def("ne", 2, _compare("ne"), np.not_equal, compare_rule, "x != y")
_def("lt", 2, _compare("lt"), np.less, compare_rule, "x < y")
_def("le", 2, _compare("le"), np.less_equal, compare_rule, "x <= y")
_def("gt", 2, _compare("gt"), np.greater, compare_rule, "x > y")
_def("ge", 2, _compare("ge"), np.greater_equal, compare_rule, "x >= y")
_def("isnan", 1, _build_isnan, np.isnan, compare_rule, "x is NaN", dt.FLOAT_DTYPES)
_def("isinf", 1, _abs_vs_inf("eq"), np.isinf, compare_rule, "x is +-inf", dt.FLOAT_DTYPES)
_def("isfinite", 1, _abs_vs_inf("lt"), np.isfinite, compare_rule, "x is neither inf nor NaN", dt.FLOAT_DTYPES)
_def("logical_not", 1, _logical("not"), lambda x: x == 0, logical_rule, "not x", (dt.bool_,))
_def("logical_and", 2, _logical("and"), lambda x, y: (x != 0) & (y != 0), logical_rule, "x and y", (dt.bool_,))
_def("logical_or", 2, _logical("or"), lambda x, y: (x != 0) | (y != 0), logical_rule, "x or y", (dt.bool_,))
_def("logical_xor", 2, _logical("xor"), lambda x, y: (x != 0) ^ (y != 0), logical_rule, "x xor y", (dt.bool_,))
_def("where", 3, _build_where, lambda c, x, y: np.where(c != 0, x, y), where_rule,
     "x where cond else y (NumPy broadcasting of all three)")
