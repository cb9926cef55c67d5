"""The ``ascendc`` dialect, part 2: vector compute on PIPE_V, count form ``Op(dst, src..., count)``.

A vector instruction is one class: ``API`` (its Ascend C name, printed by the family's ``CALL``),
``COST`` (its cost class), ``numpy_operation`` (its semantics: a static method computing into the
``dst`` view, which the simulator calls on views of UB, one row per core for a group of cores),
``IMPLEMENTS`` (the names of the upstream ops on tensors it computes), ``DTYPES`` and the traits of its family.
NumPy is imported by the semantics when the simulator first runs them, not with the dialect.
A new unary instruction is a subclass of ``VectorUnaryOp`` here, plus its declaration in
``lowering/emit/include/kernel_operator.h`` and its CPU implementation in
``lowering/emit/cpu/pyasc_cpu_impl.h``.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import AnyAttr, VarConstraint, base, operand_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..lazy_numpy import LazyModule, LazyNumPy
from ..target import Pipe, VectorCost
from ..traits import BufferEffects, CarriesUndefined, OnPipe
from .attributes import LocalTensorType, RoundMode, RoundModeAttr
from .base import AscendCOperation

np = LazyNumPy(globals())  # NumPy on first use (parsing and printing IR do not load it)
numerics = LazyModule(globals(), "numerics", ".numerics")  # Cast's round modes, Rsqrt; NumPy too


# vector compute (PIPE_V), count form: ``Op(dst, src..., count)``

_VECTOR_DTYPES = ("f16", "f32", "i32", "i16")


def _check_vector_dtype(op: str, t: LocalTensorType, allowed=_VECTOR_DTYPES) -> None:
    et = str(t.element_type)
    if et not in allowed:
        raise VerifyException(f"{op} does not support element type {et} (supported: {', '.join(allowed)})")


class VectorOp(AscendCOperation):
    """Base of the instructions of the vector unit (PIPE_V): ``COST`` is the cost class of one repeat."""

    COST: ClassVar[VectorCost] = VectorCost.SIMPLE
    BATCHABLE: ClassVar[bool] = True
    IN_PLACE: ClassVar[bool] = True  # the destination may be one of the sources (complete overlap)
    traits = traits_def(OnPipe(Pipe.V))


class VectorScalarOp(VectorOp):
    """Base of ``Op(dst, src, scalar, count)``; the scalar has the tensor's element type."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src `,` $scalar `,` $count attr-dict `:` type($dst) `,` type($scalar)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)), CarriesUndefined())
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src}, {scalar}, {count});"

    def __init__(self, dst, src, scalar, count):
        super().__init__(operands=[dst, src, scalar, count])

    @staticmethod
    def numpy_operation(dst: np.ndarray, src: np.ndarray, scalar) -> None:
        """dst = src <op> scalar, in the tensor's dtype."""
        raise NotImplementedError

    def verify_(self) -> None:
        _check_vector_dtype(self.name, self.dst.type)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"{self.name} scalar type {self.scalar.type} does not match "
                                  f"the tensor element type {self.dst.type.element_type}")


@irdl_op_definition
class AddsOp(VectorScalarOp):
    """``Adds(dst, src, scalar, count)``: dst = src + scalar."""

    name = "ascendc.adds"
    API: ClassVar[str] = "Adds"

    @staticmethod
    def numpy_operation(dst, src, scalar) -> None:
        np.add(src, scalar, out=dst)


@irdl_op_definition
class MulsOp(VectorScalarOp):
    """``Muls(dst, src, scalar, count)``: dst = src * scalar."""

    name = "ascendc.muls"
    API: ClassVar[str] = "Muls"

    @staticmethod
    def numpy_operation(dst, src, scalar) -> None:
        if dst.dtype.char == "e" and not isinstance(scalar, np.ndarray) and scalar == 1:  # float16's copy between queues
            _times_one(dst, src)
        else:
            np.multiply(src, scalar, out=dst)


