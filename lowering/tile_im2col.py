"""``tile-im2col``: each ``im2col`` kernel becomes a vector-core gather kernel over UB tiles.

``im2col`` (see ``dialects/asctensor/linalg.py``) gives ``col[n, (c, kh, kw), (oh, ow)] =
x_pad[n, c0 + c, oh*sh + kh*dh, ow*sw + kw*dw]``. The gather walks work items ``(n, c, kh, kw,
row chunk)``; for one item the rows ``oh`` of the chunk and the columns ``ow`` that read inside
the input (not the padding) form one rectangle, computed from ``kh``/``kw`` with index arithmetic:

* the rectangle is a ``load`` of the input window (rows ``sh * W`` apart) and a ``store`` into
  ``col`` (rows ``OW`` apart); with a horizontal stride ``sw > 1`` the window's columns are ``sw``
  apart: the load takes the whole span of each row (contiguous) and a vector ``Gather`` picks every
  ``sw``-th element, through a byte-offset table built once per kernel (``gather_offsets``);
* the padding around it is four ``store``s of a zero ``splat`` (above, below, left, right), one tile of
  zeros made before the loop; any of the five may be empty (a zero extent copies nothing).

No compute, no cube: bufferize / plan-memory / insert-sync treat it as any elementwise kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import asctensor, asctile
from pyasc.dialects.asctensor.analysis import IM2COL_KIND, kernel_kind
from pyasc.dialects.target import DEFAULT_TARGET, module_target
from pyasc.dialects.types import element_bytes, is_float
from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from .emitter import OpEmitter, copy_loc
from .errors import TilingError
from .analysis.memory import tile_kernel_bytes
from .kernel_calls import replace_kernel

_TILE_BUFFERS = 4  # the data tile and its copy for the store, each double-buffered
_ZERO_TILES = 1  # the zero tile the padding stores read, filled once before the loop


def _memref(t) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def _valid_range(e: OpEmitter, k, d: int, p: int, s: int, size: int, out: int):
    """[lo, hi) of the output positions o whose input position o*s + k*d - p is inside [0, size)."""
    kd = e.muli(k, d)
    lo = e.divui(e.addi(e.subi(e.maxui(kd, p), kd), s - 1), s)  # ceil(max(0, p - kd) / s)
    hi = e.minui(e.divui(e.subi(e.maxui(kd, size - 1 + p + s), kd), s), out)  # floor((size-1+p-kd)/s)+1
    lo = e.minui(lo, out)  # no valid position at all: an empty range at the end
    return lo, e.maxui(hi, lo)


@dataclass
class _Im2colTiler:
    kernel: func.FuncOp
    spec: object
    cores: int

    def run(self) -> func.FuncOp:
        """The gather kernel with the most output rows per tile whose planned buffers fit UB (the
        estimate from the tile sizes first; the planner rounds each buffer up, so it is checked)."""
        k = self.kernel
        op = next(o for o in k.body.block.ops if isinstance(o, asctensor.Im2colOp))
        if op.input not in k.body.block.args:
            raise TilingError(f"kernel @{k.sym_name.data}: im2col reads a kernel input")
        (_, sw), _, _, _, _ = op.params()[1:]
        es = element_bytes(op.result.type.element_type)
        oh_, ow_ = self._output_rows(op)
        pitch, span_pitch = self._pitches(ow_, sw, es)
        # per output row: the tiles of the module docstring, plus the span tile and the offset table
        per_row = (_TILE_BUFFERS + _ZERO_TILES) * pitch * es + (0 if sw == 1 else 2 * span_pitch * es + 4 * pitch)
        budget = self.spec.ub_usable_bytes
        if per_row > budget:
            raise TilingError(f"kernel @{k.sym_name.data}: an output row of {ow_} elements does not fit UB")
        rows = max(1, min(oh_, budget // per_row))
        while True:
            new = self._build(op, rows)
            if rows == 1 or tile_kernel_bytes(new) <= budget:
                return new
            rows -= 1

    @staticmethod
    def _output_rows(op) -> tuple[int, int]:
        (kh_, _), (sh, _), (ph, _), (dh, _), _, _ = op.params()
        h_ = op.input.type.get_shape()[2]
        oh_ = (h_ + 2 * ph - dh * (kh_ - 1) - 1) // sh + 1
        return oh_, op.result.type.get_shape()[2] // oh_

    @staticmethod
    def _pitches(ow_: int, sw: int, es: int) -> tuple[int, int]:
        align = 32 // es
        pitch = -(-ow_ // align) * align
        span_pitch = -(-(sw * (ow_ - 1) + 1) // align) * align  # a row's span of input columns
        return pitch, span_pitch

    def _build(self, op, rows: int) -> func.FuncOp:
        """The gather kernel with tiles of ``rows`` output rows."""
        k = self.kernel
        (kh_, kw_), (sh, sw), (ph, pw), (dh, dw), cg, group = op.params()
        n_, c_, h_, w_ = op.input.type.get_shape()
        ohw = op.result.type.get_shape()[2]
        et = op.result.type.element_type
        es = element_bytes(et)
        oh_, ow_ = self._output_rows(op)
        pitch, span_pitch = self._pitches(ow_, sw, es)
        zero_t = TensorType(et, [rows, pitch])
        span_t = TensorType(et, [rows, span_pitch])
        chunks = -(-oh_ // rows)
        items = n_ * cg * kh_ * kw_ * chunks
        block_dim = max(1, min(self.cores or self.spec.vector_cores, items))

        x_arg = k.body.block.args[0]
        new = func.FuncOp(k.sym_name.data, ([_memref(x_arg.type), _memref(op.result.type)], []))
        new.attributes[asctile.KERNEL_ATTR] = UnitAttr()
        new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(block_dim, 64)
        new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(2, 64)
        nb = new.body.block
        x_gm, col_gm = nb.args
        x_gm.name_hint, col_gm.name_hint = x_arg.name_hint or "x", "col"

        e = OpEmitter(InsertPoint.at_end(nb), op)
        bid = e.value(asctile.BlockIdxOp())
        bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the launch's block_dim
        lo = e.divui(e.muli(bid, items), bnum)
        hi = e.divui(e.muli(e.addi(bid, 1), items), bnum)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "i"
        nb.add_op(copy_loc(op, scf.ForOp(e.index(0), e.subi(hi, lo), e.index(1), [], body)))
        nb.add_op(func.ReturnOp())

        pre = OpEmitter(InsertPoint.before(nb.last_op.prev_op), op)
        zero_attr = FloatAttr(0.0, et) if is_float(et) else IntegerAttr(0, et)
        ztile = pre.value(asctile.SplatOp(pre.value(arith.ConstantOp(zero_attr)), zero_t))
        ztile.name_hint = "zeros"
        table = None
        if sw > 1:
            table = pre.value(asctile.GatherOffsetsOp(TensorType(i32, [rows, pitch]), ow_, sw * es, span_pitch * es))
            table.name_hint = "offsets"
        b = OpEmitter(InsertPoint.at_end(body), op)
        t = b.addi(lo, body.args[0])
        chunk = b.remui(t, chunks)
        t = b.divui(t, chunks)
        kw = b.remui(t, kw_)
        t = b.divui(t, kw_)
        kh = b.remui(t, kh_)
        t = b.divui(t, kh_)
        c = b.remui(t, cg)
        n = b.divui(t, cg)
        oh0 = b.muli(chunk, rows)
        rv = b.minui(b.subi(oh_, oh0), rows)
        r_lo, r_hi = _valid_range(b, kh, dh, ph, sh, h_, oh_)
        r_lo = b.subi(b.minui(b.maxui(r_lo, oh0), b.addi(oh0, rv)), oh0)
        r_hi = b.subi(b.minui(b.maxui(r_hi, oh0), b.addi(oh0, rv)), oh0)
        r_hi = b.maxui(r_hi, r_lo)
        c_lo, c_hi = _valid_range(b, kw, dw, pw, sw, w_, ow_)
        mid = b.subi(r_hi, r_lo)
        # destination: the item's rows of col
        plane = b.addi(b.muli(b.addi(b.muli(b.addi(b.muli(n, cg), c), kh_), kh), kw_), kw)
        dst = b.addi(b.muli(plane, ohw), b.muli(oh0, ow_))
        # the rectangle read from the input
        h0 = b.subi(b.minui(b.maxui(b.addi(b.muli(b.addi(oh0, r_lo), sh), b.muli(kh, dh)), ph), ph + h_ - 1), ph)
        w0 = b.subi(b.minui(b.maxui(b.addi(b.muli(c_lo, sw), b.muli(kw, dw)), pw), pw + w_ - 1), pw)
        src = b.addi(b.muli(b.addi(b.muli(n, c_), b.addi(c, group * cg)), h_ * w_), b.addi(b.muli(h0, w_), w0))
        dst_mid = b.addi(dst, b.muli(r_lo, ow_))
        ncols = b.subi(c_hi, c_lo)
        if sw == 1:
            tile = b.value(asctile.LoadOp(x_gm, src, mid, ncols, sh * w_, 1, zero_t))
        else:  # the span (ncols - 1) * sw + 1 of every row (0 when ncols is 0), then every sw-th element
            span = b.subi(b.maxui(b.muli(ncols, sw), sw - 1), sw - 1)  # never below 0 on the way
            window = b.value(asctile.LoadOp(x_gm, src, mid, span, sh * w_, 1, span_t))
            window.name_hint = "window"
            tile = b.value(asctile.GatherOp(window, table, zero_t))
        tile.name_hint = "patch"
        b.add(asctile.StoreOp(tile, col_gm, b.addi(dst_mid, c_lo), mid, ncols, ow_))
        # the padding around it
        b.add(asctile.StoreOp(ztile, col_gm, dst, r_lo, b.index(ow_), ow_))
        b.add(asctile.StoreOp(ztile, col_gm, b.addi(dst, b.muli(r_hi, ow_)), b.subi(rv, r_hi), b.index(ow_), ow_))
        b.add(asctile.StoreOp(ztile, col_gm, dst_mid, mid, c_lo, ow_))
        b.add(asctile.StoreOp(ztile, col_gm, b.addi(dst_mid, c_hi), mid, b.subi(ow_, c_hi), ow_))
        body.add_op(scf.YieldOp())
        return new


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

