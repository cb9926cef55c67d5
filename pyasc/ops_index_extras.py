"""More of ``torch`` and ``torch.nn.functional`` by index, each a composition of ops of the table (``COMPOSITE``):
selections whose size the data decides (``nonzero``, ``argwhere``, ``masked_select``: read on the host), searches
in sorted boundaries (``searchsorted``, ``bucketize``), and lookups and accumulations by index (``one_hot``,
``embedding``, ``index_add``, ``scatter_add``). Their values, dtypes (int32 where PyTorch gives int64) and errors
follow PyTorch's; the gradients are those of the ops they are made of."""

from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .args import dim_index, tensor_operand
from .errors import PyascError
from .opdef import COMPOSITE, OpDef
from .tensor import Tensor


def _op(name):
    from .ops import get_op

    return get_op(name)


def _positions(n: int, dims: int, at: int) -> Tensor:
    """0..n-1 as int32 along dim ``at`` of a ``dims``-d tensor (size 1 elsewhere)."""
    return Tensor(np.arange(n, dtype=np.int32).reshape([n if d == at else 1 for d in range(dims)]), dt.int32)


# ----------------------------------------------------------------------------- data-dependent shapes and search

def nonzero(x, *, as_tuple=False):
    """The indices of the nonzero elements, one row each (int32), or one tensor per dim; the shape depends on the
    values, so they are read on the host (inside ``pyasc.jit`` the function runs eagerly)."""
    x = tensor_operand("nonzero", x)
    values = x._concrete("nonzero")
    if not x.ndim:
        found = np.zeros((int(bool(values)), 0), np.int32)
        return (Tensor(np.zeros(found.shape[0], np.int32), dt.int32),) if as_tuple else Tensor(found, dt.int32)
    idx = np.nonzero(values)
    if as_tuple:
        return tuple(Tensor(i.astype(np.int32), dt.int32) for i in idx)
    return Tensor(np.stack(idx, 1).astype(np.int32), dt.int32)


