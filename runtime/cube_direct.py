"""float32 Mmad products: operands multiplied where the kernel's arguments hold them, and A's zero rows left out.

When the Mmads of a segment of a chain (``cube_mmad.Chain``) take one side from a kernel argument
(``Chain.move``, ``cube_forward``), and each continues the one before along K, that side is a single strided
view of the argument: A's rows (g1, g2, m16, k), or B^T's (g1, g2, n16, k), the cores as a grid of rows of
``g2``. float32 needs no widening, so BLAS reads such a view in place (B as it lies in the argument): the
copy into the chain's buffer is left out.

The bits are those of the product with every operand copied (forwarding off), as BLAS's order of sums depends
on whether B comes transposed but not on the operands' strides or on batching:
* a product of at least ``DIRECT_MACS`` multiply-adds per core over A's ``m16`` rows keeps the GEMMs the copied
  operands have (``Chain.multiply``): one per core, or, when cores share operands, one over the grid, whose
  blocks have the bits of their own GEMMs (``blas.grid_into``). BLAS packs both operands of such a product
  before it multiplies, so B^T's rows (copied) and B (in place) give the same sums;
* a smaller one (OpenBLAS multiplies those with kernels whose order of sums follows B's layout), or one of
  fewer rows, is multiplied with B as B on both sides: the copied B^T is transposed back (``multiply_copied``).

A's last rows that are zero on every core (the padding of an M that is not a multiple of 16: 15 of the 16 rows
of a GEMV) are left out of the product (``rows_in_use``), and their rows of the result are zeros, as long as
the rest of the product is finite (an infinity or a NaN of B makes the product of a zero row a NaN). A forwarded
A may hold only its first rows (``Chain.move``: the others are zeros). One row of A shared by cores whose B's lie
side by side is one GEMV over all their columns (``_one_row``)."""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .blas import grid_into, matmul_into, transpose_into
from .scratch import kept

DIRECT_MACS = 1 << 20  # the smallest product (per core, all of A's rows) BLAS takes with B^T's rows when copied


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
            dst = np.ndarray(dst.shape[:-2] + shape[-2:], dst.dtype, raw, at, dst.strides)
        yield dst, at, buf, offset, shape, dt, strides
        i = j


def operand_views(ch) -> list | None:
    """[A, B^T] of a float32 chain's ``k`` columns in use, as (g1, g2, rows, k) views of the kernel arguments
    for the sides one view covers, None for the others; None when neither side is one view (or the two
    sides' grids differ)."""
    views, grid = [None, None], None
    for side in (0, 1):
        moves = ch.moves[side]
        if not moves or ch.copied[side]:
            continue
        merged = list(runs(moves, ch.raw))
        if len(merged) != 1:
            continue
        _, at, buf, offset, (g1, g2, r1, r0, k1, c0), dt, st = merged[0]
        if at != (ch.m16 * ch.cols if side else 0) * 4 or k1 * c0 != ch.k or (r1 > 1 and st[2] != r0 * st[3]) \
                or (k1 > 1 and st[4] != c0 * st[5]) or (grid is not None and grid != (g1, g2)):
            continue
        views[side], grid = np.ndarray((g1, g2, r1 * r0, ch.k), dt, buf, offset, (st[0], st[1], st[3], st[5])), (g1, g2)
    return views if grid is not None else None


def rows_in_use(a: np.ndarray) -> int:
    """A's rows (of ``a``, (..., rows, k) over the cores) up to the last that is nonzero on some core, when the
    rows after it, all in the last 16, are zeros on every core; else all its rows."""
    rows, k = a.shape[-2:]
    lo = max(rows - 16, 0)
    if not k or a[..., -1, :].any():  # the last row in use: all are (the usual block)
        return rows
    nonzero = np.flatnonzero(np.any(a[..., lo:, :] != 0, axis=-1).reshape(-1, rows - lo).any(axis=0))
    return lo + int(nonzero[-1]) + 1 if len(nonzero) else rows


