"""``pad``: PyTorch's ``torch.nn.functional.pad`` (modes constant, reflect, replicate and circular), a composite.

Each padded dimension is a list of source indices (-1 for the constant), as PyTorch computes them:

| mode | output index ``j`` of a dimension of ``size`` padded by ``(lo, hi)`` reads |
|---|---|
| constant | ``j - lo`` when it is inside the input, else the value |
| reflect | ``i = j - lo`` mirrored at the edges, which do not repeat: ``-i`` below 0, ``2 (size - 1) - i`` past it |
| replicate | ``j - lo`` clamped to the input |
| circular | the input cropped by the negative pads, read cyclically from ``-lo`` |

The indices split into runs, each a slice of the input (forwards), a flipped slice (backwards), an expanded
element (repeated) or a splat; the runs are concatenated. A negative pad crops. Padding whose every pad is 0
is a copy.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import dtypes
from .composite import _as_tensor_arg
from .creation import full
from .errors import PyascError, describe
from .opdef import COMPOSITE, OpDef
from .ops_shape import OPS as _SHAPE_OPS
from .views import OPS as _VIEW_OPS

_BY_NAME = {op.name: op for op in (*_VIEW_OPS, *_SHAPE_OPS)}
CAT, CLONE, EXPAND, FLIP, GETITEM = (_BY_NAME[n] for n in ("cat", "clone", "expand", "flip", "getitem"))

MODES = ("constant", "reflect", "replicate", "circular")


def pad(input, pad, mode: str = "constant", value=None):  # noqa: A002 - PyTorch's names
    """``input`` padded by ``pad`` = (left, right) of the last dimension, then of the one before, and so on (a
    negative pad crops), with ``value`` (mode "constant", default 0) or with the input's own elements ("reflect",
    "replicate", "circular": the last 1, 2 or 3 dimensions of an input with 1 or 2 more), as
    ``torch.nn.functional.pad``."""
    x = _as_tensor_arg(input, "pad")
    pads = _check(x, pad, mode, value)
    by_dim = {x.ndim - 1 - i: (pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)}
    return pad_dims(x, by_dim, mode, value, may_empty=len(pads) > 2)


def pad_dims(x, pads: dict, mode: str, value=None, may_empty: bool = True):
    """``x`` padded by ``pads`` = {dimension: (before, after)} in ``mode`` (as ``pad``, without PyTorch's limits
    on which dimensions the non-constant modes pad); a new tensor."""
    out, copied = x, False
    for dim, (lo, hi) in pads.items():
        index = source_indices(x.shape[dim], lo, hi, mode, x.shape, dim, may_empty)
        out, joined = _gathered(out, dim, index, _fill_value(x, value))
        copied |= joined
    return out if copied else CLONE(out)  # a crop alone is a new tensor too, as in PyTorch


def source_indices(size: int, lo: int, hi: int, mode: str, shape=(), dim: int = 0,
                   may_empty: bool = True) -> np.ndarray:
    """The input index each output position of a dimension of ``size`` padded by ``(lo, hi)`` reads (-1: the
    constant), as the table of the module docstring says. ``may_empty``: reflect and replicate may crop the
    dimension to nothing (PyTorch allows it where they pad 2 or 3 dimensions, not 1)."""
    new = size + lo + hi
    first, kept = max(-lo, 0), size - max(-lo, 0) - max(-hi, 0)
    if mode in ("constant", "circular") and kept < 0:
        raise PyascError("pad", f"padding ({lo}, {hi}) crops {size - kept} elements from dimension {dim} of size "
                                f"{size}", shapes=[shape])
    if mode == "constant" or (new == 0 and (mode == "circular" or may_empty)):
        i = np.arange(new) - lo
        return np.where((i >= 0) & (i < size), i, -1)
    if new < 1:
        raise PyascError("pad", f"input (size {size} in dimension {dim}) is too small for padding ({lo}, {hi}): "
                                f"{new} elements", shapes=[shape])
    i = np.arange(new) - lo
    if mode == "replicate":
        return np.clip(i, 0, size - 1)
    if mode == "reflect":
        if lo >= size or hi >= size:
            raise PyascError("pad", f"reflect padding ({lo}, {hi}) should be less than the size {size} of dimension "
                                    f"{dim} of input {list(shape)}", shapes=[shape])
        i = np.abs(i)
        return np.where(i >= size, 2 * (size - 1) - i, i)
    if lo > kept or hi > kept:
        raise PyascError("pad", f"circular padding ({lo}, {hi}) of dimension {dim} of input {list(shape)} wraps "
                                f"around more than once ({kept} elements left)", shapes=[shape])
    return first + (np.arange(new) - max(lo, 0)) % kept


def _runs(index: np.ndarray) -> list[tuple[int, int, int]]:
    """``index`` as runs (first source index, step 1, -1 or 0, length); step None: the constant."""
    runs: list = []
    j = 0
    while j < len(index):
        start = int(index[j])
        if start < 0:
            n = 1
            while j + n < len(index) and index[j + n] < 0:
                n += 1
            runs.append((None, None, n))
        else:
            step = int(index[j + 1] - start) if j + 1 < len(index) and index[j + 1] >= 0 else 1
            step = step if step in (1, -1, 0) else 1
            n = 1
            while j + n < len(index) and index[j + n] == start + n * step:
                n += 1
            runs.append((start, step, n))
        j += n
    return runs


def _gathered(x, dim: int, index: np.ndarray, value):
    """(``x`` along ``dim`` at ``index`` (-1: ``value``), whether it is a new tensor): its runs concatenated,
    or a view of ``x`` when ``index`` is one slice."""
    if len(index) == x.shape[dim] and (index == np.arange(len(index))).all():
        return x, False
    lead = (slice(None),) * dim
    if not len(index):
        return GETITEM(x, (*lead, slice(0, 0))), False
    parts = []
    for start, step, n in _runs(index):
        if step is None:
            shape = list(x.shape)
            shape[dim] = n
            parts.append(full(tuple(shape), value, dtype=x.dtype, device=x.device))
        elif step == 1:
            parts.append(GETITEM(x, (*lead, slice(start, start + n))))
        elif step == -1:
            parts.append(FLIP(GETITEM(x, (*lead, slice(start - n + 1, start + 1))), (dim,)))
        else:
            shape = list(x.shape)
            shape[dim] = n
            parts.append(EXPAND(GETITEM(x, (*lead, slice(start, start + 1))), tuple(shape)))
    if len(parts) == 1:
        return parts[0], start is None or step != 1  # (the last run's)
    return CAT(parts, dim), True


def _check(x, pad, mode, value) -> tuple[int, ...]:
    shapes = [x.shape]
    if not isinstance(pad, (tuple, list)) or any(isinstance(p, bool) or not isinstance(p, numbers.Integral)
                                                 for p in pad):
        raise PyascError("pad", f"pad must be a tuple of ints, got {describe(pad)}", shapes=shapes)
    if len(pad) % 2:
        raise PyascError("pad", f"the padding length {len(pad)} must be divisible by 2", shapes=shapes)
    if len(pad) // 2 > x.ndim:
        raise PyascError("pad", f"padding length {len(pad)} pads more dimensions than the input {list(x.shape)} "
                                f"has", shapes=shapes)
    if mode not in MODES:
        raise PyascError("pad", f"mode must be one of {', '.join(MODES)}, got {describe(mode)}", shapes=shapes)
    if mode != "constant":
        if value is not None and value != 0:
            raise PyascError("pad", f'padding mode "{mode}" does not take a value', shapes=shapes)
        if x.ndim - len(pad) // 2 not in (1, 2):
            raise PyascError("pad", f"{mode} padding of {len(pad) // 2} dimensions needs an input of "
                                    f"{len(pad) // 2 + 1} or {len(pad) // 2 + 2} dimensions, got {list(x.shape)}",
                             shapes=shapes)
        if mode != "circular" and 0 in x.shape[x.ndim - len(pad) // 2 - 1:]:
            raise PyascError("pad", f"{mode} padding needs non-zero dimensions (but for a leading batch), got "
                                    f"{list(x.shape)}", shapes=shapes)
        if x.dtype == dtypes.bool_ and mode != "circular":
            raise PyascError("pad", f"{mode} padding is not implemented for bool", shapes=shapes, dtypes=["bool"])
    return tuple(int(p) for p in pad)


def _fill_value(x, value):
    """``value`` (0 when None) as an element of ``x``'s dtype, converted as PyTorch does: truncated for integers,
    refused where it overflows."""
    v = 0 if value is None else value
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        if not isinstance(v, bool):
            raise PyascError("pad", f"value must be a number, got {describe(value)}", shapes=[x.shape])
    d = x.dtype
    if d == dtypes.bool_:
        return bool(v)
    if d.is_floating_point:
        top = float(np.finfo(d.np_dtype).max) if d.np_dtype.kind == "f" else 3.3895313892515355e38
        if math.isfinite(v) and abs(v) > top:
            raise PyascError("pad", f"value {v} cannot be converted to {d.name} without overflow", shapes=[x.shape],
                             dtypes=[d.name])
        return float(v)
    info = np.iinfo(d.np_dtype)
    if not math.isfinite(v) or not info.min <= int(v) <= info.max:
        raise PyascError("pad", f"value {v} cannot be converted to {d.name} without overflow", shapes=[x.shape],
                         dtypes=[d.name])
    return int(v)


OPS = [OpDef("pad", decompose=pad, kind=COMPOSITE, method=False)]
