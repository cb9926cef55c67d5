"""More of PyTorch's tensor functions, each a composition of ops of the table (``COMPOSITE``), so it compiles
inside ``pyasc.jit`` and differentiates: the products ``inner``, ``addmv``, ``addbmm`` and ``matrix_power``;
``ravel``, ``take_along_dim``, ``index_fill``, ``meshgrid``, ``cartesian_prod``, ``block_diag`` and ``vander``; the
statistics ``cov`` and ``corrcoef``; and the pools ``adaptive_avg_pool1d`` and ``adaptive_max_pool1d``. Values,
shapes, dtypes and errors follow PyTorch's (integers are int32, as everywhere in pyasc)."""

from __future__ import annotations

import functools
import numbers

import numpy as np

from . import dtypes as dt
from .args import dim_index, tensor_operand
from .creation import arange, eye, zeros
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
from .tensor import Tensor


def _op(name):
    from .ops import get_op

    return get_op(name)


def _integer(name: str, what: str, v, shapes=()) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise PyascError(name, f"{what} must be an integer, got {v!r}", shapes=list(shapes))
    return int(v)


def _scaled_sum(name: str, input, product: Tensor, beta, alpha) -> Tensor:
    """``beta * input + alpha * product``; with ``beta`` 0, ``input`` is ignored (its NaNs too), as in PyTorch."""
    x = tensor_operand(name, input)
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return _op("broadcast_to")(scaled, np.broadcast_shapes(x.shape, scaled.shape)) * 1
    return (x if beta == 1 else x * beta) + scaled


def inner(input, other):  # noqa: A002 - PyTorch's names
    """The sums of products over the last dims of ``input`` and ``other`` (a product when one is 0-d)."""
    a, b = tensor_operand("inner", input), tensor_operand("inner", other)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise PyascError("inner", f"the last dims must match, got shapes {a.shape} and {b.shape}",
                         shapes=[a.shape, b.shape])
    return _op("tensordot")(a, b, dims=([a.ndim - 1], [b.ndim - 1]))