def multiply(ch, views: list) -> None:
    """``Chain.multiply`` for a float32 chain whose sides ``views`` holds (``operand_views``) are read in place; the
    others from the chain's buffer, where ``settle`` has copied them."""
    g1, g2 = next(v.shape[:2] for v in views if v is not None)
    m16, n16, k = ch.m16, ch.n16, ch.k
    rows = ch.raw.reshape(g1, g2, m16 + n16, ch.cols)[:, :, :, :k]
    a = rows[:, :, :m16] if views[0] is None else views[0]
    r = rows_in_use(a)  # A may hold fewer than m16 rows: the others are zeros (``Chain.move``)
    if r == m16 and m16 * n16 * k >= DIRECT_MACS:
        b = (rows[:, :, m16:] if views[1] is None else views[1]).swapaxes(2, 3)
    else:  # A and B by rows, as when copied (see the module's docstring)
        a = _by_rows(ch, a, "A")
        if views[1] is None:
            b = _compact_b(ch, rows.reshape(g1 * g2, m16 + n16, k)).reshape(g1, g2, k, n16)
        else:
            b = _by_rows(ch, views[1].swapaxes(2, 3), "B", side_by_side=True)
    out = (ch.part if ch.summed else ch.acc).reshape(g1, g2, m16, n16)
    if not (r < m16 and _trimmed(a, b, out, r)):
        if a.shape[2] < m16:  # all of A's rows: the zeros too
            full = np.zeros((g1, g2, m16, k), np.float32)
            full[:, :, :a.shape[2]] = a
            a = full
        if not (g1 * g2 > 1 and m16 * n16 * k >= DIRECT_MACS and _grid(a, b, out)):
            _per_core(a, b, out)
    if ch.summed:
        np.add(ch.acc, ch.part, out=ch.acc)


def multiply_copied(ch, rows: np.ndarray) -> bool:
    """``Chain.multiply`` for a float32 chain whose operands were all copied (``rows``: A's ``m16`` rows then B^T's,
    per core), when its product is small or A has rows left out (``rows_in_use``): with B as B, as in place
    (see the module's docstring). False, with nothing multiplied, for the others."""
    m16, k = ch.m16, ch.k
    a = rows[:, :m16]
    r = rows_in_use(a)
    small = m16 * ch.n16 * k < DIRECT_MACS
    if r == m16 and not small:
        return False
    b = _compact_b(ch, rows)
    out = ch.part if ch.summed else ch.acc
    if not (r < m16 and _trimmed(a, b, out, r)):
        if not small:
            return False
        matmul_into(a, b, out)
    if ch.summed:
        np.add(ch.acc, ch.part, out=ch.acc)
    return True


def _compact_b(ch, rows: np.ndarray) -> np.ndarray:
    """B (cores, k, n16), contiguous, from B^T's rows in ``rows`` (cores, m16 + n16, k)."""
    return _by_rows(ch, rows[:, ch.m16:].transpose(0, 2, 1), "B")


def _by_rows(ch, v: np.ndarray, tag: str, side_by_side: bool = False) -> np.ndarray:
    """``v``, or a copy of it whose rows are contiguous when its rows are not (BLAS would take it transposed);
    ``side_by_side``: the copy's matrices lie next to each other along its rows (one matrix of all their columns,
    which ``transpose_into`` makes in one call when ``v``'s are the transposes of one matrix's blocks of rows)."""
    if v.strides[-1] == v.itemsize:
        return v
    flat = kept(ch.scratch, tag + " by rows", v.size, np.float32)
    if side_by_side and v.ndim > 2:
        *batch, k, n = v.shape
        step, strides = n * 4, []
        for size in reversed(batch):
            strides.insert(0, step)
            step *= size
        c = np.ndarray(v.shape, np.float32, flat, 0, tuple(strides) + (step, 4))
    else:
        c = flat.reshape(v.shape)
    if not transpose_into(v, c):
        np.copyto(c, v)
    return c


