"""Indexing inside ``pyasc.jit`` beyond basic views (PyTorch semantics).

* A basic index selecting no element gives a constant empty tensor.
* ``x[idx]`` with one integer index tensor (traced or not) takes rows of ``x`` along dim 0: each
  output row picks its row by comparing ``idx`` with the positions 0..n-1 and summing the one
  selected row with zeros (exact for every dtype: ``select`` never multiplies, so NaN and inf
  rows stay where they are). Negative indices count from the end. A device kernel cannot raise,
  so a traced index outside [-n, n) gives a row of zeros inside ``pyasc.jit`` (eagerly it raises,
  and so does a constant one inside jit).
* One advanced index among basic ones (``x[:, idx]``, ``x[..., [0, 2]]``, ``x[1:, idx, None]``): a list of
  ints is a constant index tensor, and a constant bool mask (a list or an untraced tensor) the positions it
  marks. The basic part is a view; the rows are taken along the indexed dim, and the index's dims go in its
  place (PyTorch applies int indices first, as views: ``x[0, :, idx]`` keeps ``x[0]``'s order of dims, where
  NumPy would put the index's dims first).
  A constant N-d mask takes the marked elements of the dims it covers (``x[mask]``: the leading ones). Constant
  integer indices side by side (``x[rows, cols]``) are one index into their dims merged; other combinations of
  two or more index tensors or lists are refused by name.
* Eagerly, a tensor that records gradients is indexed the same way (its rows taken with recorded ops), so the
  gradient flows back to the positions taken.
* ``x[mask]`` with a traced bool mask has a shape that depends on the mask's values; a traced
  program has shapes fixed when it is compiled, so it is refused (call it outside jit, or use
  ``torch.where``-style ``x.where(mask, other)`` which keeps the shape).
* ``x[idx] = value`` is functionalized like the other in-place updates: a traced value under a
  basic index without steps updates the view ``x[idx]`` (``copy_``); otherwise, for an index
  known when tracing (slices, strided slices, integer or bool tensors), ``x`` is rebound to
  ``where(mask, new, x)`` with the constant mask of the indexed positions and ``new`` the value
  laid out at those positions: a constant on the host, a traced value by selection (``_placed``).
  ``x[mask] = value`` with a traced mask and a value of one element is ``where(mask, value, x)`` too
  (``x[x < 0] = 0``).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as dt
from .creation import to_pyasc
from .errors import DataDependentShapeError, PyascError, PyascIndexError, raise_host_only
from .tensor import Tensor

_NARROW = (dt.bool_, dt.int8)      # selected through float16, which holds them exactly
_ADV = object()                    # the advanced index's place in an expanded index


def _is_basic(item) -> bool:
    return item is None or item is Ellipsis or isinstance(item, slice) or (
        isinstance(item, numbers.Integral) and not isinstance(item, bool))


def _traced(t) -> bool:
    return isinstance(t, Tensor) and t._trace is not None


def _carrier(t: Tensor) -> Tensor:
    return t.to(dt.float16) if t.dtype in _NARROW else t


def take_rows(x: Tensor, idx: Tensor) -> Tensor:
    """``x[idx]`` for an integer index tensor ``idx`` (see the module docstring)."""
    if not x.ndim:
        raise PyascError("getitem", "a 0-d tensor cannot be indexed by a tensor", shapes=[x.shape, idx.shape])
    n, rest = x.shape[0], x.shape[1:]
    if 0 in idx.shape or 0 in rest:
        return Tensor(np.empty(idx.shape + rest, x.dtype.np_dtype), x.dtype)
    if n == 0:
        raise PyascIndexError("getitem", f"index out of range: dimension 0 of shape {x.shape} is empty",
                              shapes=[x.shape, idx.shape])
    i = idx.to(dt.int32)
    i = i.where(i >= 0, i + n)
    positions = Tensor(np.arange(n, dtype=np.int32), dt.int32)
    hit = i.reshape(*idx.shape, 1) == positions                        # (*idx, n)
    hit = hit.reshape(*hit.shape, *([1] * len(rest)))                   # (*idx, n, 1...)
    c = _carrier(x)
    picked = c.where(hit, 0 if c.dtype is dt.int32 else 0.0)          # (*idx, n, *rest)
    return picked.sum(dim=idx.ndim).to(x.dtype)


def _constant_mask(item):
    """A bool index known when tracing (a list, an array, an untraced tensor) as an array, else None."""
    if isinstance(item, Tensor):
        return item.numpy() if item.dtype is dt.bool_ and not _traced(item) else None
    if isinstance(item, list | np.ndarray):
        a = np.asarray(item)
        return a if a.dtype == np.bool_ else None
    return None


def _integer_index(item, x: Tensor, dim: int):
    """An integer index into ``dim`` of ``x``: a traced int tensor as it is, a constant one (a list, an array, an
    untraced tensor) as int32, bounds-checked; None for one that does not compile (floats)."""
    if isinstance(item, Tensor):
        if item.dtype.is_floating_point:
            return None
        if item.dtype is dt.bool_:
            raise DataDependentShapeError(
                "getitem", "indexing by a traced bool mask cannot be compiled: the result's shape depends on the "
                "mask's values, and a compiled program's shapes are fixed (a pyasc.jit call runs such a function "
                "eagerly; x.where(mask, other) compiles)", shapes=[x.shape, item.shape], dtypes=[x.dtype.name, "bool"])
        if _traced(item):
            return item
        a = item.numpy()
    else:
        a = np.asarray(item)
        if a.size == 0:
            a = a.astype(np.int32)                    # [] is an empty integer index, as in PyTorch
    if a.dtype.kind not in "iu":
        return None
    n = x.shape[dim]
    bad = a[(a < -n) | (a >= n)]
    if bad.size:
        raise PyascIndexError("getitem", f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size "
                              f"{n} (shape {x.shape})", shapes=[x.shape, a.shape])
    return Tensor(a.astype(np.int32), dt.int32)


def _take_along(x: Tensor, items: tuple, k: int):
    """``x[items]`` with one advanced index, ``items[k]``, and basic ones elsewhere (see the module docstring)."""
    mask = _constant_mask(items[k])
    if mask is not None and mask.ndim == 0:
        return NotImplemented
    covers = mask.ndim if mask is not None else 1      # the dims of x the advanced index covers
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis) + covers - 1
    if n_real > x.ndim:
        raise PyascIndexError("getitem", f"too many indices ({n_real}) for shape {x.shape}", shapes=[x.shape])
    expanded = []
    for pos, i in enumerate(items):
        expanded += [slice(None)] * (x.ndim - n_real) if i is Ellipsis else [_ADV if pos == k else i]
    if not any(i is Ellipsis for i in items):
        expanded += [slice(None)] * (x.ndim - n_real)
    at = next(j for j, i in enumerate(expanded) if i is _ADV)
    dim = sum(1 for i in expanded[:at] if i is not None)             # the first dim of x the index covers
    if mask is not None:
        covered = x.shape[dim:dim + covers]
        if mask.shape != covered:
            raise PyascIndexError("getitem", f"the mask of shape {mask.shape} does not match the dims {covered} it "
                                  f"indexes in shape {x.shape}", shapes=[x.shape, mask.shape])
        index = Tensor(np.flatnonzero(mask).astype(np.int32), dt.int32)
        x = x.reshape(*x.shape[:dim], int(np.prod(covered)), *x.shape[dim + covers:])
    else:
        index = _integer_index(items[k], x, dim)
        if index is None:
            return NotImplemented
    basic = tuple(slice(None) if i is _ADV else i for i in expanded)
    y = x if all(isinstance(i, slice) and i == slice(None) for i in basic) else x[basic]
    p = sum(1 for i in expanded[:at] if i is None or isinstance(i, slice))   # the indexed dim in y
    if p:
        y = y.permute(p, *[d for d in range(y.ndim) if d != p])
    taken = take_rows(y, index)
    # the index's dims go where the indexed dim was (PyTorch applies int indices first, as views, unlike NumPy)
    lead, rest = index.ndim, list(range(index.ndim, taken.ndim))
    perm = rest[:p] + list(range(lead)) + rest[p:]
    return taken.permute(*perm) if perm != list(range(taken.ndim)) else taken


def getitem_by_tensor(x, idx):
    """The decomposition of ``getitem`` inside ``pyasc.jit`` for one advanced index (an integer tensor, a list, a
    constant mask) among basic ones; NotImplemented for the other calls (basic indices are views, eager calls run
    on the host)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    if not isinstance(x, Tensor) or not (_traced(x) or any(_traced(i) for i in items) or _differentiated(x)):
        return NotImplemented
    if all(_is_basic(i) for i in items):       # a view; an empty one is a constant (no elements to move)
        try:
            shape = np.broadcast_to(np.empty((), np.int8), x.shape)[idx].shape
        except (IndexError, TypeError):
            return NotImplemented              # (the view op reports the error)
        return Tensor(np.empty(shape, x.dtype.np_dtype), x.dtype) if 0 in shape else NotImplemented
    if not x.ndim:
        raise PyascError("getitem", "a 0-d tensor cannot be indexed by a tensor", shapes=[x.shape])
    advanced = [k for k, i in enumerate(items) if not _is_basic(i)]
    if len(advanced) > 1:
        merged = _merge_constant_indices(x, items, advanced)
        if merged is None:
            raise_host_only("getitem", [x], "indexing by two or more index tensors or lists (other than constant "
                            "integer ones side by side) is")
        x, items, k = merged
        return _take_along(x, items, k)
    return _take_along(x, items, advanced[0])