def addmv(input, mat, vec, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * (mat @ vec)``."""
    m, v = tensor_operand("addmv", mat), tensor_operand("addmv", vec)
    if m.ndim != 2 or v.ndim != 1:
        raise PyascError("addmv", f"expected a matrix and a vector, got shapes {m.shape} and {v.shape}",
                         shapes=[m.shape, v.shape])
    return _scaled_sum("addmv", input, m @ v, beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):  # noqa: A002
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``."""
    b1, b2 = tensor_operand("addbmm", batch1), tensor_operand("addbmm", batch2)
    if b1.ndim != 3 or b2.ndim != 3 or b1.shape[0] != b2.shape[0]:
        raise PyascError("addbmm", f"expected two 3-d tensors with the same batch, got shapes {b1.shape} and "
                         f"{b2.shape}", shapes=[b1.shape, b2.shape])
    return _scaled_sum("addbmm", input, (b1 @ b2).sum(0), beta, alpha)


def matrix_power(input, n):  # noqa: A002
    """``input`` (square matrices in the last two dims) to the integer power ``n`` >= 0 (the identity at 0),
    by repeated squaring."""
    x = tensor_operand("matrix_power", input)
    n = _integer("matrix_power", "n", n, [x.shape])
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise PyascError("matrix_power", f"expected square matrices in the last two dims, got shape {x.shape}",
                         shapes=[x.shape])
    if n < 0:
        raise PyascError("matrix_power", f"a negative power ({n}) needs the inverse, which pyasc does not have",
                         shapes=[x.shape])
    if n == 0:
        return _op("broadcast_to")(eye(x.shape[-1], dtype=x.dtype), x.shape) * 1
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else result @ square
        n >>= 1
        if n:
            square = square @ square
    return result


def ravel(input):  # noqa: A002
    """The elements of ``input`` in one dim, in order."""
    return tensor_operand("ravel", input).reshape(-1)


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """The elements of ``input`` at ``indices`` along ``dim`` (the two broadcast against each other in the other
    dims); with ``dim`` None, of the flattened ``input`` at the flattened ``indices``."""
    x, i = tensor_operand("take_along_dim", input), tensor_operand("take_along_dim", indices)
    if dim is None:
        return x.reshape(-1).gather(0, i.reshape(-1))
    if x.ndim != i.ndim:
        raise PyascError("take_along_dim", f"input and indices must have the same number of dims, got shapes "
                         f"{x.shape} and {i.shape}", shapes=[x.shape, i.shape])
    d = dim_index("take_along_dim", dim, x.ndim, x.shape)
    shape = list(np.broadcast_shapes(tuple(1 if k == d else s for k, s in enumerate(x.shape)),
                                     tuple(1 if k == d else s for k, s in enumerate(i.shape))))
    xs, is_ = list(shape), list(shape)
    xs[d], is_[d] = x.shape[d], i.shape[d]
    return x.broadcast_to(tuple(xs)).gather(d, i.broadcast_to(tuple(is_)))


def index_fill(input, dim, index, value):  # noqa: A002
    """``input`` with the positions ``index`` along ``dim`` set to ``value`` (a number or a 0-d tensor)."""
    x, i = tensor_operand("index_fill", input), tensor_operand("index_fill", index)
    d = dim_index("index_fill", dim, max(x.ndim, 1), x.shape)
    if i.ndim > 1 or i.dtype not in (dt.int32, dt.int8):
        raise PyascError("index_fill", f"index must be a 0-d or 1-d integer tensor, got {i.dtype.name}{list(i.shape)}",
                         shapes=[x.shape, i.shape])
    if isinstance(value, Tensor) and value.ndim:
        raise PyascError("index_fill", f"value must be a number or a 0-d tensor, got shape {value.shape}",
                         shapes=[x.shape])
    if not x.ndim:
        return _op("where")((i.reshape(-1) == 0).any(), value, x)
    size = x.shape[d]
    positions = arange(size, dtype=dt.int32)
    chosen = (positions.unsqueeze(-1) == _op("remainder")(i.reshape(-1).to(dt.int32), size)).any(-1)
    mask = chosen.reshape(tuple(size if k == d else 1 for k in range(x.ndim)))
    fill = value.to(x.dtype) if isinstance(value, Tensor) else value
    return _op("where")(mask, fill, x).to(x.dtype)


def meshgrid(*tensors, indexing="ij"):
    """Grids of the 0-d or 1-d ``tensors``: ``indexing="ij"`` (PyTorch's default) gives shape (n1, n2, ...),
    ``"xy"`` (n2, n1, ...)."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise PyascError("meshgrid", f"indexing must be 'ij' or 'xy', got {indexing!r}")
    ts = [tensor_operand("meshgrid", t) for t in tensors]
    if not ts:
        raise PyascError("meshgrid", "expects a non-empty list of tensors")
    if any(t.ndim > 1 for t in ts):
        raise PyascError("meshgrid", f"expects 0-d or 1-d tensors, got shapes {[t.shape for t in ts]}",
                         shapes=[t.shape for t in ts])
    if len({t.dtype for t in ts}) > 1:
        raise PyascError("meshgrid", f"expects all tensors to have the same dtype, got {[t.dtype.name for t in ts]}")
    flat = [t.reshape(-1) for t in ts]
    if indexing == "xy" and len(flat) >= 2:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t.shape[0] for t in flat)
    grids = [t.reshape(tuple(-1 if k == j else 1 for k in range(len(flat)))).broadcast_to(shape) * 1
             for j, t in enumerate(flat)]
    if indexing == "xy" and len(grids) >= 2:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors):
    """Every combination of the elements of the 1-d ``tensors``, one per row (a single tensor: itself)."""
    ts = [tensor_operand("cartesian_prod", t) for t in tensors]
    if not ts or any(t.ndim != 1 for t in ts):
        raise PyascError("cartesian_prod", f"expects 1-d tensors, got shapes {[t.shape for t in ts]}",
                         shapes=[t.shape for t in ts])
    if len(ts) == 1:
        return ts[0] * 1
    return _op("stack")([g.reshape(-1) for g in meshgrid(*ts)], 1)


def block_diag(*tensors):
    """The 0-d, 1-d or 2-d ``tensors`` (a 0-d one as 1 x 1, a 1-d one as one row) along the diagonal of a matrix
    of zeros, in their promoted dtype."""
    ts = [tensor_operand("block_diag", t) for t in tensors]
    if any(t.ndim > 2 for t in ts):
        raise PyascError("block_diag", f"expects tensors of at most 2 dims, got shapes {[t.shape for t in ts]}",
                         shapes=[t.shape for t in ts])
    out_dtype = functools.reduce(dt.promote_types, [t.dtype for t in ts]) if ts else dt.float32
    blocks = [t.reshape((1, 1) if t.ndim == 0 else (1, -1) if t.ndim == 1 else t.shape).to(out_dtype) for t in ts]
    width = sum(b.shape[1] for b in blocks)
    if not blocks:
        return zeros((0, 0), dtype=out_dtype)
    rows, left = [], 0
    for b in blocks:
        right = width - left - b.shape[1]
        rows.append(_op("pad")(b, (left, right)) if left or right else b)
        left += b.shape[1]
    return _op("cat")(rows, 0)


def vander(x, N=None, increasing=False):  # noqa: N803 - PyTorch's name
    """The Vandermonde matrix of the 1-d ``x``: columns ``x ** (N - 1)`` down to ``x ** 0`` (or up, with
    ``increasing``); ``N`` defaults to ``len(x)``."""
    v = tensor_operand("vander", x)
    if v.ndim != 1:
        raise PyascError("vander", f"x must be a one-dimensional tensor, got shape {v.shape}", shapes=[v.shape])
    n = v.shape[0] if N is None else _integer("vander", "N", N, [v.shape])
    if n < 0:
        raise PyascError("vander", f"N must be non-negative, got {n}", shapes=[v.shape])
    if v.dtype is dt.bool_ or v.dtype is dt.int8:
        v = v.to(dt.int32)
    if n == 0:
        return zeros((v.shape[0], 0), dtype=v.dtype)
    columns = [v * 0 + 1]
    for _ in range(n - 1):
        columns.append(columns[-1] * v)
    if not increasing:
        columns.reverse()
    return _op("stack")(columns, 1)


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance of the variables (rows) of ``input`` over its observations (columns), divided by
    ``observations - correction`` (frequency and observation weights are refused by name)."""
    x = tensor_operand("cov", input)
    if fweights is not None or aweights is not None:
        raise PyascError("cov", "fweights and aweights are not supported", shapes=[x.shape])
    if x.ndim > 2:
        raise PyascError("cov", f"expected input to have two or fewer dimensions but got an input with {x.ndim} "
                         "dimensions", shapes=[x.shape])
    correction = _integer("cov", "correction", correction, [x.shape])
    rows = x.reshape(1, -1) if x.ndim < 2 else x
    if not rows.dtype.is_floating_point:
        rows = rows.to(dt.float32)
    centred = rows - rows.mean(1, keepdim=True)
    c = (centred @ centred.transpose(0, 1)) / float(max(rows.shape[1] - correction, 0))  # 0: inf and NaN
    return c.reshape(()) if c.shape == (1, 1) else c


def corrcoef(input):  # noqa: A002
    """The Pearson correlation coefficients of the variables (rows) of ``input``, clipped to [-1, 1]."""
    x = tensor_operand("corrcoef", input)
    c = cov(x)
    if c.ndim == 0:
        return c / c
    d = _op("sqrt")(_op("diagonal")(c))
    return _op("clamp")(c / d.unsqueeze(1) / d.unsqueeze(0), -1.0, 1.0)


def _pool1d_size(name: str, x: Tensor, output_size) -> int:
    if isinstance(output_size, list | tuple):
        if len(output_size) != 1:
            raise PyascError(name, f"output_size must be one integer, got {output_size!r}", shapes=[x.shape])
        output_size = output_size[0]
    size = _integer(name, "output_size", output_size, [x.shape])
    if x.ndim not in (2, 3) or size <= 0 or x.shape[-1] == 0:
        raise PyascError(name, f"expected a 2-d or 3-d non-empty input and a positive output_size, got shape "
                         f"{x.shape} and {size}", shapes=[x.shape])
    return size


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """The means of PyTorch's adaptive bands of the last dim."""
    from .ops_pool import adaptive_bands

    x = tensor_operand("adaptive_avg_pool1d", input)
    size = _pool1d_size("adaptive_avg_pool1d", x, output_size)
    return adaptive_bands(x, -1, size, lambda t, d, keep: t.mean(d, keepdim=keep))


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """The maxima of PyTorch's adaptive bands of the last dim (their positions are refused by name)."""
    from .ops_pool import adaptive_bands

    x = tensor_operand("adaptive_max_pool1d", input)
    if return_indices:
        raise PyascError("adaptive_max_pool1d", "return_indices=True is not supported", shapes=[x.shape])
    size = _pool1d_size("adaptive_max_pool1d", x, output_size)
    return adaptive_bands(x, -1, size, lambda t, d, keep: t.amax(d, keepdim=keep))


def kthvalue(input, k, dim=-1, keepdim=False):  # noqa: A002
    """The ``k``-th smallest value along ``dim`` (from 1) and its index, as ``(values, indices)``."""
    from .ops_reduce import MaxMin

    x = tensor_operand("kthvalue", input)
    d = dim_index("kthvalue", dim, max(x.ndim, 1), x.shape)
    n = x.shape[d] if x.ndim else 1
    k = _integer("kthvalue", "k", k, [x.shape])
    if not 1 <= k <= n:
        raise PyascError("kthvalue", f"selected number k out of range for dimension {d} of size {n}: {k}",
                         shapes=[x.shape])
    if not x.ndim:
        return MaxMin(x * 1, zeros((), dtype=dt.int32))
    values, indices = _op("sort")(x, d)
    at = (slice(None),) * d + (slice(k - 1, k),)
    v, i = values[at], indices[at]
    return MaxMin(v, i) if keepdim else MaxMin(v.squeeze(d), i.squeeze(d))


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile(name: str, input, q, dim, keepdim, interpolation, ignore_nan):
    x = tensor_operand(name, input)
    rank = x.ndim
    if not x.dtype.is_floating_point:
        raise PyascError(name, f"input tensor must be either float or double dtype, got {x.dtype.name}",
                         shapes=[x.shape])
    if interpolation not in _INTERPOLATIONS:
        raise PyascError(name, f"interpolation must be one of {_INTERPOLATIONS}, got {interpolation!r}",
                         shapes=[x.shape])
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, np.float64)
    if qs.ndim > 1 or ((qs < 0) | (qs > 1)).any() or np.isnan(qs).any():
        raise PyascError(name, f"q must be a scalar or 1-d, with values in [0, 1], got {qs.tolist()}",
                         shapes=[x.shape])
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = dim_index(name, dim, max(x.ndim, 1), x.shape)
        x = x.reshape(1) if not x.ndim else x
    n = x.shape[d]
    if not n:
        raise PyascError(name, "input tensor must be non-empty", shapes=[x.shape])
    values = _op("sort")(x, d).values.movedim(d, -1)  # NaNs last
    nans = _op("isnan")(values).to(dt.int32).sum(-1, keepdim=True)
    valid = (n - nans if ignore_nan else nans * 0 + n).to(dt.float32)
    outs = []
    for qv in qs.reshape(-1):
        at = (valid - 1.0) * float(qv)
        lo = _op("clamp_min")(_op("floor")(at), 0.0)
        hi = _op("clamp_min")(_op("ceil")(at), 0.0)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = _op("round")(at)
        below = values.gather(-1, lo.to(dt.int32))
        above = values.gather(-1, hi.to(dt.int32))
        if interpolation == "midpoint":
            out = below + (above - below) * 0.5
        else:
            out = below + (above - below) * (at - lo).to(x.dtype)
        bad = (nans > 0) if not ignore_nan else (nans >= n)  # any NaN (quantile) or nothing else (nanquantile)
        outs.append(_op("where")(bad, float("nan"), out))
    result = _op("stack")(outs, 0).squeeze(-1)
    if keepdim:
        result = result.unsqueeze(d + 1 if dim is not None else 1)
        if dim is None:
            result = result.reshape((len(outs),) + (1,) * rank)
    if qs.ndim == 0:
        result = result[0]
    return result


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """The ``q``-quantiles (a number, or a 1-d list or tensor of them: a leading dim) of ``input`` along ``dim``
    (of all elements when None), interpolated as asked; NaN where a NaN is among the values."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):  # noqa: A002
    """``quantile`` of the values that are not NaN (NaN where all are)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """The counts of ``input``'s elements in ``bins`` equal bins over [``min``, ``max``] (the data's own range
    when both are 0), elements outside it left out, in ``input``'s floating dtype."""
    x = tensor_operand("histc", input)
    if not x.dtype.is_floating_point:
        raise PyascError("histc", f"expected a floating point input, got {x.dtype.name}", shapes=[x.shape])
    bins = _integer("histc", "bins", bins, [x.shape])
    if bins <= 0:
        raise PyascError("histc", f"bins must be > 0, got {bins}", shapes=[x.shape])
    if max < min:
        raise PyascError("histc", f"max must be larger than min, got {min} and {max}", shapes=[x.shape])
    flat = x.reshape(-1)
    if not flat.numel():
        return zeros((bins,), dtype=x.dtype)
    if min == max:  # the data's range, widened by 1 each way when it is one value
        lo, hi = flat.amin(), flat.amax()
        lo, hi = _op("where")(lo == hi, lo - 1, lo), _op("where")(lo == hi, hi + 1, hi)
    else:
        lo, hi = float(min), float(max)
    position = _op("floor")((flat - lo) * bins / (hi - lo))
    position = _op("where")(flat == hi, float(bins - 1), position)
    inside = (flat >= lo) & (flat <= hi)
    chosen = (position.unsqueeze(-1) == arange(bins, dtype=x.dtype)) & inside.unsqueeze(-1)
    return chosen.to(x.dtype).sum(0)


