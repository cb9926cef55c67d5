"""The bufferization of one vector kernel (``bufferize``; ``analysis.memory`` runs it on a copy to
size tiles): tile values become UB buffers, tile ops become buffer ops on named pipes.

Every tile value gets its own ``ascbuf.alloc`` (``plan-memory`` shares the memory later):
loaded and stored tiles rotate through ``asctile.buffers`` slots (multi-buffering), the rest
have one, except that an elementwise op whose operand's temporary no later op reads writes into it
(in place). Compute writes into its result's buffer; a splat operand, or an input that is one value
for the whole tensor (read once with ``load_scalar``), becomes the scalar of
``Adds``/``Muls``/``Maxs``/``Mins`` where the vector unit has such a form, else a ``Duplicate``.

Which upstream op becomes which ``vbinary``/``vunary`` kind, and which kind has a scalar form, comes
from the ``ascendc`` instruction classes (``IMPLEMENTS``, ``SCALAR_FORM``). Ops with a buffer form of
their own (comparisons, gathers, row repeats) are dispatched by class through ``BUFFER_FORMS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import Float32Type, IntegerType, Signedness, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, ascendc, asctensor, asctile
from pyasc.dialects.ascendc import RoundMode, VectorUnaryScratchOp, const_int

from .errors import CompileError
from pyasc.dialects.target import Pipe
from pyasc.dialects.types import element_bytes

from . import bufferize_mix, compare_select, gather
from .emitter import OpEmitter

B, S, U = ascbuf.VBinaryKind, ascbuf.VScalarKind, ascbuf.VUnaryKind
# upstream op name -> the vbinary / vunary kind whose instruction computes it
BINARY = {impl: B(kind) for kind, inst in ascbuf.BINARY_INSTRUCTIONS.items() for impl in inst.IMPLEMENTS}
UNARY = {impl: U(kind) for kind, inst in ascbuf.UNARY_INSTRUCTIONS.items() for impl in inst.IMPLEMENTS}
# vbinary kind -> the vscalar kind of its scalar form (``Add`` -> ``Adds``)
SCALAR_FORM = {B(kind): S(inst.SCALAR_FORM.API.lower())
               for kind, inst in ascbuf.BINARY_INSTRUCTIONS.items() if inst.SCALAR_FORM is not None}
CASTS = (arith.ExtFOp, arith.TruncFOp, asctile.CastOp)

# tile op class -> fn(bufferizer, op, dst_buffer, emitter): the ops whose buffer form lives in a module of its own
BUFFER_FORMS: dict[type, Callable] = {
    asctensor.CompareOp: compare_select.bufferize_compare,
    asctensor.SelectOp: compare_select.bufferize_select,
    asctile.GatherOffsetsOp: gather.bufferize_gather_offsets,
    asctile.GatherOp: gather.bufferize_gather,
    asctile.GatherRowsOp: gather.bufferize_gather_rows,
    asctile.PickColumnsOp: gather.bufferize_pick_columns,
    asctile.PhaseTransposeOp: gather.bufferize_phase_transpose,
    asctile.TransposeOp: gather.bufferize_transpose,
    asctile.RepeatRowsOp: bufferize_mix.bufferize_repeat_rows,
}


def _only_stored(v: SSAValue) -> bool:
    """Whether every use of the tile ``v`` stores it."""
    return all(isinstance(u.operation, asctile.StoreOp) for u in v.uses)


def has_scalar_form(op: Operation) -> bool:
    """Whether a splat operand of the elementwise ``op`` becomes a scalar rather than a buffer: every op
    but a binary op whose instruction has no scalar form (x - s is Adds(-s), s - x Muls then Adds)."""
    kind = BINARY.get(op.name)
    return kind is None or kind in SCALAR_FORM or kind == B.SUB


def round_mode(src: str, dst: str) -> RoundMode:
    """The rounding of a conversion: to nearest even, except float->int which truncates (as C and torch)."""
    if dst in ("i32", "i8"):
        return RoundMode.CAST_TRUNC
    if dst == "bf16":
        return RoundMode.CAST_RINT
    return RoundMode.CAST_NONE


ROW_FORMS = {  # (binary kind, row value on the right) -> vrow kind
    (B.ADD, True): "add", (B.ADD, False): "add", (B.MUL, True): "mul", (B.MUL, False): "mul",
    (B.MAX, True): "max", (B.MAX, False): "max", (B.MIN, True): "min", (B.MIN, False): "min",
    (B.SUB, True): "sub", (B.SUB, False): "rsub", (B.DIV, True): "div", (B.DIV, False): "rdiv",
}


@dataclass
class KernelBufferizer:
    """Bufferizes one vector kernel in place (``run``); the buffer forms of other modules get it as ``bz``."""

    kernel: func.FuncOp

    def run(self) -> None:
        k = self.kernel
        loop = next(op for op in k.body.block.ops if isinstance(op, scf.ForOp))
        self.iv = loop.body.block.args[0]
        self.slots = k.attributes[asctile.BUFFERS_ATTR].value.data
        self.top = OpEmitter(InsertPoint.at_start(k.body.block))
        self.valid: tuple[int, SSAValue] | None = None  # see ``count``
        # loop-invariant tiles (see tile-elementwise): one copy each, computed once before the loop,
        # with the pipes drained after the loads and again after the compute
        prologue = [op for op in k.body.block.ops
                    if op.results and isinstance(op.results[0].type, TensorType) or isinstance(op, asctile.LoadOp)]
        self.buffer: dict[SSAValue, SSAValue] = {}
        self.splat: dict[SSAValue, SSAValue] = {}
        self.negated: dict[SSAValue, SSAValue] = {}
        self.row_bcast: dict[SSAValue, SSAValue] = {}
        self.masks: dict[SSAValue, SSAValue] = {}  # bool tile -> its mask buffer (compare_select)
        self.scratch: dict[int, SSAValue] = {}  # bytes -> the kernel's scratch of that size (math routines)
        self.prologue_barriers = []
        # a tile stored once, before the loop: the loop-invariant tiles are made before the first such store
        early = [op for op in k.body.block.ops if isinstance(op, asctile.StoreOp)]
        at = early[0] if early else loop
        loads = [op for op in prologue if isinstance(op, asctile.LoadOp)]
        for op in loads:
            e = OpEmitter(InsertPoint.before(at), op)
            if _scalar_input(op):
                self.splat[op.result] = e.value(ascbuf.LoadScalarOp(op.source, op.offset))
                continue
            dst = self.alloc(op.result, e, 1)
            e.add(ascbuf.CopyInOp(op.source, op.offset, dst, op.rows, op.cols, op.row_stride.value.data,
                                  op.col_stride.value.data, op.dense is not None, op.zero_tail is not None))
        if any(op.result not in self.splat for op in loads):
            self.prologue_barriers.append(OpEmitter(InsertPoint.before(at)).add(ascbuf.BarrierOp(Pipe.ALL)))
        body = list(loop.body.block.ops)
        stored = {op.value for op in body if isinstance(op, asctile.StoreOp)}
        computed = [op for op in prologue if not isinstance(op, asctile.LoadOp)]
        if early:  # what a store before the loop reads is computed first: the loop's constants can wait
            feeds = {op.value for op in early}
            for op in reversed(computed):
                if any(r in feeds for r in op.results):
                    feeds.update(op.operands)
            computed.sort(key=lambda op: not any(r in feeds for r in op.results))
        for op in computed:
            e = OpEmitter(InsertPoint.before(at), op)
            if isinstance(op, asctile.SplatOp):
                self.splat[op.result] = op.value
                if op.result in stored:  # a constant tile the loop stores: filled once, stored from one buffer
                    self._copy_into(e, self.alloc(op.result, e, 1), op.result)
                continue
            self._compute(op, self.alloc(op.results[0], e, 1), e)
        if early or any(op.results[0] in stored for op in computed):  # the stores (MTE3) read what V wrote
            self.prologue_barriers.append(OpEmitter(InsertPoint.before(at)).add(ascbuf.BarrierOp(Pipe.ALL)))
        elif any(not isinstance(op, asctile.SplatOp) for op in computed):
            self.prologue_barriers.append(OpEmitter(InsertPoint.before(at)).add(ascbuf.BarrierOp(Pipe.V)))
        for op in early:
            OpEmitter(InsertPoint.before(op), op).add(ascbuf.CopyOutOp(
                self.buffer[op.value], op.dest, op.offset, op.rows, op.cols, op.row_stride.value.data,
                op.dense is not None))
        loaded = {op.result for op in body if isinstance(op, asctile.LoadOp)}
        position = {op: i for i, op in enumerate(body)}
        self.valid = _valid_count(body)
        for op in body:
            e = OpEmitter(InsertPoint.before(op), op)
            if isinstance(op, asctile.SplatOp):
                self.splat[op.result] = op.value
            elif isinstance(op, asctile.RowBroadcastOp) and op.result not in stored:
                self.row_bcast[op.result] = self.operand(e, op.input)  # materialised only if needed
            elif isinstance(op, asctile.LoadOp) and _scalar_input(op):  # one value per tile, such as a weight
                self.splat[op.result] = e.value(ascbuf.LoadScalarOp(op.source, op.offset))
            elif isinstance(op, asctile.LoadOp) and _column_input(op) and op.result not in stored:
                # one value per row (a channel's bias over an NCHW tile): the column, one 32 B block per row, on
                # MTE2; each use reads a row's value from UB (a per-row op), not from GM row by row
                t = op.result.type
                col = self.alloc(None, e, self.slots, TensorType(t.element_type, [t.get_shape()[0],
                                                                                  32 // element_bytes(t.element_type)]))
                _alloc_of(col).result.name_hint = (op.result.name_hint or "row") + "_col_buf"
                e.add(ascbuf.CopyInOp(op.source, op.offset, col, op.rows, e.index(1), op.row_stride.value.data, 1))
                self.row_bcast[op.result] = col
            elif isinstance(op, asctile.RowWindowOp):  # rows of a loaded tile: a view of its buffer
                self.buffer[op.result] = e.value(ascbuf.RowsOp(self.buffer[op.input], op.first.value.data,
                                                               op.result.type.get_shape()[0]))
            elif isinstance(op, asctile.LoadOp):
                dst = self.alloc(op.result, e, self.slots)
                e.add(ascbuf.CopyInOp(op.source, op.offset, dst, op.rows, op.cols, op.row_stride.value.data,
                                      op.col_stride.value.data, op.dense is not None, op.zero_tail is not None))
            elif isinstance(op, asctile.StoreOp):
                src = self.buffer.get(op.value)
                if src is None or (op.value in loaded and not _only_stored(op.value)):
                    # a splat, or an input stored as is that vector ops also read: copy it first (a tile
                    # only stored goes back out of the buffer it came in: a TQueBind<VECIN, VECOUT>)
                    src = self.alloc(None, e, self.slots, op.value.type)
                    self._copy_into(e, src, op.value)
                e.add(ascbuf.CopyOutOp(src, op.dest, op.offset, op.rows, op.cols, op.row_stride.value.data,
                                       op.dense is not None))
            elif op.results and isinstance(op.results[0].type, TensorType):
                r = op.results[0]
                dst = None if r in stored else self._in_place(op, position, stored | loaded)
                if dst is None:
                    dst = self.alloc(r, e, self.slots if r in stored else 1)
                else:
                    self.buffer[r] = dst
                self._compute(op, dst, e)
        self.valid = None
        for op in reversed(body):
            if isinstance(op, asctile.LoadOp | asctile.StoreOp | asctile.SplatOp) or (
                    op.results and isinstance(op.results[0].type, TensorType)):
                Rewriter.erase_op(op, safe_erase=False)
        for op in [*reversed(early), *reversed(prologue)]:
            Rewriter.erase_op(op, safe_erase=False)

    def alloc(self, value: SSAValue | None, e: OpEmitter, slots: int, type_: TensorType | None = None):
        t = value.type if value is not None else type_
        alloc = self.top.add(ascbuf.AllocOp(ascbuf.ub_memref(t.get_shape(), t.element_type), slots))
        if value is not None and value.name_hint:
            alloc.result.name_hint = value.name_hint + "_buf"
        else:
            alloc.result.name_hint = "out_buf" if slots > 1 else "tmp_buf"
        buf = e.value(ascbuf.SlotOp(alloc.result, self.iv)) if slots > 1 else alloc.result
        if value is not None:
            self.buffer[value] = buf
        return buf

    def scratch_for(self, kind, element_type, count: int) -> SSAValue | None:
        """The scratch buffer the instruction of ``kind`` needs for one pass over ``count`` elements of
        ``element_type``, or None; one per size per kernel (the routines run one after another on PIPE_V)."""
        inst = ascbuf.UNARY_INSTRUCTIONS[kind]
        if not issubclass(inst, VectorUnaryScratchOp):
            return None
        nbytes = inst.scratch_bytes(str(element_type), count)
        if nbytes not in self.scratch:
            alloc = self.top.add(ascbuf.AllocOp(ascbuf.ub_memref([nbytes], IntegerType(8, Signedness.UNSIGNED)), 1))
            alloc.result.name_hint = "scratch_buf"
            self.scratch[nbytes] = alloc.result
        return self.scratch[nbytes]

    def _in_place(self, op: Operation, position: dict, staged: set) -> SSAValue | None:
        """The temporary buffer of an operand of the elementwise ``op`` that no later op reads, of the
        result's type: the result is computed in place (the vector unit allows a destination that
        overlaps its source completely), so a chain of ops needs no new buffer per step."""
        if not (op.name in BINARY or op.name in UNARY or isinstance(op, arith.NegfOp)):
            return None
        if op.name in UNARY and not ascbuf.UNARY_INSTRUCTIONS[UNARY[op.name]].IN_PLACE:
            return None
        if all(v in self.row_bcast for v in op.operands):
            return None
        here = position[op]
        for v in op.operands:  # a per-row op (an operand of one value per row) runs in place on the other
            buf = None if v in self.row_bcast else self.buffer.get(v)
            if buf is None or v in staged or v.owner not in position or v.type != op.results[0].type \
                    or not isinstance(buf.owner, ascbuf.AllocOp) or buf.owner.slots.value.data != 1:
                continue  # a loop-invariant value (computed before the loop) stays for the next tiles
            if not self._read_after(v, position, here):
                return buf
        return None

    def _read_after(self, v: SSAValue, position: dict, here: int) -> bool:
        """Whether an op after position ``here`` reads ``v``, directly or through a row broadcast of it (which
        is materialised from ``v``'s buffer where it is used: ``row_bcast``)."""
        for u in v.uses:
            user = u.operation
            if position.get(user, here + 1) > here:
                return True
            if isinstance(user, asctile.RowBroadcastOp) and user.result in self.row_bcast \
                    and self._read_after(user.result, position, here):
                return True
        return False

    def _negated(self, s: SSAValue) -> SSAValue:
        """``-s`` of a scalar read by ``load_scalar``, computed once, next to the read."""
        neg = self.negated.get(s)
        if neg is None:
            neg = self.negated[s] = OpEmitter(InsertPoint.after(s.owner), s.owner).value(arith.NegfOp(s))
        return neg

    def count(self, e: OpEmitter, t) -> SSAValue:
        """The elements an op over a tile of type ``t`` computes: the whole tile, or in a loop whose tiles
        are all loaded and stored densely, the elements the tile's copy-in wrote (a tail tile computes
        no lane it did not load)."""
        n = 1
        for d in t.get_shape():
            n *= d
        if self.valid is not None and n == self.valid[0]:
            return self.valid[1]
        return self.top.index(n)

    def operand(self, e: OpEmitter, v: SSAValue) -> SSAValue:
        """A buffer holding ``v`` (a splat or a row broadcast is materialised into a fresh one)."""
        if v in self.buffer:
            return self.buffer[v]
        buf = self.alloc(v, e, 1)
        if v in self.row_bcast:
            e.add(ascbuf.VRowDupOp(buf, self.row_bcast[v]))
        else:
            e.add(ascbuf.VDupOp(buf, self.splat[v], self.count(e, v.type)))
        return buf

    def _copy_into(self, e: OpEmitter, dst: SSAValue, v: SSAValue) -> None:
        n = self.count(e, v.type)
        if v in self.splat:
            e.add(ascbuf.VDupOp(dst, self.splat[v], n))
        elif str(v.type.element_type) == "bf16":  # no bf16 arithmetic: through f32 and back, exactly
            wide = self.alloc(None, e, 1, TensorType(Float32Type(), v.type.get_shape()))
            e.add(ascbuf.VCastOp(wide, self.buffer[v], n, RoundMode.CAST_NONE))
            e.add(ascbuf.VCastOp(dst, wide, n, RoundMode.CAST_RINT))
        else:
            one = e.constant(1, v.type.element_type)
            e.add(ascbuf.VScalarOp(S.MULS, dst, self.buffer[v], one, n))

    def _row_op(self, op: Operation, dst: SSAValue, e: OpEmitter) -> bool:
        """``x <op> row_broadcast(r)`` as one per-row scalar op; False when both sides are row broadcasts."""
        lhs, rhs = op.operands
        if (lhs in self.row_bcast) == (rhs in self.row_bcast):
            return False
        right = rhs in self.row_bcast
        full, rows = (lhs, self.row_bcast[rhs]) if right else (rhs, self.row_bcast[lhs])
        e.add(ascbuf.VRowOp(ROW_FORMS[(BINARY[op.name], right)], dst, self.operand(e, full), rows))
        return True

    def _compute(self, op: Operation, dst: SSAValue, e: OpEmitter) -> None:
        handler = BUFFER_FORMS.get(type(op))
        if handler is not None:
            handler(self, op, dst, e)
            return
        t = op.results[0].type
        n = self.count(e, t)
        et = t.element_type
        if op.name in BINARY and any(v in self.row_bcast for v in op.operands) and self._row_op(op, dst, e):
            return
        if isinstance(op, asctile.ReduceOp):  # a work area per row, so the rows' reductions do not collide
            rows, pitch = op.input.type.get_shape()
            es = element_bytes(op.input.type.element_type)
            per_row = ascendc.ReduceCountOp.work_elems(pitch, es, False)  # as the ReduceMax page sizes it
            work = self.alloc(None, e, 1, TensorType(op.input.type.element_type, [rows, per_row]))
            e.add(ascbuf.VReduceOp(op.kind.data.value, dst, self.operand(e, op.input), work, op.cols))
            return
        if isinstance(op, asctile.ArgReduceOp):  # value and index bits per row, then the index alone
            rows, pitch = op.input.type.get_shape()
            et = op.input.type.element_type
            es = element_bytes(et)
            per_row = ascendc.ReduceCountOp.work_elems(pitch, es, True)
            pair = self.alloc(None, e, 1, TensorType(et, [rows, dst.type.get_shape()[1]]))
            work = self.alloc(None, e, 1, TensorType(et, [rows, per_row]))
            kind = "argmax" if op.kind.data.value == "max" else "argmin"
            e.add(ascbuf.VReduceOp(kind, pair, self.operand(e, op.input), work, op.cols))
            e.add(ascbuf.RowIndexOp(dst, pair))
            return
        if isinstance(op, asctile.RowBroadcastOp):  # stored as is
            e.add(ascbuf.VRowDupOp(dst, self.operand(e, op.input)))
            return
        if op.name in BINARY:
            kind = BINARY[op.name]
            lhs, rhs = op.operands
            if rhs in self.splat and lhs not in self.splat:
                s = self.splat[rhs]
                const = s.owner.value.value.data if isinstance(s.owner, arith.ConstantOp) else None
                if kind == B.MAX and const == 0:
                    e.add(ascbuf.VUnaryOp(U.RELU, dst, self.buffer[lhs], n))
                elif kind in SCALAR_FORM:
                    e.add(ascbuf.VScalarOp(SCALAR_FORM[kind], dst, self.buffer[lhs], s, n))
                elif kind == B.SUB and const is not None:
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, self.buffer[lhs], e.constant(-const, et), n))
                elif kind == B.SUB and isinstance(s.owner, ascbuf.LoadScalarOp):  # x - s == x + (-s) exactly
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, self.buffer[lhs], self._negated(s), n))
                else:
                    e.add(ascbuf.VBinaryOp(kind, dst, self.buffer[lhs], self.operand(e, rhs), n))
                return
            if lhs in self.splat and rhs not in self.splat:
                s = self.splat[lhs]
                if kind in SCALAR_FORM:
                    e.add(ascbuf.VScalarOp(SCALAR_FORM[kind], dst, self.buffer[rhs], s, n))
                elif kind == B.SUB:
                    e.add(ascbuf.VScalarOp(S.MULS, dst, self.buffer[rhs], e.constant(-1, et), n))
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, dst, s, n))
                else:
                    e.add(ascbuf.VBinaryOp(kind, dst, self.operand(e, lhs), self.buffer[rhs], n))
                return
            e.add(ascbuf.VBinaryOp(kind, dst, self.operand(e, lhs), self.operand(e, rhs), n))
        elif op.name in UNARY:
            kind = UNARY[op.name]
            scratch = self.scratch_for(kind, et, t.element_count())
            e.add(ascbuf.VUnaryOp(kind, dst, self.operand(e, op.operands[0]), n, scratch))
        elif isinstance(op, arith.NegfOp):
            e.add(ascbuf.VScalarOp(S.MULS, dst, self.operand(e, op.operands[0]), e.constant(-1, et), n))
        elif isinstance(op, CASTS):
            src = op.operands[0]
            mode = round_mode(str(src.type.element_type), str(et))
            e.add(ascbuf.VCastOp(dst, self.operand(e, src), n, mode))
        else:
            raise CompileError(f"bufferize: no buffer form for {op.name} on {t} in kernel @{self.kernel.sym_name.data}")


