"""Code generation for the ``ascendc`` ops of ``base``, ``sync`` and ``vector`` inside a kernel (see
``translate`` for the value model and ``codegen`` for the shared helpers).

Vector instructions compute with their op class's ``numpy_operation`` on views of UB; their cost is
``TargetSpec.cycles_per_repeat`` of their ``COST`` class; their pipe comes from their ``OnPipe`` trait.
"""

from __future__ import annotations

from pyasc.dialects import ascendc as asc
from pyasc.dialects.types import numpy_dtype

from .codegen import (
    KernelTranslator,
    counts,
    fail_if,
    literal,
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
from .costs import S, make_dma_cost
from .opinfo import BARRIER, BARRIER_ALL, EVENTS, SET, WAIT, WORK

# ------------------------------------------------------------------------------- tensors and cores


def global_tensor(t: KernelTranslator, op: asc.GlobalTensorOp) -> None:
    et = str(op.result.type.element_type)
    dt = numpy_dtype(et)
    g, b, n = t.fresh("G"), t.fresh("B"), t.fresh("L")
    t.emit(f"{g}, {b} = _gm({t.v(op.addr)}, {t.const(dt, 'DT')}, {op.size.value.data})")
    t.emit(f"{n} = {g}.shape[0]")
    t.gm_roots[op.result] = (g, b, n, dt.itemsize)
    t.bind(op.result, "0")
    t.consts[op.result] = 0


def subview(t: KernelTranslator, op: asc.SubviewOp) -> None:
    src, off = op.source, op.offset
    if isinstance(op.result.type, asc.GlobalTensorType):
        t.gm_roots[op.result] = t.gm_root(src, op)
        scale = 1
    else:
        scale = numpy_dtype(op.result.type.element_type).itemsize
    cs, co = t.consts.get(src), t.consts.get(off)
    if cs is not None and co is not None:
        val = cs + co * scale
        t.consts[op.result] = val
        t.bind(op.result, literal(val))
        return
    o = t.v(off) if scale == 1 else f"{t.v(off)} * {scale}"
    if cs == 0 and scale == 1:
        t.bind(op.result, o)
    elif cs == 0:
        t.emit(f"{t.v(op.result)} = {o}")
    else:
        t.emit(f"{t.v(op.result)} = {t.v(src)} + {o}")


def get_block_idx(t: KernelTranslator, op) -> None:
    t.bind(op.result, "bid")


def get_block_num(t: KernelTranslator, op) -> None:
    t.bind(op.result, "bnum")


def local_tensor(t: KernelTranslator, op: asc.LocalTensorOp) -> None:
    addr, size = op.address.value.data, op.size.value.data
    es = numpy_dtype(op.result.type.element_type).itemsize
    sid = t.info(op)
    pos = op.position.data.value
    mem = asc.POSITION_MEMORY.get(op.position.data, "UB")
    cap = t.spec.memory_bytes(mem)
    end = addr + size * es
    if addr < 0 or addr % t.spec.ub_block_bytes:
        t.fail_line(sid, f"local tensor address {addr} is not {t.spec.ub_block_bytes} B aligned")
    elif end > cap:
        t.fail_line(sid, f"{mem} overflow: local tensor ({pos}) [{addr}, {end}) ends past the {cap} B of {mem}")
    elif mem == "UB" and end > t.spec.ub_usable_bytes:
        t.emit(f"_find('ub-reserved', {sid}, bid, 'local tensor [{addr}, {end}) reaches into the "
               f"reserved top of UB (usable: {t.spec.ub_usable_bytes} B)')")
    t.consts[op.result] = addr
    t.bind(op.result, str(addr))


def tpipe(t: KernelTranslator, op) -> None:
    t.emit(f"{t.v(op.result)} = TPipeState()")


def tpipe_reset(t: KernelTranslator, op) -> None:
    """The TPipe's bookkeeping back to its start, and a record on the scalar unit that ends what the initcheck
    takes as written (``FORGETS_LOCAL_MEMORY``)."""
    t.emit(f"{t.v(op.pipe)}.reset()")
    record(t, t.info(op, S, WORK, label="TPipe::Reset"), "0", "0", [])


def tque(t: KernelTranslator, op) -> None:
    qid = t.num_queues
    t.num_queues += 1
    prod, cons = op.result.type.pipes()
    fwd, back = f"{prod.name}_{cons.name}", f"{cons.name}_{prod.name}"
    events = (EVENTS.index(asc.HardEvent(fwd)), EVENTS.index(asc.HardEvent(back)), (fwd, back), t.spec.event_ids)
    t.emit(f"{t.v(op.result)} = TQueState({qid}, _fail, {op.result.type.depth.data}, {events!r}, _rule)")


def tbuf(t: KernelTranslator, op) -> None:
    t.emit(f"{t.v(op.result)} = TBufState()")


def init_buffer(t: KernelTranslator, op: asc.InitBufferOp) -> None:
    sid = t.info(op)
    num, length = op.num.value.data, op.length.value.data
    t.emit(f"_e = _init_buffer({t.v(op.pipe)}, {t.v(op.buffer)}, {num}, {length}, UBN)")
    fail_if(t, "_e > UBN", sid, f"f'UB overflow: InitBuffer of {num} x {length} B ends at byte {{_e}}, past the "
                                 f"{t.spec.ub_bytes} B of UB'")
    t.emit(f"if _e > {t.spec.ub_usable_bytes}: _find('ub-reserved', {sid}, bid, f'InitBuffer ends at byte {{_e}}, "
           f"in the reserved top of UB (usable: {t.spec.ub_usable_bytes} B)')")


def _queue_handler(kind, label: str, method: str):
    """The handler of a queue op: an event on its pipe (the producer or consumer of the queue's position,
    from its ``OnPipe`` trait), then ``queue.<method>(...)``; the result, if the op has one, is the buffer's
    UB address."""

    def handle(t: KernelTranslator, op) -> None:
        sid = t.info(op, pipe_index(op), kind, label=label)
        q = t.v(op.queue)
        call = f"{q}.{method}({''.join(f'{t.v(x)}, ' for x in op.operands[1:])}{sid}, bid)"
        t.emit(f"{t.v(op.results[0])} = {call}" if op.results else call)
        record(t, sid, "0", f"{q}.k", [])

    return handle


# queue ops: (event kind, label, method of runtime.queues.Queue)
alloc_tensor = _queue_handler(WAIT, "AllocTensor", "alloc")
enque = _queue_handler(SET, "EnQue", "enque")
deque = _queue_handler(WAIT, "DeQue", "deque")
free_tensor = _queue_handler(SET, "FreeTensor", "free")


def tbuf_get(t: KernelTranslator, op: asc.TBufGetOp) -> None:
    sid = t.info(op)
    r = t.v(op.result)
    t.emit(f"{r} = {t.v(op.buffer)}.base")
    fail_if(t, f"{r} < 0", sid, "'TBuf.Get on a buffer that was never given memory by InitBuffer'")


# ------------------------------------------------------------------------------- data movement


def data_copy(t: KernelTranslator, op: asc.DataCopyOp) -> None:
    dst_local = isinstance(op.dst.type, asc.LocalTensorType)
    src_local = isinstance(op.src.type, asc.LocalTensorType)
    et = str(op.dst.type.element_type)
    es = numpy_dtype(et).itemsize
    sh = es.bit_length() - 1
    d, s_ = t.v(op.dst), t.v(op.src)
    sp = t.spec
    if dst_local and src_local:
        sid = t.info(op, pipe_index(op), WORK, writes=(True, False))
        n, nb = counts(t, op, es, True, sid)
        fail_if(t, negative_test(n) + ub_test([d, s_], nb), sid, ub_message([d, s_], nb))
        check_extents(t, sid, op.API, [(op.dst, d, nb), (op.src, s_, nb)])
        t.emit(f"{ub_view(et, sh, d, n)} = {ub_view(et, sh, s_, n)}")
        record(t, sid, vector_cost(t, nb, sp.vector_simple_cycles), "0", [(d, nb), (s_, nb)])
        return
    to_gm = not dst_local
    sid = t.info(op, pipe_index(op), WORK, writes=(False,) if to_gm else (True,), gm=True)
    g_off, u = (d, s_) if to_gm else (s_, d)
    g, gb, gl, ges = t.gm_root(op.dst if to_gm else op.src, op)
    n, nb = counts(t, op, es, True, sid)
    gneg = "" if g_off.isdigit() else f" or {g_off} < 0"
    cond = negative_test(n) + ub_test([u], nb) + f"{gneg} or {g_off} + {n} > {gl}"
    fail_if(t, cond, sid, f"_copy_msg({u}, {nb}, {g_off}, {n}, {gl}, UBN)")
    check_extents(t, sid, op.API, [(op.src if to_gm else op.dst, u, nb)])
    gv = f"{g}[{g_off}:{g_off}+{n}]"
    uv = ub_view(et, sh, u, n)
    t.emit(f"{gv} = {uv}" if to_gm else f"{uv} = {gv}")
    if to_gm:
        record_gm_rows(t, gb, f"{g_off} * {ges}", "1", "0", f"{n} * {ges}")
    l2 = not to_gm and t.written_by_cube(op.src)  # the cube's output, read back from L2
    if not to_gm and not l2:  # the bytes in lines this core has read before come from L2 (``l2.CoreLines``)
        t.emit(f"_lm = _L2V.missed(bid * 2 + sub, {gb}, {g_off} * {ges}, 1, {nb}, {nb})")
        record(t, sid, f"_dma2m({nb}, _lm[0])", "_lm[1]", [(u, nb)])
        return
    cost = repr(make_dma_cost(sp, to_gm, l2)(int(nb))) if nb.isdigit() else f"{_dma_cost_name(to_gm, l2)}({nb})"
    record(t, sid, cost, "0" if l2 else nb, [(u, nb)])


def record_gm_rows(t: KernelTranslator, gm_bytes: str, start: str, rows: str, stride: str, row_bytes: str) -> None:
    """A copy to GM records the rows it wrote while the launch is watched (``core_order.watch_writes``): (core, first
    byte's address, rows, row stride, row bytes), as ``Fixpipe`` does; a traced run's line only."""
    t.emit(f"if _GMW is not None: _GMW.append((bid, {gm_bytes}.__array_interface__['data'][0] + {start}, {rows}, "
           f"{stride}, {row_bytes}))")


def _dma_cost_name(to_gm: bool, from_l2: bool) -> str:
    """The kernel global of a copy's cost function (``costs.make_dma_cost``)."""
    return "_dma3" if to_gm else "_dma2_l2" if from_l2 else "_dma2"


def data_copy_pad(t: KernelTranslator, op: asc.DataCopyPadOp) -> None:
    to_gm = isinstance(op.dst.type, asc.GlobalTensorType)
    sid = t.info(op, pipe_index(op), WORK, writes=(False,) if to_gm else (True,), gm=True)
    g_val, u_val = (op.dst, op.src) if to_gm else (op.src, op.dst)
    _, b, _, es = t.gm_root(g_val, op)
    args = ", ".join(t.v(x) for x in (op.block_count, op.block_len, op.src_stride, op.dst_stride))
    fn = "_pad_out" if to_gm else "_pad_in"
    t.emit(f"_sp, _gb = {fn}(_fail, {sid}, bid, {t.v(u_val)}, {b}, {t.v(g_val)} * {es}, {args})")
    if to_gm:
        bl = t.v(op.block_len)
        record_gm_rows(t, b, f"{t.v(g_val)} * {es}", t.v(op.block_count), f"{bl} + {t.v(op.dst_stride)}", bl)
    if op.padding():  # zeros after each block, inside its last 32 B (DataCopyPadExtParams{true, 0, n, 0})
        bl, rb = t.v(op.block_len), op.padding() * es
        fail_if(t, f"{bl} % 32 == 0 or {bl} % 32 + {rb} > 32", sid,
                f"'DataCopyPad rightPadding of {rb} B: the simulator models zeros that end within the last 32 B of each "
                f"block only'")
        t.emit(f"_pad_zero({t.v(u_val)}, {t.v(op.block_count)}, {bl}, {rb}, "
               f"(({bl} + 31) & ~31) + {t.v(op.dst_stride)} * 32)")
    check_extents(t, sid, op.API, [(u_val, t.v(u_val), "_sp")])
    span = "_sp"
    if to_gm:  # UB->GM reads the valid bytes of each block: the last block's dummy bytes are not read
        t.emit(f"_rd = max(0, _sp - (-{t.v(op.block_len)} & 31))")
        span = "_rd"
    ub_stride = t.v(op.src_stride if to_gm else op.dst_stride)
    pitch = f"(({t.v(op.block_len)} + 31) & ~31) + {ub_stride} * 32"
    l2 = not to_gm and t.written_by_cube(g_val)
    cost, hbm = f"{_dma_cost_name(to_gm, l2)}(_gb)", "0" if l2 else "_gb"
    if not to_gm and not l2:  # the bytes in lines this core has read before come from L2 (``l2.CoreLines``)
        bl = t.v(op.block_len)
        t.emit(f"_lm = _L2V.missed(bid * 2 + sub, {b}, {t.v(g_val)} * {es}, {t.v(op.block_count)}, {bl}, "
               f"{bl} + {t.v(op.src_stride)})")
        cost, hbm = "_dma2m(_gb, _lm[0])", "_lm[1]"
    defined = t.v(op.block_len) + (f" + {op.padding() * es}" if op.padding() else "")  # the bytes of each block
    record(t, sid, cost, hbm, [(t.v(u_val), span)], ("0", defined, pitch))


def get_value(t: KernelTranslator, op: asc.GetValueOp) -> None:
    """``GetValue`` on the scalar pipe: of global memory (through the data cache,
    ``scalar_gm_read_cycles``) or of a local tensor in UB (``scalar_ub_read_cycles``)."""
    if isinstance(op.source.type, asc.LocalTensorType):
        _get_local_value(t, op)
        return
    sid = t.info(op, pipe_index(op), WORK, label="GetValue")
    g, _, gl, _ = t.gm_root(op.source, op)
    et = str(op.source.type.element_type)
    t.emit(f"_i = {t.v(op.source)} + {t.v(op.index)}")
    fail_if(t, f"_i < 0 or _i >= {gl}", sid, f"f'GetValue at element {{_i}} is outside the global tensor "
                                            f"of {{{gl}}} elements'")
    conv = "_int" if numpy_dtype(et).kind in "iub" else ""
    t.emit(f"{t.v(op.result)} = {conv}({g}[_i])")
    record(t, sid, str(t.spec.scalar_gm_read_cycles), "0", [])
    t.pending += t.spec.scalar_gm_read_cycles - 1


def _get_local_value(t: KernelTranslator, op: asc.GetValueOp) -> None:
    et, es, sh = t.local_dtype(op.source)
    sid = t.info(op, pipe_index(op), WORK, writes=(False,), label="GetValue")
    t.emit(f"_a = {t.v(op.source)} + {t.v(op.index)} * {es}")
    fail_if(t, f"_a < 0 or _a & {es - 1} or _a + {es} > UBN", sid,
            f"f'GetValue at UB byte {{_a}} is misaligned or outside UB'")
    conv = "_int" if numpy_dtype(et).kind in "iub" else "_float"
    t.emit(f"{t.v(op.result)} = {conv}(U_{et}[_a >> {sh}])")
    cycles = t.spec.scalar_ub_read_cycles
    record(t, sid, str(cycles), "0", [("_a", str(es))])
    t.pending += cycles - 1


# ------------------------------------------------------------------------------- vector compute


def vector_binary(t: KernelTranslator, op: asc.VectorBinaryOp) -> None:
    sid, et, sh, (d, a, b), per, n, nb = vector_prologue(t, op, [op.dst, op.src0, op.src1], (True, False, False))
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(et, sh, d, n)}, {ub_view(et, sh, a, n)}, {ub_view(et, sh, b, n)})")
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb), (a, nb), (b, nb)])


