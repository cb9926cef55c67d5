"""Views and data movement: reshape, view, transpose, permute, squeeze, unsqueeze, flatten,
contiguous, indexing, cat, stack, split, chunk and topk.

These run **on the host** with NumPy, not on the simulated device: the compiler has no
``asctensor`` lowering for them yet. Views share storage exactly where PyTorch's do (NumPy's
view rules are the same: ``reshape`` of a contiguous tensor, ``view``, ``transpose``,
``permute``, ``squeeze``/``unsqueeze``, basic indexing and ``split``/``chunk`` return views;
``contiguous`` copies only a non-contiguous tensor; ``cat``/``stack``, ``topk`` and advanced
indexing copy). Inside ``pyasc.jit`` each of them raises a ``PyascError`` naming the op rather
than tracing something wrong.
"""

from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from . import dtypes as dt
from .errors import PyascError, describe


class PyascIndexError(PyascError, IndexError):
    """An index out of range (also an ``IndexError``, so iteration protocols work)."""


def _tensor(x, op):
    from .interop import to_pyasc

    return to_pyasc(x, op)


def _host(op: str, *tensors):
    """The NumPy storage of the operands; PyascError for traced (jit) tensors."""
    from .dispatch import raise_host_only

    out = []
    for t in tensors:
        if t._trace is not None:
            raise_host_only(op, tensors)
        out.append(t._data)
    return out


def _wrap(a: np.ndarray, like, fmt=None):
    from .tensor import Tensor

    t = Tensor(a, like.dtype, device=like._device)
    if fmt is not None:
        t._format = fmt
    return t


def _dim(op: str, d, ndim: int, shape=()) -> int:
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise PyascError(op, f"dim must be an integer, got {describe(d)}", shapes=[shape])
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= d <= hi:
        raise PyascIndexError(op, f"dimension out of range (expected to be in range of [{lo}, {hi}], "
                              f"but got {d}) for shape {tuple(shape)}", shapes=[shape])
    return int(d) % max(ndim, 1)


def _shape_arg(op: str, shape, numel: int, src) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], list | tuple):
        shape = tuple(shape[0])
    dims = []
    for d in shape:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise PyascError(op, f"shape must be integers, got {describe(d)}", shapes=[src])
        dims.append(int(d))
    if dims.count(-1) > 1:
        raise PyascError(op, f"only one dimension can be inferred (-1), got {tuple(dims)}", shapes=[src])
    if any(d < -1 for d in dims):
        raise PyascError(op, f"invalid shape dimension in {tuple(dims)}", shapes=[src])
    known = 1
    for d in dims:
        if d != -1:
            known *= d
    if -1 in dims:
        if known == 0 or numel % known:
            raise PyascError(op, f"shape {tuple(dims)} is invalid for input of size {numel} "
                             f"(shape {tuple(src)})", shapes=[src])
        dims[dims.index(-1)] = numel // known
    elif known != numel:
        raise PyascError(op, f"shape {tuple(dims)} is invalid for input of size {numel} (shape {tuple(src)})",
                         shapes=[src])
    return tuple(dims)


def reshape(x, *shape):
    """The tensor with a new shape: a view when the storage allows it, else a copy."""
    x = _tensor(x, "reshape")
    (a,) = _host("reshape", x)
    return _wrap(a.reshape(_shape_arg("reshape", shape, a.size, x.shape)), x)


def view(x, *shape):
    """A view with a new shape; PyascError when the strides do not allow one (use reshape)."""
    x = _tensor(x, "view")
    (a,) = _host("view", x)
    new = _shape_arg("view", shape, a.size, x.shape)
    v = a.view()
    try:
        v.shape = new
    except AttributeError:
        raise PyascError("view", f"view size {new} is not compatible with the input's size and stride "
                         f"(shape {x.shape}, non-contiguous); use .reshape(...) instead",
                         shapes=[x.shape]) from None
    return _wrap(v, x)


def flatten(x, start_dim: int = 0, end_dim: int = -1):
    x = _tensor(x, "flatten")
    (a,) = _host("flatten", x)
    if a.ndim == 0:
        return _wrap(a.reshape(1), x)
    s = _dim("flatten", start_dim, a.ndim, x.shape)
    e = _dim("flatten", end_dim, a.ndim, x.shape)
    if s > e:
        raise PyascError("flatten", f"start_dim {start_dim} comes after end_dim {end_dim}", shapes=[x.shape])
    n = 1
    for d in a.shape[s:e + 1]:
        n *= d
    return _wrap(a.reshape(a.shape[:s] + (n,) + a.shape[e + 1:]), x)


def squeeze(x, dim=None):
    x = _tensor(x, "squeeze")
    (a,) = _host("squeeze", x)
    if dim is None:
        return _wrap(a.reshape(tuple(d for d in a.shape if d != 1)), x)
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    axes = {_dim("squeeze", d, a.ndim, x.shape) for d in dims}
    return _wrap(a.reshape(tuple(n for i, n in enumerate(a.shape) if not (i in axes and n == 1))), x)


