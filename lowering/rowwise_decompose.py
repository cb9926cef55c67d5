"""Decompositions of the reductions and row-wise composites, used by ``asctensor-decompose``.

* ``mean`` is a ``sum`` scaled by 1/N; a sum/max/min over the trailing axes stays a row-wise
  reduction (``ReduceSum``/``ReduceMax``/``ReduceMin`` per row); any other reduction (over leading
  or middle axes, or a product, for which the vector unit has no instruction) becomes a tree of
  elementwise combinations of slices, one kernel per level, reading the data about once;
* ``softmax``  = e / sum(e) with e = exp(x - max(x));  ``log_softmax`` = x - max - log(sum(e));
* ``layer_norm`` = (x - mean) * rsqrt(var + eps) [* weight] [+ bias] over the trailing dims;
* ``rms_norm``  = x * rsqrt(mean(x^2) + eps) [* weight] [+ bias].

float16/bfloat16 inputs are computed in float32 and rounded once at the end (float16 norms round
before the affine weight and bias, which run in float16), so the results stay within float16
tolerance of a float64 reference. Every reduction is built with
``keepdims`` so the broadcast back to the row is explicit; the fusion pass gathers the pieces
of one composite into one row-wise kernel again.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, Float32Type, TensorType, i32
from xdsl.ir import SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ArgKind, ReduceKind



def runs(shape: tuple[int, ...], axes) -> list[list[int]]:
    """The reduced axes as runs of adjacent axes, size-1 axes joining whichever run they touch."""
    effective = [a for a in axes if shape[a] != 1]
    groups: list[list[int]] = []
    for a in effective:
        if groups and all(shape[k] == 1 or k in effective for k in range(groups[-1][-1] + 1, a)):
            groups[-1].append(a)
        else:
            groups.append([a])
    return groups


TREE_FAN_IN = 8  # inputs combined per level of a tree reduction (one kernel per level)


def trailing(shape: tuple[int, ...], axes) -> bool:
    """The reduced axes are the last axes (size-1 axes do not count): a row-wise reduction."""
    first = min(axes)
    return all(i in axes or shape[i] == 1 for i in range(first, len(shape)))


def _combine(b, kind: ReduceKind, a: SSAValue, c: SSAValue) -> SSAValue:
    integer = not str(a.type.element_type).startswith(("f", "bf"))
    table = {ReduceKind.SUM: (arith.AddfOp, arith.AddiOp), ReduceKind.PROD: (arith.MulfOp, arith.MuliOp),
             ReduceKind.MAX: (arith.MaximumfOp, arith.MaxSIOp), ReduceKind.MIN: (arith.MinimumfOp, arith.MinSIOp)}
    return b.e.value(table[kind][integer](a, c))


def _slice(b, v: SSAValue, axis: int, start: int, size: int) -> SSAValue:
    shape = list(v.type.get_shape())
    offsets = [0] * len(shape)
    offsets[axis], shape[axis] = start, size
    return b.e.value(asctensor.SliceOp(v, offsets, shape))


def tree_reduce(b, x: SSAValue, kind: ReduceKind, axis: int) -> SSAValue:
    """``kind`` over one axis as elementwise combinations of slices, ``TREE_FAN_IN`` per level:
    each level is one elementwise kernel reading the data once, so the whole tree moves about
    8/7 of the input. Rows left over when a level does not divide evenly are combined last."""
    v, left = x, []
    n = x.type.get_shape()[axis]
    while n > 1:
        fan = min(TREE_FAN_IN, n)
        q = n // fan
        parts = [_slice(b, v, axis, j * q, q) for j in range(fan)]
        left += [_slice(b, v, axis, fan * q + t, 1) for t in range(n - fan * q)]
        acc = parts[0]
        for p in parts[1:]:
            acc = _combine(b, kind, acc, p)
        v, n = acc, q
    for p in left:
        v = _combine(b, kind, v, p)
    return v


# rows longer than this (in elements) are split into pieces reduced by a row-wise kernel each: a
# row-wise kernel keeps a few float32 rows of tiles live in UB (about 40 bytes per row element with
# double buffering) [D]; set per target by the pass
MAX_ROW_BYTES_PER_ELEMENT = 40
ROW_ALIGN = 8  # piece lengths that are multiples of 8 elements keep every piece 32 B aligned (f32)


def split_row(n: int, max_row: int) -> tuple[int, int, int]:
    """``(L, P, tail)`` with ``n = P * L + tail`` and ``L <= max_row``: the piece length ``L`` is the
    largest divisor of ``n`` not above ``max_row`` (preferring multiples of ``ROW_ALIGN``) when it
    is at least a quarter of ``max_row``; otherwise ``max_row`` aligned down, with a tail."""
    divisors = set()
    d = 1
    while d * d <= n:
        if n % d == 0:
            divisors.update((d, n // d))
        d += 1
    fitting = [d for d in divisors if d <= max_row and 4 * d >= max_row]
    aligned = [d for d in fitting if d % ROW_ALIGN == 0]
    if aligned or fitting:
        length = max(aligned or fitting)
    else:
        length = max(ROW_ALIGN, max_row // ROW_ALIGN * ROW_ALIGN)
    return length, n // length, n % length


def _last(v: SSAValue) -> int:
    return len(v.type.get_shape()) - 1


def _reshape(b, v: SSAValue, shape) -> SSAValue:
    if v.type.get_shape() == tuple(shape):
        return v
    return b.e.value(asctensor.ReshapeOp(v, tuple(shape)))


def row_reduce(b, v: SSAValue, kind: ReduceKind, axes, keepdims: bool, max_row: int) -> SSAValue:
    """A reduction over trailing ``axes``: one row-wise ``ReduceOp`` when the row fits in UB, else
    the row is cut into pieces of at most ``max_row`` elements (a reshape, free), each piece reduced
    by one row-wise kernel spread over the cores, and the partial results reduced again (a tail
    that the pieces do not cover is reduced on its own and combined)."""
    shape = v.type.get_shape()
    n = prod(shape[a] for a in axes)
    if n <= max_row:
        return b.e.value(asctensor.ReduceOp(kind, v, axes, keepdims))
    lead = tuple(shape[:min(axes)])
    rows = _reshape(b, v, lead + (n,))
    length, pieces, tail = split_row(n, max_row)
    main = rows if not tail else _slice(b, rows, len(lead), 0, pieces * length)
    partial = b.e.value(asctensor.ReduceOp(kind, _reshape(b, main, lead + (pieces, length)), [len(lead) + 1], False))
    if not tail and len(axes) == 1:
        return row_reduce(b, partial, kind, [len(lead)], keepdims, max_row)
    r = row_reduce(b, partial, kind, [len(lead)], True, max_row)
    if tail:
        rest = row_reduce(b, _slice(b, rows, len(lead), pieces * length, tail), kind, [len(lead)], True, max_row)
        r = _combine(b, kind, r, rest)
    return _reshape(b, r, asctensor.reduced_shape(shape, axes, keepdims))


def reduce(b, x: SSAValue, kind: ReduceKind, axes, keepdims: bool, max_row: int = 1 << 62) -> SSAValue:
    """``kind`` over ``axes``: a row-wise ``ReduceOp`` (sum/max/min over trailing axes), else a tree
    of elementwise combinations per axis; float16/bfloat16 sums and products in float32."""
    shape = x.type.get_shape()
    axes = sorted(axes)
    out_type = x.type.element_type
    prim = ReduceKind.SUM if kind == ReduceKind.MEAN else kind
    v = _wide(b, x) if prim in (ReduceKind.SUM, ReduceKind.PROD) or str(out_type) == "bf16" else x
    if prim != ReduceKind.PROD and trailing(shape, axes):
        v = row_reduce(b, v, prim, axes, keepdims, max_row)
    else:
        for a in axes:
            if shape[a] > 1:
                v = tree_reduce(b, v, prim, a)
        if not keepdims:
            v = b.e.value(asctensor.ReshapeOp(v, asctensor.reduced_shape(shape, axes, False)))
    if kind == ReduceKind.MEAN:
        v = b.mul(v, 1.0 / prod(shape[a] for a in axes))
    return b.cast(v, out_type)


def _wide(b, x: SSAValue) -> SSAValue:
    return b.cast(x, Float32Type()) if str(x.type.element_type) in ("f16", "bf16") else x


def _bcast(b, v: SSAValue, shape) -> SSAValue:
    if v.type.get_shape() == tuple(shape):
        return v
    return b.e.value(asctensor.BroadcastOp(v, TensorType(v.type.element_type, shape)))


def softmax(b, x: SSAValue, axis: int, log: bool, max_row: int) -> SSAValue:
    out_type = x.type.element_type
    shape = x.type.get_shape()
    if trailing(shape, [axis]) and shape[axis] > max_row:
        return _long_softmax(b, x, log, max_row)
    w = _wide(b, x)
    m = _axis_reduce(b, w, ReduceKind.MAX, [axis], max_row)
    shifted = b.sub(w, _bcast(b, m, shape))
    e = b.exp(shifted)
    s = _axis_reduce(b, e, ReduceKind.SUM, [axis], max_row)
    y = b.sub(shifted, _bcast(b, b.log(s), shape)) if log else b.div(e, _bcast(b, s, shape))
    return b.cast(y, out_type)


def split_long_row(n: int, max_row: int) -> tuple[int, int, int]:
    """``(L, P, tail)`` with ``n = P * L + tail``: a divisor split when ``split_row`` finds one, else
    the fewest pieces of at most ``max_row`` elements, as long as possible (the tail is below ``P``)."""
    length, pieces, tail = split_row(n, max_row)
    if not tail:
        return length, pieces, 0
    pieces = -(-n // max_row)
    return n // pieces, pieces, n % pieces


def _long_softmax(b, x: SSAValue, log: bool, max_row: int) -> SSAValue:
    """softmax/log_softmax over trailing rows longer than UB, in two kernels: a row-wise kernel gives
    every piece of a row its max ``m_p`` and ``s_p = sum(exp(piece - m_p))``; the elementwise kernel
    writing the result first combines the pieces of its rows (``m = max(m_p)``,
    ``s = sum(s_p * exp(m_p - m))``, with the tail of the row that the pieces leave out) and then
    computes ``exp(x - m) / s`` or ``x - m - log(s)`` (the fusion pass keeps these small per-row
    computations in that kernel). x is read twice and the result written once."""
    shape = x.type.get_shape()
    lead, n = tuple(shape[:-1]), shape[-1]
    length, pieces, tail = split_long_row(n, max_row)
    main = x if not tail else _slice(b, x, len(lead), 0, pieces * length)
    mp, sp = (_reshape(b, v, lead + (pieces,))
              for v in _piece_stats(b, _wide(b, _reshape(b, main, lead + (pieces, length)))))
    rest = _piece_stats(b, _wide(b, _slice(b, x, len(lead), pieces * length, tail))) if tail else None
    m = b.e.value(asctensor.ReduceOp(ReduceKind.MAX, mp, [len(lead)], True))
    if rest is not None:
        m = b.max(m, rest[0])
    scaled = b.mul(sp, b.exp(b.sub(mp, _bcast(b, m, mp.type.get_shape()))))
    s = b.e.value(asctensor.ReduceOp(ReduceKind.SUM, scaled, [len(lead)], True))
    if rest is not None:
        s = b.add(s, b.mul(rest[1], b.exp(b.sub(rest[0], m))))
    # log(s) or 1/s once per row: the long row is then scaled by a product (a Muls, not a Div per element)
    t = b.log(s) if log else b.div(1.0, s)
    w = _wide(b, x)
    shifted = b.sub(w, _bcast(b, m, shape))
    y = b.sub(shifted, _bcast(b, t, shape)) if log else b.mul(b.exp(shifted), _bcast(b, t, shape))
    return b.cast(y, x.type.element_type)


def _piece_stats(b, piece: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Per row of ``piece``: its max ``m`` and ``sum(exp(piece - m))`` (keepdims)."""
    last = _last(piece)
    m = b.e.value(asctensor.ReduceOp(ReduceKind.MAX, piece, [last], True))
    e = b.exp(b.sub(piece, _bcast(b, m, piece.type.get_shape())))
    return m, b.e.value(asctensor.ReduceOp(ReduceKind.SUM, e, [last], True))