def vector_unary(t: KernelTranslator, op: asc.VectorUnaryOp) -> None:
    sid, et, sh, (d, a), per, n, nb = vector_prologue(t, op, [op.dst, op.src], (True, False))
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(et, sh, d, n)}, {ub_view(et, sh, a, n)})")
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb), (a, nb)])


def vector_unary_scratch(t: KernelTranslator, op: asc.VectorUnaryScratchOp) -> None:
    """A math-library routine: ``INSTRUCTIONS`` vector instructions over the count, clobbering at least
    the documented minimum of its scratch (which it must not share with dst or src)."""
    sid, et, sh, (d, a, w), per, n, nb = vector_prologue(t, op, [op.dst, op.src, op.tmp], (True, False, True))
    scratch = str(op.scratch_bytes(et))
    fail_if(t, ub_test([w], scratch), sid, ub_message([w], scratch))
    apart = f"({d} < {a} + {nb} and {a} < {d} + {nb}) or ({w} < {d} + {nb} and {d} < {w} + {scratch}) " \
            f"or ({w} < {a} + {nb} and {a} < {w} + {scratch})"
    fail_if(t, apart, sid, f"'{op.API}: dst, src and the scratch must not overlap'")
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(et, sh, d, n)}, {ub_view(et, sh, a, n)})")
    record(t, sid, f"{op.INSTRUCTIONS} * ({vector_cost(t, nb, per)})", "0", [(d, nb), (a, nb), (w, scratch)])


