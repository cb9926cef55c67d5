"""More of ``torch`` and ``torch.nn.functional``, each a composition of ops of the table (``COMPOSITE``):
activations (``elu``, ``celu``, ``selu``, ``hardtanh``, ``relu6``, ``hardsigmoid``, ``softsign``, ``logsigmoid``,
``glu``, ``softmin``), arithmetic (``frac``, ``logit``, ``isclose``, ``tensordot``), distances (``normalize``,
``cosine_similarity``, ``cdist``), ``diag``, normalisation by groups (``group_norm``, ``instance_norm``), pixel
shuffles, ``interpolate`` (nearest and linear), ``unfold``, 1-d pooling (``max_pool1d``, ``avg_pool1d``: the 2-d
pools over a height of one). Selections and lookups by index are in ``ops_index_extras``. Their values, dtypes and errors follow PyTorch's; the
gradients are those of the ops they are made of."""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as dt
from .args import dim_index, tensor_operand
from .errors import PyascError, describe
from .opdef import COMPOSITE, OpDef
from .tensor import Tensor

_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _op(name):
    from .ops import get_op

    return get_op(name)


def _number(op: str, name: str, v, x) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise PyascError(op, f"{name} must be a number, got {describe(v)}", shapes=[getattr(x, "shape", None)])
    return float(v)


# ----------------------------------------------------------------------------- activations

def elu(x, alpha=1.0, inplace=False):
    """``x`` where ``x > 0``, else ``alpha * expm1(x)``."""
    a = _number("elu", "alpha", alpha, x)
    x = tensor_operand("elu", x)
    return _op("where")(x > 0, x, _op("expm1")(x) * a)


def celu(x, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * expm1(x / alpha))``."""
    a = _number("celu", "alpha", alpha, x)
    if a == 0:
        raise PyascError("celu", "alpha must not be 0", shapes=[getattr(x, "shape", None)])
    x = tensor_operand("celu", x)
    return _op("where")(x > 0, x, _op("expm1")(x * (1.0 / a)) * a)


def selu(x, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""
    x = tensor_operand("selu", x)
    return _op("where")(x > 0, x * _SELU_SCALE, _op("expm1")(x) * (_SELU_ALPHA * _SELU_SCALE))


def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]``."""
    lo, hi = _number("hardtanh", "min_val", min_val, x), _number("hardtanh", "max_val", max_val, x)
    if lo > hi:
        raise PyascError("hardtanh", f"min_val ({lo}) cannot be greater than max_val ({hi})",
                         shapes=[getattr(x, "shape", None)])
    return _op("clamp")(tensor_operand("hardtanh", x), lo, hi)


def relu6(x, inplace=False):
    return hardtanh(x, 0.0, 6.0)


def hardsigmoid(x, inplace=False):
    """``clamp(x / 6 + 1 / 2, 0, 1)``."""
    return _op("clamp")(tensor_operand("hardsigmoid", x) * (1.0 / 6.0) + 0.5, 0.0, 1.0)


def softsign(x):
    x = tensor_operand("softsign", x)
    return x / (_op("abs")(x) + 1.0)


def logsigmoid(x):
    """``log(sigmoid(x))`` without overflow: ``min(x, 0) - log1p(exp(-|x|))``."""
    x = tensor_operand("logsigmoid", x)
    return _op("minimum")(x, 0.0) - _op("log1p")(_op("exp")(-_op("abs")(x)))


def glu(x, dim=-1):
    """The first half of ``dim`` times the sigmoid of the second."""
    x = tensor_operand("glu", x)
    d = dim_index("glu", dim, x.ndim, x.shape)
    if x.shape[d] % 2:
        raise PyascError("glu", f"halving dimension must be even, but dimension {d} is size {x.shape[d]}",
                         shapes=[x.shape])
    h = x.shape[d] // 2
    lead = (slice(None),) * d
    return x[lead + (slice(0, h),)] * _op("sigmoid")(x[lead + (slice(h, 2 * h),)])