def _trimmed(a: np.ndarray, b: np.ndarray, out: np.ndarray, r: int) -> bool:
    """``out = a @ b`` from A's first ``r`` rows, the rest of ``out`` zeros; False when that product is not finite
    (B holds an infinity or a NaN, which would make the rows left out NaNs)."""
    part = out[..., :r, :]
    if not (r == 1 and _one_row(a[..., :1, :], b, part)):
        _per_core(a[..., :r, :], b, part)
    if not np.isfinite(part).all():
        return False
    out[..., r:, :] = 0
    return True


def _one_row(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """``out = a @ b`` for one row of A, the same on every core, and the cores' B's side by side in one argument
    (g1, g2, k, n16): the cores' GEMVs as one, in two halves of the columns on two threads (a GEMV on one BLAS
    thread sums each column alike however many columns it has, and each core's B is a view whose rows are
    contiguous, like the copied B's); False when the operands are not so."""
    if a.ndim != 4:
        return False
    a3, b3, o3 = _cores(a), _cores(b), _cores(out)
    if a3 is None or b3 is None or o3 is None:
        return False
    kc, k, n16 = b3.shape
    rows = a3[:, 0]
    if kc < 2 or b3.strides[0] != n16 * b3.strides[2] \
            or (rows.strides[0] and not (rows.view(np.int32) == rows[:1].view(np.int32)).all()):
        return False
    cols = kc * n16
    half = -(-kc // 2) * n16  # the halves overlap by one core's columns when the cores are odd
    halves = as_strided(b3[0], (2, k, half), ((cols - half) * b3.strides[2], b3.strides[1], b3.strides[2]))
    y = matmul_into(as_strided(rows[:1], (2, 1, k), (0,) + rows.strides), halves, np.empty((2, 1, half), np.float32))
    o3[:half // n16, 0] = y[0, 0].reshape(-1, n16)
    o3[(cols - half) // n16:, 0] = y[1, 0].reshape(-1, n16)
    return True


def _per_core(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out = a @ b``, one GEMM per core (of a (g1, g2, ...) grid, batched when one stride steps through the
    cores)."""
    if a.ndim == 4:
        a3, b3 = _cores(a), _cores(b)
        if a3 is not None and b3 is not None:
            matmul_into(a3, b3, _cores(out))
            return
    matmul_into(a, b, out)


def _grid(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> bool:
    """Whether the cores' products were computed as one GEMM of the grid's A's (stacked: a row of cores shares
    its A) times its B's (side by side: a column shares its B), each a view of its argument."""
    (g1, g2, m16, k), n16 = a.shape, b.shape[-1]
    if (g2 > 1 and a.strides[1]) or (g1 > 1 and b.strides[0]) \
            or (g1 > 1 and a.strides[0] != m16 * a.strides[2]) or (g2 > 1 and b.strides[1] != n16 * b.strides[3]):
        return False
    whole_a = as_strided(a[0, 0], (g1 * m16, k), a.strides[2:])
    whole_b = as_strided(b[0, 0], (k, g2 * n16), b.strides[2:])
    grid = grid_into(whole_a, whole_b, np.empty((g1 * m16, g2 * n16), np.float32), m16, m16 * n16 * k)
    out[...] = grid.reshape(g1, m16, g2, n16).transpose(0, 2, 1, 3)
    return True


def _cores(v: np.ndarray) -> np.ndarray | None:
    """A (g1, g2, ...) view as (g1 * g2, ...), when one stride steps through the cores."""
    g1, g2 = v.shape[:2]
    if g1 > 1 and g2 > 1 and v.strides[0] != g2 * v.strides[1]:
        return None
    return np.reshape(v, (g1 * g2,) + v.shape[2:], copy=False)  # a view (``as_strided`` costs microseconds)
