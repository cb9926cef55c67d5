"""``Mmad`` at run time: float16/bfloat16 operands widened to float32 on their bits, float32 ones as they
are, and the products over K deferred into chains of an L0C block; int8 operands staged and multiplied
exactly as Mmad by Mmad, but in one batched call per block (see ``kernel_ops_cube`` for the model)."""

from __future__ import annotations

import numpy as np

from . import cube_direct
from .blas import grid_into, matmul_into, single_thread
from .scratch import kept

F16, F32, I32 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int32)
V32 = np.dtype("V32")  # a fractal row of c0 elements
PLANS = 4096  # views kept per cache before it starts over
CHAINS = 16  # Mmad chains (and their operand buffers) kept
SEGMENT = 1024  # K columns of a chain multiplied at a time
STAGED, STAGED_BYTES = 64, 4 << 20  # int8 Mmads (and their operand and result bytes) staged at most
SPARSE_K, SPARSE_MIN_K = 0.25, 64  # share of all-zero K columns of A a chain multiplies without; shortest K
GRID_WASTE = 1.25  # the most products a chain's grid of shared operands computes, per product its cores need


EXACT, FP16, BF16, FP32 = range(4)  # how an Mmad widens its operands (EXACT: NumPy's cast, staged)
reduce_max, reduce_min = np.maximum.reduce, np.minimum.reduce
_KINDS = {"float16": FP16, "bfloat16": BF16, "float32": FP32}
_F16_BITS = np.int32(-0x70000001)  # 0x8FFFFFFF: clears the copies of the sign left in bits 28-30
_F16_SCALE = np.float32(2.0 ** 112)  # 2**(127 - 15): from float16's exponent bias to float32's


def scratch(cube, tag: str, size: int, dt: np.dtype) -> np.ndarray:
    return kept(cube.scratch, tag, size, dt)