def softmin(x, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x, dim)``."""
    x = tensor_operand("softmin", x)
    if dtype is not None:
        x = x.to(dtype)
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _op("softmax")(-x, dim)


# ----------------------------------------------------------------------------- arithmetic

def frac(x):
    """The fractional part, with the sign of ``x`` (``x - trunc(x)``)."""
    x = tensor_operand("frac", x)
    if not x.dtype.is_floating_point:
        raise PyascError("frac", f"is not implemented for {x.dtype.name}", shapes=[x.shape], dtypes=[x.dtype.name])
    return x - _op("trunc")(x)


def logit(x, eps=None):
    """``log(x / (1 - x))``, ``x`` clamped to ``[eps, 1 - eps]`` first when ``eps`` is given."""
    x = tensor_operand("logit", x)
    if not x.dtype.is_floating_point:
        x = x.to(dt.float32)
    if eps is not None:
        e = _number("logit", "eps", eps, x)
        x = _op("clamp")(x, e, 1.0 - e)
    return _op("log")(x / (1.0 - x))


def isclose(x, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|x - other| <= atol + rtol * |other|`` elementwise (equal values, infinities too, are close; NaN only
    with ``equal_nan``)."""
    x, other = tensor_operand("isclose", x), tensor_operand("isclose", other)
    if x.dtype is not other.dtype:
        raise PyascError("isclose", f"expected both tensors of the same dtype, got {x.dtype.name} and "
                         f"{other.dtype.name}", shapes=[x.shape, other.shape])
    if not x.dtype.is_floating_point:
        return (x == other) | (_op("abs")(x - other) <= atol + rtol * _op("abs")(other))
    close = (x == other) | (_op("abs")(x - other) <= _op("abs")(other) * float(rtol) + float(atol))
    if equal_nan:
        close = close | (_op("isnan")(x) & _op("isnan")(other))
    return close