def unique(x, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002 - PyTorch's names
    """The distinct values of ``x`` in ascending order (or its distinct slices along ``dim``), with each element's
    position among them (``return_inverse``) and their counts (``return_counts``), int32. The size depends on the
    values, so they are read on the host (inside ``pyasc.jit`` the function runs eagerly)."""
    x = tensor_operand("unique", x)
    values = x._concrete("unique")
    if dim is not None:
        dim = dim_index("unique", dim, x.ndim, x.shape)
    found, inverse, counts = np.unique(values, return_inverse=True, return_counts=True, axis=dim)
    out = [Tensor(found.astype(x.dtype.np_dtype), x.dtype)]
    if return_inverse:
        out.append(Tensor(inverse.reshape(values.shape if dim is None else -1).astype(np.int32), dt.int32))
    if return_counts:
        out.append(Tensor(counts.astype(np.int32), dt.int32))
    return out[0] if len(out) == 1 else tuple(out)


def argwhere(x):
    return nonzero(x)


def masked_select(x, mask):
    """The elements of ``x`` where ``mask`` holds (both broadcast), as a 1-d tensor."""
    x, mask = tensor_operand("masked_select", x), tensor_operand("masked_select", mask)
    if mask.dtype is not dt.bool_:
        raise PyascError("masked_select", f"expected a bool mask, got {mask.dtype.name}", shapes=[x.shape, mask.shape])
    shape = np.broadcast_shapes(x.shape, mask.shape)
    x, mask = (t.expand(*shape) if t.shape != shape else t for t in (x, mask))
    return x[mask]


def _count_before(op: str, sorted_values, values, right: bool):
    """For each of ``values``: how many of the last dim of ``sorted_values`` are below it (``right``: at most it),
    as int32; a 1-d sequence serves every value, an n-d one the values of its row."""
    seq, v = tensor_operand(op, sorted_values), tensor_operand(op, values)
    if seq.ndim > 1 and (v.ndim != seq.ndim or v.shape[:-1] != seq.shape[:-1]):
        raise PyascError(op, f"the leading dims of the boundaries {seq.shape} and the values {v.shape} must match",
                         shapes=[seq.shape, v.shape])
    below = v.unsqueeze(-1) >= seq.unsqueeze(-2) if seq.ndim > 1 else v.unsqueeze(-1) >= seq
    if not right:
        below = v.unsqueeze(-1) > (seq.unsqueeze(-2) if seq.ndim > 1 else seq)
    return below.to(dt.int32).sum(-1).to(dt.int32)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each value would go in the sorted last dim of ``sorted_sequence`` (the first such place, or with
    ``right`` the last), as int32."""
    if sorter is not None:
        raise PyascError("searchsorted", "sorter is not supported", shapes=[getattr(values, "shape", None)])
    if side is not None:
        right = side == "right"
    return _count_before("searchsorted", sorted_sequence, values, bool(right))


def bucketize(x, boundaries, *, out_int32=False, right=False):
    """The bucket of each element among the sorted 1-d ``boundaries``: how many boundaries are below it (with
    ``right``: at most it), as int32."""
    b = tensor_operand("bucketize", boundaries)
    if b.ndim != 1:
        raise PyascError("bucketize", f"boundaries must be 1-d, got shape {b.shape}", shapes=[b.shape])
    return _count_before("bucketize", b, x, bool(right))


# ----------------------------------------------------------------------------- by index

def _index_tensor(op: str, index) -> Tensor:
    index = tensor_operand(op, index)
    if index.dtype.is_floating_point or index.dtype is dt.bool_:
        raise PyascError(op, f"expected an integer index tensor, got {index.dtype.name}", shapes=[index.shape],
                         dtypes=[index.dtype.name])
    return index


def one_hot(x, num_classes=-1):
    """An int32 tensor of ``x.shape + (num_classes,)``, 1 at each element's class; ``num_classes=-1``: one more
    than the largest class (read from the data, so not inside ``pyasc.jit``)."""
    x = _index_tensor("one_hot", x)
    if num_classes == -1:
        values = x._concrete("one_hot")
        num_classes = int(values.max()) + 1 if values.size else 0
    else:
        num_classes = int(num_classes)
    if x._trace is None:
        values = x._concrete("one_hot")
        if values.size and (values.min() < 0 or values.max() >= num_classes):
            raise PyascError("one_hot", f"class values must be in [0, {num_classes}), got "
                             f"[{int(values.min())}, {int(values.max())}]", shapes=[x.shape])
    hit = x.unsqueeze(-1) == _positions(num_classes, x.ndim + 1, x.ndim)
    return hit.to(dt.int32)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at the indices ``x``: a tensor of ``x.shape + (D,)``."""
    x, weight = _index_tensor("embedding", x), tensor_operand("embedding", weight)
    if weight.ndim != 2:
        raise PyascError("embedding", f"weight must be 2-d (num_embeddings, D), got shape {weight.shape}",
                         shapes=[weight.shape])
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise PyascError("embedding", "max_norm, scale_grad_by_freq and sparse are not supported",
                         shapes=[x.shape, weight.shape])
    rows = _op("index_select")(weight, 0, x.reshape(-1))
    if padding_idx is not None:     # that row's values are looked up, but take no gradient
        n = weight.shape[0]
        p = int(padding_idx) + n if int(padding_idx) < 0 else int(padding_idx)
        keep = (x.reshape(-1) != p).unsqueeze(-1)
        rows = _op("where")(keep, rows, _op("detach")(rows))
    return rows.reshape(*x.shape, weight.shape[1])


def _placed(op: str, x, dim, index, src):
    """The operands of an accumulation by index, checked: (x, its dim ``d``, that dim's size, the index, ``src``).
    Each accumulation selects ``src`` where the index equals a position of ``d`` (a select, so an infinity or a
    NaN reaches only its own place) and sums over the index's positions."""
    x = tensor_operand(op, x)
    index, src = _index_tensor(op, index), tensor_operand(op, src)
    d = dim_index(op, dim, max(x.ndim, 1), x.shape)
    n = x.shape[d] if x.ndim else 1
    if x._trace is None and index._trace is None:
        values = index._concrete(op)
        if values.size and (values.min() < 0 or values.max() >= n):
            raise PyascError(op, f"index out of range for dimension {d} of size {n} (indices "
                             f"[{int(values.min())}, {int(values.max())}])", shapes=[x.shape, index.shape])
    return x, d, n, index, src


def index_add(x, dim, index, source, *, alpha=1):
    """``x`` plus ``alpha * source``'s slices along ``dim`` added at the positions ``index`` (repeats summed)."""
    x, d, n, index, source = _placed("index_add", x, dim, index, source)
    if index.ndim > 1 or source.ndim != x.ndim or source.shape[d] != index.numel() or any(
            source.shape[i] != x.shape[i] for i in range(x.ndim) if i != d):
        raise PyascError("index_add", f"source of shape {source.shape} does not match self {x.shape} with "
                         f"{index.numel()} indices along dim {d}", shapes=[x.shape, index.shape, source.shape])
    hit = index.reshape(-1, 1) == _positions(n, 2, 1)                              # (m, n)
    moved = source.movedim(d, -1)                                                   # (..., m)
    added = _op("where")(hit, moved.unsqueeze(-1), 0).sum(-2).movedim(-1, d)        # (..., n) -> x's layout
    return x + (added * alpha if alpha != 1 else added)


def scatter_add(x, dim, index, src):
    """``x`` with ``src[i][j]`` added at ``[index[i][j]][j]`` (for ``dim`` 0; repeats summed), over the shape of
    ``index``."""
    x, d, n, index, src = _placed("scatter_add", x, dim, index, src)
    if index.ndim != x.ndim or src.ndim != x.ndim or any(
            index.shape[i] > src.shape[i] or (i != d and index.shape[i] > x.shape[i]) for i in range(x.ndim)):
        raise PyascError("scatter_add", f"index {index.shape} must be no larger than src {src.shape}, nor than "
                         f"self {x.shape} outside dim {d}", shapes=[x.shape, index.shape, src.shape])
    if src.shape != index.shape:
        src = src[tuple(slice(0, k) for k in index.shape)]
    hit = index.movedim(d, -1).unsqueeze(-1) == _positions(n, index.ndim + 1, index.ndim)   # (..., m, n)
    added = _op("where")(hit, src.movedim(d, -1).unsqueeze(-1), 0).sum(-2).movedim(-1, d)
    pad = [(0, x.shape[i] - added.shape[i]) for i in range(x.ndim)]
    if any(hi for _, hi in pad):
        added = _op("pad")(added, tuple(v for lo, hi in reversed(pad) for v in (lo, hi)))
    return x + added.to(x.dtype)


def index_put(x, indices, values, accumulate=False):
    """``x`` with ``values`` put at ``x[indices]`` (a tuple of index tensors), or with ``accumulate`` added at
    ``x[index]`` (one index tensor along dim 0; repeats summed)."""
    x = tensor_operand("index_put", x)
    if not isinstance(indices, tuple | list):
        raise PyascError("index_put", f"indices must be a tuple of tensors, got {type(indices).__name__}",
                         shapes=[x.shape])
    if accumulate:
        if len(indices) != 1:
            raise PyascError("index_put", f"accumulate=True takes one index tensor, got {len(indices)}",
                             shapes=[x.shape])
        index = tensor_operand("index_put", indices[0])
        values = tensor_operand("index_put", values)
        return index_add(x, 0, index.reshape(-1), values.expand(index.numel(), *x.shape[1:]))
    out = x.clone()
    out[tuple(indices)] = values
    return out


_FUNCTIONS = [nonzero, argwhere, unique, masked_select, searchsorted, bucketize, one_hot, embedding, index_add,
              scatter_add, index_put]
_METHODS = {nonzero, argwhere, unique, masked_select, index_add, scatter_add, index_put}

OPS = [OpDef(f.__name__, decompose=f, kind=COMPOSITE, method=f in _METHODS) for f in _FUNCTIONS]
