"""Views and data movement: reshape, view, transpose, permute, squeeze, unsqueeze, flatten,
contiguous, indexing, cat, stack, split, chunk and topk.

Eagerly, views share storage exactly where PyTorch's do and are made on the host with NumPy
(NumPy's view rules are the same: ``reshape`` of a contiguous tensor, ``view``, ``transpose``,
``permute``, ``squeeze``/``unsqueeze``, basic indexing and ``split``/``chunk`` return views;
``contiguous`` copies only a non-contiguous tensor). The copying ops ``cat``, ``stack`` and
``topk`` (of a float tensor without NaN) run on the simulated device as compiled programs, compiled
once per signature like any eager op; operands they have no lowering for (bool tensors, integer
topk) and advanced indexing are computed on the host.

Inside ``pyasc.jit`` (value semantics) the shape changes ``reshape``, ``view``, ``flatten``,
``squeeze``, ``unsqueeze`` and ``contiguous``, basic indexing with unit steps (ints, slices,
``None``, ``...``) and ``split``/``chunk`` are traced as ``asctensor.reshape`` and
``asctensor.slice`` and cost nothing on the device (kernels read through them). ``transpose``,
``permute``, ``.t()``, ``.T`` and ``.mT`` are traced as ``asctensor.transpose`` (a reshape when only
size-1 dims move), slices with any other step, negative ones included (``x[::-1]``,
``x[5:0:-2]``), as ``asctensor.strided_slice``, ``cat`` as ``asctensor.concat`` and ``stack`` as
unsqueezes and a concat (along a new last dim: a concat along a new first dim and a transpose);
each of those becomes a data-movement kernel of its own (``lowering/tile_movement.py``; a step
that walks the last dim backwards gathers with a table counted from the tile's last column).
Casts to and from bool are a comparison with zero and a selection of 1 or 0 (``dispatch``).
``topk`` of a float tensor is traced as ``asctensor.topk`` (k <= 64): over the last dim it is ONE
row-wise kernel of ``k`` rounds of row max, argmax and masking (``lowering/topk_decompose.py``),
over another dim that kernel between two transposes; it returns the values and int32 indices
sorted best first, the lower index first among equal values (as ``torch.topk``); NaN is not
ranked inside jit, and integer tensors raise (the vector unit ranks floats only; eagerly they
run on the host). Tensor indices and assignment have no compiler lowering yet and raise a
``PyascError`` naming the op rather than tracing something wrong.
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


def _eager_on_device(op: str, program, tensors, key: tuple):
    """The copying op ``op`` on concrete tensors run as a compiled program on the simulated device
    (cached per signature); None when it has no device lowering for them (computed on the host)."""
    from .eager import run_eager_program

    if any(t._device != tensors[0]._device for t in tensors):
        return None
    return run_eager_program(op, program, list(tensors), key)


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


def _emit(op: str, x, build, shape):
    """Trace ``build(value)`` (an asctensor op) with the user's line; a traced Tensor of ``shape``.
    int8 and bool data move as float16 (exact) and are converted back."""
    from .errors import user_location
    from .tensor import Tensor

    if x.dtype in dt.STORAGE_DTYPES:
        moved = _emit(op, x.to(dt.float16), build, shape)
        return moved != 0 if x.dtype is dt.bool_ else moved.to(x.dtype)
    tr = x._trace
    with tr.at(user_location()):
        value = tr.emit(build(x._value)).results[0]
    return Tensor._traced(tr, value, x.dtype, shape)


def _traced_reshape(op: str, x, shape):
    from pyasc.dialects import asctensor

    shape = tuple(shape)
    if shape == x.shape:
        return x
    return _emit(op, x, lambda v: asctensor.ReshapeOp(v, shape), shape)


def _traced_slice(op: str, x, offsets, sizes):
    from pyasc.dialects import asctensor

    if tuple(sizes) == x.shape:
        return x
    if any(n == 0 for n in sizes):
        raise PyascError(op, f"an empty slice of shape {tuple(sizes)} is not supported inside pyasc.jit",
                         shapes=[x.shape])
    return _emit(op, x, lambda v: asctensor.SliceOp(v, list(offsets), list(sizes)), tuple(sizes))


def reshape(x, *shape):
    """The tensor with a new shape: a view when the storage allows it, else a copy."""
    x = _tensor(x, "reshape")
    if x._trace is not None:
        return _traced_reshape("reshape", x, _shape_arg("reshape", shape, x.numel(), x.shape))
    (a,) = _host("reshape", x)
    return _wrap(a.reshape(_shape_arg("reshape", shape, a.size, x.shape)), x)


def view(x, *shape):
    """A view with a new shape; PyascError when the strides do not allow one (use reshape)."""
    x = _tensor(x, "view")
    if x._trace is not None:
        return _traced_reshape("view", x, _shape_arg("view", shape, x.numel(), x.shape))
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
    if x.ndim == 0:
        new = (1,)
    else:
        s = _dim("flatten", start_dim, x.ndim, x.shape)
        e = _dim("flatten", end_dim, x.ndim, x.shape)
        if s > e:
            raise PyascError("flatten", f"start_dim {start_dim} comes after end_dim {end_dim}", shapes=[x.shape])
        n = 1
        for d in x.shape[s:e + 1]:
            n *= d
        new = x.shape[:s] + (n,) + x.shape[e + 1:]
    if x._trace is not None:
        return _traced_reshape("flatten", x, new)
    (a,) = _host("flatten", x)
    return _wrap(a.reshape(new), x)


def squeeze(x, dim=None):
    x = _tensor(x, "squeeze")
    if dim is None:
        new = tuple(d for d in x.shape if d != 1)
    else:
        dims = dim if isinstance(dim, tuple | list) else (dim,)
        axes = {_dim("squeeze", d, x.ndim, x.shape) for d in dims}
        new = tuple(n for i, n in enumerate(x.shape) if not (i in axes and n == 1))
    if x._trace is not None:
        return _traced_reshape("squeeze", x, new)
    (a,) = _host("squeeze", x)
    return _wrap(a.reshape(new), x)


def unsqueeze(x, dim: int):
    x = _tensor(x, "unsqueeze")
    d = _dim("unsqueeze", dim, x.ndim + 1, x.shape)
    if x._trace is not None:
        return _traced_reshape("unsqueeze", x, x.shape[:d] + (1,) + x.shape[d:])
    (a,) = _host("unsqueeze", x)
    return _wrap(np.expand_dims(a, d), x)


def _traced_permute(op: str, x, perm):
    """``asctensor.transpose`` by ``perm``; a reshape when the dims longer than 1 keep their order."""
    from pyasc.dialects import asctensor

    perm = tuple(perm)
    shape = tuple(x.shape[p] for p in perm)
    if [p for p in perm if x.shape[p] != 1] == [p for p in range(x.ndim) if x.shape[p] != 1]:
        return _traced_reshape(op, x, shape)
    return _emit(op, x, lambda v: asctensor.TransposeOp(v, perm), shape)


def transpose(x, dim0: int, dim1: int):
    x = _tensor(x, "transpose")
    if x.ndim == 0:
        return x if x._trace is not None else _wrap(_host("transpose", x)[0], x)
    d0, d1 = _dim("transpose", dim0, x.ndim, x.shape), _dim("transpose", dim1, x.ndim, x.shape)
    if x._trace is not None:
        perm = list(range(x.ndim))
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return _traced_permute("transpose", x, perm)
    (a,) = _host("transpose", x)
    return _wrap(np.swapaxes(a, d0, d1), x)


def permute(x, *dims):
    x = _tensor(x, "permute")
    if len(dims) == 1 and isinstance(dims[0], list | tuple):
        dims = tuple(dims[0])
    axes = [_dim("permute", d, x.ndim, x.shape) for d in dims]
    if sorted(axes) != list(range(x.ndim)):
        raise PyascError("permute", f"dims {tuple(dims)} are not a permutation of the {x.ndim} "
                         f"dimensions of shape {x.shape}", shapes=[x.shape])
    if x._trace is not None:
        return _traced_permute("permute", x, axes)
    (a,) = _host("permute", x)
    return _wrap(np.transpose(a, axes), x)


def contiguous(x):
    """The tensor itself when its storage is row-major contiguous, else a contiguous copy."""
    x = _tensor(x, "contiguous")
    if x._trace is not None:
        return x
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


def _traced_getitem(x, idx):
    """Basic indexing of a traced tensor: a slice (unit steps) or a strided slice (any other step,
    negative ones included) and one reshape at most."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if any(not (i is None or i is Ellipsis or isinstance(i, slice)
                or (isinstance(i, numbers.Integral) and not isinstance(i, bool))) for i in items):
        _host("getitem", x)      # tensor, list or bool indices: not lowered yet
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if n_real > x.ndim:
        raise PyascIndexError("getitem", f"too many indices ({n_real}) for shape {x.shape}", shapes=[x.shape])
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise PyascIndexError("getitem", "an index can only have a single ellipsis", shapes=[x.shape])
    expanded = []
    for i in items:
        if i is Ellipsis:
            expanded += [slice(None)] * (x.ndim - n_real)
        else:
            expanded.append(i)
    if Ellipsis not in items:
        expanded += [slice(None)] * (x.ndim - n_real)
    offsets, sizes, steps, out_shape, d = [], [], [], [], 0
    for i in expanded:
        if i is None:
            out_shape.append(1)
            continue
        n = x.shape[d]
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            size = len(range(start, stop, step))
            offsets.append(start if size else 0)
            sizes.append(size)
            steps.append(step if size > 1 else 1)
            out_shape.append(size)
        else:
            if not -n <= i < n:
                raise PyascIndexError("getitem", f"index {i} is out of bounds for dimension {d} with size {n} "
                                      f"(shape {x.shape})", shapes=[x.shape])
            offsets.append(int(i) % n)
            sizes.append(1)
            steps.append(1)
        d += 1
    if any(st != 1 for st in steps) and all(n > 0 for n in sizes):
        from pyasc.dialects import asctensor

        y = _emit("getitem", x, lambda v: asctensor.StridedSliceOp(v, offsets, sizes, steps), tuple(sizes))
    else:
        y = _traced_slice("getitem", x, offsets, sizes)
    return _traced_reshape("getitem", y, out_shape)


