"""Checking and normalising the arguments of op calls: operands, dimensions and shapes.

The signatures of the ops (``OpDef.signature``) use these, so every op words a bad argument the
same way: ``pyasc.<op>: <what is wrong>`` with the shapes involved and the user's line.
"""

from __future__ import annotations

import numbers

import numpy as np

from .creation import from_any, to_pyasc
from .dtypes import bfloat16, is_python_scalar
from .errors import PyascError, PyascIndexError, describe
from .interop import is_torch_tensor
from .tensor import Tensor


def operand(op: str, x):
    """An operand of an elementwise op: a Tensor (NumPy arrays and torch tensors are converted) or a
    Python number (NumPy scalars become one)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biuf":
        return x.item()
    if is_python_scalar(x):
        return x
    if isinstance(x, np.ndarray) and (x.dtype.kind in "biuf" or x.dtype == bfloat16.np_dtype):
        return from_any(x)
    if is_torch_tensor(x):
        return to_pyasc(x, op)
    raise PyascError(op, f"expected a tensor or a Python number, got {describe(x)}")


def tensor_operand(op: str, x) -> Tensor:
    """An operand that must be a tensor (a pyasc Tensor, NumPy array or torch tensor)."""
    x = operand(op, x)
    if not isinstance(x, Tensor):
        raise PyascError(op, f"expected a tensor, got {describe(x)}")
    return x


def dim_index(op: str, d, ndim: int, shape=()) -> int:
    """Dimension ``d`` of a rank-``ndim`` tensor as an index in ``[0, ndim)`` (negative counts from
    the end); PyascIndexError when out of range."""
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise PyascError(op, f"dim must be an integer, got {describe(d)}", shapes=[shape])
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= d <= hi:
        raise PyascIndexError(op, f"dimension out of range (expected to be in range of [{lo}, {hi}], "
                              f"but got {d}) for shape {tuple(shape)}", shapes=[shape])
    return int(d) % max(ndim, 1)


def dims_arg(op: str, dim, ndim: int, shape) -> tuple[int, ...]:
    """``dim`` (None: every dimension, an int, or a tuple or list of them) as sorted indices."""
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, tuple | list) else (dim,)
    out = tuple(sorted({dim_index(op, d, ndim, shape) for d in dims}))
    if len(out) != len(dims):
        raise PyascError(op, f"dim {dim} repeats a dimension", shapes=[shape])
    return out


def shape_arg(op: str, shape, numel: int, src) -> tuple[int, ...]:
    """A new shape given as ints or one tuple/list, with at most one -1 (inferred) for a tensor of
    ``numel`` elements and shape ``src``."""
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
