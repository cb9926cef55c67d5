"""The lowering of one buffer-level kernel to Ascend C API calls, in either synchronisation style
(``convert-ascbuf-to-ascendc`` runs it per kernel; the cube lowering specialises it).

``sync_style=flags``: every buffer is a static ``LocalTensor`` at its planned UB address (a
rotating buffer is one tensor of ``slots`` copies, indexed by ``i mod slots``), and the flags
placed by ``insert-sync`` become ``SetFlag``/``WaitFlag``/``PipeBarrier``.

``sync_style=queue``: TPipe owns UB; a buffer filled by MTE2 is a VECIN ``TQue``, one drained by MTE3
a VECOUT ``TQue``, and one that only MTE2 fills and MTE3 drains a ``TQueBind<VECIN, VECOUT>``; each of
depth 1 (each EnQue is followed by its DeQue) with ``buffers`` buffers (fewer when a position's queues
would need more than its 8 event ids; past 8 queues, a TBuf whose copies are fenced by
PipeBarrier<PIPE_ALL>), everything else a ``TBuf`` (buffers that plan-memory placed at one address share
a TBuf). ``AllocTensor``/``EnQue``/``DeQue``/``FreeTensor``
around the first and last use in each iteration carry the cross-pipe ordering.

Copies: a ``dense`` window is one ``DataCopy``; any other window is a ``DataCopyPad`` with one
block per row (rows padded to 32 B in UB); a repeated row is one ``DataCopyPad`` per row; a
column broadcast reads each row's value with ``GetValue`` and fills the row with ``Duplicate``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IndexType, MemRefType, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from pyasc.dialects import ascbuf, ascendc, asctile
from pyasc.dialects.ascbuf import memory_space
from pyasc.dialects.ascbuf.analysis import accesses, buffer_of, pipe_of, scalar_reads
from pyasc.dialects.ascendc import HardEvent, PipeKind, TPosition, const_int
from pyasc.dialects.target import Pipe
from pyasc.dialects.types import element_bytes, element_type

from .emitter import OpEmitter
from .errors import CompileError


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


@dataclass(eq=False)
class Buffer:
    """An on-chip buffer of a kernel and how the Ascend C kernel holds it."""

    alloc: ascbuf.AllocOp
    role: TPosition
    slot_elems: int  # elements per slot, padded to 32 B
    handle: SSAValue | None = None  # LocalTensor (flags), TQue or TBuf (queue)
    queue: bool = False
    bind: bool = False  # filled by MTE2 and drained by MTE3 alone: a TQueBind<VECIN, VECOUT> (queue style)


def _phase(b: Buffer, pipe: Pipe) -> str:
    """The side of its queue an access of ``b`` on ``pipe`` is on: "vec" or "copy"; a bound queue's sides
    are its two copies, "copy" (MTE2, in) and "out" (MTE3)."""
    if b.bind:
        return "copy" if pipe == Pipe.MTE2 else "out"
    return "vec" if pipe in (Pipe.V, Pipe.S) else "copy"


def _producer_phase(b: Buffer) -> str:
    """The phase that allocates and enqueues ``b`` (the other dequeues and frees it)."""
    return "copy" if b.role == TPosition.VECIN else "vec"


@dataclass
class KernelLowering:
    """Lowers one buffer-level kernel to an ``ascendc`` kernel (``run``). Ops of ``translators`` (class ->
    fn(lowering, op, emitter)) are lowered by their function, the rest here; a translation asks
    ``tensor(value, emitter)`` for the LocalTensor of a buffer and ``map`` for a scalar's new value."""

    kernel: func.FuncOp
    queue_style: bool
    translators: Mapping[type, Callable] = field(default_factory=dict)
    buffers: dict = field(default_factory=dict)
    fenced: set = field(default_factory=set)  # staged buffers past a position's event ids (``_fenced``)

    def run(self) -> func.FuncOp:
        k = self.kernel
        old = k.body.block
        new_block = Block(arg_types=[ascendc.GmAddrType()] * len(old.args))
        self.map: dict[SSAValue, SSAValue] = {}
        self.gm: dict[SSAValue, SSAValue] = {}
        e = OpEmitter(InsertPoint.at_end(new_block))
        for a, n in zip(old.args, new_block.args):
            n.name_hint = a.name_hint
            g = e.value(ascendc.GlobalTensorOp(n, _elems(a.type), a.type.element_type))
            g.name_hint = (a.name_hint or "arg") + "Gm"
            self.gm[a] = g
        self._classify(old)
        self._declare(e)
        self._translate_block(old, new_block, e)
        new = func.FuncOp(k.sym_name.data, ([ascendc.GmAddrType()] * len(old.args), []), Region(new_block))
        new.attributes[ascendc.KERNEL_ATTR] = UnitAttr()
        new.attributes[ascendc.BLOCK_DIM_ATTR] = k.attributes[asctile.BLOCK_DIM_ATTR]
        return new

    # ------------------------------------------------------------------------------------------
    def _classify(self, block: Block) -> None:
        writers: dict[ascbuf.AllocOp, set] = {}
        readers: dict[ascbuf.AllocOp, set] = {}
        for op in block.walk():
            acc = accesses(op)
            if acc is None:
                continue
            for v in acc[0]:
                readers.setdefault(buffer_of(v), set()).add(pipe_of(op))
            for v in acc[1]:
                writers.setdefault(buffer_of(v), set()).add(pipe_of(op))
        hoisted = {buffer_of(o.dest) for o in block.ops if isinstance(o, ascbuf.CopyInOp)}  # loaded once
        for o in block.ops:  # and the buffers computed once before the loop (a constant tile it stores)
            if isinstance(o, scf.ForOp):
                break
            acc = accesses(o)
            hoisted.update(buffer_of(v) for v in (acc[1] if acc else ()))
        for op in block.ops:
            if isinstance(op, ascbuf.AllocOp):
                bind = False
                if op in hoisted:
                    role = TPosition.VECCALC
                elif Pipe.MTE2 in writers.get(op, ()):
                    role = TPosition.VECIN
                    bind = writers[op] | readers.get(op, set()) == {Pipe.MTE2, Pipe.MTE3}
                elif Pipe.MTE3 in readers.get(op, ()):
                    role = TPosition.VECOUT
                else:
                    role = TPosition.VECCALC
                t = op.result.type
                slot_elems = op.slot_bytes // element_bytes(t.element_type)
                self.buffers[op] = Buffer(op, role, slot_elems,
                                           queue=self.queue_style and role != TPosition.VECCALC, bind=bind)

    def _declare(self, e: OpEmitter) -> None:
        if not self.queue_style:
            for b in self.buffers.values():
                t = b.alloc.result.type
                lt = e.value(ascendc.LocalTensorOp(b.role, b.alloc.offset.value.data,
                                                   b.slot_elems * b.alloc.slots.value.data, t.element_type))
                lt.name_hint = b.alloc.result.name_hint or "ub"
                b.handle = lt
            return
        pipe = e.value(ascendc.TPipeOp())
        pipe.name_hint = "pipe"
        shared: dict[int, SSAValue] = {}
        nums = self._queue_buffer_counts()
        for b in self.buffers.values():
            slots = b.alloc.slots.value.data
            nbytes = b.alloc.slot_bytes
            if b.queue:
                slots = nums[b.alloc]
                # depth 1: each EnQue is followed by its DeQue; double buffering is the buffer count
                q = e.value(ascendc.TQueOp(b.role, 1, TPosition.VECOUT if b.bind else None))
                e.add(ascendc.InitBufferOp(pipe, q, slots, nbytes))
            else:
                key = b.alloc.offset.value.data
                if key in shared:
                    b.handle = shared[key]
                    continue
                q = e.value(ascendc.TBufOp(TPosition.VECCALC))
                size = nbytes * slots
                size = max([size] + [o.slot_bytes * o.slots.value.data for o in self.buffers
                                     if o.offset.value.data == key])
                e.add(ascendc.InitBufferOp(pipe, q, 1, size))
                shared[key] = q
            q.name_hint = (b.alloc.result.name_hint or "buf").removesuffix("_buf") + ("Que" if b.queue else "Buf")
            b.handle = q

    def _fenced(self, buf: SSAValue, e: OpEmitter, copy) -> None:
        """A copy of a staged buffer without a queue: PipeBarrier<PIPE_ALL> before it (earlier uses of the
        buffer are done) and after it (the data has moved before the next use)."""
        fence = self.buffers[buffer_of(buf)].alloc in self.fenced
        if fence:
            e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_ALL))
        copy()
        if fence:
            e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_ALL))

    def _queue_buffer_counts(self) -> dict:
        """The buffer count of each queue: its slots, unless the queues of its TPosition would need more
        than the position's 8 event ids; then single buffers first, and double ones while they fit."""
        nums = {}
        by_position: dict[TPosition, list[Buffer]] = {}
        for b in self.buffers.values():
            if b.queue:
                nums[b.alloc] = b.alloc.slots.value.data
                by_position.setdefault(b.role, []).append(b)
        for role, queues in by_position.items():
            if sum(nums[b.alloc] for b in queues) <= ascendc.MAX_QUEUE_BUFFERS:
                continue
            for b in queues[ascendc.MAX_QUEUE_BUFFERS:]:  # no event id left: a TBuf, fenced (``_fenced``)
                b.queue = False
                self.fenced.add(b.alloc)
                del nums[b.alloc]
            queues = queues[:ascendc.MAX_QUEUE_BUFFERS]
            spare = ascendc.MAX_QUEUE_BUFFERS - len(queues)
            for b in queues:
                want = b.alloc.slots.value.data - 1
                nums[b.alloc] = 1 + min(want, spare)
                spare -= nums[b.alloc] - 1
        return nums

    # ------------------------------------------------------------------------------------------
    def _translate_block(self, old: Block, new: Block, e: OpEmitter, inherit: bool = False) -> None:
        """Translate ``old`` into ``new``: the tensors a nested block builds are its own (they are out of scope
        after it), so the enclosing block's are restored when it ends; with ``inherit`` it starts from the
        enclosing block's tensors (built before it)."""
        outer = getattr(self, "queue_state", None), getattr(self, "tensor_cache", None)
        self.queue_state, self.tensor_cache = {}, dict(outer[1]) if inherit and outer[1] is not None else {}
        self._translate_ops(old, new, e)
        if outer[0] is not None:
            self.queue_state, self.tensor_cache = outer

    def _translate_ops(self, old: Block, new: Block, e: OpEmitter) -> None:
        ops = list(old.ops)
        first_use, last_use = self._queue_uses(ops) if self.queue_style else ({}, {})
        for idx, op in enumerate(ops):
            e.loc_from = op
            if isinstance(op, ascbuf.AllocOp):
                continue
            for b in first_use.get(idx, []):
                self._queue_open(b, e)
            self._translate(op, e, new)
            for b in last_use.get(idx, []):
                self._queue_close(b, e)

    def _queue_uses(self, ops: list[Operation]):
        """For the queue style: per buffer, the body positions of its first and last access."""
        first, last = {}, {}
        for idx, op in enumerate(ops):
            acc = accesses(op)
            if acc is None:
                continue
            for v in acc[0] + acc[1] + [v for v in scalar_reads(op) if buffer_of(v) is not None]:
                b = self.buffers[buffer_of(v)]
                if not b.queue:
                    continue
                phase = _phase(b, pipe_of(op))
                first.setdefault((b, phase), idx)
                last[(b, phase)] = idx
        f, l = {}, {}
        for (b, phase), idx in first.items():
            f.setdefault(idx, []).append((b, phase))
        for (b, phase), idx in last.items():
            l.setdefault(idx, []).append((b, phase))
        return f, l

    def _queue_open(self, item, e: OpEmitter) -> None:
        b, phase = item
        et = b.alloc.result.type.element_type
        if phase == _producer_phase(b):
            t = e.value(ascendc.AllocTensorOp(b.handle, et))
        else:
            t = e.value(ascendc.DeQueOp(b.handle, et))
        t.name_hint = (b.alloc.result.name_hint or "t").removesuffix("_buf") + "Local"
        self.queue_state[b.alloc] = t

    def _queue_close(self, item, e: OpEmitter) -> None:
        b, phase = item
        t = self.queue_state[b.alloc]
        if phase == _producer_phase(b):
            e.add(ascendc.EnQueOp(b.handle, t))
        else:
            e.add(ascendc.FreeTensorOp(b.handle, t))

    def tensor(self, v: SSAValue, e: OpEmitter) -> SSAValue:
        """The LocalTensor of a buffer value in the current iteration (built once per block)."""
        if isinstance(v.owner, ascbuf.RowsOp):  # rows of a buffer: its tensor from the first row's element
            base = self.tensor(v.owner.buffer, e)
            key = (base, v)  # a queue's buffer is a new tensor at each DeQue
            if key not in self.tensor_cache:
                self.tensor_cache[key] = e.value(ascendc.SubviewOp(base, e.index(v.owner.offset_elements())))
            return self.tensor_cache[key]
        b = self.buffers[buffer_of(v)]
        if b.queue:
            return self.queue_state[b.alloc]
        key = (b.alloc, v)
        if key not in self.tensor_cache:
            self.tensor_cache[key] = self._local_tensor(v, b, e)
        return self.tensor_cache[key]

    def _local_tensor(self, v: SSAValue, b: Buffer, e: OpEmitter) -> SSAValue:
        base = b.handle
        if not self.queue_style:
            pass
        else:
            base = e.value(ascendc.TBufGetOp(b.handle, b.alloc.result.type.element_type))
            shared_base = min(o.offset.value.data for o in self.buffers if self.buffers[o].handle is b.handle)
            if b.alloc.offset.value.data != shared_base:
                base = e.value(ascendc.SubviewOp(base, e.index((b.alloc.offset.value.data - shared_base)
                                                               // element_bytes(b.alloc.result.type.element_type))))
        if isinstance(v.owner, ascbuf.SlotOp):
            slot = e.remui(self.map[v.owner.index], b.alloc.slots.value.data)
            base = e.value(ascendc.SubviewOp(base, e.muli(slot, b.slot_elems)))
        return base

    def _translate(self, op: Operation, e: OpEmitter, new_block: Block) -> None:
        m = self.map
        handler = self.translators.get(type(op))
        if handler is not None:
            handler(self, op, e)
            return
        match op:
            case ascbuf.SlotOp() | ascbuf.RowsOp():
                return
            case asctile.BlockIdxOp():
                m[op.result] = e.value(ascendc.GetBlockIdxOp())
                m[op.result].name_hint = "blockIdx"
            case asctile.BlockNumOp():
                m[op.result] = e.value(ascendc.GetBlockNumOp())
                m[op.result].name_hint = "blockNum"
            case ascbuf.CopyInOp():
                self._fenced(op.dest, e, lambda: self._copy_in(op, e))
            case ascbuf.LoadScalarOp():
                m[op.result] = e.value(ascendc.GetValueOp(self.gm[op.source], m[op.offset]))
            case ascbuf.CopyOutOp():
                self._fenced(op.source, e, lambda: self._copy_out(op, e))
            case ascbuf.VBinaryOp():
                operands = [self.tensor(v, e) for v in (op.dst, op.lhs, op.rhs)]
                count = m.get(op.count, op.count)
                inst, et = op.instruction, str(op.dst.type.element_type)
                if issubclass(inst, ascendc.VectorBitwiseOp) and et not in inst.DTYPES:  # a wider integer's bits
                    operands = [e.value(ascendc.ReinterpretCastOp(t, element_type(inst.BITS))) for t in operands]
                    count = e.muli(count, element_bytes(et) // element_bytes(inst.BITS))
                e.add(op.instruction(*operands, count))
            case ascbuf.VScalarOp():
                e.add(op.instruction(self.tensor(op.dst, e), self.tensor(op.src, e), m[op.scalar],
                                     m.get(op.count, op.count)))
            case ascbuf.VUnaryOp():
                scratch = () if op.tmp is None else (self.tensor(op.tmp, e),)
                e.add(op.instruction(self.tensor(op.dst, e), self.tensor(op.src, e), m.get(op.count, op.count),
                                     *scratch))
            case ascbuf.VDupOp():
                e.add(ascendc.DuplicateOp(self.tensor(op.dst, e), m[op.scalar], m.get(op.count, op.count)))
            case ascbuf.VCastOp():
                e.add(ascendc.CastOp(self.tensor(op.dst, e), self.tensor(op.src, e), m.get(op.count, op.count),
                                     op.round_mode.data))
            case ascbuf.SetFlagOp():
                e.add(ascendc.SetFlagOp(HardEvent.of(op.src_pipe.data, op.dst_pipe.data), m[op.event_id]))
            case ascbuf.WaitFlagOp():
                e.add(ascendc.WaitFlagOp(HardEvent.of(op.src_pipe.data, op.dst_pipe.data), m[op.event_id]))
            case ascbuf.BarrierOp():
                e.add(ascendc.PipeBarrierOp(PipeKind(f"PIPE_{op.pipe.data.value}")))
            case scf.ForOp():
                body = Block(arg_types=[IndexType()])
                body.args[0].name_hint = op.body.block.args[0].name_hint
                m[op.body.block.args[0]] = body.args[0]
                e.add(scf.ForOp(m[op.lb], m[op.ub], m[op.step], [], body))
                inner = OpEmitter(InsertPoint.at_end(body))
                self._translate_block(op.body.block, body, inner)
            case scf.IfOp() if not op.results:
                regions = [r for r in op.regions if r.blocks]  # the then region, and the else region if any
                shared = _shared_buffers(op) if len(regions) == 2 and not self.queue_style else []
                for v in shared:  # a buffer both branches use: its tensor once, before the if
                    self.tensor(v, e)
                blocks = [Block() for _ in regions]
                e.add(scf.IfOp(m[op.cond], [], *(Region(b) for b in blocks)))
                for region, block in zip(regions, blocks):
                    self._translate_block(region.block, block, OpEmitter(InsertPoint.at_end(block)), bool(shared))
            case scf.YieldOp():
                e.add(scf.YieldOp())
            case func.ReturnOp():
                e.add(func.ReturnOp())
            case _:
                new = op.clone(value_mapper=m)
                e.add(new)
                for a, b in zip(op.results, new.results):
                    m[a] = b

    # ------------------------------------------------------------------------------------------
    def _copy_in(self, op: ascbuf.CopyInOp, e: OpEmitter) -> None:
        m = self.map
        dst = self.tensor(op.dest, e)
        t = op.dest.type
        es = element_bytes(t.element_type)
        rows_cap, pitch = t.get_shape()
        g = self.gm[op.source]
        off, rows, cols = m[op.offset], m[op.rows], m[op.cols]
        rs, cs = op.row_stride.value.data, op.col_stride.value.data
        if cs == 1 and op.dense is not None:
            e.add(ascendc.DataCopyOp(dst, e.value(ascendc.SubviewOp(g, off)), e.muli(rows, cols)))
        elif cs == 1 and (rs > 0 or rows_cap == 1):
            src = e.value(ascendc.SubviewOp(g, off))
            nbytes = e.muli(cols, es)
            gap = e.muli(e.subi(rs, cols), es) if rows_cap > 1 else e.index(0)
            dst_gap = e.divui(e.subi(pitch * es, self._align32(e, nbytes)), 32)
            e.add(ascendc.DataCopyPadOp(dst, src, rows, nbytes, gap, dst_gap, self._zero_tail(op)))
        elif cs == 1:  # one GM row repeated on every tile row
            src = e.value(ascendc.SubviewOp(g, off))
            nbytes = e.muli(cols, es)
            body = Block(arg_types=[IndexType()])
            e.add(scf.ForOp(e.index(0), rows, e.index(1), [], body))
            be = OpEmitter(InsertPoint.at_end(body), op)
            row = be.value(ascendc.SubviewOp(dst, be.muli(body.args[0], pitch)))
            be.add(ascendc.DataCopyPadOp(row, src, be.index(1), nbytes, be.index(0), be.index(0)))
            be.add(scf.YieldOp())
        elif rs == 0:  # one value for the whole tile
            v = e.value(ascendc.GetValueOp(g, off))
            e.add(ascendc.DuplicateOp(dst, v, e.index(rows_cap * pitch)))
        else:  # one value per row
            body = Block(arg_types=[IndexType()])
            e.add(scf.ForOp(e.index(0), rows, e.index(1), [], body))
            be = OpEmitter(InsertPoint.at_end(body), op)
            v = be.value(ascendc.GetValueOp(g, be.addi(off, be.muli(body.args[0], rs))))
            row = be.value(ascendc.SubviewOp(dst, be.muli(body.args[0], pitch)))
            be.add(ascendc.DuplicateOp(row, v, be.index(pitch)))
            be.add(scf.YieldOp())

    def _copy_out(self, op: ascbuf.CopyOutOp, e: OpEmitter) -> None:
        m = self.map
        src = self.tensor(op.source, e)
        t = op.source.type
        es = element_bytes(t.element_type)
        rows_cap, pitch = t.get_shape()
        dst = e.value(ascendc.SubviewOp(self.gm[op.dest], m[op.offset]))
        rows, cols = m[op.rows], m[op.cols]
        if op.dense is not None:
            e.add(ascendc.DataCopyOp(dst, src, e.muli(rows, cols)))
            return
        nbytes = e.muli(cols, es)
        src_gap = e.divui(e.subi(pitch * es, self._align32(e, nbytes)), 32)
        gap = e.muli(e.subi(op.row_stride.value.data, cols), es) if rows_cap > 1 else e.index(0)
        e.add(ascendc.DataCopyPadOp(dst, src, rows, nbytes, src_gap, gap))

    @staticmethod
    def _zero_tail(op: ascbuf.CopyInOp) -> int:
        """The zeros ``DataCopyPad`` puts after each row of a ``zero_tail`` copy: up to the row's last 32 B."""
        if op.zero_tail is None:
            return 0
        cols, es = const_int(op.cols), element_bytes(op.dest.type.element_type)
        if cols is None or cols * es % 32 == 0:
            raise CompileError(f"ascbuf.copy_in zero_tail: the row of {cols} elements must have a constant length "
                               "that ends inside a 32 B block")
        return (32 - cols * es % 32) // es

    @staticmethod
    def _align32(e: OpEmitter, nbytes: SSAValue) -> SSAValue:
        return e.muli(e.divui(e.addi(nbytes, 31), 32), 32)


def _shared_buffers(op: scf.IfOp) -> list[SSAValue]:
    """The local buffers (slots of static buffers) that ops of both branches of ``op`` use and that are defined
    outside it, in the order of first use."""
    def used(region) -> list[SSAValue]:
        out = []
        for o in region.walk():
            for v in o.operands:
                owner = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
                if isinstance(v.type, MemRefType) and memory_space(v.type) is not None and v not in out \
                        and not op.is_ancestor(owner):
                    out.append(v)
        return out

    then, other = (used(r) for r in op.regions)
    return [v for v in then if v in other]
