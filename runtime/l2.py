"""What a launch's GM reads find in the 192 MB L2, in 512 B lines.

All MTE traffic goes through L2 by default (``SetL2CacheHint`` would bypass it). Two records:

* ``L2Lines``, a launch's: the cube's copies (``Nd2Nz``) run at the L2 rate, and only the first touch of each
  line, by any core, counts toward the launch's HBM traffic;
* ``CoreLines``, each vector core's: a GM -> UB copy runs at the HBM rate (``mte2_bytes_per_cycle``) for the
  bytes in lines the core has not read since it started its part of the launch, and at the L2 rate
  (``mte2_l2_bytes_per_cycle``) for the rest (both rates are per core, for GM -> L1 and GM -> UB alike). Its
  HBM traffic is its bytes in 32 B blocks the core has not read before: bytes read again add none, and the
  rest of a line read in part, a hit later, still counts once, so a core never moves fewer bytes from HBM
  than it reads (lines cores share count each core's part). A core's own history decides, so the result does not depend on the order
  in which the simulator runs the cores; a line another core read first still counts as a miss
  (conservative).

The data path (``codegen.data_only_source``) does neither accounting.
"""

from __future__ import annotations

import weakref

import numpy as np
from numpy.lib.array_utils import byte_bounds

PLANS = 4096  # line-index arrays kept per record before it starts over
BLOCK = 32  # the DMA's granule: a vector core's HBM traffic is counted in the blocks it reads
_BUFFERS: dict[int, tuple] = {}  # id of a GM argument's bytes -> (a weak reference to them, ``buffer_of``)


def _row_lines(start: int, rows: int, row_bytes: int, stride: int, line: int) -> tuple[np.ndarray, np.ndarray]:
    """Every (row, line) pair of rows of ``row_bytes`` bytes, ``stride`` apart from byte ``start``, as flat arrays:
    the line, and the row's bytes in it (rows closer than a line share lines)."""
    starts = start + np.arange(rows, dtype=np.int64) * stride
    ends = starts + row_bytes
    lo, hi = starts // line, (ends - 1) // line
    index = lo[:, None] + np.arange(int((hi - lo).max()) + 1)[None, :]
    share = np.minimum(ends[:, None], (index + 1) * line) - np.maximum(starts[:, None], index * line)
    keep = index <= hi[:, None]
    return index[keep], share[keep]


def _distinct(index: np.ndarray) -> np.ndarray:
    """The distinct values of ``index``: rows at rising addresses give lines in rising order, whose repeats are
    neighbours; other orders are sorted first."""
    if index.size < 2:
        return index
    if not (index[1:] >= index[:-1]).all():
        index = np.sort(index)
    return index[np.concatenate(([True], index[1:] != index[:-1]))]


def _mark_row(marks: np.ndarray, start: int, nbytes: int, unit: int) -> tuple[int, int]:
    """(the bytes of one row of ``nbytes`` from byte ``start`` that lie in units of ``unit`` bytes not in
    ``marks``, how many such units), and the row's units marked: ``_row_lines`` of one row, without arrays."""
    lo, hi = start // unit, (start + nbytes - 1) // unit
    if lo == hi:
        if marks[lo]:
            return 0, 0
        marks[lo] = True
        return nbytes, 1
    run = marks[lo:hi + 1]
    new = int(run.size - np.count_nonzero(run))
    if not new:
        return 0, 0
    before, after = start - lo * unit, (hi + 1) * unit - start - nbytes  # the end units' bytes outside the row
    missed = new * unit - (0 if run[0] else before) - (0 if run[-1] else after)
    run[...] = True
    return missed, new


def buffer_of(g8: np.ndarray) -> tuple[int, int, int]:
    """(the key of the memory a GM argument lies in, the argument's first byte in it, the memory's bytes): two
    arguments that view one array (``x - x[0:1]`` eagerly) share one record, each at its own place in it. Found
    once per array while it lives (``_BUFFERS``)."""
    known = _BUFFERS.get(id(g8))
    if known is not None and known[0]() is g8:
        return known[1]
    if len(_BUFFERS) >= PLANS:
        _BUFFERS.clear()
    found = _buffer_of(g8)
    _BUFFERS[id(g8)] = (weakref.ref(g8), found)
    return found


def _buffer_of(g8: np.ndarray) -> tuple[int, int, int]:
    root = g8
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root is g8:
        return id(g8), 0, g8.nbytes
    lo, hi = byte_bounds(root)
    return id(root), g8.ctypes.data - lo, hi - lo