def _alloc_of(buf: SSAValue) -> ascbuf.AllocOp:
    """The ``ascbuf.alloc`` of a buffer or of one slot of it."""
    return buf.owner.buffer.owner if isinstance(buf.owner, ascbuf.SlotOp) else buf.owner


def _valid_count(body: list[Operation]) -> tuple[int, SSAValue] | None:
    """(tile elements, rows x cols) when every tile the loop body loads or stores is moved densely with
    the same row and column counts, not known to fill the tile, and no tile op comes before the first
    load; else None."""
    moves = [op for op in body if isinstance(op, asctile.LoadOp | asctile.StoreOp) and not
             (isinstance(op, asctile.LoadOp) and _scalar_input(op))]
    if not moves or any(op.dense is None for op in moves):
        return None
    first = moves[0]
    if not isinstance(first, asctile.LoadOp) or any(op.rows != first.rows or op.cols != first.cols for op in moves):
        return None
    before = body[:body.index(first)]
    if any(op.results and isinstance(op.results[0].type, TensorType) for op in before):
        return None
    shape = first.result.type.get_shape()
    rows, cols = const_int(first.rows), const_int(first.cols)
    if rows is not None and cols is not None and rows * cols == shape[0] * shape[1]:
        return None  # every tile full: the tile's own count
    valid = OpEmitter(InsertPoint.before(first), first).muli(first.rows, first.cols)
    return shape[0] * shape[1], valid


