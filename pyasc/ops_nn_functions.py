"""More of ``torch.nn.functional``, each a composition of ops of the table (``COMPOSITE``), so it compiles inside
``pyasc.jit`` and differentiates: ``scaled_dot_product_attention`` (masks, causal, scale, grouped heads),
``conv1d`` (a ``conv2d`` of one row), ``conv_transpose2d`` and ``conv_transpose1d`` (a convolution of the input
spread by the stride), ``adaptive_max_pool2d`` (PyTorch's adaptive bands), and ``diag_embed``.
Their values, dtypes and errors follow PyTorch's."""

from __future__ import annotations

import math
import numbers

from . import dtypes as dt
from .args import tensor_operand
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
from .ops_pool import adaptive_bands
from .tensor import Tensor


def _op(name):
    from .ops import get_op

    return get_op(name)


def _positions(n: int, unsqueeze: int) -> Tensor:
    """0..n-1 as int32, shaped to broadcast along ``unsqueeze``."""
    from .creation import arange

    return arange(n, dtype=dt.int32).unsqueeze(unsqueeze)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q k^T * scale + mask) v`` over the last two dims, as PyTorch's: ``scale`` 1/sqrt(E) by default; a
    bool ``attn_mask`` keeps where True, a float one is added; ``is_causal`` keeps the lower triangle (query i sees
    keys 0..i); with ``enable_gqa`` key and value heads are shared by groups of query heads. A row that sees no
    key is NaN, as in PyTorch. ``dropout_p`` must be 0 (inference)."""
    name = "scaled_dot_product_attention"
    q, k, v = (tensor_operand(name, t) for t in (query, key, value))
    shapes = [q.shape, k.shape, v.shape]
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise PyascError(name, "query, key and value must have at least 2 dims", shapes=shapes)
    if q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise PyascError(name, f"query {q.shape}, key {k.shape} and value {v.shape} do not match: the last dims of "
                         "query and key and the key and value lengths must agree", shapes=shapes)
    if dropout_p != 0.0:
        raise PyascError(name, f"dropout_p must be 0 (pyasc runs attention for inference), got {dropout_p}",
                         shapes=shapes)
    if is_causal and attn_mask is not None:
        raise PyascError(name, "attn_mask and is_causal cannot both be set", shapes=shapes)
    if enable_gqa and q.ndim >= 3 and k.ndim >= 3 and q.shape[-3] != k.shape[-3]:
        if q.shape[-3] % k.shape[-3]:
            raise PyascError(name, f"{q.shape[-3]} query heads are not a multiple of {k.shape[-3]} key heads",
                             shapes=shapes)
        groups = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(groups, dim=-3), v.repeat_interleave(groups, dim=-3)
    factor = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    scores = (q @ k.transpose(-2, -1)) * factor
    length, source = q.shape[-2], k.shape[-2]
    if is_causal:
        attn_mask = _positions(source, 0) <= _positions(length, 1)
    if attn_mask is not None:
        mask = tensor_operand(name, attn_mask)
        if mask.dtype is dt.bool_:
            scores = scores.masked_fill(~mask, -math.inf)
        else:
            scores = scores + mask
    return _op("softmax")(scores, -1) @ v


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """The convolution of ``(N, C, L)`` (or ``(C, L)``) with ``(OC, C / groups, K)`` weights: ``conv2d`` over one row.
    ``padding`` may be "valid" or "same", as in PyTorch."""
    x, w = tensor_operand("conv1d", input), tensor_operand("conv1d", weight)
    if x.ndim not in (2, 3) or w.ndim != 3:
        raise PyascError("conv1d", f"expected a 2-d (C, L) or 3-d (N, C, L) input and 3-d weights, got {x.shape} "
                         f"and {w.shape}", shapes=[x.shape, w.shape])

    def one(v, what):
        v = v[0] if isinstance(v, tuple | list) and len(v) == 1 else v
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise PyascError("conv1d", f"{what} must be an integer, got {v!r}", shapes=[x.shape, w.shape])
        return int(v)

    step, spread = one(stride, "stride"), one(dilation, "dilation")
    batched = x if x.ndim == 3 else x.unsqueeze(0)
    if padding == "valid":
        pad = 0
    elif padding == "same":  # the output as long as the input: the window's reach split, the odd one on the right
        if step != 1:
            raise PyascError("conv1d", "padding='same' is not supported for strided convolutions",
                             shapes=[x.shape, w.shape])
        reach = spread * (w.shape[-1] - 1)
        batched = _op("pad")(batched, (reach // 2, reach - reach // 2))
        pad = 0
    elif isinstance(padding, str):
        raise PyascError("conv1d", f"padding must be an integer, 'valid' or 'same', got {padding!r}",
                         shapes=[x.shape, w.shape])
    else:
        pad = one(padding, "padding")
    out = _op("conv2d")(batched.unsqueeze(-2), w.unsqueeze(-2), bias, (1, step), (0, pad), (1, spread),
                        groups).squeeze(-2)
    return out if x.ndim == 3 else out.squeeze(0)


def _pair(op: str, v, what: str, shapes) -> tuple[int, int]:
    v = tuple(v) if isinstance(v, tuple | list) else (v, v)
    if len(v) != 2 or any(isinstance(i, bool) or not isinstance(i, numbers.Integral) or i < 0 for i in v):
        raise PyascError(op, f"{what} must be a non-negative integer or a pair of them, got {v!r}", shapes=shapes)
    return int(v[0]), int(v[1])


def _spread(x: Tensor, step: int, dim: int) -> Tensor:
    """``x`` with ``step - 1`` zeros between neighbours along ``dim`` (-2 or -1)."""
    if step == 1:
        return x
    from .creation import zeros_like

    zeros = zeros_like(x)
    at = x.ndim + dim + 1
    stacked = _op("stack")([x] + [zeros] * (step - 1), at)
    shape = list(x.shape)
    shape[dim] *= step
    out = stacked.reshape(shape)
    index = [slice(None)] * x.ndim
    index[dim] = slice(0, (x.shape[dim] - 1) * step + 1)
    return out[tuple(index)]


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1, *, pads=None):
    """The transposed convolution of ``(N, C, H, W)`` (or ``(C, H, W)``) with ``(C, OC / groups, KH, KW)`` weights, as
    PyTorch's: the input spread by ``stride`` (zeros between its pixels), convolved at stride 1 with the weights
    flipped and their channel dims swapped per group, then cropped by ``padding`` and extended by
    ``output_padding``. ``pads`` (top, left, bottom, right) crops each side apart (ONNX's ``ConvTranspose``)."""
    op = "conv_transpose2d"
    x, w = tensor_operand(op, input), tensor_operand(op, weight)
    shapes = [x.shape, w.shape]
    if x.ndim not in (3, 4) or w.ndim != 4:
        raise PyascError(op, f"expected a 3-d or 4-d input and 4-d weights, got {x.shape} and {w.shape}",
                         shapes=shapes)
    batched = x if x.ndim == 4 else x.unsqueeze(0)
    s, extra, d = (_pair(op, v, what, shapes) for v, what in ((stride, "stride"), (output_padding, "output_padding"),
                                                               (dilation, "dilation")))
    p = _pair(op, padding, "padding", shapes)
    top, left, bottom, right = pads if pads is not None else (p[0], p[1], p[0], p[1])
    c, per_group, kh, kw = w.shape
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups < 1 or c % groups or \
            batched.shape[1] != c:
        raise PyascError(op, f"weights {w.shape} do not match the input's {batched.shape[1]} channels in {groups} "
                         "groups", shapes=shapes)
    if min(s) < 1 or min(d) < 1 or extra[0] >= max(s[0], d[0]) or extra[1] >= max(s[1], d[1]):
        raise PyascError(op, f"stride {s} and dilation {d} must be positive, and output_padding {extra} smaller "
                         "than one of them", shapes=shapes)
    # the equivalent convolution's weights: per group (OC / groups, C / groups), flipped in space
    flipped = w.reshape(groups, c // groups, per_group, kh, kw).transpose(1, 2).reshape(
        groups * per_group, c // groups, kh, kw).flip((2, 3))
    spread = _spread(_spread(batched, s[0], -2), s[1], -1)
    reach = (d[0] * (kh - 1), d[1] * (kw - 1))
    full = _op("conv2d")(spread, flipped, None, 1, reach, d, groups)
    h = (batched.shape[2] - 1) * s[0] + reach[0] + 1 + extra[0] - top - bottom
    wd = (batched.shape[3] - 1) * s[1] + reach[1] + 1 + extra[1] - left - right
    if h < 1 or wd < 1:
        raise PyascError(op, f"the output would be {h} x {wd}", shapes=shapes)
    grow = (max(0, top + h - full.shape[2]), max(0, left + wd - full.shape[3]))
    if any(grow):  # output_padding past the products: zeros
        full = _op("pad")(full, (0, grow[1], 0, grow[0]))
    out = full[:, :, top:top + h, left:left + wd]
    if bias is not None:
        out = out + tensor_operand(op, bias).reshape(1, -1, 1, 1)
    return out if x.ndim == 4 else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,  # noqa: A002
                     dilation=1):
    """``conv_transpose2d`` over one row: ``(N, C, L)`` (or ``(C, L)``) with ``(C, OC / groups, K)`` weights."""
    x, w = tensor_operand("conv_transpose1d", input), tensor_operand("conv_transpose1d", weight)
    if x.ndim not in (2, 3) or w.ndim != 3:
        raise PyascError("conv_transpose1d", f"expected a 2-d or 3-d input and 3-d weights, got {x.shape} and "
                         f"{w.shape}", shapes=[x.shape, w.shape])
    one = lambda v: v[0] if isinstance(v, tuple | list) and len(v) == 1 else v  # noqa: E731
    out = conv_transpose2d(x.unsqueeze(-2), w.unsqueeze(-2), bias, (1, one(stride)), (0, one(padding)),
                           (0, one(output_padding)), groups, (1, one(dilation)))
    return out.squeeze(-2)


def _amax(t: Tensor, dim: int, keepdim: bool) -> Tensor:
    return t.amax(dim, keepdim=keepdim)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """The max over PyTorch's adaptive windows of ``(N, C, H, W)`` or ``(C, H, W)``: ``output_size`` an integer or
    a pair (None keeps that dim)."""
    x = tensor_operand("adaptive_max_pool2d", input)
    if x.ndim not in (3, 4):
        raise PyascError("adaptive_max_pool2d", f"expects a 3-D (C, H, W) or 4-D (N, C, H, W) input, got {x.shape}",
                         shapes=[x.shape])
    if return_indices:
        raise PyascError("adaptive_max_pool2d", "return_indices is not supported", shapes=[x.shape])
    size = output_size if isinstance(output_size, tuple | list) else (output_size, output_size)
    if len(size) != 2 or any(s is not None and (isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 1)
                             for s in size):
        raise PyascError("adaptive_max_pool2d", f"output_size must be a positive integer or a pair of them (or None), "
                         f"got {output_size!r}", shapes=[x.shape])
    oh = x.shape[-2] if size[0] is None else int(size[0])
    ow = x.shape[-1] if size[1] is None else int(size[1])
    if 0 in x.shape[-2:]:
        raise PyascError("adaptive_max_pool2d", f"an empty image {x.shape} has no maximum", shapes=[x.shape])
    return adaptive_bands(adaptive_bands(x, -2, oh, _amax), -1, ow, _amax)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Matrices whose ``offset`` diagonal holds the last dim of ``input`` (zeros elsewhere), in its last two dims."""
    x = tensor_operand("diag_embed", input)
    rank = x.ndim + 1
    if (dim1 % rank, dim2 % rank) != (rank - 2, rank - 1):
        raise PyascError("diag_embed", f"only the last two dims (dim1=-2, dim2=-1) are supported, got dim1={dim1}, "
                         f"dim2={dim2}", shapes=[x.shape])
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):
        raise PyascError("diag_embed", f"offset must be an integer, got {offset!r}", shapes=[x.shape])
    k = int(offset)
    n = x.shape[-1] + abs(k)
    pad = (k, 0) if k >= 0 else (0, -k)
    row = _op("pad")(x, pad) if k else x                # row[j]: the value of column j on the diagonal
    on_diagonal = _positions(n, 0) - _positions(n, 1) == k
    return _op("where")(on_diagonal, row.unsqueeze(-2), 0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The sliding blocks of ``(N, C * KH * KW, L)`` (or without N) summed into ``(N, C) + output_size`` where
    they overlap: the inverse arrangement of ``unfold``."""
    x = tensor_operand("fold", input)
    size, k = _pair("fold", output_size, "output_size", [x.shape]), _pair("fold", kernel_size, "kernel_size", [x.shape])
    d, p, s = (_pair("fold", v, what, [x.shape]) for v, what in ((dilation, "dilation"), (padding, "padding"),
                                                                 (stride, "stride")))
    if x.ndim not in (2, 3) or 0 in k + d + s:
        raise PyascError("fold", f"expected a 2-d or 3-d input and positive kernel_size, dilation and stride, got "
                         f"shape {x.shape}", shapes=[x.shape])
    batched = x if x.ndim == 3 else x.unsqueeze(0)
    blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if batched.shape[1] % (k[0] * k[1]) or batched.shape[2] != blocks[0] * blocks[1] or min(blocks) <= 0:
        raise PyascError("fold", f"expected an input of shape (N, C * {k[0]} * {k[1]}, {max(blocks[0], 0)} * "
                         f"{max(blocks[1], 0)}) for output_size {size}, got {x.shape}", shapes=[x.shape])
    n, c = batched.shape[0], batched.shape[1] // (k[0] * k[1])
    cols = batched.reshape(n, c, k[0], k[1], blocks[0], blocks[1])
    height, width = size[0] + 2 * p[0], size[1] + 2 * p[1]
    out = None
    for i in range(k[0]):
        for j in range(k[1]):
            block = _spread(_spread(cols[:, :, i, j], s[0], -2), s[1], -1)
            top, left = i * d[0], j * d[1]
            placed = _op("pad")(block, (left, width - left - block.shape[-1], top, height - top - block.shape[-2]))
            out = placed if out is None else out + placed
    out = out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]]
    return out if x.ndim == 3 else out.squeeze(0)