def vector_scalar(t: KernelTranslator, op: asc.VectorScalarOp) -> None:
    sid, et, sh, (d, a), per, n, nb = vector_prologue(t, op, [op.dst, op.src], (True, False))
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(et, sh, d, n)}, {ub_view(et, sh, a, n)}, {t.v(op.scalar)})")
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb), (a, nb)])


def duplicate(t: KernelTranslator, op: asc.DuplicateOp) -> None:
    sid, et, sh, (d,), per, n, nb = vector_prologue(t, op, [op.dst], (True,))
    t.emit(f"{t.const(op.numpy_operation, 'F')}({ub_view(et, sh, d, n)}, {t.v(op.scalar)})")
    record(t, sid, vector_cost(t, nb, per), "0", [(d, nb)])


def cast(t: KernelTranslator, op: asc.CastOp) -> None:
    det, des, dsh = t.local_dtype(op.dst)
    set_, ses, ssh = t.local_dtype(op.src)
    sid = t.info(op, pipe_index(op), WORK, writes=(True, False))
    d, a = t.v(op.dst), t.v(op.src)
    t.emit(f"_n = {t.v(op.count)}")
    t.emit(f"_nb = _n * {des}; _sb = _n * {ses}")
    cond = f"_n < 0 or {ub_test([d], '_nb')} or {ub_test([a], '_sb')}"
    fail_if(t, cond, sid, f"_ub_msg(({d}, {a}), _nb, _sb)")
    check_extents(t, sid, op.API, [(op.dst, d, "_nb"), (op.src, a, "_sb")])
    mode = op.round_mode.data.value
    fn = t.const(op.numpy_operation, "F")
    t.emit(f"{fn}({ub_view(det, dsh, d, '_n')}, {ub_view(set_, ssh, a, '_n')}, {mode!r})")
    sp = t.spec
    wide = "_nb" if des >= ses else "_sb"
    instr = f"((({wide} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes} + {sp.max_repeats - 1}) // {sp.max_repeats} or 1)"
    cost = f"{sp.vector_fixed_cycles} * {instr} + (_n + {sp.cast_elems_per_cycle - 1}) // {sp.cast_elems_per_cycle}"
    record(t, sid, cost, "0", [(d, "_nb"), (a, "_sb")])