def unsqueeze(x, dim: int):
    x = _tensor(x, "unsqueeze")
    (a,) = _host("unsqueeze", x)
    d = _dim("unsqueeze", dim, a.ndim + 1, x.shape)
    return _wrap(np.expand_dims(a, d), x)


def transpose(x, dim0: int, dim1: int):
    x = _tensor(x, "transpose")
    (a,) = _host("transpose", x)
    if a.ndim == 0:
        return _wrap(a, x)
    return _wrap(np.swapaxes(a, _dim("transpose", dim0, a.ndim, x.shape),
                             _dim("transpose", dim1, a.ndim, x.shape)), x)


def permute(x, *dims):
    x = _tensor(x, "permute")
    (a,) = _host("permute", x)
    if len(dims) == 1 and isinstance(dims[0], list | tuple):
        dims = tuple(dims[0])
    axes = [_dim("permute", d, a.ndim, x.shape) for d in dims]
    if sorted(axes) != list(range(a.ndim)):
        raise PyascError("permute", f"dims {tuple(dims)} are not a permutation of the {a.ndim} "
                         f"dimensions of shape {x.shape}", shapes=[x.shape])
    return _wrap(np.transpose(a, axes), x)


def contiguous(x):
    """The tensor itself when its storage is row-major contiguous, else a contiguous copy."""
    x = _tensor(x, "contiguous")
    (a,) = _host("contiguous", x)
    if a.flags.c_contiguous:
        return x
    return _wrap(np.ascontiguousarray(a), x, x._format)


def is_contiguous(x) -> bool:
    (a,) = _host("is_contiguous", _tensor(x, "is_contiguous"))
    return bool(a.flags.c_contiguous)


def _index(idx):
    """A pyasc/torch index (ints, slices, None, Ellipsis, tensors, lists) as a NumPy index."""
    from .interop import is_torch_tensor, to_numpy
    from .tensor import Tensor

    if isinstance(idx, tuple):
        return tuple(_index(i) for i in idx)
    if isinstance(idx, Tensor) or is_torch_tensor(idx):
        a = to_numpy(idx)
        if a.dtype.kind not in "biu":
            raise PyascError("getitem", f"tensors used as indices must be integer or bool, got {describe(idx)}")
        return a
    return idx


def getitem(x, idx):
    """``x[idx]``: basic indexing (ints, slices, None, ...) gives a view; integer or bool tensor
    indices give a copy, as in PyTorch."""
    (a,) = _host("getitem", x)
    try:
        out = a[_index(idx)]
    except IndexError as e:
        raise PyascIndexError("getitem", f"index {describe(idx)} is invalid for shape {x.shape}: {e}",
                              shapes=[x.shape]) from None
    except (TypeError, ValueError) as e:
        raise PyascError("getitem", f"bad index {describe(idx)} for shape {x.shape}: {e}",
                         shapes=[x.shape]) from None
    if not isinstance(out, np.ndarray):       # a scalar element: keep a 0-d view-like tensor
        out = np.asarray(out, dtype=a.dtype)
    return _wrap(out, x)


def setitem(x, idx, value) -> None:
    """``x[idx] = value``: writes into ``x``'s storage (host side)."""
    from .interop import is_torch_tensor, to_numpy
    from .tensor import Tensor

    (a,) = _host("setitem", x)
    if isinstance(value, Tensor) or is_torch_tensor(value):
        v = to_numpy(value) if not isinstance(value, Tensor) else _host("setitem", value)[0]
    else:
        v = value
    try:
        with np.errstate(all="ignore"):
            a[_index(idx)] = np.asarray(v).astype(a.dtype) if x.dtype is not dt.bool_ else np.asarray(v) != 0
    except IndexError as e:
        raise PyascIndexError("setitem", f"index {describe(idx)} is invalid for shape {x.shape}: {e}",
                              shapes=[x.shape]) from None
    except (TypeError, ValueError) as e:
        raise PyascError("setitem", f"cannot assign {describe(value)} to x[{describe(idx)}] of shape "
                         f"{x.shape}: {e}", shapes=[x.shape]) from None


def _sequence(op: str, tensors):
    from .interop import is_torch_tensor
    from .tensor import Tensor

    if isinstance(tensors, Tensor) or is_torch_tensor(tensors) or not isinstance(tensors, list | tuple):
        raise PyascError(op, f"expected a list or tuple of tensors, got {describe(tensors)}")
    if not tensors:
        raise PyascError(op, "expected a non-empty list of tensors")
    ts = [_tensor(t, op) for t in tensors]
    devices = {t._device for t in ts if t._trace is None}
    if len(devices) > 1:
        raise PyascError(op, f"expected all tensors on the same device, got {', '.join(sorted(map(str, devices)))}")
    d = ts[0].dtype
    for t in ts[1:]:
        d = dt.promote_types(d, t.dtype)
    arrays = _host(op, *ts)
    return ts, [a.astype(d.np_dtype, copy=False) for a in arrays], d