def _axis_reduce(b, v: SSAValue, kind: ReduceKind, axes, max_row: int) -> SSAValue:
    """keepdims ``kind`` over ``axes`` for a composite: row-wise when trailing and short enough."""
    if trailing(v.type.get_shape(), axes):
        return row_reduce(b, v, kind, axes, True, max_row)
    for a in axes:
        v = tree_reduce(b, v, kind, a)
    return v


def norm(b, x: SSAValue, dims: int, eps: float, weight, bias, rms: bool, max_row: int) -> SSAValue:
    out_type = x.type.element_type
    w = _wide(b, x)
    shape = w.type.get_shape()
    axes = list(range(len(shape) - dims, len(shape)))
    n = prod(shape[a] for a in axes)
    if rms:
        centred = w
        var = b.mul(_axis_reduce(b, b.mul(w, w), ReduceKind.SUM, axes, max_row), 1.0 / n)
    else:
        mean = b.mul(_axis_reduce(b, w, ReduceKind.SUM, axes, max_row), 1.0 / n)
        centred = b.sub(w, _bcast(b, mean, shape))
        var = b.mul(_axis_reduce(b, b.mul(centred, centred), ReduceKind.SUM, axes, max_row), 1.0 / n)
    y = b.mul(centred, _bcast(b, b.rsqrt(b.add(var, eps)), shape))
    if str(out_type) == "f16":
        # the statistics and the normalisation are float32; the affine part runs in float16 (the
        # vector unit's native width, half the cycles of float32), rounding once more per op
        y = b.cast(y, out_type)
        if weight is not None:
            y = b.mul(y, _bcast(b, weight, shape))
        if bias is not None:
            y = b.add(y, _bcast(b, bias, shape))
        return y
    if weight is not None:  # broadcast first, so the cast runs on the row shape inside the kernel
        y = b.mul(y, _wide(b, _bcast(b, weight, shape)))
    if bias is not None:
        y = b.add(y, _wide(b, _bcast(b, bias, shape)))
    return b.cast(y, out_type)