# ------------------------------------------------------------------------------- synchronisation


def _event_key(t: KernelTranslator, op, sid: int) -> str:
    base = EVENTS.index(op.event.data) * 8
    n = t.spec.event_ids
    c = t.consts.get(op.event_id)
    if c is not None:
        if not 0 <= c < n:
            t.fail_line(sid, f"event id {c} is out of range 0..{n - 1}")
        elif c >= t.spec.usable_event_ids:
            t.emit(f"_find('reserved-event-id', {sid}, bid, 'event id {c} is reserved for the system / TPipe "
                   f"(hand-written code should use 0..{t.spec.usable_event_ids - 1})', 'flag-static-ids-0-5')")
        return str(base + c)
    e = t.v(op.event_id)
    if op.event_id not in t.checked:
        fail_if(t, f"not 0 <= {e} < {n}", sid, f"f'event id {{{e}}} is out of range 0..{n - 1}'")
        t.checked.add(op.event_id)
    return f"{base} + {e}"


def set_flag(t: KernelTranslator, op: asc.SetFlagOp) -> None:
    ev = op.event.data
    sid = t.info(op, pipe_index(op), SET, label=f"SetFlag {ev.value}")
    key = _event_key(t, op, sid)
    record(t, sid, "0", key, [])


def wait_flag(t: KernelTranslator, op: asc.WaitFlagOp) -> None:
    ev = op.event.data
    sid = t.info(op, pipe_index(op), WAIT, label=f"WaitFlag {ev.value}")
    key = _event_key(t, op, sid)
    record(t, sid, "0", key, [])


