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
    if k > max_row // 2:
        raise CompileError(f"asctensor.topk of {op.input.type}: k = {k} is more than half the {max_row} elements "
                           f"a row-wise kernel holds in UB{_loc(op)}")
    x = _moved_last(b, op.input, op.axis)
    values, indices = topk_long(b, x, k, op.largest, max_row) if n > max_row else topk_last(b, x, k, op.largest)
    return _moved_last(b, values, op.axis), _moved_last(b, indices, op.axis)


def topk_long(b, x: SSAValue, k: int, largest: bool, max_row: int) -> tuple[SSAValue, SSAValue]:
    """The top ``k`` of rows longer than ``max_row``, in two stages: the row, padded with the value that ranks
    last (-inf for the largest), cut into pieces of at most ``max_row``; the top ``k`` of each piece; then the
    top ``k`` of those candidates (again in stages while they are too many), each one's index in its piece
    picked by a one-hot sum and offset by its piece's start. A padding element never wins: a real element of
    the same value comes first in its piece or in an earlier one."""
    shape = list(x.type.get_shape())
    lead, n = shape[:-1], shape[-1]
    pieces = -(-n // max_row)
    length = -(-n // pieces)
    et = x.type.element_type
    if pieces * length > n:
        last = (float("-inf") if largest else float("inf")) if str(et).startswith(("f", "bf")) else \
            (-(2 ** 31) if largest else 2 ** 31 - 1)
        pad = b.e.value(asctensor.FullOp(last, TensorType(et, [*lead, pieces * length - n])))
        x = b.e.value(asctensor.ConcatOp([x, pad], len(lead)))
    rows = b.e.value(asctensor.ReshapeOp(x, [*lead, pieces, length]))
    values, local = topk_last(b, rows, k, largest)                           # (..., pieces, k)
    candidates = b.e.value(asctensor.ReshapeOp(values, [*lead, pieces * k]))
    local = b.e.value(asctensor.ReshapeOp(local, [*lead, pieces * k]))
    if pieces * k > max_row:
        top, at = topk_long(b, candidates, k, largest, max_row)
    else:
        top, at = topk_last(b, candidates, k, largest)
    # candidate ``at`` came from piece trunc((at + 0.5) / k): its index in the row is that piece's start plus its own
    wide = b.cast(at, Float32Type())
    centred = b.e.value(arith.AddfOp(wide, b.full(0.5, wide)))
    piece = b.cast(b.e.value(arith.MulfOp(centred, b.full(1.0 / k, wide))), i32)  # the cast truncates
    start = b.e.value(arith.MuliOp(piece, b.full(length, piece)))
    return top, b.e.value(arith.AddiOp(_picked(b, local, at, k), start))


def _picked(b, index: SSAValue, at: SSAValue, k: int) -> SSAValue:
    """``index[..., at[..., j]]`` for each of the ``k`` positions ``at`` (i32): a one-hot sum in float32 (exact
    below 2^24)."""
    shape = list(index.type.get_shape())
    lead, m = shape[:-1], shape[-1]
    grid = TensorType(i32, [*lead, k, m])
    at = b.e.value(asctensor.ReshapeOp(at, [*lead, k, 1]))
    hot = b.e.value(asctensor.CompareOp("eq", b.e.value(asctensor.IotaOp(grid, len(lead) + 1)),
                                        b.e.value(asctensor.BroadcastOp(at, grid))))
    wide = b.cast(b.e.value(asctensor.ReshapeOp(index, [*lead, 1, m])), Float32Type())
    wide = b.e.value(asctensor.BroadcastOp(wide, TensorType(Float32Type(), [*lead, k, m])))
    chosen = b.e.value(asctensor.SelectOp(hot, wide, b.full(0.0, wide)))
    summed = b.e.value(asctensor.ReduceOp(ReduceKind.SUM, chosen, [len(lead) + 1], False))
    return b.cast(summed, i32)
