"""Code generation for ``CreateVecIndex``, ``Gather``, ``Gatherb``, ``GatherMask`` and ``TransDataTo5HD``.

``Gather`` reads ``count`` uint32 byte offsets and collects the addressed elements of ``src``;
an offset that is not a multiple of the element size or leaves UB is an error. Its read region
for the hazard checker spans ``src`` from the smallest offset to the largest; the record ends with the
offsets (relative to that region), so the initcheck follows each lane from the element it reads. Cost [O]: the fixed cost of a
vector instruction plus ``count / gather_elems_per_cycle`` cycles; ``CreateVecIndex`` (the op class's
``numpy_operation``) costs what a simple vector op writing ``count`` elements does.

``Gatherb`` copies ``8 * repeatTime`` DataBlocks: block ``8r + i`` of ``dst`` (``r * dstRepStride + i *
dstBlkStride`` blocks in) from byte ``offset[8r + i]`` of ``src``; a repeat count outside 1..255, an offset that
is negative, not a multiple of 32 or leaves UB, or an operand not 32 B aligned is an error (``Gatherb(ISASI).md``).
Its record spans the blocks it writes (a block pattern when the repeats follow each other), the source from the
smallest offset to the largest block's end, and the offsets. Cost [O]: the fixed cost of a vector instruction plus
the bytes it moves at ``gatherb_bytes_per_cycle``.

``GatherMask`` (a built-in pattern) keeps the lanes of every repeat the pattern selects, one after another
(``gather_mask_lanes``: the source element of each element written). With constant parameters the lanes are
fixed when translated: repeats of contiguous blocks (``src0BlockStride`` 1) are one strided copy, others fancy
indexing; with run-time parameters the lanes are computed (and kept) per parameter set. Its record spans what
it writes and reads and ends with the lanes, so the initcheck follows each lane. Its checks: the field ranges
(``gathermask-field-range``), UB bounds and alignment, the operands' extents. Cost [O]: the fixed cost of a
vector instruction plus ``gather_mask_repeat_cycles`` per 256 B of the source a repeat reads.

``TransDataTo5HD`` moves the elements its op lists (``element_offsets``, fixed when translated): as one strided
copy where they are a 16-column transpose (``column_transpose``: what ``tile-movement`` emits), else by fancy
indexing. Its record spans the blocks it writes and reads and ends with both element maps, so
the initcheck follows each element from the one it reads. Its checks: UB bounds and the operands' extents,
and overlap (``trans5hd-no-overlap``: a repeat's destination blocks are its own source blocks or meet none).
Cost [O]: the fixed cost of a vector instruction plus 512 B per repeat at ``transpose_bytes_per_cycle``.
"""

from __future__ import annotations

from functools import lru_cache, partial

import numpy as np

from pyasc.dialects import ascendc as asc

from .codegen import (
    KernelTranslator,
    counts,
    fail_if,
    negative_test,
    pipe_index,
    record,
    ub_message,
    ub_test,
    ub_view,
    vector_cost,
    vector_prologue,
)
from .contract import check_extents
from .opinfo import WORK


def create_vec_index(t: KernelTranslator, op: asc.CreateVecIndexOp) -> None:
    sid, et, sh, (d,), per, n, nb = vector_prologue(t, op, [op.dst], (True,))
    t.emit(f"{t.const(op.numpy_operation, 'F')}({ub_view(et, sh, d, n)}, {t.v(op.first_value)})")
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb)])


