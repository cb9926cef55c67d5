"""Comparisons and ``select`` below the tile level: their buffer forms (``vector_bufferizer``) and their
Ascend C (``convert-ascbuf-to-ascendc``).

Bool representation. A bool tile value (``tensor<rows x pitch x i1>``) has two buffer forms:

* a *mask* (``memref<N x ui8>``, one bit per element, ``N = ceil(rows * pitch / 8)``): what
  ``Compare``/``Compares`` write and ``Select`` reads; every comparison produces one;
* *bytes* (``memref<rows x pitch x i1>``, one byte 0/1 per element): the GM layout of a bool
  tensor, so a loaded bool tile and a stored one use it.

A comparison writes the mask; only if its result is stored is the byte form made as well
(``mask_to_bool``: Select of 1/0 into half, Cast half -> uint8). A loaded bool used as a condition is
turned into a mask once (``bool_to_mask``: Cast uint8 -> half, Compares ``!= 0``). Comparisons of a
value with a splat use ``Compares``; ``select`` with a splat false value uses the tensor-scalar mode
of ``Select`` (a splat true value is duplicated into a buffer). bf16 operands are compared through
float32 (exact); i32 and bf16 values are selected as float/half bit patterns.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IntegerType, Signedness, TensorType
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter

from pyasc.dialects import ascbuf, ascendc, asctensor, asctile
from pyasc.dialects.ascendc import CmpMode, PipeKind, RoundMode, const_int
from pyasc.dialects.types import element_bytes

from .emitter import OpEmitter
from .errors import CompileError

UI8 = IntegerType(8, Signedness.UNSIGNED)


def _elems(t) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _new_mask(bz, e: OpEmitter, t) -> SSAValue:
    return bz.alloc(None, e, 1, TensorType(UI8, [-(-_elems(t) // 8)]))


def _mask_of(bz, e: OpEmitter, v: SSAValue) -> SSAValue:
    """The mask buffer of bool tile ``v`` (a loaded bool is converted once)."""
    masks = bz.masks
    if v not in masks:
        if v in bz.splat:  # a constant condition: a splat of true/false
            raise ValueError("select on a constant condition should have been folded")
        mask = _new_mask(bz, e, v.type)
        work = bz.alloc(None, e, 1, TensorType(Float16Type(), v.type.get_shape()))
        e.add(ascbuf.BoolToMaskOp(mask, bz.buffer[v], work, bz.count(e, v.type)))
        masks[v] = mask
    return masks[v]


def _drop_alloc(dst: SSAValue) -> None:
    if isinstance(dst.owner, ascbuf.AllocOp) and not dst.uses:
        Rewriter.erase_op(dst.owner)


def bufferize_compare(bz, op: asctensor.CompareOp, dst: SSAValue, e: OpEmitter) -> None:
    lhs, rhs = op.lhs, op.rhs
    t = lhs.type
    n = bz.count(e, t)
    pred = op.pred.value
    mask = _new_mask(bz, e, t)
    wide = str(t.element_type) == "bf16"

    def operand(v):
        if not wide:
            return bz.operand(e, v)
        w = bz.alloc(None, e, 1, TensorType(Float32Type(), t.get_shape()))
        e.add(ascbuf.VCastOp(w, bz.operand(e, v), n, RoundMode.CAST_NONE))
        return w

    def scalar(v):
        s = bz.splat[v]
        if not wide:
            return s
        return e.constant(s.owner.value.value.data, Float32Type())

    swapped = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "eq": "eq", "ne": "ne"}
    if rhs in bz.splat and lhs not in bz.splat:
        e.add(ascbuf.VCompareScalarOp(pred, mask, operand(lhs), scalar(rhs), n))
    elif lhs in bz.splat and rhs not in bz.splat:
        e.add(ascbuf.VCompareScalarOp(swapped[pred], mask, operand(rhs), scalar(lhs), n))
    else:
        a = operand(lhs)
        b = a if rhs is lhs else operand(rhs)
        e.add(ascbuf.VCompareOp(pred, mask, a, b, n))
    bz.masks[op.result] = mask
    if any(isinstance(u.operation, asctile.StoreOp) for u in op.result.uses):
        work = bz.alloc(None, e, 1, TensorType(Float16Type(), t.get_shape()))
        e.add(ascbuf.MaskToBoolOp(dst, mask, work, n))
    else:
        bz.buffer.pop(op.result, None)
        _drop_alloc(dst)


def bufferize_select(bz, op: asctensor.SelectOp, dst: SSAValue, e: OpEmitter) -> None:
    t = op.result.type
    n = bz.count(e, t)
    mask = _mask_of(bz, e, op.cond)
    x, y = op.true_value, op.false_value
    if y in bz.splat and _keeps_bits(bz.splat[y], t.element_type):
        e.add(ascbuf.VSelectScalarOp(dst, mask, bz.operand(e, x), bz.splat[y], n))
    else:
        e.add(ascbuf.VSelectOp(dst, mask, bz.operand(e, x), bz.operand(e, y), n))


# ---------------------------------------------------------------------------------------------- ascendc

_MODES = {"eq": CmpMode.EQ, "ne": CmpMode.NE, "lt": CmpMode.LT, "le": CmpMode.LE, "gt": CmpMode.GT,
          "ge": CmpMode.GE}
_AS_SELECTABLE = {"i32": "f32", "bf16": "f16"}  # Select moves bits: 32/16-bit values as float/half


def _count(lw, op):
    return lw.map.get(op.count, op.count)


def _selectable(lw, e: OpEmitter, v: SSAValue) -> SSAValue:
    t = lw.tensor(v, e)
    name = _AS_SELECTABLE.get(str(v.type.element_type))
    if name is None:
        return t
    from pyasc.dialects.types import element_type

    return e.value(ascendc.ReinterpretCastOp(t, element_type(name)))


def _selected_bits(s: SSAValue, et):
    """The constant scalar ``s`` of ``et`` as the type Select moves it as (``_AS_SELECTABLE``: i32 -> f32 bits,
    bf16 -> f16 bits), a NumPy scalar; None when ``et`` moves as it is or ``s`` is no constant."""
    name = _AS_SELECTABLE.get(str(et))
    if name is None or not isinstance(s.owner, arith.ConstantOp):
        return None
    import numpy as np

    from pyasc.dialects.types import element_type, numpy_dtype

    return np.asarray(s.owner.value.value.data, dtype=numpy_dtype(et)).view(numpy_dtype(element_type(name)))


def _keeps_bits(s: SSAValue, et) -> bool:
    """Whether the scalar ``s`` of ``et`` survives as a Select scalar: a value whose bits are a NaN or an infinity
    in the type Select moves it as (bf16 -inf is a half NaN, i32 -1 a float NaN) would reach the kernel as a
    canonical NaN, so such a splat is selected from a duplicated buffer instead."""
    import numpy as np

    bits = _selected_bits(s, et)
    return bits is None or bool(np.isfinite(bits))


def _scalar_bits(lw, e: OpEmitter, op, s: SSAValue) -> SSAValue:
    """The scalar of a Select in the type the values are selected as (i32 -> f32 bits)."""
    et = str(op.dst.type.element_type)
    if et not in _AS_SELECTABLE:
        return lw.map[s]
    bits = _selected_bits(s, op.dst.type.element_type)
    if bits is None:
        raise CompileError(f"{op.name}: the scalar of a {et} select must be a constant")
    from pyasc.dialects.types import element_type

    return e.value(arith.ConstantOp(FloatAttr(float(bits), element_type(_AS_SELECTABLE[et]))))


def _whole_repeats(lw, op, src: SSAValue, e: OpEmitter) -> SSAValue:
    """The count of a Compare rounded up to whole 256 B repeats (the hardware computes no partial one;
    UB buffers are sized in whole repeats, and the mask bits past the count are never read)."""
    per = 256 // element_bytes(src.type.element_type)
    n = _count(lw, op)
    c = const_int(n)
    if c is not None:
        return e.index(-(-c // per) * per)
    up = e.value(arith.AddiOp(n, e.index(per - 1)))
    return e.value(arith.MuliOp(e.value(arith.DivUIOp(up, e.index(per))), e.index(per)))


def translate_compare(lw, op: ascbuf.VCompareOp, e: OpEmitter) -> None:
    e.add(ascendc.CompareOp(lw.tensor(op.mask, e), lw.tensor(op.lhs, e), lw.tensor(op.rhs, e),
                            _MODES[op.predicate.data.value], _whole_repeats(lw, op, op.lhs, e)))


def translate_compare_scalar(lw, op: ascbuf.VCompareScalarOp, e: OpEmitter) -> None:
    e.add(ascendc.ComparesOp(lw.tensor(op.mask, e), lw.tensor(op.src, e), lw.map[op.scalar],
                             _MODES[op.predicate.data.value], _whole_repeats(lw, op, op.src, e)))


def translate_select(lw, op: ascbuf.VSelectOp, e: OpEmitter) -> None:
    e.add(ascendc.SelectOp(_selectable(lw, e, op.dst), lw.tensor(op.mask, e), _selectable(lw, e, op.x),
                           _selectable(lw, e, op.y), _count(lw, op)))


def translate_select_scalar(lw, op: ascbuf.VSelectScalarOp, e: OpEmitter) -> None:
    e.add(ascendc.SelectScalarOp(_selectable(lw, e, op.dst), lw.tensor(op.mask, e), _selectable(lw, e, op.x),
                                 _scalar_bits(lw, e, op, op.scalar), _count(lw, op)))


def translate_mask_to_bool(lw, op: ascbuf.MaskToBoolOp, e: OpEmitter) -> None:
    n = _count(lw, op)
    work, mask = lw.tensor(op.work, e), lw.tensor(op.mask, e)
    f16 = Float16Type()
    e.add(ascendc.DuplicateOp(work, e.value(arith.ConstantOp(FloatAttr(1.0, f16))), n))
    e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
    e.add(ascendc.SelectScalarOp(work, mask, work, e.value(arith.ConstantOp(FloatAttr(0.0, f16))), n))
    e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
    dst = e.value(ascendc.ReinterpretCastOp(lw.tensor(op.dst, e), UI8))
    e.add(ascendc.CastOp(dst, work, n, RoundMode.CAST_ROUND))


def translate_bool_to_mask(lw, op: ascbuf.BoolToMaskOp, e: OpEmitter) -> None:
    n = _count(lw, op)
    work = lw.tensor(op.work, e)
    src = e.value(ascendc.ReinterpretCastOp(lw.tensor(op.src, e), UI8))
    e.add(ascendc.CastOp(work, src, n, RoundMode.CAST_NONE))
    e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
    zero = e.value(arith.ConstantOp(FloatAttr(0.0, Float16Type())))
    e.add(ascendc.ComparesOp(lw.tensor(op.mask, e), work, zero, CmpMode.NE, _whole_repeats(lw, op, op.work, e)))

