"""``convert-ascbuf-to-ascendc`` for cube kernels: static local tensors in L1/L0 and the cube API.

A cube kernel always uses static ``LocalTensor``s at their planned addresses and the explicit flags
``bufferize-cube`` placed (``lower_cube_kernel``). The cube's buffer ops:

* ``copy_nz`` -> ``DataCopy(l1, gm[off], Nd2NzParams{1, rows, cols, 0, stride, R, 1, 0})`` with ``R``
  the L1 tile's rows (the distance between its column blocks, in 32 B blocks), after ``InitConstValue``
  zeros for the rows past ``rows`` in the last 16-row fractal when ``rows`` may not be whole fractals;
* ``load_l0`` -> one ``LoadData(l0, l1, LoadData2DParams{...})`` per ``c0``-wide K column of the step, or
  per 16-row M (A) or N (B) fractal when the tile has fewer of those: the loop runs over the shorter
  dimension and each LoadData repeats along the other (A: NZ -> ZZ; B: NZ -> ZN, fractals transposed
  unless the L1 tile already holds B^T);
* a 4-byte B held as K x N (``copy_nz`` of a tile read by a ``load_l0`` of B, not transposed) is stored in
  16-row blocks (``[K/16][N/8][16][8]``: a block's column blocks side by side, so that two consecutive
  fractals are a 16 x 16 square) and moved into L0B by ``LoadDataWithTranspose``, which transposes each
  square into the two 16 x 8 fractals (K columns ``2b`` and ``2b + 1``) of L0B's ZN, one per K block
  (``_load_squares``); the rows past K of the last block are zeroed first. A 4-byte A^T held as K x M
  goes the same way into L0A's ZZ, and Mmad's K is then in whole 16-row blocks;
* ``copy_window`` -> ``DataCopy`` ND2NZ of the window's input rows (``copy_window``), ``load_window_l0`` ->
  ``LoadData`` with ``LoadData3DParamsV2`` into L0B (``load_window_l0``): an implicit GEMM's patches as B;
* ``copy_bias`` -> ``DataCopy(l1, gm[off], Nd2NzParams{1, 1, cols, 0, cols, 1, 1, 0})`` (one ND row: its 32 B
  blocks side by side, the last zero-padded); a row some block fills with an odd number of 32 B blocks is zeroed
  once at the kernel's start (``_declare``: the C1 -> C2 copy reads whole 64 B units);
  ``load_bias`` -> ``DataCopy(bt, l1, DataCopyParams{1, ceil(cols * sizeof(T) / 64), 0, 0})`` (C1 -> C2);
* ``mmad`` -> ``Mmad(c, a, b, MmadParams{m, n, k, 0, false, init})``; with a bias row, ``if (init)
  Mmad(c, a, b, bt, MmadParams{m, n, k, 0, false, false})`` and the accumulating Mmad otherwise;
* ``fixpipe`` -> ``Fixpipe(gm[off], c, FixpipeParamsV220{n, m, ceil16(m), stride, relu, quant})``.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from pyasc.dialects import ascbuf, ascendc
from pyasc.dialects.ascbuf import MemorySpace, memory_space
from pyasc.dialects.ascendc import PipeKind, TPosition
from pyasc.dialects.ascendc.contract import unit_flag_of
from pyasc.dialects.ascendc.cube import QUANT_OF
from pyasc.dialects.types import element_bytes

from pyasc.dialects.ascbuf.analysis import buffer_of

from .analysis.conv import ConvGeometry, c0_of, window_of
from .emitter import OpEmitter, branches, extent_values, when
from .errors import CompileError
from .to_ascendc_kernel import Buffer, KernelLowering

POSITION = {MemorySpace.L0A: TPosition.A2, MemorySpace.L0B: TPosition.B2, MemorySpace.L0C: TPosition.CO1,
            MemorySpace.BT: TPosition.C2}


class CubeKernelLowering(KernelLowering):
    """The generic kernel lowering with cube positions and static tensors."""

    def _classify(self, block: Block) -> None:
        feeds_b = {buffer_of(op.source) for op in block.walk()
                   if (isinstance(op, ascbuf.LoadL0Op) and not op.is_a) or (
                       isinstance(op, ascbuf.LoadWindowL0Op) and memory_space(op.dest.type) == MemorySpace.L0B)}
        feeds_bt = {buffer_of(op.source) for op in block.walk() if isinstance(op, ascbuf.LoadBiasOp)}
        loads = [op for op in block.walk() if isinstance(op, ascbuf.LoadL0Op) and _squares(op)]
        self.squares = {buffer_of(op.source) for op in loads}
        self.squares_a = {buffer_of(op.dest) for op in loads if op.is_a}  # L0A buffers
        for op in block.ops:
            if isinstance(op, ascbuf.AllocOp):
                space = memory_space(op.result.type)
                if space == MemorySpace.L1:
                    role = TPosition.C1 if op in feeds_bt else TPosition.B1 if op in feeds_b else TPosition.A1
                else:
                    role = POSITION[space]
                es = element_bytes(op.result.type.element_type)
                self.buffers[op] = Buffer(op, role, op.slot_bytes // es)

    def _declare(self, e: OpEmitter) -> None:
        """The static tensors; a bias row in L1 that some block's copy leaves an odd number of 32 B blocks
        (``_bias_rows_to_zero``) zeroed once from the shortest copy's end (``InitConstValue``, then, where a longer
        copy writes over the zeroed bytes, an MTE2 barrier before the copies): ``DataCopy`` C1 -> C2 moves whole 64 B
        units, whose bytes must be defined (BiasTable columns past the block's), and the bytes every copy writes
        stay undefined until it does."""
        super()._declare(e)
        if any(isinstance(op, ascbuf.MmadOp) and op.unit_flag is not None for op in self.kernel.body.block.walk()):
            e.add(ascendc.SetMMRowMajorOp())  # results N first, the order the Fixpipe reads them in (UnitFlag.md)
        zero_from = _bias_rows_to_zero(self.kernel.body.block)
        for b in self.buffers.values():
            if b.role == TPosition.C1 and b.alloc in zero_from:
                et = b.alloc.result.type.element_type
                start, overwritten = zero_from[b.alloc]
                row = e.value(ascendc.SubviewOp(b.handle, e.index(start // element_bytes(et))))
                e.add(ascendc.InitConstValueOp(row, e.index(1), e.index((b.alloc.slot_bytes - start) // 32),
                                               e.index(0), e.constant(0, et)))
                if overwritten:
                    e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_MTE2))


def _bias_rows_to_zero(block: Block) -> dict:
    """The L1 bias rows some block's ``copy_bias`` fills with an odd number of 32 B blocks (static shapes: the
    vector's length and the block width, the accumulator's columns), each as (the byte where the shortest
    block's copy ends, whether a longer copy writes past it); (0, True) when the shapes are not known."""
    base_n = next((op.result.type.get_shape()[1] for op in block.ops if isinstance(op, ascbuf.AllocOp)
                   and memory_space(op.result.type) == MemorySpace.L0C), None)
    out = {}
    for op in block.walk():
        if isinstance(op, ascbuf.CopyBiasOp):
            n = prod(op.source.type.get_shape())
            c0 = 32 // element_bytes(op.dest.type.element_type)
            blocks = None if base_n is None else [-(-min(base_n, n - n0) // c0) for n0 in range(0, n, base_n)]
            if blocks is None or any(x % 2 for x in blocks):
                out[buffer_of(op.dest)] = (0, True) if blocks is None else (min(blocks) * 32, max(blocks) > min(blocks))
    return out


def _squares(op: ascbuf.LoadL0Op) -> bool:
    """Whether ``op`` loads a 4-byte B held as K x N or A^T held as K x M (L1 in 16-row blocks,
    ``LoadDataWithTranspose``)."""
    return (op.transposed is not None) == op.is_a and element_bytes(op.source.type.element_type) == 4


def lower_cube_kernel(kernel, sync_style: str, translators):
    """The ``ascendc`` kernel of a cube ``kernel`` (always static tensors and explicit flags)."""
    return CubeKernelLowering(kernel, False, translators).run()


def copy_nz(low, op: ascbuf.CopyNzOp, e: OpEmitter) -> None:
    m = low.map
    dst = low.tensor(op.dest, e)
    src = e.value(ascendc.SubviewOp(low.gm[op.source], m[op.offset]))
    rows_cap = op.dest.type.get_shape()[0]
    if op.transposed is None and buffer_of(op.dest) in low.squares:
        _copy_blocks(e, dst, src, op, m[op.rows], m[op.cols])
        return
    if op.transposed is None:
        _zero_unwritten(e, dst, op, m[op.rows], m[op.cols])
        e.add(ascendc.DataCopyNd2NzOp(dst, src, e.index(1), m[op.rows], m[op.cols], e.index(0),
                                      e.index(op.stride.value.data), e.index(rows_cap), e.index(1), e.index(0)))
        return
    # the transpose through the DMA: per 32 B column block of the tile, up to c0 GM rows, each an
    # ND matrix of ``cols`` rows of one element (dValue = 1) landing in one column of the block
    c0 = 32 // element_bytes(op.dest.type.element_type)
    rows, cols = m[op.rows], m[op.cols]
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "j"
    e.add(scf.ForOp(e.index(0), e.divui(e.addi(rows, c0 - 1), c0), e.index(1), [], body))
    be = OpEmitter(InsertPoint.at_end(body), e.loc_from)
    j = body.args[0]
    nd = be.minui(be.subi(rows, be.muli(j, c0)), c0)
    d = be.value(ascendc.SubviewOp(dst, be.muli(j, rows_cap * c0)))
    s_ = be.value(ascendc.SubviewOp(src, be.muli(j, c0 * op.stride.value.data)))
    be.add(ascendc.DataCopyNd2NzOp(d, s_, nd, cols, be.index(1), be.index(op.stride.value.data), be.index(1),
                                   be.index(1), be.index(1), be.index(1)))
    be.add(scf.YieldOp())


ND_STRIDE_MAX = 65535  # Nd2NzParams.srcNdMatrixStride is a uint16_t


def _copy_blocks(e: OpEmitter, dst, src, op: ascbuf.CopyNzOp, rows, cols) -> None:
    """GM rows -> L1 in 16-row blocks ``[rows/16][cols_cap/8][16][8]``: the whole blocks in one ND2NZ of
    ``ndNum`` 16-row matrices (a loop of ND2NZs when 16 GM rows are further apart than ``srcNdMatrixStride``
    reaches), then the last partial block after zeroing its rows past ``rows`` (Mmad reads K in whole
    fractals; the zeroing's MTE2 barrier orders it before the ND2NZ next to it). An odd number of column
    blocks leaves the second half of the last square unwritten: it is zeroed too (the N columns past
    ``cols`` of L0B, which Mmad reads), ordered before the ND2NZs by an MTE2 barrier."""
    cap = op.dest.type.get_shape()[1]
    stride = op.stride.value.data
    c0 = 32 // element_bytes(op.dest.type.element_type)
    blk = 16 * cap  # elements of one 16-row block in L1
    full = e.divui(rows, 16)
    col_blocks = e.divui(e.addi(cols, c0 - 1), c0)
    cols_can = extent_values(op.cols)
    if cols_can is None or any(-(-x // c0) % 2 for x in cols_can):
        odd = e.remui(col_blocks, 2)
        always = cols_can is not None and all(-(-x // c0) % 2 for x in cols_can)
        oe = e if always else when(e, e.value(arith.CmpiOp(odd, e.index(0), "ne")))
        oe.add(ascendc.InitConstValueOp(oe.value(ascendc.SubviewOp(dst, oe.muli(col_blocks, 16 * c0))),
                                        oe.divui(oe.addi(rows, 15), 16), oe.index(16), oe.index(blk // c0 - 16),
                                        oe.constant(0, op.dest.type.element_type)))
        oe.add(ascendc.PipeBarrierOp(PipeKind.PIPE_MTE2))  # its span (gaps included) meets the ND2NZs'
    if 16 * stride <= ND_STRIDE_MAX:
        e.add(ascendc.DataCopyNd2NzOp(dst, src, full, e.index(16), cols, e.index(16 * stride), e.index(stride),
                                      e.index(16), e.index(1), e.index(blk)))
    else:
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "b"
        e.add(scf.ForOp(e.index(0), full, e.index(1), [], body))
        be = OpEmitter(InsertPoint.at_end(body), e.loc_from)
        b = body.args[0]
        d = be.value(ascendc.SubviewOp(dst, be.muli(b, blk)))
        s_ = be.value(ascendc.SubviewOp(src, be.muli(b, 16 * stride)))
        be.add(ascendc.DataCopyNd2NzOp(d, s_, be.index(1), be.index(16), cols, be.index(0), be.index(stride),
                                       be.index(16), be.index(1), be.index(0)))
        be.add(scf.YieldOp())
    rows_can = extent_values(op.rows)
    if rows_can is not None and all(x % 16 == 0 for x in rows_can):
        return
    tail = e.remui(rows, 16)
    always = rows_can is not None and all(x % 16 for x in rows_can)
    te = e if always else when(e, e.value(arith.CmpiOp(tail, e.index(0), "ne")))
    base = te.muli(full, blk)
    te.add(ascendc.InitConstValueOp(te.value(ascendc.SubviewOp(dst, te.addi(base, te.muli(tail, c0)))),
                                    col_blocks, te.subi(te.index(16), tail), tail,
                                    te.constant(0, op.dest.type.element_type)))
    te.add(ascendc.PipeBarrierOp(PipeKind.PIPE_MTE2))
    te.add(ascendc.DataCopyNd2NzOp(te.value(ascendc.SubviewOp(dst, base)),
                                   te.value(ascendc.SubviewOp(src, te.muli(full, 16 * stride))), te.index(1), tail,
                                   cols, te.index(0), te.index(stride), te.index(16), te.index(1), te.index(0)))


def _zero_unwritten(e: OpEmitter, dst, op: ascbuf.CopyNzOp, rows, cols) -> None:
    """Zero (InitConstValue, on MTE2 before the ND2NZ) the rows of the L1 tile that LoadData reads but the
    ND2NZ of ``rows x cols`` leaves unwritten: LoadData moves whole 16-row fractals, so in each column
    block it writes, the rows from ``rows`` up to the next multiple of 16 (the K rows of B past ``k``
    must be zeros: Mmad reads K in whole fractals). LoadData reads only the column blocks the ND2NZ
    writes, whose row tails the ND2NZ pads with zeros, and never the rows past the last fractal. The
    zeroing and the MTE2 barrier after it (the ND2NZ's blocks next to the zeroed ones wait) run under
    an ``if`` on the extent, so the whole tiles of a kernel with tails pay nothing; none is emitted where no tile's
    extent (``extent_values``) leaves a partial fractal, and no ``if`` where every one does."""
    et = op.dest.type.element_type
    rows_cap = op.dest.type.get_shape()[0]
    c0 = 32 // element_bytes(et)
    rows_can = extent_values(op.rows)
    if rows_can is not None and all(x % 16 == 0 for x in rows_can):
        return
    pad = e.subi(e.muli(e.divui(e.addi(rows, 15), 16), 16), rows)
    always = rows_can is not None and all(x % 16 for x in rows_can)
    te = e if always else when(e, e.value(arith.CmpiOp(pad, e.index(0), "ne")))
    written = te.divui(te.addi(cols, c0 - 1), c0)
    tail = te.value(ascendc.SubviewOp(dst, te.muli(rows, c0)))
    te.add(ascendc.InitConstValueOp(tail, written, pad, te.subi(rows_cap, pad), te.constant(0, et)))
    te.add(ascendc.PipeBarrierOp(PipeKind.PIPE_MTE2))


def load_l0(low, op: ascbuf.LoadL0Op, e: OpEmitter) -> None:
    m = low.map
    et = op.source.type.element_type
    es = element_bytes(et)
    c0 = 32 // es
    frac = 16 * c0  # elements of one 512 B fractal
    src_rows, _ = op.source.type.get_shape()
    k_l0 = op.dest.type.get_shape()[1 if op.is_a else 0]
    k1s = k_l0 // c0
    transposed = op.transposed is not None
    # does the fractal need a transposition on the way? (B in K x N, or A held as K x M)
    flip = transposed if op.is_a else not transposed
    if _squares(op):
        _load_squares(low, op, e)
        return
    if flip and es != 2:
        raise CompileError(f"LoadData transposes 16x16 fractals of 2-byte types only; a {et} matmul needs "
                           f"{'A as M x K' if op.is_a else 'B as N x K (transpose_b)'}")
    src = low.tensor(op.source, e)
    dst = low.tensor(op.dest, e)
    kk, kv, ext = m[op.step], m[op.kvalid], m[op.extent]
    k1v = e.divui(e.addi(kv, c0 - 1), c0)
    x1v = e.divui(e.addi(ext, 15), 16)  # M1 (A) or N1 (B) of the valid extent
    r1 = src_rows // 16
    col0 = e.muli(kk, k1s)  # the step's first K fractal column inside the L1 tile
    # fractal (j, x) of the step (K column j, M or N fractal x) is read at src0 + j*sj + x*sx of the L1 tile
    # and written at j*dj + x*dx of L0 (A: ZZ, rows of K fractals; B: ZN, columns of N fractals)
    if op.is_a and not transposed:  # NZ [K1][M][c0] -> ZZ
        src0, sj, sx, dj, dx = e.muli(col0, r1), r1, 1, 1, k1v
    elif op.is_a:  # A^T in NZ [M1][K][16] -> ZZ, fractals transposed
        src0, sj, sx, dj, dx = col0, 1, r1, 1, k1v
    elif not transposed:  # B in NZ [N1][K][16] -> ZN, fractals transposed
        src0, sj, sx, dj, dx = col0, 1, r1, x1v, 1
    else:  # B^T in NZ [K1][N][c0] -> ZN as is
        src0, sj, sx, dj, dx = e.muli(col0, r1), r1, 1, x1v, 1
    x_cap = op.dest.type.get_shape()[0 if op.is_a else 1] // 16
    # one LoadData per K column (its M/N fractals repeated) or per M/N fractal (its K columns repeated):
    # the loop over the shorter of the two dimensions
    if k1s <= x_cap:
        count, repeats, s_outer, s_rep, d_outer, d_rep = k1v, x1v, sj, sx, dj, dx
    else:
        count, repeats, s_outer, s_rep, d_outer, d_rep = x1v, k1v, sx, sj, dx, dj
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "j"
    e.add(scf.ForOp(e.index(0), count, e.index(1), [], body))
    be = OpEmitter(InsertPoint.at_end(body), e.loc_from)
    i = body.args[0]
    start = be.addi(src0, be.muli(i, s_outer))
    dst_off = be.muli(be.muli(i, d_outer), frac)
    stride = s_rep if not isinstance(s_rep, int) else be.index(s_rep)
    gap = be.subi(d_rep, 1) if not isinstance(d_rep, int) else be.index(d_rep - 1)
    d = be.value(ascendc.SubviewOp(dst, dst_off))
    be.add(ascendc.LoadDataOp(d, src, start, repeats, stride, be.index(0), gap, flip))
    be.add(scf.YieldOp())


def _load_squares(low, op: ascbuf.LoadL0Op, e: OpEmitter) -> None:
    """A K step of a 4-byte B (A^T) in L1 in 16-row blocks (see ``_copy_blocks``) -> L0B ZN (L0A ZZ): the
    square of K block ``b`` and N (M) fractal ``x`` becomes fractals ``(2b, x)`` and ``(2b + 1, x)``: B at
    ``2b * N1 + x`` and ``N1`` after it, A at ``x * K1 + 2b`` and the next (``K1``: the step's K in whole
    16-row blocks, see ``mmad``). One LoadDataWithTranspose per K block, repeating over its N (M) squares
    (adjacent in L1: the load reads only squares the copy wrote or zeroed); when the step covers the tile's
    whole width (every square of its blocks written) and has more K blocks than squares per block, one per
    N (M) square instead, repeating over the K blocks (``per_block`` squares apart). The choice is made at run time,
    unless the extents the kernel can take (``extent_values``) make it the same for every tile and step."""
    m = low.map
    src = low.tensor(op.source, e)
    dst = low.tensor(op.dest, e)
    k_l0 = op.dest.type.get_shape()[1 if op.is_a else 0]
    if k_l0 % 16:
        raise CompileError(f"LoadDataWithTranspose moves 16-row blocks of B; a K step of {k_l0} rows is not "
                           f"whole blocks")
    per_block = op.source.type.get_shape()[1] // 16  # squares in one 16-row block of the tile
    frac = 16 * 32 // element_bytes(op.source.type.element_type)
    x1v = e.divui(e.addi(m[op.extent], 15), 16)
    kbv = e.divui(e.addi(m[op.kvalid], 15), 16)
    first = e.muli(e.muli(m[op.step], k_l0 // 16), per_block)  # the step's first square
    xs, ks = extent_values(op.extent), extent_values(op.kvalid)
    known = None if xs is None or ks is None else {
        -(-x // 16) == per_block and -(-x // 16) < -(-k // 16) for x in xs for k in ks}
    if known is not None and len(known) == 1:  # one way for every tile and step of the kernel
        _square_loads(e, op.is_a, src, dst, first, per_block, frac, x1v, kbv, not known.pop())
        return
    along_k = e.value(arith.AndIOp(e.value(arith.CmpiOp(x1v, e.index(per_block), "eq")),
                                   e.value(arith.CmpiOp(x1v, kbv, "ult"))))
    for be, per_k_block in zip(branches(e, along_k), (False, True)):
        _square_loads(be, op.is_a, src, dst, first, per_block, frac, x1v, kbv, per_k_block)


def _square_loads(e: OpEmitter, is_a: bool, src, dst, first, per_block: int, frac: int, x1v, kbv,
                  per_k_block: bool) -> None:
    """The loop of ``_load_squares``: over the K blocks (each load repeating over the ``x1v`` squares) or over
    the squares (each repeating over the ``kbv`` K blocks)."""
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "j"
    e.add(scf.ForOp(e.index(0), kbv if per_k_block else x1v, e.index(1), [], body))
    be = OpEmitter(InsertPoint.at_end(body), e.loc_from)
    i = body.args[0]
    if per_k_block:
        start, repeats, stride = be.addi(first, be.muli(i, per_block)), x1v, be.index(1)
        if is_a:  # ZZ: the 2 * kbv K fractals of an M row adjacent
            d = be.value(ascendc.SubviewOp(dst, be.muli(be.muli(i, 2), frac)))
            gap, fgap = be.subi(be.muli(kbv, 2), 1), be.index(0)
        else:  # ZN: the N fractals of a K column adjacent
            d = be.value(ascendc.SubviewOp(dst, be.muli(be.muli(i, be.muli(x1v, 2)), frac)))
            gap, fgap = be.index(0), be.subi(x1v, 1)
    else:
        start, repeats, stride = be.addi(first, i), kbv, be.index(per_block)
        if is_a:  # square (b, x) -> fractals x * 2kbv + 2b and the next
            d = be.value(ascendc.SubviewOp(dst, be.muli(be.muli(i, be.muli(kbv, 2)), frac)))
            gap, fgap = be.index(1), be.index(0)
        else:  # square (b, x) -> fractals 2b * x1v + x and x1v after it
            d = be.value(ascendc.SubviewOp(dst, be.muli(i, frac)))
            gap, fgap = be.subi(be.muli(x1v, 2), 1), be.subi(x1v, 1)
    be.add(ascendc.LoadDataWithTransposeOp(d, src, start, repeats, stride, gap, fgap))
    be.add(scf.YieldOp())


def mmad(low, op: ascbuf.MmadOp, e: OpEmitter) -> None:
    """K in whole 16-row blocks when A came through LoadDataWithTranspose (its L0A rows hold ``2 * ceil(k / 16)``
    K fractals; the rows of A^T and B past K are zeros in L1)."""
    m = low.map
    k = m[op.k]
    if buffer_of(op.lhs) in low.squares_a:
        k = e.muli(e.divui(e.addi(k, 15), 16), 16)
    operands = (low.tensor(op.dst, e), low.tensor(op.lhs, e), low.tensor(op.rhs, e), m[op.m], m[op.n], k)
    unit_flag = unit_flag_of(op)
    if op.bias is None:
        e.add(ascendc.MmadOp(*operands, m[op.init], unit_flag=unit_flag))
        return
    bias = low.tensor(op.bias, e)
    for be, with_bias in zip(branches(e, m[op.init]), (True, False)):
        be.add(ascendc.MmadOp(*operands, be.value(arith.ConstantOp.from_int_and_width(0, 1)),
                              bias if with_bias else None, unit_flag))


def copy_bias(low, op: ascbuf.CopyBiasOp, e: OpEmitter) -> None:
    m = low.map
    dst = low.tensor(op.dest, e)
    src = e.value(ascendc.SubviewOp(low.gm[op.source], m[op.offset]))
    cols = m[op.cols]
    e.add(ascendc.DataCopyNd2NzOp(dst, src, e.index(1), e.index(1), cols, e.index(0), cols, e.index(1),
                                  e.index(1), e.index(0)))


def load_bias(low, op: ascbuf.LoadBiasOp, e: OpEmitter) -> None:
    m = low.map
    es = element_bytes(op.source.type.element_type)
    units = e.divui(e.addi(e.muli(m[op.cols], es), 63), 64)
    e.add(ascendc.DataCopyL1ToBtOp(low.tensor(op.dest, e), low.tensor(op.source, e), e.index(1), units, e.index(0),
                                   e.index(0)))


def fixpipe(low, op: ascbuf.FixpipeOp, e: OpEmitter) -> None:
    m = low.map
    src = low.tensor(op.source, e)
    dst = e.value(ascendc.SubviewOp(low.gm[op.dest], m[op.offset]))
    rows, cols = m[op.rows], m[op.cols]
    src_stride = e.muli(e.divui(e.addi(rows, 15), 16), 16)
    quant = QUANT_OF[(str(op.source.type.element_type), str(op.dest.type.element_type))]
    e.add(ascendc.FixpipeOp(dst, src, cols, rows, src_stride, e.index(op.stride.value.data), quant,
                            op.relu is not None, unit_flag_of(op)))


def copy_window(low, op: ascbuf.CopyWindowOp, e: OpEmitter) -> None:
    """``DataCopy(l1, gm[image + row * W * C + c1 * C0], Nd2NzParams{1, l1H * W, channels, 0, C, l1H * W, 1,
    0})``: the window's input rows, each pixel's channels of the stage as one ND row, to ``[C1][l1H * W][C0]``
    (a row's channels past C are zero-padded to 32 B)."""
    m = low.map
    g = ConvGeometry.of(op.geometry.get_values(), c0_of(element_bytes(op.dest.type.element_type)))
    row, l1h, _, _, _ = window_of(e, g, m[op.m0], m[op.rows])
    c1_first = e.divui(m[op.k0], g.k_per_c1)
    c1_count = e.divui(m[op.cols], g.k_per_c1)
    channels = e.minui(e.subi(g.c, e.muli(c1_first, g.c0)), e.muli(c1_count, g.c0))
    start = e.addi(m[op.offset], e.addi(e.muli(row, g.w * g.c), e.muli(c1_first, g.c0)))
    src = e.value(ascendc.SubviewOp(low.gm[op.source], start))
    pixels = e.muli(l1h, g.w)
    dst = low.tensor(op.dest, e)
    if -(-g.c // g.c0) % (16 // g.c0):  # the last 16-channel group has a block of C0 no channel reaches
        _zero_empty_blocks(e, dst, op, c1_count, channels, pixels, g.c0)
    e.add(ascendc.DataCopyNd2NzOp(dst, src, e.index(1), pixels, channels, e.index(0),
                                  e.index(g.c), pixels, e.index(1), e.index(0)))


def _zero_empty_blocks(e: OpEmitter, dst, op: ascbuf.CopyWindowOp, blocks, channels, pixels, c0: int) -> None:
    """Zero (InitConstValue, on MTE2 before the ND2NZ) the channel blocks of a window that no channel reaches:
    a float32 stage ends in a whole 16-channel group, two blocks of 8, and with C mod 16 in 1..8 the ND2NZ of
    the last group writes only the first (Load3Dv2 reads both; the weights there are zeros)."""
    written = e.divui(e.addi(channels, c0 - 1), c0)
    empty = e.subi(blocks, written)
    we = when(e, e.value(arith.CmpiOp(empty, e.index(0), "ne")))
    we.add(ascendc.InitConstValueOp(we.value(ascendc.SubviewOp(dst, we.muli(written, we.muli(pixels, c0)))), empty,
                                    pixels, we.index(0), we.constant(0, op.dest.type.element_type)))
    we.add(ascendc.PipeBarrierOp(PipeKind.PIPE_MTE2))


def load_window_l0(low, op: ascbuf.LoadWindowL0Op, e: OpEmitter) -> None:
    """``LoadData(l0, l1, LoadData3DParamsV2{...})``: the patches of K step ``step`` for the window's
    positions, ``ceil16(extent)`` img2col rows from ``mStartPt``, into L0B as B (the img2col matrix transposed,
    ZN: ``Load3D.md``) or into L0A as A (ZZ)."""
    m = low.map
    g = ConvGeometry.of(op.geometry.get_values(), c0_of(element_bytes(op.dest.type.element_type)))
    _, l1h, pad_top, pad_bottom, m_start = window_of(e, g, m[op.m0], m[op.extent])
    shape = op.dest.type.get_shape()  # L0A: [positions, K step]; L0B: [K step, positions]
    k_l0 = shape[1] if memory_space(op.dest.type) == MemorySpace.L0A else shape[0]
    fields = {"pad_left": e.index(g.pw), "pad_right": e.index(g.pw), "pad_top": pad_top, "pad_bottom": pad_bottom,
              "l1_h": l1h, "l1_w": e.index(g.w), "channel_size": e.muli(e.divui(m[op.stage_k], g.k_per_c1), g.c0),
              "k_extension": m[op.kvalid], "m_extension": e.muli(e.divui(e.addi(m[op.extent], 15), 16), 16),
              "k_start_pt": e.muli(m[op.step], k_l0), "m_start_pt": m_start, "stride_w": e.index(g.sw),
              "stride_h": e.index(g.sh), "filter_w": e.index(g.kw), "filter_h": e.index(g.kh),
              "dilation_filter_w": e.index(g.dw), "dilation_filter_h": e.index(g.dh)}
    e.add(ascendc.LoadData3DV2Op(low.tensor(op.dest, e), low.tensor(op.source, e), fields))
