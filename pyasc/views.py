"""Views and data movement: reshape, view, transpose, permute, squeeze, unsqueeze, flatten,
contiguous, indexing, cat, stack, split, chunk and topk (``OpDef``s of kind ``view``).

Eagerly, views share storage exactly where PyTorch's do and are made on the host with NumPy
(NumPy's view rules are the same: ``reshape`` of a contiguous tensor, ``view``, ``transpose``,
``permute``, ``squeeze``/``unsqueeze``, basic indexing and ``split``/``chunk`` return views;
``contiguous`` copies only a non-contiguous tensor): their eager path is their NumPy reference on
the host. The copying ops ``cat``, ``stack`` and ``topk`` (of a float tensor without NaN) run on the
simulated device as compiled programs, compiled once per signature like any eager op; operands they
have no lowering for (bool tensors, integer topk) and advanced indexing are computed on the host.

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
Casts to and from bool are a comparison with zero and a selection of 1 or 0 (the ``cast`` op).
``topk`` of a float tensor is traced as ``asctensor.topk`` (k <= 64): over the last dim it is ONE
row-wise kernel of ``k`` rounds of row max, argmax and masking (``lowering/topk_decompose.py``),
over another dim that kernel between two transposes; it returns the values and int32 indices
sorted best first, the lower index first among equal values (as ``torch.topk``); NaN is not
ranked inside jit. Integer tensors rank inside jit by the stable sort (exact: the vector unit
compares floats only, so ``sort`` ranks by exact comparisons), the first k kept; eagerly they run
on the host. Tensor indices and assignment inside jit: ``pyasc/indexing.py``.
"""
from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from pyasc.dialects import asctensor

from . import dtypes as dt
from .autograd import tape
from .args import dim_index, shape_arg, tensor_operand
from .creation import to_numpy, to_pyasc
from .errors import PyascError, PyascIndexError, describe, raise_host_only
from .indexing import getitem_by_tensor, setitem_recorded, setitem_traced
from .interop import is_torch_tensor
from .opdef import COMPOSITE, DEVICE_OR_HOST, HOST, VIEW, OpDef
from .tensor import Tensor
from .topk_rounds import INT_ROUNDS_MAX_K, INT_ROUNDS_MIN_N, int_topk_in_rounds, topk_in_rounds

TopK = namedtuple("TopK", ["values", "indices"])


# ----------------------------------------------------------------------------- IR of the views

def _dtype_of(v) -> dt.DType:
    return dt.get_dtype(v.type.get_element_type())


def _shape_of(v) -> tuple[int, ...]:
    return tuple(v.type.get_shape())


def _emit(tr, op):
    return tr.emit(op).results[0]


def _to_half(tr, v):
    """A bool or int8 value as float16 (exact): ``select(v, 1, 0)`` or a cast."""
    if _dtype_of(v) is dt.bool_:
        shape = _shape_of(v)
        return _emit(tr, asctensor.SelectOp(v, tr.splat(1.0, dt.float16, shape), tr.splat(0.0, dt.float16, shape)))
    return tr.cast(v, dt.float16)


def _from_half(tr, v, d: dt.DType):
    """A float16 value holding bool or int8 data back as ``d`` (bool: ``v != 0``)."""
    if d is dt.bool_:
        return _emit(tr, asctensor.CompareOp("ne", v, tr.splat(0.0, dt.float16, _shape_of(v))))
    return tr.cast(v, d)


def _moved(tr, v, build):
    """``build(v)`` (emitting asctensor ops on a value); int8 and bool data move as float16."""
    d = _dtype_of(v)
    if d not in dt.STORAGE_DTYPES:
        return build(v)
    return _from_half(tr, build(_to_half(tr, v)), d)


def _reshaped(tr, v, shape):
    shape = tuple(shape)
    if shape == _shape_of(v):
        return v
    return _moved(tr, v, lambda h: _emit(tr, asctensor.ReshapeOp(h, shape)))


def _sliced(op: str, tr, v, offsets, sizes):
    if tuple(sizes) == _shape_of(v):
        return v
    if any(n == 0 for n in sizes):
        raise PyascError(op, f"an empty slice of shape {tuple(sizes)} is not supported inside pyasc.jit",
                         shapes=[_shape_of(v)])
    return _moved(tr, v, lambda h: _emit(tr, asctensor.SliceOp(h, list(offsets), list(sizes))))


