"""2-D pooling of NCHW (or CHW) tensors written with the device ops (``OpDef``s of kind
``composite``, each compiled as one program: ``fused.py``): ``max_pool2d``, ``avg_pool2d`` and
``adaptive_avg_pool2d``, as ``torch.nn.functional``.

A float16/float32 ``max_pool2d`` without dilation, ``return_indices`` or ``ceil_mode``'s extra windows is
``pool_max``, one ``asctensor.max_pool2d`` kernel (``tile-pool``: loads of the window's rows, their maximum,
and one gather per kernel column), when its gathers stay inside the windows (``analysis.pool``). Another
floating one gathers its windows with ``pool_windows``, one ``asctensor.im2col`` whose padding reads ``-inf``:
one gather kernel, whose ``kh * kw`` window slices the ``maximum``s read in one elementwise kernel. Otherwise a pool of a
``kh x kw`` window is ``kh * kw`` strided slices of the (padded) input combined by ``maximum`` or summed;
padding is a concat of -inf (max) or 0 (average) borders, and ``ceil_mode``'s last partial windows read
extra border rows and columns. ``max_pool2d`` takes ``dilation`` (spread-out slices) and
``return_indices`` (the flat index of each maximum in its input plane, carried along with the maximum by
``where``). The adaptive
average takes the mean of each band of rows, then of each band of columns (PyTorch's bands:
``floor(i * H / out)`` to ``ceil((i + 1) * H / out)``). Half inputs are summed in float32.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pyasc.dialects import asctensor

from . import dtypes as dt
from .args import tensor_operand
from .errors import PyascError, describe
from .fused import vjp_through, fused_op
from .opdef import COMPOSITE, DEVICE, OpDef, Types
from .ops_compare import EQ, GT, ISNAN, WHERE
from .ops_elementwise import BY_NAME as EW
from .ops_elementwise import CAST
from .ops_reduce import MEAN
from .tensor import Tensor
from .views import OPS as _VIEWS

ADD, MUL, DIV, MAXIMUM = (EW[n] for n in ("add", "mul", "div", "maximum"))
CAT = next(op for op in _VIEWS if op.name == "cat")
F32 = dt.float32


def _pair(name: str, what: str, v, allow_none: bool = False):
    if allow_none and v is None:
        return None
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return int(v), int(v)
    if isinstance(v, tuple | list) and len(v) == 2 and all(
            (isinstance(a, numbers.Integral) and not isinstance(a, bool)) or (allow_none and a is None) for a in v):
        return tuple(None if a is None else int(a) for a in v)
    raise PyascError(name, f"{what} must be an int or a pair of ints, got {describe(v)}")


def _image(name: str, x, integers: bool = False):
    x = tensor_operand(name, x)
    if x.ndim not in (3, 4):
        raise PyascError(name, f"expects a 3-D (C, H, W) or 4-D (N, C, H, W) input, got {x.shape}", shapes=[x.shape])
    if not x.dtype.is_floating_point and not (integers and x.dtype is dt.int32):
        raise PyascError(name, f"does not support dtype {x.dtype.name}", shapes=[x.shape],
                         dtypes=[x.dtype.name])
    return x


def _window_signature(name: str, average: bool):
    def signature(input, kernel_size, stride=None, padding=0, *args, **kwargs):  # noqa: A002
        x = _image(name, input, integers=not average)
        k = _pair(name, "kernel_size", kernel_size)
        s = k if stride is None or stride == [] else _pair(name, "stride", stride)
        p = _pair(name, "padding", padding)
        names = ("ceil_mode", "count_include_pad", "divisor_override") if average else \
            ("dilation", "ceil_mode", "return_indices")
        extra = dict(zip(names, args))
        unknown = set(kwargs) - set(names)
        if unknown:
            raise PyascError(name, f"got unexpected keyword argument(s) {sorted(unknown)}", shapes=[x.shape])
        extra.update(kwargs)
        d = _pair(name, "dilation", extra.get("dilation", 1))
        ceil = bool(extra.get("ceil_mode", False))
        if min(k) < 1 or min(s) < 1 or min(d) < 1 or min(p) < 0 or p[0] > k[0] // 2 or p[1] > k[1] // 2:
            raise PyascError(name, f"kernel_size {k}, stride {s} and dilation {d} must be positive and padding {p} "
                             "at most half the kernel size", shapes=[x.shape])
        out = tuple(_out_size(n, kk, ss, pp, dd, ceil) for n, kk, ss, pp, dd in zip(x.shape[-2:], k, s, p, d))
        if min(out) < 1:
            raise PyascError(name, f"the output size {out} is too small for input {x.shape}", shapes=[x.shape])
        attrs = {"kernel": k, "stride": s, "padding": p, "out": out}
        if average:
            attrs["count_include_pad"] = bool(extra.get("count_include_pad", True))
            attrs["divisor"] = extra.get("divisor_override")
        else:
            attrs["dilation"] = d
            attrs["indices"] = bool(extra.get("return_indices", False))
        return [x], attrs
    return signature


def _out_size(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    """PyTorch's pooled size: with ceil_mode a last partial window counts unless it would start
    in the bottom/right padding."""
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def _padded(x, before, after, value):
    """x with borders of ``value``: ``before[0]`` rows above, ``after[0]`` below, ``before[1]``
    and ``after[1]`` columns left and right. A border is computed from a slice of x (a concat joins
    computed tensors, not constants)."""
    for axis in (-2, -1):
        parts = []
        for n in (before[axis], after[axis]):
            border = None
            while n > 0:
                m = min(n, x.shape[axis])
                edge = x[..., :m, :] if axis == -2 else x[..., :m]
                piece = CAST(WHERE(ISNAN(edge) if edge.dtype.is_floating_point else EQ(edge, edge), value, value),
                             dtype=x.dtype)
                border = piece if border is None else CAT([border, piece], dim=x.ndim + axis)
                n -= m
            parts.append(border)
        if parts[0] is not None or parts[1] is not None:
            x = CAT([b for b in (parts[0], x, parts[1]) if b is not None], dim=x.ndim + axis)
    return x


def _extra(x, kernel, stride, padding, out, dilation=(1, 1)):
    """Rows and columns beyond the right/bottom padding that ceil_mode's last windows reach."""
    return tuple(max(0, (o - 1) * s + d * (k - 1) + 1 - (n + 2 * p))
                 for o, s, d, k, n, p in zip(out, stride, dilation, kernel, x.shape[-2:], padding))


