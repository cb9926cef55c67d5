"""More ONNX operators on computed tensors: the inverse trigonometric and hyperbolic functions, the bitwise ops,
``Einsum``, ``Hardmax``, ``LpNormalization``, ``MeanVarianceNormalization``, ``GlobalMaxPool``, ``Size``,
``EyeLike``, ``QuantizeLinear`` and ``DequantizeLinear`` (int8, and uint8 carried as int32; per tensor or per
axis), and ``Resize`` (the modes PyTorch's ``interpolate`` exports: nearest with asymmetric coordinates
rounded down, and linear with half-pixel or corner-aligned coordinates, over the last two dims)."""

from __future__ import annotations

import numpy as np
from onnx import helper

import pyasc

from .onnx_common import Node, _axis, _op, is_const, ints


def _unary(fn):
    return lambda node, inputs: fn(inputs[0])


def _bitwise(fn):
    return lambda node, inputs: fn(*(pyasc.tensor(v.astype(np.int32)) if is_const(v) else v for v in inputs))


def _einsum(node: Node, inputs):
    return pyasc.einsum(node.attr("equation"), *inputs)


def _hardmax(node: Node, inputs):
    """1 at the first maximum along ``axis``, 0 elsewhere."""
    x = inputs[0]
    axis = _axis(node.attr("axis", -1), x.ndim)
    first = pyasc.argmax(x, dim=axis, keepdim=True)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    positions = pyasc.arange(x.shape[axis]).reshape(shape)
    return pyasc.where(positions == first, 1.0, 0.0).to(x.dtype)


def _lp_normalization(node: Node, inputs):
    x = inputs[0]
    p, axis = node.attr("p", 2), _axis(node.attr("axis", -1), x.ndim)
    if p not in (1, 2):
        node.fail(f"value {p} is not supported (1, 2)", "p")
    norm = (pyasc.abs(x).sum(axis, keepdim=True) if p == 1
            else pyasc.sqrt((x * x).sum(axis, keepdim=True)))
    return x / norm


def _mean_variance_normalization(node: Node, inputs):
    """``(x - mean) / (sqrt(mean((x - mean)^2)) + 1e-9)`` over ``axes`` (ONNX's function body)."""
    x = inputs[0]
    axes = tuple(_axis(a, x.ndim) for a in node.attr("axes", [0, 2, 3]))
    centered = x - x.mean(axes, keepdim=True)
    return centered / (pyasc.sqrt((centered * centered).mean(axes, keepdim=True)) + 1e-9)


def _global_max_pool(node: Node, inputs):
    x = inputs[0]
    return x.amax(tuple(range(2, x.ndim)), keepdim=True)


def _size(node: Node, inputs):
    return np.array(inputs[0].numel(), np.int64)


def _eye_like(node: Node, inputs):
    x = inputs[0]
    if x.ndim != 2:
        node.fail(f"expects a 2-d input, got shape {x.shape}")
    to = node.attr("dtype")
    dtype = helper.tensor_dtype_to_np_dtype(to) if to is not None else np.float32
    return np.eye(*x.shape, k=node.attr("k", 0), dtype=dtype)


_QUANTIZED = {np.dtype(np.int8): (-128, 127, pyasc.int8), np.dtype(np.uint8): (0, 255, pyasc.int32)}


def _per_axis(node: Node, v, x, axis: int):
    """A scale or zero point as an operand on ``x``: one number, or one value per index of ``axis``."""
    a = np.asarray(v, np.float32)
    if a.size == 1:
        return float(a.reshape(-1)[0])
    if a.ndim != 1 or a.size != x.shape[axis]:
        node.fail(f"a scale or zero point of shape {a.shape} does not match axis {axis} of {x.shape}", "axis")
    shape = [1] * x.ndim
    shape[axis] = a.size
    return pyasc.tensor(a.reshape(shape))


def _quantization(node: Node, inputs):
    """(scale, zero point, its dtype's range and pyasc dtype) of a ``QuantizeLinear`` or ``DequantizeLinear``: per
    tensor or per ``axis``; int8, or uint8 carried as int32."""
    x, scale = inputs[0], inputs[1]
    zero = inputs[2] if len(inputs) > 2 and inputs[2] is not None else np.zeros((), np.uint8)
    if node.attr("block_size", 0):
        node.fail("is not supported", "block_size")
    if node.attr("output_dtype", 0):
        node.fail("is not supported (the zero point's type is the output's)", "output_dtype")
    if not is_const(scale) or not is_const(zero):
        node.fail("the scale and zero point must be constants")
    if np.asarray(zero).dtype not in _QUANTIZED:
        node.fail(f"a zero point of type {np.asarray(zero).dtype} is not supported (int8, uint8)")
    axis = _axis(node.attr("axis", 1), x.ndim)
    return _per_axis(node, scale, x, axis), _per_axis(node, zero, x, axis), _QUANTIZED[np.asarray(zero).dtype]