def _times_one(dst, src) -> None:
    """float16 dst = src * 1 as IEEE multiplies, bit for bit: ``src``, with a signaling NaN made quiet (its
    quiet bit set, the payload kept). A copy and a test for NaNs: NumPy multiplies float16 one element at a
    time, several times slower."""
    np.copyto(dst, src)
    bits = dst.view(np.uint16)
    mag = bits & 0x7FFF
    if np.maximum.reduce(mag, axis=None) > 0x7C00:  # a NaN
        np.bitwise_or(bits, 0x0200, out=bits, where=(mag > 0x7C00) & (mag & 0x0200 == 0))


@irdl_op_definition
class MaxsOp(VectorScalarOp):
    """``Maxs(dst, src, scalar, count)``: dst = max(src, scalar)."""

    name = "ascendc.maxs"
    API: ClassVar[str] = "Maxs"

    @staticmethod
    def numpy_operation(dst, src, scalar) -> None:
        np.maximum(src, scalar, out=dst)


@irdl_op_definition
class MinsOp(VectorScalarOp):
    """``Mins(dst, src, scalar, count)``: dst = min(src, scalar)."""

    name = "ascendc.mins"
    API: ClassVar[str] = "Mins"

    @staticmethod
    def numpy_operation(dst, src, scalar) -> None:
        np.minimum(src, scalar, out=dst)


@irdl_op_definition
class LeakyReluOp(VectorScalarOp):
    """``LeakyRelu(dst, src, scalar, count)``: dst = src where src >= 0, else scalar * src (half, float)."""

    name = "ascendc.leaky_relu"
    API: ClassVar[str] = "LeakyRelu"
    COST: ClassVar[VectorCost] = VectorCost.SIMPLE
    DTYPES: ClassVar[tuple[str, ...]] = ("f16", "f32")

    @staticmethod
    def numpy_operation(dst, src, scalar) -> None:
        np.copyto(dst, np.where(src >= 0, src, src * src.dtype.type(scalar)))

    def verify_(self) -> None:
        super().verify_()
        _check_vector_dtype(self.name, self.dst.type, self.DTYPES)


class VectorBinaryOp(VectorOp):
    """Base of ``Op(dst, src0, src1, count)``."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src0 = operand_def(T)
    src1 = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src0 `,` $src1 `,` $count attr-dict `:` type($dst)"
    traits = traits_def(BufferEffects(reads=("src0", "src1"), writes=("dst",)), CarriesUndefined())
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src0}, {src1}, {count});"
    DTYPES: ClassVar[tuple[str, ...]] = _VECTOR_DTYPES
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ()  # the names of the upstream ops on tensors it computes
    SCALAR_FORM: ClassVar[type | None] = None  # the ``Op(dst, src, scalar, count)`` form, if any

    def __init__(self, dst, src0, src1, count):
        super().__init__(operands=[dst, src0, src1, count])

    @staticmethod
    def numpy_operation(dst: np.ndarray, src0: np.ndarray, src1: np.ndarray) -> None:
        """dst = src0 <op> src1, in the tensor's dtype."""
        raise NotImplementedError

    def verify_(self) -> None:
        _check_vector_dtype(self.name, self.dst.type, self.DTYPES)


@irdl_op_definition
class AddOp(VectorBinaryOp):
    """``Add(dst, src0, src1, count)``: dst = src0 + src1."""

    name = "ascendc.add"
    API: ClassVar[str] = "Add"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.addf", "arith.addi")
    SCALAR_FORM: ClassVar[type | None] = AddsOp

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.add(src0, src1, out=dst)


@irdl_op_definition
class SubOp(VectorBinaryOp):
    """``Sub(dst, src0, src1, count)``: dst = src0 - src1."""

    name = "ascendc.sub"
    API: ClassVar[str] = "Sub"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.subf", "arith.subi")

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.subtract(src0, src1, out=dst)


@irdl_op_definition
class MulOp(VectorBinaryOp):
    """``Mul(dst, src0, src1, count)``: dst = src0 * src1."""

    name = "ascendc.mul"
    API: ClassVar[str] = "Mul"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.mulf", "arith.muli")
    SCALAR_FORM: ClassVar[type | None] = MulsOp

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.multiply(src0, src1, out=dst)


