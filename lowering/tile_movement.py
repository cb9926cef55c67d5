"""``tile-movement``: each ``movement`` kernel (a transpose, strided slice or concat) becomes an
``asctile`` kernel that copies GM -> UB -> GM, rearranging on chip where it must.

Every output region is a *piece*: the whole output of a transpose or strided slice, one input's
slab of a concat. A piece reads its input through element strides (the composition of the
views, permutations and steps between the kernel argument and the piece) and writes the output
row-major. Its dims are collapsed where both sides walk them as one run; the last output dim
is the tile's columns, the remaining dim with the smallest input stride its rows, the others
are walked one tile at a time.

* Columns contiguous in the input (a concat slab, a step on an outer dim): the tile is loaded
  with the input's row stride and stored with the output's (``DataCopyPad`` block strides).
* Otherwise (a transpose, a step on the last dim) the tile's *footprint* in the input is loaded,
  a 2-D window of whole contiguous runs, either one run per tile row (``A``: a step ``s`` on the
  last dim reads runs of ``s * cols``) or one run per tile column (``B``: a transpose reads a
  column of the tile as a contiguous run); the smaller one is chosen. Where the runs of ``B`` are
  the tile's whole columns, of a 2- or 4-byte type (``TRANSPOSE_TYPES``), the footprint is transposed
  whole (``transposed``: ``asctile.transpose``, one ``TransDataTo5HD`` per 16 columns, its rows
  padded to whole 32 B blocks). Otherwise the vector ``Gather`` picks every element with a
  byte-offset table built once per kernel (``CreateVecIndex``, ``Mins``, ``Muls`` and
  ``log2(rows)`` ``Adds``).
* A batch of small transposes (the outer dim walks whole dense blocks on both sides, each block's
  rows ``T`` and columns ``C`` swapped, such as a convolution's weights made ``[OC][C1][KH][KW][C0]``)
  takes tiles of whole blocks (``blocked``): a block is one tile row of ``T`` runs of ``C`` columns, the
  footprint the blocks' contiguous input, the table's rows built from one block's runs.
* Negative steps: an outer dim walked backwards only changes the offsets (a DMA walks rows
  forwards, so it is never the tile's row dim); columns walked backwards load the run from the
  tile's last column and gather with a table counted backwards (a negative ``col_bytes``). Such a
  piece needs tiles as wide as its rows, so a longer row is cut into whole tiles (a new outer
  dim) and a rest (``split_reversed``).

The tile size comes from the UB capacity: input footprint and output tile in ``buffers``
rotating copies each plus the offset table. With fewer tiles than cores, tiles are halved while that
shortens the estimated makespan (rounds of tiles per core times a tile's copies, fixed latency
included). All pieces of a concat share one loop over tiles (iteration ``t`` moves tile ``t`` of every piece; a piece with fewer tiles moves nothing then).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, gcd, prod

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.ascendc.movement import MAX_REPEATS as TRANSPOSE_ROWS, TRANS_5HD_DTYPES as TRANSPOSE_TYPES
from pyasc.dialects.asctensor.analysis import MOVEMENT_OPS, kernel_kind
from pyasc.dialects.gather_table import first_runs
from pyasc.dialects.target import DEFAULT_TARGET, TargetSpec, module_target
from pyasc.dialects.types import element_bytes

from .emitter import OpEmitter, copy_loc
from .errors import TilingError
from .kernel_calls import replace_kernel
from .tile_body import view_source
from .tiling import MAX_TILE_ROWS, row_major
from .work_items import work_loop

_SPLIT_ROUNDS = 6  # re-plans of pieces whose reversed rows are cut into whole tiles
SMALL_BLOCK_BYTES = 4096  # the largest block of a batch of small transposes tiled by whole blocks
GATHER_DTYPES = ("f16", "bf16", "f32", "i32")


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def view_of(v: SSAValue, args, views: dict):
    """(argument, shape, element strides, base offset) of ``v``: an argument or a chain of views,
    transposes and strided slices over one; None otherwise."""
    src = view_source(v, args, views)
    if src is not None:
        return src
    op = v.owner
    if isinstance(op, asctensor.TransposeOp) and op.input in views:
        arg, _, strides, base = views[op.input]
        return arg, v.type.get_shape(), tuple(strides[p] for p in op.perm), base
    if isinstance(op, asctensor.StridedSliceOp) and op.input in views:
        arg, _, strides, base = views[op.input]
        base += sum(o * st for o, st in zip(op.offset_list, strides))
        return arg, v.type.get_shape(), tuple(st * s for st, s in zip(strides, op.stride_list)), base
    return None


@dataclass
class Piece:
    """One output region: ``out[out_base + i . out_strides] = arg[in_base + i . in_strides]`` over ``dims``."""

    arg: SSAValue
    dims: tuple[int, ...]  # collapsed; the last two are (rows, cols)
    in_strides: tuple[int, ...]
    out_strides: tuple[int, ...]
    in_base: int
    out_base: int
    runs: tuple[int, int] = (1, 0)  # a blocked piece: (T runs of a tile row, the input stride between runs)


def blocked(piece: Piece, es: int) -> Piece | None:
    """``piece`` as tiles of whole blocks when its outer dim walks dense ``T x C`` blocks on both sides whose
    rows and columns the piece swaps (input ``[C][T]``, output ``[T][C]``) and a block is small (at most
    ``SMALL_BLOCK_BYTES``, whole 32 B): a row of the tile is one block, ``T`` runs of ``C`` columns (``C`` a
    multiple of 8: the i32 table's runs are whole 32 B); None otherwise."""
    if len(piece.dims) < 3 or piece.runs[0] > 1:
        return None
    *outer, X, T, C = piece.dims
    *si, sX, sR, sC = piece.in_strides
    *so, oX, oR, oC = piece.out_strides
    block = T * C
    if not (sX == oX == block and sR == 1 and sC == T and oR == C and oC == 1 and C % 8 == 0
            and block * es % 32 == 0 and block * es <= SMALL_BLOCK_BYTES and X > 1):
        return None
    return Piece(piece.arg, (*outer, X, block), (*si, block, sC), (*so, block, 1), piece.in_base, piece.out_base,
                 (T, sR))


def narrow(piece: Piece, align: int) -> int:
    """The unit of output rows of a tile when ``piece`` is a transpose into rows narrower than 32 B that follow
    one another in the output, from rows contiguous in the input (an NCHW image of 3 channels made NHWC); 0
    otherwise. A tile is one row: its output rows side by side (whole units: whole 32 B), gathered from one run per
    column of the input (``C`` runs of the tile's rows) with a table of runs of ``C`` columns (``gather_offsets``
    with ``blocks``), and stored as one run. Rows padded to 32 B would gather and store up to ``align / C`` times
    the elements."""
    if len(piece.dims) < 2 or piece.runs[0] > 1:
        return 0
    C, sR, sC, oR = piece.dims[-1], piece.in_strides[-2], piece.in_strides[-1], piece.out_strides[-2]
    if not (1 < C < align and sR == 1 and sC > 1 and oR == C):
        return 0
    whole = align // gcd(C, align)  # rows whose elements are whole 32 B
    return -(-3 * first_runs(C) // whole) * whole  # room for the table's first runs (``gather_table``)


def collapse_piece(arg, shape, in_strides, out_strides, in_base, out_base) -> Piece:
    """Drop size-1 dims, merge dims both sides walk as one run, put the row dim (smallest input
    stride) just before the column dim, and make sure the output columns are contiguous."""
    keep = [j for j in range(len(shape)) if shape[j] > 1]
    dims, si, so = [], [], []
    for j in keep:
        if dims and si[-1] == in_strides[j] * shape[j] and so[-1] == out_strides[j] * shape[j]:
            dims[-1] *= shape[j]
            si[-1], so[-1] = in_strides[j], out_strides[j]
        else:
            dims.append(shape[j])
            si.append(in_strides[j])
            so.append(out_strides[j])
    if not dims or so[-1] != 1:  # output columns of one element (e.g. a concat of width-1 slabs)
        dims.append(1)
        si.append(1)
        so.append(1)
    if len(dims) == 1:
        dims.insert(0, 1)
        si.insert(0, 0)
        so.insert(0, dims[-1])
    forward = [j for j in range(len(dims) - 1) if si[j] >= 0]  # a DMA walks rows forwards only
    if not forward:  # every outer dim runs backwards: a tile is one row
        dims.insert(-1, 1)
        si.insert(-1, 0)
        so.insert(-1, dims[-1])
        forward = [len(dims) - 2]
    row = min(forward, key=lambda j: (si[j], -j))
    order = [j for j in range(len(dims) - 1) if j != row] + [row, len(dims) - 1]
    return Piece(arg, tuple(dims[j] for j in order), tuple(si[j] for j in order), tuple(so[j] for j in order),
                 in_base, out_base)


@dataclass
class PiecePlan:
    """How one piece is tiled: ``tr x tc`` tiles (``pitch`` padded to 32 B) and the footprint mode."""

    piece: Piece
    tr: int
    tc: int
    pitch: int
    mode: str  # "copy", "rows" (footprint A: one run per tile row), "cols" (B: one run per tile column),
    # "blocks" (a tile row is one block of a batch of small transposes, ``blocked``), "narrow" (``narrow``) or
    # "transpose" (B transposed whole: ``transposed``)
    fp_rows: int = 0
    fp_pitch: int = 0

    @property
    def tile_rows(self) -> int:
        """Rows of the tile: ``tr``, one for ``narrow`` (its ``tr`` output rows side by side), whole blocks of
        rows for ``transpose`` (the footprint's pitch)."""
        return 1 if self.mode == "narrow" else self.fp_pitch if self.mode == "transpose" else self.tr

    @property
    def R(self) -> int:  # noqa: N802
        return self.piece.dims[-2]

    @property
    def C(self) -> int:  # noqa: N802
        return self.piece.dims[-1]

    @property
    def row_tiles(self) -> int:
        return ceil(self.R / self.tr)

    @property
    def col_tiles(self) -> int:
        return ceil(self.C / self.tc)

    @property
    def total(self) -> int:
        return prod(self.piece.dims[:-2]) * self.row_tiles * self.col_tiles

    def ub_bytes(self, es: int, buffers: int) -> int:
        tile = self.tile_rows * self.pitch * es
        if self.mode == "copy":
            return 2 * buffers * tile
        table = 0 if self.mode == "transpose" else self.tile_rows * self.pitch * 4
        return buffers * (self.fp_rows * self.fp_pitch * es + tile) + table


def plan_piece(piece: Piece, budget: int, align: int, cost=None, transposes: bool = False) -> PiecePlan:
    """The tile of ``piece`` for ``budget`` output elements per tile. A gathered piece (a transpose)
    takes, of the tiles as wide as the budget allows and those narrower by halves (taller for the same
    budget), the widest (without ``cost``, or when its columns run backwards) or the one of least
    ``cost(plan)``, the widest on a tie: a piece whose rows are far apart in the input gets narrow, tall
    tiles, whose footprint is not mostly padding. With ``transposes`` (the element type has them) a footprint
    of one run per column is transposed whole where it can be (``transposed``)."""
    R, C = piece.dims[-2], piece.dims[-1]
    unit = narrow(piece, align)
    if unit:  # one tile row of whole units of output rows
        tr = max(1, min(-(-R // unit), MAX_TILE_ROWS, budget // (unit * C))) * unit
        return PiecePlan(piece, tr, C, tr * C, "narrow", C, _align(tr, align))
    if piece.runs[0] > 1:  # tiles of whole blocks (``blocked``): the footprint is their input, contiguous
        tr = max(1, min(R, MAX_TILE_ROWS, budget // C))
        return PiecePlan(piece, tr, C, C, "blocks", tr, C)
    tc = min(_align(C, align), max(align, budget // align * align))
    if tc >= C:
        tc = C
    if piece.in_strides[-1] == 1:
        pitch = _align(tc, align)
        return PiecePlan(piece, max(1, min(R, MAX_TILE_ROWS, budget // pitch)), tc, pitch, "copy")
    if piece.in_strides[-1] < 0:  # reversed columns: tiles as wide as the rows (``split_reversed``)
        cost = None
    plans = []
    while True:
        pitch = _align(tc, align)
        plan = _gather_plan(piece, max(1, min(R, MAX_TILE_ROWS, budget // pitch)), tc, pitch, align)
        plans.append(transposed(plan, align) if transposes else plan)
        if tc <= align or cost is None or (plans[-1].mode == "transpose" and tc * 32 // align <= MIN_STORED_ROW):
            break
        tc = max(align, _align(tc // 2, align))
    return plans[0] if cost is None else min(plans, key=cost)


def _gather_plan(piece: Piece, tr: int, tc: int, pitch: int, align: int) -> PiecePlan:
    """The footprint of a ``tr x tc`` tile of a gathered piece: one run per tile row or per column."""
    sR, sC = piece.in_strides[-2], piece.in_strides[-1]
    options = []
    for rows in (tr, 1):
        run_a = (tc - 1) * abs(sC) + 1
        if rows == 1 or sR >= run_a:
            options.append((rows * _align(run_a, align), PiecePlan(piece, rows, tc, pitch, "rows", rows,
                                                                     _align(run_a, align))))
        run_b = (rows - 1) * sR + 1
        if sR > 0 and (tc == 1 or sC >= run_b):  # never for a reversed column dim (sC < 0)
            options.append((tc * _align(run_b, align), PiecePlan(piece, rows, tc, pitch, "cols", tc,
                                                                   _align(run_b, align))))
        if options:
            break
    plan = min(options, key=lambda o: o[0])[1]
    while plan.fp_rows * plan.fp_pitch < plan.tr * plan.pitch:  # Gather reads at most the source's size
        plan.fp_rows += 1
    return plan


L2_LINE_BYTES = 512  # a run that ends inside a line leaves the rest of it to the next tile's core
MIN_STORED_ROW = 256  # a transposed tile's rows are stored at least this long (where the output's rows are)


def transposed(plan: PiecePlan, align: int) -> PiecePlan:
    """A ``cols`` plan whose runs are the tile's whole columns (``sR`` 1) as a ``transpose``: the footprint
    (``C x R``, columns padded to 16 and rows to whole 32 B blocks, at most 255 of them) transposed into the tile
    by ``TransDataTo5HD`` instead of gathered; the same plan otherwise. Runs longer than an L2 line are cut to
    whole lines: tiles on different cores then share no line."""
    p = plan.piece
    if plan.mode != "cols" or p.in_strides[-2] != 1 or p.in_strides[-1] <= 0:
        return plan
    tr = min(plan.tr, TRANSPOSE_ROWS * align)
    unit = L2_LINE_BYTES // (32 // align) if tr >= L2_LINE_BYTES // (32 // align) else align
    tr = tr // unit * unit if tr >= unit else tr  # runs of whole L2 lines where they are that long
    pitch = _align(plan.tc, 16)
    return PiecePlan(p, tr, plan.tc, pitch, "transpose", pitch, _align(tr, align))


def split_reversed(piece: Piece, width: int) -> list[Piece]:
    """A piece whose columns run backwards in the input, cut into whole tiles of ``width`` columns
    (a new outer dim) and a rest: its gather table counts from each tile's last column, so every
    tile of a piece must be equally wide."""
    *outer, R, C = piece.dims
    *si, sR, sC = piece.in_strides
    *so, soR, _ = piece.out_strides
    q, r = divmod(C, width)
    parts = [Piece(piece.arg, (*outer, q, R, width), (*si, width * sC, sR, sC), (*so, width, soR, 1),
                   piece.in_base, piece.out_base)]
    if r:
        parts.append(Piece(piece.arg, (*outer, R, r), piece.in_strides, piece.out_strides,
                           piece.in_base + q * width * sC, piece.out_base + q * width))
    return parts


def _partial_reversed(plans: list[PiecePlan]) -> bool:
    return any(pl.piece.in_strides[-1] < 0 and pl.tc < pl.C for pl in plans)


@dataclass
class _MovementTiler:
    kernel: func.FuncOp
    cores: int
    buffers: int
    spec: TargetSpec

    def run(self) -> func.FuncOp:
        k = self.kernel
        body = [op for op in k.body.block.ops if not isinstance(op, func.ReturnOp)]
        ret = k.body.block.last_op
        args = list(k.body.block.args)
        movers = [op for op in body if isinstance(op, MOVEMENT_OPS)]
        if len(movers) != 1 or len(ret.operands) != 1 or ret.operands[0] is not movers[0].result:
            raise TilingError(f"movement kernel @{k.sym_name.data} must compute one transpose, strided slice "
                              "or concat and return it")
        mover = movers[0]
        out_t = mover.result.type
        es = element_bytes(out_t.element_type)
        self.es = es
        self.transposes = str(out_t.element_type) in TRANSPOSE_TYPES
        views: dict[SSAValue, tuple] = {}
        for v in [*args, *(r for op in body for r in op.results)]:
            if isinstance(v.owner, asctensor.ConcatOp):
                continue
            src = view_of(v, args, views)
            if src is not None:
                views[v] = src
        out_strides = row_major(out_t.get_shape())
        pieces = []
        if isinstance(mover, asctensor.ConcatOp):
            at = 0
            for v in mover.inputs:
                if v not in views:
                    raise TilingError(f"kernel @{k.sym_name.data}: a concat input is not a view of an argument")
                arg, shape, strides, base = views[v]
                pieces.append(collapse_piece(arg, shape, strides, out_strides, base, at * out_strides[mover.axis]))
                at += shape[mover.axis]
        else:
            arg, shape, strides, base = views[mover.result]
            pieces.append(collapse_piece(arg, shape, strides, out_strides, base, 0))
        if any(p.arg is None for p in pieces):
            raise TilingError(f"kernel @{k.sym_name.data}: no source for a piece")
        align = 32 // es
        plans = self._plan_reversed(pieces, align)
        whole = [blocked(p, es) for p in pieces] if len(pieces) == 1 else [None]
        if whole[0] is not None:  # a batch of small transposes: tiles of whole blocks where they take less time
            by_blocks = self._plan(whole, align)
            if sum(map(self._makespan, by_blocks)) < sum(map(self._makespan, plans)):
                plans = by_blocks
        if _partial_reversed(plans):
            raise TilingError(f"kernel @{k.sym_name.data}: rows read backwards do not split into tiles that fit "
                              "in UB")
        if any(pl.mode not in ("copy", "transpose") for pl in plans) and str(out_t.element_type) not in GATHER_DTYPES:
            raise TilingError(f"kernel @{k.sym_name.data}: Gather does not move {out_t.element_type} elements "
                              f"(supported: {', '.join(GATHER_DTYPES)})")
        total = max(pl.total for pl in plans)
        block_dim = max(1, min(self.cores, total))

        memref = lambda t: MemRefType(t.element_type, t.get_shape())  # noqa: E731
        loop = work_loop(k.sym_name.data, [memref(a.type) for a in args] + [memref(out_t)],
                         [a.name_hint for a in args] + ["out0"], total, block_dim, self.buffers, mover)
        gm_of = dict(zip(args, loop.args))
        out_arg = loop.args[-1]
        for pl in plans:
            tables = None
            if pl.mode not in ("copy", "transpose"):
                tables = loop.pre.value(self._table(pl))
            self._move(pl, loop.item, total, gm_of[pl.piece.arg], out_arg, tables, loop.body, out_t.element_type)
        return loop.kernel

    def _plan_reversed(self, pieces: list[Piece], align: int) -> list[PiecePlan]:
        """Plans where every piece whose rows run backwards has tiles as wide as its rows: a longer
        row is cut into whole tiles and a rest (``split_reversed``), narrower until the plan fits."""
        widths: dict[int, int] = {}
        plans: list[PiecePlan] = []
        for _ in range(_SPLIT_ROUNDS):
            parts = [(i, q) for i, p in enumerate(pieces)
                     for q in (split_reversed(p, widths[i]) if i in widths else [p])]
            plans = self._plan([q for _, q in parts], align)
            narrow = {i: pl.tc for (i, _), pl in zip(parts, plans) if pl.piece.in_strides[-1] < 0 and pl.tc < pl.C}
            if not narrow:
                break
            for i, tc in narrow.items():  # two pieces now share UB: start from half the width
                w = tc // 2 if i not in widths else min(widths[i], tc) * 7 // 8
                widths[i] = max(align, w // align * align)
        return plans

    def _plan(self, pieces: list[Piece], align: int) -> list[PiecePlan]:
        """Plans for every piece whose buffers fit in UB together: of the widest tiles and of the tiles
        ``plan_piece`` picks by estimated makespan, the plans whose makespans add up to less."""
        widest = self._fit(pieces, align, None)
        if all(p.in_strides[-1] == 1 or p.in_strides[-1] < 0 for p in pieces):  # no tile narrower to try
            return widest
        picked = self._fit(pieces, align, self._makespan)
        return min((picked, widest), key=lambda plans: sum(map(self._makespan, plans)))

    def _fit(self, pieces: list[Piece], align: int, cost) -> list[PiecePlan]:
        budget = max(align, self.spec.ub_usable_bytes // (len(pieces) * self.es * 2 * self.buffers))
        while True:
            plans = [plan_piece(p, budget, align, cost, self.transposes) for p in pieces]
            used = sum(pl.ub_bytes(self.es, self.buffers) for pl in plans)
            if used <= self.spec.ub_usable_bytes:
                return [self._balance(pl, align, cost) for pl in plans]
            if budget <= align:
                raise TilingError(f"kernel @{self.kernel.sym_name.data}: one {align}-element tile of every piece "
                                  f"needs {used} B of UB, more than the {self.spec.ub_usable_bytes} B available")
            budget = max(align, int(budget * self.spec.ub_usable_bytes / used * 0.95))

    def _balance(self, pl: PiecePlan, align: int, cost=None) -> PiecePlan:
        """While there are fewer tiles than cores, halve the tile (down to ``align`` rows of a gather, whose
        footprint runs stay at least one 32 B block long), and try tiles of the rows that make one per core; of
        these plans, the one whose estimated makespan
        (``_makespan``) is shortest, the fewest tiles on a tie. Copies of a few dozen bytes cost their DMA's
        fixed latency alone: two rounds of them take longer than one round of tiles twice as large."""
        min_rows = align if pl.mode in ("rows", "cols", "transpose") else 1
        plans = [pl]
        if pl.total < self.cores and pl.mode != "narrow" and pl.tr > min_rows:  # one tile per core
            rows = max(min_rows, _align(ceil(pl.tr * pl.total / self.cores), min_rows))
            plans.append(plan_piece(pl.piece, rows * pl.pitch, align, cost, self.transposes))
        while pl.total < self.cores and (pl.tr > min_rows or (pl.mode == "copy" and pl.tc > align)):
            if pl.mode == "narrow":  # one tile row of ``tr`` output rows
                budget = ceil(pl.tr / 2) * pl.C
            elif pl.tr > min_rows:
                budget = max(min_rows, ceil(pl.tr / 2)) * pl.pitch
            else:
                budget = _align(ceil(pl.tc / 2), align)
            smaller = plan_piece(pl.piece, budget, align, cost, self.transposes)
            if smaller.total <= pl.total:
                break
            pl = smaller
            plans.append(pl)
        return min(plans, key=lambda p: (self._makespan(p), p.total))

    def _makespan(self, pl: PiecePlan) -> float:
        """Estimated cycles of the busiest core: its rounds of tiles, each a load of the tile's footprint
        (``mode``), a gather for a transposed one, and a store, each copy with its fixed latency."""
        spec, es = self.spec, self.es
        out_bytes = pl.tr * pl.tc * es
        in_bytes = out_bytes if pl.mode == "copy" else pl.fp_rows * pl.fp_pitch * es
        tile = (2 * spec.dma_fixed_cycles + in_bytes / spec.mte2_bytes_per_cycle
                + out_bytes / spec.mte3_bytes_per_cycle)
        if pl.mode == "transpose":  # one TransDataTo5HD per 16 columns
            tile += spec.vector_fixed_cycles * pl.pitch // 16 + pl.tile_rows * pl.pitch * es / spec.transpose_bytes_per_cycle
        elif pl.mode != "copy":
            tile += spec.vector_fixed_cycles + pl.tile_rows * pl.pitch / spec.gather_elems_per_cycle
        busiest = ceil(pl.total / self.cores) * tile
        if pl.mode != "transpose":
            return busiest
        # the launch's HBM traffic: a tile's input runs in whole L2 lines (one more where a run starts inside a
        # line), its output as written
        lines = pl.tc * (ceil(pl.tr * es / L2_LINE_BYTES) + 1)
        return max(busiest, pl.total * (lines * L2_LINE_BYTES + out_bytes) * spec.clock_hz / spec.hbm_bytes_per_s)

    def _table(self, pl: PiecePlan) -> asctile.GatherOffsetsOp:
        """The gather table of a gathered piece's tiles."""
        tt = TensorType(i32, [pl.tile_rows, pl.pitch])
        if pl.mode == "narrow":  # output row b: column b of each of the C runs
            return asctile.GatherOffsetsOp(tt, pl.C, pl.fp_pitch * self.es, pl.pitch * self.es, pl.tr, self.es)
        if pl.mode == "blocks":
            runs, run_stride = pl.piece.runs
            return asctile.GatherOffsetsOp(tt, pl.C // runs, pl.piece.in_strides[-1] * self.es, pl.fp_pitch * self.es,
                                           runs, run_stride * self.es)
        return asctile.GatherOffsetsOp(tt, pl.tc, *self._offset_bytes(pl))

    def _offset_bytes(self, pl: PiecePlan) -> tuple[int, int]:
        sR, sC = pl.piece.in_strides[-2], pl.piece.in_strides[-1]
        if pl.mode == "rows":
            return sC * self.es, pl.fp_pitch * self.es
        return pl.fp_pitch * self.es, sR * self.es

    def _move(self, pl: PiecePlan, t, total: int, src, dst, table, le: OpEmitter, et) -> None:
        """Tile ``t`` of one piece (nothing when the piece has fewer tiles): load, gather, store."""
        p = pl.piece
        live = le.subi(pl.total, le.minui(t, pl.total)) if pl.total < total else None  # 0: no tile t
        tp = le.minui(t, pl.total - 1) if live is not None else t
        ct = le.remui(tp, pl.col_tiles)
        q = le.divui(tp, pl.col_tiles)
        rt = le.remui(q, pl.row_tiles)
        o = le.divui(q, pl.row_tiles)
        r0, c0 = le.muli(rt, pl.tr), le.muli(ct, pl.tc)
        vr = le.minui(le.subi(pl.R, r0), pl.tr)
        vc = le.minui(le.subi(pl.C, c0), pl.tc)
        if live is not None:
            vr, vc = le.minui(vr, le.muli(live, pl.tr)), le.minui(vc, le.muli(live, pl.tc))
        in_off, out_off = le.index(p.in_base), le.index(p.out_base)
        for d, si, so in zip(reversed(p.dims[:-2]), reversed(p.in_strides[:-2]), reversed(p.out_strides[:-2])):
            idx = le.remui(o, d)
            o = le.divui(o, d)
            in_off, out_off = le.addi(in_off, le.muli(idx, si)), le.addi(out_off, le.muli(idx, so))
        sR, sC = p.in_strides[-2], p.in_strides[-1]
        in_off = le.addi(le.addi(in_off, le.muli(r0, sR)), le.muli(c0, sC))
        out_off = le.addi(le.addi(out_off, le.muli(r0, p.out_strides[-2])), c0)
        tile_t = TensorType(et, [pl.tile_rows, pl.pitch])
        if pl.mode == "narrow":  # C runs of the tile's rows, gathered side by side, stored as one run
            fp = le.value(asctile.LoadOp(src, in_off, le.index(pl.C), vr, sC, 1, TensorType(et, [pl.C, pl.fp_pitch])))
            value = le.value(asctile.GatherOp(fp, table, tile_t))
            le.add(asctile.StoreOp(value, dst, out_off, le.index(1), le.muli(vr, pl.C), pl.pitch))
            return
        if pl.mode == "copy":
            value = le.value(asctile.LoadOp(src, in_off, vr, vc, sR, 1, tile_t))
        elif pl.mode == "transpose":  # one run of the tile's rows per column, transposed whole
            at_least_one = lambda n: le.addi(n, le.subi(1, le.minui(n, 1)))  # noqa: E731
            fp_t = TensorType(et, [pl.fp_rows, pl.fp_pitch])
            fp = le.value(asctile.LoadOp(src, in_off, vc, at_least_one(vr), sC, 1, fp_t))
            value = le.value(asctile.TransposeOp(fp, tile_t))
        else:
            fp_t = TensorType(et, [pl.fp_rows, pl.fp_pitch])
            at_least_one = lambda n: le.addi(n, le.subi(1, le.minui(n, 1)))  # noqa: E731
            if pl.mode == "blocks":  # whole blocks, contiguous
                fp = le.value(asctile.LoadOp(src, in_off, vr, le.index(pl.C), sR, 1, fp_t))
            elif pl.mode == "rows":
                span = le.muli(le.subi(at_least_one(vc), 1), abs(sC))
                start = le.subi(in_off, span) if sC < 0 else in_off  # a reversed run starts at its last column
                fp = le.value(asctile.LoadOp(src, start, vr, le.addi(span, 1), sR, 1, fp_t))
            else:
                run = le.addi(le.muli(le.subi(at_least_one(vr), 1), sR), 1)
                fp = le.value(asctile.LoadOp(src, in_off, vc, run, sC, 1, fp_t))
            value = le.value(asctile.GatherOp(fp, table, tile_t))
        le.add(asctile.StoreOp(value, dst, out_off, vr, vc, max(1, p.out_strides[-2])))


@dataclass(frozen=True)
class TileMovementPass(ModulePass):
    """Tile every ``movement`` kernel (transpose, strided slice, concat) onto the vector cores."""

    name = "tile-movement"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: all vector cores of the target
    buffers: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:

        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == "movement":
                new = _MovementTiler(f, self.cores or spec.vector_cores, self.buffers, spec).run()
                copy_loc(f, new)
                replace_kernel(f, new)


__all__ = ["TileMovementPass"]
