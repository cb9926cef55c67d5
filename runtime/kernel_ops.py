"""Code generation for the ``ascendc`` ops inside a kernel (see ``translate`` for the value model).

Every handler appends Python lines to the translator. Fast paths are inline: one combined bounds and
alignment test (the detailed message is built only when it fails), one NumPy call on views of UB/GM,
one trace record. Numbers of the cycle model are folded into the generated source as literals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyasc.dialects import ascendc as asc

from .costs import PIPE_INDEX, S, V, MTE2, MTE3, CostModel, make_dma_cost
from .dtypes import numpy_dtype
from .opinfo import BARRIER, BARRIER_ALL, SET, WAIT, WORK
from .queues import QUEUE_PIPES

if TYPE_CHECKING:
    from .translate import KernelTranslator

EVENTS = list(asc.HardEvent)


def _lit(x: int) -> str:
    return repr(x) if x >= 0 else f"({x})"


def _view(dt: str, sh: int, addr: str, n: str) -> str:
    """A UB view of ``n`` elements of ``dt`` at byte address ``addr``."""
    if addr.isdigit():
        i = int(addr) >> sh
        return f"U_{dt}[{i}:{i}+{n}]"
    if sh == 0:
        return f"U_{dt}[{addr}:{addr}+{n}]"
    return f"U_{dt}[{addr}>>{sh}:({addr}>>{sh})+{n}]"


def _ub_test(addrs: list[str], nb: str) -> str:
    """A condition that is true when a UB operand is misaligned, negative or past the end of UB."""
    uniq = list(dict.fromkeys(addrs))
    dyn = [a for a in uniq if not a.isdigit()]
    parts = ["True"] if any(a.isdigit() and int(a) % 32 for a in uniq) else []
    if dyn:
        ors = " | ".join(dyn)
        parts.append(f"({ors}) & 31")
        parts.append(f"min({', '.join(dyn)}) < 0" if len(dyn) > 1 else f"{dyn[0]} < 0")
    top = f"max({', '.join(uniq)})" if len(uniq) > 1 else uniq[0]
    parts.append(f"{top} + {nb} > UBN")
    return " or ".join(parts)


def _count(t: KernelTranslator, op, es: int, copy: bool, sid: int) -> tuple[str, str]:
    """Expressions for the element and byte counts; DataCopy rounds the byte count down to 32 B.

    Constant counts are folded into literals; otherwise ``_n`` and ``_nb`` are emitted.
    """
    c = t.consts.get(op.count)
    if c is not None and c >= 0:
        nb = c * es
        if copy and nb % 32:
            t.emit(f"_find('copy-rounding', {sid}, bid, 'DataCopy of {nb} bytes is not a multiple of 32 B: "
                   f"the hardware moves {nb & ~31}')")
            nb &= ~31
            c = nb // es
        return str(c), str(nb)
    t.emit(f"_n = {t.v(op.count)}")
    t.emit(f"_nb = _n * {es}")
    if copy:
        t.emit("if _nb & 31:")
        t.emit(f"    _find('copy-rounding', {sid}, bid, f'DataCopy of {{_nb}} bytes is not a multiple of 32 B: "
               f"the hardware moves {{_nb & ~31}}')")
        t.emit(f"    _nb &= ~31; _n = _nb // {es}")
    return "_n", "_nb"


def _neg(n: str) -> str:
    return "" if n.isdigit() else f"{n} < 0 or "


def _vector_cost(t: KernelTranslator, nb: str, per_repeat: float) -> str:
    sp = t.spec
    if nb.isdigit():
        rep = -(-int(nb) // sp.repeat_bytes)
        return repr(sp.vector_fixed_cycles * max(1, -(-rep // sp.max_repeats)) + rep * per_repeat)
    rep = f"(({nb} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes})"
    instr = f"(({rep} + {sp.max_repeats - 1}) // {sp.max_repeats} or 1)"
    scale = "" if per_repeat == 1 else f" * {per_repeat}"
    return f"{sp.vector_fixed_cycles} * {instr} + {rep}{scale}"


def _record(t: KernelTranslator, sid: int, cost: str, aux: str, regions: list[tuple[str, str]]) -> None:
    t.issue()
    fields = [str(sid), "s", cost, aux] + [x for r in regions for x in r]
    t.emit(f"T(({', '.join(fields)}))")


def _fail_if(t: KernelTranslator, cond: str, sid: int, msg: str) -> None:
    t.emit(f"if {cond}: _fail({sid}, bid, {msg})")


def _ub_msg(addrs: list[str], nb: str) -> str:
    return f"_ub_msg(({', '.join(addrs)},), {nb})"


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
        t.bind(op.result, _lit(val))
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


# the physical memory behind each local position (arch 2201): name, capacity attribute of TargetSpec
_POSITION_MEMORY = {
    "A1": ("L1", "l1_bytes"), "B1": ("L1", "l1_bytes"), "A2": ("L0A", "l0a_bytes"), "B2": ("L0B", "l0b_bytes"),
    "CO1": ("L0C", "l0c_bytes"),
}


def local_tensor(t: KernelTranslator, op: asc.LocalTensorOp) -> None:
    addr, size = op.address.value.data, op.size.value.data
    es = numpy_dtype(op.result.type.element_type).itemsize
    sid = t.info(op)
    pos = op.position.data.value
    mem, cap_attr = _POSITION_MEMORY.get(pos, ("UB", "ub_bytes"))
    cap = getattr(t.spec, cap_attr)
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


def tque(t: KernelTranslator, op) -> None:
    qid = t.num_queues
    t.num_queues += 1
    t.emit(f"{t.v(op.result)} = TQueState({qid}, _fail)")


def tbuf(t: KernelTranslator, op) -> None:
    t.emit(f"{t.v(op.result)} = TBufState()")


def init_buffer(t: KernelTranslator, op: asc.InitBufferOp) -> None:
    sid = t.info(op)
    num, length = op.num.value.data, op.length.value.data
    t.emit(f"_e = _init_buffer({t.v(op.pipe)}, {t.v(op.buffer)}, {num}, {length}, UBN)")
    _fail_if(t, "_e > UBN", sid, f"f'UB overflow: InitBuffer of {num} x {length} B ends at byte {{_e}}, past the "
                                 f"{t.spec.ub_bytes} B of UB'")
    t.emit(f"if _e > {t.spec.ub_usable_bytes}: _find('ub-reserved', {sid}, bid, f'InitBuffer ends at byte {{_e}}, "
           f"in the reserved top of UB (usable: {t.spec.ub_usable_bytes} B)')")


def _queue_pipes(op_queue) -> tuple[int, int]:
    pos = op_queue.type.position.data
    try:
        return QUEUE_PIPES[pos]
    except KeyError:
        raise ValueError(f"queue position {pos} is not modelled") from None


def _queue_handler(consumer: bool, kind, label: str, method: str):
    """The handler of a queue op: an event on the producer (or consumer) pipe of the queue's position,
    then ``queue.<method>(...)``; the result, if the op has one, is the buffer's UB address."""

    def handle(t: KernelTranslator, op) -> None:
        pipe = _queue_pipes(op.queue)[consumer]
        sid = t.info(op, pipe, kind, label=label)
        q = t.v(op.queue)
        call = f"{q}.{method}({''.join(f'{t.v(x)}, ' for x in op.operands[1:])}{sid}, bid)"
        t.emit(f"{t.v(op.results[0])} = {call}" if op.results else call)
        _record(t, sid, "0", f"{q}.k", [])

    return handle