def getitem(x, idx):
    """``x[idx]``: basic indexing (ints, slices, None, ...) gives a view; integer or bool tensor
    indices give a copy, as in PyTorch."""
    if x._trace is not None:
        return _traced_getitem(x, idx)
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
    if any(t._trace is not None for t in ts):
        return ts, None, d
    arrays = _host(op, *ts)
    return ts, [a.astype(d.np_dtype, copy=False) for a in arrays], d


def _traced_concat(op: str, ts, d, dim: int, shape):
    """``asctensor.concat`` of the (traced or constant) tensors ``ts`` converted to dtype ``d``."""
    from pyasc.dialects import asctensor

    from .errors import user_location
    from .tensor import Tensor

    traces = {id(t._trace): t._trace for t in ts if t._trace is not None}
    if len(traces) > 1:
        raise PyascError(op, "operands come from different traced functions", shapes=[t.shape for t in ts])
    (tr,) = traces.values()
    if d in dt.STORAGE_DTYPES:  # joined as float16 (exact for int8 and bool), converted back
        joined = _traced_concat(op, [t.to(dt.float16) for t in ts], dt.float16, dim, shape)
        return joined != 0 if d is dt.bool_ else joined.to(d)
    if len(ts) == 1:
        return ts[0] if ts[0].dtype is d else ts[0].to(d)
    with tr.at(user_location()):
        values = []
        for t in ts:
            v = t._value if t._trace is not None else tr.constant(t._data, t.dtype)
            values.append(tr.cast(v, d))
        value = tr.emit(asctensor.ConcatOp(values, dim)).results[0]
    return Tensor._traced(tr, value, d, shape)


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
    if arrays is None:
        out = list(ts[0].shape)
        out[ax] = sum(t.shape[ax] for t in ts)
        if out[ax] == 0:
            raise PyascError("cat", "an empty result is not supported inside pyasc.jit", shapes=shapes)
        return _traced_concat("cat", [t for t in ts if t.shape[ax]], d, ax, tuple(out))
    on_device = _eager_on_device("cat", lambda *xs: cat(xs, ax), ts, (ax,))
    return on_device if on_device is not None else Tensor(np.concatenate(arrays, axis=ax), d, device=ts[0]._device)


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
    if arrays is not None:
        on_device = _eager_on_device("stack", lambda *xs: stack(xs, ax), ts, (ax,))
        return on_device if on_device is not None else Tensor(np.stack(arrays, axis=ax), d, device=ts[0]._device)
    if 0 in ts[0].shape:
        raise PyascError("stack", "an empty result is not supported inside pyasc.jit", shapes=shapes)
    n, ndim = len(ts), ts[0].ndim
    if ax < ndim:  # slabs of the result along a new dim: a concat of the unsqueezed inputs
        parts = [unsqueeze(t, ax) if t._trace is not None else _wrap(np.expand_dims(t._data, ax), t) for t in ts]
        return _traced_concat("stack", parts, d, ax, ts[0].shape[:ax] + (n,) + ts[0].shape[ax:])
    # a new last dim: join along a new first dim, then move it to the end
    parts = [unsqueeze(t, 0) if t._trace is not None else _wrap(t._data[None], t) for t in ts]
    joined = _traced_concat("stack", parts, d, 0, (n,) + ts[0].shape)
    return _traced_permute("stack", joined, tuple(range(1, ndim + 1)) + (0,))