def _windows(x, kernel, stride, out, dilation=(1, 1)):
    """``(i, j, window)`` for every kernel offset: the strided slice of the padded x it sees."""
    (kh, kw), (sh, sw), (oh, ow), (dh, dw) = kernel, stride, out, dilation
    for i in range(kh):
        for j in range(kw):
            yield i, j, x[..., i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]


def _windows_by_slices(x, kernel, stride, padding, dilation, fill):
    """``pool_windows`` as strided slices of the padded input (its gradient goes through these)."""
    out = tuple(_out_size(n, k, s, p, d, False) for n, k, s, p, d in zip(x.shape[-2:], kernel, stride, padding,
                                                                       dilation))
    xp = _padded(x, padding, padding, fill)
    parts = [win.reshape(x.shape[0], 1, x.shape[1], *out) for _, _, win in _windows(xp, kernel, stride, out, dilation)]
    return parts[0] if len(parts) == 1 else CAT(parts, dim=1)


def _pool_windows_signature(x, kernel, stride, padding, dilation, fill):
    return [x], {"kernel": kernel, "stride": stride, "padding": padding, "dilation": dilation, "fill": fill}


def _pool_windows_infer(operands, attrs) -> Types:
    x = operands[0]
    n, c, h, w = x.shape
    out = tuple(_out_size(size, k, s, p, d, False) for size, k, s, p, d in
                zip((h, w), attrs["kernel"], attrs["stride"], attrs["padding"], attrs["dilation"]))
    return Types(None, ((x.dtype, (n, attrs["kernel"][0] * attrs["kernel"][1], c, *out)),))


def _build_pool_windows(tr, values, types, attrs):
    d, shape = types.results[0]
    n, kk, c, oh, ow = shape
    col = tr.emit(asctensor.Im2colOp(values[0], d.tensor_type((n, kk * c, oh * ow)), attrs["kernel"],
                                     attrs["stride"], attrs["padding"], attrs["dilation"], 1, attrs["fill"]))
    return asctensor.ReshapeOp(col.results[0], list(shape))


def _reference_pool_windows(x, kernel, stride, padding, dilation, fill):
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    return np.stack([xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
                     for i in range(kh) for j in range(kw)], axis=1)


POOL_WINDOWS = OpDef(
    "pool_windows", _build_pool_windows, _reference_pool_windows, signature=_pool_windows_signature,
    infer=_pool_windows_infer, eager=DEVICE, kind=COMPOSITE, method=False, function=False,
    vjp=vjp_through(_windows_by_slices),
    doc="The kh x kw windows of an NCHW input as (N, kh * kw, C, OH, OW), the padding reading ``fill``.")


