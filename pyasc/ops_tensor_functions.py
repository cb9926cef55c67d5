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


_FUNCTIONS = [inner, addmv, addbmm, matrix_power, ravel, take_along_dim, index_fill, meshgrid, cartesian_prod,
              block_diag, vander, cov, corrcoef, adaptive_avg_pool1d, adaptive_max_pool1d]
_METHODS = {inner, addmv, addbmm, matrix_power, ravel, take_along_dim, index_fill, cov, corrcoef}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