def allclose(x, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Whether every element is ``isclose`` (a Python bool: not inside ``pyasc.jit``)."""
    return bool(isclose(x, other, rtol, atol, equal_nan).all().item())


def tensordot(a, b, dims=2, out=None):
    """The sum of products over the last ``dims`` dims of ``a`` and the first of ``b`` (or the dims listed), as
    one matrix product."""
    a, b = tensor_operand("tensordot", a), tensor_operand("tensordot", b)
    if isinstance(dims, numbers.Integral) and not isinstance(dims, bool):
        if not 0 <= dims <= min(a.ndim, b.ndim):
            raise PyascError("tensordot", f"dims ({dims}) must be between 0 and {min(a.ndim, b.ndim)}",
                             shapes=[a.shape, b.shape])
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
        da = [dim_index("tensordot", d, a.ndim, a.shape) for d in da]
        db = [dim_index("tensordot", d, b.ndim, b.shape) for d in db]
    if len(da) != len(db) or any(a.shape[i] != b.shape[j] for i, j in zip(da, db)):
        raise PyascError("tensordot", f"contracted dimensions {da} of {a.shape} and {db} of {b.shape} differ",
                         shapes=[a.shape, b.shape])
    ka, kb = [d for d in range(a.ndim) if d not in da], [d for d in range(b.ndim) if d not in db]
    k = int(np.prod([a.shape[d] for d in da]))
    left = a.permute(*ka, *da).reshape(int(np.prod([a.shape[d] for d in ka])), k)
    right = b.permute(*db, *kb).reshape(k, int(np.prod([b.shape[d] for d in kb])))
    return (left @ right).reshape(*[a.shape[d] for d in ka], *[b.shape[d] for d in kb])


# ----------------------------------------------------------------------------- distances

def normalize(x, p=2.0, dim=1, eps=1e-12, out=None):
    """``x / max(norm_p(x, dim), eps)``."""
    x = tensor_operand("normalize", x)
    n = _op("norm")(x, p, dim, True)
    return x / _op("clamp")(n, min=_number("normalize", "eps", eps, x))


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast): each normalised by
    ``max(norm, eps)``, then their dot product."""
    x1, x2 = tensor_operand("cosine_similarity", x1), tensor_operand("cosine_similarity", x2)
    e = _number("cosine_similarity", "eps", eps, x1)
    shape = np.broadcast_shapes(x1.shape, x2.shape)
    d = dim_index("cosine_similarity", dim, len(shape), shape)
    a, b = (t.expand(*shape) if t.shape != shape else t for t in (x1, x2))
    na = _op("clamp")(_op("norm")(a, 2, d, True), min=e)
    nb = _op("clamp")(_op("norm")(b, 2, d, True), min=e)
    return ((a / na) * (b / nb)).sum(d)


def cdist(x1, x2, p=2.0, compute_mode=None):
    """The ``p``-norm distance between each row of ``x1`` (…, P, M) and each row of ``x2`` (…, R, M)."""
    x1, x2 = tensor_operand("cdist", x1), tensor_operand("cdist", x2)
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise PyascError("cdist", f"X1 and X2 must have the same number of columns (shapes {x1.shape} and "
                         f"{x2.shape})", shapes=[x1.shape, x2.shape])
    pv = _number("cdist", "p", p, x1)
    if pv < 0:
        raise PyascError("cdist", f"only supports non-negative p values, got {pv}", shapes=[x1.shape, x2.shape])
    diff = _op("abs")(x1.unsqueeze(-2) - x2.unsqueeze(-3))             # (…, P, R, M)
    if pv == float("inf"):
        return diff.amax(-1)
    if pv == 0:
        return (diff != 0).to(x1.dtype).sum(-1)
    if pv == 1:
        return diff.sum(-1)
    if pv == 2:
        return _op("sqrt")((diff * diff).sum(-1))
    return _op("pow")(_op("pow")(diff, pv).sum(-1), 1.0 / pv)


# ----------------------------------------------------------------------------- diag

def diag(x, diagonal=0):
    """A 1-d ``x`` as the ``diagonal``-th diagonal of a square matrix (zeros elsewhere); a 2-d ``x``'s
    ``diagonal``-th diagonal."""
    x = tensor_operand("diag", x)
    if isinstance(diagonal, bool) or not isinstance(diagonal, numbers.Integral):
        raise PyascError("diag", f"diagonal must be an integer, got {describe(diagonal)}", shapes=[x.shape])
    k = int(diagonal)
    if x.ndim == 2:
        return _op("diagonal")(x, k)
    if x.ndim != 1:
        raise PyascError("diag", f"expected a 1-d or 2-d tensor, got {x.ndim}-d", shapes=[x.shape])
    n = x.shape[0] + abs(k)
    row = _op("pad")(x, (k, 0) if k >= 0 else (0, -k))          # row[j]: the element in column j
    on = Tensor(np.eye(n, k=k, dtype=np.bool_), dt.bool_)
    return _op("where")(on, row.unsqueeze(0).expand(n, n), Tensor(np.zeros((), x.dtype.np_dtype), x.dtype))


# ----------------------------------------------------------------------------- normalisation by groups

def group_norm(x, num_groups, weight=None, bias=None, eps=1e-05):
    """Each sample's channels in ``num_groups`` groups normalised by the group's mean and biased variance, then
    the per-channel ``weight`` and ``bias``; float16/bfloat16 computed in float32."""
    x = tensor_operand("group_norm", x)
    if x.ndim < 2 or isinstance(num_groups, bool) or not isinstance(num_groups, numbers.Integral) or \
            num_groups <= 0 or x.shape[1] % num_groups:
        raise PyascError("group_norm", f"expected an input (N, C, ...) with C divisible by num_groups, got "
                         f"{x.shape} and {describe(num_groups)}", shapes=[x.shape])
    n, c = x.shape[:2]
    wide = x.dtype in (dt.float16, dt.bfloat16)
    g = (x.to(dt.float32) if wide else x).reshape(n, int(num_groups), -1)
    centred = g - g.mean(-1, keepdim=True)
    out = (centred * _op("rsqrt")((centred * centred).mean(-1, keepdim=True) + float(eps))).reshape(*x.shape)
    trailing = (1,) * (x.ndim - 2)
    for v, combine in ((weight, "mul"), (bias, "add")):
        if v is not None:
            v = tensor_operand("group_norm", v)
            out = _op(combine)(out, (v.to(dt.float32) if wide else v).reshape(c, *trailing))
    return out.to(x.dtype) if wide else out


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Each sample's channels normalised by their own statistics (``group_norm`` with one channel per group)."""
    x = tensor_operand("instance_norm", x)
    if not use_input_stats or running_mean is not None or running_var is not None:
        raise PyascError("instance_norm", "running statistics are not supported (use_input_stats=True, "
                         "running_mean and running_var None)", shapes=[x.shape])
    return group_norm(x, x.shape[1] if x.ndim >= 2 else 1, weight, bias, eps)


def pixel_shuffle(x, upscale_factor):
    """(…, C r^2, H, W) -> (…, C, H r, W r)."""
    x = tensor_operand("pixel_shuffle", x)
    r = int(upscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-3] % (r * r):
        raise PyascError("pixel_shuffle", f"the channels of {x.shape} must be divisible by the square of "
                         f"upscale_factor ({upscale_factor})", shapes=[x.shape])
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(*lead, c // (r * r), r, r, h, w)
    y = y.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return y.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(x, downscale_factor):
    """(…, C, H r, W r) -> (…, C r^2, H, W)."""
    x = tensor_operand("pixel_unshuffle", x)
    r = int(downscale_factor)
    if x.ndim < 3 or r <= 0 or x.shape[-2] % r or x.shape[-1] % r:
        raise PyascError("pixel_unshuffle", f"the height and width of {x.shape} must be divisible by "
                         f"downscale_factor ({downscale_factor})", shapes=[x.shape])
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(*lead, c, h // r, r, w // r, r)
    y = y.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return y.reshape(*lead, c * r * r, h // r, w // r)


# ----------------------------------------------------------------------------- resampling

_INTERPOLATE_MODES = ("nearest", "linear", "bilinear")


def _source_index(op, n_in: int, n_out: int, scale, mode: str, align_corners: bool):
    """For each output position along one dim: (index below, index above, weight of the one above) in the input, as
    PyTorch computes them in float32 (``scale``: the user's factor, else None: sizes' ratio)."""
    out = np.arange(n_out, dtype=np.float32)
    if mode == "nearest":
        ratio = np.float32(1.0 / scale) if scale is not None else np.float32(n_in / n_out)
        lo = np.minimum(np.floor(out * ratio).astype(np.int64), n_in - 1)
        return lo, lo, None
    if align_corners:
        ratio = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0)
        src = out * ratio
    else:
        ratio = np.float32(1.0 / scale) if scale is not None else np.float32(n_in / n_out)
        src = np.maximum((out + np.float32(0.5)) * ratio - np.float32(0.5), np.float32(0))
    lo = np.minimum(src.astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (src - lo).astype(np.float32)


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None,
                antialias=False):
    """Resampling of the trailing 1 (``linear``) or 2 (``bilinear``, ``nearest``: 1 or 2) dims of an (N, C, ...)
    input to ``size`` or by ``scale_factor``: each dim separately, its samples gathered and (linear) weighted."""
    x = tensor_operand("interpolate", x)
    if mode not in _INTERPOLATE_MODES or antialias:
        raise PyascError("interpolate", f"mode {mode!r} is not supported (supported: {', '.join(_INTERPOLATE_MODES)}"
                         ", without antialias)", shapes=[x.shape])
    spatial = x.ndim - 2
    want = {"linear": 1, "bilinear": 2}.get(mode, spatial)
    if spatial not in (1, 2) or spatial != want:
        raise PyascError("interpolate", f"mode {mode!r} expects a {want + 2}-d input, got {x.ndim}-d",
                         shapes=[x.shape])
    if (size is None) == (scale_factor is None):
        raise PyascError("interpolate", "exactly one of size and scale_factor must be given", shapes=[x.shape])
    if mode == "nearest" and align_corners is not None:
        raise PyascError("interpolate", "align_corners can only be set with the linear modes", shapes=[x.shape])
    per = lambda v: list(v) if isinstance(v, tuple | list) else [v] * spatial  # noqa: E731
    scales = [None] * spatial
    if size is not None:
        sizes = [int(v) for v in per(size)]
    else:
        factors = [float(v) for v in per(scale_factor)]
        sizes = [int(np.floor(n * f)) for n, f in zip(x.shape[2:], factors)]
        scales = [None if recompute_scale_factor else f for f in factors]
    out = x
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        d = 2 + k
        lo, hi, w = _source_index("interpolate", x.shape[d], n_out, scale, mode, bool(align_corners))
        below = _op("index_select")(out, d, Tensor(lo.astype(np.int32), dt.int32))
        if w is None:
            out = below
            continue
        above = _op("index_select")(out, d, Tensor(hi.astype(np.int32), dt.int32))
        shape = [n_out if i == d else 1 for i in range(x.ndim)]
        w_above = Tensor(w.reshape(shape), dt.float32).to(x.dtype)
        w_below = Tensor((np.float32(1) - w).reshape(shape), dt.float32).to(x.dtype)
        out = below * w_below + above * w_above           # PyTorch's form (an infinity stays one)
    return out


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of an (N, C, H, W) input as columns: (N, C kh kw, L), one strided slice of the padded
    input per kernel position."""
    x = tensor_operand("unfold", x)
    if x.ndim != 4:
        raise PyascError("unfold", f"expected a 4-d (N, C, H, W) input, got shape {x.shape}", shapes=[x.shape])
    pair = lambda v: tuple(int(e) for e in v) if isinstance(v, tuple | list) else (int(v), int(v))  # noqa: E731
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = (pair(v) for v in (kernel_size, dilation, padding, stride))
    n, c, h, w = x.shape
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise PyascError("unfold", f"the {kh}x{kw} blocks do not fit the padded input {x.shape}", shapes=[x.shape])
    padded = _op("pad")(x, (pw, pw, ph, ph)) if ph or pw else x
    blocks = [padded[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
              for i in range(kh) for j in range(kw)]
    return _op("stack")(blocks, 2).reshape(n, c * kh * kw, oh * ow)


# ----------------------------------------------------------------------------- 1-d pooling

def _pool1d(op, pool2d, x, kernel_size, stride, padding, **kw):
    x = tensor_operand(op, x)
    if x.ndim not in (2, 3):
        raise PyascError(op, f"expected a 2-d (C, L) or 3-d (N, C, L) input, got {x.ndim}-d", shapes=[x.shape])

    def one(v, name):
        v = v[0] if isinstance(v, tuple | list) and len(v) == 1 else v
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise PyascError(op, f"{name} must be an integer, got {describe(v)}", shapes=[x.shape])
        return int(v)

    k = one(kernel_size, "kernel_size")
    s = k if stride is None or stride == () or stride == [] else one(stride, "stride")
    return pool2d(x.unsqueeze(-2), (1, k), (1, s), (0, one(padding, "padding")), **kw).squeeze(-2)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        raise PyascError("max_pool1d", "return_indices is not supported", shapes=[getattr(x, "shape", None)])
    d = dilation[0] if isinstance(dilation, tuple | list) else dilation
    return _pool1d("max_pool1d", _op("max_pool2d"), x, kernel_size, stride, padding, dilation=(1, d),
                   ceil_mode=ceil_mode)


def avg_pool1d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _pool1d("avg_pool1d", _op("avg_pool2d"), x, kernel_size, stride, padding, ceil_mode=ceil_mode,
                   count_include_pad=count_include_pad)


_FUNCTIONS = [elu, celu, selu, hardtanh, relu6, hardsigmoid, softsign, logsigmoid, glu, softmin, frac, logit,
              isclose, allclose, tensordot, normalize, cosine_similarity, cdist, diag, group_norm, instance_norm, pixel_shuffle,
              pixel_unshuffle, interpolate, unfold, max_pool1d, avg_pool1d]
_METHODS = {frac, logit, isclose, allclose, diag}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