def _lp_pool(name: str, pool, x, norm_type, kernel_size, stride, ceil_mode, window: int):
    x = tensor_operand(name, x)
    powered = x ** float(norm_type)
    out = pool(powered, kernel_size, kernel_size if stride is None else stride, 0, ceil_mode)
    return (_op("sign")(out) * _op("relu")(_op("abs")(out)) * float(window)) ** (1.0 / float(norm_type))


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """The ``norm_type``-power mean of each window times its size, to the power ``1 / norm_type``, as PyTorch's."""
    kh, kw = _pair("lp_pool2d", kernel_size, "kernel_size", [])
    return _lp_pool("lp_pool2d", _op("avg_pool2d"), input, norm_type, kernel_size, stride, ceil_mode, kh * kw)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """``lp_pool2d`` over the last dim."""
    k = kernel_size[0] if isinstance(kernel_size, list | tuple) else kernel_size
    return _lp_pool("lp_pool1d", _op("avg_pool1d"), input, norm_type, kernel_size, stride, ceil_mode, int(k))


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):  # noqa: A002
    """``x / (k + alpha * mean of x^2 over a window of size channels around each) ** beta``, the window
    zero-padded at the ends of the channel dim (dim 1)."""
    x = tensor_operand("local_response_norm", input)
    if x.ndim < 3:
        raise PyascError("local_response_norm", f"expected 3 or more dims, got shape {x.shape}", shapes=[x.shape])
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size <= 0:
        raise PyascError("local_response_norm", f"size must be a positive integer, got {size!r}", shapes=[x.shape])
    if not x.numel():
        return x * 1
    squares = (x * x).movedim(1, -1)
    padded = _op("pad")(squares, (size // 2, (size - 1) // 2))
    channels = x.shape[1]
    window = None
    for i in range(size):
        part = padded[..., i:i + channels]
        window = part if window is None else window + part
    div = (window.movedim(-1, 1) * (alpha / size) + k) ** beta
    return x / div


def bilinear(input1, input2, weight, bias=None):
    """``x1^T A_o x2 + b_o`` for each output feature ``o``: weight ``(out, in1, in2)``."""
    a, b, w = (tensor_operand("bilinear", t) for t in (input1, input2, weight))
    if w.ndim != 3 or a.shape[-1] != w.shape[1] or b.shape[-1] != w.shape[2] or a.shape[:-1] != b.shape[:-1]:
        raise PyascError("bilinear", f"expected inputs (..., {w.shape[1] if w.ndim == 3 else 'in1'}) and (..., "
                         f"{w.shape[2] if w.ndim == 3 else 'in2'}) of the same batch and a 3-d weight, got "
                         f"{a.shape}, {b.shape} and {w.shape}", shapes=[a.shape, b.shape, w.shape])
    left = _op("tensordot")(a, w, dims=([a.ndim - 1], [1]))  # (..., out, in2)
    out = (left * b.unsqueeze(-2)).sum(-1)
    return out if bias is None else out + tensor_operand("bilinear", bias)


_FUNCTIONS = [scaled_dot_product_attention, conv1d, conv_transpose1d, conv_transpose2d, adaptive_max_pool2d,
              diag_embed, fold, lp_pool2d, lp_pool1d, local_response_norm, bilinear]

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=False) for f in _FUNCTIONS]
