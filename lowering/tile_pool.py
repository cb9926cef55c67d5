"""``tile-pool``: each ``pool`` kernel (one ``asctensor.max_pool2d``) becomes a vector-core kernel over UB tiles.

A work item is one output row ``oh`` of a chunk of ``R`` channels of one image: tile row ``r`` is channel
``c0 + r``. For each kernel row ``i`` the item loads input row ``clamp(oh * sh - ph + i, 0, H - 1)`` of its
channels (``R`` rows ``H * W`` apart in GM, one ``DataCopyPad``), and the vector ``Max`` of the ``KH`` loads
is the column-wise maximum over the window's rows. A clamped row lies inside the window (the padding is at
most half the kernel, so every window holds part of the input), and a maximum does not change when one of its
terms is repeated: the padding never wins, without a ``-inf`` border. For each kernel column ``j`` column
``ow * sw - pw + j`` of every output column ``ow`` is then picked: by a ``GatherMask`` with a built-in pattern
(``pick_columns``, strides 2 and 4) when every output column's tap lies inside the input (the rows' tile is
then wide enough for the picks of its last lanes), else by a ``Gather`` through a byte-offset table built once
per kernel (``gather_offsets`` with ``first``: the output columns left of the input repeat the tap's first
column inside it, those right of it its last one); ``KW - 1`` more ``Max`` join the taps.

So the input is read ``KH / sh`` times (from L2 after the first) and gathered ``KW`` times per output element,
where the im2col form wrote and read back all ``KH * KW`` windows through GM. ``analysis.pool.pool_columns`` says
whether the repeated columns stay inside their windows (the frontend takes this form only then: a ``2x2`` pool
with padding 1 and stride 2 would repeat a column of the window before).

A channels-last pool (``channels_last``: NHWC, from ``asctensor-sink-transposes`` between two convolutions' NHWC
products) has its own form (``_channels_last``): a work item is an output row of an image; its kernel rows are
whole input rows (``W * C`` contiguous elements, one copy each) and their maximum, from which each kernel column
gathers the ``C`` channels of pixel ``ow * sw - pw + j`` for every output pixel: a table of ``OW`` runs of ``C``
columns (``gather_offsets`` with ``blocks``), clamped into the input for the columns whose first or last output
pixel reads past it (a clamped pixel stays inside its window). ``analysis.pool.nhwc_pool_fits`` says when it
applies: runs of whole 32 B, and a row's buffers in UB.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctensor.analysis import POOL_KIND, kernel_kind
from pyasc.dialects.gather_table import pick_pattern
from pyasc.dialects.target import DEFAULT_TARGET, module_target
from pyasc.dialects.types import element_bytes
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, TensorType, i32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from .analysis.memory import tile_kernel_bytes
from .analysis.pool import nhwc_taps, pool_columns
from .errors import TilingError
from .kernel_calls import replace_kernel
from .work_items import work_loop


def _pad(n: int, es: int) -> int:
    align = 32 // es
    return -(-max(n, 1) // align) * align


def _window_max(b, oh, rows_of: tuple, taps: list, out_t, load, sw: int = 1) -> SSAValue:
    """The maximum over a work item's windows: of the ``load``s (of an input row index) of kernel rows
    ``clamp(oh * sh - ph + i, 0, H - 1)`` (inside the window: see the module docstring), then of each kernel
    column's tap from it: the ``Gather`` of its ``(table, base bytes)``, or with no table the pick of every
    ``sw``-th column from column ``base``. ``rows_of``: (KH, sh, ph, H)."""
    kh, sh, ph, h = rows_of
    rows = None
    for i in range(kh):
        row = b.value(load(b.minui(b.subi(b.maxui(b.addi(b.muli(oh, sh), i), ph), ph), h - 1)))
        row.name_hint = f"row{i}"
        rows = row if rows is None else b.value(arith.MaximumfOp(rows, row))
    result = None
    for j, (table, base) in enumerate(taps):
        tap = b.value(asctile.PickColumnsOp(rows, out_t, base, sw) if table is None else
                      asctile.GatherOp(rows, table, out_t, base))
        tap.name_hint = f"tap{j}"
        result = tap if result is None else b.value(arith.MaximumfOp(result, tap))
    return result


@dataclass
class _PoolTiler:
    kernel: func.FuncOp
    spec: object
    cores: int

    def run(self) -> func.FuncOp:
        """The pool kernel with the most channels per tile whose planned buffers fit UB."""
        k = self.kernel
        op = next(o for o in k.body.block.ops if isinstance(o, asctensor.MaxPool2dOp))
        source = op.input
        while isinstance(source.owner, asctensor.ReshapeOp):  # a (C, H, W) image seen as (1, C, H, W)
            source = source.owner.input
        if source not in k.body.block.args:
            raise TilingError(f"kernel @{k.sym_name.data}: max_pool2d reads a kernel input")
        self.source = source
        if op.channels_last is not None:  # loads double-buffered where UB holds them
            for buffers in (2, 1):
                new = self._channels_last(op, buffers)
                if tile_kernel_bytes(new) <= self.spec.ub_usable_bytes:
                    return new
            raise TilingError(f"kernel @{k.sym_name.data}: the channels-last max_pool2d of {op.input.type} needs "
                              f"{tile_kernel_bytes(new)} B of UB for a row of its input, more than "
                              f"{self.spec.ub_usable_bytes} B (analysis.pool.nhwc_pool_fits)")
        n_, c_, h_, w_ = op.input.type.get_shape()
        _, _, oh_, ow_ = op.result.type.get_shape()
        (kh, kw), (sh, sw), (ph, pw) = op.params()
        taps = pool_columns(w_, ow_, kw, sw, pw)
        if taps is None:
            raise TilingError(f"kernel @{k.sym_name.data}: the {kh}x{kw} pool with stride {sw} and padding {pw} "
                              f"of {w_} columns repeats a column outside its window")
        budget = self.spec.ub_usable_bytes
        chunks = 1
        while True:  # channels split evenly into the fewest chunks that fit
            channels = -(-c_ // chunks)
            new = self._build(op, taps, channels)
            if channels == 1 or tile_kernel_bytes(new) <= budget:
                return new
            chunks = -(-c_ // (channels - 1))

    def _build(self, op, taps, channels: int) -> func.FuncOp:
        k = self.kernel
        n_, c_, h_, w_ = op.input.type.get_shape()
        _, _, oh_, ow_ = op.result.type.get_shape()
        (kh, kw), (sh, _), (ph, _) = op.params()
        et = op.result.type.element_type
        es = element_bytes(et)
        sw = op.stride.get_values()[1]
        out_pitch = _pad(ow_, es)
        # kernel columns whose every tap lies inside the input, picked by a GatherMask pattern
        picked = {j for j, (first, cols, start) in enumerate(taps)
                  if first == 0 and cols == ow_ and pick_pattern(start, sw, es)}
        reach = max((taps[j][2] + sw * (out_pitch - 1) + 1 for j in picked), default=0)
        row_t = TensorType(et, [channels, _pad(max(w_, reach), es)])
        out_t = TensorType(et, [channels, out_pitch])
        table_t = TensorType(i32, out_t.get_shape())
        chunks = -(-c_ // channels)
        items = n_ * chunks * oh_
        block_dim = max(1, min(self.cores or self.spec.vector_cores, items))

        x_arg = self.source
        out_shape = k.body.block.last_op.operands[0].type.get_shape()
        w = work_loop(k.sym_name.data, [MemRefType(et, x_arg.type.get_shape()), MemRefType(et, out_shape)],
                      [x_arg.name_hint or "x", "out"], items, block_dim, 2, op)
        x_gm, out_gm = w.args
        tables, made = [], {}
        for j, (first, cols, start) in enumerate(taps):  # kernel columns with the same clamps share a table
            if j in picked:
                tables.append((None, start))
                continue
            table = made.get((first, cols))
            if table is None:
                table = made[(first, cols)] = w.pre.value(asctile.GatherOffsetsOp(
                    table_t, cols, op.stride.get_values()[1] * es, row_t.get_shape()[1] * es, first=first))
                table.name_hint = f"offsets{len(made) - 1}"
            tables.append((table, start * es))

        b, t = w.body, w.item
        oh = b.remui(t, oh_)
        t = b.divui(t, oh_)
        c0 = b.muli(b.remui(t, chunks), channels)
        n = b.divui(t, chunks)
        nc = b.minui(b.subi(c_, c0), channels)
        plane = b.muli(b.addi(b.muli(n, c_), c0), h_ * w_)
        result = _window_max(b, oh, (kh, sh, ph, h_), tables, out_t,  # the input row of every channel of the chunk
                             lambda r: asctile.LoadOp(x_gm, b.addi(plane, b.muli(r, w_)), nc, b.index(w_), h_ * w_, 1,
                                                      row_t), sw)
        dst = b.addi(b.muli(b.addi(b.muli(n, c_), c0), oh_ * ow_), b.muli(oh, ow_))  # (the result's reshapes too)
        b.add(asctile.StoreOp(result, out_gm, dst, nc, b.index(ow_), oh_ * ow_))
        return w.kernel

    def _channels_last(self, op, buffers: int) -> func.FuncOp:
        """An NHWC pool: a work item is an output row of an image, its kernel rows are whole input rows (``W * C``
        contiguous elements), their maximum; each kernel column gathers the ``C`` channels of its pixel for every
        output pixel (rows of runs: ``gather_offsets`` with ``blocks``, the pixels clamped into the input)."""
        k = self.kernel
        n_, h_, w_, c_ = op.input.type.get_shape()
        _, oh_, ow_, _ = op.result.type.get_shape()
        (kh, kw), (sh, sw), (ph, pw) = op.params()
        et = op.result.type.element_type
        es = element_bytes(et)
        if c_ * es % 32:
            raise TilingError(f"kernel @{k.sym_name.data}: a channels-last max_pool2d gathers runs of whole 32 B of "
                              f"channels; {c_} channels of {et} are {c_ * es} B (analysis.pool.nhwc_pool_fits)")
        row_t, out_t = TensorType(et, [1, _pad(w_ * c_, es)]), TensorType(et, [1, ow_ * c_])
        table_t = TensorType(i32, [1, ow_ * c_])
        items = n_ * oh_
        block_dim = max(1, min(self.cores or self.spec.vector_cores, items))
        out_shape = k.body.block.last_op.operands[0].type.get_shape()
        w = work_loop(k.sym_name.data, [MemRefType(et, self.source.type.get_shape()), MemRefType(et, out_shape)],
                      [self.source.name_hint or "x", "out"], items, block_dim, buffers, op)
        x_gm, out_gm = w.args
        pre, pixel = w.pre, c_ * es
        runs = pre.value(asctile.GatherOffsetsOp(table_t, c_, es, 0, blocks=ow_, block_bytes=sw * pixel))
        runs.name_hint = "offsets"
        low = None
        taps = []
        for shift, left, right in nhwc_taps(w_, ow_, kw, sw, pw):
            if not (left or right):  # every pixel inside: the runs' table from the tap's first pixel
                taps.append((runs, shift * pixel))
                continue
            if low is None:  # each channel's first byte, the lowest offset a clamped tap reads
                low = pre.value(asctile.GatherOffsetsOp(table_t, c_, es, 0, blocks=ow_, block_bytes=0))
            table = pre.value(arith.AddiOp(runs, self._splat(pre, shift * pixel, table_t)))
            if left:
                table = pre.value(arith.MaxSIOp(table, low))
            if right:
                table = pre.value(arith.MinSIOp(table, pre.value(arith.AddiOp(
                    low, self._splat(pre, (w_ - 1) * pixel, table_t)))))
            table.name_hint = "clamped"
            taps.append((table, 0))

        b, t = w.body, w.item
        oh = b.remui(t, oh_)
        n = b.divui(t, oh_)
        result = _window_max(b, oh, (kh, sh, ph, h_), taps, out_t,  # the whole input row of the image
                             lambda r: asctile.LoadOp(x_gm, b.muli(b.addi(b.muli(n, h_), r), w_ * c_), b.index(1),
                                                      b.index(w_ * c_), w_ * c_, 1, row_t))
        b.add(asctile.StoreOp(result, out_gm, b.muli(b.addi(b.muli(n, oh_), oh), ow_ * c_), b.index(1),
                              b.index(ow_ * c_), ow_ * c_))
        return w.kernel

    @staticmethod
    def _splat(e, value: int, table_t) -> SSAValue:
        return e.value(asctile.SplatOp(e.value(arith.ConstantOp(IntegerAttr(value, i32))), table_t))


@dataclass(frozen=True)
class TilePoolPass(ModulePass):
    """Tile every ``pool`` kernel into a vector-core kernel of loads, maxima and gathers (see the module
    docstring)."""

    name = "tile-pool"
    INPUT_LEVEL = "tiling"

    target: str = DEFAULT_TARGET
    cores: int = 0  # 0: every vector core of the target

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        spec = module_target(op, self.target)
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and kernel_kind(f) == POOL_KIND:
                replace_kernel(f, _PoolTiler(f, spec, self.cores).run())
