"""The decomposition of a floating depthwise ``asctensor.conv2d``, used by ``asctensor-decompose``.

A depthwise convolution (``groups`` = input channels = output channels) multiplies each channel by its
own ``KH x KW`` kernel: as a matmul it is one tiny product per channel, which leaves the cube almost
idle. It runs on the vector unit instead:

    col = im2col(x) (groups 1)            rows (kh, kw, c): one (N, C, OH*OW) slab per kernel position
    out = sum over p of col[:, p] * w[:, p] (+ bias)

in float32 (float16/bfloat16 widen exactly; the sum rounds once at the end, like the cube's float32
accumulator). The ``im2col`` becomes a gather kernel (``asctensor-fuse-matmul``); the products and
their sum, views of the patches and the weights, fuse into one elementwise kernel with what follows.

With stride 1 and rows of at least ``SHIFTED_MIN_COLS`` outputs, a kernel position's window is a slice of the
padded input, ``x_pad[:, :, kh*dh:, kw*dw:]`` (``OH x OW``, rows ``W + 2 * pw`` apart): the gather writes only
``x_pad`` (an ``im2col`` of a 1x1 kernel with the convolution's padding) instead of ``KH * KW`` windows, and the
elementwise kernel reads each window through its slice (the windows of one kernel column lie whole rows apart:
``tile-elementwise`` loads their rows once for all of them). Shorter rows make that kernel's tiles a few rows of
one image each, which cost more than the windows' gather (MobileNetV2's 7-column layers). With stride 2 (no
dilation, an even padded height and width) and rows of at least ``PHASED_MIN_COLS`` outputs, the gather writes
the padded input's four phases ``x_pad[:, :, a::2, b::2]`` (an ``im2col`` of a 2x2 kernel with stride 2) and
each window is a stride-1 slice of one phase (``_phase_windows``). The im2col form's tiles are rows of channels,
over which a weight is one value per row; up to ``SPREAD_MAX_PIXELS`` output positions the weights and the bias
are written out over their channel's positions (``_spread``, a kernel of their own, or one host evaluation for a
model's constant weights), so the products read them as whole tiles rather than a value per row.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, TensorType
from xdsl.ir import SSAValue

from pyasc.dialects import asctensor
from pyasc.dialects.types import is_float

from .emitter import exact_copy

SHIFTED_MIN_COLS = 12  # output columns from which a stride-1 depthwise convolution reads shifted slices
PHASED_MIN_COLS = 24  # output columns from which a stride-2 one reads slices of its input's phases
SPREAD_MAX_PIXELS = 256  # output positions up to which the im2col form's weights are written out per position


def is_depthwise(conv: asctensor.Conv2dOp) -> bool:
    """A floating convolution whose every output channel reads one input channel of its own."""
    _, c, _, _ = conv.input.type.get_shape()
    oc, cg, _, _ = conv.weight.type.get_shape()
    groups = conv.params()[3]
    return groups == c == oc and cg == 1 and c > 1 and is_float(conv.result.type.element_type)


def decompose_depthwise(b, conv: asctensor.Conv2dOp) -> SSAValue | None:
    """``conv`` as im2col and a sum of products (see the module docstring), or None if it is not depthwise."""
    if not is_depthwise(conv):
        return None
    stride, padding, dilation, _ = conv.params()
    n, c, _, _ = conv.input.type.get_shape()
    _, _, kh, kw = conv.weight.type.get_shape()
    _, _, oh, ow = conv.result.type.get_shape()
    et, f32 = conv.input.type.element_type, Float32Type()
    e, kk, pixels = b.e, kh * kw, oh * ow
    windows = None
    if ow >= SHIFTED_MIN_COLS and tuple(stride) == (1, 1):
        windows = _shifted_windows(e, conv, et)
    elif ow >= PHASED_MIN_COLS and _phased(conv):
        windows = _phase_windows(e, conv, et)
    if windows is None:
        col = e.value(asctensor.Im2colOp(conv.input, TensorType(et, [n, kk * c, pixels]), (kh, kw), stride, padding,
                                         dilation, 1))
        col = e.value(asctensor.ReshapeOp(col, [n, kk, c, pixels]))
    # the weight as (kernel position, channel), float32: each position's weights are one contiguous row
    weight = e.value(asctensor.ReshapeOp(conv.weight, [c, kk]))
    weight = b.cast(e.value(asctensor.TransposeOp(weight, [1, 0])), f32)
    shape = TensorType(f32, [n, c, oh, ow])
    bias = None if conv.bias is None else e.value(asctensor.ReshapeOp(conv.bias, [1, c, 1, 1]))
    spread = windows is None and pixels <= SPREAD_MAX_PIXELS
    if spread:  # the patches' tiles are rows of channels: each weight written out over its channel's positions
        weight = _spread(e, e.value(asctensor.ReshapeOp(weight, [kk, c, 1])), [kk, c, pixels])
        if bias is not None:  # (C, OH*OW): a shape of its own, so it is a tensor of its own at batch 1 too
            bias = _spread(e, e.value(asctensor.ReshapeOp(bias, [c, 1])), [c, pixels])
            bias = e.value(asctensor.ReshapeOp(bias, [1, c, oh, ow]))
    bias = None if bias is None else b.cast(bias, f32)
    acc = None
    for p in range(kk):
        if windows is None:
            patch = e.value(asctensor.SliceOp(col, [0, p, 0, 0], [n, 1, c, pixels]))
            patch = e.value(asctensor.ReshapeOp(patch, [n, c, oh, ow]))
        else:
            patch = windows[p]
        patch = b.cast(patch, f32)
        if spread:
            w = e.value(asctensor.ReshapeOp(e.value(asctensor.SliceOp(weight, [p, 0, 0], [1, c, pixels])),
                                            [1, c, oh, ow]))
        else:
            w = e.value(asctensor.ReshapeOp(e.value(asctensor.SliceOp(weight, [p, 0], [1, c])), [1, c, 1, 1]))
        term = b.mul(patch, _broadcast(e, w, shape))
        acc = term if acc is None else b.add(acc, term)
    if bias is not None:
        acc = b.add(acc, _broadcast(e, bias, shape))
    return b.cast(acc, conv.result.type.element_type)


def _shifted_windows(e, conv: asctensor.Conv2dOp, et) -> list[SSAValue]:
    """The windows of a stride-1 convolution, kernel position by kernel position, as slices of its padded
    input (see the module docstring)."""
    _, padding, dilation, _ = conv.params()
    n, c, h, w = conv.input.type.get_shape()
    _, _, kh, kw = conv.weight.type.get_shape()
    _, _, oh, ow = conv.result.type.get_shape()
    hp, wp = h + 2 * padding[0], w + 2 * padding[1]
    padded = conv.input
    if any(padding):
        padded = e.value(asctensor.Im2colOp(conv.input, TensorType(et, [n, c, hp * wp]), (1, 1), (1, 1), padding,
                                            (1, 1), 1))
    padded = e.value(asctensor.ReshapeOp(padded, [n, c, hp, wp]))
    return [e.value(asctensor.SliceOp(padded, [0, 0, i * dilation[0], j * dilation[1]], [n, c, oh, ow]))
            for i in range(kh) for j in range(kw)]


def _broadcast(e, v: SSAValue, t: TensorType) -> SSAValue:
    return v if v.type == t else e.value(asctensor.BroadcastOp(v, t))


def _spread(e, v: SSAValue, shape: list[int]) -> SSAValue:
    """``v`` broadcast to ``shape`` and written out (an exact copy: a tensor of its own, not a view)."""
    out = e.value(asctensor.BroadcastOp(v, TensorType(v.type.element_type, shape)))
    for op in exact_copy(out):
        out = e.value(op) if op.results else out
    return out


def _phased(conv: asctensor.Conv2dOp) -> bool:
    """A stride-2 convolution without dilation whose padded input has an even height and width."""
    stride, padding, dilation, _ = conv.params()
    _, _, h, w = conv.input.type.get_shape()
    return tuple(stride) == (2, 2) and tuple(dilation) == (1, 1) and (h + 2 * padding[0]) % 2 == 0 \
        and (w + 2 * padding[1]) % 2 == 0


def _phase_windows(e, conv: asctensor.Conv2dOp, et) -> list[SSAValue]:
    """The windows of a stride-2 convolution (``_phased``) as slices of its padded input's four phases: the
    ``im2col`` of a 2x2 kernel with stride 2 (and the convolution's padding) writes ``x_pad[:, :, a::2, b::2]``
    for each ``(a, b)``, once, and the window of kernel position ``(i, j)`` is phase ``(i % 2, j % 2)`` from row
    ``i // 2`` and column ``j // 2``: a stride-1 slice, like ``_shifted_windows``'s."""
    _, padding, _, _ = conv.params()
    n, c, h, w = conv.input.type.get_shape()
    _, _, kh, kw = conv.weight.type.get_shape()
    _, _, oh, ow = conv.result.type.get_shape()
    hh, wh = (h + 2 * padding[0]) // 2, (w + 2 * padding[1]) // 2
    phases = e.value(asctensor.Im2colOp(conv.input, TensorType(et, [n, 4 * c, hh * wh]), (2, 2), (2, 2), padding,
                                        (1, 1), 1))
    phases = e.value(asctensor.ReshapeOp(phases, [n, 4 * c, hh, wh]))
    return [e.value(asctensor.SliceOp(phases, [0, ((i % 2) * 2 + j % 2) * c, i // 2, j // 2], [n, c, oh, ow]))
            for i in range(kh) for j in range(kw)]