def _differentiated(x: Tensor) -> bool:
    """An eager ``x`` whose advanced indexing gradients record: decomposed as inside ``pyasc.jit``."""
    from .autograd import tape

    return x.requires_grad and tape.is_grad_enabled()


def _merge_constant_indices(x: Tensor, items: tuple, advanced: list):
    """``x[..., a, b, ...]`` with constant integer indices side by side (lists, arrays, untraced tensors; no None or
    Ellipsis): (``x`` with the dims they index merged into one, the items with one flat index there, its place),
    which takes the same elements in the same order; None for other indices."""
    if advanced != list(range(advanced[0], advanced[-1] + 1)) or any(i is None or i is Ellipsis for i in items):
        return None
    arrays = []
    for k in advanced:
        i = items[k]
        a = i.numpy() if isinstance(i, Tensor) and not _traced(i) else np.asarray(i) if isinstance(
            i, list | tuple | np.ndarray) else None
        if a is None or a.dtype.kind not in "iu":
            return None
        arrays.append(a.astype(np.int64))
    d0 = advanced[0]
    dims = x.shape[d0:d0 + len(arrays)]
    if len(dims) < len(arrays):
        raise PyascIndexError("getitem", f"too many indices for shape {x.shape}", shapes=[x.shape])
    for d, (a, n) in enumerate(zip(arrays, dims)):
        bad = a[(a < -n) | (a >= n)]
        if bad.size:
            raise PyascIndexError("getitem", f"index {int(bad.flat[0])} is out of bounds for dimension {d0 + d} with "
                                  f"size {n} (shape {x.shape})", shapes=[x.shape, a.shape])
    try:
        arrays = np.broadcast_arrays(*[np.where(a < 0, a + n, a) for a, n in zip(arrays, dims)])
    except ValueError:
        raise PyascIndexError("getitem", f"shape mismatch: the indices of shapes {[a.shape for a in arrays]} cannot "
                              "be broadcast together", shapes=[x.shape]) from None
    flat = np.ravel_multi_index(arrays, dims).astype(np.int32) if arrays[0].size else np.zeros(arrays[0].shape,
                                                                                                np.int32)
    merged = x.reshape(*x.shape[:d0], int(np.prod(dims)), *x.shape[d0 + len(dims):])
    return merged, items[:d0] + (Tensor(flat, dt.int32),) + items[advanced[-1] + 1:], d0