def gather(t: KernelTranslator, op: asc.GatherOp) -> None:
    et, es, sh = t.local_dtype(op.dst)
    oet, oes, osh = t.local_dtype(op.src_offset)
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False, False))
    d, s, o = t.v(op.dst), t.v(op.src), t.v(op.src_offset)
    n, nb = counts(t, op, es, False, sid)
    ob = str(int(n) * oes) if n.isdigit() else f"{n} * {oes}"
    fail_if(t, negative_test(n) + ub_test([d, s], nb) + f" or {ub_test([o], ob)}", sid, ub_message([d, s, o], nb))
    t.emit(f"_g = {ub_view(oet, osh, o, n)}.astype(np.int64) + {t.v(op.src_base_addr)}")
    t.emit(f"_ge = int(_g.max()) + {es} if {n} else 0")
    fail_if(t, f"{n} and (int(_g.min()) < 0 or bool((_g % {es}).any()) or {s} + _ge > UBN)", sid,
            f"'Gather: a byte offset is negative, not a multiple of {es} or past the end of UB'")
    t.emit(f"{ub_view(et, sh, d, n)}[:] = U_{et}[({s} + _g) >> {sh}]")
    t.emit(f"_gc = {t.const(gather_lanes, 'F')}(_g) if {n} else (0, b'')")
    sp = t.spec
    cost = f"{vector_cost(t, nb, 0)} + ({n} + {sp.gather_elems_per_cycle - 1}) // {sp.gather_elems_per_cycle}"
    record(t, sid, cost, "0", [(d, nb), (f"{s} + _gc[0]", "_ge - _gc[0]"), (o, ob)], ("1", "_gc[1]"))


_LANES: dict[bytes, bytes] = {}
_LANES_BYTES = 1 << 24  # the offsets kept for sharing, at most


def gatherb(t: KernelTranslator, op: asc.GatherbOp) -> None:
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False, False))
    d, s, o, r = t.v(op.dst), t.v(op.src), t.v(op.offset), t.v(op.repeat_time)
    bs, rs = op.dst_blk_stride.value.data, op.dst_rep_stride.value.data
    fail_if(t, f"not 0 < {r} <= 255 or ({d} | {s} | {o}) & 31 or {o} + {r} * 32 > UBN", sid,
            "'Gatherb: repeatTime outside 1..255, an operand not 32 B aligned or the offsets past the end of UB'")
    t.emit(f"_g = np.asarray(U_ui32[{o} >> 2:({o} >> 2) + {r} * 8]).astype(np.int64)")
    t.emit("_g = _g.reshape(-1, _g.shape[-1])")  # a group of cores: one row each, which must agree
    fail_if(t, "bool((_g != _g[0]).any())", sid, "'Gatherb: the cores of a group gather different blocks'")
    t.emit("_g = _g[0]")
    fail_if(t, f"int(_g.min()) < 0 or bool((_g & 31).any()) or {s} + int(_g.max()) + 32 > UBN", sid,
            "'Gatherb: an offset is negative, not a multiple of 32 or past the end of UB'")
    t.emit(f"_gd = {d} + (np.arange({r})[:, None] * {rs * 32} + np.arange(8) * {bs * 32}).reshape(-1)")
    fail_if(t, f"int(_gd.max()) + 32 > UBN", sid, "'Gatherb: the destination blocks run past the end of UB'")
    t.emit(f"U_ui8[(_gd[:, None] + np.arange(32)).reshape(-1)] = U_ui8[({s} + _g[:, None] + np.arange(32))"
           f".reshape(-1)]")
    t.emit(f"_gs = int(_g.min()); _ge = int(_g.max()) + 32")
    span = f"int(_gd.max()) + 32 - {d}"
    pattern = ("0", "32", str(bs * 32)) if rs == 8 * bs else None
    cost = f"{t.spec.vector_fixed_cycles} + ({r} * 256 + {t.spec.gatherb_bytes_per_cycle - 1}) // " \
           f"{t.spec.gatherb_bytes_per_cycle}"
    record(t, sid, cost, "0", [(d, span), (f"{s} + _gs", "_ge - _gs"), (o, f"{r} * 32")], pattern)


def gather_lanes(g: np.ndarray) -> tuple[int, bytes]:
    """(smallest offset, the offsets less the smallest as int64 bytes) of a Gather with byte offsets ``g``
    (one row per core in a group: the first when they agree); equal offsets share one bytes object, so the
    records of a loop's Gathers hold one copy."""
    g = g[0] if g.ndim == 2 and (g == g[0]).all() else g.reshape(-1)
    first = int(g.min())
    key = (np.asarray(g, dtype=np.int64) - first).tobytes()
    if len(_LANES) * len(key) > _LANES_BYTES:
        _LANES.clear()
    return first, _LANES.setdefault(key, key)