# Ascend C queue op -> (on the consumer side?, event kind, label, method of runtime.queues.Queue)
QUEUE_OPS = {
    "ascendc.alloc_tensor": (False, WAIT, "AllocTensor", "alloc"),
    "ascendc.enque": (False, SET, "EnQue", "enque"),
    "ascendc.deque": (True, WAIT, "DeQue", "deque"),
    "ascendc.free_tensor": (True, SET, "FreeTensor", "free"),
}


def tbuf_get(t: KernelTranslator, op: asc.TBufGetOp) -> None:
    sid = t.info(op)
    r = t.v(op.result)
    t.emit(f"{r} = {t.v(op.buffer)}.base")
    _fail_if(t, f"{r} < 0", sid, "'TBuf.Get on a buffer that was never given memory by InitBuffer'")


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
        sid = t.info(op, V, WORK, writes=(True, False))
        n, nb = _count(t, op, es, True, sid)
        _fail_if(t, _neg(n) + _ub_test([d, s_], nb), sid, _ub_msg([d, s_], nb))
        t.emit(f"{_view(et, sh, d, n)} = {_view(et, sh, s_, n)}")
        _record(t, sid, _vector_cost(t, nb, sp.vector_simple_cycles), "0", [(d, nb), (s_, nb)])
        return
    to_gm = not dst_local
    sid = t.info(op, MTE3 if to_gm else MTE2, WORK, writes=(False,) if to_gm else (True,), gm=True)
    g_off, u = (d, s_) if to_gm else (s_, d)
    g, _, gl, _ = t.gm_root(op.dst if to_gm else op.src, op)
    n, nb = _count(t, op, es, True, sid)
    gneg = "" if g_off.isdigit() else f" or {g_off} < 0"
    cond = _neg(n) + _ub_test([u], nb) + f"{gneg} or {g_off} + {n} > {gl}"
    _fail_if(t, cond, sid, f"_copy_msg({u}, {nb}, {g_off}, {n}, {gl}, UBN)")
    gv = f"{g}[{g_off}:{g_off}+{n}]"
    uv = _view(et, sh, u, n)
    t.emit(f"{gv} = {uv}" if to_gm else f"{uv} = {gv}")
    cost = repr(make_dma_cost(sp, to_gm)(int(nb))) if nb.isdigit() else f"{'_dma3' if to_gm else '_dma2'}({nb})"
    _record(t, sid, cost, nb, [(u, nb)])