def _masked_update(x: Tensor, idx, value) -> bool:
    """``x[mask] = value`` for one traced bool mask over ``x``'s leading dims and a value of one element: ``x``
    rebound to ``where(mask, value, x)``, whose shape does not depend on the mask's values. False for other
    calls."""
    if not (isinstance(idx, Tensor) and idx.dtype is dt.bool_ and _traced(idx)):
        return False
    if idx.shape != x.shape[:idx.ndim]:
        raise PyascIndexError("setitem", f"the mask of shape {idx.shape} does not match the leading dims of shape "
                              f"{x.shape}", shapes=[x.shape, idx.shape])
    if isinstance(value, Tensor) and value.numel() != 1:
        raise DataDependentShapeError(
            "setitem", f"x[mask] = a value of shape {value.shape} inside pyasc.jit: how many elements the mask picks "
            "depends on its values; a value of one element compiles (x.where(~mask, value) too)",
            shapes=[x.shape, idx.shape, value.shape])
    carrier = _carrier(x)
    if isinstance(value, Tensor):
        new = _carrier(value.reshape(())).to(carrier.dtype)
    else:
        new = Tensor(np.asarray(value).astype(carrier.dtype.np_dtype), carrier.dtype)
    mask = idx.reshape(*idx.shape, *([1] * (x.ndim - idx.ndim)))
    x.copy_(new.where(mask, carrier).to(x.dtype))
    return True