def _permuted(tr, v, perm):
    """``asctensor.transpose`` by ``perm``; a reshape when the dims longer than 1 keep their order."""
    shape, perm = _shape_of(v), tuple(perm)
    if [p for p in perm if shape[p] != 1] == [p for p in range(len(shape)) if shape[p] != 1]:
        return _reshaped(tr, v, tuple(shape[p] for p in perm))
    return _moved(tr, v, lambda h: _emit(tr, asctensor.TransposeOp(h, perm)))


def _joined(op: str, tr, values, d: dt.DType, dim: int):
    """``asctensor.concat`` along ``dim`` of the values converted to dtype ``d``."""
    if d in dt.STORAGE_DTYPES:  # joined as float16 (exact for int8 and bool), converted back
        return _from_half(tr, _joined(op, tr, [_to_half(tr, v) for v in values], dt.float16, dim), d)
    values = [tr.cast(v, d) for v in values]
    return values[0] if len(values) == 1 else _emit(tr, asctensor.ConcatOp(values, dim))


# ----------------------------------------------------------------------------- shape changes

def _build_reshape(tr, values, types, attrs):
    return _reshaped(tr, values[0], attrs["shape"])


def _reshape_ref(a, shape):
    return a.reshape(shape)


def _view_ref(a, shape):
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        raise PyascError("view", f"view size {shape} is not compatible with the input's size and stride "
                         f"(shape {a.shape}, non-contiguous); use .reshape(...) instead", shapes=[a.shape]) from None
    return v


def _reshape_signature(op: str):
    def signature(x, *shape):
        x = tensor_operand(op, x)
        return [x], {"shape": shape_arg(op, shape, x.numel(), x.shape)}
    return signature


def _flatten_signature(x, start_dim: int = 0, end_dim: int = -1):
    x = tensor_operand("flatten", x)
    if x.ndim == 0:
        return [x], {"shape": (1,)}
    s = dim_index("flatten", start_dim, x.ndim, x.shape)
    e = dim_index("flatten", end_dim, x.ndim, x.shape)
    if s > e:
        raise PyascError("flatten", f"start_dim {start_dim} comes after end_dim {end_dim}", shapes=[x.shape])
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return [x], {"shape": x.shape[:s] + (n,) + x.shape[e + 1:]}


def _squeeze_signature(x, dim=None):
    x = tensor_operand("squeeze", x)
    if dim is None:
        return [x], {"shape": tuple(d for d in x.shape if d != 1)}
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    axes = {dim_index("squeeze", d, x.ndim, x.shape) for d in dims}
    return [x], {"shape": tuple(n for i, n in enumerate(x.shape) if not (i in axes and n == 1))}


def _unsqueeze_signature(x, dim: int):
    x = tensor_operand("unsqueeze", x)
    d = dim_index("unsqueeze", dim, x.ndim + 1, x.shape)
    return [x], {"shape": x.shape[:d] + (1,) + x.shape[d:]}


def _build_permute(tr, values, types, attrs):
    return _permuted(tr, values[0], attrs["perm"])


def _permute_ref(a, perm):
    return np.transpose(a, perm)


def _transpose_signature(x, dim0: int, dim1: int):
    x = tensor_operand("transpose", x)
    if x.ndim == 0:
        return [x], {"perm": ()}
    perm = list(range(x.ndim))
    d0, d1 = dim_index("transpose", dim0, x.ndim, x.shape), dim_index("transpose", dim1, x.ndim, x.shape)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return [x], {"perm": tuple(perm)}


def _permute_signature(x, *dims):
    x = tensor_operand("permute", x)
    if len(dims) == 1 and isinstance(dims[0], list | tuple):
        dims = tuple(dims[0])
    axes = tuple(dim_index("permute", d, x.ndim, x.shape) for d in dims)
    if sorted(axes) != list(range(x.ndim)):
        raise PyascError("permute", f"dims {tuple(dims)} are not a permutation of the {x.ndim} "
                         f"dimensions of shape {x.shape}", shapes=[x.shape])
    return [x], {"perm": axes}


def _contiguous(x):
    """The tensor itself when its storage is row-major contiguous (or it is traced), else a contiguous copy."""
    x = tensor_operand("contiguous", x)
    if x._trace is not None or x._data.flags.c_contiguous:
        return x
    return tape.record_copy(x, Tensor(np.ascontiguousarray(x._data), x.dtype, format=x._format, device=x._device))