def gather_mask(t: KernelTranslator, op: asc.GatherMaskOp) -> None:
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False))
    d, s = t.v(op.dst), t.v(op.src)
    counter = bool(op.reduce_mode.value.data)
    fields = [op.mask, op.src_block_stride, op.repeat_times, op.src_repeat_stride]
    values = [t.consts.get(f) for f in fields]
    sp = t.spec
    plan = t.const(partial(gather_mask_plan, op.pattern.value.data, counter, es, sp.repeat_bytes,
                           sp.vector_fixed_cycles, sp.gather_mask_repeat_cycles), "F")
    if any(v is None for v in values):  # run-time parameters: the plan per parameter set
        t.emit(f"_gm = {plan}({', '.join(t.v(f) for f in fields)})")
        fail_if(t, "_gm is None", sid, "'GatherMask: a GatherMaskParams field or the mask is outside its range'")
        copy, nb, hi, cost, lanes = "_gm[0]", "_gm[1]", "_gm[2]", "_gm[3]", "_gm[4]"
    else:
        fixed = gather_mask_plan(op.pattern.value.data, counter, es, sp.repeat_bytes, sp.vector_fixed_cycles,
                                 sp.gather_mask_repeat_cycles, *values)
        if fixed is None:
            t.emit(f"_rule('gathermask-field-range', {sid}, bid, 'GatherMask: mask {values[0]}, src0BlockStride "
                   f"{values[1]}, repeatTimes {values[2]} or src0RepeatStride {values[3]} is outside its range')")
            fixed = gather_mask_plan(op.pattern.value.data, counter, es, sp.repeat_bytes, sp.vector_fixed_cycles,
                                     sp.gather_mask_repeat_cycles, 0, 0, 0, 0)
        copyf, nbv, hiv, costv, lanesv = fixed
        copy, nb, hi, cost, lanes = t.const(copyf, "F"), str(nbv), str(hiv), repr(costv), t.const(lanesv)
    fail_if(t, f"{ub_test([d], nb)} or {ub_test([s], hi)}", sid, ub_message([d, s], f"max({nb}, {hi})"))
    check_extents(t, sid, op.API, [(op.dst, d, nb), (op.src, s, hi)])
    t.emit(f"{copy}(U_{et}, {d} >> {sh}, {s} >> {sh})")
    record(t, sid, cost, "0", [(d, nb), (s, hi)], ("1", lanes))