def _scalar_input(load: asctile.LoadOp) -> bool:
    """A float16/float32 input that is one value for the whole tile (both strides 0), every use of
    which has a scalar form (``+``, ``*``, max, min, or subtracting it): read by the scalar unit (once,
    or once per tile) rather than copied and duplicated into a tile."""
    if load.row_stride.value.data or load.col_stride.value.data:
        return False
    return scalar_operand(load.result)


def _column_input(load: asctile.LoadOp) -> bool:
    """A float16/float32 load of one value per tile row (column stride 0, rows apart in GM)."""
    t = load.result.type
    return (load.col_stride.value.data == 0 and load.row_stride.value.data > 0 and t.get_shape()[0] > 1
            and str(t.element_type) in ("f16", "f32"))


def scalar_operand(v: SSAValue) -> bool:
    """Whether every use of the float16/float32 value ``v`` (one value for a whole tile) has a scalar form,
    so that it takes no buffer (see ``_scalar_input``)."""
    if not v.uses or str(v.type.element_type) not in ("f16", "f32"):
        return False
    for use in v.uses:
        kind = BINARY.get(use.operation.name)
        if kind not in SCALAR_FORM and not (kind == B.SUB and use.index == 1):
            return False
    return True


def bufferize_vector_kernel(kernel: func.FuncOp) -> None:
    """Turn the tile-level vector ``kernel`` into ``ascbuf`` buffers and buffer ops, in place."""
    KernelBufferizer(kernel).run()
