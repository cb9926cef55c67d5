"""The ONNX reductions, scans, selections and normalizations: ``ReduceMean``, ``ReduceSum``, ``ReduceMax``,
``ReduceMin``, ``ReduceProd``, ``ReduceL1``,
``ReduceL2``, ``ReduceLogSumExp``, ``ReduceSumSquare``, ``ArgMax``, ``ArgMin``, ``CumSum``, ``TopK``,
``InstanceNormalization`` and ``GroupNormalization``.

Axes come as the ``axes`` input (recent opsets) or attribute; indices are int32 (the device's integer)."""

from __future__ import annotations

import pyasc
from pyasc.ops_pad import pad_dims

from .onnx_common import _axes_input, _axis, _op, const_tensor, ints, is_const

_REDUCE_ATTRS = ("axes", "keepdims", "noop_with_empty_axes")


def _reduction(fn):
    """A reduction ``fn(x, dims, keepdim)`` over the node's axes (all when none, unless
    ``noop_with_empty_axes``)."""
    def convert(node, inputs):
        x = inputs[0]
        axes = _axes_input(node, inputs, 1)
        if not axes:
            if node.attr("noop_with_empty_axes", 0):
                return x
            axes = list(range(x.ndim))
        return fn(x, tuple(_axis(a, x.ndim) for a in axes), bool(node.attr("keepdims", 1)))
    return convert


REDUCTIONS = {
    "ReduceMean": lambda x, d, k: pyasc.mean(x, dim=d, keepdim=k),
    "ReduceSum": lambda x, d, k: pyasc.sum(x, dim=d, keepdim=k),
    "ReduceMax": lambda x, d, k: pyasc.amax(x, dim=d, keepdim=k),
    "ReduceMin": lambda x, d, k: pyasc.amin(x, dim=d, keepdim=k),
    "ReduceProd": lambda x, d, k: pyasc.prod(x, dim=d, keepdim=k),
    "ReduceL1": lambda x, d, k: pyasc.sum(pyasc.abs(x), dim=d, keepdim=k),
    "ReduceL2": lambda x, d, k: pyasc.sqrt(pyasc.sum(x * x, dim=d, keepdim=k)),
    "ReduceLogSumExp": lambda x, d, k: pyasc.logsumexp(x, dim=d, keepdim=k),
    "ReduceSumSquare": lambda x, d, k: pyasc.sum(x * x, dim=d, keepdim=k),
}


def _arg(fn):
    """``ArgMax``/``ArgMin``: the first index of the extreme, or the last with ``select_last_index``."""
    def convert(node, inputs):
        x = inputs[0]
        axis = _axis(node.attr("axis", 0), x.ndim)
        keep = bool(node.attr("keepdims", 1))
        if not node.attr("select_last_index", 0):
            return fn(x, axis, keepdim=keep)
        return (x.shape[axis] - 1) - fn(pyasc.flip(x, (axis,)), axis, keepdim=keep)
    return convert


def _cumsum(node, inputs):
    x, axis = inputs
    if not is_const(axis):
        node.fail("the axis input must be a constant")
    dim = _axis(ints(axis)[0], x.ndim)
    reverse = bool(node.attr("reverse", 0))
    if reverse:
        x = pyasc.flip(x, (dim,))
    if node.attr("exclusive", 0):  # the sums before each element: the input shifted by one, a zero first
        x = pad_dims(x, {dim: (1, -1)}, "constant", 0)
    y = pyasc.cumsum(x, dim)
    return pyasc.flip(y, (dim,)) if reverse else y


def _topk(node, inputs):
    x, k = inputs
    if not is_const(k):
        node.fail("K must be a constant")
    values, indices = pyasc.topk(x, ints(k)[0], _axis(node.attr("axis", -1), x.ndim),
                                 largest=bool(node.attr("largest", 1)), sorted=bool(node.attr("sorted", 1)))
    return [values, indices]


def _standardized(x, dims, eps: float):
    """``(x - mean) / sqrt(var + eps)`` over ``dims`` (the biased variance)."""
    mean = pyasc.mean(x, dim=dims, keepdim=True)
    centered = x - mean
    var = pyasc.mean(centered * centered, dim=dims, keepdim=True)
    return centered * pyasc.rsqrt(var + eps)


def _per_channel(node, v, x):
    v = const_tensor(node, v, x) if is_const(v) else v
    return v.reshape(v.shape[0], *([1] * (x.ndim - 2)))


def _instance_norm(node, inputs):
    x, scale, bias = inputs
    y = _standardized(x, tuple(range(2, x.ndim)), node.attr("epsilon", 1e-5))
    return y * _per_channel(node, scale, x) + _per_channel(node, bias, x)


def _group_norm(node, inputs):
    """Over each group of channels; the scale and bias per channel (opset 21), or per group (opset 18)."""
    x, scale, bias = inputs
    g = node.attr("num_groups")
    n, c = x.shape[:2]
    if g is None or c % g:
        node.fail(f"num_groups {g} must divide the {c} channels", "num_groups")
    grouped = x.reshape(n, g, -1)
    y = _standardized(grouped, (2,), node.attr("epsilon", 1e-5))
    if getattr(scale, "shape", (c,))[0] == g and g != c:
        y = y * _per_channel(node, scale, y) + _per_channel(node, bias, y)
        return y.reshape(*x.shape)
    return y.reshape(*x.shape) * _per_channel(node, scale, x) + _per_channel(node, bias, x)


REDUCTION_OPS = {
    **{name: _op(_reduction(fn), *_REDUCE_ATTRS) for name, fn in REDUCTIONS.items()},
    "ArgMax": _op(_arg(pyasc.argmax), "axis", "keepdims", "select_last_index"),
    "ArgMin": _op(_arg(pyasc.argmin), "axis", "keepdims", "select_last_index"),
    "CumSum": _op(_cumsum, "exclusive", "reverse"),
    "TopK": _op(_topk, "axis", "largest", "sorted"),
    "InstanceNormalization": _op(_instance_norm, "epsilon"),
    "GroupNormalization": _op(_group_norm, "epsilon", "num_groups", "stash_type"),
}
"""ONNX op type -> conversion, for the reductions, scans, selections and normalizations."""