def split(x, split_size_or_sections, dim: int = 0):
    """Views of consecutive pieces along ``dim``: pieces of one size (the last may be smaller)
    or of the given sizes, which must add up to the extent of ``dim``."""
    x = _tensor(x, "split")
    if x.ndim == 0:
        raise PyascError("split", "cannot split a 0-d tensor", shapes=[x.shape])
    ax = _dim("split", dim, x.ndim, x.shape)
    n = x.shape[ax]
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
    traced = x._trace is not None
    a = None if traced else _host("split", x)[0]
    for size in sizes:
        if traced:
            offsets = [0] * x.ndim
            offsets[ax] = start
            out.append(_traced_slice("split", x, offsets, x.shape[:ax] + (size,) + x.shape[ax + 1:]))
        else:
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


def _traced_topk(x, k: int, ax: int, largest: bool) -> TopK:
    """``asctensor.topk`` of a traced float tensor (one row-wise kernel over the last dim)."""
    from pyasc.dialects import asctensor

    from .errors import user_location
    from .tensor import Tensor

    if x.dtype not in (dt.float32, dt.float16, dt.bfloat16):
        raise PyascError("topk", f"of {x.dtype.name} is not supported inside pyasc.jit: the vector unit ranks "
                         "float16/float32 only (cast to float32 first, or call it outside jit)",
                         shapes=[x.shape], dtypes=[x.dtype.name])
    if k == 0:
        raise PyascError("topk", "an empty result (k = 0) is not supported inside pyasc.jit", shapes=[x.shape])
    if k > asctensor.MAX_TOPK:
        raise PyascError("topk", f"k = {k} is more than the {asctensor.MAX_TOPK} supported inside pyasc.jit "
                         f"(shape {x.shape}, dim {ax})", shapes=[x.shape])
    v = x if x.ndim else _traced_reshape("topk", x, (1,))
    tr = v._trace
    with tr.at(user_location()):
        op = tr.emit(asctensor.TopKOp(v._value, k, ax, largest))
    shape = v.shape[:ax] + (k,) + v.shape[ax + 1:]
    values = Tensor._traced(tr, op.results[0], x.dtype, shape)
    indices = Tensor._traced(tr, op.results[1], dt.int32, shape)
    if x.ndim == 0:
        values, indices = _traced_reshape("topk", values, ()), _traced_reshape("topk", indices, ())
    return TopK(values, indices)


