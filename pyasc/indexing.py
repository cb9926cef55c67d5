"""Indexing inside ``pyasc.jit`` beyond basic views (PyTorch semantics).

* A basic index selecting no element gives a constant empty tensor.
* ``x[idx]`` with one integer index tensor (traced or not) takes rows of ``x`` along dim 0: each
  output row picks its row by comparing ``idx`` with the positions 0..n-1 and summing the one
  selected row with zeros (exact for every dtype: ``select`` never multiplies, so NaN and inf
  rows stay where they are). Negative indices count from the end. A device kernel cannot raise,
  so an index outside [-n, n) gives a row of zeros inside ``pyasc.jit`` (eagerly it raises).
* ``x[mask]`` with a traced bool mask has a shape that depends on the mask's values; a traced
  program has shapes fixed when it is compiled, so it is refused (call it outside jit, or use
  ``torch.where``-style ``x.where(mask, other)`` which keeps the shape).
* ``x[idx] = value`` is functionalized like the other in-place updates: a traced value under a
  basic index without steps updates the view ``x[idx]`` (``copy_``); otherwise, for an index
  known when tracing (slices, strided slices, integer or bool tensors), ``x`` is rebound to
  ``where(mask, new, x)`` with the constant mask of the indexed positions and ``new`` the value
  (a constant laid out at those positions, or a traced one-element value).
"""

from __future__ import annotations

import numbers

import numpy as np

from . import dtypes as dt
from .creation import to_pyasc
from .errors import DataDependentShapeError, PyascError, PyascIndexError, raise_host_only
from .tensor import Tensor

_NARROW = (dt.bool_, dt.int8)      # selected through float16, which holds them exactly


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


def getitem_by_tensor(x, idx):
    """The decomposition of ``getitem`` inside ``pyasc.jit`` for one integer index tensor;
    NotImplemented for the other calls (basic indices are views, eager calls run on the host)."""
    if not isinstance(x, Tensor) or not (_traced(x) or _traced(idx)):
        return NotImplemented
    items = idx if isinstance(idx, tuple) else (idx,)
    if all(_is_basic(i) for i in items):       # a view; an empty one is a constant (no elements to move)
        try:
            shape = np.broadcast_to(np.empty((), np.int8), x.shape)[idx].shape
        except (IndexError, TypeError):
            return NotImplemented              # (the view op reports the error)
        return Tensor(np.empty(shape, x.dtype.np_dtype), x.dtype) if 0 in shape else NotImplemented
    if not isinstance(idx, Tensor):
        return NotImplemented
    if idx.dtype is dt.bool_:
        if _traced(idx):
            raise DataDependentShapeError(
                "getitem", "indexing by a traced bool mask cannot be compiled: the result's shape depends on the "
                "mask's values, and a compiled program's shapes are fixed (a pyasc.jit call runs such a function "
                "eagerly; x.where(mask, other) compiles)", shapes=[x.shape, idx.shape], dtypes=[x.dtype.name, "bool"])
        return NotImplemented
    if idx.dtype.is_floating_point:
        return NotImplemented
    return take_rows(x, idx)


def setitem_traced(x: Tensor, idx, value, index_of) -> None:
    """``x[idx] = value`` inside ``pyasc.jit`` (see the module docstring); ``index_of`` turns
    ``idx`` into a NumPy index."""
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
    if _traced(value):
        if value.numel() != 1:
            raise PyascError("setitem", "inside pyasc.jit a strided or tensor index takes a traced value of one "
                             f"element (or a constant), got shape {value.shape}", shapes=[x.shape, value.shape])
        new = _carrier(value.reshape(()))
    else:
        new = Tensor(full, carrier)
    x.copy_(_carrier(x).where(Tensor(~mask, dt.bool_), new).to(x.dtype))


def setitem_recorded(x: Tensor, idx, value, index_of) -> None:
    """``x[idx] = value`` while gradients are recorded (eagerly and traced): ``x`` updated in place to
    ``where(mask, placed, x)``, ``placed`` holding ``value`` at the indexed positions. A value that requires grad is
    placed by padding, so its index must select a box (slices of step 1 and integers)."""
    mask = np.zeros(x.shape, np.bool_)
    try:
        mask[index_of(idx)] = True
        region = np.empty(x.shape, np.bool_)[index_of(idx)].shape
    except (IndexError, ValueError, TypeError) as e:
        raise PyascIndexError("setitem", f"index {idx!r} is invalid for shape {x.shape}: {e}",
                              shapes=[x.shape]) from None
    differentiable = isinstance(value, Tensor) and value.requires_grad
    if not differentiable:
        a = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
        full = np.zeros(x.shape, x.dtype.np_dtype)
        full[index_of(idx)] = a.astype(x.dtype.np_dtype)
        placed = Tensor(full, x.dtype)
    else:
        nz = np.nonzero(mask)
        lo = [int(i.min()) if i.size else 0 for i in nz]
        hi = [int(i.max()) + 1 if i.size else 0 for i in nz]
        if int(mask.sum()) != int(np.prod([h - lo_ for lo_, h in zip(lo, hi)])):
            raise PyascError("setitem", f"x[{idx!r}] = a value that requires grad: the index must select a box "
                             "(slices of step 1 and integers) for the gradient to be recorded",
                             shapes=[x.shape, value.shape])
        from .ops_pad import pad_dims

        v = value.to(x.dtype) if value.dtype is not x.dtype else value
        if v.shape != region:
            v = v.expand(*region)
        v = v.reshape(*[h - lo_ for lo_, h in zip(lo, hi)])
        placed = pad_dims(v, {d: (lo[d], x.shape[d] - hi[d]) for d in range(x.ndim)}, "constant", 0)
    x.copy_(placed.where(Tensor(mask, dt.bool_), x))