@irdl_op_definition
class DivOp(VectorBinaryOp):
    """``Div(dst, src0, src1, count)``: dst = src0 / src1 (floating point only)."""

    name = "ascendc.div"
    API: ClassVar[str] = "Div"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.divf",)
    DTYPES: ClassVar[tuple[str, ...]] = ("f16", "f32")
    COST: ClassVar[VectorCost] = VectorCost.TRANSCENDENTAL

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.divide(src0, src1, out=dst)


@irdl_op_definition
class MaxOp(VectorBinaryOp):
    """``Max(dst, src0, src1, count)``: elementwise maximum."""

    name = "ascendc.max"
    API: ClassVar[str] = "Max"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.maximumf", "arith.maxsi")
    SCALAR_FORM: ClassVar[type | None] = MaxsOp

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.maximum(src0, src1, out=dst)


@irdl_op_definition
class MinOp(VectorBinaryOp):
    """``Min(dst, src0, src1, count)``: elementwise minimum."""

    name = "ascendc.min"
    API: ClassVar[str] = "Min"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.minimumf", "arith.minsi")
    SCALAR_FORM: ClassVar[type | None] = MinsOp

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.minimum(src0, src1, out=dst)


class VectorBitwiseOp(VectorBinaryOp):
    """Base of the bitwise instructions: int16/uint16 on A2; the bits of an int32 tensor are computed
    through its ``ReinterpretCast`` to ``BITS`` with twice the count (the documented way)."""

    DTYPES: ClassVar[tuple[str, ...]] = ("i16", "ui16")
    BITS: ClassVar[str] = "i16"


@irdl_op_definition
class AndOp(VectorBitwiseOp):
    """``And(dst, src0, src1, count)``: dst = src0 & src1, bit by bit."""

    name = "ascendc.and"
    API: ClassVar[str] = "And"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.andi",)

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.bitwise_and(src0, src1, out=dst)


@irdl_op_definition
class OrOp(VectorBitwiseOp):
    """``Or(dst, src0, src1, count)``: dst = src0 | src1, bit by bit."""

    name = "ascendc.or"
    API: ClassVar[str] = "Or"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("arith.ori",)

    @staticmethod
    def numpy_operation(dst, src0, src1) -> None:
        np.bitwise_or(src0, src1, out=dst)


class VectorUnaryOp(VectorOp):
    """Base of ``Op(dst, src, count)``."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src `,` $count attr-dict `:` type($dst)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)), CarriesUndefined())
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src}, {count});"
    DTYPES: ClassVar[tuple[str, ...]] = ("f16", "f32")
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ()  # the names of the upstream ops on tensors it computes

    def __init__(self, dst, src, count):
        super().__init__(operands=[dst, src, count])

    @staticmethod
    def numpy_operation(dst: np.ndarray, src: np.ndarray) -> None:
        """dst = <op>(src), in the tensor's dtype."""
        raise NotImplementedError

    def verify_(self) -> None:
        _check_vector_dtype(self.name, self.dst.type, self.DTYPES)