ARG_PREDICATE = {ArgKind.MAX: "gt", ArgKind.MIN: "lt"}


def arg_reduce(b, op: asctensor.ArgReduceOp, max_row: int) -> SSAValue | None:
    """argmax/argmin: over a last axis that fits in UB a primitive (ReduceMax/ReduceMin with the
    index, in a float32 slot for float16/bfloat16); over a longer last axis the row is cut into
    pieces, each reduced with its index, and the pieces are combined; over any other axis a tree
    of elementwise compare/select steps that carries the index along (``arg_tree``)."""
    kind, axis, keep = op.kind.data, op.axis.value.data, op.keepdims is not None
    x = op.input
    shape = x.type.get_shape()
    out_shape = asctensor.reduced_shape(shape, (axis,), keep)
    if shape[axis] == 1:  # one candidate: every index is 0
        return b.e.value(asctensor.FullOp(0, TensorType(i32, out_shape)))
    wide = b.cast(x, Float32Type()) if str(x.type.element_type) in ("f16", "bf16") else x
    if trailing(shape, (axis,)) and shape[axis] <= max_row:
        if wide is x:
            return None
        return b.e.value(asctensor.ArgReduceOp(kind, wide, axis, keep))
    if not trailing(shape, (axis,)):
        _, index = arg_tree(b, wide if str(x.type.element_type) == "bf16" else x, None, 1, axis, kind)
        return _reshape(b, index, out_shape)
    lead, n = tuple(shape[:-1]), shape[-1]
    length, pieces, tail = split_row(n, max_row)
    main = wide if not tail else _slice(b, wide, len(lead), 0, pieces * length)
    split = _reshape(b, main, lead + (pieces, length))
    values = b.e.value(asctensor.ReduceOp(ReduceKind(kind.value), split, [len(lead) + 1], False))
    index = b.e.value(asctensor.ArgReduceOp(kind, split, len(lead) + 1, False))
    values, index = arg_tree(b, values, index, length, len(lead), kind)
    if tail:
        rest = _slice(b, wide, len(lead), pieces * length, tail)
        rest_values = b.e.value(asctensor.ReduceOp(ReduceKind(kind.value), rest, [len(lead)], True))
        rest_index = b.e.value(asctensor.ArgReduceOp(kind, rest, len(lead), True))
        values, index = _arg_combine(b, kind, values, index, rest_values, b.addi(rest_index, pieces * length))
    return _reshape(b, index, out_shape)


