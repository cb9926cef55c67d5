"""Selections and sorting written with the device ops (``OpDef``s of kind ``composite``; each
compiles as one program, ``fused.py``): ``index_select``, ``gather``, ``scatter``, ``sort`` and
``argsort``.

* A selection compares the indices with ``0..n-1`` and sums the one selected element per output
  (exact: the others are 0). int32 data is selected as two halves exact in float32
  (``x = hi * 4096 + lo``), bool and int8 data as float16. Concrete indices are checked against
  the dimension's size (a PyascError, as PyTorch's IndexError).
* ``sort`` ranks each element by counting the elements before it (``x_j < x_i``, ties by index,
  so it is stable; NaN sorts as the largest value, as in PyTorch): n x n comparisons per row;
  the values and indices are then selected by rank.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from . import dtypes as dt
from .args import dim_index, operand, tensor_operand
from .errors import PyascError
from .fused import fused_op, vjp_through
from .ops_compare import EQ, GT, ISNAN, LT, WHERE
from .ops_elementwise import BY_NAME as EW
from .ops_elementwise import CAST
from .ops_math import floor32
from .ops_reduce import AMAX, PROD, SUM
from .ops_shape import CAT, broadcast_mask, broadcast_to, constant, moved_as_half
from .tensor import Tensor

ADD, SUB, MUL, DIV = (EW[n] for n in ("add", "sub", "mul", "div"))
F16, F32, I32 = dt.float16, dt.float32, dt.int32
Sorted = namedtuple("Sorted", ["values", "indices"])


def pick(onehot: Tensor, x: Tensor) -> Tensor:
    """Sum over the last dim of ``where(onehot, x, 0)`` (broadcast): the element of x each row of
    ``onehot`` marks, exactly, in x's dtype."""
    d = x.dtype
    onehot = broadcast_mask(onehot, np.broadcast_shapes(onehot.shape, x.shape))
    if d is dt.bfloat16:    # summed in float32 (one non-zero term: exact) rather than widened per tile
        return CAST(pick(onehot, CAST(x, dtype=F32)), dtype=d)
    if d.is_floating_point:
        return SUM(WHERE(onehot, x, 0.0), dim=-1)
    if d in dt.STORAGE_DTYPES:
        return CAST(pick(onehot, CAST(x, dtype=F16)), dtype=d)
    hi = CAST(floor32(DIV(CAST(x, dtype=F32), 4096.0)), dtype=I32)
    lo = SUB(x, MUL(hi, 4096))
    under = WHERE(LT(lo, 0), 1, 0)
    hi, lo = SUB(hi, under), ADD(lo, MUL(under, 4096))
    over = WHERE(LT(lo, 4096), 0, 1)
    hi, lo = ADD(hi, over), SUB(lo, MUL(over, 4096))
    his = CAST(pick(onehot, CAST(hi, dtype=F32)), dtype=I32)
    los = CAST(pick(onehot, CAST(lo, dtype=F32)), dtype=I32)
    return ADD(MUL(his, 4096), los)


def _check_index(name, index, n, shapes):
    if index.dtype is not I32:
        raise PyascError(name, f"the index must be an integer tensor, got {index.dtype.name}", shapes=shapes)
    if not index.is_traced and index.numel() and (index.numpy().min() < -n or index.numpy().max() >= n):
        raise PyascError(name, f"index out of range for a dimension of size {n}", shapes=shapes)


def _last(x: Tensor, dim: int) -> Tensor:
    return x if dim == x.ndim - 1 else x.transpose(dim, -1)


def _iota(n: int, d=I32) -> Tensor:
    return constant(np.arange(n), d)


def _wrapped(index, n):
    """Negative indices counted from the end."""
    return WHERE(LT(index, 0), ADD(index, n), index)


def _index_select_signature(x, dim, index):
    x, index = tensor_operand("index_select", x), tensor_operand("index_select", index)
    dim = dim_index("index_select", dim, x.ndim, x.shape)
    if index.ndim > 1:
        raise PyascError("index_select", f"the index must be 0-d or 1-D, got {index.shape}",
                         shapes=[x.shape, index.shape])
    _check_index("index_select", index, x.shape[dim] if x.ndim else 1, [x.shape, index.shape])
    return [x, index], {"dim": dim}


def _index_select(x, index, dim):
    """The slices of x along dim at ``index``."""
    if x.ndim == 0:
        return MUL(x, 1) if index.ndim == 0 else broadcast_to(x.reshape(1), index.shape)
    n, k = x.shape[dim], index.numel()
    idx = _wrapped(index.reshape(k, 1), n)
    out = pick(EQ(idx, _iota(n)), _last(x, dim).unsqueeze(-2))
    return _last(out, dim)


