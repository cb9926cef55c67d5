"""The ONNX operators over windows: ``Conv``, ``MaxPool``, ``AveragePool``, ``GlobalAveragePool`` and ``Pad``.

Pads are ONNX's ``[x1_begin, x2_begin, x1_end, x2_end]``, given or derived from ``auto_pad``: ``SAME_UPPER`` and
``SAME_LOWER`` pad so that the output has ``ceil(input / stride)`` positions, the odd pad at the end or at the
beginning. Pads the same on both sides are the convolution's own padding; the rest is written out first by
``pad`` (zeros for a convolution and an average, and a maximum ignores padding positions).
"""

from __future__ import annotations

import numpy as np

import pyasc
from pyasc.ops_pad import pad_dims

from .onnx_common import _axis, _op, const_tensor, ints, is_const, scalar, take

_AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "wrap": "circular"}


def spatial_pads(node, sizes, kernel, strides, dilations) -> list[int]:
    """The node's pads, ``[begins..., ends...]``, from ``pads`` or ``auto_pad``."""
    auto = node.attr("auto_pad", "NOTSET")
    if auto not in _AUTO_PADS:
        node.fail(f"value '{auto}' is not one of {', '.join(_AUTO_PADS)}", "auto_pad")
    if auto == "VALID":
        return [0] * (2 * len(sizes))
    if auto == "NOTSET":
        pads = list(node.attr("pads", [0] * (2 * len(sizes))))
        if len(pads) != 2 * len(sizes) or any(p < 0 for p in pads):
            node.fail(f"pads {pads} must be {2 * len(sizes)} values of at least 0", "pads")
        return pads
    begins, ends = [], []
    for n, k, s, d in zip(sizes, kernel, strides, dilations):
        out = -(-n // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - n)
        small, large = total // 2, total - total // 2
        begins.append(small if auto == "SAME_UPPER" else large)
        ends.append(large if auto == "SAME_UPPER" else small)
    return begins + ends


def _zero_padded(x, pads: list[int], keep: list[int] | None = None):
    """``x`` (NCHW) padded by zeros by ``pads`` less ``keep`` (the same at both ends of each axis)."""
    keep = keep or [0, 0]
    extra = {2 + i: (pads[i] - keep[i], pads[i + 2] - keep[i]) for i in range(2)}
    if not any(lo or hi for lo, hi in extra.values()):
        return x
    return pad_dims(x, extra, "constant", 0.0)


def _conv(node, inputs):
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    if x.ndim != 4:
        node.fail(f"only 2-D convolutions (NCHW input) are supported, got an input of shape {x.shape}")
    strides, dilations = list(node.attr("strides", [1, 1])), list(node.attr("dilations", [1, 1]))
    pads = spatial_pads(node, x.shape[2:], w.shape[2:], strides, dilations)
    both = [min(pads[i], pads[i + 2]) for i in range(2)]  # the convolution's own padding; the rest written out
    w = const_tensor(node, w, x) if is_const(w) else w
    bias = const_tensor(node, bias, x) if bias is not None and is_const(bias) else bias
    return pyasc.conv2d(_zero_padded(x, pads, both), w, bias, stride=tuple(strides), padding=tuple(both),
                        dilation=tuple(dilations), groups=node.attr("group", 1))


def _conv_transpose(node, inputs):
    """A 1-D or 2-D ``ConvTranspose`` (``conv_transpose2d`` over one row for 1-D): explicit ``pads`` or an
    ``output_shape`` (its padding split as ONNX splits it without ``auto_pad``)."""
    x, w = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    if x.ndim not in (3, 4):
        node.fail(f"only 1-D and 2-D transposed convolutions are supported, got an input of shape {x.shape}")
    if node.attr("auto_pad", "NOTSET") != "NOTSET":
        node.fail("is not supported (give pads or output_shape)", "auto_pad")
    rank = x.ndim - 2
    lift = (lambda v: [1] + list(v)) if rank == 1 else list  # 1-D as a row
    w = const_tensor(node, w, x) if is_const(w) else w
    bias = const_tensor(node, bias, x) if bias is not None and is_const(bias) else bias
    if rank == 1:
        x, w = x.unsqueeze(-2), w.unsqueeze(-2)
    k = list(w.shape[2:])
    s, d = lift(node.attr("strides", [1] * rank)), lift(node.attr("dilations", [1] * rank))
    extra = [0] + list(node.attr("output_padding", [0])) if rank == 1 else list(node.attr("output_padding", [0, 0]))
    pads = list(node.attr("pads", [0] * 2 * rank))
    pads = [0, pads[0], 0, pads[1]] if rank == 1 else pads
    shape = node.attr("output_shape")
    if shape is not None:
        shape = lift(shape[-rank:])
        total = [s[i] * (x.shape[2 + i] - 1) + extra[i] + (k[i] - 1) * d[i] + 1 - shape[i] for i in range(2)]
        if min(total) < 0:
            node.fail(f"output_shape {list(shape)} is larger than the transposed convolution gives", "output_shape")
        pads = [total[0] - total[0] // 2, total[1] - total[1] // 2, total[0] // 2, total[1] // 2]
    out = pyasc.nn.functional.conv_transpose2d(x, w, bias, tuple(s), 0, tuple(extra), node.attr("group", 1),
                                               tuple(d), pads=tuple(pads))
    return out.squeeze(-2) if rank == 1 else out


def _global_average_pool(node, inputs):
    x = inputs[0]
    return pyasc.mean(x, dim=tuple(range(2, x.ndim)), keepdim=True)


def _pool_geometry(node, x):
    """(kernel, strides, dilations, pads, output sizes) of a 2-D pooling node, after its checks."""
    if x.ndim != 4:
        node.fail(f"only 2-D pooling (NCHW input) is supported, got an input of shape {x.shape}")
    if node.attr("storage_order", 0):
        node.fail("column-major indices are not supported", "storage_order")
    if node.n_outputs > 1:
        node.fail("the Indices output is not supported")
    k = list(node.attr("kernel_shape"))
    s, d = list(node.attr("strides", [1, 1])), list(node.attr("dilations", [1, 1]))
    p = spatial_pads(node, x.shape[2:], k, s, d)
    ceil = bool(node.attr("ceil_mode", 0))
    outs = []
    for i in range(2):
        span = x.shape[2 + i] + p[i] + p[i + 2] - d[i] * (k[i] - 1) - 1
        n_out = (-(-span // s[i]) if ceil else span // s[i]) + 1
        if ceil and (n_out - 1) * s[i] >= x.shape[2 + i] + p[i]:  # a last window starting in the end padding
            n_out -= 1
        if n_out < 1:
            node.fail(f"the kernel {k} does not fit the input {list(x.shape)} with pads {p}", "kernel_shape")
        outs.append(n_out)
    return k, s, d, p, outs


def _window_indices(x, k, s, d, p, outs):
    """Per spatial axis and kernel offset, the input indices of every output position (padding positions are
    replaced by an index of the same window, which a maximum ignores)."""
    out = []
    for i in range(2):
        n = x.shape[2 + i]
        base = np.arange(outs[i]) * s[i] - p[i]
        first = np.clip(base, 0, n - 1)  # the first in-range index of each window stands in for its padding
        out.append([np.where((base + o * d[i] >= 0) & (base + o * d[i] < n), base + o * d[i], first)
                    for o in range(k[i])])
    return out


def _separable(x, rows, cols, combine):
    """A window reduction, separable: over the rows of each window, then over its columns."""
    y = None
    for r in rows:
        v = take(x, 2, r)
        y = v if y is None else combine(y, v)
    out = None
    for c in cols:
        v = take(y, 3, c)
        out = v if out is None else combine(out, v)
    return out


def _max_pool(node, inputs):
    """``max_pool2d`` when the pads are the same on both sides and at most half the kernel (as PyTorch's), else
    the separable window maxima."""
    x = inputs[0]
    k, s, d, p, outs = _pool_geometry(node, x)
    if p[:2] == p[2:] and all(2 * p[i] <= k[i] for i in range(2)) and not node.attr("ceil_mode", 0):
        return pyasc.nn.functional.max_pool2d(x, tuple(k), tuple(s), tuple(p[:2]), tuple(d))
    return _separable(x, *_window_indices(x, k, s, d, p, outs), pyasc.maximum)


def _average_pool(node, inputs):
    """Window sums of the zero-padded input over the number of elements each window averages: all of the kernel
    with ``count_include_pad``, else those inside the input."""
    x = inputs[0]
    if node.attr("ceil_mode", 0):
        node.fail("ceil_mode=1 is not supported", "ceil_mode")
    k, s, d, p, outs = _pool_geometry(node, x)
    padded = _zero_padded(x, p)
    rows, cols = _window_indices(padded, k, s, d, [0, 0], outs)
    total = _separable(padded, rows, cols, pyasc.add)
    if node.attr("count_include_pad", 0) or not any(p):
        return total * (1.0 / (k[0] * k[1]))
    valid = [np.array([[0 <= j - p[i] < x.shape[2 + i] for j in r] for r in axis]).sum(axis=0)
             for i, axis in enumerate((rows, cols))]
    return total * const_tensor(node, (1.0 / np.outer(valid[0], valid[1])).astype(np.float32), x)


def _pad(node, inputs):
    """ONNX ``Pad`` (modes constant, reflect, edge and wrap; pads, value and axes as inputs, or the pads and value
    attributes of opsets before 11)."""
    x = inputs[0]
    mode = node.attr("mode", "constant")
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode not in _PAD_MODES:
        node.fail(f"mode '{mode}' is not one of {', '.join(_PAD_MODES)}", "mode")
    if len(inputs) > 1:
        if not all(is_const(v) for v in inputs[1:] if v is not None):
            node.fail("pads, constant_value and axes must be constants")
        pads = ints(inputs[1])
        value = scalar(node, inputs[2], "constant_value") if len(inputs) > 2 and inputs[2] is not None else 0.0
        axes = ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else list(range(x.ndim))
    else:
        pads, value, axes = list(node.attr("pads", [])), node.attr("value", 0.0), list(range(x.ndim))
    if len(pads) != 2 * len(axes):
        node.fail(f"pads {pads} must hold 2 values for each of the {len(axes)} axes")
    if not x.dtype.is_floating_point:
        value = int(value)
    by_axis = {_axis(a, x.ndim): (pads[i], pads[i + len(axes)]) for i, a in enumerate(axes)}
    return pad_dims(x, by_axis, _PAD_MODES[mode], value if mode == "constant" else None)


WINDOW_OPS = {
    "Conv": _op(_conv, "group", "dilations", "pads", "strides", "kernel_shape", "auto_pad"),
    "ConvTranspose": _op(_conv_transpose, "auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                         "output_shape", "pads", "strides"),
    "GlobalAveragePool": _op(_global_average_pool),
    "AveragePool": _op(_average_pool, "kernel_shape", "strides", "pads", "auto_pad", "ceil_mode",
                       "count_include_pad"),
    "MaxPool": _op(_max_pool, "kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode",
                   "storage_order"),
    "Pad": _op(_pad, "mode", "pads", "value"),
}
"""ONNX op type -> conversion, for the ops over windows."""
