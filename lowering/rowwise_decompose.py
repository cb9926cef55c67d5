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
from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ReduceKind

from .errors import CompileError


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


# rows longer than this (in elements) are reduced by trees of elementwise kernels instead of in one
# row-wise kernel: a row-wise kernel keeps a few float32 rows of tiles live in UB (about 40 bytes per
# row element with double buffering) [D]; set per target by the pass
MAX_ROW_BYTES_PER_ELEMENT = 40


def row_reduce(b, v: SSAValue, kind: ReduceKind, axes, keepdims: bool, max_row: int) -> SSAValue:
    """A reduction over trailing ``axes``: one row-wise ``ReduceOp`` when the row fits in UB, else
    a tree per axis (several elementwise kernels that stream the row through any number of tiles)."""
    shape = v.type.get_shape()
    if prod(shape[a] for a in axes) <= max_row:
        return b.e.value(asctensor.ReduceOp(kind, v, axes, keepdims))
    for a in axes:
        if shape[a] > 1:
            v = tree_reduce(b, v, kind, a)
    if not keepdims:
        v = b.e.value(asctensor.ReshapeOp(v, asctensor.reduced_shape(shape, axes, False)))
    return v


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
    w = _wide(b, x)
    shape = w.type.get_shape()
    m = _axis_reduce(b, w, ReduceKind.MAX, [axis], max_row)
    shifted = b.sub(w, _bcast(b, m, shape))
    e = b.exp(shifted)
    s = _axis_reduce(b, e, ReduceKind.SUM, [axis], max_row)
    y = b.sub(shifted, _bcast(b, b.log(s), shape)) if log else b.div(e, _bcast(b, s, shape))
    return b.cast(y, out_type)


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
        shape, axis = op.input.type.get_shape(), op.axis.value.data
        if not trailing(shape, (axis,)):
            raise CompileError(f"asctensor.arg_reduce over axis {axis} of {list(shape)}: argmax/argmin run over the "
                               "last axis (ReduceMax/ReduceMin with calIndex per row); move the axis last")
        if shape[axis] > max_row:
            raise CompileError(f"asctensor.arg_reduce over a row of {shape[axis]} elements: longer than one tile "
                               f"row ({max_row}); not supported")
        if str(op.input.type.element_type) in ("f16", "bf16"):  # the index travels in a float32 slot
            wide = b.cast(op.input, Float32Type())
            return b.e.value(asctensor.ArgReduceOp(op.kind.data, wide, axis, op.keepdims is not None))
        return None
    if isinstance(op, asctensor.SoftmaxOp | asctensor.LogSoftmaxOp):
        return softmax(b, op.input, op.axis.value.data, isinstance(op, asctensor.LogSoftmaxOp), max_row)
    if isinstance(op, asctensor.LayerNormOp | asctensor.RmsNormOp):
        return norm(b, op.input, op.dims.value.data, op.eps.value.data, op.weight, op.bias,
                    isinstance(op, asctensor.RmsNormOp), max_row)
    return None