def _gather_signature(x, dim, index, *, sparse_grad=False):
    x, index = tensor_operand("gather", x), tensor_operand("gather", index)
    dim = dim_index("gather", dim, x.ndim, x.shape)
    shapes = [x.shape, index.shape]
    if index.ndim != x.ndim or any(index.shape[i] > x.shape[i] for i in range(x.ndim) if i != dim):
        raise PyascError("gather", f"index of shape {index.shape} does not fit the input of shape {x.shape} "
                         f"(same number of dims, no larger except along dim {dim})", shapes=shapes)
    _check_index("gather", index, x.shape[dim] if x.ndim else 1, shapes)
    return [x, index], {"dim": dim}


def _gather(x, index, dim):
    """out[..., i, ...] = x[..., index[..., i, ...], ...] along dim."""
    if x.ndim == 0:
        return MUL(x, 1)
    n = x.shape[dim]
    xs = x[tuple(slice(None) if i == dim else slice(0, index.shape[i]) for i in range(x.ndim))]
    idx = _wrapped(_last(index, dim).unsqueeze(-1), n)
    out = pick(EQ(idx, _iota(n)), _last(xs, dim).unsqueeze(-2))
    return _last(out, dim)


def _scatter_signature(x, dim, index, src=None, *, value=None, reduce=None):
    x, index = tensor_operand("scatter", x), tensor_operand("scatter", index)
    dim = dim_index("scatter", dim, x.ndim, x.shape)
    if reduce not in (None, "add", "multiply"):
        raise PyascError("scatter", f"reduce must be 'add' or 'multiply', got {reduce!r}", shapes=[x.shape])
    if reduce is not None and x.dtype is dt.bool_:
        raise PyascError("scatter", f"reduce={reduce!r} of a bool tensor", shapes=[x.shape])
    src = value if src is None else src
    if src is None:
        raise PyascError("scatter", "needs src or value")
    src = operand("scatter", src)
    shapes = [x.shape, index.shape] + ([src.shape] if isinstance(src, Tensor) else [])
    if index.ndim != x.ndim or any(index.shape[i] > x.shape[i] for i in range(x.ndim) if i != dim):
        raise PyascError("scatter", f"index of shape {index.shape} does not fit the input of shape {x.shape}",
                         shapes=shapes)
    if isinstance(src, Tensor):
        if src.dtype is not x.dtype:
            raise PyascError("scatter", f"src must have the input's dtype {x.dtype.name}, got {src.dtype.name}",
                             shapes=shapes)
        if src.ndim != x.ndim or any(index.shape[i] > src.shape[i] for i in range(x.ndim)):
            raise PyascError("scatter", f"src of shape {src.shape} is smaller than the index {index.shape}",
                             shapes=shapes)
    _check_index("scatter", index, x.shape[dim] if x.ndim else 1, shapes)
    return [x, index, src], {"dim": dim, "reduce": reduce}


def _scatter_vjp(ctx, g):
    """PyTorch's rule: the input's gradient is ``g`` with the written places zeroed, ``src``'s is ``g`` gathered
    at the index (every ``src`` element sent to a place gets its gradient, also one a later duplicate
    overwrote); a ``reduce`` differentiates through its composition."""
    x, index, src = ctx.inputs
    if ctx.attrs.get("reduce") is not None:
        return vjp_through(_scatter)(ctx, g)
    dim = ctx.attrs["dim"]
    gx = _scatter(g, index, 0.0, dim)
    if not isinstance(src, Tensor):
        return gx, None, None
    gs = _gather(g, index, dim)
    if gs.shape != src.shape:  # src larger than the index: the rest gets no gradient
        from .ops_pad import pad_dims

        gs = pad_dims(gs, {d: (0, src.shape[d] - gs.shape[d]) for d in range(src.ndim)}, "constant", 0.0)
    return gx, None, gs


def _scatter(x, index, src, dim, reduce=None):
    """x with x[..., index[..., i, ...], ...] = src[..., i, ...] along dim; ``reduce`` "add" or
    "multiply" combines every src element sent to a place with x's element there instead."""
    if index.numel() == 0:
        return MUL(x, 1) if x.dtype not in dt.STORAGE_DTYPES else x
    n, r = x.shape[dim], x.ndim
    region = tuple(slice(None) if i == dim else slice(0, index.shape[i]) for i in range(r))
    idx = _wrapped(_last(index, dim).unsqueeze(-2), n)                # (..., 1, k)
    hits = EQ(idx, _iota(n).reshape(n, 1))                            # (..., n, k)
    xr = x[region]
    if reduce is not None:
        block = _scatter_reduce(xr, hits, src, index, dim, reduce)
    else:
        hit = GT(AMAX(WHERE(hits, 1.0, 0.0), dim=-1), 0.0)            # (..., n)
        if index.shape[dim] > 1:  # a place several indices name takes the last one's value (as PyTorch on CPU)
            k = index.shape[dim]
            order = constant(np.arange(k, dtype=np.float32), F32)
            last = AMAX(WHERE(hits, order, -1.0), dim=-1, keepdim=True)  # (..., n, 1)
            hits = hits & EQ(order, last)
        if isinstance(src, Tensor):
            vals = _last(pick(hits, _last(src[tuple(slice(0, s) for s in index.shape)], dim).unsqueeze(-2)), dim)
        else:
            vals = src
        block = moved_as_half(xr, lambda v: WHERE(_last(hit, dim), vals if not isinstance(vals, Tensor)
                                           else CAST(vals, dtype=v.dtype), v))
    done = {dim}
    for i in range(r):          # the rest of x around the block
        if i == dim:
            continue
        if index.shape[i] < x.shape[i]:
            rest = x[tuple(slice(None) if j in done or j == dim else
                           (slice(index.shape[i], None) if j == i else slice(0, index.shape[j])) for j in range(r))]
            block = CAT([block, rest], dim=i)
        done.add(i)
    return block