def data_copy_pad(t: KernelTranslator, op: asc.DataCopyPadOp) -> None:
    to_gm = isinstance(op.dst.type, asc.GlobalTensorType)
    sid = t.info(op, MTE3 if to_gm else MTE2, WORK, writes=(False,) if to_gm else (True,), gm=True)
    g_val, u_val = (op.dst, op.src) if to_gm else (op.src, op.dst)
    _, b, _, es = t.gm_root(g_val, op)
    args = ", ".join(t.v(x) for x in (op.block_count, op.block_len, op.src_stride, op.dst_stride))
    fn = "_pad_out" if to_gm else "_pad_in"
    t.emit(f"_sp, _gb = {fn}(_fail, {sid}, bid, {t.v(u_val)}, {b}, {t.v(g_val)} * {es}, {args})")
    _record(t, sid, f"{'_dma3' if to_gm else '_dma2'}(_gb)", "_gb", [(t.v(u_val), "_sp")])


def get_value(t: KernelTranslator, op: asc.GetValueOp) -> None:
    sid = t.info(op, S, WORK, label="GetValue")
    g, _, gl, _ = t.gm_root(op.source, op)
    et = str(op.source.type.element_type)
    t.emit(f"_i = {t.v(op.source)} + {t.v(op.index)}")
    _fail_if(t, f"_i < 0 or _i >= {gl}", sid, f"f'GetValue at element {{_i}} is outside the global tensor "
                                             f"of {{{gl}}} elements'")
    conv = "_int" if numpy_dtype(et).kind in "iub" else ""
    t.emit(f"{t.v(op.result)} = {conv}({g}[_i])")
    _record(t, sid, str(t.spec.scalar_gm_read_cycles), "0", [])
    t.pending += t.spec.scalar_gm_read_cycles - 1


# ------------------------------------------------------------------------------- vector compute

