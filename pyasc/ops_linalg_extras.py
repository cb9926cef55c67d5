"""More of PyTorch's products and reductions, each a composition of ops of the table (``COMPOSITE``): ``dot``,
``vdot``, ``mv``, ``baddbmm``, ``cross``, ``dist``, ``kron``, ``nansum``, ``nanmean``, ``median``, the running
``cummax``, ``cummin`` and ``logcumsumexp`` (scans in log2(n) steps), ``take``, ``xlogy``, and the functions ``t`` and ``numel`` of the methods. Their values, dtypes and errors follow PyTorch's."""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as dt
from .args import dim_index, tensor_operand
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
from .ops_reduce import MaxMin
from .tensor import Tensor


def _op(name):
    from .ops import get_op

    return get_op(name)


def dot(x, y):
    """The inner product of two 1-d tensors of the same size and dtype."""
    x, y = tensor_operand("dot", x), tensor_operand("dot", y)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise PyascError("dot", f"1D tensors expected of the same size, got shapes {x.shape} and {y.shape}",
                         shapes=[x.shape, y.shape])
    if x.dtype is not y.dtype:
        raise PyascError("dot", f"expected both vectors to have the same dtype, got {x.dtype.name} and "
                         f"{y.dtype.name}", shapes=[x.shape, y.shape])
    return x @ y


def vdot(x, y):
    """``dot`` (real tensors: no conjugate to take)."""
    return dot(x, y)


def mv(m, v):
    """The product of a matrix (n, m) and a vector (m,)."""
    m, v = tensor_operand("mv", m), tensor_operand("mv", v)
    if m.ndim != 2 or v.ndim != 1 or m.shape[1] != v.shape[0]:
        raise PyascError("mv", f"expected a matrix and a vector of matching size, got shapes {m.shape} and "
                         f"{v.shape}", shapes=[m.shape, v.shape])
    return m @ v


def baddbmm(x, batch1, batch2, *, beta=1, alpha=1):
    """``beta * x + alpha * batch1 @ batch2`` over a batch of matrices (``x`` broadcast; ignored when ``beta`` is
    0, NaN included)."""
    b1, b2 = tensor_operand("baddbmm", batch1), tensor_operand("baddbmm", batch2)
    if b1.ndim != 3 or b2.ndim != 3 or b1.shape[0] != b2.shape[0] or b1.shape[2] != b2.shape[1]:
        raise PyascError("baddbmm", f"expected batches of matrices (b, n, m) and (b, m, p), got {b1.shape} and "
                         f"{b2.shape}", shapes=[b1.shape, b2.shape])
    prod = b1 @ b2
    prod = prod * alpha if alpha != 1 else prod
    if beta == 0:
        return prod
    x = tensor_operand("baddbmm", x)
    return prod + (x * beta if beta != 1 else x)


def cross(x, y, dim=None):
    """The cross product of 3-vectors along ``dim`` (the first dim of size 3 when None, as ``torch.cross`` did;
    ``torch.linalg.cross`` uses the last)."""
    x, y = tensor_operand("cross", x), tensor_operand("cross", y)
    shape = np.broadcast_shapes(x.shape, y.shape)
    if dim is None:
        dims = [d for d, n in enumerate(shape) if n == 3]
        if not dims:
            raise PyascError("cross", f"no dimension of size 3 in shape {shape}", shapes=[x.shape, y.shape])
        d = dims[0]
    else:
        d = dim_index("cross", dim, len(shape), shape)
    if shape[d] != 3:
        raise PyascError("cross", f"dimension {d} does not have size 3 (shape {shape})", shapes=[x.shape, y.shape])
    x, y = (t.expand(*shape) if t.shape != shape else t for t in (x, y))
    lead = (slice(None),) * d

    def part(t, i):
        return t[lead + (slice(i, i + 1),)]

    comps = [part(x, (i + 1) % 3) * part(y, (i + 2) % 3) - part(x, (i + 2) % 3) * part(y, (i + 1) % 3)
             for i in range(3)]
    return _op("cat")(comps, d)


