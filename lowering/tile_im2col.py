"""``tile-im2col``: each ``im2col`` kernel becomes a vector-core gather kernel over UB tiles.

``im2col`` (see ``dialects/asctensor/linalg.py``) gives ``col[n, (g, kh, kw, c), (oh, ow)] =
x_pad[n, g*C/G + c, oh*sh + kh*dh, ow*sw + kw*dw]``. The gather walks work items ``(n, g, kh, kw,
channel chunk, row chunk)`` (without ``kw`` in the shared form below): a chunk of channels with all their
output rows when a channel's input rows are ``sh`` times its output rows (``H == sh * OH``: then the input rows of consecutive channels
are evenly spaced, as their rows of ``col`` are), else one channel and a chunk of its rows. For one
item the rows ``oh`` and the columns ``ow`` that read inside the input (not the padding), computed
from ``kh``/``kw`` with index arithmetic, form one rectangle per channel, and the rectangles of the
chunk's channels are one evenly strided copy:

* the rectangles are a ``load`` of the input window (rows ``sh * W`` apart) and a ``store`` into
  ``col`` (rows ``OW`` apart) from the same UB buffer (``TQueBind<VECIN, VECOUT>``); the rows between two channels' rectangles (input rows of the padding's
  height) come along and are overwritten by the padding below; with a horizontal stride ``sw > 1`` the
  window's columns are ``sw`` apart: the load takes the whole span of each row (contiguous) and every
  ``sw``-th element is picked: by a ``GatherMask`` with a built-in pattern (``pick_columns``) for strides 2 and
  4 (in a window wide enough that the picks of the last column stay in their row), else by a vector ``Gather``
  through a byte-offset table built once per kernel (``gather_offsets``); when every kernel column reads some input column (``_Geometry.shared``: a max pool's
  windows, a strided convolution's), a work item takes a whole kernel row: the span all its kernel columns
  read is loaded once and each kernel column gathers from it with the same table, from its own first input
  column (the ``Gather``'s base address, the ``GatherMask``'s first column), which reads the input ``KW`` times
  less;
* the padding is four ``store``s of the op's ``pad_value`` (zero unless given: a max pool's is
  ``-inf``): the rows above and below each channel's rectangle (one row of a padding tile per channel,
  ``OH * OW`` apart), and the columns left and right of the copied rows (a narrow padding tile); both
  padding tiles are made before the loop; any store may be empty.

No compute, no cube: bufferize / plan-memory / insert-sync treat it as any elementwise kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctensor.analysis import IM2COL_KIND, kernel_kind
from pyasc.dialects.gather_table import pick_pattern
from pyasc.dialects.target import DEFAULT_TARGET, module_target
from pyasc.dialects.types import element_bytes, is_float
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp, TensorType, i32
from xdsl.passes import ModulePass

from .emitter import OpEmitter
from .errors import TilingError
from .analysis.memory import tile_kernel_bytes
from .kernel_calls import replace_kernel
from .work_items import work_loop

_TILE_BUFFERS = 2  # the loaded tile, double-buffered and stored from where it came in (a TQueBind)


def _memref(t) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def _valid_range(e: OpEmitter, k, d: int, p: int, s: int, size: int, out: int):
    """[lo, hi) of the output positions o whose input position o*s + k*d - p is inside [0, size)."""
    kd = e.muli(k, d)
    lo = e.divui(e.addi(e.subi(e.maxui(kd, p), kd), s - 1), s)  # ceil(max(0, p - kd) / s)
    hi = e.minui(e.divui(e.subi(e.maxui(kd, size - 1 + p + s), kd), s), out)  # floor((size-1+p-kd)/s)+1
    lo = e.minui(lo, out)  # no valid position at all: an empty range at the end
    return lo, e.maxui(hi, lo)


def _valid_static(k: int, d: int, p: int, s: int, size: int, out: int) -> tuple[int, int]:
    """``_valid_range`` of a kernel position known when tiling."""
    lo = min(-(-max(0, p - k * d) // s), out)
    return lo, max(min(max(0, size - 1 + p + s - k * d) // s, out), lo)


def _padding_extent(kernel: int, d: int, p: int, s: int, size: int, out: int) -> int:
    """The most output positions before or after the valid range of any kernel position (``_valid_range``)."""
    most = 0
    for k in range(kernel):
        lo, hi = _valid_static(k, d, p, s, size, out)
        most = max(most, lo, out - hi)
    return most


def _pad(n: int, es: int) -> int:
    align = 32 // es
    return -(-max(n, 1) // align) * align


@dataclass(frozen=True)
class _Geometry:
    """The static sizes of an ``im2col``."""

    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    groups: int
    shape: tuple[int, int, int, int]  # the input's N, C, H, W
    out: tuple[int, int]  # OH, OW
    es: int

    @staticmethod
    def of(op) -> _Geometry:
        kernel, stride, padding, dilation, groups = op.params()
        shape = tuple(op.input.type.get_shape())
        oh = (shape[2] + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
        return _Geometry(kernel, stride, padding, dilation, groups, shape, (oh, op.result.type.get_shape()[2] // oh),
                         element_bytes(op.result.type.element_type))

    @property
    def pitch(self) -> int:
        return _pad(self.out[1], self.es)

    def columns(self, kw: int) -> tuple[int, int, int]:
        """(first valid output column, valid output columns, input column of the first) of kernel column ``kw``."""
        lo, hi = _valid_static(kw, self.dilation[1], self.padding[1], self.stride[1], self.shape[3], self.out[1])
        return lo, hi - lo, lo * self.stride[1] + kw * self.dilation[1] - self.padding[1]

    @property
    def shared(self) -> bool:
        """Whether a work item takes every kernel column of its kernel row: one load of the rows' span for all
        of them, each gathered from it at its own start (``Gather``'s base address); with a column stride and
        several kernel columns, each reading some input column."""
        return self.stride[1] > 1 and self.kernel[1] > 1 and all(self.columns(k)[1] for k in range(self.kernel[1]))

    def shared_span(self) -> tuple[int, int, int]:
        """(first input column, columns loaded, the window's pitch) of a shared item: the span every kernel
        column reads, in a pitch that keeps each one's gather offsets inside the window."""
        cols = [self.columns(k) for k in range(self.kernel[1])]
        first = min(w0 for _, _, w0 in cols)
        last = max(w0 + (n - 1) * self.stride[1] + 1 for _, n, w0 in cols)
        reach = max(w0 - first + (self.out[1] - 1) * self.stride[1] + 1 for _, _, w0 in cols)
        return first, last - first, _pad(max(reach, last - first), self.es)

    def pick_starts(self) -> list[int]:
        """The window column each gathered patch starts from: 0, or each kernel column's in a shared item."""
        if not self.shared:
            return [0]
        first = self.shared_span()[0]
        return [self.columns(k)[2] - first for k in range(self.kernel[1])]

    @property
    def picks(self) -> bool:
        """Whether every patch is a ``GatherMask`` pick of the window's columns (``pick_pattern``)."""
        return self.stride[1] > 1 and all(pick_pattern(s, self.stride[1], self.es) for s in self.pick_starts())

    @property
    def span_pitch(self) -> int:  # a row's span of input columns
        pitch = self.shared_span()[2] if self.shared else _pad(self.stride[1] * (self.out[1] - 1) + 1, self.es)
        if self.picks:  # every lane of a patch's pitch picks inside its row
            pitch = max(pitch, _pad(max(self.pick_starts()) + self.stride[1] * (self.pitch - 1) + 1, self.es))
        return pitch

    @property
    def side_pitch(self) -> int:  # the most columns left or right of the valid ones
        return _pad(_padding_extent(self.kernel[1], self.dilation[1], self.padding[1], self.stride[1], self.shape[3],
                                    self.out[1]), self.es)

    def edge_pitch(self, rows: int) -> int:  # the most rows (of ``rows``) above or below the valid ones, as elements
        edge = _padding_extent(self.kernel[0], self.dilation[0], self.padding[0], self.stride[0], self.shape[2],
                               self.out[0])
        return _pad(min(edge, rows) * self.out[1], self.es)

    def row_bytes(self) -> int:
        """UB bytes per tile row: the data tiles (with a column stride: the loaded spans and the gathered
        patches, each double-buffered, and the offset table) and the side padding."""
        es = self.es
        if self.stride[1] == 1:
            return (_TILE_BUFFERS * self.pitch + self.side_pitch) * es
        patches = self.kernel[1] if self.shared else 1  # a shared item gathers every kernel column's patch
        table = 0 if self.picks else 4 * self.pitch
        return (2 * self.span_pitch + 2 * patches * self.pitch + self.side_pitch) * es + table

    @property
    def channels_chunk(self) -> bool:
        """Whether consecutive channels' input rows are evenly spaced like their output rows."""
        return self.shape[2] == self.stride[0] * self.out[0]


@dataclass
class _Im2colTiler:
    kernel: func.FuncOp
    spec: object
    cores: int

    def run(self) -> func.FuncOp:
        """The gather kernel with the most channels (or output rows) per tile whose planned buffers fit UB
        (the estimate from the tile sizes first; the planner rounds each buffer up, so it is checked)."""
        k = self.kernel
        op = next(o for o in k.body.block.ops if isinstance(o, asctensor.Im2colOp))
        if op.input not in k.body.block.args:
            raise TilingError(f"kernel @{k.sym_name.data}: im2col reads a kernel input")
        geo = _Geometry.of(op)
        oh_, ow_ = geo.out
        budget = self.spec.ub_usable_bytes
        per_row = geo.row_bytes()
        if per_row + geo.edge_pitch(1) * geo.es > budget:
            raise TilingError(f"kernel @{k.sym_name.data}: an output row of {ow_} elements does not fit UB")
        per_channel = oh_ * per_row + geo.edge_pitch(oh_) * geo.es
        cg = geo.shape[1] // geo.groups
        channels, rows = 1, max(1, min(oh_, (budget - geo.edge_pitch(oh_) * geo.es) // per_row))
        if geo.channels_chunk and per_channel <= budget:
            cores = self.cores or self.spec.vector_cores
            positions = geo.shape[0] * geo.groups * geo.kernel[0] * geo.kernel[1]
            chunks = -(-cores // positions)  # enough items for every core
            channels, rows = max(1, min(budget // per_channel, cg, -(-cg // chunks))), oh_
        while True:
            new = self._build(op, geo, channels, rows)
            if (channels, rows) == (1, 1) or tile_kernel_bytes(new) <= budget:
                return new
            if channels > 1:
                channels -= max(1, channels // 8)
            else:
                rows -= 1

    def _build(self, op, geo: _Geometry, channels: int, rows: int) -> func.FuncOp:
        """The gather kernel with tiles of ``channels`` channels of ``rows`` output rows each."""
        k = self.kernel
        (kh_, kw_), (sh, sw), (ph, pw), (dh, dw), groups = op.params()
        n_, c_, h_, w_ = geo.shape
        oh_, ow_ = geo.out
        cg, ohw = c_ // groups, oh_ * ow_
        et = op.result.type.element_type
        es = geo.es
        tile_rows = channels * rows
        data_t = TensorType(et, [tile_rows, geo.pitch])
        span_t = TensorType(et, [tile_rows, geo.span_pitch])
        chunks, channel_chunks = -(-oh_ // rows), -(-cg // channels)
        shared = geo.shared
        kw_items = 1 if shared else kw_  # a shared item takes every kernel column
        items = n_ * groups * kh_ * kw_items * channel_chunks * chunks
        block_dim = max(1, min(self.cores or self.spec.vector_cores, items))

        x_arg = k.body.block.args[0]
        loop = work_loop(k.sym_name.data, [_memref(x_arg.type), _memref(op.result.type)],
                         [x_arg.name_hint or "x", "col"], items, block_dim, 2, op)
        x_gm, col_gm = loop.args
        pre = loop.pre
        fill = pre.value(arith.ConstantOp(FloatAttr(op.padding_value(), et) if is_float(et) else IntegerAttr(0, et)))
        side = pre.value(asctile.SplatOp(fill, TensorType(et, [tile_rows, geo.side_pitch])))
        side.name_hint = "side_pad"
        edge = pre.value(asctile.SplatOp(fill, TensorType(et, [channels, geo.edge_pitch(rows)])))
        edge.name_hint = "edge_pad"
        table = None
        picks = geo.picks
        if sw > 1 and not picks:
            table = pre.value(asctile.GatherOffsetsOp(TensorType(i32, [tile_rows, geo.pitch]), ow_, sw * es,
                                                      geo.span_pitch * es))
            table.name_hint = "offsets"
        b, t = loop.body, loop.item
        chunk = b.remui(t, chunks)
        t = b.divui(t, chunks)
        c0 = b.muli(b.remui(t, channel_chunks), channels)
        t = b.divui(t, channel_chunks)
        kw = None if shared else b.remui(t, kw_)
        t = t if shared else b.divui(t, kw_)
        kh = b.remui(t, kh_)
        t = b.divui(t, kh_)
        g = b.remui(t, groups)
        n = b.divui(t, groups)
        nc = b.minui(b.subi(cg, c0), channels)
        oh0 = b.muli(chunk, rows)
        rv = b.minui(b.subi(oh_, oh0), rows)
        r_lo, r_hi = _valid_range(b, kh, dh, ph, sh, h_, oh_)
        r_lo = b.subi(b.minui(b.maxui(r_lo, oh0), b.addi(oh0, rv)), oh0)
        r_hi = b.subi(b.minui(b.maxui(r_hi, oh0), b.addi(oh0, rv)), oh0)
        r_hi = b.maxui(r_hi, r_lo)
        mid = b.subi(r_hi, r_lo)
        # the rows copied: every channel's valid rows and the rows between them (none when no row is valid)
        copied = b.minui(b.addi(b.muli(b.subi(nc, 1), rv), mid), b.muli(mid, b.muli(nc, rv)))
        # the rectangle read from the input: its first row
        h0 = b.subi(b.minui(b.maxui(b.addi(b.muli(b.addi(oh0, r_lo), sh), b.muli(kh, dh)), ph), ph + h_ - 1), ph)
        channel = b.addi(b.addi(b.muli(n, c_), b.muli(g, cg)), c0)
        row0 = b.addi(b.muli(channel, h_ * w_), b.muli(h0, w_))
        if shared:
            first, span, _ = geo.shared_span()
            window = b.value(asctile.LoadOp(x_gm, b.addi(row0, first), copied, b.index(span), sh * w_, 1, span_t))
            window.name_hint = "window"
            for k in range(kw_):
                c_lo, ncols, w0 = geo.columns(k)
                tile = b.value(asctile.PickColumnsOp(window, data_t, w0 - first, sw) if picks else
                               asctile.GatherOp(window, table, data_t, (w0 - first) * es))
                tile.name_hint = "patch"
                self._store(b, op, geo, tile, col_gm, edge, side, (n, g, kh, b.index(k)), c0, oh0, nc, rv, r_lo, r_hi,
                            copied, b.index(c_lo), b.index(c_lo + ncols))
            return loop.kernel
        c_lo, c_hi = _valid_range(b, kw, dw, pw, sw, w_, ow_)
        w0 = b.subi(b.minui(b.maxui(b.addi(b.muli(c_lo, sw), b.muli(kw, dw)), pw), pw + w_ - 1), pw)
        src = b.addi(row0, w0)
        ncols = b.subi(c_hi, c_lo)
        if sw == 1:
            tile = b.value(asctile.LoadOp(x_gm, src, copied, ncols, sh * w_, 1, data_t))
        else:  # the span (ncols - 1) * sw + 1 of every row (0 when ncols is 0), then every sw-th element
            span = b.subi(b.maxui(b.muli(ncols, sw), sw - 1), sw - 1)  # never below 0 on the way
            window = b.value(asctile.LoadOp(x_gm, src, copied, span, sh * w_, 1, span_t))
            window.name_hint = "window"
            tile = b.value(asctile.PickColumnsOp(window, data_t, 0, sw) if picks else
                           asctile.GatherOp(window, table, data_t))
        tile.name_hint = "patch"
        self._store(b, op, geo, tile, col_gm, edge, side, (n, g, kh, kw), c0, oh0, nc, rv, r_lo, r_hi, copied, c_lo,
                    c_hi)
        return loop.kernel

    @staticmethod
    def _store(b: OpEmitter, op, geo: _Geometry, tile, col_gm, edge, side, where, c0, oh0, nc, rv, r_lo, r_hi, copied,
               c_lo, c_hi) -> None:
        """Store one kernel position's patch (its valid columns ``[c_lo, c_hi)`` of the rows copied) into the chunk's
        rows of col, then the padding: rows above and below each channel's rectangle, columns left and right."""
        n, g, kh, kw = where
        kh_, kw_ = geo.kernel
        cg, (oh_, ow_) = geo.shape[1] // geo.groups, geo.out
        ohw = oh_ * ow_
        position = b.addi(b.muli(b.addi(b.muli(b.addi(b.muli(n, geo.groups), g), kh_), kh), kw_), kw)
        dst = b.addi(b.muli(b.addi(b.muli(position, cg), c0), ohw), b.muli(oh0, ow_))
        dst_mid = b.addi(dst, b.muli(r_lo, ow_))
        b.add(asctile.StoreOp(tile, col_gm, b.addi(dst_mid, c_lo), copied, b.subi(c_hi, c_lo), ow_))
        b.add(asctile.StoreOp(edge, col_gm, dst, nc, b.muli(r_lo, ow_), ohw))
        b.add(asctile.StoreOp(edge, col_gm, b.addi(dst, b.muli(r_hi, ow_)), nc, b.muli(b.subi(rv, r_hi), ow_), ohw))
        b.add(asctile.StoreOp(side, col_gm, dst_mid, copied, c_lo, ow_))
        b.add(asctile.StoreOp(side, col_gm, b.addi(dst_mid, c_hi), copied, b.subi(ow_, c_hi), ow_))


@dataclass(frozen=True)
class TileIm2colPass(ModulePass):
    """Tile every ``im2col`` kernel into a gather kernel on the vector cores (see the module docstring)."""

    name = "tile-im2col"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: every vector core of the target

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == IM2COL_KIND:
                replace_kernel(f, _Im2colTiler(f, spec, self.cores).run())