_BINARY = {
    "ascendc.add": "np.add",
    "ascendc.sub": "np.subtract",
    "ascendc.mul": "np.multiply",
    "ascendc.div": "np.divide",
    "ascendc.max": "np.maximum",
    "ascendc.min": "np.minimum",
}

_SCALAR = {
    "ascendc.adds": "np.add",
    "ascendc.muls": "np.multiply",
    "ascendc.maxs": "np.maximum",
    "ascendc.mins": "np.minimum",
}

# templates over {x} (source view), {o} (destination view) and {one}/{zero} (typed constants);
# float32 exp/ln are NumPy's float32 kernels: within 2 ulp of the correctly rounded value (an
# approximation, as the vector unit's are), several times faster than evaluating in float64
_UNARY = {
    "ascendc.exp": "np.exp({x}, out={o})",
    "ascendc.ln": "np.log({x}, out={o})",
    "ascendc.abs": "np.absolute({x}, out={o})",
    "ascendc.sqrt": "np.sqrt({x}, out={o})",
    "ascendc.rsqrt": "_rsqrt({o}, {x})",
    "ascendc.reciprocal": "np.divide({one}, {x}, out={o})",
    "ascendc.relu": "np.maximum({x}, {zero}, out={o})",
}


def _vector_prologue(t: KernelTranslator, op, operands: list, writes: tuple[bool, ...]):
    et, es, sh = t.local_dtype(op.dst)
    sid = t.info(op, V, WORK, writes=writes)
    addrs = [t.v(x) for x in operands]
    n, nb = _count(t, op, es, False, sid)
    _fail_if(t, _neg(n) + _ub_test(addrs, nb), sid, _ub_msg(addrs, nb))
    per = CostModel(t.spec).cycles_per_repeat(op.name, es)
    return sid, et, sh, addrs, per, n, nb


def vector_binary(t: KernelTranslator, op) -> None:
    sid, et, sh, (d, a, b), per, n, nb = _vector_prologue(t, op, [op.dst, op.src0, op.src1], (True, False, False))
    t.emit(f"{_BINARY[op.name]}({_view(et, sh, a, n)}, {_view(et, sh, b, n)}, out={_view(et, sh, d, n)})")
    _record(t, sid, _vector_cost(t, nb, per), "0", [(d, nb), (a, nb), (b, nb)])


def vector_unary(t: KernelTranslator, op) -> None:
    sid, et, sh, (d, a), per, n, nb = _vector_prologue(t, op, [op.dst, op.src], (True, False))
    dt = numpy_dtype(et)
    code = _UNARY[op.name].format(x=_view(et, sh, a, n), o=_view(et, sh, d, n),
                                  one=t.const(dt.type(1), "C"), zero=t.const(dt.type(0), "C"))
    t.emit(code)
    _record(t, sid, _vector_cost(t, nb, per), "0", [(d, nb), (a, nb)])


def vector_scalar(t: KernelTranslator, op) -> None:
    sid, et, sh, (d, a), per, n, nb = _vector_prologue(t, op, [op.dst, op.src], (True, False))
    t.emit(f"{_SCALAR[op.name]}({_view(et, sh, a, n)}, {t.v(op.scalar)}, out={_view(et, sh, d, n)})")
    _record(t, sid, _vector_cost(t, nb, per), "0", [(d, nb), (a, nb)])


def duplicate(t: KernelTranslator, op: asc.DuplicateOp) -> None:
    sid, et, sh, (d,), per, n, nb = _vector_prologue(t, op, [op.dst], (True,))
    t.emit(f"{_view(et, sh, d, n)}[...] = {t.v(op.scalar)}")
    _record(t, sid, _vector_cost(t, nb, per), "0", [(d, nb)])