class Chain:
    """float16/bfloat16/float32 Mmads accumulating into one L0C block (``cv``, NZ) that L0C does not hold yet, on
    each of the cube's cores (the leading axis of every array): ``acc`` (row-major fp32, once ``summed``)
    plus the product of the operands copied since, whose raw bits are in ``raw``: A's ``m16`` rows and
    then B^T's ``n16`` rows, side by side along K (``cols`` columns, of which ``k`` are used). ``init``:
    the first Mmad's. ``longest``: the most columns a product of this use of the chain took, ``fits`` the
    previous use's (a block of a kernel is usually as long as the one before: ``room``)."""

    __slots__ = ("kind", "cores", "m16", "n16", "cols", "k", "init", "summed", "raw", "work", "acc", "part", "cv",
                 "views", "es", "products", "acc_nz", "longest", "fits", "bias", "moves", "copied", "scratch")

    def __init__(self, cube, kind, c, m1, n1):
        self.kind, self.m16, self.n16, self.cols, self.k, self.init, self.summed = kind, m1 * 16, n1 * 16, 0, 0, 0, 0
        kc = self.cores = cube.cores
        self.es = 4 if kind == FP32 else 2
        self.raw = self.work = np.zeros((kc, 0), self._raw_dtype)
        self.acc, self.part = (np.empty((kc, m1 * 16, n1 * 16), np.float32) for _ in range(2))
        self.cv = cube.l0c[:, c:c + n1 * m1 * 1024].view(np.float32).reshape(kc, n1, m1 * 16, 16)
        self.acc_nz = self.acc.reshape(kc, m1 * 16, n1, 16).transpose(0, 2, 1, 3)  # ``acc`` as L0C's NZ blocks
        self.views: dict[tuple, tuple] = {}
        self.products: dict[int, tuple] = {}  # k -> ``multiply``'s views of its operands
        self.longest = self.fits = 0
        self.bias = None
        self.moves: tuple[list, list] = ([], [])  # operands from kernel arguments not copied yet (``settle``)
        self.copied = [False, False]  # whether A's (B^T's) columns in use were copied into ``raw``
        self.scratch = cube.scratch

    @property
    def _raw_dtype(self):
        return np.float32 if self.kind == FP32 else np.int16

    def begin(self) -> None:
        """A new use of the chain (a new L0C block): no columns in use, and the longest product of the use
        before kept as the width to fit (``room``)."""
        self.k, self.summed, self.copied[:] = 0, False, (False, False)
        self.fits, self.longest = self.longest, 0

    def room(self, width: int) -> None:
        """Makes room for ``width`` more columns: more columns (twice as many, up to ``SEGMENT``), or
        when a segment is full, its product into ``acc`` first. A use starts with as many columns as the
        previous use's longest product when the buffer is far wider (its unused columns would be widened too)."""
        need = self.k + width
        if not self.k and not self.summed and self.fits and width <= self.fits and self.cols >= self.fits * 5 // 4:
            self.grow(self.fits)
        if need <= self.cols:
            return
        if self.k and need > SEGMENT:
            self.multiply()
            need = width
        if need > self.cols:
            self.grow(max(need, min(2 * self.cols, SEGMENT)))

    def move(self, side: int, k1: int, src: tuple) -> None:
        """Notes that the Mmad's operand ``side`` (0: A, 1: B^T), ``k1`` fractals along K, comes from a kernel
        argument: ``src`` is (its bytes, the byte offset, (shape, dtype, strides)) of a (cores / g2, g2, m1 | n1,
        16, k1, c0) view of them (``cube_forward``); for A of one block of rows, fewer than 16 rows, the others
        zeros. ``settle`` copies it."""
        buf, offset, (shape, dt, strides) = src
        at = (self.k + (self.m16 * self.cols if side else 0)) * self.es  # its first byte in ``raw``
        self.moves[side].append((self.elements(k1, shape[1])[side], at, buf, offset, shape, dt, strides))

    def settle(self, sides: tuple = (0, 1)) -> None:
        """Copies the operands that Mmads took from kernel arguments (``moves``; of A, 0, and B^T, 1, of
        ``sides``) into ``raw``; an operand that continues the one before along K (its next columns, from the
        argument's next ones) is copied with it, as one view."""
        for side in sides:
            moves = self.moves[side]
            if moves:
                self.copied[side] = True
                for dst, _, buf, offset, shape, dt, strides in cube_direct.runs(moves, self.raw):
                    if shape[3] < 16:  # A's rows from the argument, then zeros
                        dst[:, :, :, shape[3]:] = 0
                        dst = dst[:, :, :, :shape[3]]
                    _copy_in(self.scratch, dst, np.ndarray(shape, dt, buf, offset, strides))
                moves.clear()

    def grow(self, cols: int) -> None:
        """``cols`` columns, keeping the ``k`` in use."""
        self.settle()
        k, m16, n16, old, kc = self.k, self.m16, self.n16, self.cols, self.cores
        raw = np.zeros((kc, (m16 + n16) * cols), self._raw_dtype)
        raw.reshape(kc, m16 + n16, cols)[:, :, :k] = self.raw.reshape(kc, m16 + n16, old)[:, :, :k]
        work = raw if self.kind == FP32 else np.empty(raw.shape, np.int32)  # float32 needs no widening
        self.raw, self.work, self.cols, self.views, self.products = raw, work, cols, {}, {}

    def operands(self, cube, a, b, k1):
        """(destination in ``raw``, source in L0A) for A and the same for B^T in L0B, as 32 B fractal rows
        (see ``mmad``)."""
        v = self.views.get((a, b, k1, self.k))
        if v is None:
            es, kc = self.es, self.cores
            m1, n1, row = self.m16 // 16, self.n16 // 16, self.cols * es
            core = self.raw.shape[1] * es
            bk = (self.m16 * self.cols + self.k) * es
            v = (np.ndarray((kc, m1, 16, k1), V32, self.raw, self.k * es, (core, 16 * row, row, 32)),
                 np.ndarray((kc, m1, 16, k1), V32, cube.l0a, a, (cube.l0a.shape[1], k1 * 512, 32, 512)),
                 np.ndarray((kc, n1, 16, k1), V32, self.raw, bk, (core, 16 * row, row, 32)),
                 np.ndarray((kc, n1, 16, k1), V32, cube.l0b, b, (cube.l0b.shape[1], 512, 32, n1 * 512)))
            if len(self.views) >= PLANS:
                self.views.clear()
            self.views[(a, b, k1, self.k)] = v
        return v

    def elements(self, k1: int, g2: int) -> tuple:
        """The destinations in ``raw`` of ``operands`` as (cores / g2, g2, m1 | n1, 16, k1, c0) elements of ``raw``'s
        type (the cores as a grid of rows of ``g2``), for operands copied from elsewhere than L0A and L0B
        (``mmad``'s ``src_a`` and ``src_b``)."""
        v = self.views.get((k1, self.k, g2))
        if v is None:
            es, kc, dt = self.es, self.cores, self.raw.dtype
            m1, n1, row, c0 = self.m16 // 16, self.n16 // 16, self.cols * es, 32 // es
            core = self.raw.shape[1] * es
            bk = (self.m16 * self.cols + self.k) * es
            grid, steps = (kc // g2, g2), (g2 * core, core)
            v = (np.ndarray(grid + (m1, 16, k1, c0), dt, self.raw, self.k * es, steps + (16 * row, row, 32, es)),
                 np.ndarray(grid + (n1, 16, k1, c0), dt, self.raw, bk, steps + (16 * row, row, 32, es)))
            if len(self.views) >= PLANS:
                self.views.clear()
            self.views[(k1, self.k, g2)] = v
        return v

    def multiply(self) -> None:
        """The operands copied so far, widened and multiplied (one GEMM in fp32 per core), into ``acc``;
        a core whose A is zero in many K columns multiplies without them (``sparse_parts``)."""
        self.longest = max(self.longest, self.k)
        views = cube_direct.operand_views(self) if self.kind == FP32 else None
        if views is not None and self._multiply_in_place(views):
            return
        self.settle()
        rows, a, b = self._products()
        parts = sparse_parts(self.kind, rows, self.m16)
        if parts is not None:
            self._multiply_parts(parts)
            return
        if self.kind == FP32 and cube_direct.multiply_copied(self, rows):
            self._multiplied()
            return
        if self.cores > 1 and self.m16 * self.n16 * self.k >= cube_direct.DIRECT_MACS:
            grid = shared_grid(self.kind, rows, self.m16)
            if grid is not None:
                self._multiply_grid(rows, *grid)
                return
        if 4 * self.k >= self.cols:  # A and B^T in one call on the whole buffer (unused columns too: faster)
            _widen(self.kind, self.raw, self.work)
        else:  # the columns in use alone (a strided view: about 3x slower per element)
            _widen(self.kind, rows, self.work.reshape(rows.shape[0], -1, self.cols)[:, :, :self.k])
        if self.summed:
            np.add(self.acc, matmul_into(a, b, self.part), out=self.acc)
        else:
            matmul_into(a, b, self.acc)
        self._multiplied()

    def _multiply_in_place(self, views: list) -> bool:
        """``multiply`` with the sides ``views`` holds read where the arguments hold them (``cube_direct``), the
        others copied first; False, with nothing multiplied, when ``sparse_parts`` may find A sparse (the product
        would leave out columns of A with forwarding off, so it is made as then)."""
        self.settle(tuple(side for side in (0, 1) if views[side] is None))
        a = views[0]
        first = a[:, :, 0] if a is not None else self.raw.reshape(self.cores, -1, self.cols)[:, 0, :self.k]
        if not dense_first_rows(first, self.k):
            return False
        for side in (0, 1):
            if views[side] is not None:
                self.moves[side].clear()
        cube_direct.multiply(self, views)
        self._multiplied()
        return True

    def _multiplied(self) -> None:
        """No columns in use, their product summed into ``acc``."""
        self.k, self.summed, self.copied[:] = 0, True, (False, False)

    def _multiply_grid(self, rows: np.ndarray, a_reps: list, a_of: np.ndarray, b_reps: list, b_of: np.ndarray):
        """``multiply`` for cores that share their A or B operands (``shared_grid``): the distinct A's, stacked,
        times the distinct B's, widened once each in one GEMM, whose block (A of the core, B of the core) is
        each core's product (``grid_into``; from ``cube_direct.DIRECT_MACS`` multiply-adds a product: BLAS's
        small-matrix kernels, which sum in another order, take only smaller ones)."""
        m16, k = self.m16, self.k
        a = _widened(self.kind, rows[a_reps, :m16]).reshape(-1, k)
        b = _widened(self.kind, rows[b_reps, m16:]).reshape(-1, k)
        grid = grid_into(a, b.T, np.empty((a.shape[0], b.shape[0]), np.float32), m16, m16 * self.n16 * k)
        blocks = grid.reshape(len(a_reps), m16, len(b_reps), self.n16).transpose(0, 2, 1, 3)[a_of, b_of]
        if self.summed:
            np.add(self.acc, blocks, out=self.acc)
        else:
            self.acc[...] = blocks
        self._multiplied()

    def _products(self) -> tuple:
        """(the operands' raw rows, A and B of their product once widened) for the ``k`` columns in use: views of
        ``raw`` and of its widened copy, made once per ``k`` and buffer."""
        v = self.products.get(self.k)
        if v is None:
            k, m16, kc = self.k, self.m16, self.cores
            shape = (kc, m16 + self.n16, self.cols)
            wide = (self.raw if self.kind == FP32 else self.work.view(np.float32)).reshape(shape)[:, :, :k]
            # B^T's rows: BLAS reads B transposed, in place
            v = self.products[k] = (self.raw.reshape(shape)[:, :, :k], wide[:, :m16], wide[:, m16:].transpose(0, 2, 1))
        return v

    def _multiply_parts(self, parts) -> None:
        """``multiply`` by groups of cores, each over its own K columns (``sparse_parts``)."""
        m16, n16 = self.m16, self.n16
        rows = self.raw.reshape(self.cores, m16 + n16, self.cols)[:, :, :self.k]
        for cores, used in parts:
            sub = rows[cores][:, :, used]
            wide = _widen(self.kind, sub, sub if self.kind == FP32 else np.empty(sub.shape, np.int32))
            prod = matmul_into(wide[:, :m16], wide[:, m16:].transpose(0, 2, 1),
                               np.empty((sub.shape[0], m16, n16), np.float32))
            if self.summed:
                self.acc[cores] += prod
            else:
                self.acc[cores] = prod
        self._multiplied()

    def store(self) -> None:
        """The chain's sum stored into (``init``) or added to its L0C block."""
        if self.k:
            self.multiply()
        if self.init:
            np.copyto(self.cv, self.acc_nz)
            if self.bias is not None:  # the first Mmad started from BiasTable
                np.add(self.cv, self.bias, out=self.cv)
        else:
            np.add(self.cv, self.acc_nz, out=self.cv)


def sparse_parts(kind, rows: np.ndarray, m16: int) -> list | None:
    """How a chain multiplies when the A of some core holds zeros in every row of at least ``SPARSE_K`` of its
    K columns: [(cores, K columns)], the cores grouped by the columns they use (all of them for a core
    without that many zeros); None when no core has. ``rows``: A's ``m16`` rows then B^T's, per core.

    The products of a dropped column are exact zeros (B's values there must be finite: an infinity or a
    NaN keeps every column), so a core's sums are those of its other columns, decided by its own
    operands alone: alike however many cores run together. A channel-padded feature map (a 3-channel image
    in C0 = 16 channels) is such an A."""
    kc, _, k = rows.shape
    if k < SPARSE_MIN_K:
        return None
    a = rows[:, :m16]
    if dense_first_rows(a[:, 0], k):
        return None
    if kind == FP32:  # -0.0 is a zero too
        nonzero = np.any(a != 0, axis=1)
    else:  # the bits of +0.0
        nonzero = np.bitwise_or.reduce(a, axis=1) != 0
    counts = nonzero.sum(axis=1)
    sparse = (counts <= k * (1 - SPARSE_K)) & (counts > 0)
    if not sparse.any():
        return None
    b = rows[:, m16:]
    if kind == FP32:
        special = ~np.isfinite(b)
    else:  # float16 / bfloat16 bits: an all-ones exponent is an infinity or a NaN
        exponent = 0x7C00 if kind == FP16 else 0x7F80
        special = (b & exponent) == exponent
    sparse &= ~np.any(np.any(special, axis=1) & ~nonzero, axis=1)
    if not sparse.any():
        return None
    groups: dict = {}
    for c in range(kc):
        groups.setdefault(nonzero[c].tobytes() if sparse[c] else None, []).append(c)
    whole = len(groups) == 1
    return [(slice(None) if whole else np.array(cores),
             slice(None) if key is None else np.flatnonzero(nonzero[cores[0]]))
            for key, cores in groups.items()]


def dense_first_rows(first: np.ndarray, k: int) -> bool:
    """Whether A, whose first row on each core is a row of ``first``, is too dense on every core for
    ``sparse_parts``: a column nonzero in the first row is nonzero, and each first row has too few zeros (or K
    is too short)."""
    return k < SPARSE_MIN_K or bool(((first != 0).sum(axis=-1) > k * (1 - SPARSE_K)).all())


def shared_grid(kind, rows: np.ndarray, m16: int) -> tuple | None:
    """How a chain's cores share operands: (cores holding the distinct A's, each core's A among them, the same
    for B^T) when the grid of every distinct A times every distinct B has at most ``GRID_WASTE`` times the
    cores' products; None otherwise. ``rows``: A's ``m16`` rows then B^T's, per core, as raw bits."""
    bits = rows.view(np.int32) if kind == FP32 else rows  # float32 compared by its bits (-0.0, NaN)
    kc = rows.shape[0]
    a_reps, a_of = _distinct(bits[:, :m16])
    if len(a_reps) == kc:  # no A shared: a grid would compute kc * q products for kc
        return None
    b_reps, b_of = _distinct(bits[:, m16:])
    if len(a_reps) * len(b_reps) > GRID_WASTE * kc:
        return None
    return a_reps, a_of, b_reps, b_of


def _distinct(blocks: np.ndarray) -> tuple[list, np.ndarray]:
    """(the first core of each distinct block, each core's block among them), blocks compared bit for bit;
    a block's first row picks the candidates."""
    reps: list = []
    of = np.empty(blocks.shape[0], np.intp)
    by_row: dict[bytes, list] = {}
    for c in range(blocks.shape[0]):
        block = blocks[c]
        candidates = by_row.setdefault(block[0].tobytes(), [])
        for i in candidates:
            if np.array_equal(blocks[reps[i]], block):
                of[c] = i
                break
        else:
            of[c] = len(reps)
            candidates.append(len(reps))
            reps.append(c)
    return reps, of


def _widened(kind, raw: np.ndarray) -> np.ndarray:
    """``raw`` (float32, or float16/bfloat16 bits) as a new float32 array (``_widen``)."""
    if kind == FP32:
        return raw
    return _widen(kind, raw, np.empty(raw.shape, np.int32))


WIDEN_BITS_MIN = 3072  # float16 elements from which moving bits (6 us and up) beats NumPy's cast (about 2 ns each)


def _widen(kind, raw: np.ndarray, w: np.ndarray) -> np.ndarray:
    """float16/bfloat16 bits ``raw`` as float32 in ``w`` (int32 of the same shape); float32 is ``raw``
    itself. float16 moves its bits into place (sign-extended, shifted, masked, scaled by 2**112: exact,
    subnormals included, and several times faster than NumPy's cast from ``WIDEN_BITS_MIN`` elements; with
    fewer, or an inf or a NaN, NumPy's cast instead); bfloat16 shifts."""
    if kind == FP32:
        return raw
    wf = w.view(np.float32)
    if kind == FP16 and (raw.size < WIDEN_BITS_MIN or reduce_max(raw, axis=None) >= 0x7C00
                         or reduce_max(raw.view(np.uint16), axis=None) >= 0xFC00):
        np.copyto(wf, raw.view(F16))
        return wf
    np.copyto(w, raw)
    np.left_shift(w, 13 if kind == FP16 else 16, out=w)
    if kind == FP16:
        np.bitwise_and(w, _F16_BITS, out=w)
        np.multiply(wf, _F16_SCALE, out=wf)
    return wf


def _mmad_plan(cube, a, b, c, m, n, k, in_dt, acc_dt, record):
    """How an ``Mmad`` of these operands runs, its ``record`` last. float16/bfloat16/float32 with fp32
    accumulation: (kind, the key of the chains it extends, its k1, its K columns). Else (EXACT): the key of the
    ``Staged`` block it extends and the sources of A (L0A, ZZ) and B (ZN) in the order of the staged
    operands (see ``Staged``), each with a leading axis of cores."""
    es = in_dt.itemsize
    c0 = 32 // es
    m1, k1, n1 = -(-m // 16), -(-k // c0), -(-n // 16)
    kind = _KINDS.get(in_dt.name, EXACT) if acc_dt == F32 else EXACT
    if len(cube.mm_plans) >= PLANS:
        cube.mm_plans.clear()
    if kind != EXACT:
        p = cube.mm_plans[(a, b, c, m, n, k, in_dt, acc_dt)] = (kind, (c, m1, n1, in_dt), k1, k1 * c0, record)
        return p
    kc = cube.cores
    ta = _a_transposed(m1, n1)
    a4 = cube.l0a[:, a:a + m1 * 16 * k1 * c0 * es].view(in_dt).reshape(kc, m1, k1, 16, c0)
    # A's fractals transposed (A^T by whole fractal rows), or A by whole fractal rows
    asrc = a4.transpose(0, 2, 4, 1, 3) if ta else a4.transpose(0, 1, 3, 2, 4)
    b4 = cube.l0b[:, b:b + n1 * k1 * 512].view(in_dt).reshape(kc, k1, n1, 16, c0)  # (16, c0) fractals of B^T
    bsrc = b4.transpose(0, 2, 3, 1, 4) if ta else b4.transpose(0, 2, 1, 4, 3)
    p = cube.mm_plans[(a, b, c, m, n, k, in_dt, acc_dt)] = (EXACT, (c, m1, k1, n1, in_dt, acc_dt), asrc, bsrc,
                                                             record)
    return p


def _a_transposed(m1: int, n1: int) -> bool:
    """Whether an EXACT Mmad stages A^T and B^T (which BLAS takes as transposed operands) rather than A
    and B: whichever transposes fewer elements within fractals (A has ``m1 * k1`` fractals, B ``k1 * n1``)."""
    return m1 < n1


class Staged:
    """int8 Mmads (any but float16/bfloat16/float32 into float32) into one L0C block (``cv``, NZ; key:
    address, m1, k1, n1 and dtypes) that L0C does not hold yet: the operands of the first ``n`` of them,
    widened by NumPy's cast (to float64 for int8: every int32 sum is exact), in ``wa`` and ``wb``, one
    row per core each: A (ZZ in L0A) and B (ZN in L0B) in the order of row-major A and B batched over
    B's 16-column groups ((n1, K, 16)), or of A^T and B^T ((n1, 16, K)), whichever transposes fewer
    elements within fractals. ``store`` multiplies them in one batched matmul (per Mmad the same BLAS
    products, batched over B's column groups, which yields C's NZ fractals) and adds the results into
    the block in program order, so L0C ends up bit for bit as when each Mmad multiplies at once.
    ``init``: the first Mmad's."""

    __slots__ = ("init", "n", "adst", "bdst", "av", "bv", "r", "cv", "integer", "bias")

    def __init__(self, cube, key):
        c, m1, k1, n1, in_dt, acc_dt = key
        kc = cube.cores
        c0 = 32 // in_dt.itemsize
        ea, eb = m1 * 16 * k1 * c0, n1 * k1 * c0 * 16
        wdt = np.dtype(np.float64 if acc_dt.kind == "i" else np.float32)
        cap = max(1, min(STAGED, STAGED_BYTES // ((ea + eb + n1 * m1 * 256) * wdt.itemsize * kc)))
        wa, wb = np.empty((cap, kc, ea), wdt), np.empty((cap, kc, eb), wdt)
        if _a_transposed(m1, n1):
            self.adst, self.bdst = wa.reshape(cap, kc, k1, c0, m1, 16), wb.reshape(cap, kc, n1, 16, k1, c0)
            self.av = wa.reshape(cap, kc, 1, k1 * c0, m1 * 16).transpose(0, 1, 2, 4, 3)
            self.bv = wb.reshape(cap, kc, n1, 16, k1 * c0).transpose(0, 1, 2, 4, 3)
        else:
            self.adst, self.bdst = wa.reshape(cap, kc, m1, 16, k1, c0), wb.reshape(cap, kc, n1, k1, c0, 16)
            self.av, self.bv = wa.reshape(cap, kc, 1, m1 * 16, k1 * c0), wb.reshape(cap, kc, n1, k1 * c0, 16)
        self.r = np.empty((cap, kc, n1, m1 * 16, 16), wdt)
        self.cv = cube.l0c[:, c:c + n1 * m1 * 1024].view(acc_dt).reshape(kc, n1, m1 * 16, 16)
        self.integer = acc_dt.kind == "i"
        self.n, self.init, self.bias = 0, 0, None

    def add(self, p) -> None:
        """Stages the operands of the Mmad of plan ``p`` (storing the staged ones first when full)."""
        if self.n == self.adst.shape[0]:
            self.store()
        i = self.n
        np.copyto(self.adst[i], p[2])
        np.copyto(self.bdst[i], p[3])
        self.n = i + 1

    def settle(self) -> None:
        """Nothing: staged operands are copied when staged."""

    def store(self) -> None:
        """The staged Mmads multiplied and stored into (the first, with ``init``) or added to the block."""
        n, cv = self.n, self.cv
        if not n:
            return
        with single_thread():
            r = np.matmul(self.av[:n], self.bv[:n], out=self.r[:n])
        if self.integer:
            r = r.astype(np.int64).astype(np.int32)
        for i in range(n):
            if i == 0 and self.init:
                cv[...] = r[0]
                if self.bias is not None:
                    np.add(cv, self.bias, out=cv)
            else:
                np.add(cv, r[i], out=cv)
        self.n, self.init = 0, 0


def mmad(fail, sid, bid, cube, a, b, c, m, n, k, init, in_dt, acc_dt, rc, bias=-1, src_a=None, src_b=None):
    """C[:m, :n] (=|+=) A[:m, :k] @ B[:k, :n] with A ZZ in L0A, B ZN in L0B, C NZ in L0C; returns its
    record (``_record``; K is read in whole fractals, ``ceil(k / c0) * c0``, as the cube does: A's
    columns and B's rows past ``k`` must hold zeros), from the constants ``rc`` of the op (see ``mmad``).
    ``bias`` >= 0: the BiasTable address of the row C starts from (``ceil16(n)`` accumulator values, read now).

    The rows of L0A's fractals are A's, those of L0B's B^T's. A float16/bfloat16/float32 Mmad copies
    whole fractal rows of A and B^T into the pending chain of its L0C block; the others (int8) copy
    theirs into the ``Staged`` operands of their block (see ``_pending``). Given ``src_a`` or ``src_b`` (where a
    kernel argument holds the elements L0A or L0B would: ``Chain.move``, ``cube_forward``), a float16/bfloat16/
    float32 Mmad copies from there instead."""
    if m <= 0 or n <= 0 or k <= 0:
        return _mmad_record(a, b, c, m, n, k, rc)
    p = cube.mm_plans.get((a, b, c, m, n, k, in_dt, acc_dt))
    if p is None:
        es = in_dt.itemsize
        c0 = 32 // es
        m1, k1, n1 = -(-m // 16), -(-k // c0), -(-n // 16)
        na, nb, nc = m1 * k1 * 512, k1 * n1 * 512, n1 * m1 * 1024
        l0a, l0b, l0c = cube.l0a, cube.l0b, cube.l0c
        if a < 0 or a + na > l0a.shape[1] or b < 0 or b + nb > l0b.shape[1] or c < 0 or c + nc > l0c.shape[1]:
            fail(sid, bid, f"Mmad {m}x{n}x{k} reaches past L0A [{a}, {a + na}), L0B [{b}, {b + nb}) or "
                           f"L0C [{c}, {c + nc}) (sizes {l0a.shape[1]}, {l0b.shape[1]}, {l0c.shape[1]})")
        p = _mmad_plan(cube, a, b, c, m, n, k, in_dt, acc_dt, _mmad_record(a, b, c, m, n, k, rc))
    row = None
    if bias >= 0:
        row, init = _bias_row(fail, sid, bid, cube, int(bias), n, acc_dt), 1
    if p[0] == EXACT:
        st = _pending(cube, p[1], init, Staged)
        if init:
            st.bias = row
        st.add(p)
        return p[-1]
    ch = _pending(cube, p[1], init, Chain, p[0])
    if init:
        ch.bias = row
    ch.room(p[3])
    if src_a is None or src_b is None:
        da, sa, db, sb = ch.operands(cube, a, b, p[2])
        if src_a is None:
            da[...] = sa
            ch.copied[0] = True
        if src_b is None:
            db[...] = sb
            ch.copied[1] = True
    if src_a is not None:
        ch.move(0, p[2], src_a)
    if src_b is not None:
        ch.move(1, p[2], src_b)
    ch.k += p[3]
    return p[-1]


def _copy_in(scratches: dict, dst: np.ndarray, src: np.ndarray) -> None:
    """``dst[...] = src`` for (cores / g2, g2, ...) views. The cores of a grid row or column that share their
    operand (a stride of 0) copy it once, the others from the first's copy; when ``src``'s fractal rows are not
    contiguous (B^T read from a row-major B), through a compact copy of ``src`` in its own memory order: reading
    the argument row by row is several times faster."""
    for axis in (0, 1):
        if src.shape[axis] > 1 and src.strides[axis] == 0:
            first, rest = ((slice(None),) * axis + (slice(0, 1),), (slice(None),) * axis + (slice(1, None),))
            _copy_in(scratches, dst[first], src[first])
            np.copyto(dst[rest], dst[first])
            return
    if src.strides[-1] == src.itemsize:
        np.copyto(dst, src)
        return
    order = sorted(range(src.ndim), key=lambda d: (src.strides[d] != 0, -abs(src.strides[d])))
    tmp = kept(scratches, "forwarded", src.size, src.dtype).reshape([src.shape[d] for d in order])
    np.copyto(tmp, src.transpose(order))
    np.copyto(dst.transpose(order), tmp)


def _bias_row(fail, sid, bid, cube, at: int, n: int, acc_dt) -> np.ndarray:
    """A copy of the ``ceil16(n)`` accumulator values of BiasTable from byte ``at``, shaped to add to L0C's NZ
    blocks (cores, n1, 1, 16)."""
    n1 = -(-n // 16)
    nbytes = n1 * 16 * acc_dt.itemsize
    bt = cube.bt
    if at < 0 or at % 64 or at + nbytes > bt.shape[1]:
        fail(sid, bid, f"Mmad bias: BiasTable bytes [{at}, {at + nbytes}) are not 64 B aligned or outside its "
                       f"{bt.shape[1]} bytes")
    return bt[:, at:at + nbytes].view(acc_dt).reshape(bt.shape[0], n1, 1, 16).copy()


def _mmad_record(a, b, c, m, n, k, rc) -> tuple:
    """(cycles, then the address and bytes of the L0A, L0B and L0C regions in the checker's address space)
    of an Mmad; ``rc``: (fixed cycles, k0, cycles per 16 x 16 x k0, L0A, L0B and L0C bases, L0C bytes per
    16 x 16)."""
    fixed, k0, per, abase, bbase, cbase, cb = rc
    m1, n1, k1 = (m + 15) // 16, (n + 15) // 16, (k + k0 - 1) // k0
    return fixed + m1 * n1 * k1 * per, abase + a, m1 * k1 * 512, bbase + b, k1 * n1 * 512, cbase + c, n1 * m1 * cb


def _pending(cube, key, init, cls, *kind):
    """The pending chain or staged block (``cls``) an Mmad extends: the current one if it has the Mmad's
    ``key`` (the same block) and the Mmad accumulates, else a new one (after storing the current)."""
    ch = cube.pending
    if ch is not None and not init and cube.pending_key == key:
        return ch
    if ch is not None:
        flush(cube)
    ch = cube.chains.get(key)
    if ch is None:
        if len(cube.chains) >= CHAINS:
            cube.chains.clear()
        ch = cube.chains[key] = cls(cube, *kind, *key[:3]) if kind else cls(cube, key)
    if kind:
        ch.begin()
    ch.init, ch.bias = init, None
    cube.pending, cube.pending_key = ch, key
    return ch


def flush(cube) -> None:
    """Stores the pending chain into L0C."""
    ch, cube.pending, cube.pending_key = cube.pending, None, None
    ch.store()