def _triangle_indices(name: str, row, col, offset, upper: bool) -> Tensor:
    row, col = (_integer(name, what, v) for what, v in (("row", row), ("col", col)))
    offset = _integer(name, "offset", offset)
    if row < 0 or col < 0:
        raise PyascError(name, f"row and col must be non-negative, got {row} and {col}")
    rows, cols = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return Tensor(np.stack([rows, cols]).astype(np.int32).reshape(2, -1), dt.int32)


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix (on and below diagonal
    ``offset``), as a 2 x N int32 tensor."""
    return _triangle_indices("tril_indices", row, col, offset, False)


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (row, column) indices of the upper triangle (on and above diagonal ``offset``)."""
    return _triangle_indices("triu_indices", row, col, offset, True)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """The length-``r`` combinations of the elements of the 1-d ``input``, one per row (with
    ``with_replacement``, an element may repeat)."""
    import itertools

    x = tensor_operand("combinations", input)
    if x.ndim != 1:
        raise PyascError("combinations", f"expects a 1-d tensor, got shape {x.shape}", shapes=[x.shape])
    r = _integer("combinations", "r", r, [x.shape])
    if r < 0:
        raise PyascError("combinations", f"r must be non-negative, got {r}", shapes=[x.shape])
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), np.int32).reshape(-1, r)
    if r == 0 or not index.size:
        return zeros((0,) if r == 0 else (0, r), dtype=x.dtype)
    return x[Tensor(index.reshape(-1), dt.int32)].reshape(-1, r)


