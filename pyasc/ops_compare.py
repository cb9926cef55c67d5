"""Comparisons, ``where`` and the logical ops, registered into the op table (``ops.OPS``).

Results of comparisons have dtype ``pyasc.bool`` (PyTorch's ``torch.bool``). The compiler has no
lowering for these ops yet (``host=True`` in the table): in eager mode they run on the host with
their NumPy reference, not on the simulated device, and inside ``pyasc.jit`` they raise a
``PyascError`` naming the op, instead of compiling to something wrong.
"""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .errors import PyascError
from .ops import OPS, OpDef


def compare_rule(operands, attrs):
    """Operands are compared in their promoted dtype; the result is bool."""
    return dt.result_type(*operands), dt.bool_


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


def _no_build(tr, operands, result_dtype, attrs):  # pragma: no cover - host ops are never traced
    raise AssertionError("host op traced")


def _def(name, arity, ref, rule, doc, dtypes=dt.DTYPES):
    OPS[name] = OpDef(name, arity, _no_build, ref, dtypes, rule, doc=doc, host=True)


_def("eq", 2, np.equal, compare_rule, "x == y")
_def("ne", 2, np.not_equal, compare_rule, "x != y")
_def("lt", 2, np.less, compare_rule, "x < y")
_def("le", 2, np.less_equal, compare_rule, "x <= y")
_def("gt", 2, np.greater, compare_rule, "x > y")
_def("ge", 2, np.greater_equal, compare_rule, "x >= y")
_def("isnan", 1, np.isnan, compare_rule, "x is NaN", dt.FLOAT_DTYPES)
_def("isinf", 1, np.isinf, compare_rule, "x is +-inf", dt.FLOAT_DTYPES)
_def("isfinite", 1, np.isfinite, compare_rule, "x is neither inf nor NaN", dt.FLOAT_DTYPES)
_def("logical_not", 1, lambda x: x == 0, logical_rule, "not x")
_def("logical_and", 2, lambda x, y: (x != 0) & (y != 0), logical_rule, "x and y")
_def("logical_or", 2, lambda x, y: (x != 0) | (y != 0), logical_rule, "x or y")
_def("logical_xor", 2, lambda x, y: (x != 0) ^ (y != 0), logical_rule, "x xor y")
_def("where", 3, lambda c, x, y: np.where(c != 0, x, y), where_rule,
     "x where cond else y (NumPy broadcasting of all three)")
