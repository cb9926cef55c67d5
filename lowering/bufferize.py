"""``bufferize``: tile values become UB buffers, tile ops become buffer ops on named pipes.

Every tile value gets its own ``ascbuf.alloc`` (``plan-memory`` shares the memory later):
loaded and stored tiles rotate through ``asctile.buffers`` slots (multi-buffering), the rest
have one, except that an elementwise op whose operand's temporary no later op reads writes into it
(in place). Compute writes into its result's buffer; a splat operand, or an input that is one value
for the whole tensor (read once with ``load_scalar``), becomes the scalar of
``Adds``/``Muls``/``Maxs``/``Mins`` where the vector unit has such a form, else a ``Duplicate``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, math, scf
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.ascbuf import VBinaryKind as B
from pyasc.dialects.ascbuf import VScalarKind as S
from pyasc.dialects.ascbuf import VUnaryKind as U
from pyasc.dialects.ascendc import RoundMode
from pyasc.dialects.target import Pipe
from pyasc.dialects.types import element_bytes, is_float

from .emitter import OpEmitter

BINARY = {
    arith.AddfOp: B.ADD, arith.AddiOp: B.ADD, arith.SubfOp: B.SUB, arith.SubiOp: B.SUB,
    arith.MulfOp: B.MUL, arith.MuliOp: B.MUL, arith.DivfOp: B.DIV,
    arith.MaximumfOp: B.MAX, arith.MaxSIOp: B.MAX, arith.MinimumfOp: B.MIN, arith.MinSIOp: B.MIN,
}
SCALAR_FORM = {B.ADD: S.ADDS, B.MUL: S.MULS, B.MAX: S.MAXS, B.MIN: S.MINS}
UNARY = {math.ExpOp: U.EXP, math.LogOp: U.LN, math.SqrtOp: U.SQRT, math.RsqrtOp: U.RSQRT, math.AbsFOp: U.ABS}
CASTS = (arith.ExtFOp, arith.TruncFOp, asctile.CastOp)

# tile op class -> fn(bufferizer, op, dst_buffer, emitter): buffer forms that live in other modules
BUFFERIZERS: dict[type, Callable] = {}


def _f32():
    from xdsl.dialects.builtin import Float32Type

    return Float32Type()


def round_mode(src: str, dst: str) -> RoundMode:
    """The rounding of a conversion: to nearest even, except float->int which truncates (as C and torch)."""
    if dst in ("i32", "i8"):
        return RoundMode.CAST_TRUNC
    if dst == "bf16":
        return RoundMode.CAST_RINT
    return RoundMode.CAST_NONE


def _scalar_const(e: OpEmitter, value: float | int, et) -> SSAValue:
    attr = FloatAttr(float(value), et) if is_float(et) else IntegerAttr(int(value), et)
    return e.value(arith.ConstantOp(attr))


@dataclass
class _KernelBufferizer:
    kernel: func.FuncOp

    def run(self) -> None:
        k = self.kernel
        loop = next(op for op in k.body.block.ops if isinstance(op, scf.ForOp))
        self.iv = loop.body.block.args[0]
        self.slots = k.attributes[asctile.BUFFERS_ATTR].value.data
        self.top = OpEmitter(InsertPoint.at_start(k.body.block))
        # loop-invariant tiles (see tile-elementwise): one copy each, computed once before the loop,
        # with the pipes drained after the loads and again after the compute
        prologue = [op for op in k.body.block.ops
                    if op.results and isinstance(op.results[0].type, TensorType) or isinstance(op, asctile.LoadOp)]
        self.buffer: dict[SSAValue, SSAValue] = {}
        self.splat: dict[SSAValue, SSAValue] = {}
        self.negated: dict[SSAValue, SSAValue] = {}
        self.row_bcast: dict[SSAValue, SSAValue] = {}
        self.prologue_barriers = []
        loads = [op for op in prologue if isinstance(op, asctile.LoadOp)]
        for op in loads:
            e = OpEmitter(InsertPoint.before(loop), op)
            if _scalar_input(op):
                self.splat[op.result] = e.value(ascbuf.LoadScalarOp(op.source, op.offset))
                continue
            dst = self._alloc(op.result, e, 1)
            e.add(ascbuf.CopyInOp(op.source, op.offset, dst, op.rows, op.cols, op.row_stride.value.data,
                                  op.col_stride.value.data, op.dense is not None))
        if any(op.result not in self.splat for op in loads):
            self.prologue_barriers.append(OpEmitter(InsertPoint.before(loop)).add(ascbuf.BarrierOp(Pipe.ALL)))
        computed = [op for op in prologue if not isinstance(op, asctile.LoadOp)]
        for op in computed:
            e = OpEmitter(InsertPoint.before(loop), op)
            if isinstance(op, asctile.SplatOp):
                self.splat[op.result] = op.value
                continue
            self._compute(op, self._alloc(op.results[0], e, 1), e)
        if any(not isinstance(op, asctile.SplatOp) for op in computed):
            self.prologue_barriers.append(OpEmitter(InsertPoint.before(loop)).add(ascbuf.BarrierOp(Pipe.V)))
        body = list(loop.body.block.ops)
        stored = {op.value for op in body if isinstance(op, asctile.StoreOp)}
        loaded = {op.result for op in body if isinstance(op, asctile.LoadOp)}
        position = {op: i for i, op in enumerate(body)}
        for op in body:
            e = OpEmitter(InsertPoint.before(op), op)
            if isinstance(op, asctile.SplatOp):
                self.splat[op.result] = op.value
            elif isinstance(op, asctile.RowBroadcastOp) and op.result not in stored:
                self.row_bcast[op.result] = self._operand(e, op.input)  # materialised only if needed
            elif isinstance(op, asctile.LoadOp):
                dst = self._alloc(op.result, e, self.slots)
                e.add(ascbuf.CopyInOp(op.source, op.offset, dst, op.rows, op.cols,
                                      op.row_stride.value.data, op.col_stride.value.data, op.dense is not None))
            elif isinstance(op, asctile.StoreOp):
                src = self.buffer.get(op.value)
                if src is None or op.value in loaded:  # a splat or an input stored as is: copy it first
                    src = self._alloc(None, e, self.slots, op.value.type)
                    self._copy_into(e, src, op.value)
                e.add(ascbuf.CopyOutOp(src, op.dest, op.offset, op.rows, op.cols, op.row_stride.value.data,
                                       op.dense is not None))
            elif op.results and isinstance(op.results[0].type, TensorType):
                r = op.results[0]
                dst = None if r in stored else self._in_place(op, position, stored | loaded)
                if dst is None:
                    dst = self._alloc(r, e, self.slots if r in stored else 1)
                else:
                    self.buffer[r] = dst
                self._compute(op, dst, e)
        for op in reversed(body):
            if isinstance(op, asctile.LoadOp | asctile.StoreOp | asctile.SplatOp) or (
                    op.results and isinstance(op.results[0].type, TensorType)):
                Rewriter.erase_op(op, safe_erase=False)
        for op in reversed(prologue):
            Rewriter.erase_op(op, safe_erase=False)

    def _alloc(self, value: SSAValue | None, e: OpEmitter, slots: int, type_: TensorType | None = None):
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

    def _in_place(self, op: Operation, position: dict, staged: set) -> SSAValue | None:
        """The temporary buffer of an operand of the elementwise ``op`` that no later op reads, of the
        result's type: the result is computed in place (the vector unit allows a destination that
        overlaps its source completely), so a chain of ops needs no new buffer per step."""
        if not (type(op) in BINARY or type(op) in UNARY or isinstance(op, arith.NegfOp)):
            return None
        if any(v in self.row_bcast for v in op.operands):
            return None
        here = position[op]
        for v in op.operands:
            buf = self.buffer.get(v)
            if buf is None or v in staged or v.owner not in position or v.type != op.results[0].type \
                    or not isinstance(buf.owner, ascbuf.AllocOp) or buf.owner.slots.value.data != 1:
                continue  # a loop-invariant value (computed before the loop) stays for the next tiles
            if all(position.get(u.operation, here + 1) <= here for u in v.uses):
                return buf
        return None

    def _negated(self, s: SSAValue) -> SSAValue:
        """``-s`` of a scalar read by ``load_scalar``, computed once, next to the read."""
        neg = self.negated.get(s)
        if neg is None:
            neg = self.negated[s] = OpEmitter(InsertPoint.after(s.owner), s.owner).value(arith.NegfOp(s))
        return neg

    def _count(self, e: OpEmitter, t) -> SSAValue:
        n = 1
        for d in t.get_shape():
            n *= d
        return self.top.index(n)

    def _operand(self, e: OpEmitter, v: SSAValue) -> SSAValue:
        """A buffer holding ``v`` (a splat or a row broadcast is materialised into a fresh one)."""
        if v in self.buffer:
            return self.buffer[v]
        buf = self._alloc(v, e, 1)
        if v in self.row_bcast:
            e.add(ascbuf.VRowDupOp(buf, self.row_bcast[v]))
        else:
            e.add(ascbuf.VDupOp(buf, self.splat[v], self._count(e, v.type)))
        return buf

    def _copy_into(self, e: OpEmitter, dst: SSAValue, v: SSAValue) -> None:
        n = self._count(e, v.type)
        if v in self.splat:
            e.add(ascbuf.VDupOp(dst, self.splat[v], n))
        elif str(v.type.element_type) == "bf16":  # no bf16 arithmetic: through f32 and back, exactly
            wide = self._alloc(None, e, 1, TensorType(_f32(), v.type.get_shape()))
            e.add(ascbuf.VCastOp(wide, self.buffer[v], n, RoundMode.CAST_NONE))
            e.add(ascbuf.VCastOp(dst, wide, n, RoundMode.CAST_RINT))
        else:
            one = _scalar_const(e, 1, v.type.element_type)
            e.add(ascbuf.VScalarOp(S.MULS, dst, self.buffer[v], one, n))

    def _compute(self, op: Operation, dst: SSAValue, e: OpEmitter) -> None:
        handler = BUFFERIZERS.get(type(op))
        if handler is not None:
            handler(self, op, dst, e)
            return
        t = op.results[0].type
        n = self._count(e, t)
        et = t.element_type
        if type(op) in BINARY and any(v in self.row_bcast for v in op.operands) and self._row_op(op, dst, e):
            return
        if isinstance(op, asctile.ReduceOp):  # a work area per row, so the rows' reductions do not collide
            rows, pitch = op.input.type.get_shape()
            es = element_bytes(op.input.type.element_type)
            per_row = -(-(-(-pitch * es // 256)) * es // 32) * 32 // es  # one partial per 256 B repeat, 32 B aligned
            work = self._alloc(None, e, 1, TensorType(op.input.type.element_type, [rows, per_row]))
            e.add(ascbuf.VReduceOp(op.kind.data.value, dst, self._operand(e, op.input), work, op.cols))
            return
        if isinstance(op, asctile.ArgReduceOp):  # value and index bits per row, then the index alone
            rows, pitch = op.input.type.get_shape()
            et = op.input.type.element_type
            es = element_bytes(et)
            per_row = -(-(-(-pitch * es // 256)) * es // 32) * 32 // es
            pair = self._alloc(None, e, 1, TensorType(et, [rows, dst.type.get_shape()[1]]))
            work = self._alloc(None, e, 1, TensorType(et, [rows, per_row]))
            kind = "argmax" if op.kind.data.value == "max" else "argmin"
            e.add(ascbuf.VReduceOp(kind, pair, self._operand(e, op.input), work, op.cols))
            e.add(ascbuf.RowIndexOp(dst, pair))
            return
        if isinstance(op, asctile.RowBroadcastOp):  # stored as is
            e.add(ascbuf.VRowDupOp(dst, self._operand(e, op.input)))
            return
        if type(op) in BINARY:
            kind = BINARY[type(op)]
            lhs, rhs = op.operands
            if rhs in self.splat and lhs not in self.splat:
                s = self.splat[rhs]
                const = s.owner.value.value.data if isinstance(s.owner, arith.ConstantOp) else None
                if kind == B.MAX and const == 0:
                    e.add(ascbuf.VUnaryOp(U.RELU, dst, self.buffer[lhs], n))
                elif kind in SCALAR_FORM:
                    e.add(ascbuf.VScalarOp(SCALAR_FORM[kind], dst, self.buffer[lhs], s, n))
                elif kind == B.SUB and const is not None:
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, self.buffer[lhs], _scalar_const(e, -const, et), n))
                elif kind == B.SUB and isinstance(s.owner, ascbuf.LoadScalarOp):  # x - s == x + (-s) exactly
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, self.buffer[lhs], self._negated(s), n))
                else:
                    e.add(ascbuf.VBinaryOp(kind, dst, self.buffer[lhs], self._operand(e, rhs), n))
                return
            if lhs in self.splat and rhs not in self.splat:
                s = self.splat[lhs]
                if kind in SCALAR_FORM:
                    e.add(ascbuf.VScalarOp(SCALAR_FORM[kind], dst, self.buffer[rhs], s, n))
                elif kind == B.SUB:
                    e.add(ascbuf.VScalarOp(S.MULS, dst, self.buffer[rhs], _scalar_const(e, -1, et), n))
                    e.add(ascbuf.VScalarOp(S.ADDS, dst, dst, s, n))
                else:
                    e.add(ascbuf.VBinaryOp(kind, dst, self._operand(e, lhs), self.buffer[rhs], n))
                return
            e.add(ascbuf.VBinaryOp(kind, dst, self._operand(e, lhs), self._operand(e, rhs), n))
        elif type(op) in UNARY:
            e.add(ascbuf.VUnaryOp(UNARY[type(op)], dst, self._operand(e, op.operands[0]), n))
        elif isinstance(op, arith.NegfOp):
            e.add(ascbuf.VScalarOp(S.MULS, dst, self._operand(e, op.operands[0]), _scalar_const(e, -1, et), n))
        elif isinstance(op, CASTS):
            src = op.operands[0]
            mode = round_mode(str(src.type.element_type), str(et))
            e.add(ascbuf.VCastOp(dst, self._operand(e, src), n, mode))
        else:
            raise ValueError(f"bufferize: no buffer form for {op.name} on {t} in kernel @{self.kernel.sym_name.data}")


def _scalar_input(load: asctile.LoadOp) -> bool:
    """A float16/float32 input that is one value for the whole tile (both strides 0), every use of
    which has a scalar form (``+``, ``*``, max, min, or subtracting it): read once as a scalar rather
    than copied and duplicated into a tile."""
    if load.row_stride.value.data or load.col_stride.value.data or not load.result.uses:
        return False
    if str(load.result.type.element_type) not in ("f16", "f32"):
        return False
    for use in load.result.uses:
        kind = BINARY.get(type(use.operation))
        if kind not in SCALAR_FORM and not (kind == B.SUB and use.index == 1):
            return False
    return True


ROW_FORMS = {  # (binary kind, row value on the right) -> vrow kind
    (B.ADD, True): "add", (B.ADD, False): "add", (B.MUL, True): "mul", (B.MUL, False): "mul",
    (B.MAX, True): "max", (B.MAX, False): "max", (B.MIN, True): "min", (B.MIN, False): "min",
    (B.SUB, True): "sub", (B.SUB, False): "rsub", (B.DIV, True): "div", (B.DIV, False): "rdiv",
}


def _row_op(self, op: Operation, dst: SSAValue, e: OpEmitter) -> bool:
    """``x <op> row_broadcast(r)`` as one per-row scalar op; False when both sides are row broadcasts."""
    lhs, rhs = op.operands
    if (lhs in self.row_bcast) == (rhs in self.row_bcast):
        return False
    right = rhs in self.row_bcast
    full, rows = (lhs, self.row_bcast[rhs]) if right else (rhs, self.row_bcast[lhs])
    e.add(ascbuf.VRowOp(ROW_FORMS[(BINARY[type(op)], right)], dst, self._operand(e, full), rows))
    return True


_KernelBufferizer._row_op = _row_op


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """Turn every ``asctile`` kernel into ``ascbuf`` buffers and buffer ops."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from pyasc.dialects.asctile.mix import CoreKind

        from .mix_parts import core_parts, is_mix_kernel, lower_handoffs

        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and is_vector_kernel(f):
                _KernelBufferizer(f).run()
            elif isinstance(f, func.FuncOp) and is_mix_kernel(f):
                with core_parts(f) as parts:
                    _KernelBufferizer(parts[CoreKind.AIV]).run()
                    lower_handoffs(parts[CoreKind.AIV])


def is_vector_kernel(f: func.FuncOp) -> bool:
    """A tile kernel for the vector cores (``asctile.kernel`` unit, or the string ``"vector"``);
    cube kernels (``"cube"``) are bufferized by the cube passes."""
    attr = f.attributes.get(asctile.KERNEL_ATTR)
    return attr is not None and not (isinstance(attr, StringAttr) and attr.data != "vector")


from . import compare_select  # noqa: E402,F401 - registers the compare/select bufferizers and translators
from . import gather  # noqa: E402,F401 - registers the gather bufferizers and translators