def _arg_combine(b, kind: ArgKind, values, index, other_values, other_index):
    """The (value, index) pairs of ``other`` where they strictly win, else the current ones (the
    current ones come first in the axis, so ties keep the first index, as PyTorch). As in PyTorch a
    NaN wins over every number, and the first NaN over a later one."""
    take = b.e.value(asctensor.CompareOp(ARG_PREDICATE[kind], other_values, values))
    new_values = b.e.value(asctensor.SelectOp(take, other_values, values))
    new_index = b.e.value(asctensor.SelectOp(take, other_index, index))
    if not isinstance(values.type.element_type, AnyFloat):
        return new_values, new_index
    other_nan = b.e.value(asctensor.CompareOp("ne", other_values, other_values))
    nan = b.e.value(asctensor.CompareOp("ne", values, values))
    first_nan = b.e.value(asctensor.SelectOp(nan, index, other_index))
    return (b.e.value(asctensor.SelectOp(other_nan, other_values, new_values)),
            b.e.value(asctensor.SelectOp(other_nan, first_nan, new_index)))


def arg_tree(b, values: SSAValue, index: SSAValue | None, block: int, axis: int, kind: ArgKind):
    """(values, i32 index) of the first max/min along ``axis`` (kept as size 1) by levels of
    elementwise compare/select over ``TREE_FAN_IN`` consecutive entries (a free reshape of the axis
    into ``(n / fan, fan)``), one kernel per level.

    Entry ``p`` of ``values`` stands for the elements ``[p * block, (p + 1) * block)`` of the axis and
    ``index`` holds its winner's offset in that block (None: all zero); a level merges ``fan``
    consecutive blocks, so the offsets stay block-relative constants plus the carried index. Entries
    that do not fill a last group of ``fan`` are combined at the end, deepest level first."""
    left = []
    n = values.type.get_shape()[axis]
    while n > 1:
        shape = values.type.get_shape()
        fan = min(TREE_FAN_IN, n)
        q = n // fan
        left.append([(_slice(b, values, axis, p, 1), _offset(b, index, values, axis, p, block))
                     for p in range(q * fan, n)])
        grouped = shape[:axis] + (q, fan) + shape[axis + 1:]
        vs = _reshape(b, _slice(b, values, axis, 0, q * fan) if q * fan < n else values, grouped)
        ix = None if index is None else _reshape(
            b, _slice(b, index, axis, 0, q * fan) if q * fan < n else index, grouped)
        acc_v, acc_i = _slice(b, vs, axis + 1, 0, 1), _offset(b, ix, vs, axis + 1, 0, block)
        for t in range(1, fan):
            acc_v, acc_i = _arg_combine(b, kind, acc_v, acc_i, _slice(b, vs, axis + 1, t, 1),
                                        _offset(b, ix, vs, axis + 1, t, block))
        kept = shape[:axis] + (q,) + shape[axis + 1:]
        values, index, block, n = _reshape(b, acc_v, kept), _reshape(b, acc_i, kept), block * fan, q
    if index is None:
        index = _offset(b, None, values, axis, 0, block)
    for level in reversed(left):
        for lv, li in level:
            values, index = _arg_combine(b, kind, values, index, lv, li)
    return values, index


