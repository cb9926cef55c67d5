"""Gathers and transposes below the tile level: their buffer forms (``vector_bufferizer``) and their Ascend C
(``convert-ascbuf-to-ascendc``).

``asctile.gather_offsets`` -> ``ascbuf.gather_offsets`` -> ``CreateVecIndex`` of one row (from ``first``),
``Maxs`` when ``first`` is negative (the leading lanes repeat column 0), ``Mins`` (lanes past the valid columns
repeat the last one, so every offset stays inside the source), ``Muls`` by the column step (a negative step,
for rows read backwards, then ``Adds`` the offset of the last valid column), with ``blocks`` the row's runs by
doubling (runs ``[k, 2k)`` are runs ``[0, k)`` plus ``k`` block steps; runs narrower than 8 columns double from
the fewest runs of whole 32 B, built lane by lane: ``_narrow_runs``), then the rows by doubling: rows ``[k, 2k)``
are rows ``[0, k)`` plus ``k`` row steps (``Adds``), ``ceil(log2(rows))`` instructions; a ``PipeBarrier<PIPE_V>``
between dependent steps (the table's first reader in the tile loop is ordered after the last step by
insert-sync, like any buffer computed before the loop). ``asctile.gather`` -> ``ascbuf.gather`` -> ``Gather`` with the table
viewed as ``uint32_t`` (``ReinterpretCast``) and the gather's ``base`` as its base address.

``asctile.pick_columns`` -> ``ascbuf.pick_columns`` -> one ``GatherMask`` per 255 rows (counter mode, a built-in
pattern: ``pick_pattern``): each repeat is a row of the source from the 32 B block of ``start``, ``mask`` its
lanes up to the last column picked, and keeps ``dst``'s columns, which follow each other as the destination's rows.

``asctile.phase_transpose`` -> ``ascbuf.phase_transpose`` -> a ``Duplicate`` of zeros over the destination, then
per output row ``q`` and 16 channels ``c0`` one ``TransDataTo5HD``: source block ``i`` is the first pixels of
channel ``c0 + i``'s phase row (channel 0's for the padding channels), destination block ``j`` pixel ``left + j``
of row ``q`` (16-bit types; for 32-bit types pixel ``left + j // 2``, channels ``c0 + 8 * (j % 2)``), repeats walk
the row's pixels a block at a time. Different rows write disjoint pixels; the channel groups of one row write
interleaved blocks of the same pixels, so a ``PipeBarrier<PIPE_V>`` orders them, as for ``transpose``.

``asctile.transpose`` -> ``ascbuf.transpose`` -> one ``TransDataTo5HD`` per 16 columns ``c0`` of the ``R x C``
destination: source block ``i`` is row ``c0 + i`` of the ``C x R`` source, repeats walk ``R`` a block of rows at a
time (``srcRepStride`` 1, ``dstRepStride`` ``C``: a block's rows of the destination); destination block ``j`` is
row ``j`` at column ``c0`` for 16-bit types, and for 32-bit types row ``j // 2`` at column ``c0 + 8 * (j % 2)``.
Consecutive instructions write interleaved blocks of the same rows; the simulator's hazard check and the static
sync analysis compare byte ranges, so a ``PipeBarrier<PIPE_V>`` orders them (these kernels are bound by their
copies, and V has room for it).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, Float32Type, FloatAttr, IntegerAttr, IntegerType, Signedness, i32

from pyasc.dialects import ascbuf, ascendc, asctile
from pyasc.dialects.ascendc import PipeKind, RoundMode
from pyasc.dialects.ascendc.movement import MAX_REPEATS
from pyasc.dialects.gather_table import check_phase_transpose, first_runs, phase_channel, pick_pattern
from pyasc.dialects.types import element_bytes

from .emitter import OpEmitter

UI32 = IntegerType(32, Signedness.UNSIGNED)


def bufferize_gather_offsets(bz, op: asctile.GatherOffsetsOp, dst, e: OpEmitter) -> None:
    blocks = None if op.blocks is None else (op.blocks.value.data, op.block_bytes.value.data)
    first = 0 if op.first is None else op.first.value.data
    e.add(ascbuf.GatherOffsetsOp(dst, op.cols.value.data, op.col_bytes.value.data, op.row_bytes.value.data,
                                 *(blocks or (None, 0)), first=first))


def bufferize_gather(bz, op: asctile.GatherOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.GatherOp(dst, bz.operand(e, op.src), bz.operand(e, op.offsets), bz.count(e, op.result.type),
                          op.base_bytes()))


def _i32(e: OpEmitter, v: int):
    return e.value(arith.ConstantOp(IntegerAttr(v, i32)))


def translate_gather_offsets(lw, op: ascbuf.GatherOffsetsOp, e: OpEmitter) -> None:
    rows, pitch = op.dst.type.get_shape()
    table = lw.tensor(op.dst, e)
    barrier = lambda: e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))  # noqa: E731
    runs = 1 if op.blocks is None else op.blocks.value.data
    cols = op.cols.value.data
    if runs > 1 and cols % 8:
        _narrow_runs(e, table, cols, op.col_bytes.value.data, op.block_bytes.value.data, barrier)
        _doubling(e, table, runs, cols, op.block_bytes.value.data, first_runs(cols))
        _doubling(e, table, rows, pitch, op.row_bytes.value.data)
        return
    n = e.index(pitch // runs)
    first = 0 if op.first is None else op.first.value.data
    e.add(ascendc.CreateVecIndexOp(table, _i32(e, first), n))
    barrier()
    if first:  # the leading columns repeat column 0
        e.add(ascendc.MaxsOp(table, table, _i32(e, 0), n))
        barrier()
    e.add(ascendc.MinsOp(table, table, _i32(e, op.cols.value.data - 1), n))
    barrier()
    col_bytes = op.col_bytes.value.data
    e.add(ascendc.MulsOp(table, table, _i32(e, col_bytes), n))
    if col_bytes < 0:  # rows read backwards: count from the last valid column
        barrier()
        e.add(ascendc.AddsOp(table, table, _i32(e, (op.cols.value.data - 1) * -col_bytes), n))
    if runs > 1:
        _doubling(e, table, runs, pitch // runs, op.block_bytes.value.data)
    _doubling(e, table, rows, pitch, op.row_bytes.value.data)


def _narrow_runs(e: OpEmitter, table, cols: int, col_bytes: int, block_bytes: int, barrier) -> None:
    """The first ``first_runs(cols)`` runs of a table of runs narrower than 8 columns (whole 32 B together):
    lane ``q`` is ``q * col_bytes + floor(q / cols) * (block_bytes - cols * col_bytes)``, the run index from the
    lane's float value (exact for these few lanes); the next two spans of as many lanes hold the float lanes and
    the run indices (the doubling overwrites them)."""
    lanes = first_runs(cols) * cols
    n = e.index(lanes)
    e.add(ascendc.CreateVecIndexOp(table, _i32(e, 0), n))
    barrier()
    wide = e.value(ascendc.ReinterpretCastOp(e.value(ascendc.SubviewOp(table, e.index(lanes))), Float32Type()))
    run = e.value(ascendc.SubviewOp(table, e.index(2 * lanes)))
    e.add(ascendc.CastOp(wide, table, n, RoundMode.CAST_NONE))
    barrier()
    e.add(ascendc.AddsOp(wide, wide, _f32(e, 0.5), n))
    barrier()
    e.add(ascendc.MulsOp(wide, wide, _f32(e, 1.0 / cols), n))
    barrier()
    e.add(ascendc.CastOp(run, wide, n, RoundMode.CAST_FLOOR))
    e.add(ascendc.MulsOp(table, table, _i32(e, col_bytes), n))
    barrier()
    e.add(ascendc.MulsOp(run, run, _i32(e, block_bytes - cols * col_bytes), n))
    barrier()
    e.add(ascendc.AddOp(table, table, run, n))


def _f32(e: OpEmitter, v: float):
    return e.value(arith.ConstantOp(FloatAttr(v, Float32Type())))


def _doubling(e: OpEmitter, table, n: int, size: int, step: int, k: int = 1) -> None:
    """Parts ``[k, 2k)`` of ``n`` parts of ``size`` elements are parts ``[0, k)`` plus ``k * step``, from ``k``
    parts built."""
    start = k
    while k < n:
        count = min(k, n - k)
        if k == start or count > k // 2:  # parts [0, count) include parts the last step wrote ([k/2, k))
            e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        dst = e.value(ascendc.SubviewOp(table, e.index(k * size)))
        e.add(ascendc.AddsOp(dst, table, _i32(e, k * step), e.index(count * size)))
        k *= 2


def bufferize_phase_transpose(bz, op: asctile.PhaseTransposeOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.PhaseTransposeOp(dst, bz.operand(e, op.src), *op.params()))


def translate_phase_transpose(lw, op: ascbuf.PhaseTransposeOp, e: OpEmitter) -> None:
    channels, sh, sw, left, pitch = op.params()
    et = op.dst.type.element_type
    es = et.bitwidth // 8
    per = 32 // es
    rows, ow = check_phase_transpose(op.name, op.src.type.get_shape(), op.dst.type.get_shape(), es, *op.params())
    cp = op.dst.type.get_shape()[1]
    src_pitch = op.src.type.get_shape()[1]
    real = sh * sw * channels
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    zero = FloatAttr(0.0, et) if isinstance(et, AnyFloat) else IntegerAttr(0, et)
    e.add(ascendc.DuplicateOp(dst, e.value(arith.ConstantOp(zero)), e.index(rows * pitch * cp)))
    e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))

    def row_of(k: int, q: int) -> int:  # the source offset of channel k's pixels of output row q
        rh, rw, c = phase_channel(k if k < real else 0, channels, sw)
        return (rw * channels + c) * src_pitch + (q * sh + rh) * ow

    for q in range(rows):
        for c0 in range(0, cp, 16):
            if per == 16:
                dst_list = [(q * pitch + left + j) * cp + c0 for j in range(16)]
            else:
                dst_list = [(q * pitch + left + j // 2) * cp + c0 + 8 * (j % 2) for j in range(16)]
            src_list = [row_of(c0 + i, q) for i in range(16)]
            if c0:  # the row's channel groups write interleaved blocks of the same pixels
                e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
            e.add(ascendc.TransDataTo5HDOp(dst, src, dst_list, src_list, ow // per, cp * es * per // 32, 1))


def bufferize_transpose(bz, op: asctile.TransposeOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.TransposeOp(dst, bz.operand(e, op.src)))


def translate_transpose(lw, op: ascbuf.TransposeOp, e: OpEmitter) -> None:
    """One ``TransDataTo5HD`` per 16 columns of ``dst``, its repeats down the rows; for a 2-byte ``dst`` wider than
    tall, one per 16 rows, its repeats along the columns (fewer calls)."""
    rows, cols = op.dst.type.get_shape()
    per = 32 // (op.dst.type.element_type.bitwidth // 8)
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    if per == 16 and cols // 16 > rows // per and cols // 16 <= MAX_REPEATS:
        for r0 in range(0, rows, 16):  # dst block j: row r0 + j; src block i: row 16 * repeat + i, from column r0
            if r0:
                e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
            e.add(ascendc.TransDataTo5HDOp(dst, src, [(r0 + j) * cols for j in range(16)],
                                           [i * rows + r0 for i in range(16)], cols // 16, 1, rows))
        return
    for c0 in range(0, cols, 16):
        if per == 16:
            dst_list = [j * cols + c0 for j in range(16)]
        else:
            dst_list = [(j // 2) * cols + c0 + 8 * (j % 2) for j in range(16)]
        src_list = [(c0 + i) * rows for i in range(16)]
        if c0:
            e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        e.add(ascendc.TransDataTo5HDOp(dst, src, dst_list, src_list, rows // per, cols, 1))


def bufferize_gather_rows(bz, op: asctile.GatherRowsOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.GatherRowsOp(dst, bz.operand(e, op.src), bz.operand(e, op.offsets)))


def translate_gather_rows(lw, op: ascbuf.GatherRowsOp, e: OpEmitter) -> None:
    """One ``Gatherb`` per 32 B column of blocks: block ``b`` of each row from block ``b`` of the addressed row (the
    source shifted by ``b`` blocks), the rows ``blocks`` blocks apart in ``dst``."""
    rows, cols = op.dst.type.get_shape()
    es = element_bytes(op.dst.type.element_type)
    unsigned = IntegerType(8 * es, Signedness.UNSIGNED)
    blocks = cols * es // 32
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    offsets = e.value(ascendc.ReinterpretCastOp(lw.tensor(op.offsets, e), UI32))
    for b in range(blocks):
        if b:
            e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        d = e.value(ascendc.ReinterpretCastOp(e.value(ascendc.SubviewOp(dst, e.index(b * 32 // es))), unsigned))
        s = e.value(ascendc.ReinterpretCastOp(e.value(ascendc.SubviewOp(src, e.index(b * 32 // es))), unsigned))
        e.add(ascendc.GatherbOp(d, s, offsets, e.index(rows // 8), blocks, 8 * blocks))


def translate_gather(lw, op: ascbuf.GatherOp, e: OpEmitter) -> None:
    offsets = e.value(ascendc.ReinterpretCastOp(lw.tensor(op.offsets, e), UI32))
    e.add(ascendc.GatherOp(lw.tensor(op.dst, e), lw.tensor(op.src, e), offsets, e.index(op.base_bytes()),
                           lw.map.get(op.count, op.count)))


def bufferize_pick_columns(bz, op: asctile.PickColumnsOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.PickColumnsOp(dst, bz.operand(e, op.src), op.start.value.data, op.stride.value.data,
                               op.phase_count()))


def translate_pick_columns(lw, op: ascbuf.PickColumnsOp, e: OpEmitter) -> None:
    _, cols = op.dst.type.get_shape()
    rows, src_cols = op.src.type.get_shape()
    es = op.dst.type.element_type.bitwidth // 8
    stride = op.stride.value.data
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    for p in range(op.phase_count()):
        start = op.start.value.data + p
        base, pattern = pick_pattern(start, stride, es)
        mask = e.index(start - base + stride * (cols - 1) + 1)
        for r0 in range(0, rows, MAX_REPEATS):
            at = (p * rows + r0) * cols
            d = dst if not at else e.value(ascendc.SubviewOp(dst, e.index(at)))
            s = src if not r0 + base else e.value(ascendc.SubviewOp(src, e.index(r0 * src_cols + base)))
            e.add(ascendc.GatherMaskOp(d, s, pattern, True, mask, e.index(1), e.index(min(MAX_REPEATS, rows - r0)),
                                       e.index(src_cols * es // 32)))