def cat(tensors, dim: int = 0):
    """Concatenate along an existing dimension (dtypes promote as in PyTorch)."""
    from .tensor import Tensor

    ts, arrays, d = _sequence("cat", tensors)
    shapes = [t.shape for t in ts]
    ndim = ts[0].ndim
    if any(t.ndim != ndim for t in ts) or ndim == 0:
        raise PyascError("cat", "tensors must have the same (non-zero) number of dimensions, got shapes "
                         + ", ".join(map(str, shapes)), shapes=shapes)
    ax = _dim("cat", dim, ndim, ts[0].shape)
    for t in ts[1:]:
        if t.shape[:ax] + t.shape[ax + 1:] != ts[0].shape[:ax] + ts[0].shape[ax + 1:]:
            raise PyascError("cat", f"sizes of tensors must match except in dimension {ax}: shapes "
                             + ", ".join(map(str, shapes)), shapes=shapes)
    return Tensor(np.concatenate(arrays, axis=ax), d, device=ts[0]._device)


concat = cat


def stack(tensors, dim: int = 0):
    """Join along a new dimension; all shapes must be equal."""
    from .tensor import Tensor

    ts, arrays, d = _sequence("stack", tensors)
    shapes = [t.shape for t in ts]
    if len(set(shapes)) != 1:
        raise PyascError("stack", "expects each tensor to be equal size, got shapes "
                         + ", ".join(map(str, shapes)), shapes=shapes)
    ax = _dim("stack", dim, ts[0].ndim + 1, ts[0].shape)
    return Tensor(np.stack(arrays, axis=ax), d, device=ts[0]._device)


def split(x, split_size_or_sections, dim: int = 0):
    """Views of consecutive pieces along ``dim``: pieces of one size (the last may be smaller)
    or of the given sizes, which must add up to the extent of ``dim``."""
    x = _tensor(x, "split")
    (a,) = _host("split", x)
    if a.ndim == 0:
        raise PyascError("split", "cannot split a 0-d tensor", shapes=[x.shape])
    ax = _dim("split", dim, a.ndim, x.shape)
    n = a.shape[ax]
    s = split_size_or_sections
    if isinstance(s, numbers.Integral) and not isinstance(s, bool):
        if s <= 0 and not (s == 0 and n == 0):
            raise PyascError("split", f"split_size must be positive, got {s}", shapes=[x.shape])
        sizes = [min(s, n - i) for i in range(0, n, s)] if n else [0]
    elif isinstance(s, list | tuple) and all(isinstance(v, numbers.Integral) and v >= 0 for v in s):
        sizes = [int(v) for v in s]
        if sum(sizes) != n:
            raise PyascError("split", f"split sizes {tuple(sizes)} do not sum to {n}, the size of dimension "
                             f"{ax} of shape {x.shape}", shapes=[x.shape])
    else:
        raise PyascError("split", f"split_size_or_sections must be an int or a list of non-negative ints, "
                         f"got {describe(s)}", shapes=[x.shape])
    out, start = [], 0
    for size in sizes:
        index = [slice(None)] * a.ndim
        index[ax] = slice(start, start + size)
        out.append(_wrap(a[tuple(index)], x))
        start += size
    return tuple(out)


def chunk(x, chunks: int, dim: int = 0):
    """``chunks`` views of (nearly) equal size along ``dim`` (PyTorch's rounding: ceil)."""
    x = _tensor(x, "chunk")
    if not isinstance(chunks, numbers.Integral) or chunks <= 0:
        raise PyascError("chunk", f"chunks must be a positive integer, got {describe(chunks)}", shapes=[x.shape])
    n = x.shape[_dim("chunk", dim, x.ndim, x.shape)] if x.ndim else 0
    return split(x, max(1, -(-n // chunks)), dim)


TopK = namedtuple("TopK", ["values", "indices"])


def topk(x, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices (int32; torch:
    int64). Sorted from best to worst; among equal values the lower index comes first; NaN
    counts as larger than any number, as in PyTorch."""
    from .tensor import Tensor

    x = _tensor(x, "topk")
    (a,) = _host("topk", x)
    if x.dtype is dt.bool_:
        raise PyascError("topk", "is not defined for bool tensors", dtypes=["bool"])
    ndim = max(a.ndim, 1)
    ax = _dim("topk", dim, ndim, x.shape)
    a1 = a.reshape(1) if a.ndim == 0 else a
    n = a1.shape[ax]
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise PyascError("topk", f"k ({k}) out of range for dimension {ax} of size {n} (shape {x.shape})",
                         shapes=[x.shape])
    if x.dtype.is_floating_point:
        w = a1.astype(np.float64)
        nan = np.isnan(w)
        key = -w if largest else w
        # NaN ranks first when largest (as torch), last when smallest
        key = np.where(nan, -np.inf if largest else np.inf, key)
        order = np.argsort(key, axis=ax, kind="stable")
    else:
        w = a1.astype(np.int64)
        order = np.argsort(-w if largest else w, axis=ax, kind="stable")
    idx = np.take(order, np.arange(k), axis=ax)
    values = np.take_along_axis(a1, idx, axis=ax)
    if a.ndim == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return TopK(Tensor(np.ascontiguousarray(values), x.dtype, device=x._device),
                Tensor(idx.astype(np.int32), dt.int32, device=x._device))
