"""Tensor creation with PyTorch's semantics: ``tensor``, ``from_numpy``, ``zeros``, ``ones``,
``full``, ``empty``, ``eye``, ``rand``, ``randn``, ``arange`` and the ``*_like`` variants.

pyasc has no 64-bit dtypes: where PyTorch would give int64, pyasc gives int32, and float64 data
becomes float32 (PyTorch's default float dtype); bool data gives ``pyasc.bool``. Every function
takes ``format=`` (a layout tag, see ``formats.py``) and ``device=`` (default: the current
device); wherever data is taken, a pyasc Tensor, NumPy array or PyTorch CPU tensor will do.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from . import dtypes as dt
from .errors import PyascError, describe
from .formats import as_format
from .interop import is_torch_tensor, torch_to_numpy
from .memory import check_tensor_fits, track_tensor
from .tensor import Tensor

_rng = np.random.default_rng()


def manual_seed(seed: int) -> None:
    """Seed the generator behind ``rand``/``randn`` (as ``torch.manual_seed``)."""
    global _rng
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    """The generator behind ``rand``/``randn`` (and dropout's masks)."""
    return _rng


def _dtype_or(op: str, dtype, default: dt.DType) -> dt.DType:
    if dtype is None:
        return default
    try:
        return dt.get_dtype(dtype)
    except TypeError as e:
        raise PyascError(op, str(e)) from None


def _size(op: str, size) -> tuple[int, ...]:
    """``zeros(2, 3)``, ``zeros((2, 3))`` and ``zeros([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = tuple(size[0])
    out = []
    for d in size:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise PyascError(op, f"size must be a sequence of integers, got {describe(d)}")
        if d < 0:
            raise PyascError(op, f"negative dimension {d} in size {tuple(size)}")
        out.append(int(d))
    return tuple(out)


def _infer_dtype(a: np.ndarray) -> dt.DType | None:
    if a.dtype.kind == "f" and a.dtype not in (np.float16, np.float32):
        return dt.float32
    return dt.from_numpy_dtype(a.dtype)


def _fits(op: str, shape: tuple[int, ...], d: dt.DType, device) -> tuple[int, ...]:
    """``shape``, once a tensor of it is known to fit in device memory (checked before allocating)."""
    check_tensor_fits(op, shape, d.itemsize, d.name, device)
    return shape


def _new(a: np.ndarray, d: dt.DType, op: str, format=None, device=None) -> Tensor:  # noqa: A002
    """A new device tensor, counted as allocated device memory from now on."""
    _fits(op, a.shape, d, device)
    t = Tensor(a, d, format=None if format is None else as_format(format, a.shape, op), device=device)
    track_tensor(t)
    return t


def _int_range(d: dt.DType) -> tuple[int, int] | None:
    """``[lo, hi)`` of an integer dtype other than bool; None for the others."""
    if d.is_floating_point or d is dt.bool_:
        return None
    info = np.iinfo(d.np_dtype)
    return int(info.min), int(info.max) + 1


def from_any(data, dtype=None, op: str = "tensor", format=None, device=None) -> Tensor:  # noqa: A002
    """A new Tensor from a Tensor, NumPy array, torch tensor, (nested) list/tuple or Python number."""
    if isinstance(data, Tensor):
        a = data.numpy()
    elif is_torch_tensor(data):
        a = torch_to_numpy(data, op)
    elif isinstance(data, np.ndarray):
        a = data
    else:
        if isinstance(data, str | bytes):
            raise PyascError(op, f"cannot make a tensor from {describe(data)}")
        try:
            a = np.array(data)
        except (ValueError, TypeError) as e:
            raise PyascError(op, f"cannot make a tensor from {describe(data)}: {e}") from None
        if a.dtype == object:
            try:   # lists of tensors
                a = np.array([to_numpy(v) if isinstance(v, Tensor) or is_torch_tensor(v) else v for v in data])
            except (ValueError, TypeError) as e:
                raise PyascError(op, f"cannot make a tensor from {describe(data)}: {e}") from None
    if a.dtype.kind not in "biuf" and not (a.dtype == dt.bfloat16.np_dtype):
        raise PyascError(op, f"cannot make a tensor from {describe(data)} (element type {a.dtype})")
    d = _dtype_or(op, dtype, _infer_dtype(a))
    if d is None:
        raise PyascError(op, f"unsupported element type {a.dtype}")
    bounds = _int_range(d)
    if bounds is not None and a.dtype.kind in "iu" and a.size:
        lo, hi = bounds
        if a.min() < lo or a.max() >= hi:
            raise PyascError(op, f"values do not fit in {d.name}", dtypes=[str(a.dtype)])
    _fits(op, a.shape, d, device)
    with np.errstate(all="ignore"):
        a = (a != 0) if d is dt.bool_ and a.dtype != np.bool_ else a
        return _new(np.array(a, dtype=d.np_dtype, copy=True), d, op, format, device)


def to_pyasc(x, op: str = "tensor") -> Tensor:
    """A pyasc Tensor for ``x``: a Tensor itself, a NumPy array (shared when its dtype is a pyasc
    dtype) or a torch CPU tensor; PyascError for anything else."""
    if isinstance(x, Tensor):
        return x
    if is_torch_tensor(x):
        a = torch_to_numpy(x, op)
    elif isinstance(x, np.ndarray):
        a = x
    else:
        raise PyascError(op, f"expected a tensor, got {describe(x)}")
    d = dt.from_numpy_dtype(a.dtype)
    if d is not None and a.dtype == d.np_dtype:
        return Tensor(a, d)
    return from_any(a, op=op)


def to_numpy(x) -> np.ndarray:
    """The values of a pyasc Tensor (shared), NumPy array or torch tensor as a NumPy array."""
    if isinstance(x, Tensor):
        return x.numpy()
    if is_torch_tensor(x):
        return torch_to_numpy(x, "to_numpy")
    if isinstance(x, np.ndarray):
        return x
    return np.asarray(x)


def copy_to_device(dst, src, *, non_blocking: bool = False) -> Tensor:
    """``copy_to_device(dst, src)`` copies the values of ``src`` into the tensor ``dst`` (same
    shape; converted to dst's dtype; any devices) and returns ``dst``; ``copy_to_device(t, dev)``
    returns a copy of ``t`` on device ``dev``. With ``non_blocking=True`` inside ``with
    pyasc.stream(s):`` the copy is queued on ``s`` and ``dst`` becomes readable once it ran."""
    from .streams import copy

    if isinstance(src, Tensor) or is_torch_tensor(src) or isinstance(src, np.ndarray):
        if not isinstance(dst, Tensor):
            raise PyascError("copy_to_device", f"the destination must be a pyasc tensor, got {describe(dst)}")
        return copy(dst, to_pyasc(src, "copy_to_device"), non_blocking)
    return to_pyasc(dst, "copy_to_device")._copy_to(src, "copy_to_device", non_blocking)


def tensor(data, dtype=None, *, format=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    """A new tensor copying ``data``; the dtype is inferred as in PyTorch (floats -> float32,
    integers -> int32, bools -> bool, float16/bfloat16 arrays keep their dtype) unless given.
    ``requires_grad=True`` makes it a leaf of automatic differentiation."""
    t = from_any(data, dtype, "tensor", format, device)
    return t.requires_grad_() if requires_grad else t


def array(data, dtype=None, *, format=None, device=None) -> Tensor:  # noqa: A002
    """NumPy's spelling of ``tensor``: a new tensor copying ``data``."""
    return from_any(data, dtype, "array", format, device)


def as_tensor(data, dtype=None) -> Tensor:
    """``data`` itself if it is a Tensor of ``dtype``, otherwise ``tensor(data, dtype)``."""
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dt.get_dtype(dtype)):
        return data
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` when its dtype is a pyasc dtype (float32, float16,
    bfloat16, int32, int8, bool), as ``torch.from_numpy``; other numeric dtypes are converted
    (float64 -> float32, int64 -> int32) into a copy. A torch CPU tensor is accepted too."""
    if is_torch_tensor(array):
        array = torch_to_numpy(array, "from_numpy")
    if not isinstance(array, np.ndarray):
        raise PyascError("from_numpy", f"expected a numpy.ndarray, got {describe(array)}")
    d = dt.from_numpy_dtype(array.dtype)
    if d is None or array.dtype.kind not in "biufV":
        raise PyascError("from_numpy", f"unsupported NumPy dtype {array.dtype}")
    if array.dtype == d.np_dtype:
        _fits("from_numpy", array.shape, d, None)
        return Tensor(array, d)
    return from_any(array, d, "from_numpy")


def _grad_leaf(fn):
    """``fn`` taking PyTorch's ``requires_grad=`` too: the tensor made then a leaf of automatic differentiation."""
    @functools.wraps(fn)
    def make(*args, requires_grad: bool = False, **kwargs) -> Tensor:
        t = fn(*args, **kwargs)
        return t.requires_grad_() if requires_grad else t
    return make


@_grad_leaf
def full(size, fill_value, *, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """A tensor of ``size`` filled with ``fill_value``; dtype inferred from the value."""
    shape = _size("full", (size,))
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if isinstance(fill_value, np.generic):
        fill_value = fill_value.item()
    if not dt.is_python_scalar(fill_value):
        raise PyascError("full", f"fill_value must be a number, got {describe(fill_value)}")
    default = (dt.DEFAULT_FLOAT if isinstance(fill_value, float)
               else dt.bool_ if isinstance(fill_value, bool) else dt.DEFAULT_INT)
    d = _dtype_or("full", dtype, default)
    bounds = _int_range(d)
    if bounds is not None and not isinstance(fill_value, float):
        lo, hi = bounds
        if not lo <= int(fill_value) < hi:
            raise PyascError("full", f"fill value {fill_value} does not fit in {d.name}")
    with np.errstate(all="ignore"):
        return _new(np.full(_fits("full", shape, d, device), fill_value, dtype=d.np_dtype), d, "full", format, device)


@_grad_leaf
def zeros(*size, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """A tensor of zeros (default float32)."""
    d = _dtype_or("zeros", dtype, dt.DEFAULT_FLOAT)
    return _new(np.zeros(_fits("zeros", _size("zeros", size), d, device), dtype=d.np_dtype), d, "zeros", format, device)


@_grad_leaf
def ones(*size, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """A tensor of ones (default float32)."""
    d = _dtype_or("ones", dtype, dt.DEFAULT_FLOAT)
    return _new(np.ones(_fits("ones", _size("ones", size), d, device), dtype=d.np_dtype), d, "ones", format, device)


@_grad_leaf
def empty(*size, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """An uninitialised tensor (pyasc zero-fills it)."""
    d = _dtype_or("empty", dtype, dt.DEFAULT_FLOAT)
    return _new(np.zeros(_fits("empty", _size("empty", size), d, device), dtype=d.np_dtype), d, "empty", format, device)


@_grad_leaf
def eye(n: int, m: int | None = None, *, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """The n x m identity matrix (default float32)."""
    d = _dtype_or("eye", dtype, dt.DEFAULT_FLOAT)
    shape = _size("eye", (n, n if m is None else m))
    return _new(np.eye(*_fits("eye", shape, d, device), dtype=d.np_dtype), d, "eye", format, device)


def _random_float(op: str, dtype) -> dt.DType:
    d = _dtype_or(op, dtype, dt.DEFAULT_FLOAT)
    if not d.is_floating_point:
        raise PyascError(op, f"is only defined for floating point dtypes, got {d.name}", dtypes=[d.name])
    return d


@_grad_leaf
def rand(*size, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """Uniform samples in [0, 1) (default float32)."""
    d = _random_float("rand", dtype)
    shape = _fits("rand", _size("rand", size), d, device)
    return _new(_rng.random(shape).astype(d.np_dtype), d, "rand", format, device)


@_grad_leaf
def randn(*size, dtype=None, format=None, device=None) -> Tensor:  # noqa: A002
    """Standard normal samples (default float32)."""
    d = _random_float("randn", dtype)
    shape = _fits("randn", _size("randn", size), d, device)
    return _new(_rng.standard_normal(shape).astype(d.np_dtype), d, "randn", format, device)


@_grad_leaf
def arange(start, end=None, step=1, *, dtype=None, device=None) -> Tensor:
    """Values ``start, start + step, ...`` below ``end`` (``arange(n)`` counts from 0). As in
    PyTorch the dtype is int32 (torch: int64) when start, end and step are all integers and
    float32 otherwise; the length is ``ceil((end - start) / step)``."""
    if end is None:
        start, end = 0, start
    for name, v in (("start", start), ("end", end), ("step", step)):
        if isinstance(v, np.generic):
            v = v.item()
        if not dt.is_python_scalar(v):
            raise PyascError("arange", f"{name} must be a number, got {describe(v)}")
    if step == 0:
        raise PyascError("arange", "step must be nonzero")
    if (end - start) * step < 0:
        raise PyascError("arange", f"upper bound and larger bound inconsistent with step sign "
                         f"(start={start}, end={end}, step={step})")
    all_int = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    d = _dtype_or("arange", dtype, dt.DEFAULT_INT if all_int else dt.DEFAULT_FLOAT)
    n = max(0, math.ceil((end - start) / step))
    _fits("arange", (n,), d, device)
    if all_int:
        values = start + step * np.arange(n, dtype=np.int64)
    else:
        values = start + step * np.arange(n, dtype=np.float64)
    with np.errstate(all="ignore"):
        return _new(values.astype(d.np_dtype), d, "arange", None, device)


@_grad_leaf
def linspace(start, end, steps, *, dtype=None, device=None) -> Tensor:
    """``steps`` values evenly spaced from ``start`` to ``end`` (float32 by default), as PyTorch computes them in
    the dtype: ``start + i * step`` for the first half, ``end - (steps - 1 - i) * step`` for the rest."""
    for name, v in (("start", start), ("end", end)):
        if isinstance(v, np.generic):
            v = v.item()
        if not dt.is_python_scalar(v):
            raise PyascError("linspace", f"{name} must be a number, got {describe(v)}")
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise PyascError("linspace", f"number of steps must be a non-negative integer, got {describe(steps)}")
    d = _dtype_or("linspace", dtype, dt.DEFAULT_FLOAT)
    _fits("linspace", (int(steps),), d, device)
    work = np.float64 if not d.is_floating_point else d.np_dtype.type if d.np_dtype.itemsize >= 4 else np.float32
    lo, hi = work(start), work(end)
    i = np.arange(steps)
    if steps == 1:
        values = np.full(1, lo, work)
    else:
        step = (hi - lo) / work(steps - 1)
        half = steps // 2
        values = np.where(i < half, lo + step * i.astype(work), hi - step * (steps - 1 - i).astype(work))
    with np.errstate(all="ignore"):
        return _new(np.asarray(values).astype(d.np_dtype), d, "linspace", None, device)


def _like(op, t, dtype, device):
    """Shape, dtype, format and device of ``t`` (a Tensor, NumPy array or torch tensor)."""
    if not isinstance(t, Tensor):
        if is_torch_tensor(t) or isinstance(t, np.ndarray):
            t = to_pyasc(t, op)
        else:
            raise PyascError(op, f"expected a tensor, got {describe(t)}")
    return (t.shape, (t.dtype if dtype is None else dtype), t.format,
            t.device if device is None else device)


@_grad_leaf
def zeros_like(t: Tensor, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("zeros_like", t, dtype, device)
    return zeros(shape, dtype=d, format=f, device=dev)


@_grad_leaf
def ones_like(t: Tensor, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("ones_like", t, dtype, device)
    return ones(shape, dtype=d, format=f, device=dev)


@_grad_leaf
def empty_like(t: Tensor, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("empty_like", t, dtype, device)
    return empty(shape, dtype=d, format=f, device=dev)


@_grad_leaf
def full_like(t: Tensor, fill_value, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("full_like", t, dtype, device)
    return full(shape, fill_value, dtype=d, format=f, device=dev)


@_grad_leaf
def rand_like(t: Tensor, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("rand_like", t, dtype, device)
    return rand(shape, dtype=d, format=f, device=dev)


@_grad_leaf
def randn_like(t: Tensor, *, dtype=None, device=None) -> Tensor:
    shape, d, f, dev = _like("randn_like", t, dtype, device)
    return randn(shape, dtype=d, format=f, device=dev)
