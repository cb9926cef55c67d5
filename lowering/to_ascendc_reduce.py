"""Ascend C for the buffer-level reductions and per-row ops (translations of ``convert-ascbuf-to-ascendc``).

* ``vreduce``: one ``ReduceSum``/``ReduceMax``/``ReduceMin`` per row, the result at the row's
  slot of the row buffer, each row with its own part of the work buffer;
* ``vrow``: per row, the scalar unit reads the row value (``GetValue``) and issues one
  ``Adds``/``Muls``/``Maxs``/``Mins`` over the row (``x - r`` adds ``-r``, ``x / r`` multiplies by
  ``1 / r``); ``r - x`` and ``r / x`` take two instructions with a ``PipeBarrier<PIPE_V>`` between;
* ``vrow_dup``: per row, ``Duplicate`` of the row value.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from pyasc.dialects import ascbuf, ascendc
from pyasc.dialects.ascendc import PipeKind

from .emitter import OpEmitter
from .errors import CompileError

REDUCE = {"sum": ascendc.ReduceSumOp, "max": ascendc.ReduceMaxOp, "min": ascendc.ReduceMinOp}
SCALAR = {"add": ascendc.AddsOp, "mul": ascendc.MulsOp, "max": ascendc.MaxsOp, "min": ascendc.MinsOp}


def _row_loop(e: OpEmitter, rows: int, anchor) -> tuple[OpEmitter, object]:
    """``for (r = 0; r < rows; ++r)``: an emitter inside the loop body and ``r``."""
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "r"
    e.add(scf.ForOp(e.index(0), e.index(rows), e.index(1), [], body))
    return OpEmitter(InsertPoint.at_end(body), anchor), body


def _finish(body: Block) -> None:
    body.add_op(scf.YieldOp())


def vreduce(lw, op: ascbuf.VReduceOp, e: OpEmitter) -> None:
    kind = op.kind.data.value
    with_index = kind in ("argmax", "argmin")
    kind = {"argmax": "max", "argmin": "min"}.get(kind, kind)
    if kind not in REDUCE:
        raise CompileError(f"{op.name} {kind}: the vector unit has no {kind} reduction (ReduceSum/Max/Min only)")
    dst, src, work = lw.tensor(op.dst, e), lw.tensor(op.src, e), lw.tensor(op.work, e)
    rows, pitch = op.src.type.get_shape()
    rpitch = op.dst.type.get_shape()[1]
    cols = lw.map[op.cols]
    be, body = _row_loop(e, rows, op)
    r = body.args[0]
    drow = be.value(ascendc.SubviewOp(dst, be.muli(r, rpitch)))
    srow = be.value(ascendc.SubviewOp(src, be.muli(r, pitch)))
    wrow = be.value(ascendc.SubviewOp(work, be.muli(r, op.work.type.get_shape()[1])))
    be.add(REDUCE[kind](drow, srow, wrow, cols, with_index) if with_index else REDUCE[kind](drow, srow, wrow, cols))
    _finish(body)


def row_index(lw, op: ascbuf.RowIndexOp, e: OpEmitter) -> None:
    """Per row: the index bits next to the value (element 1 of the row's slot) into the i32 row buffer."""
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    i32 = op.dst.type.element_type
    bits = e.value(ascendc.ReinterpretCastOp(src, i32))
    rows, rpitch = op.src.type.get_shape()
    dpitch = op.dst.type.get_shape()[1]
    be, body = _row_loop(e, rows, op)
    r = body.args[0]
    idx = be.value(ascendc.GetValueOp(bits, be.addi(be.muli(r, rpitch), 1)))
    be.add(ascendc.SetValueOp(dst, be.muli(r, dpitch), idx))
    _finish(body)


def _row_value(lw, op, e: OpEmitter, be: OpEmitter, r):
    rows_t = lw.tensor(op.rows, e)
    rpitch = op.rows.type.get_shape()[1]
    return be.value(ascendc.GetValueOp(rows_t, be.muli(r, rpitch)))


def vrow(lw, op: ascbuf.VRowOp, e: OpEmitter) -> None:
    kind = op.kind.data.value
    dst, src = lw.tensor(op.dst, e), lw.tensor(op.src, e)
    rows, pitch = op.src.type.get_shape()
    et = op.src.type.element_type
    be, body = _row_loop(e, rows, op)
    r = body.args[0]
    v = _row_value(lw, op, e, be, r)
    drow = be.value(ascendc.SubviewOp(dst, be.muli(r, pitch)))
    srow = be.value(ascendc.SubviewOp(src, be.muli(r, pitch)))
    n = be.index(pitch)
    if kind in SCALAR:
        be.add(SCALAR[kind](drow, srow, v, n))
    elif kind == "sub":
        be.add(ascendc.AddsOp(drow, srow, be.value(arith.NegfOp(v)), n))
    elif kind == "div":
        one = be.value(arith.ConstantOp(FloatAttr(1.0, et)))
        be.add(ascendc.MulsOp(drow, srow, be.value(arith.DivfOp(one, v)), n))
    elif kind == "rsub":
        minus_one = be.value(arith.ConstantOp(FloatAttr(-1.0, et)))
        be.add(ascendc.MulsOp(drow, srow, minus_one, n))
        be.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        be.add(ascendc.AddsOp(drow, drow, v, n))
    else:  # rdiv
        be.add(ascendc.DuplicateOp(drow, v, n))
        be.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        be.add(ascendc.DivOp(drow, drow, srow, n))
    _finish(body)


def vrow_dup(lw, op: ascbuf.VRowDupOp, e: OpEmitter) -> None:
    dst = lw.tensor(op.dst, e)
    rows, pitch = op.dst.type.get_shape()
    be, body = _row_loop(e, rows, op)
    r = body.args[0]
    v = _row_value(lw, op, e, be, r)
    be.add(ascendc.DuplicateOp(be.value(ascendc.SubviewOp(dst, be.muli(r, pitch))), v, be.index(pitch)))
    _finish(body)