def dist(x, y, p=2):
    """``norm(x - y, p)`` over every element."""
    x, y = tensor_operand("dist", x), tensor_operand("dist", y)
    return _op("norm")(x - y, p)


def kron(x, y):
    """The Kronecker product: every element of ``x`` times the whole of ``y``, in blocks."""
    x, y = tensor_operand("kron", x), tensor_operand("kron", y)
    n = max(x.ndim, y.ndim)
    x, y = x.reshape(*(1,) * (n - x.ndim), *x.shape), y.reshape(*(1,) * (n - y.ndim), *y.shape)
    xs = x.reshape(*[s for d in x.shape for s in (d, 1)])
    ys = y.reshape(*[s for d in y.shape for s in (1, d)])
    return (xs * ys).reshape(*[a * b for a, b in zip(x.shape, y.shape)])


def nansum(x, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaN counted as zero."""
    x = tensor_operand("nansum", x)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype.is_floating_point:
        x = _op("where")(_op("isnan")(x), 0.0, x)
    return x.sum() if dim is None else x.sum(dim, keepdim=keepdim)


def nanmean(x, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN (NaN where there are none)."""
    x = tensor_operand("nanmean", x)
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise PyascError("nanmean", f"expected a floating point tensor, got {x.dtype.name}", shapes=[x.shape],
                         dtypes=[x.dtype.name])
    kept = _op("where")(_op("isnan")(x), 0.0, 1.0).to(x.dtype)
    return nansum(x, dim, keepdim) / (kept.sum() if dim is None else kept.sum(dim, keepdim=keepdim))


def _median(name: str, x, dim, keepdim, ignore_nan: bool):
    """``median`` or ``nanmedian``: the lower median of the sorted values (NaNs sort last). With NaNs, ``median``
    gives the first NaN and ``nanmedian`` the lower median of the others (NaN when all are)."""
    x = tensor_operand(name, x)
    if dim is None:
        flat = x.reshape(-1)
        if not flat.numel():
            raise PyascError(name, "cannot be computed on an empty tensor", shapes=[x.shape])
        return _median(name, flat, 0, False, ignore_nan).values
    d = dim_index(name, dim, max(x.ndim, 1), x.shape)
    n = x.shape[d] if x.ndim else 1
    if not n:
        raise PyascError(name, f"dimension {d} is empty", shapes=[x.shape])
    values, indices = _op("sort")(x, d)
    if x.dtype.is_floating_point and x.ndim:
        nans = _op("isnan")(x).to(dt.int32).sum(d, keepdim=True)
        if ignore_nan:
            pos = _op("floor_divide")(_op("clamp_min")(n - nans - 1, 0), 2)
        else:
            pos = _op("where")(nans > 0, n - nans, (n - 1) // 2)
        v, i = values.gather(d, pos), indices.gather(d, pos)
    else:
        at = (slice(None),) * d + (slice((n - 1) // 2, (n - 1) // 2 + 1),)
        v, i = values[at], indices[at]
    if not keepdim and x.ndim:
        v, i = v.squeeze(d), i.squeeze(d)
    return MaxMin(v, i)


def median(x, dim=None, keepdim=False):
    """The lower median (the ``(n - 1) // 2``-th smallest; NaN if any): of every element, or along ``dim`` with the
    index it came from (the first among equal values, as the stable sort orders them)."""
    return _median("median", x, dim, keepdim, False)


def nanmedian(x, dim=None, keepdim=False):
    """``median`` of the values that are not NaN (NaN where all are)."""
    return _median("nanmedian", x, dim, keepdim, True)


def take(x, index):
    """The elements of ``x`` flattened at the positions ``index`` (negative ones from the end), in its shape."""
    x, index = tensor_operand("take", x), tensor_operand("take", index)
    if index.dtype.is_floating_point or index.dtype is dt.bool_:
        raise PyascError("take", f"expected an integer index, got {index.dtype.name}", shapes=[x.shape, index.shape])
    return x.reshape(-1)[index.reshape(-1)].reshape(*index.shape)


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN)."""
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        x = Tensor(np.asarray(x, np.float32), dt.float32)
    x, y = tensor_operand("xlogy", x), tensor_operand("xlogy", y)
    if not x.dtype.is_floating_point:
        x = x.to(dt.float32)
    out = x * _op("log")(y)
    return _op("where")((x == 0) & ~_op("isnan")(y), 0.0, out)


def _scan(x, dim, combine):
    """The inclusive scan of ``combine(earlier, later)`` along ``dim`` (an associative combination of tuples of
    tensors): log2(n) steps, each combining every position with the one ``2**j`` before it (Hillis and Steele)."""
    n = x[0].shape[dim]
    lead = (slice(None),) * dim
    state, s = x, 1
    while s < n:
        earlier = tuple(_op("cat")([t[lead + (slice(0, s),)], t[lead + (slice(0, n - s),)]], dim) for t in state)
        first = _positions_along(n, len(x[0].shape), dim) < s
        merged = combine(earlier, state)
        state = tuple(_op("where")(first, own, new) for own, new in zip(state, merged))
        s *= 2
    return state


def _positions_along(n: int, ndim: int, dim: int) -> Tensor:
    return Tensor(np.arange(n, dtype=np.int32).reshape([n if d == dim else 1 for d in range(ndim)]), dt.int32)


def _cumulative_extreme(op: str, x, dim, later_wins):
    x = tensor_operand(op, x)
    if x.dtype is dt.bool_:
        x = x.to(dt.int32)
    d = dim_index(op, dim, max(x.ndim, 1), x.shape)
    if not x.ndim:
        return MaxMin(x * 1, Tensor(np.zeros((), np.int32), dt.int32))
    index = _positions_along(x.shape[d], x.ndim, d).expand(*x.shape)
    nan = _op("isnan") if x.dtype.is_floating_point else (lambda t: t != t)

    def combine(earlier, later):
        (ve, ie), (vl, il) = earlier, later
        take = nan(vl) | (~nan(ve) & later_wins(vl, ve))
        return _op("where")(take, vl, ve), _op("where")(take, il, ie)

    values, indices = _scan((x, index), d, combine)
    return MaxMin(values, indices)


def cummax(x, dim):
    """The running maximum along ``dim`` and where it was last reached (a NaN, once met, stays, at the last NaN),
    as PyTorch's."""
    return _cumulative_extreme("cummax", x, dim, lambda later, earlier: later >= earlier)


def cummin(x, dim):
    """The running minimum along ``dim`` and where it was last reached (NaN as in ``cummax``)."""
    return _cumulative_extreme("cummin", x, dim, lambda later, earlier: later <= earlier)


def logcumsumexp(x, dim):
    """``log(cumsum(exp(x)))`` along ``dim`` without overflow: a scan of ``logaddexp``."""
    x = tensor_operand("logcumsumexp", x)
    if not x.dtype.is_floating_point:
        x = x.to(dt.float32)
    d = dim_index("logcumsumexp", dim, max(x.ndim, 1), x.shape)
    if not x.ndim:
        return x * 1
    (out,) = _scan((x,), d, lambda earlier, later: (_op("logaddexp")(earlier[0], later[0]),))
    return out


def t(x):
    """``x`` with its two dims swapped (``torch.t``; 0-d and 1-d tensors as they are)."""
    return tensor_operand("t", x).t()


def numel(x) -> int:
    """The number of elements of ``x``."""
    return tensor_operand("numel", x).numel()


_FUNCTIONS = [dot, vdot, mv, baddbmm, cross, dist, kron, nansum, nanmean, median, nanmedian, cummax, cummin,
              logcumsumexp, take, xlogy]

OPS = [*(OpDef(f.__name__, decompose=f, kind=COMPOSITE) for f in _FUNCTIONS),
       *(OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=False) for f in (t, numel))]