def cast(t: KernelTranslator, op: asc.CastOp) -> None:
    det, des, dsh = t.local_dtype(op.dst)
    set_, ses, ssh = t.local_dtype(op.src)
    sid = t.info(op, V, WORK, writes=(True, False))
    d, a = t.v(op.dst), t.v(op.src)
    t.emit(f"_n = {t.v(op.count)}")
    t.emit(f"_nb = _n * {des}; _sb = _n * {ses}")
    cond = f"_n < 0 or {_ub_test([d], '_nb')} or {_ub_test([a], '_sb')}"
    _fail_if(t, cond, sid, f"_ub_msg(({d}, {a}), _nb, _sb)")
    mode = op.round_mode.data.value
    t.emit(f"_cast({_view(det, dsh, d, '_n')}, {_view(set_, ssh, a, '_n')}, {mode!r})")
    sp = t.spec
    wide = "_nb" if des >= ses else "_sb"
    instr = f"((({wide} + {sp.repeat_bytes - 1}) // {sp.repeat_bytes} + {sp.max_repeats - 1}) // {sp.max_repeats} or 1)"
    cost = f"{sp.vector_fixed_cycles} * {instr} + (_n + {sp.cast_elems_per_cycle - 1}) // {sp.cast_elems_per_cycle}"
    _record(t, sid, cost, "0", [(d, "_nb"), (a, "_sb")])


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
                   f"(hand-written code should use 0..{t.spec.usable_event_ids - 1})')")
        return str(base + c)
    e = t.v(op.event_id)
    if op.event_id not in t.checked:
        _fail_if(t, f"not 0 <= {e} < {n}", sid, f"f'event id {{{e}}} is out of range 0..{n - 1}'")
        t.checked.add(op.event_id)
    return f"{base} + {e}"


def set_flag(t: KernelTranslator, op: asc.SetFlagOp) -> None:
    ev = op.event.data
    sid = t.info(op, PIPE_INDEX[ev.src.value], SET, label=f"SetFlag {ev.value}")
    key = _event_key(t, op, sid)
    _record(t, sid, "0", key, [])


def wait_flag(t: KernelTranslator, op: asc.WaitFlagOp) -> None:
    ev = op.event.data
    sid = t.info(op, PIPE_INDEX[ev.dst.value], WAIT, label=f"WaitFlag {ev.value}")
    key = _event_key(t, op, sid)
    _record(t, sid, "0", key, [])


def pipe_barrier(t: KernelTranslator, op: asc.PipeBarrierOp) -> None:
    kind = op.pipe.data
    if kind == asc.PipeKind.PIPE_ALL:
        sid = t.info(op, S, BARRIER_ALL, label="PipeBarrier ALL")
    else:
        sid = t.info(op, PIPE_INDEX[kind.pipe.value], BARRIER, label=f"PipeBarrier {kind.value}")
    _record(t, sid, "0", "0", [])


HANDLERS = {
    "ascendc.global_tensor": global_tensor,
    "ascendc.subview": subview,
    "ascendc.get_block_idx": get_block_idx,
    "ascendc.get_block_num": get_block_num,
    "ascendc.local_tensor": local_tensor,
    "ascendc.tpipe": tpipe,
    "ascendc.tque": tque,
    "ascendc.tbuf": tbuf,
    "ascendc.init_buffer": init_buffer,
    **{name: _queue_handler(*row) for name, row in QUEUE_OPS.items()},
    "ascendc.tbuf_get": tbuf_get,
    "ascendc.data_copy": data_copy,
    "ascendc.data_copy_pad": data_copy_pad,
    "ascendc.get_value": get_value,
    "ascendc.duplicate": duplicate,
    "ascendc.cast": cast,
    "ascendc.set_flag": set_flag,
    "ascendc.wait_flag": wait_flag,
    "ascendc.pipe_barrier": pipe_barrier,
}
HANDLERS.update({name: vector_binary for name in _BINARY})
HANDLERS.update({name: vector_unary for name in _UNARY})
HANDLERS.update({name: vector_scalar for name in _SCALAR})

from . import kernel_ops_reduce  # noqa: E402,F401  (registers the reductions)
from . import kernel_ops_compare  # noqa: E402,F401  (registers Compare/Compares/Select)
from . import kernel_ops_movement  # noqa: E402,F401  (registers CreateVecIndex/Gather)