def _offset(b, index: SSAValue | None, values: SSAValue, axis: int, p: int, block: int) -> SSAValue:
    """The axis offsets of the winners of entry ``p`` (``p * block`` plus the carried index)."""
    shape = list(values.type.get_shape())
    shape[axis] = 1
    if index is None:
        return b.e.value(asctensor.FullOp(p * block, TensorType(i32, shape)))
    sliced = _slice(b, index, axis, p, 1)
    return b.addi(sliced, p * block) if p * block else sliced


def decompose_rowwise(b, op, max_row: int) -> SSAValue | None:
    """The primitive form of a reduction or row-wise composite, None for other ops; rows longer
    than ``max_row`` elements are reduced by trees."""
    if isinstance(op, asctensor.ReduceOp):
        kind, axes, keep = op.kind.data, op.axis_list, op.keepdims is not None
        shape = op.input.type.get_shape()
        et = str(op.input.type.element_type)
        exact_f16 = et == "f16" and kind in (ReduceKind.MAX, ReduceKind.MIN)  # max/min need no widening
        if kind in (ReduceKind.SUM, ReduceKind.MAX, ReduceKind.MIN) and trailing(shape, axes) \
                and (et == "f32" or exact_f16) and prod(shape[a] for a in axes) <= max_row:
            return None  # already a primitive (a row-wise ReduceSum/Max/Min)
        return reduce(b, op.input, kind, axes, keep, max_row)
    if isinstance(op, asctensor.ArgReduceOp):
        return arg_reduce(b, op, max_row)
    if isinstance(op, asctensor.SoftmaxOp | asctensor.LogSoftmaxOp):
        return softmax(b, op.input, op.axis.value.data, isinstance(op, asctensor.LogSoftmaxOp), max_row)
    if isinstance(op, asctensor.LayerNormOp | asctensor.RmsNormOp):
        return norm(b, op.input, op.dims.value.data, op.eps.value.data, op.weight, op.bias,
                    isinstance(op, asctensor.RmsNormOp), max_row)
    return None

