"""More of PyTorch's tensor functions, each a composition of ops of the table (``COMPOSITE``): views and joins
(``narrow``, ``select``, ``unbind``, ``movedim``, ``swapaxes``, ``unflatten``, ``tensor_split``, ``hstack``,
``vstack``, ``dstack``, ``column_stack``, ``fliplr``, ``flipud``, ``rot90``, ``diagonal``, ``trace``,
``repeat_interleave``, ``expand_as``, ``type_as``, ``view_as``, ``reshape_as``, ``broadcast_to``, ``tile``) and
arithmetic (``clamp_min``, ``clamp_max``, ``lerp``, ``addcmul``, ``addcdiv``, ``hypot``, ``logaddexp``, ``sinh``,
``cosh``, ``exp2``, ``log2``, ``log10``, ``fmod``, ``nan_to_num``, ``count_nonzero``, ``diff``, ``var_mean``,
``std_mean``, ``signbit``) and the shifts of integers (``bitwise_left_shift``, ``bitwise_right_shift``). Their
values, dtypes and errors follow PyTorch's."""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes as dt
from .args import dim_index, tensor_operand
from .errors import PyascError, describe
from .opdef import COMPOSITE, OpDef
from .tensor import Tensor

_LN2, _LN10 = math.log(2.0), math.log(10.0)


def _op(name):
    from .ops import get_op

    return get_op(name)


def _dim(op, d, x):
    return dim_index(op, d, x.ndim, x.shape)


# ----------------------------------------------------------------------------- views and joins