class L2Lines:
    """First touches of GM per launch, in 512 B lines: an MTE2 read of a line already read in this
    launch hits L2 (runs at ``mte2_l2_bytes_per_cycle`` and adds no HBM traffic); the first read of a
    line brings the whole line from HBM (a launch's HBM traffic is its lines' bytes, at least the bytes
    it reads). When the lines touched exceed the L2 capacity, the record starts over (a crude LRU). A launch is recognised by its argument list."""

    LINE = 512

    def __init__(self, spec):
        self.capacity = spec.l2_bytes // self.LINE
        self.launch = None
        self.maps: dict[int, np.ndarray] = {}
        self.seen: set[tuple] = set()  # regions read whole since the record started
        self.lines: dict[tuple, np.ndarray] = {}  # line indices of a region, by its geometry
        self.count = 0

    def first_bytes(self, args, g8: np.ndarray, start: int, rows: int, row_bytes: int, stride: int) -> int:
        """Bytes of the rows (``row_bytes`` each, ``stride`` bytes apart from byte ``start``) read from HBM."""
        return self.new_lines(args, g8, start, rows, row_bytes, stride) * self.LINE

    def new_lines(self, args, g8: np.ndarray, start: int, rows: int, row_bytes: int, stride: int) -> int:
        """How many of the lines the rows cover were not read before in this launch (they are now)."""
        if args is not self.launch:
            self.launch, self.maps, self.seen, self.count = args, {}, set(), 0
        key, at, nbytes = buffer_of(g8)
        start += at
        region = (key, start, rows, row_bytes, stride)
        if region in self.seen:
            return 0
        bm = self.maps.get(key)
        if bm is None:
            bm = self.maps[key] = np.zeros(nbytes // self.LINE + 2, np.bool_)
        idx = self.lines.get(region[1:])
        if idx is None:
            idx = _distinct(_row_lines(start, rows, row_bytes, stride, self.LINE)[0])  # each line counts once
            if len(self.lines) >= PLANS:
                self.lines.clear()
            self.lines[region[1:]] = idx
        new = np.count_nonzero(~bm[idx])
        bm[idx] = True
        self.seen.add(region)
        self.count += new
        if self.count > self.capacity:
            self.maps, self.seen, self.count = {}, set(), 0
        return new  # whole lines: a line two cores read parts of is fetched once, in full


def _owner(g) -> np.ndarray:
    """The byte array of a GM argument (a group of cores sees it through a ``batched.BatchedGM``)."""
    return g if isinstance(g, np.ndarray) else g.a


class CoreLines:
    """Each vector core's record of the GM lines it read since it started its part of the current launch (see the
    module docstring); the kernel starts a core's record (``start``) where the core starts."""

    LINE = L2Lines.LINE

    def __init__(self, spec):
        self.capacity = spec.l2_bytes // self.LINE
        self.maps: dict[int, dict[int, np.ndarray]] = {}  # core -> GM buffer -> the lines the core has read
        self.blocks: dict[int, dict[int, np.ndarray]] = {}  # core -> GM buffer -> the 32 B blocks it has read
        self.counts: dict[int, int] = {}  # core -> lines marked since its record started
        self.plans: dict[tuple, tuple] = {}  # a copy's geometry -> (its lines, per row, and its bytes in each)

    def start(self, core) -> int:
        """Starts the record of ``core`` (``2 * block + sub``; one per core of a group) afresh."""
        for c in (np.asarray(core).reshape(-1).tolist() if not isinstance(core, int) else (core,)):
            self.maps.pop(c, None)
            self.blocks.pop(c, None)
            self.counts.pop(c, None)
        return 0

    def missed(self, core, g, start, rows: int, row_bytes: int, stride: int) -> tuple[int, int]:
        """(the bytes of a copy of ``rows`` rows (``row_bytes`` each, ``stride`` apart from byte ``start`` of GM
        argument ``g``) that lie in lines vector core ``core`` (``2 * block + sub``) has not read since its
        record started, its bytes in 32 B blocks the core has not read: its HBM traffic). A group of cores (``core`` one per core)
        agrees on the counts, or diverges (``batched.Diverged``)."""
        rows, row_bytes, stride = int(rows), int(row_bytes), int(stride)
        if rows <= 0 or row_bytes <= 0:
            return 0, 0
        g8 = _owner(g)
        if isinstance(core, int):
            return self._core(core, g8, int(start), rows, row_bytes, stride)
        from .batched import Diverged
        cores = np.asarray(core).reshape(-1).tolist()
        starts = np.broadcast_to(np.asarray(start).reshape(-1), (len(cores),)).tolist()
        each = {self._core(int(c), g8, int(s), rows, row_bytes, stride) for c, s in zip(cores, starts)}
        if len(each) > 1:
            raise Diverged
        return each.pop()

    def _core(self, core: int, g8: np.ndarray, start: int, rows: int, row_bytes: int, stride: int) -> tuple[int, int]:
        maps = self.maps.setdefault(core, {})
        key, at, nbytes = buffer_of(g8)
        start += at
        bm = maps.get(key)
        if bm is None:
            bm = maps[key] = np.zeros(nbytes // self.LINE + 2, np.bool_)
        bb = self.blocks.setdefault(core, {}).get(key)
        if bb is None:
            bb = self.blocks[core][key] = np.zeros(len(bm) * (self.LINE // BLOCK), np.bool_)  # as far as the lines
        if rows == 1:  # one row: the runs of lines and blocks it covers
            missed, new = _mark_row(bm, start, row_bytes, self.LINE)
            traffic = _mark_row(bb, start, row_bytes, BLOCK)[0]
        else:
            lines, share = self._plan(start, rows, row_bytes, stride, self.LINE)
            fresh = ~bm[lines]
            missed, new = int(share[fresh].sum()), int(np.count_nonzero(fresh))
            bm[lines] = True
            blocks, part = self._plan(start, rows, row_bytes, stride, BLOCK)
            unread = ~bb[blocks]
            traffic = int(part[unread].sum())
            bb[blocks] = True
        count = self.counts.get(core, 0) + new
        if count > self.capacity:  # the core's lines no longer fit: its record starts over
            self.maps.pop(core)
            self.blocks.pop(core)
            count = 0
        self.counts[core] = count
        return missed, traffic

    def _plan(self, start: int, rows: int, row_bytes: int, stride: int, unit: int) -> tuple:
        """A copy's (row, line or block) pairs (``_row_lines`` in units of ``unit`` bytes), kept by its geometry."""
        key = (start, rows, row_bytes, stride, unit)
        plan = self.plans.get(key)
        if plan is None:
            plan = _row_lines(start, rows, row_bytes, stride, unit)
            if len(self.plans) >= PLANS:
                self.plans.clear()
            self.plans[key] = plan
        return plan