def _scatter_reduce(xr, hits, src, index, dim, reduce):
    """The region of x the index covers, with the src elements sent to each place added to or
    multiplied into it (floats in float32, integers in int32, cast back to x's dtype)."""
    work = F32 if xr.dtype.is_floating_point else I32
    if isinstance(src, Tensor):
        s = CAST(_last(src[tuple(slice(0, k) for k in index.shape)], dim), dtype=work).unsqueeze(-2)  # (..., 1, k)
    else:
        s = float(src) if work is F32 else int(src)
    full = broadcast_mask(hits, np.broadcast_shapes(hits.shape, s.shape if isinstance(s, Tensor) else ()))
    if reduce == "add":
        terms = SUM(WHERE(full, s, 0.0 if work is F32 else 0), dim=-1)
        out = ADD(CAST(xr, dtype=work), _last(terms, dim))
    else:
        factors = PROD(WHERE(full, s, 1.0 if work is F32 else 1), dim=-1)
        out = MUL(CAST(xr, dtype=work), _last(factors, dim))
    return CAST(out, dtype=xr.dtype)


# ----------------------------------------------------------------------------- sorting

def _sort_signature(x, dim=-1, descending=False, *, stable=False):
    x = tensor_operand("sort", x)
    if x.dtype in dt.STORAGE_DTYPES:
        raise PyascError("sort", f"does not support dtype {x.dtype.name}", shapes=[x.shape])
    return [x], {"dim": dim_index("sort", dim, x.ndim, x.shape), "descending": bool(descending)}


def _argsort_signature(x, dim=-1, descending=False, *, stable=False):
    return _sort_signature(x, dim, descending)


def _ranks(x, descending):
    """The position of each element of the last dim in the sorted order (float32)."""
    n = x.shape[-1]
    if x.dtype.is_floating_point:
        k = CAST(x, dtype=F32)
        f = WHERE(ISNAN(k), 1.0, 0.0)
        k = WHERE(ISNAN(k), math.inf, k)
    else:
        k, f = x, None
    ki, kj = k.unsqueeze(-1), k.unsqueeze(-2)
    first = GT if descending else LT
    before = WHERE(first(kj, ki), 1.0, 0.0)
    tie = WHERE(EQ(kj, ki), 1.0, 0.0)
    if f is not None:
        fi, fj = f.unsqueeze(-1), f.unsqueeze(-2)
        before = ADD(before, MUL(tie, WHERE(first(fj, fi), 1.0, 0.0)))
        tie = MUL(tie, WHERE(EQ(fj, fi), 1.0, 0.0))
    earlier = constant(np.tril(np.ones((n, n), np.float32), -1))
    return SUM(ADD(before, MUL(tie, earlier)), dim=-1)


def _sorted(x, dim, descending, values: bool):
    if x.ndim == 0:
        return (MUL(x, 1), constant(np.zeros((), np.int32))) if values else constant(np.zeros((), np.int32))
    xt = _last(x, dim)
    n = xt.shape[-1]
    onehot = EQ(_ranks(xt, descending).unsqueeze(-2), _iota(n, F32).reshape(n, 1))     # (..., rank, i)
    idx = _last(CAST(pick(onehot, _iota(n, F32)), dtype=I32), dim)
    if not values:
        return idx
    return _last(pick(onehot, xt.unsqueeze(-2)), dim), idx


def sort_along(x, dim, descending):
    """(values, indices) of x sorted along dim (stable; NaN last, or first when descending)."""
    return _sorted(x, dim, descending, True)


def _argsort(x, dim, descending):
    """The indices that sort x along dim (stable)."""
    return _sorted(x, dim, descending, False)



OPS = [
    fused_op("index_select", _index_select, _index_select_signature),
    fused_op("gather", _gather, _gather_signature),
    fused_op("scatter", _scatter, _scatter_signature, vjp=_scatter_vjp),
    fused_op("sort", sort_along, _sort_signature, pack=Sorted._make),
    fused_op("argsort", _argsort, _argsort_signature),
]