def gather_mask_lanes(pattern: int, counter: bool, per_block: int, repeat_elems: int, mask: int, block_stride: int,
                      repeats: int, repeat_stride: int) -> np.ndarray:
    """The source element (from ``src0``) of each element a ``GatherMask`` writes, in order: repeat ``r`` reads
    ``mask`` elements (counter mode) or a repeat's ``repeat_elems`` (normal mode) in blocks of ``per_block``,
    ``block_stride`` blocks apart, from block ``r * repeat_stride``, and keeps the lanes its pattern selects."""
    period, lane = asc.GATHER_MASK_PATTERNS[pattern]
    i = np.arange(mask if counter else repeat_elems, dtype=np.int64)
    i = i[i % period == lane]
    within = (i // per_block) * block_stride * per_block + i % per_block
    return (np.arange(repeats, dtype=np.int64)[:, None] * (repeat_stride * per_block) + within[None, :]).reshape(-1)


@lru_cache(maxsize=256)
def gather_mask_plan(pattern: int, counter: bool, es: int, repeat_bytes: int, fixed_cycles: int, repeat_cycles: int,
                     mask: int, block_stride: int, repeats: int, repeat_stride: int):
    """(copy(u, dst element, src element), bytes written, bytes reached in the source, cycles, the lanes' byte
    offsets for the initcheck) of a ``GatherMask``; None when a field is outside its range."""
    limits = asc.GATHER_MASK_FIELDS
    if not (0 <= block_stride <= limits["src_block_stride"] and 0 <= repeats <= limits["repeat_times"]
            and 0 <= repeat_stride <= limits["src_repeat_stride"] and (not counter or 1 <= mask < 2 ** 32)):
        return None
    per_block = 32 // es
    lanes = gather_mask_lanes(pattern, counter, per_block, repeat_bytes // es, mask, block_stride, repeats,
                              repeat_stride)
    n = lanes.size
    hi = (int(lanes.max()) + 1) * es if n else 0
    read = (mask if counter else repeat_bytes // es) * es
    cost = fixed_cycles + repeats * -(-read // repeat_bytes) * repeat_cycles
    period, lane = asc.GATHER_MASK_PATTERNS[pattern]
    per = n // repeats if repeats else 0
    if n and (block_stride == 1 or per * period <= per_block):  # each repeat's lanes evenly spaced: one strided copy
        pitch = repeat_stride * per_block

        def copy(u, d: int, s: int) -> None:
            strided_copy(u, d, s + lane, repeats, per, pitch, period)
    else:
        def copy(u, d: int, s: int) -> None:
            if n:
                u[d:d + n] = u[s + lanes]
    return copy, n * es, hi, cost, (lanes * es).tobytes()


def strided_copy(u, d: int, s: int, rows: int, cols: int, src_pitch: int, step: int) -> None:
    """``u[d + r * cols + c] = u[s + r * src_pitch + c * step]`` for ``r < rows``, ``c < cols``: ``u`` one core's UB as
    a 1-D typed array, or a group's ``batched.BatchedUB`` (one UB row per core)."""
    a = u if isinstance(u, np.ndarray) else u.a
    es, dt = a.itemsize, a.dtype
    if a.ndim == 1:
        if s + (rows - 1) * src_pitch + (cols - 1) * step >= a.size or d + rows * cols > a.size:
            raise IndexError("GatherMask reaches past the end of UB")
        np.ndarray((rows, cols), dt, a, d * es, (cols * es, es))[...] = \
            np.ndarray((rows, cols), dt, a, s * es, (src_pitch * es, step * es))
        return
    k, row = a.shape[0], a.strides[0]
    if s + (rows - 1) * src_pitch + (cols - 1) * step >= a.shape[1] or d + rows * cols > a.shape[1]:
        raise IndexError("GatherMask reaches past the end of UB")
    np.ndarray((k, rows, cols), dt, a, d * es, (row, cols * es, es))[...] = \
        np.ndarray((k, rows, cols), dt, a, s * es, (row, src_pitch * es, step * es))


def trans_data_to_5hd(t: KernelTranslator, op: asc.TransDataTo5HDOp) -> None:
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False))
    d, s = t.v(op.dst), t.v(op.src)
    rep = op.repeat_times.value.data
    sp = t.spec
    if rep == 0:  # a NOP
        record(t, sid, str(sp.vector_fixed_cycles), "0", [(d, "0"), (s, "0")])
        return
    di, si = op.element_offsets()
    dlo, dhi, slo, shi = int(di.min()) * es, (int(di.max()) + 1) * es, int(si.min()) * es, (int(si.max()) + 1) * es
    fail_if(t, f"{ub_test([d], str(dhi))} or {ub_test([s], str(shi))}", sid, ub_message([d, s], str(max(dhi, shi))))
    check_extents(t, sid, op.API, [(op.dst, d, str(dhi)), (op.src, s, str(shi))])
    clash = t.const(overlap_test(op), "F")
    t.emit(f"if {d} + {dlo} < {s} + {shi} and {s} + {slo} < {d} + {dhi} and {clash}({d} - {s}): "
           f"_rule('trans5hd-no-overlap', {sid}, bid, f'TransDataTo5HD writes blocks it reads in another "
           f"repeat or in part (dst - src = {{{d} - {s}}} B)')")
    grid = column_transpose(di, si)
    if grid is not None:  # a 16-column transpose: one strided copy
        d0, s0, rows, dst_pitch, src_pitch = grid
        t.emit(f"{t.const(transposed_copy, 'F')}(U_{et}, ({d} >> {sh}) + {d0}, ({s} >> {sh}) + {s0}, {rows}, "
               f"{dst_pitch}, {src_pitch})")
    else:
        dk, sk = t.const(di.astype(np.int64)), t.const(si.astype(np.int64))
        t.emit(f"U_{et}[({d} >> {sh}) + {dk}] = U_{et}[({s} >> {sh}) + {sk}]")
    lanes = (t.const((si * es - slo).astype(np.int64).tobytes()), t.const((di * es - dlo).astype(np.int64).tobytes()))
    cost = sp.vector_fixed_cycles + rep * 512 / sp.transpose_bytes_per_cycle
    record(t, sid, repr(cost), "0", [(f"{d} + {dlo}", str(dhi - dlo)), (f"{s} + {slo}", str(shi - slo))],
           ("1", *lanes))


def column_transpose(di: np.ndarray, si: np.ndarray) -> tuple[int, int, int, int, int] | None:
    """(d0, s0, rows, dst pitch, src pitch) when the element maps say ``dst[d0 + r * dst_pitch + c] = src[s0 + c *
    src_pitch + r]`` for ``r < rows``, ``c < 16``, exactly (the transposes ``tile-movement`` emits), else None."""
    if di.size % 16:
        return None
    rows = di.size // 16
    d0, s0 = int(di.min()), int(si.min())
    order = np.argsort(di, kind="stable")
    dd, ss = di[order] - d0, si[order] - s0
    if rows < 1 or not np.array_equal(dd[:16], np.arange(16)):  # the first destination row: columns 0-15
        return None
    dst_pitch = int(dd[16]) if rows > 1 else 16
    src_pitch = int(ss[1])  # column 1 of the first destination row: the next source row
    want_d = (np.arange(rows)[:, None] * dst_pitch + np.arange(16)[None, :]).reshape(-1)
    want_s = (np.arange(16)[None, :] * src_pitch + np.arange(rows)[:, None]).reshape(-1)
    if dst_pitch < 16 or src_pitch < rows or not (np.array_equal(dd, want_d) and np.array_equal(ss, want_s)):
        return None
    return d0, s0, rows, dst_pitch, src_pitch


def transposed_copy(u, d: int, s: int, rows: int, dst_pitch: int, src_pitch: int) -> None:
    """``u[d + r * dst_pitch + c] = u[s + c * src_pitch + r]`` for ``r < rows``, ``c < 16``: ``u`` one core's UB as
    a 1-D typed array, or a group's ``batched.BatchedUB`` (one UB row per core)."""
    a = u if isinstance(u, np.ndarray) else u.a
    es, dt = a.itemsize, a.dtype
    if a.ndim == 1:  # views of UB's buffer (which bounds them), as the destination and the transposed source
        np.ndarray((rows, 16), dt, a, d * es, (dst_pitch * es, es))[...] = \
            np.ndarray((rows, 16), dt, a, s * es, (es, src_pitch * es))
        return
    k, row = a.shape[0], a.strides[0]
    np.ndarray((k, rows, 16), dt, a, d * es, (row, dst_pitch * es, es))[...] = \
        np.ndarray((k, rows, 16), dt, a, s * es, (row, es, src_pitch * es))


def overlap_test(op: asc.TransDataTo5HDOp):
    """``clash(delta)``: whether, with the destination ``delta`` bytes after the source, a repeat's
    destination blocks meet source blocks other than exactly its own (``trans5hd-no-overlap``)."""
    es = op.dst.type.element_type.bitwidth // 8
    di, si = op.element_offsets()
    dst_blocks = di.reshape(-1, 16, 32 // es)[:, :, 0] * es // 32  # (repeats, 16): each repeat's blocks
    src_rep = (si * es // 32).reshape(len(dst_blocks), -1)
    src_all, src_sets = np.unique(src_rep), [set(row) for row in src_rep.tolist()]
    memo: dict[int, bool] = {}

    def clash(delta: int) -> bool:
        if delta % 32:
            return True  # blocks that meet in part
        if delta not in memo:
            shifted = dst_blocks + delta // 32
            hit = np.isin(shifted, src_all).any(axis=1)
            memo[delta] = any(set(shifted[r].tolist()) != src_sets[r] for r in np.flatnonzero(hit))
        return memo[delta]

    return clash
