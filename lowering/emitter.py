"""Small helpers to build op sequences in front of an op, carrying its source location."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IndexType, IntegerAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import asctensor
from pyasc.dialects.types import is_float

LOC_ATTR = "asc.loc"


def copy_loc(src: Operation, dst: Operation) -> Operation:
    if LOC_ATTR in src.attributes and LOC_ATTR not in dst.attributes:
        dst.attributes[LOC_ATTR] = src.attributes[LOC_ATTR]
    return dst


def exact_copy(v: SSAValue) -> list[Operation]:
    """Ops computing an exact copy of ``v``; the last one gives it. The vector unit computes no bf16
    (through f32 and back), no int8 (through f16) and no bool (a select of 1.0 or 0.0 compared with 0)."""
    et, shape = str(v.type.element_type), v.type.get_shape()
    if et in ("bf16", "i8"):
        wide = asctensor.CastOp(v, TensorType(Float32Type() if et == "bf16" else Float16Type(), shape))
        return [wide, asctensor.CastOp(wide.result, v.type)]
    if et == "i1":
        one, zero = (asctensor.FullOp(c, TensorType(Float16Type(), shape)) for c in (1.0, 0.0))
        sel = asctensor.SelectOp(v, one.result, zero.result)
        return [one, zero, sel, asctensor.CompareOp("ne", sel.result, zero.result)]
    one = asctensor.FullOp(1 if et in asctensor.INT_TYPES else 1.0, v.type)
    mul = arith.MuliOp if et in asctensor.INT_TYPES else arith.MulfOp
    return [one, mul(v, one.result)]


class OpEmitter:
    """Inserts ops at an insertion point; every op gets the source location of ``loc_from``."""

    def __init__(self, point: InsertPoint, loc_from: Operation | None = None):
        self.point = point
        self.loc_from = loc_from
        self._index_cache: dict[int, SSAValue] = {}

    def add(self, op: Operation) -> Operation:
        if self.loc_from is not None:
            copy_loc(self.loc_from, op)
        Rewriter.insert_op(op, self.point)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.add(op).results[0]

    def constant(self, value: float | int, element_type) -> SSAValue:
        """A scalar ``arith.constant`` of ``element_type``."""
        if is_float(element_type):
            return self.value(arith.ConstantOp(FloatAttr(float(value), element_type)))
        return self.value(arith.ConstantOp(IntegerAttr(int(value), element_type)))

    def index(self, v: int) -> SSAValue:
        """An ``index`` constant (one per value and emitter)."""
        if v not in self._index_cache:
            self._index_cache[v] = self.value(arith.ConstantOp(IntegerAttr(v, IndexType())))
        return self._index_cache[v]

    # index arithmetic that folds constants as it builds
    def _const_of(self, v: SSAValue) -> int | None:
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return owner.value.value.data
        return None

    def muli(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(ca * cb)
        if ca == 1 or cb == 0:
            return b
        if cb == 1 or ca == 0:
            return a
        return self.value(arith.MuliOp(a, b))

    def addi(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.value(arith.AddiOp(a, b))

    def subi(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(ca - cb)
        if cb == 0:
            return a
        return self.value(arith.SubiOp(a, b))

    def divui(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(ca // cb)
        if cb == 1:
            return a
        return self.value(arith.DivUIOp(a, b))

    def remui(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(ca % cb)
        if cb == 1:
            return self.index(0)
        return self.value(arith.RemUIOp(a, b))

    def minui(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(min(ca, cb))
        return self.value(arith.MinUIOp(a, b))

    def maxui(self, a: SSAValue | int, b: SSAValue | int) -> SSAValue:
        a, b = self._as_value(a), self._as_value(b)
        ca, cb = self._const_of(a), self._const_of(b)
        if ca is not None and cb is not None:
            return self.index(max(ca, cb))
        return self.value(arith.MaxUIOp(a, b))

    def _as_value(self, v: SSAValue | int) -> SSAValue:
        return self.index(v) if isinstance(v, int) else v


def when(e: OpEmitter, cond: SSAValue) -> OpEmitter:
    """An emitter into the body of a new ``scf.if cond`` (added at ``e``)."""
    block = Block()
    e.add(scf.IfOp(cond, [], Region(block)))
    block.add_op(scf.YieldOp())
    return OpEmitter(InsertPoint.before(block.last_op), e.loc_from)


def branches(e: OpEmitter, cond: SSAValue) -> tuple[OpEmitter, OpEmitter]:
    """Emitters into the ``then`` and the ``else`` body of a new ``scf.if cond`` (added at ``e``)."""
    bodies = Block(), Block()
    e.add(scf.IfOp(cond, [], Region(bodies[0]), Region(bodies[1])))
    for b in bodies:
        b.add_op(scf.YieldOp())
    return tuple(OpEmitter(InsertPoint.before(b.last_op), e.loc_from) for b in bodies)


def extent_values(v: SSAValue) -> frozenset[int] | None:
    """The values an index can take: a constant, or ``min(n - i * r, r)`` with a constant ``r`` and ``n`` a constant
    or itself such an extent (the rows or columns of a loop's tiles, and of the steps within a tile: ``r``, and
    ``n mod r`` for the last one when ``r`` does not divide ``n``); else None."""
    c = constant_of(v)
    if c is not None:
        return frozenset((c,))
    if not isinstance(v.owner, arith.MinUIOp):
        return None
    rest, r = v.owner.lhs, constant_of(v.owner.rhs)
    if r is None or not r or not isinstance(rest.owner, arith.SubiOp):
        return None
    ns, off = extent_values(rest.owner.lhs), rest.owner.rhs
    if ns is None or not isinstance(off.owner, arith.MuliOp) or r not in (
            constant_of(off.owner.lhs), constant_of(off.owner.rhs)):
        return None
    return frozenset(x for n in ns for x in ((r, n % r) if n >= r else (n,))) - {0}


def constant_of(v: SSAValue) -> int | None:
    """The integer of an index constant, else None."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def repeat(e: OpEmitter, n: int, make) -> None:
    """``n`` copies of an op: inline up to 2, else an ``scf.for``."""
    if n <= 2:
        for _ in range(n):
            e.add(make())
        return
    body = Block(arg_types=[IndexType()])
    e.add(scf.ForOp(e.index(0), e.index(n), e.index(1), [], body))
    inner = OpEmitter(InsertPoint.at_end(body), e.loc_from)
    inner.add(make())
    body.add_op(scf.YieldOp())
