"""Element-wise numerics of the vector instructions that NumPy does not provide directly: ``Cast``
round modes and the unary ops built from two ufuncs (``Rsqrt``).

Round modes (``AscendC::RoundMode``): ``CAST_NONE``/``CAST_RINT`` round half to even, ``CAST_TRUNC``
toward zero, ``CAST_FLOOR`` toward -inf, ``CAST_CEIL`` toward +inf, ``CAST_ROUND`` half away from
zero, ``CAST_ODD`` round to odd (von Neumann). All work in the destination dtype.
"""

from __future__ import annotations

import numpy as np

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _step(r: np.ndarray, up: np.ndarray) -> np.ndarray:
    """The neighbour of each float in ``r`` toward +inf where ``up`` else toward -inf (bitwise)."""
    ut = _UINT[r.dtype.itemsize]
    bits = r.view(ut).copy()
    sign = np.asarray(1, ut) << ut(8 * r.dtype.itemsize - 1)
    neg = (bits & sign) != 0
    zero = (bits & ~sign) == 0
    inc = up != neg  # moving away from zero in magnitude
    one = ut(1)
    out = np.where(inc, bits + one, bits - one).astype(ut)
    # +-0: the smallest subnormal of the requested sign
    out = np.where(zero, np.where(up, one, sign | one).astype(ut), out)
    return out.view(r.dtype)


def round_float(src: np.ndarray, dtype: np.dtype, mode: str) -> np.ndarray:
    """``src`` (any real dtype, converted exactly through float64) rounded into float ``dtype``."""
    r = src.astype(dtype)  # round half to even
    if mode in ("CAST_NONE", "CAST_RINT"):
        return r
    x = src.astype(np.float64)
    rx = r.astype(np.float64)
    inexact = np.isfinite(x) & (rx != x)  # includes overflow to +-inf
    if not inexact.any():
        return r
    above = inexact & (rx > x)
    below = inexact & (rx < x)
    if mode == "CAST_FLOOR":
        fix, up = above, False
    elif mode == "CAST_CEIL":
        fix, up = below, True
    elif mode == "CAST_TRUNC":
        fix = (above & (x >= 0)) | (below & (x < 0))
        up = x < 0
    elif mode == "CAST_ODD":
        ut = _UINT[r.dtype.itemsize]
        even = (r.view(ut) & ut(1)) == 0
        fix = inexact & even
        up = below
    elif mode == "CAST_ROUND":
        other = _step(r, below)
        d1 = np.abs(rx - x)
        d2 = np.abs(other.astype(np.float64) - x)
        tie = inexact & (d1 == d2)
        fix = tie & (np.abs(other.astype(np.float64)) > np.abs(rx))
        up = below
    else:
        raise ValueError(f"unknown round mode {mode}")
    if np.ndim(up) == 0:
        up = np.full(r.shape, bool(up))
    return np.where(fix, _step(r, up), r)


_INT_ROUND = {
    "CAST_NONE": np.rint,
    "CAST_RINT": np.rint,
    "CAST_FLOOR": np.floor,
    "CAST_CEIL": np.ceil,
    "CAST_TRUNC": np.trunc,
    "CAST_ODD": np.rint,
}


def cast_into(dst: np.ndarray, src: np.ndarray, mode: str) -> None:
    """``Cast(dst, src, mode, count)`` on two equally long views."""
    if dst.dtype.kind == "f" or dst.dtype.name == "bfloat16":
        if src.dtype.itemsize < dst.dtype.itemsize and src.dtype.kind == "f" or mode in ("CAST_NONE", "CAST_RINT"):
            np.copyto(dst, src, casting="unsafe")  # exact widening, or round half to even
        else:
            dst[...] = round_float(src, dst.dtype, mode)
        return
    # float -> int: round in float64, saturate to the destination range (NaN -> 0)
    x = src.astype(np.float64)
    if mode == "CAST_ROUND":
        x = np.copysign(np.floor(np.abs(x) + 0.5), x)
    else:
        x = _INT_ROUND[mode](x)
    info = np.iinfo(dst.dtype)
    np.clip(x, info.min, info.max, out=x)
    x[np.isnan(x)] = 0
    np.copyto(dst, x, casting="unsafe")


def rsqrt_into(dst: np.ndarray, src: np.ndarray) -> None:
    """``Rsqrt``: 1 / sqrt(src) in the tensor's dtype."""
    np.sqrt(src, out=dst)
    np.divide(dst.dtype.type(1), dst, out=dst)