def _pool_max_signature(x, kernel, stride, padding):
    return [x], {"kernel": kernel, "stride": stride, "padding": padding}


def _pool_max_infer(operands, attrs) -> Types:
    n, c, h, w = operands[0].shape
    out = tuple(_out_size(size, k, s, p, 1, False) for size, k, s, p in
                zip((h, w), attrs["kernel"], attrs["stride"], attrs["padding"]))
    return Types(None, ((operands[0].dtype, (n, c, *out)),))


def _build_pool_max(tr, values, types, attrs):
    return asctensor.MaxPool2dOp(values[0], attrs["kernel"], attrs["stride"], attrs["padding"])


def _reference_pool_max(x, kernel, stride, padding):
    return np.max(_reference_pool_windows(x, kernel, stride, padding, (1, 1), -np.inf), axis=1)


def _pool_max_by_slices(x, kernel, stride, padding):
    out = tuple(_out_size(n, k, s, p, 1, False) for n, k, s, p in zip(x.shape[-2:], kernel, stride, padding))
    return _max_pool2d_by_slices(x, kernel, stride, padding, out, (1, 1), False)


POOL_MAX = OpDef(
    "pool_max", _build_pool_max, _reference_pool_max, signature=_pool_max_signature, infer=_pool_max_infer,
    eager=DEVICE, kind=COMPOSITE, method=False, function=False, vjp=vjp_through(_pool_max_by_slices),
    doc="The maximum of each window of a float16/float32 NCHW input, one kernel of loads, maxima and gathers "
        "(``tile-pool``).")


def _one_pass(x, kernel, stride, padding, out, dilation) -> bool:
    """Whether ``POOL_MAX`` computes this pool: float16/float32, no dilation, and every column its gathers
    repeat inside its window (``analysis.pool``)."""
    from pyasc.lowering.analysis.pool import pool_columns

    return (x.dtype in (dt.float16, F32) and dilation == (1, 1)
            and pool_columns(x.shape[-1], out[1], kernel[1], stride[1], padding[1]) is not None)


def _max_pool2d(x, kernel, stride, padding, out, dilation, indices):
    """The maximum of each window (NaN propagates): in one kernel of loads, maxima and gathers where it can
    (``POOL_MAX``), else over the gathered windows (see the module docstring), else over the padded input's
    slices (``_max_pool2d_by_slices``)."""
    if (not indices and x.dtype.is_floating_point and x.numel()
            and not any(_extra(x, kernel, stride, padding, out, dilation))):
        image = x if x.ndim == 4 else x.reshape(1, *x.shape)
        if _one_pass(image, kernel, stride, padding, out, dilation):
            return POOL_MAX(image, kernel, stride, padding).reshape(*x.shape[:-2], *out)
        windows = POOL_WINDOWS(image, kernel, stride, padding, dilation, -math.inf)
        result = windows[:, 0]
        for i in range(1, kernel[0] * kernel[1]):
            result = MAXIMUM(result, windows[:, i])
        return result.reshape(*x.shape[:-2], *out)
    return _max_pool2d_by_slices(x, kernel, stride, padding, out, dilation, indices)


def _max_pool2d_by_slices(x, kernel, stride, padding, out, dilation, indices):
    """The maximum of each window over strided slices of the padded input; with ``indices`` also the flat
    index in the input plane of each maximum (PyTorch's: the first maximum, the last NaN). The gradient of
    ``max_pool2d`` goes through this form."""
    low = -math.inf if x.dtype.is_floating_point else -(2 ** 31)
    xp = _padded(x, padding, tuple(p + e for p, e in zip(padding, _extra(x, kernel, stride, padding, out, dilation))),
                 low)
    if indices:
        return _max_with_indices(x, xp, kernel, stride, padding, out, dilation)
    result = None
    for _, _, win in _windows(xp, kernel, stride, out, dilation):
        result = win if result is None else MAXIMUM(result, win)
    return result if result is not x else MUL(x, 1)


