"""float32 Mmad operands multiplied where the kernel's arguments hold them.

When the Mmads of a segment of a chain (``cube_mmad.Chain``) take one side from a kernel argument
(``Chain.move``, ``cube_forward``), and each continues the one before along K, that side is a single strided
view of the argument: A's rows (g1, g2, m16, k), or B^T's (g1, g2, n16, k), the cores as a grid of rows of
``g2``. float32 needs no widening, so BLAS reads such a view in place (B as a transposed operand of B^T): the
copy into the chain's buffer is left out. The product keeps the GEMMs the copied operands would have had
(``Chain.multiply``): one per core, or, when cores share operands and each product is large (``THREADED_MACS``),
one over the grid, so the sums are the same. So are the roundings from ``DIRECT_MACS`` multiply-adds per product,
where BLAS packs both operands before it multiplies; smaller products keep the copy, as BLAS multiplies them
with kernels whose order of sums follows the operands' layout (OpenBLAS's, below 10^6)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .blas import THREADED_MACS, matmul_into

DIRECT_MACS = 1 << 20  # the smallest product (per core) whose operands are read in place


def runs(moves: list, raw: np.ndarray):
    """The moves of one side (``Chain.move``'s tuples), each joined by those that continue it along K (its next
    columns in ``raw``, from the argument's next ones) into one."""
    i = 0
    while i < len(moves):
        dst, at, buf, offset, shape, dt, strides = moves[i]
        k1, j = shape[-2], i + 1
        while j < len(moves):
            _, at_j, buf_j, offset_j, shape_j, _, strides_j = moves[j]
            if buf_j is not buf or strides_j != strides or shape_j[:-2] != shape[:-2] \
                    or at_j - at != k1 * 32 or offset_j - offset != k1 * strides[-2]:
                break
            k1, j = k1 + shape_j[-2], j + 1
        if j > i + 1:
            shape = shape[:-2] + (k1, shape[-1])
            dst = np.ndarray(shape, dst.dtype, raw, at, dst.strides)
        yield dst, at, buf, offset, shape, dt, strides
        i = j


def operand_views(ch) -> list | None:
    """[A, B^T] of a float32 chain's ``k`` columns in use, as (g1, g2, rows, k) views of the kernel arguments
    for the sides one view covers, None for the others; None when neither side is one view (or the two
    sides' grids differ)."""
    if ch.m16 * ch.n16 * ch.k < DIRECT_MACS:
        return None
    views, grid = [None, None], None
    for side in (0, 1):
        moves = ch.moves[side]
        if not moves or ch.copied[side]:
            continue
        merged = list(runs(moves, ch.raw))
        if len(merged) != 1:
            continue
        _, at, buf, offset, (g1, g2, r1, r0, k1, c0), dt, st = merged[0]
        if at != (ch.m16 * ch.cols if side else 0) * 4 or k1 * c0 != ch.k or st[2] != r0 * st[3] \
                or st[4] != c0 * st[5] or (grid is not None and grid != (g1, g2)):
            continue
        views[side], grid = np.ndarray((g1, g2, r1 * r0, ch.k), dt, buf, offset, (st[0], st[1], st[3], st[5])), (g1, g2)
    return views if grid is not None else None


def multiply(ch, views: list) -> None:
    """``Chain.multiply`` for a float32 chain whose sides ``views`` holds (``operand_views``) are read in place; the
    others from the chain's buffer, where ``settle`` has copied them."""
    g1, g2 = next(v.shape[:2] for v in views if v is not None)
    m16, n16, k = ch.m16, ch.n16, ch.k
    rows = ch.raw.reshape(g1, g2, m16 + n16, ch.cols)[:, :, :, :k]
    a = rows[:, :, :m16] if views[0] is None else views[0]
    b = (rows[:, :, m16:] if views[1] is None else views[1]).swapaxes(2, 3)
    out = (ch.part if ch.summed else ch.acc).reshape(g1, g2, m16, n16)
    if not (g1 * g2 > 1 and m16 * n16 * k >= THREADED_MACS and _grid(a, b, out)):
        a3, b3 = _cores(a), _cores(b)
        if a3 is not None and b3 is not None:
            matmul_into(a3, b3, out.reshape(-1, m16, n16))
        else:
            matmul_into(a, b, out)
    if ch.summed:
        np.add(ch.acc, ch.part, out=ch.acc)


def _grid(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """Whether the cores' products were computed as one GEMM of the grid's A's (stacked: a row of cores shares
    its A) times its B's (side by side: a column shares its B), each a view of its argument."""
    (g1, g2, m16, k), n16 = a.shape, b.shape[-1]
    if (g2 > 1 and a.strides[1]) or (g1 > 1 and b.strides[0]) \
            or (g1 > 1 and a.strides[0] != m16 * a.strides[2]) or (g2 > 1 and b.strides[1] != n16 * b.strides[3]):
        return False
    whole_a = as_strided(a[0, 0], (g1 * m16, k), a.strides[2:])
    whole_b = as_strided(b[0, 0], (k, g2 * n16), b.strides[2:])
    grid = matmul_into(whole_a, whole_b, np.empty((g1 * m16, g2 * n16), np.float32))
    out[...] = grid.reshape(g1, m16, g2, n16).transpose(0, 2, 1, 3)
    return True


def _cores(v: np.ndarray) -> np.ndarray | None:
    """A (g1, g2, ...) view as (g1 * g2, ...), when one stride steps through the cores."""
    g1, g2 = v.shape[:2]
    if g1 > 1 and g2 > 1 and v.strides[0] != g2 * v.strides[1]:
        return None
    step = v.strides[1] if g2 > 1 else v.strides[0]
    return as_strided(v, (g1 * g2,) + v.shape[2:], (step,) + v.strides[2:])
