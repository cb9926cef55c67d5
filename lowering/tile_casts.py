"""Element type conversions of tiles, as the steps the vector unit's ``Cast`` can take.

``Cast`` converts the pairs in ``ascendc.CAST_PAIRS``; another pair goes through float32 (e.g.
i32 -> bf16) or, for int8, through float16, the only type int8 converts to and from:

* ``i8 -> T``: i8 -> f16 (exact), then f16 -> T.
* ``T -> i8`` of a value converted from int8 (in range): T -> f16 -> i8, exact.
* ``T -> i8`` otherwise keeps NumPy's and PyTorch's result: truncation toward zero, then the value modulo 256
  in [-128, 127] (``300.7 -> 44``). With ``v`` the truncated int32:
  ``q = trunc(f32(v) / 256)`` (off by at most one), ``r = v - 256 q`` (exact int32, |r| < 512),
  ``w = r + 640 - 256 trunc((r + 640) / 256) - 128`` in float32 (exact: ``r + 640`` is positive and
  small; 640 = 128 mod 256), then w -> f16 -> i8, both exact.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float16Type, Float32Type, FloatAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue

from pyasc.dialects import asctile
from pyasc.dialects.ascendc import CAST_PAIRS
from pyasc.dialects.types import is_float

from .errors import TilingError


class _Steps:
    """Ops appended in order; each helper returns its result value."""

    def __init__(self, shape):
        self.shape = shape
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def tile(self, et) -> TensorType:
        return TensorType(et, self.shape)

    def splat(self, value, et) -> SSAValue:
        attr = FloatAttr(float(value), et) if is_float(et) else IntegerAttr(int(value), et)
        return self.add(asctile.SplatOp(self.add(arith.ConstantOp(attr)), self.tile(et)))

    def cast(self, v: SSAValue, et) -> SSAValue:
        for op in cast_ops(v, self.tile(et)):
            v = self.add(op)
        return v


def _direct(src: SSAValue, dst_tile: TensorType) -> Operation:
    if is_float(src.type.element_type) and is_float(dst_tile.element_type):
        return arith.TruncFOp(src, dst_tile) if str(src.type.element_type) == "f32" else arith.ExtFOp(src, dst_tile)
    return asctile.CastOp(src, dst_tile)  # int <-> float (arith's casts take scalars only)


def _to_int8(src: SSAValue, dst_tile: TensorType) -> list[Operation]:
    st = _Steps(dst_tile.get_shape())
    i32, f32 = IntegerType(32), Float32Type()
    v = src if str(src.type.element_type) == "i32" else st.cast(src, i32)  # truncates toward zero
    scaled = st.add(arith.MulfOp(st.cast(v, f32), st.splat(1 / 256, f32)))
    q = st.cast(scaled, i32)
    r = st.add(arith.SubiOp(v, st.add(arith.MuliOp(q, st.splat(256, i32)))))
    shifted = st.add(arith.AddfOp(st.cast(r, f32), st.splat(640, f32)))
    q2 = st.cast(st.cast(st.add(arith.MulfOp(shifted, st.splat(1 / 256, f32))), i32), f32)
    w = st.add(arith.SubfOp(shifted, st.add(arith.MulfOp(q2, st.splat(256, f32)))))
    w = st.add(arith.AddfOp(w, st.splat(-128, f32)))
    st.add(asctile.CastOp(st.cast(w, Float16Type()), dst_tile))
    return st.ops


def _int8_valued(v: SSAValue) -> bool:
    """Whether ``v`` comes from an int8 value through conversions only: every type holds int8's
    values exactly, so it is in int8's range and integral."""
    while isinstance(v.owner, asctile.CastOp | arith.ExtFOp | arith.TruncFOp):
        v = v.owner.operands[0]
        if str(v.type.element_type) == "i8":
            return True
    return False


def cast_ops(src: SSAValue, dst_tile: TensorType) -> list[Operation]:
    """The tile ops converting ``src`` to ``dst_tile``'s element type; the last one gives the result."""
    s, d = str(src.type.element_type), str(dst_tile.element_type)
    if d == "i8" and not _int8_valued(src):
        return _to_int8(src, dst_tile)
    if (s, d) in CAST_PAIRS:
        return [_direct(src, dst_tile)]
    mid_type = Float16Type() if "i8" in (s, d) else Float32Type()
    if str(mid_type) in (s, d):
        raise TilingError(f"asctensor.cast from {s} to {d} is not supported")
    first = cast_ops(src, TensorType(mid_type, dst_tile.get_shape()))
    return first + cast_ops(first[-1].results[0], dst_tile)
