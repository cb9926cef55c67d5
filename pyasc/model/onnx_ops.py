"""The ONNX operator table: one entry per ONNX op type, converting a node into calls of the
tensor API (``pyasc.conv2d``, ``pyasc.matmul``, ...) on traced tensors.

A value is either a traced :class:`~pyasc.tensor.Tensor` (computed on the device) or a NumPy
array (a constant: an initializer, a ``Constant`` or a folded shape computation). A node whose
inputs are all constants never reaches this table: the importer folds it on the host with the
ONNX reference implementation. An entry lists the attributes it understands (any other attribute
present on the node is an error) and checks their values with ``node.fail``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from onnx import TensorProto

import pyasc

from .onnx_common import (Node, OnnxOp, _axes_input, _axis, _op, _traced_of, const_tensor, ints, is_const,
                          operand, scalar, take)
from .onnx_more import MORE_OPS
from .onnx_recurrent import RECURRENT_OPS
from .onnx_reductions import REDUCTION_OPS
from .onnx_windows import WINDOW_OPS


# ------------------------------------------------------------------------------------- elementwise

def _unary(fn):
    return lambda node, inputs: fn(inputs[0])


def _binary(fn):
    def convert(node, inputs):
        a, b = inputs
        like = _traced_of([a, b])
        return fn(operand(node, a, like), operand(node, b, like))
    return convert


def _clip(node, inputs):
    x = inputs[0]
    lo = scalar(node, inputs[1], "min") if len(inputs) > 1 else node.attr("min")
    hi = scalar(node, inputs[2], "max") if len(inputs) > 2 else node.attr("max")
    return pyasc.clamp(x, lo, hi)


def _hard_sigmoid(node, inputs):
    return pyasc.clamp(inputs[0] * node.attr("alpha", 0.2) + node.attr("beta", 0.5), 0.0, 1.0)


def _hard_swish(node, inputs):
    x = inputs[0]
    return x * pyasc.clamp(x * (1 / 6) + 0.5, 0.0, 1.0)


def _gelu(node, inputs):
    approx = node.attr("approximate", "none")
    if approx not in ("none", "tanh"):
        node.fail(f"value '{approx}' is not supported (none, tanh)", "approximate")
    return pyasc.gelu(inputs[0], approximate=approx)


def _where(node, inputs):
    c, a, b = inputs
    like = _traced_of([a, b])
    c = const_tensor(node, c) if is_const(c) else c
    return pyasc.where(c, operand(node, a, like), operand(node, b, like))


def _variadic(fn, mean: bool = False):
    """``Min``, ``Max``, ``Sum`` and ``Mean`` of any number of inputs (broadcast together)."""
    def convert(node, inputs):
        like = _traced_of(inputs)
        out = None
        for v in inputs:
            v = operand(node, v, like)
            out = v if out is None else fn(out, v)
        return out * (1.0 / len(inputs)) if mean else out
    return convert


def _elu(node, inputs):
    x = inputs[0]
    return pyasc.where(x > 0, x, pyasc.expm1(x) * node.attr("alpha", 1.0))


def _selu(node, inputs):
    x = inputs[0]
    alpha, gamma = node.attr("alpha", 1.67326319217681884765625), node.attr("gamma", 1.05070102214813232421875)
    return pyasc.where(x > 0, x * gamma, pyasc.expm1(x) * (alpha * gamma))


def _celu(node, inputs):
    x, alpha = inputs[0], node.attr("alpha", 1.0)
    return pyasc.relu(x) + pyasc.minimum(pyasc.expm1(x * (1.0 / alpha)) * alpha, 0.0)


def _prelu(node, inputs):
    x, slope = inputs
    slope = operand(node, slope, x)
    return pyasc.where(x < 0, x * slope, x)


def _shrink(node, inputs):
    x, bias, lambd = inputs[0], node.attr("bias", 0.0), node.attr("lambd", 0.5)
    return pyasc.where(x < -lambd, x + bias, pyasc.where(x > lambd, x - bias, 0.0))


def _is_inf(node, inputs):
    x = inputs[0]
    neg, pos = node.attr("detect_negative", 1), node.attr("detect_positive", 1)
    if neg and pos:
        return pyasc.isinf(x)
    if not (neg or pos):
        return pyasc.isinf(x) & pyasc.isnan(x)  # never both: all False
    return pyasc.isinf(x) & ((x > 0) if pos else (x < 0))


def _mod(node, inputs):
    """``fmod=0``: the remainder with the divisor's sign (integers); ``fmod=1``: with the dividend's (C's fmod)."""
    a, b = inputs
    like = _traced_of([a, b])
    a, b = operand(node, a, like), operand(node, b, like)
    r = pyasc.remainder(a, b)
    if not node.attr("fmod", 0):
        if like.dtype.is_floating_point:
            node.fail("a floating point Mod needs fmod=1", "fmod")
        return r
    return pyasc.where((r != 0) & ((r < 0) != (a < 0)), r - b, r)


_CASTS = {TensorProto.FLOAT: None, TensorProto.FLOAT16: pyasc.float16, TensorProto.BFLOAT16: pyasc.bfloat16,
          TensorProto.INT32: pyasc.int32, TensorProto.INT64: pyasc.int32, TensorProto.INT8: pyasc.int8,
          TensorProto.BOOL: pyasc.bool_}


def _cast(node, inputs):
    to = node.attr("to")
    if to not in _CASTS:
        node.fail(f"casts to {TensorProto.DataType.Name(to)} are not supported", "to")
    return pyasc.cast(inputs[0], dtype=_CASTS[to] or node.float_dtype)


def _pass_through(node, inputs):
    if node.n_outputs > 1:
        node.fail("only the first output (inference mode) is supported")
    return inputs[0]


# ------------------------------------------------------------------------------------- shapes

def _shape(node, inputs):
    shape = np.array(inputs[0].shape, dtype=np.int64)
    return shape[node.attr("start", 0): node.attr("end", len(shape))]


def _reshape(node, inputs):
    x, shape = inputs
    if not is_const(shape):
        node.fail("the shape input must be computable at import (a constant or a shape computation)")
    target = ints(shape)
    if not node.attr("allowzero", 0):
        target = [x.shape[i] if d == 0 else d for i, d in enumerate(target)]
    return pyasc.reshape(x, *target)


def _flatten(node, inputs):
    x = inputs[0]
    axis = _axis(node.attr("axis", 1), x.ndim)
    return pyasc.reshape(x, int(np.prod(x.shape[:axis], dtype=np.int64)), -1)


def _squeeze(node, inputs):
    x = inputs[0]
    axes = _axes_input(node, inputs, 1)
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axes is None else [_axis(a, x.ndim) for a in axes]
    return pyasc.reshape(x, *[d for i, d in enumerate(x.shape) if i not in axes])


def _unsqueeze(node, inputs):
    x = inputs[0]
    axes = _axes_input(node, inputs, 1)
    ndim = x.ndim + len(axes)
    axes = sorted(_axis(a, ndim) for a in axes)
    shape = list(x.shape)
    for a in axes:
        shape.insert(a, 1)
    return pyasc.reshape(x, *shape)


def _transpose(node, inputs):
    x = inputs[0]
    perm = node.attr("perm", list(range(x.ndim))[::-1])
    return pyasc.permute(x, *perm)


def _expand(node, inputs):
    x, shape = inputs
    out = np.broadcast_shapes(tuple(x.shape), tuple(ints(shape)))
    return x if tuple(out) == tuple(x.shape) else x.expand(*out)


def _tile(node, inputs):
    x, repeats = inputs
    if not is_const(repeats):
        node.fail("repeats must be a constant")
    return x.repeat(*ints(repeats))


def _trilu(node, inputs):
    x = inputs[0]
    k = 0
    if len(inputs) > 1 and inputs[1] is not None:
        if not is_const(inputs[1]):
            node.fail("k must be a constant")
        k = ints(inputs[1])[0]
    return pyasc.triu(x, k) if node.attr("upper", 1) else pyasc.tril(x, k)


def _depth_to_space(node, inputs):
    x, b = inputs[0], node.attr("blocksize")
    n, c, h, w = x.shape
    mode = node.attr("mode", "DCR")
    if mode not in ("DCR", "CRD"):
        node.fail(f"mode '{mode}' is not one of DCR, CRD", "mode")
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).permute(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(node, inputs):
    x, b = inputs[0], node.attr("blocksize")
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def _gather_elements(node, inputs):
    x, index = inputs
    if not is_const(index):
        node.fail("the indices must be a constant")
    axis = _axis(node.attr("axis", 0), x.ndim)
    index = np.where(index < 0, index + x.shape[axis], index)
    return pyasc.gather(x, axis, const_tensor(node, index))


def _concat(node, inputs):
    like = _traced_of(inputs)
    return pyasc.cat([const_tensor(node, v, like) if is_const(v) else v for v in inputs], node.attr("axis"))


def _split(node, inputs):
    x = inputs[0]
    axis = _axis(node.attr("axis", 0), x.ndim)
    sizes = node.attr("split")
    if len(inputs) > 1 and inputs[1] is not None:
        sizes = ints(inputs[1])
    if sizes is None:
        n = node.attr("num_outputs", node.n_outputs)
        each = -(-x.shape[axis] // n)
        sizes = [min(each, x.shape[axis] - i * each) for i in range(n)]
    return list(pyasc.split(x, list(sizes), axis))


def _slice(node, inputs):
    x = inputs[0]
    if not all(is_const(v) for v in inputs[1:] if v is not None):
        node.fail("starts, ends, axes and steps must be constants")
    starts, ends = ints(inputs[1]), ints(inputs[2])
    axes = ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else list(range(len(starts)))
    steps = ints(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = _axis(a, x.ndim)
        n = x.shape[a]
        index[a] = slice(*slice(s, e, st).indices(n))
        if index[a].stop < 0:
            index[a] = slice(index[a].start, None, index[a].step)
    return x[tuple(index)]


def _gather(node, inputs):
    data, indices = inputs
    axis = node.attr("axis", 0)
    if not is_const(data) and is_const(indices):
        axis = _axis(axis, data.ndim)
        n = data.shape[axis]
        idx = np.where(indices < 0, indices + n, indices)
        if idx.ndim == 0:
            index = [slice(None)] * data.ndim
            index[axis] = int(idx)
            return data[tuple(index)]
        if idx.ndim != 1:
            node.fail(f"constant indices of rank {idx.ndim} on a computed tensor are not supported")
        return take(data, axis, idx)
    if is_const(data) and not is_const(indices) and axis == 0 and data.ndim == 2:
        # an embedding lookup: one-hot rows times the table (a matrix product on the cube unit)
        vocab = np.arange(data.shape[0], dtype=np.int32)
        hot = pyasc.cast(pyasc.eq(pyasc.unsqueeze(indices, -1), pyasc.tensor(vocab)), dtype=node.float_dtype)
        return pyasc.matmul(hot.reshape(-1, data.shape[0]) if hot.ndim > 3 else hot,
                            const_tensor(node, data)).reshape(*indices.shape, data.shape[1])
    return node.fail("only a constant table indexed by computed indices (axis 0, 2-D) or constant "
                     "indices into a computed tensor are supported")


# ------------------------------------------------------------------------------------- linear algebra

def _matmul(node, inputs):
    a, b = (const_tensor(node, v) if is_const(v) else v for v in inputs)
    if a.ndim < 2 or b.ndim < 2:
        node.fail(f"operands of rank {a.ndim} and {b.ndim} are not supported (rank >= 2)")
    if a.ndim <= 3 and b.ndim == 2 or a.ndim == b.ndim <= 3:
        return pyasc.matmul(a, b)
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    if tuple(a.shape[:-2]) != batch or tuple(b.shape[:-2]) not in (batch, ()):
        node.fail(f"batch dims of {a.shape} and {b.shape} must agree")
    m, n = a.shape[-2], b.shape[-1]
    a3 = a.reshape(-1, m, a.shape[-1])
    b3 = b if b.ndim == 2 else b.reshape(-1, *b.shape[-2:])
    return pyasc.matmul(a3, b3).reshape(*batch, m, n)


def _gemm(node, inputs):
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    alpha, beta = node.attr("alpha", 1.0), node.attr("beta", 1.0)
    if node.attr("transA", 0):
        a = a.T if is_const(a) else pyasc.permute(a, 1, 0)
    if is_const(b):
        weight = const_tensor(node, b if node.attr("transB", 0) else b.T)
    else:
        weight = b if node.attr("transB", 0) else pyasc.permute(b, 1, 0)
    a = const_tensor(node, a) if is_const(a) else a
    bias = None
    if c is not None and is_const(c) and c.ndim <= 1 and c.size == weight.shape[0]:
        bias, c = const_tensor(node, c.reshape(-1) * (beta / alpha), a), None
    y = pyasc.linear(a, weight, bias)
    if alpha != 1.0:
        y = y * alpha
    if c is not None:
        y = y + (operand(node, c * beta, y) if is_const(c) else c * beta)
    return y


def _batch_norm(node, inputs):
    x, scale, shift, mean, var = inputs
    if node.attr("training_mode", 0):
        node.fail("training mode is not supported (inference only)", "training_mode")
    if not all(is_const(v) for v in (scale, shift, mean, var)):
        node.fail("scale, bias, mean and variance must be constants")
    k = scale / np.sqrt(var + node.attr("epsilon", 1e-5))
    shape = (-1,) + (1,) * (x.ndim - 2)
    return x * const_tensor(node, k.reshape(shape), x) + const_tensor(node, (shift - mean * k).reshape(shape), x)


def _layer_norm(node, inputs):
    x, scale = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    axis = _axis(node.attr("axis", -1), x.ndim)
    return pyasc.layer_norm(x, tuple(x.shape[axis:]), const_tensor(node, scale, x) if is_const(scale) else scale,
                            None if bias is None else const_tensor(node, bias, x) if is_const(bias) else bias,
                            eps=node.attr("epsilon", 1e-5))


# ------------------------------------------------------------------------------------- reductions

def _softmax(fn):
    return lambda node, inputs: fn(inputs[0], dim=node.attr("axis", -1))


# ------------------------------------------------------------------------------------- the table

OPS: dict[str, OnnxOp] = {
    **WINDOW_OPS,
    "BatchNormalization": _op(_batch_norm, "epsilon", "momentum", "training_mode", "spatial"),
    "Relu": _op(_unary(pyasc.relu)),
    "Clip": _op(_clip, "min", "max"),
    "LeakyRelu": _op(lambda node, inputs: pyasc.leaky_relu(inputs[0], node.attr("alpha", 0.01)), "alpha"),
    "Sigmoid": _op(_unary(pyasc.sigmoid)),
    "Tanh": _op(_unary(pyasc.tanh)),
    "Gelu": _op(_gelu, "approximate"),
    "Erf": _op(_unary(pyasc.erf)),
    "HardSigmoid": _op(_hard_sigmoid, "alpha", "beta"),
    "HardSwish": _op(_hard_swish),
    "Add": _op(_binary(pyasc.add)),
    "Sub": _op(_binary(pyasc.sub)),
    "Mul": _op(_binary(pyasc.mul)),
    "Div": _op(_binary(pyasc.div)),
    "Pow": _op(_binary(pyasc.pow)),
    "Sqrt": _op(_unary(pyasc.sqrt)),
    "Reciprocal": _op(lambda node, inputs: 1.0 / inputs[0]),
    "Exp": _op(_unary(pyasc.exp)),
    "Log": _op(_unary(pyasc.log)),
    "Neg": _op(_unary(pyasc.neg)),
    "Abs": _op(_unary(pyasc.abs)),
    "MatMul": _op(_matmul),
    "Gemm": _op(_gemm, "alpha", "beta", "transA", "transB"),
    "Reshape": _op(_reshape, "allowzero"),
    "Flatten": _op(_flatten, "axis"),
    "Transpose": _op(_transpose, "perm"),
    "Squeeze": _op(_squeeze, "axes"),
    "Unsqueeze": _op(_unsqueeze, "axes"),
    "Concat": _op(_concat, "axis"),
    "Split": _op(_split, "axis", "split", "num_outputs"),
    "Slice": _op(_slice),
    "Gather": _op(_gather, "axis"),
    "Softmax": _op(_softmax(pyasc.softmax), "axis"),
    "LogSoftmax": _op(_softmax(pyasc.log_softmax), "axis"),
    "LayerNormalization": _op(_layer_norm, "axis", "epsilon", "stash_type"),
    "Min": _op(_variadic(pyasc.minimum)),
    "Max": _op(_variadic(pyasc.maximum)),
    "Sum": _op(_variadic(pyasc.add)),
    "Mean": _op(_variadic(pyasc.add, mean=True)),
    "Elu": _op(_elu, "alpha"),
    "Selu": _op(_selu, "alpha", "gamma"),
    "Celu": _op(_celu, "alpha"),
    "PRelu": _op(_prelu),
    "Softplus": _op(_unary(pyasc.softplus)),
    "Softsign": _op(lambda node, inputs: inputs[0] / (pyasc.abs(inputs[0]) + 1.0)),
    "Mish": _op(_unary(pyasc.mish)),
    "ThresholdedRelu": _op(lambda node, inputs: pyasc.where(inputs[0] > node.attr("alpha", 1.0), inputs[0], 0.0),
                           "alpha"),
    "Shrink": _op(_shrink, "bias", "lambd"),
    "Sign": _op(_unary(pyasc.sign)),
    "Floor": _op(_unary(pyasc.floor)),
    "Ceil": _op(_unary(pyasc.ceil)),
    "Round": _op(_unary(pyasc.round)),
    "Sin": _op(_unary(pyasc.sin)),
    "Cos": _op(_unary(pyasc.cos)),
    "Tan": _op(_unary(pyasc.tan)),
    "IsNaN": _op(_unary(pyasc.isnan)),
    "IsInf": _op(_is_inf, "detect_negative", "detect_positive"),
    "Mod": _op(_mod, "fmod"),
    "And": _op(_binary(pyasc.logical_and)),
    "Or": _op(_binary(pyasc.logical_or)),
    "Xor": _op(_binary(pyasc.logical_xor)),
    "LessOrEqual": _op(_binary(pyasc.le)),
    "GreaterOrEqual": _op(_binary(pyasc.ge)),
    "Tile": _op(_tile),
    "Trilu": _op(_trilu, "upper"),
    "DepthToSpace": _op(_depth_to_space, "blocksize", "mode"),
    "SpaceToDepth": _op(_space_to_depth, "blocksize"),
    "GatherElements": _op(_gather_elements, "axis"),
    **REDUCTION_OPS,
    **RECURRENT_OPS,
    **MORE_OPS,
    "Where": _op(_where),
    "Equal": _op(_binary(pyasc.eq)),
    "Less": _op(_binary(pyasc.lt)),
    "Greater": _op(_binary(pyasc.gt)),
    "Not": _op(_unary(pyasc.logical_not)),
    "Cast": _op(_cast, "to", "saturate"),
    "Shape": _op(_shape, "start", "end"),
    "Expand": _op(_expand),
    "Identity": _op(_pass_through),
    "Dropout": _op(_pass_through, "seed"),
    # folded at import whenever their inputs are constants (they never see a computed tensor)
    "Constant": _op(lambda node, inputs: node.fail("unreachable")),
    "ConstantOfShape": _op(lambda node, inputs: node.fail("the shape input must be computable at import"),
                           "value"),
}
"""ONNX op type -> conversion. Every op of the default domain also folds on constant inputs."""