def topk(x, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices (int32; torch:
    int64), always sorted from best to worst; among equal values the lower index comes first.
    Eagerly (on the host) NaN counts as larger than any number, as in PyTorch; inside
    ``pyasc.jit`` NaN is not ranked and float tensors only are supported (``asctensor.topk``,
    k <= 64, see ``lowering/topk_decompose.py``)."""
    from .tensor import Tensor

    x = _tensor(x, "topk")
    if x.dtype is dt.bool_:
        raise PyascError("topk", "is not defined for bool tensors", dtypes=["bool"])
    ndim = max(x.ndim, 1)
    ax = _dim("topk", dim, ndim, x.shape)
    n = x.shape[ax] if x.ndim else 1
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise PyascError("topk", f"k ({k}) out of range for dimension {ax} of size {n} (shape {x.shape})",
                         shapes=[x.shape])
    if x._trace is not None:
        return _traced_topk(x, int(k), ax, largest)
    (a,) = _host("topk", x)
    if x.dtype.is_floating_point and a.ndim and not np.isnan(a).any():  # NaN is ranked on the host only
        on_device = _eager_on_device("topk", lambda t: tuple(topk(t, k, ax, largest)), [x], (int(k), ax, largest))
        if on_device is not None:
            return TopK(*on_device)
    a1 = a.reshape(1) if a.ndim == 0 else a
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