def narrow(x, dim, start, length):
    """The ``length`` elements of dimension ``dim`` from ``start`` (a view)."""
    x = tensor_operand("narrow", x)
    d = _dim("narrow", dim, x)
    n = x.shape[d]
    for name, v in (("start", start), ("length", length)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise PyascError("narrow", f"{name} must be an integer, got {describe(v)}", shapes=[x.shape])
    s = start + n if start < 0 else start
    if not 0 <= s <= n or length < 0 or s + length > n:
        raise PyascError("narrow", f"start ({start}) + length ({length}) exceeds dimension size ({n})",
                         shapes=[x.shape])
    return x[(slice(None),) * d + (slice(s, s + length),)]


def select(x, dim, index):
    """The slice at ``index`` of dimension ``dim``, without that dimension (a view)."""
    x = tensor_operand("select", x)
    d = _dim("select", dim, x)
    return x[(slice(None),) * d + (index,)]


def unbind(x, dim=0):
    """The slices of dimension ``dim``, each without it."""
    x = tensor_operand("unbind", x)
    d = _dim("unbind", dim, x)
    return tuple(x[(slice(None),) * d + (i,)] for i in range(x.shape[d]))


def movedim(x, source, destination):
    """``x`` with the dimensions ``source`` moved to the positions ``destination`` (the others keep their order)."""
    x = tensor_operand("movedim", x)
    src = [source] if isinstance(source, numbers.Integral) else list(source)
    dst = [destination] if isinstance(destination, numbers.Integral) else list(destination)
    if len(src) != len(dst):
        raise PyascError("movedim", f"source and destination have different lengths ({len(src)} and {len(dst)})",
                         shapes=[x.shape])
    src, dst = [_dim("movedim", s, x) for s in src], [_dim("movedim", s, x) for s in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise PyascError("movedim", "repeated dimension in source or destination", shapes=[x.shape])
    order = [None] * x.ndim
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(i for i in range(x.ndim) if i not in src)
    perm = [o if o is not None else next(rest) for o in order]
    return x.permute(*perm) if perm != list(range(x.ndim)) else x


def swapaxes(x, axis0, axis1):
    """``transpose`` of two dimensions."""
    return tensor_operand("swapaxes", x).transpose(axis0, axis1)


def unflatten(x, dim, sizes):
    """Dimension ``dim`` split into ``sizes`` (one of them may be -1)."""
    x = tensor_operand("unflatten", x)
    d = _dim("unflatten", dim, x)
    return x.reshape(*x.shape[:d], *sizes, *x.shape[d + 1:])


def tensor_split(x, indices_or_sections, dim=0):
    """``x`` split along ``dim`` into ``n`` nearly equal parts (an int; the first ``size % n`` one element longer)
    or at the given indices."""
    x = tensor_operand("tensor_split", x)
    d = _dim("tensor_split", dim, x)
    n = x.shape[d]
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise PyascError("tensor_split", f"number of sections must be larger than 0, got {k}", shapes=[x.shape])
        q, r = divmod(n, k)
        cuts = np.cumsum([q + 1 if i < r else q for i in range(k)])[:-1].tolist()
    else:
        cuts = [int(i) for i in indices_or_sections]
    bounds = [0, *cuts, n]
    return tuple(x[(slice(None),) * d + (slice(min(max(a, 0), n), min(max(b, a, 0), n)),)]
                 for a, b in zip(bounds, bounds[1:]))


def _at_least(x, k):
    """``x`` with leading dimensions of size 1 up to rank ``k``."""
    while x.ndim < k:
        x = x.unsqueeze(0)
    return x


def hstack(tensors):
    """Joined along dimension 1 (dimension 0 for 1-D tensors)."""
    ts = [_at_least(tensor_operand("hstack", t), 1) for t in tensors]
    return _op("cat")(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors):
    """Joined along dimension 0, 1-D tensors as rows."""
    return _op("cat")([_at_least(tensor_operand("vstack", t), 2) for t in tensors], 0)


def dstack(tensors):
    """Joined along dimension 2 (1-D tensors as (1, n, 1), 2-D ones as (m, n, 1))."""
    ts = []
    for t in tensors:
        t = tensor_operand("dstack", t)
        t = t.reshape(1, -1, 1) if t.ndim <= 1 else (t.unsqueeze(-1) if t.ndim == 2 else t)
        ts.append(t)
    return _op("cat")(ts, 2)


def column_stack(tensors):
    """1-D tensors as columns, joined along dimension 1."""
    ts = [tensor_operand("column_stack", t) for t in tensors]
    return _op("cat")([t.reshape(-1, 1) if t.ndim <= 1 else t for t in ts], 1)


def fliplr(x):
    x = tensor_operand("fliplr", x)
    if x.ndim < 2:
        raise PyascError("fliplr", f"input must be >= 2-d, got {x.ndim}-d", shapes=[x.shape])
    return x.flip(1)


def flipud(x):
    x = tensor_operand("flipud", x)
    if x.ndim < 1:
        raise PyascError("flipud", "input must be >= 1-d", shapes=[x.shape])
    return x.flip(0)


def rot90(x, k=1, dims=(0, 1)):
    """Rotated by 90 degrees ``k`` times in the plane ``dims``, from the first towards the second."""
    x = tensor_operand("rot90", x)
    if len(dims) != 2:
        raise PyascError("rot90", f"expected total rotation dims == 2, got {len(dims)}", shapes=[x.shape])
    a, b = (_dim("rot90", d, x) for d in dims)
    if a == b:
        raise PyascError("rot90", f"expected rotation dims to be different, got {list(dims)}", shapes=[x.shape])
    k %= 4
    if k == 1:
        return x.flip(b).transpose(a, b)
    if k == 2:
        return _op("flip")(x, (a, b))
    if k == 3:
        return x.flip(a).transpose(a, b)
    return x.clone()


def diagonal(x, offset=0, dim1=0, dim2=1):
    """The diagonal of the plane ``(dim1, dim2)`` (shifted by ``offset``) as the last dimension."""
    x = tensor_operand("diagonal", x)
    a, b = _dim("diagonal", dim1, x), _dim("diagonal", dim2, x)
    if a == b:
        raise PyascError("diagonal", "dim1 and dim2 cannot be the same", shapes=[x.shape])
    m = movedim(x, (a, b), (-2, -1))
    r, c = m.shape[-2:]
    rows = np.arange(max(0, -offset), r)
    cols = rows + offset
    keep = cols < c
    rows, cols = rows[keep], cols[keep]
    if not rows.size:
        return m.reshape(*m.shape[:-2], r * c)[..., :0]
    flat = m.reshape(*m.shape[:-2], r * c)
    idx = (rows * c + cols).tolist()
    step = c + 1
    return flat[..., idx[0]: idx[-1] + 1: step]


def trace(x):
    """The sum of the main diagonal of a 2-D tensor."""
    x = tensor_operand("trace", x)
    if x.ndim != 2:
        raise PyascError("trace", f"expected a matrix, got a {x.ndim}-D tensor", shapes=[x.shape])
    return diagonal(x).sum()


def repeat_interleave(x, repeats, dim=None):
    """Each element (of dimension ``dim``; of the flattened tensor when None) repeated ``repeats`` times in a
    row (an int)."""
    x = tensor_operand("repeat_interleave", x)
    if isinstance(repeats, bool) or not isinstance(repeats, numbers.Integral) or repeats < 0:
        raise PyascError("repeat_interleave", f"repeats must be a non-negative integer, got {describe(repeats)} "
                         "(tensor repeats are not supported)", shapes=[x.shape])
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = _dim("repeat_interleave", dim, x)
    y = x.unsqueeze(d + 1)
    shape = list(y.shape)
    shape[d + 1] = int(repeats)
    y = y.expand(*shape)
    return y.reshape(*x.shape[:d], x.shape[d] * int(repeats), *x.shape[d + 1:])


def expand_as(x, other):
    return tensor_operand("expand_as", x).expand(*tensor_operand("expand_as", other).shape)


def type_as(x, other):
    return tensor_operand("type_as", x).to(tensor_operand("type_as", other).dtype)


def view_as(x, other):
    return tensor_operand("view_as", x).view(*tensor_operand("view_as", other).shape)


def reshape_as(x, other):
    return tensor_operand("reshape_as", x).reshape(*tensor_operand("reshape_as", other).shape)


def broadcast_to(x, size):
    return tensor_operand("broadcast_to", x).expand(*size)


def tile(x, dims):
    """``x`` repeated ``dims`` times along its dimensions (fewer dims than ``x`` has: ones in front)."""
    x = tensor_operand("tile", x)
    dims = tuple(dims)
    dims = (1,) * (x.ndim - len(dims)) + dims
    return x.repeat(*dims)


def new_full(x, size, fill_value, *, dtype=None, device=None):
    """A tensor of ``size`` filled with ``fill_value``, of ``x``'s dtype and device by default."""
    from .creation import full

    x = tensor_operand("new_full", x)
    return full(tuple(size), fill_value, dtype=dtype or x.dtype, device=device or x.device)


def _sizes_of(size):
    return tuple(size[0]) if len(size) == 1 and not isinstance(size[0], numbers.Integral) else size


def new_zeros(x, *size, dtype=None, device=None):
    return new_full(x, _sizes_of(size), 0, dtype=dtype, device=device)


def new_ones(x, *size, dtype=None, device=None):
    return new_full(x, _sizes_of(size), 1, dtype=dtype, device=device)


def new_tensor(x, data, *, dtype=None, device=None):
    from .creation import tensor

    x = tensor_operand("new_tensor", x)
    return tensor(data, dtype=dtype or x.dtype, device=device or x.device)


# ----------------------------------------------------------------------------- arithmetic

def clamp_min(x, min):  # noqa: A002 - PyTorch's names
    return _op("clamp")(x, min=min)


def clamp_max(x, max):  # noqa: A002
    return _op("clamp")(x, max=max)


def lerp(x, end, weight):
    """``x + weight * (end - x)``."""
    return x + (end - x) * weight


def addcmul(x, tensor1, tensor2, *, value=1):
    return x + tensor1 * tensor2 * value if value != 1 else x + tensor1 * tensor2


def addcdiv(x, tensor1, tensor2, *, value=1):
    return x + tensor1 / tensor2 * value if value != 1 else x + tensor1 / tensor2


def hypot(x, other):
    """``sqrt(x^2 + other^2)``, scaled by the larger magnitude so that neither square overflows."""
    a, b = _op("abs")(x), _op("abs")(other)
    big, small = _op("maximum")(a, b), _op("minimum")(a, b)
    ratio = _op("where")(big == 0, 0.0, small / _op("where")(big == 0, 1.0, big))
    return big * _op("sqrt")(ratio * ratio + 1.0)


def logaddexp(x, other):
    """``log(exp(x) + exp(other))`` without overflow: the larger plus ``log1p(exp(-|x - other|))``."""
    big = _op("maximum")(x, other)
    gap = -_op("abs")(x - other)
    out = big + _op("log1p")(_op("exp")(gap))
    return _op("where")(x == other, x + _LN2, out)  # equal infinities: no inf - inf


def sinh(x):
    """``(expm1(x) - expm1(-x)) / 2``, accurate near 0."""
    return (_op("expm1")(x) - _op("expm1")(-x)) * 0.5


def cosh(x):
    return (_op("exp")(x) + _op("exp")(-x)) * 0.5


def exp2(x):
    return _op("pow")(2.0, x)


def log2(x):
    return _op("log")(x) * (1.0 / _LN2)


def log10(x):
    return _op("log")(x) * (1.0 / _LN10)


def fmod(x, other):
    """The remainder with the sign of the dividend (C's ``fmod``)."""
    x = tensor_operand("fmod", x)
    r = _op("remainder")(x, other)
    wrong = (r != 0) & ((r < 0) != (x < 0))
    return _op("where")(wrong, r - other, r)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced (by default: 0 and the dtype's largest and lowest finite values)."""
    x = tensor_operand("nan_to_num", x)
    if not x.dtype.is_floating_point:
        return x.clone()
    info = np.finfo(np.float32 if x.dtype is dt.bfloat16 else x.dtype.np_dtype)
    top = 3.3895313892515355e38 if x.dtype is dt.bfloat16 else float(info.max)
    hi = top if posinf is None else posinf
    lo = -top if neginf is None else neginf
    w = _op("where")
    return w(_op("isnan")(x), float(nan), w(x == math.inf, float(hi), w(x == -math.inf, float(lo), x)))


def count_nonzero(x, dim=None):
    """The number of nonzero elements (over ``dim``), as int32."""
    x = tensor_operand("count_nonzero", x)
    ones = _op("where")(x != 0, 1, 0).to(dt.int32)
    return ones.sum() if dim is None else ones.sum(dim)


def diff(x, n=1, dim=-1):
    """The ``n``-th forward difference along ``dim``."""
    x = tensor_operand("diff", x)
    d = _dim("diff", dim, x)
    for _ in range(n):
        m = x.shape[d]
        x = x[(slice(None),) * d + (slice(1, m),)] - x[(slice(None),) * d + (slice(0, max(m - 1, 0)),)]
    return x


def var_mean(x, dim=None, *, correction=1, keepdim=False):
    """(variance, mean) over ``dim`` (all dimensions by default)."""
    return (_op("var")(x, dim=dim, correction=correction, keepdim=keepdim),
            _op("mean")(x, dim=dim, keepdim=keepdim))


def std_mean(x, dim=None, *, correction=1, keepdim=False):
    """(standard deviation, mean) over ``dim`` (all dimensions by default)."""
    return (_op("std")(x, dim=dim, correction=correction, keepdim=keepdim),
            _op("mean")(x, dim=dim, keepdim=keepdim))


def signbit(x):
    """Whether the sign bit is set: negative values and -0.0 (1 / -0.0 is -inf)."""
    x = tensor_operand("signbit", x)
    if not x.dtype.is_floating_point:
        return x < 0
    return (x < 0) | ((x == 0) & (1.0 / x < 0))


def _shift_operands(op, x, k):
    x = tensor_operand(op, x)
    if x.dtype.is_floating_point or x.dtype is dt.bool_:
        raise PyascError(op, f"is not defined for {x.dtype.name} tensors", shapes=[x.shape], dtypes=[x.dtype.name])
    if isinstance(k, bool) or not isinstance(k, numbers.Integral | Tensor):
        raise PyascError(op, f"the shift must be an integer or an integer tensor, got {describe(k)}", shapes=[x.shape])
    return x.to(dt.int32), k


def _powers_of_two(k, most: int):
    """``2 ** k`` as int32 for shifts ``k`` in [0, most] (an int, or a tensor: a table lookup), and where ``k`` is
    out of that range."""
    powers = np.array([1 << i for i in range(most + 1)] + [0], np.int64).astype(np.int32)   # 2**31 wraps
    if not isinstance(k, Tensor):
        return int(powers[k]) if 0 <= k <= most else 0, not 0 <= k <= most
    table = Tensor(powers, dt.int32)
    inside = (k >= 0) & (k <= most)
    return table[_op("where")(inside, k, most + 1).to(dt.int32)], ~inside


def bitwise_left_shift(x, other):
    """``x`` shifted left by ``other`` bits, wrapping in 32 bits (0 from 32 bits on), as ``x << other``."""
    x, k = _shift_operands("bitwise_left_shift", x, other)
    factor, beyond = _powers_of_two(k, 31)
    out = x * factor
    return out if not isinstance(k, Tensor) else _op("where")(beyond, 0, out).to(dt.int32)


def bitwise_right_shift(x, other):
    """``x`` shifted right by ``other`` bits with its sign (floor division by ``2 ** other``; from 31 bits on, 0
    or -1), as ``x >> other``."""
    x, k = _shift_operands("bitwise_right_shift", x, other)
    if not isinstance(k, Tensor):
        return _op("floor_divide")(x, 1 << min(k, 30)) if k < 31 else _op("where")(x < 0, -1, 0).to(dt.int32)
    factor, beyond = _powers_of_two(k, 30)
    out = _op("floor_divide")(x, _op("where")(beyond, 1, factor).to(dt.int32))
    return _op("where")(beyond, _op("where")(x < 0, -1, 0), out).to(dt.int32)


_FUNCTIONS = [narrow, select, unbind, movedim, swapaxes, unflatten, tensor_split, fliplr, flipud, rot90, diagonal,
              trace, repeat_interleave, broadcast_to, tile, clamp_min, clamp_max, lerp, addcmul, addcdiv, hypot,
              logaddexp, sinh, cosh, exp2, log2, log10, fmod, nan_to_num, count_nonzero, diff, var_mean, std_mean,
              signbit, bitwise_left_shift, bitwise_right_shift]
_METHODS_ONLY = [expand_as, type_as, view_as, reshape_as, new_full, new_zeros, new_ones, new_tensor]
_FUNCTIONS_ONLY = [hstack, vstack, dstack, column_stack]

OPS = [*(OpDef(f.__name__, decompose=f, kind=COMPOSITE) for f in _FUNCTIONS),
       *(OpDef(f.__name__, decompose=f, kind=COMPOSITE, function=False) for f in _METHODS_ONLY),
       *(OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=False) for f in _FUNCTIONS_ONLY),
       OpDef("moveaxis", decompose=movedim, kind=COMPOSITE),
       OpDef("swapdims", decompose=swapaxes, kind=COMPOSITE)]