def setitem_traced(x: Tensor, idx, value, index_of) -> None:
    """``x[idx] = value`` inside ``pyasc.jit`` (see the module docstring); ``index_of`` turns
    ``idx`` into a NumPy index."""
    if x._trace is None:
        x._lift()                       # a tensor the function made (``out = zeros(n); out[0] = x``)
    if x._trace is not None and _masked_update(x, idx, value):
        return
    items = idx if isinstance(idx, tuple) else (idx,)
    if x._trace is None or any(_traced(i) for i in items):
        raise_host_only("setitem", [x])
    if not isinstance(value, numbers.Number):
        value = to_pyasc(value, "setitem")
    basic = all(_is_basic(i) for i in items) and all(not isinstance(i, slice) or i.step in (None, 1) for i in items)
    if _traced(value) and basic:
        x[idx].copy_(value)
        return
    mask = np.zeros(x.shape, np.bool_)
    carrier = dt.float16 if x.dtype in _NARROW else x.dtype
    try:
        mask[index_of(idx)] = True
        if not _traced(value):          # the new values at their positions, a constant
            a = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
            full = np.zeros(x.shape, carrier.np_dtype)
            full[index_of(idx)] = (a != 0) if x.dtype is dt.bool_ else a.astype(x.dtype.np_dtype)
    except (IndexError, ValueError) as e:
        raise PyascError("setitem", f"cannot assign {getattr(value, 'shape', 'a number')} to x[index] of x of "
                         f"shape {x.shape}: {e}", shapes=[x.shape]) from None
    if _traced(value) and value.numel() != 1:
        new = _placed(x, index_of(idx), value)
        if new is None:
            return
    elif _traced(value):
        new = _carrier(value.reshape(()))
    else:
        new = Tensor(full, carrier)
    x.copy_(_carrier(x).where(Tensor(~mask, dt.bool_), new).to(x.dtype))


_PLACED_WORK = 1 << 26  # selections ``_placed`` may make (positions x values) before it refuses


def _placed(x: Tensor, index, value: Tensor) -> Tensor | None:
    """A traced ``value`` laid out at the positions of ``x`` that the constant NumPy ``index`` marks (the later of
    two values for one position, as NumPy and PyTorch's CPU assign), on ``x``'s carrier dtype; None when the index
    marks nothing. Each position selects its value among all of them (``take_rows``), by whole rows of ``x`` when
    the index takes whole rows in order (``x[[0, 2]] = v``)."""
    try:
        region = np.empty(x.shape, np.int8)[index].shape
        count = int(np.prod(region))
        positions = np.full(x.shape, -1, np.int64)
        positions[index] = np.arange(count).reshape(region)
        v = value.to(x.dtype)
        if v.ndim > len(region):
            v = v.reshape(v.shape[v.ndim - len(region):]) if all(d == 1 for d in v.shape[:v.ndim - len(region)]) \
                else v
        v = v.expand(*region) if region else v.reshape(())
    except (IndexError, ValueError, PyascError) as e:
        raise PyascError("setitem", f"cannot assign a value of shape {value.shape} to x[index] of x of shape "
                         f"{x.shape}: {getattr(e, 'detail', e)}", shapes=[x.shape, value.shape]) from None
    if count == 0:
        return None
    n = x.shape[0] if x.ndim else 1
    width = x.numel() // n if n else 0
    rows = positions.reshape(n, width)
    starts = rows[:, :1]
    whole = bool(np.all((rows == -1) | ((starts % width == 0) & (rows == starts + np.arange(width)))))
    work = (n if whole else x.numel()) * count
    if work > _PLACED_WORK:
        raise PyascError("setitem", f"inside pyasc.jit, x[index] = value of shape {value.shape} into x of shape "
                         f"{x.shape} would select among {count} values at each of {x.numel()} positions; assign it "
                         "outside jit, or update a slice", shapes=[x.shape, value.shape])
    c = _carrier(v).reshape(count)
    if whole:
        picked = take_rows(c.reshape(count // width, width), Tensor(np.maximum(starts[:, 0] // width, 0)
                                                                    .astype(np.int32), dt.int32))
    else:
        picked = take_rows(c, Tensor(np.maximum(positions, 0).astype(np.int32), dt.int32))
    return picked.reshape(*x.shape)


