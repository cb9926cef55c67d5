"""The decomposition of ``asctensor.topk``, used by ``asctensor-decompose``.

Over the last dim, the rows are ranked in float32 (float16/bfloat16 widen exactly) as a *key*
in ``k`` rounds, each of primitives the fusion keeps in ONE row-wise kernel:

    m_j = reduce max(key) (keepdims)          the j-th largest value of each row
    i_j = arg_reduce max(key) (keepdims)      its first index (ties: the lower index)
    key = select(iota != i_j, key, -inf)      the chosen element drops out

(min, argmin and +inf for ``smallest``); the ``m_j`` and ``i_j`` are joined by a ``concat`` along
the last dim, which the row-wise kernel stores column by column. So that a masked element ranks
below every element not chosen yet, the key first clamps -inf to the lowest finite float32
(+inf to the highest); a value that comes out clamped is put back as the row's own extreme
(``min``/``max`` of the row, one more reduction). Rows holding both -inf and -FLT_MAX (float32
only) rank the two as equal. NaN is not ranked (the vector unit's max/min do not order it).

Another dim is moved last with a ``transpose`` first and the results are moved back.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, TensorType, i32
from xdsl.ir import SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ArgKind, ReduceKind

from .errors import CompileError

F32_MAX = float.fromhex("0x1.fffffep+127")


def _loc(op) -> str:
    loc = op.attributes.get("asc.loc")
    return f" (at {loc.data})" if loc is not None else ""


def _moved_last(b, v: SSAValue, dim: int) -> SSAValue:
    """``v`` with ``dim`` and the last dim swapped (itself when ``dim`` is last)."""
    rank = len(v.type.get_shape())
    if dim == rank - 1:
        return v
    perm = list(range(rank))
    perm[dim], perm[-1] = perm[-1], perm[dim]
    return b.e.value(asctensor.TransposeOp(v, perm))


def topk_last(b, x: SSAValue, k: int, largest: bool) -> tuple[SSAValue, SSAValue]:
    """(values, i32 indices) of the top ``k`` over the last dim of ``x`` (see the module docstring)."""
    shape = x.type.get_shape()
    last = len(shape) - 1
    out_type = x.type.element_type
    key = b.cast(x, Float32Type())
    kind, arg = (ReduceKind.MAX, ArgKind.MAX) if largest else (ReduceKind.MIN, ArgKind.MIN)
    limit = -F32_MAX if largest else F32_MAX
    clamp = arith.MaximumfOp if largest else arith.MinimumfOp
    extreme = b.e.value(asctensor.ReduceOp(ReduceKind.MIN if largest else ReduceKind.MAX, key, [last], True))
    key = b.e.value(clamp(key, b.full(limit, key)))
    iota = b.e.value(asctensor.IotaOp(TensorType(i32, shape), last))
    sentinel = b.full(float("-inf") if largest else float("inf"), key)
    values, indices = [], []
    for j in range(k):
        m = b.e.value(asctensor.ReduceOp(kind, key, [last], True))
        i = b.e.value(asctensor.ArgReduceOp(arg, key, last, True))
        clamped = b.e.value(asctensor.CompareOp("eq", m, b.full(limit, m)))
        values.append(b.cast(b.e.value(asctensor.SelectOp(clamped, extreme, m)), out_type))
        indices.append(i)
        if j + 1 < k:
            spread = b.e.value(asctensor.BroadcastOp(i, TensorType(i32, shape)))
            taken = b.e.value(asctensor.CompareOp("eq", iota, spread))  # int32 Compare has only EQ
            key = b.e.value(asctensor.SelectOp(taken, sentinel, key))
    if k == 1:
        return values[0], indices[0]
    return b.e.value(asctensor.ConcatOp(values, last)), b.e.value(asctensor.ConcatOp(indices, last))


def decompose_topk(b, op: asctensor.TopKOp, max_row: int) -> tuple[SSAValue, SSAValue]:
    """The primitive form of ``op``; a CompileError when ``k`` or the row is too long for one kernel."""
    shape = op.input.type.get_shape()
    n, k = shape[op.axis], op.count
    if k > asctensor.MAX_TOPK:
        raise CompileError(f"asctensor.topk of {op.input.type}: k = {k} is more than the {asctensor.MAX_TOPK} "
                           f"rounds one row-wise kernel runs{_loc(op)}")
    if n > max_row:
        raise CompileError(f"asctensor.topk of {op.input.type}: a row of {n} elements along dim {op.axis} is "
                           f"longer than the {max_row} elements a row-wise kernel holds in UB{_loc(op)}")
    x = _moved_last(b, op.input, op.axis)
    values, indices = topk_last(b, x, k, op.largest)
    return _moved_last(b, values, op.axis), _moved_last(b, indices, op.axis)