def alloc_event_id(t: KernelTranslator, op: asc.AllocEventIdOp) -> None:
    """A TPipe's event id: the lowest free one of the event's pool; past the pool a contract finding (the id
    returned is then out of range, as on the chip, and a flag using it fails)."""
    ev = op.event.data
    sid = t.info(op, label=f"AllocEventID {ev.value}")
    r = t.v(op.result)
    n = t.spec.event_ids
    t.emit(f"{r} = {t.v(op.pipe)}.alloc_event({EVENTS.index(ev)})")
    t.emit(f"if {r} >= {n}: _rule('tpipe-event-pool-8', {sid}, bid, 'AllocEventID<{ev.value}> with all {n} "
           f"ids of {ev.value} taken')")


def release_event_id(t: KernelTranslator, op: asc.ReleaseEventIdOp) -> None:
    ev = op.event.data
    sid = t.info(op, label=f"ReleaseEventID {ev.value}")
    e = t.v(op.event_id)
    t.emit(f"if not {t.v(op.pipe)}.release_event({EVENTS.index(ev)}, {e}): _rule('release-event-id-paired', "
           f"{sid}, bid, f'ReleaseEventID<{ev.value}>({{{e}}}) of an id AllocEventID<{ev.value}> did not take')")


def init_soc_state(t: KernelTranslator, op: asc.InitSocStateOp) -> None:
    """Nothing to simulate: the simulated core starts in the reset state."""


def pipe_barrier(t: KernelTranslator, op: asc.PipeBarrierOp) -> None:
    kind = op.pipe.data
    if kind == asc.PipeKind.PIPE_ALL:
        sid = t.info(op, S, BARRIER_ALL, label="PipeBarrier ALL")
    else:
        sid = t.info(op, pipe_index(op), BARRIER, label=f"PipeBarrier {kind.value}")
    record(t, sid, "0", "0", [])