# ----------------------------------------------------------------------------- indexing

def _index(idx):
    """A pyasc/torch index (ints, slices, None, Ellipsis, tensors, lists) as a NumPy index."""
    if isinstance(idx, tuple):
        return tuple(_index(i) for i in idx)
    if isinstance(idx, Tensor) or is_torch_tensor(idx):
        a = to_numpy(idx)
        if a.dtype.kind not in "biu":
            raise PyascError("getitem", f"tensors used as indices must be integer or bool, got {describe(idx)}")
        return a
    return idx


def _is_basic(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, numbers.Integral) and not isinstance(item, bool))


def _getitem_signature(x, idx):
    x = tensor_operand("getitem", x)
    if x._trace is not None and not all(_is_basic(i) for i in (idx if isinstance(idx, tuple) else (idx,))):
        raise_host_only("getitem", [x])      # tensor, list or bool indices: not lowered yet
    return [x], {"index": idx}


def _basic_index(shape, idx):
    """The offsets, sizes and steps a basic index selects from each dimension of ``shape``, and
    the result's shape (ints drop a dimension, None adds one)."""
    ndim = len(shape)
    items = idx if isinstance(idx, tuple) else (idx,)
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if n_real > ndim:
        raise PyascIndexError("getitem", f"too many indices ({n_real}) for shape {shape}", shapes=[shape])
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise PyascIndexError("getitem", "an index can only have a single ellipsis", shapes=[shape])
    expanded = []
    for i in items:
        if i is Ellipsis:
            expanded += [slice(None)] * (ndim - n_real)
        else:
            expanded.append(i)
    if Ellipsis not in items:
        expanded += [slice(None)] * (ndim - n_real)
    offsets, sizes, steps, out_shape, d = [], [], [], [], 0
    for i in expanded:
        if i is None:
            out_shape.append(1)
            continue
        n = shape[d]
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
                                      f"(shape {shape})", shapes=[shape])
            offsets.append(int(i) % n)
            sizes.append(1)
            steps.append(1)
        d += 1
    return offsets, sizes, steps, out_shape


def _build_getitem(tr, values, types, attrs):
    """Basic indexing of a traced value: a slice (unit steps) or a strided slice (any other step,
    negative ones included) and one reshape at most."""
    (v,) = values
    offsets, sizes, steps, out_shape = _basic_index(_shape_of(v), attrs["index"])
    if any(st != 1 for st in steps) and all(n > 0 for n in sizes):
        y = _moved(tr, v, lambda h: _emit(tr, asctensor.StridedSliceOp(h, offsets, sizes, steps)))
    else:
        y = _sliced("getitem", tr, v, offsets, sizes)
    return _reshaped(tr, y, out_shape)


def _getitem_vjp(ctx, g):
    """The gradient of a basic index: the output gradient put back where the elements were read,
    zeros elsewhere; along each sliced dimension a product with the 0/1 matrix of the selection."""
    (x,) = ctx.inputs
    offsets, sizes, steps, _ = _basic_index(tuple(x.shape), ctx.attrs["index"])
    g = g.reshape(*sizes) if tuple(g.shape) != tuple(sizes) else g
    for d, (off, size, step) in enumerate(zip(offsets, sizes, steps)):
        n = x.shape[d]
        if (off, size, step) == (0, n, 1):
            continue
        select = np.zeros((n, size), np.float32)
        select[[off + i * step for i in range(size)], list(range(size))] = 1.0
        last = g.ndim - 1
        moved = g.transpose(d, last) if d != last else g
        spread = moved @ to_pyasc(np.ascontiguousarray(select.T).astype(g.dtype.np_dtype), "getitem")
        g = spread.transpose(d, last) if d != last else spread
    return g


def _getitem_ref(a, index):
    """``a[index]``: basic indexing gives a view; integer or bool tensor indices give a copy."""
    try:
        out = a[_index(index)]
    except IndexError as e:
        raise PyascIndexError("getitem", f"index {describe(index)} is invalid for shape {a.shape}: {e}",
                              shapes=[a.shape]) from None
    except (TypeError, ValueError) as e:
        raise PyascError("getitem", f"bad index {describe(index)} for shape {a.shape}: {e}",
                         shapes=[a.shape]) from None
    if not isinstance(out, np.ndarray):       # a scalar element: keep a 0-d view-like tensor
        out = np.asarray(out, dtype=a.dtype)
    return out