class VectorUnaryScratchOp(VectorUnaryOp):
    """Base of the math-library routines ``Op(dst, src, sharedTmpBuffer, count)``: a sequence of
    vector instructions that needs a scratch ``LocalTensor<uint8_t>``. The scratch is clobbered; dst,
    src and scratch must not overlap (the pages of Sin, Cos and Tan).

    ``SCRATCH_FACTOR`` is the routine's live temporaries per element (its TmpBufferFactor): the
    minimum scratch is ``factor * 256`` bytes (one repeat each), and a scratch of ``factor * count *
    sizeof(T)`` bytes lets the routine do ``count`` elements in one pass (``scratch_bytes``).
    ``INSTRUCTIONS`` is the number of vector instructions the routine issues per pass."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    tmp = operand_def(LocalTensorType)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src `,` $tmp `,` $count attr-dict `:` type($dst) `,` type($tmp)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst", "tmp")), CarriesUndefined())
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src}, {tmp}, {count});"
    COST: ClassVar[VectorCost] = VectorCost.TRANSCENDENTAL
    IN_PLACE: ClassVar[bool] = False
    NEEDS_TPIPE: ClassVar[bool] = True  # not among the APIs the static-tensor guide allows without a TPipe
    SCRATCH_FACTOR: ClassVar[dict[str, int]] = {}
    INSTRUCTIONS: ClassVar[int] = 1

    def __init__(self, dst, src, count, tmp):
        super(VectorUnaryOp, self).__init__(operands=[dst, src, tmp, count])

    @classmethod
    def scratch_bytes(cls, element_type: str, count: int = 0) -> int:
        """The scratch for one pass over ``count`` elements of ``element_type`` (``f16`` or ``f32``); with
        no count, the documented minimum."""
        size = 2 if element_type == "f16" else 4
        return cls.SCRATCH_FACTOR[element_type] * max(-(-count * size // 256) * 256, 256)

    def verify_(self) -> None:
        super().verify_()
        if str(self.tmp.type.element_type) != "ui8":
            raise VerifyException(f"{self.name}: the scratch must be a LocalTensor<uint8_t>, "
                                  f"got {self.tmp.type.element_type}")


def _in_float32(ufunc: str):
    """The routine computes in float32 (NumPy's ``ufunc``) and rounds the result to the tensor's dtype."""
    def numpy_operation(dst, src) -> None:
        dst[...] = getattr(np, ufunc)(src.astype(np.float32))
    return staticmethod(numpy_operation)


@irdl_op_definition
class SinOp(VectorUnaryScratchOp):
    """``Sin(dst, src, tmp, count)``: sine (inputs within [-65504, 65504])."""

    name = "ascendc.sin"
    API: ClassVar[str] = "Sin"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.sin",)
    SCRATCH_FACTOR: ClassVar[dict[str, int]] = {"f16": 8, "f32": 3}
    INSTRUCTIONS: ClassVar[int] = 16
    numpy_operation = _in_float32("sin")


@irdl_op_definition
class CosOp(VectorUnaryScratchOp):
    """``Cos(dst, src, tmp, count)``: cosine (inputs within [-65504, 65504])."""

    name = "ascendc.cos"
    API: ClassVar[str] = "Cos"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.cos",)
    SCRATCH_FACTOR: ClassVar[dict[str, int]] = {"f16": 8, "f32": 3}
    INSTRUCTIONS: ClassVar[int] = 16
    numpy_operation = _in_float32("cos")


@irdl_op_definition
class TanOp(VectorUnaryScratchOp):
    """``Tan(dst, src, tmp, count)``: tangent (inputs within (-65504, 65504))."""

    name = "ascendc.tan"
    API: ClassVar[str] = "Tan"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.tan",)
    SCRATCH_FACTOR: ClassVar[dict[str, int]] = {"f16": 10, "f32": 4}
    INSTRUCTIONS: ClassVar[int] = 20
    numpy_operation = _in_float32("tan")


@irdl_op_definition
class ExpOp(VectorUnaryOp):
    """``Exp(dst, src, count)``: e to the power src."""

    name = "ascendc.exp"
    API: ClassVar[str] = "Exp"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.exp",)
    COST: ClassVar[VectorCost] = VectorCost.TRANSCENDENTAL

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.exp(src, out=dst)


@irdl_op_definition
class LnOp(VectorUnaryOp):
    """``Ln(dst, src, count)``: natural logarithm."""

    name = "ascendc.ln"
    API: ClassVar[str] = "Ln"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.log",)
    COST: ClassVar[VectorCost] = VectorCost.TRANSCENDENTAL

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.log(src, out=dst)


@irdl_op_definition
class AbsOp(VectorUnaryOp):
    """``Abs(dst, src, count)``: absolute value."""

    name = "ascendc.abs"
    API: ClassVar[str] = "Abs"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.absf",)

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.absolute(src, out=dst)


@irdl_op_definition
class SqrtOp(VectorUnaryOp):
    """``Sqrt(dst, src, count)``: square root."""

    name = "ascendc.sqrt"
    API: ClassVar[str] = "Sqrt"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.sqrt",)
    COST: ClassVar[VectorCost] = VectorCost.TRANSCENDENTAL

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.sqrt(src, out=dst)


@irdl_op_definition
class RsqrtOp(VectorUnaryOp):
    """``Rsqrt(dst, src, count)``: 1 / sqrt(src)."""

    name = "ascendc.rsqrt"
    API: ClassVar[str] = "Rsqrt"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ("math.rsqrt",)

    @staticmethod
    def numpy_operation(dst, src) -> None:
        numerics.rsqrt_into(dst, src)


@irdl_op_definition
class ReciprocalOp(VectorUnaryOp):
    """``Reciprocal(dst, src, count)``: 1 / src."""

    name = "ascendc.reciprocal"
    API: ClassVar[str] = "Reciprocal"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ()

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.divide(1, src, out=dst)


@irdl_op_definition
class ReluOp(VectorUnaryOp):
    """``Relu(dst, src, count)``: max(src, 0)."""

    name = "ascendc.relu"
    API: ClassVar[str] = "Relu"
    IMPLEMENTS: ClassVar[tuple[str, ...]] = ()
    DTYPES: ClassVar[tuple[str, ...]] = ("f16", "f32", "i32")

    @staticmethod
    def numpy_operation(dst, src) -> None:
        np.maximum(src, 0, out=dst)


@irdl_op_definition
class DuplicateOp(VectorOp):
    """``Duplicate(dst, scalar, count)``: fill ``count`` elements with ``scalar``."""

    name = "ascendc.duplicate"
    API: ClassVar[str] = "Duplicate"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {scalar}, {count});"
    dst = operand_def(LocalTensorType)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $scalar `,` $count attr-dict `:` type($dst) `,` type($scalar)"
    traits = traits_def(BufferEffects(writes=("dst",)), CarriesUndefined())

    def __init__(self, dst, scalar, count):
        super().__init__(operands=[dst, scalar, count])

    @staticmethod
    def numpy_operation(dst, scalar) -> None:
        dst[...] = scalar

    def verify_(self) -> None:
        # a fill moves bit patterns: the A2 table lists bfloat16_t next to the 16/32-bit types
        _check_vector_dtype(self.name, self.dst.type, _VECTOR_DTYPES + ("bf16",))
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"ascendc.duplicate scalar type {self.scalar.type} does not match "
                                  f"the tensor element type {self.dst.type.element_type}")


# (source, destination) element types Cast supports on arch 2201 (a subset of the documented table)
CAST_PAIRS = {
    ("f16", "f32"), ("f32", "f16"), ("bf16", "f32"), ("f32", "bf16"),
    ("f32", "i32"), ("i32", "f32"), ("f16", "i32"), ("i32", "f16"),
    ("ui8", "f16"), ("f16", "ui8"),  # bool bytes <-> half (compare.py: masks to and from GM)
    ("i8", "f16"), ("f16", "i8"),
}


@irdl_op_definition
class CastOp(VectorOp):
    """``Cast(dst, src, RoundMode::mode, count)``: element type conversion (costed by elements converted,
    ``cast_elems_per_cycle``, not by repeats)."""

    name = "ascendc.cast"
    API: ClassVar[str] = "Cast"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src}, AscendC::RoundMode::{round_mode}, {count});"
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    count = operand_def(IndexType)
    round_mode = prop_def(RoundModeAttr)
    assembly_format = "$dst `,` $src `,` $round_mode `,` $count attr-dict `:` type($dst) `,` type($src)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)), CarriesUndefined())

    def __init__(self, dst, src, count, round_mode: RoundMode = RoundMode.CAST_NONE):
        super().__init__(operands=[dst, src, count], properties={"round_mode": RoundModeAttr(round_mode)})

    @staticmethod
    def numpy_operation(dst, src, round_mode: str) -> None:
        """dst = src converted to dst's dtype, rounded by ``round_mode`` (a ``RoundMode`` value)."""
        numerics.cast_into(dst, src, round_mode)

    def verify_(self) -> None:
        pair = (str(self.src.type.element_type), str(self.dst.type.element_type))
        if pair not in CAST_PAIRS:
            raise VerifyException(f"ascendc.cast from {pair[0]} to {pair[1]} is not supported")


VECTOR_OPS = [
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaxOp,
    MinOp,
    AndOp,
    OrOp,
    ExpOp,
    LnOp,
    AbsOp,
    SqrtOp,
    RsqrtOp,
    ReciprocalOp,
    ReluOp,
    AddsOp,
    MulsOp,
    MaxsOp,
    MinsOp,
    LeakyReluOp,
    DuplicateOp,
    CastOp,
    SinOp,
    CosOp,
    TanOp,
]
