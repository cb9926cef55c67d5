"""More of ``torch.nn.functional``, each a composition of ops of the table (``COMPOSITE``), so it compiles inside
``pyasc.jit`` and differentiates: ``scaled_dot_product_attention`` (masks, causal, scale, grouped heads),
``conv1d`` (a ``conv2d`` of one row), ``adaptive_max_pool2d`` (PyTorch's adaptive bands), and ``diag_embed``.
Their values, dtypes and errors follow PyTorch's."""

from __future__ import annotations

import math
import numbers

from . import dtypes as dt
from .args import tensor_operand
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
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


def _bands_max(x: Tensor, axis: int, n_out: int) -> Tensor:
    """The max over PyTorch's adaptive bands of ``axis``: band i is [floor(i n / n_out), ceil((i + 1) n / n_out))."""
    n = x.shape[axis]
    if n % n_out == 0:  # equal bands: one reduction of the bands split out
        a = x.ndim + axis
        shape = list(x.shape)
        shape[a:a + 1] = [n_out, n // n_out]
        return x.reshape(shape).amax(a + 1)
    parts = []
    for i in range(n_out):
        lo, hi = (i * n) // n_out, -(-((i + 1) * n) // n_out)
        index = tuple(slice(lo, hi) if a == x.ndim + axis else slice(None) for a in range(x.ndim))
        parts.append(x[index].amax(axis, keepdim=True))
    return parts[0] if len(parts) == 1 else _op("cat")(parts, axis)


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
    return _bands_max(_bands_max(x, -2, oh), -1, ow)


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


_FUNCTIONS = [scaled_dot_product_attention, conv1d, adaptive_max_pool2d, diag_embed]

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=False) for f in _FUNCTIONS]