def _setitem(x, idx, value) -> None:
    """``x[idx] = value``: writes into ``x``'s storage (on the host); inside ``pyasc.jit``
    functionalized (``indexing.setitem_traced``)."""
    if tape.is_grad_enabled() and (x.requires_grad or isinstance(value, Tensor) and value.requires_grad):
        return setitem_recorded(x, idx, value, _index)
    if x._trace is not None or isinstance(value, Tensor) and value._trace is not None:
        return setitem_traced(x, idx, value, _index)
    a = x._data
    if isinstance(value, Tensor):
        v = value._data
    elif is_torch_tensor(value):
        v = to_numpy(value)
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


# ----------------------------------------------------------------------------- joining and splitting

def _sequence(op: str, tensors) -> tuple[list[Tensor], dt.DType]:
    """The tensors of a list or tuple and their promoted dtype."""
    if isinstance(tensors, Tensor) or is_torch_tensor(tensors) or not isinstance(tensors, list | tuple):
        raise PyascError(op, f"expected a list or tuple of tensors, got {describe(tensors)}")
    if not tensors:
        raise PyascError(op, "expected a non-empty list of tensors")
    ts = [to_pyasc(t, op) for t in tensors]
    devices = {t._device for t in ts if t._trace is None}
    if len(devices) > 1:
        raise PyascError(op, f"expected all tensors on the same device, got {', '.join(sorted(map(str, devices)))}")
    d = ts[0].dtype
    for t in ts[1:]:
        d = dt.promote_types(d, t.dtype)
    return ts, d


def _cat_signature(tensors, dim: int = 0):
    ts, d = _sequence("cat", tensors)
    shapes = [t.shape for t in ts]
    ndim = ts[0].ndim
    if any(t.ndim != ndim for t in ts) or ndim == 0:
        raise PyascError("cat", "tensors must have the same (non-zero) number of dimensions, got shapes "
                         + ", ".join(map(str, shapes)), shapes=shapes)
    ax = dim_index("cat", dim, ndim, ts[0].shape)
    for t in ts[1:]:
        if t.shape[:ax] + t.shape[ax + 1:] != ts[0].shape[:ax] + ts[0].shape[ax + 1:]:
            raise PyascError("cat", f"sizes of tensors must match except in dimension {ax}: shapes "
                             + ", ".join(map(str, shapes)), shapes=shapes)
    return ts, {"dim": ax, "dtype": d}


def _build_cat(tr, values, types, attrs):
    ax = attrs["dim"]
    if sum(_shape_of(v)[ax] for v in values) == 0:
        raise PyascError("cat", "an empty result is not supported inside pyasc.jit",
                         shapes=[_shape_of(v) for v in values])
    return _joined("cat", tr, [v for v in values if _shape_of(v)[ax]], attrs["dtype"], ax)


def _cat_ref(*arrays, dim, dtype):
    return np.concatenate([a.astype(dtype.np_dtype, copy=False) for a in arrays], axis=dim)


def _stack_signature(tensors, dim: int = 0):
    ts, d = _sequence("stack", tensors)
    shapes = [t.shape for t in ts]
    if len(set(shapes)) != 1:
        raise PyascError("stack", "expects each tensor to be equal size, got shapes "
                         + ", ".join(map(str, shapes)), shapes=shapes)
    return ts, {"dim": dim_index("stack", dim, ts[0].ndim + 1, ts[0].shape), "dtype": d}


def _build_stack(tr, values, types, attrs):
    ax, d = attrs["dim"], attrs["dtype"]
    shape = _shape_of(values[0])
    if 0 in shape:
        raise PyascError("stack", "an empty result is not supported inside pyasc.jit", shapes=[shape] * len(values))
    if d in dt.STORAGE_DTYPES:  # stacked as float16 (exact for int8 and bool), converted back
        halves = [_to_half(tr, v) for v in values]
        return _from_half(tr, _build_stack(tr, halves, types, {"dim": ax, "dtype": dt.float16}), d)
    if ax < len(shape):   # slabs of the result along a new dim: a concat of the unsqueezed inputs
        return _joined("stack", tr, [_reshaped(tr, v, shape[:ax] + (1,) + shape[ax:]) for v in values], d, ax)
    # a new last dim: join along a new first dim, then move it to the end
    joined = _joined("stack", tr, [_reshaped(tr, v, (1,) + shape) for v in values], d, 0)
    return _permuted(tr, joined, tuple(range(1, len(shape) + 1)) + (0,))