def _view_update(x: Tensor, idx, value: Tensor) -> bool:
    """``x[idx] = value`` as the in-place update of the view ``x[idx]`` (``autograd.view_update``: any order and
    step), when the index makes one (False: a single element, a traced strided slice, or a concrete ``x`` inside
    ``pyasc.jit``)."""
    from .autograd import tape, view_update

    if x._trace is None and value._trace is not None:   # a made tensor taking traced values: lifted by the box path
        return False
    view = x[idx]
    if not tape.is_view(view) or not view_update.knows(view):
        return False
    view_update.update(view, "setitem", value)
    return True


def setitem_recorded(x: Tensor, idx, value, index_of) -> None:
    """``x[idx] = value`` while gradients are recorded (eagerly and traced): ``x`` updated in place to
    ``where(mask, placed, x)``, ``placed`` holding ``value`` at the indexed positions. A value that requires grad goes
    through the view ``x[idx]`` where the index makes one, else is placed by padding, so its index must select a box
    (slices of step 1 and integers)."""
    if _masked_update(x, idx, value):
        return
    mask = np.zeros(x.shape, np.bool_)
    try:
        mask[index_of(idx)] = True
        region = np.empty(x.shape, np.bool_)[index_of(idx)].shape
    except (IndexError, ValueError, TypeError) as e:
        raise PyascIndexError("setitem", f"index {idx!r} is invalid for shape {x.shape}: {e}",
                              shapes=[x.shape]) from None
    differentiable = isinstance(value, Tensor) and value.requires_grad
    if differentiable and _view_update(x, idx, value):
        return
    if not differentiable:
        a = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
        full = np.zeros(x.shape, x.dtype.np_dtype)
        full[index_of(idx)] = a.astype(x.dtype.np_dtype)
        placed = Tensor(full, x.dtype)
    else:
        nz = np.nonzero(mask)
        lo = [int(i.min()) if i.size else 0 for i in nz]
        hi = [int(i.max()) + 1 if i.size else 0 for i in nz]
        order = np.arange(mask.size).reshape(x.shape)[index_of(idx)].ravel()
        if int(mask.sum()) != int(np.prod([h - lo_ for lo_, h in zip(lo, hi)])) or \
                not np.array_equal(order, np.flatnonzero(mask)):   # a negative step reads the box backwards
            raise PyascError("setitem", f"x[{idx!r}] = a value that requires grad: the index must select a box "
                             "(slices of step 1 and integers) for the gradient to be recorded inside pyasc.jit",
                             shapes=[x.shape, value.shape])
        from .ops_pad import pad_dims

        v = value.to(x.dtype) if value.dtype is not x.dtype else value
        if v.shape != region:
            v = v.expand(*region)
        v = v.reshape(*[h - lo_ for lo_, h in zip(lo, hi)])
        placed = pad_dims(v, {d: (lo[d], x.shape[d] - hi[d]) for d in range(x.ndim)}, "constant", 0)
    x.copy_(placed.where(Tensor(mask, dt.bool_), x))