def _quantize_linear(node: Node, inputs):
    """``saturate(round(x / scale) + zero_point)``, rounding half to even."""
    scale, zero, (lo, hi, dtype) = _quantization(node, inputs)
    return pyasc.clamp(pyasc.round(inputs[0] / scale) + zero, lo, hi).to(dtype)


def _dequantize_linear(node: Node, inputs):
    """``(x - zero_point) * scale``."""
    scale, zero, _ = _quantization(node, inputs)
    return (inputs[0].to(pyasc.float32) - zero) * scale


_NEAREST = ("asymmetric", "floor")             # PyTorch's nearest
_LINEAR = {"half_pixel": False, "pytorch_half_pixel": False, "align_corners": True}


def _resize(node: Node, inputs):
    x = inputs[0]
    scales = inputs[2] if len(inputs) > 2 else None
    sizes = inputs[3] if len(inputs) > 3 else None
    for v, what in ((scales, "scales"), (sizes, "sizes")):
        if v is not None and not is_const(v):
            node.fail(f"the {what} input must be a constant")
    scales = None if scales is None or scales.size == 0 else [float(s) for s in np.asarray(scales).reshape(-1)]
    sizes = None if sizes is None or sizes.size == 0 else ints(sizes)
    if x.ndim != 4 or (scales is None) == (sizes is None):
        node.fail(f"expects a 4-d input and one of scales and sizes, got shape {x.shape}")
    lead = scales[:2] if scales is not None else [s / n for s, n in zip(sizes[:2], x.shape[:2])]
    if lead != [1.0, 1.0]:
        node.fail("only the last two dims can be resized")
    for attr in ("antialias", "exclude_outside"):
        if node.attr(attr, 0):
            node.fail("is not supported", attr)
    mode = node.attr("mode", "nearest")
    coordinates = node.attr("coordinate_transformation_mode", "half_pixel")
    rounding = node.attr("nearest_mode", "round_prefer_floor")
    size = dict(size=tuple(sizes[2:])) if sizes is not None else dict(scale_factor=tuple(scales[2:]))
    if mode == "nearest":
        if (coordinates, rounding) != _NEAREST:
            node.fail(f"nearest resizing with {coordinates} coordinates rounded {rounding} is not supported "
                      "(asymmetric, floor)", "coordinate_transformation_mode")
        return pyasc.nn.functional.interpolate(x, mode="nearest", **size)
    if mode == "linear":
        if coordinates not in _LINEAR:
            node.fail(f"linear resizing with {coordinates} coordinates is not supported "
                      f"({', '.join(_LINEAR)})", "coordinate_transformation_mode")
        return pyasc.nn.functional.interpolate(x, mode="bilinear", align_corners=_LINEAR[coordinates], **size)
    node.fail(f"value '{mode}' is not supported (nearest, linear)", "mode")


MORE_OPS = {
    "Asin": _op(_unary(pyasc.asin)), "Acos": _op(_unary(pyasc.acos)), "Atan": _op(_unary(pyasc.atan)),
    "Sinh": _op(_unary(pyasc.sinh)), "Cosh": _op(_unary(pyasc.cosh)), "Asinh": _op(_unary(pyasc.asinh)),
    "Acosh": _op(_unary(pyasc.acosh)), "Atanh": _op(_unary(pyasc.atanh)),
    "BitwiseAnd": _op(_bitwise(pyasc.bitwise_and)), "BitwiseOr": _op(_bitwise(pyasc.bitwise_or)),
    "BitwiseXor": _op(_bitwise(pyasc.bitwise_xor)), "BitwiseNot": _op(_bitwise(pyasc.bitwise_not)),
    "Einsum": _op(_einsum, "equation"),
    "Hardmax": _op(_hardmax, "axis"),
    "LpNormalization": _op(_lp_normalization, "axis", "p"),
    "MeanVarianceNormalization": _op(_mean_variance_normalization, "axes"),
    "GlobalMaxPool": _op(_global_max_pool),
    "Size": _op(_size),
    "EyeLike": _op(_eye_like, "dtype", "k"),
    "QuantizeLinear": _op(_quantize_linear, "axis", "block_size", "output_dtype", "saturate"),
    "DequantizeLinear": _op(_dequantize_linear, "axis", "block_size"),
    "Resize": _op(_resize, "mode", "coordinate_transformation_mode", "nearest_mode", "antialias", "cubic_coeff_a",
                  "exclude_outside", "extrapolation_value"),
}
"""ONNX op type -> conversion, for the ops of this module."""