def _stack_ref(*arrays, dim, dtype):
    return np.stack([a.astype(dtype.np_dtype, copy=False) for a in arrays], axis=dim)


def _split_signature(x, split_size_or_sections, dim: int = 0):
    x = tensor_operand("split", x)
    if x.ndim == 0:
        raise PyascError("split", "cannot split a 0-d tensor", shapes=[x.shape])
    ax = dim_index("split", dim, x.ndim, x.shape)
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
    return [x], {"sizes": tuple(sizes), "dim": ax}


def _chunk_signature(x, chunks: int, dim: int = 0):
    x = tensor_operand("chunk", x)
    if not isinstance(chunks, numbers.Integral) or chunks <= 0:
        raise PyascError("chunk", f"chunks must be a positive integer, got {describe(chunks)}", shapes=[x.shape])
    n = x.shape[dim_index("chunk", dim, x.ndim, x.shape)] if x.ndim else 0
    if n == 0 and x.ndim:       # PyTorch: `chunks` empty pieces
        return _split_signature(x, [0] * chunks, dim)
    return _split_signature(x, max(1, -(-n // chunks)), dim)


def _split_empty_sections(x, split_size_or_sections, dim: int = 0):
    """Inside ``pyasc.jit``, a split with empty sections: the pieces that have elements are one
    split; the empty ones are constant empty tensors (they hold nothing to move)."""
    if not isinstance(x, Tensor) or x._trace is None or 0 in x.shape:
        return NotImplemented
    (x,), attrs = _split_signature(x, split_size_or_sections, dim)
    sizes, ax = attrs["sizes"], attrs["dim"]
    if 0 not in sizes:
        return NotImplemented
    pieces = iter(SPLIT(x, [n for n in sizes if n], ax))
    empty = x.shape[:ax] + (0,) + x.shape[ax + 1:]
    return tuple(next(pieces) if n else Tensor(np.empty(empty, x.dtype.np_dtype), x.dtype) for n in sizes)


def _build_split(tr, values, types, attrs):
    (v,) = values
    shape, ax = _shape_of(v), attrs["dim"]
    out, start = [], 0
    for size in attrs["sizes"]:
        offsets = [0] * len(shape)
        offsets[ax] = start
        out.append(_sliced("split", tr, v, offsets, shape[:ax] + (size,) + shape[ax + 1:]))
        start += size
    return tuple(out)


def _split_ref(a, sizes, dim):
    out, start = [], 0
    for size in sizes:
        index = [slice(None)] * a.ndim
        index[dim] = slice(start, start + size)
        out.append(a[tuple(index)])
        start += size
    return tuple(out)


# ----------------------------------------------------------------------------- topk

def _topk_signature(x, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    x = tensor_operand("topk", x)
    if x.dtype is dt.bool_:
        raise PyascError("topk", "is not defined for bool tensors", dtypes=["bool"])
    ax = dim_index("topk", dim, max(x.ndim, 1), x.shape)
    n = x.shape[ax] if x.ndim else 1
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise PyascError("topk", f"k ({k}) out of range for dimension {ax} of size {n} (shape {x.shape})",
                         shapes=[x.shape])
    return [x], {"k": int(k), "dim": ax, "largest": largest}


def _topk_eager(x, k, dim, largest) -> str:
    """NaN is ranked on the host only; integer tensors rank on the host too."""
    on_device = x.dtype.is_floating_point and x.ndim and not np.isnan(x._data).any()
    return DEVICE_OR_HOST if on_device else HOST


def _topk_rounds(x, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """Inside ``pyasc.jit``: k = 0 gives constant empty results, a dim of one element x itself;
    float16/bfloat16 with k above one kernel's rounds, and int32 with a small k, run in rounds
    (``topk_rounds``); other integers rank by the stable sort."""
    if not isinstance(x, Tensor) or x._trace is None:
        return NotImplemented
    (x,), attrs = _topk_signature(x, k, dim, largest, sorted)
    if attrs["k"] == 0 and x.ndim:
        shape = tuple(0 if d == attrs["dim"] else n for d, n in enumerate(x.shape))
        return TopK(Tensor(np.empty(shape, x.dtype.np_dtype), x.dtype), Tensor(np.empty(shape, np.int32), dt.int32))
    if x.ndim and x.shape[attrs["dim"]] == 1:      # k = 1 of one element: x itself, at index 0
        return TopK(x, Tensor(np.zeros(x.shape, np.int32), dt.int32))
    if x.dtype is dt.int32 and attrs["k"] <= INT_ROUNDS_MAX_K and x.shape[attrs["dim"]] >= INT_ROUNDS_MIN_N:
        return TopK._make(int_topk_in_rounds(CAT, x, attrs["k"], attrs["dim"], attrs["largest"]))
    if not x.dtype.is_floating_point:      # integers rank exactly by the stable sort, the first k kept
        from .ops_select import sort_along

        values, indices = sort_along(x, attrs["dim"], attrs["largest"])
        keep = tuple(slice(0, attrs["k"]) if d == attrs["dim"] else slice(None) for d in range(x.ndim))
        return TopK(values[keep], indices[keep])
    if attrs["k"] <= asctensor.MAX_TOPK or x.dtype not in (dt.float16, dt.bfloat16):
        return NotImplemented
    return TopK._make(topk_in_rounds(TOPK, CAT, x, attrs["k"], attrs["dim"], attrs["largest"]))


def _build_topk(tr, values, types, attrs):
    """``asctensor.topk`` of a traced float value (one row-wise kernel over the last dim)."""
    (v,) = values
    k, ax, d, shape = attrs["k"], attrs["dim"], _dtype_of(values[0]), _shape_of(values[0])
    if d not in dt.FLOAT_DTYPES:
        raise PyascError("topk", f"of {d.name} is not supported inside pyasc.jit: the vector unit ranks "
                         "float16/float32 only (cast to float32 first, or call it outside jit)",
                         shapes=[shape], dtypes=[d.name])
    if k == 0:
        raise PyascError("topk", "an empty result (k = 0) is not supported inside pyasc.jit", shapes=[shape])
    if k > asctensor.MAX_TOPK:
        raise PyascError("topk", f"k = {k} is more than the {asctensor.MAX_TOPK} supported inside pyasc.jit "
                         f"(shape {shape}, dim {ax})", shapes=[shape])
    op = tr.emit(asctensor.TopKOp(_reshaped(tr, v, (1,)) if not shape else v, k, ax, attrs["largest"]))
    if shape:
        return op
    return _reshaped(tr, op.results[0], ()), _reshaped(tr, op.results[1], ())


def _topk_vjp(ctx, grads):
    """The values' gradient put back at the indices they came from (their one-hot rows summed);
    the indices have none."""
    g = grads[0]
    (x,) = ctx.inputs
    idx = ctx.outputs[1]
    if x.ndim == 0:
        return g
    ax, last = ctx.attrs["dim"], x.ndim - 1
    if ax != last:
        g, idx = g.transpose(ax, last), idx.transpose(ax, last)
    positions = to_pyasc(np.arange(x.shape[ax], dtype=np.int32), "topk")
    hit = idx.unsqueeze(-1) == positions
    out = g.unsqueeze(-1).where(hit, 0.0).sum(dim=-2)
    return out.transpose(ax, last) if ax != last else out


def _topk_ref(a, k, dim, largest):
    """Sorted best first, the lower index first among equal values; NaN ranks first when largest
    (as in PyTorch), last when smallest."""
    a1 = a.reshape(1) if a.ndim == 0 else a
    if a.dtype.kind == "f" or a.dtype == dt.bfloat16.np_dtype:
        w = a1.astype(np.float64)
        key = -w if largest else w
        key = np.where(np.isnan(w), -np.inf if largest else np.inf, key)
        order = np.argsort(key, axis=dim, kind="stable")
    else:
        w = a1.astype(np.int64)
        order = np.argsort(-w if largest else w, axis=dim, kind="stable")
    idx = np.take(order, np.arange(k), axis=dim)
    values = np.take_along_axis(a1, idx, axis=dim)
    if a.ndim == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return np.ascontiguousarray(values), idx.astype(np.int32)


# ----------------------------------------------------------------------------- the ops

# ----------------------------------------------------------------------------- gradients
# ``vjp(ctx, g)`` of each op (see ``autograd.tape.VJPContext``): the gradient moved back.

def _reshape_vjp(ctx, g):
    return g.reshape(*ctx.inputs[0].shape)


def _permute_vjp(ctx, g):
    perm = ctx.attrs["perm"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return g.permute(*inverse) if perm else g


def _cat_vjp(ctx, g):
    ax = ctx.attrs["dim"]
    return g.split([t.shape[ax] for t in ctx.inputs], ax)


def _stack_vjp(ctx, g):
    ax = ctx.attrs["dim"]
    return tuple(p.reshape(*t.shape) for p, t in zip(g.split(1, ax), ctx.inputs))


def _split_vjp(ctx, g):
    return g[0] if len(g) == 1 else CAT(list(g), ctx.attrs["dim"])


_SHAPE_CHANGE = {"build": _build_reshape, "reference": _reshape_ref, "eager": HOST, "kind": VIEW,
                 "vjp": _reshape_vjp}
_PERMUTATION = {"build": _build_permute, "reference": _permute_ref, "eager": HOST, "kind": VIEW,
                "vjp": _permute_vjp}

OPS = [
    OpDef("reshape", signature=_reshape_signature("reshape"), **_SHAPE_CHANGE,
          doc="The tensor with a new shape: a view when the storage allows it, else a copy."),
    OpDef("view", _build_reshape, _view_ref, signature=_reshape_signature("view"), eager=HOST, kind=VIEW,
          vjp=_reshape_vjp,
          function=False, doc="A view with a new shape; PyascError when the strides do not allow one (use reshape)."),
    OpDef("flatten", signature=_flatten_signature, **_SHAPE_CHANGE, doc="Dims start_dim..end_dim as one."),
    OpDef("squeeze", signature=_squeeze_signature, **_SHAPE_CHANGE, doc="Without the size-1 dims (or those of dim)."),
    OpDef("unsqueeze", signature=_unsqueeze_signature, **_SHAPE_CHANGE, doc="With a new size-1 dim at dim."),
    OpDef("transpose", signature=_transpose_signature, **_PERMUTATION, doc="Dims dim0 and dim1 swapped."),
    OpDef("permute", signature=_permute_signature, **_PERMUTATION, doc="The dims in the given order."),
    OpDef("contiguous", decompose=_contiguous, kind=COMPOSITE, function=False),
    OpDef("getitem", _build_getitem, _getitem_ref, signature=_getitem_signature, eager=HOST, kind=VIEW,
          method=False, function=False, vjp=_getitem_vjp, decompose=getitem_by_tensor, doc=_getitem_ref.__doc__),
    OpDef("setitem", decompose=_setitem, kind=COMPOSITE, method=False, function=False),
    OpDef("cat", _build_cat, _cat_ref, signature=_cat_signature, eager=DEVICE_OR_HOST, kind=VIEW, method=False,
          vjp=_cat_vjp,
          doc="Concatenate along an existing dimension (dtypes promote as in PyTorch)."),
    OpDef("stack", _build_stack, _stack_ref, signature=_stack_signature, eager=DEVICE_OR_HOST, kind=VIEW,
          vjp=_stack_vjp,
          method=False, doc="Join along a new dimension; all shapes must be equal."),
    OpDef("split", _build_split, _split_ref, signature=_split_signature, eager=HOST, kind=VIEW, vjp=_split_vjp,
          decompose=_split_empty_sections,
          doc="Views of consecutive pieces along dim: pieces of one size (the last may be smaller) or of the "
              "given sizes, which must add up to the extent of dim."),
    OpDef("chunk", _build_split, _split_ref, signature=_chunk_signature, eager=HOST, kind=VIEW, vjp=_split_vjp,
          doc="chunks views of (nearly) equal size along dim (PyTorch's rounding: ceil)."),
    OpDef("topk", _build_topk, _topk_ref, signature=_topk_signature, eager=_topk_eager, pack=TopK._make, kind=VIEW,
          vjp=_topk_vjp, decompose=_topk_rounds,
          doc="The k largest (or smallest) elements along dim and their indices (int32; torch: int64), always "
              "sorted from best to worst; among equal values the lower index comes first. Eagerly NaN counts as "
              "larger than any number, as in PyTorch; inside pyasc.jit NaN is not ranked and float tensors only "
              "are supported (asctensor.topk, k <= 64; float16 and bfloat16 in rounds of 64 beyond)."),
]

CAT = next(op for op in OPS if op.name == "cat")
SPLIT = next(op for op in OPS if op.name == "split")
TOPK = next(op for op in OPS if op.name == "topk")