def _scatter_into(name: str, input, src, index) -> Tensor:
    x, s = tensor_operand(name, input), tensor_operand(name, src)
    out = x.clone()
    region = out[index]
    if region.shape != s.shape:
        raise PyascError(name, f"expected src to have a size equal to the slice of self, got {s.shape} and "
                         f"{region.shape}", shapes=[x.shape, s.shape])
    out[index] = s
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``."""
    x = tensor_operand("slice_scatter", input)
    d = dim_index("slice_scatter", dim, max(x.ndim, 1), x.shape)
    return _scatter_into("slice_scatter", x, src, (slice(None),) * d + (slice(start, end, step),))


def select_scatter(input, src, dim, index):  # noqa: A002
    """``input`` with position ``index`` along ``dim`` replaced by ``src``."""
    x = tensor_operand("select_scatter", input)
    d = dim_index("select_scatter", dim, max(x.ndim, 1), x.shape)
    i = _integer("select_scatter", "index", index, [x.shape])
    if not -x.shape[d] <= i < x.shape[d]:
        raise PyascError("select_scatter", f"index {i} is out of bounds for dimension {d} with size {x.shape[d]}",
                         shapes=[x.shape])
    return _scatter_into("select_scatter", x, src, (slice(None),) * d + (i,))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``input`` with its ``offset`` diagonal (of dims ``dim1`` and ``dim2``, the last dim of ``src``) replaced
    by ``src``."""
    x, s = tensor_operand("diagonal_scatter", input), tensor_operand("diagonal_scatter", src)
    d1 = dim_index("diagonal_scatter", dim1, x.ndim, x.shape)
    d2 = dim_index("diagonal_scatter", dim2, x.ndim, x.shape)
    if d1 == d2:
        raise PyascError("diagonal_scatter", "dim1 and dim2 must differ", shapes=[x.shape])
    moved = x.movedim((d1, d2), (-2, -1))
    rows, cols = moved.shape[-2:]
    k = _integer("diagonal_scatter", "offset", offset, [x.shape])
    length = max(0, min(rows + min(k, 0), cols - max(k, 0)))
    if s.shape != moved.shape[:-2] + (length,):
        raise PyascError("diagonal_scatter", f"src of shape {s.shape} does not fit the diagonal of shape "
                         f"{moved.shape[:-2] + (length,)}", shapes=[x.shape, s.shape])
    on = (arange(rows, dtype=dt.int32).unsqueeze(-1) + k) == arange(cols, dtype=dt.int32)
    # the diagonal's element at (r, r + k) is src[r] (k >= 0), at (c - k, c) src[c] (k < 0)
    if k >= 0:
        placed = _op("pad")(s, (0, rows - length)).unsqueeze(-1)
    else:
        placed = _op("pad")(s, (0, cols - length)).unsqueeze(-2)
    return _op("where")(on, placed.to(moved.dtype), moved).movedim((-2, -1), (d1, d2))


_FUNCTIONS = [inner, addmv, addbmm, matrix_power, ravel, take_along_dim, index_fill, meshgrid, cartesian_prod,
              block_diag, vander, cov, corrcoef, adaptive_avg_pool1d, adaptive_max_pool1d, kthvalue, quantile,
              nanquantile, histc, tril_indices, triu_indices, combinations, slice_scatter, select_scatter,
              diagonal_scatter]
_METHODS = {inner, addmv, addbmm, matrix_power, ravel, take_along_dim, index_fill, cov, corrcoef, kthvalue,
            quantile, nanquantile, histc, slice_scatter, select_scatter, diagonal_scatter}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