def _max_with_indices(x, xp, kernel, stride, padding, out, dilation):
    h, w = x.shape[-2:]
    rows = np.arange(out[0])[:, None] * stride[0] - padding[0]
    cols = np.arange(out[1])[None, :] * stride[1] - padding[1]
    first = (np.maximum(rows, 0) * w + np.maximum(cols, 0)).astype(np.int32)   # where PyTorch starts
    low = -math.inf if x.dtype.is_floating_point else -(2 ** 31)
    best, where = low, Tensor(np.ascontiguousarray(np.broadcast_to(first, out)), dt.int32)
    for i, j, win in _windows(xp, kernel, stride, out, dilation):
        at = Tensor(np.ascontiguousarray(((rows + i * dilation[0]) * w + cols + j * dilation[1])
                                         .astype(np.int32)), dt.int32)
        take = GT(win, best)
        new_best, where = WHERE(take, win, best), WHERE(take, at, where)
        if x.dtype.is_floating_point:        # a NaN is taken wherever it is (the last one wins)
            nan = ISNAN(win)
            new_best, where = WHERE(nan, win, new_best), WHERE(nan, at, where)
        best = new_best
    return best, where


def _avg_pool2d(x, kernel, stride, padding, out, count_include_pad, divisor):
    """The mean of each window (padding counted unless count_include_pad is False; with
    ceil_mode, the part of a last window beyond the padding is never counted)."""
    extra = _extra(x, kernel, stride, padding, out)
    xp = _padded(CAST(x, dtype=F32), padding, tuple(p + e for p, e in zip(padding, extra)), 0.0)
    total = None
    for _, _, win in _windows(xp, kernel, stride, out):
        total = win if total is None else ADD(total, win)
    if divisor is not None:
        return CAST(DIV(total, float(divisor)), dtype=x.dtype)
    if (count_include_pad or padding == (0, 0)) and extra == (0, 0):
        return CAST(DIV(total, float(kernel[0] * kernel[1])), dtype=x.dtype)
    h, w = x.shape[-2:]
    counts = np.zeros(out, np.float32)
    lo = (0, 0) if not count_include_pad else (-padding[0], -padding[1])
    hi = (h, w) if not count_include_pad else (h + padding[0], w + padding[1])
    for a in range(out[0]):
        r0 = a * stride[0] - padding[0]
        rows = min(r0 + kernel[0], hi[0]) - max(r0, lo[0])
        for b in range(out[1]):
            c0 = b * stride[1] - padding[1]
            counts[a, b] = rows * (min(c0 + kernel[1], hi[1]) - max(c0, lo[1]))
    return CAST(DIV(total, Tensor(counts)), dtype=x.dtype)


def _adaptive_signature(input, output_size):  # noqa: A002
    x = _image("adaptive_avg_pool2d", input)
    oh, ow = _pair("adaptive_avg_pool2d", "output_size", output_size, allow_none=True)
    oh, ow = oh or x.shape[-2], ow or x.shape[-1]
    if oh < 1 or ow < 1:
        raise PyascError("adaptive_avg_pool2d", f"output_size must be positive, got {(oh, ow)}", shapes=[x.shape])
    return [x], {"out": (oh, ow)}


def adaptive_bands(x, axis: int, n_out: int, reduce):
    """``reduce(band, dim, keepdim)`` over PyTorch's adaptive bands of ``axis`` (< 0): band i is
    [floor(i n / n_out), ceil((i + 1) n / n_out)); equal bands are one reduction of the bands split out."""
    n, a = x.shape[axis], x.ndim + axis
    if n % n_out == 0:
        shape = list(x.shape)
        shape[a:a + 1] = [n_out, n // n_out]
        return reduce(x.reshape(shape), a + 1, False)
    parts = []
    for i in range(n_out):
        lo, hi = (i * n) // n_out, -(-((i + 1) * n) // n_out)
        index = tuple(slice(lo, hi) if d == a else slice(None) for d in range(x.ndim))
        parts.append(reduce(x[index], a, True))
    return parts[0] if len(parts) == 1 else CAT(parts, dim=a)


def _mean(t, dim, keepdim):
    return MEAN(t, dim=dim, keepdim=keepdim)


def _adaptive_avg_pool2d(x, out):
    """The mean over PyTorch's adaptive bands of rows and columns."""
    y = adaptive_bands(adaptive_bands(CAST(x, dtype=F32), -2, out[0], _mean), -1, out[1], _mean)
    return CAST(y, dtype=x.dtype)


OPS = [
    POOL_WINDOWS,
    POOL_MAX,
    fused_op("max_pool2d", _max_pool2d, _window_signature("max_pool2d", False), method=False,
             vjp=vjp_through(_max_pool2d_by_slices), doc=_max_pool2d.__doc__),
    fused_op("avg_pool2d", _avg_pool2d, _window_signature("avg_pool2d", True), method=False),
    fused_op("adaptive_avg_pool2d", _adaptive_avg_pool2d, _adaptive_signature, method=False),
]
