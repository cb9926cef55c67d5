"""Decompositions of the reductions and row-wise composites, used by ``asctensor-decompose``.

* ``mean`` is a ``sum`` scaled by 1/N; a reduction over axes that are not one run of adjacent
  axes (ignoring size-1 axes) becomes a chain of reductions, one run each;
* ``softmax``  = e / sum(e) with e = exp(x - max(x));  ``log_softmax`` = x - max - log(sum(e));
* ``layer_norm`` = (x - mean) * rsqrt(var + eps) [* weight] [+ bias] over the trailing dims;
* ``rms_norm``  = x * rsqrt(mean(x^2) + eps) [* weight] [+ bias].

float16/bfloat16 inputs are computed in float32 and rounded once at the end, so the results
stay within float16 tolerance of a float64 reference. Every reduction is built with
``keepdims`` so the broadcast back to the row is explicit; the fusion pass gathers the pieces
of one composite into one row-wise kernel again.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.asctensor import ReduceKind


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


def reduce(b, x: SSAValue, kind: ReduceKind, axes, keepdims: bool) -> SSAValue:
    """``kind`` over ``axes`` as primitive reductions (sum/max/min/prod) over adjacent runs."""
    shape = x.type.get_shape()
    axes = sorted(axes)
    prim = ReduceKind.SUM if kind == ReduceKind.MEAN else kind
    groups = runs(shape, axes) or [axes]
    v = x
    for i, g in enumerate(groups):
        last = i == len(groups) - 1
        # the last step folds every requested axis (those already at 1 are free) to give the result shape
        step_axes = axes if last else g
        v = b.e.value(asctensor.ReduceOp(prim, v, step_axes, keepdims if last else True))
    if kind == ReduceKind.MEAN:
        v = b.mul(v, 1.0 / prod(shape[a] for a in axes))
    return v


def _wide(b, x: SSAValue) -> SSAValue:
    return b.cast(x, Float32Type()) if str(x.type.element_type) in ("f16", "bf16") else x


def _bcast(b, v: SSAValue, shape) -> SSAValue:
    if v.type.get_shape() == tuple(shape):
        return v
    return b.e.value(asctensor.BroadcastOp(v, TensorType(v.type.element_type, shape)))


def softmax(b, x: SSAValue, axis: int, log: bool) -> SSAValue:
    out_type = x.type.element_type
    w = _wide(b, x)
    shape = w.type.get_shape()
    m = b.e.value(asctensor.ReduceOp(ReduceKind.MAX, w, [axis], True))
    shifted = b.sub(w, _bcast(b, m, shape))
    e = b.exp(shifted)
    s = b.e.value(asctensor.ReduceOp(ReduceKind.SUM, e, [axis], True))
    y = b.sub(shifted, _bcast(b, b.log(s), shape)) if log else b.div(e, _bcast(b, s, shape))
    return b.cast(y, out_type)


def norm(b, x: SSAValue, dims: int, eps: float, weight, bias, rms: bool) -> SSAValue:
    out_type = x.type.element_type
    w = _wide(b, x)
    shape = w.type.get_shape()
    axes = list(range(len(shape) - dims, len(shape)))
    n = prod(shape[a] for a in axes)
    if rms:
        centred = w
        var = b.mul(b.e.value(asctensor.ReduceOp(ReduceKind.SUM, b.mul(w, w), axes, True)), 1.0 / n)
    else:
        mean = b.mul(b.e.value(asctensor.ReduceOp(ReduceKind.SUM, w, axes, True)), 1.0 / n)
        centred = b.sub(w, _bcast(b, mean, shape))
        var = b.mul(b.e.value(asctensor.ReduceOp(ReduceKind.SUM, b.mul(centred, centred), axes, True)), 1.0 / n)
    y = b.mul(centred, _bcast(b, b.rsqrt(b.add(var, eps)), shape))
    if weight is not None:  # broadcast first, so the cast runs on the row shape inside the kernel
        y = b.mul(y, _wide(b, _bcast(b, weight, shape)))
    if bias is not None:
        y = b.add(y, _wide(b, _bcast(b, bias, shape)))
    return b.cast(y, out_type)


def decompose_rowwise(b, op) -> SSAValue | None:
    """The primitive form of a reduction or row-wise composite, None for other ops."""
    if isinstance(op, asctensor.ReduceOp):
        kind, axes, keep = op.kind.data, op.axis_list, op.keepdims is not None
        shape = op.input.type.get_shape()
        if kind != ReduceKind.MEAN and len(runs(shape, axes)) <= 1:
            return None  # already a primitive
        return reduce(b, op.input, kind, axes, keep)
    if isinstance(op, asctensor.SoftmaxOp | asctensor.LogSoftmaxOp):
        return softmax(b, op.input, op.axis.value.data, isinstance(op, asctensor.LogSoftmaxOp))
    if isinstance(op, asctensor.LayerNormOp | asctensor.RmsNormOp):
        return norm(b, op.input, op.dims.value.data, op.eps.value.data, op.weight, op.bias,
                    isinstance(op, asctensor.RmsNormOp))
    return None

