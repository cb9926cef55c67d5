"""The ``ascendc`` dialect: ``Compare``, ``Compares`` and ``Select`` (count form, PIPE_V).

* ``Compare(dst, src0, src1, CMPMODE::mode, count)``: bit ``i`` of the ``uint8_t`` tensor ``dst`` is
  ``src0[i] <mode> src1[i]`` (least significant bit first);
* ``Compares(dst, src0, scalar, CMPMODE::mode, count)``: the same against a scalar;
* ``Select(dst, selMask, src0, src1, SELMODE::VSEL_TENSOR_TENSOR_MODE, count)``: ``dst[i] = bit i of
  selMask ? src0[i] : src1[i]``; with ``VSEL_TENSOR_SCALAR_MODE`` ``src1`` is a scalar.

Compare takes half, float and int32; Select half and float (other 16/32-bit types are selected as
half/float through ``ReinterpretCast``: a selection moves bits). Cost [O]: one repeat (256 B of the
source type) per cycle plus the fixed cost of a vector instruction.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (AnyAttr, VarConstraint, base, irdl_attr_definition, operand_def,
                       prop_def, traits_def)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from ..lazy_numpy import LazyNumPy
from ..traits import BufferEffects, CarriesUndefined
from .attributes import LocalTensorType
from .base import const_int
from .contract import violation
from .vector import VectorOp

np = LazyNumPy(globals())  # NumPy on first use (parsing and printing IR do not load it)


class CmpMode(StrEnum):
    LT = "LT"
    GT = "GT"
    EQ = "EQ"
    LE = "LE"
    GE = "GE"
    NE = "NE"


# the NumPy comparison (ufunc name) of each mode (IEEE: NaN compares false except with NE)
CMP_UFUNCS = {CmpMode.LT: "less", CmpMode.GT: "greater", CmpMode.EQ: "equal", CmpMode.LE: "less_equal",
              CmpMode.GE: "greater_equal", CmpMode.NE: "not_equal"}


def pack_mask(cond: np.ndarray) -> np.ndarray:
    """Booleans as a bit mask along the last axis, least significant bit first."""
    return np.packbits(cond, -1, "little")  # positional: NumPy's dispatch of keywords costs more than the packing


def unpack_mask(mask: np.ndarray, n: int) -> np.ndarray:
    """The first ``n`` bits of a bit mask (last axis) as booleans."""
    return np.unpackbits(mask, -1, n, "little").view(np.bool_)


class SelMode(StrEnum):
    VSEL_CMPMASK_SPR = "VSEL_CMPMASK_SPR"
    VSEL_TENSOR_SCALAR_MODE = "VSEL_TENSOR_SCALAR_MODE"
    VSEL_TENSOR_TENSOR_MODE = "VSEL_TENSOR_TENSOR_MODE"


@irdl_attr_definition
class CmpModeAttr(EnumAttribute[CmpMode], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.cmp_mode"


@irdl_attr_definition
class SelModeAttr(EnumAttribute[SelMode], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.sel_mode"


COMPARE_DTYPES = ("f16", "f32", "i32")
SELECT_DTYPES = ("f16", "f32")


def _check_mask(op: str, t) -> None:
    if str(t.element_type) != "ui8":
        raise VerifyException(f"{op}: the mask tensor must be uint8_t (ui8), got {t.element_type}")


def _check_contract(op) -> None:
    """int32 compares only for equality, and the count fills whole 256 B blocks (when it is a constant)."""
    et = str(op.src0.type.element_type)
    mode = op.cmp_mode.data
    if et == "i32" and mode != CmpMode.EQ:
        raise violation("cmp-dtypes-modes-a2", f"{op.API} of int32_t with CMPMODE::{mode.value}")
    n = const_int(op.count)
    es = {"f16": 2, "f32": 4, "i32": 4}.get(et)
    if n is not None and es is not None and n * es % 256:
        raise violation("cmp-count-256b", f"{op.API} of {n} x {et} ({n * es} B)")


def _check(op: str, t, allowed) -> None:
    if str(t.element_type) not in allowed:
        raise VerifyException(f"{op} does not support element type {t.element_type} (supported: {', '.join(allowed)})")


@irdl_op_definition
class CompareOp(VectorOp):
    """``Compare(dst, src0, src1, CMPMODE::mode, count)``: a bit mask of ``src0 <mode> src1``."""

    name = "ascendc.compare"
    API: ClassVar[str] = "Compare"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src0}, {src1}, AscendC::CMPMODE::{cmp_mode}, {count});"
    traits = traits_def(BufferEffects(reads=("src0", "src1"), writes=("dst",)), CarriesUndefined())
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(LocalTensorType)
    src0 = operand_def(T)
    src1 = operand_def(T)
    cmp_mode = prop_def(CmpModeAttr)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src0 `,` $src1 `,` $cmp_mode `,` $count attr-dict `:` type($dst) `,` type($src0)"

    def __init__(self, dst, src0, src1, mode: CmpMode, count):
        super().__init__(operands=[dst, src0, src1, count], properties={"cmp_mode": CmpModeAttr(CmpMode(mode))})

    @staticmethod
    def numpy_operation(dst, src0, src1, mode: str) -> None:
        """The mask bytes ``dst`` (``ceil(count / 8)``) of ``src0 <mode> src1``."""
        dst[...] = pack_mask(getattr(np, CMP_UFUNCS[mode])(src0, src1))

    def verify_(self) -> None:
        _check_mask(self.name, self.dst.type)
        _check(self.name, self.src0.type, COMPARE_DTYPES)
        _check_contract(self)


@irdl_op_definition
class ComparesOp(VectorOp):
    """``Compares(dst, src0, scalar, CMPMODE::mode, count)``: a bit mask of ``src0 <mode> scalar``."""

    name = "ascendc.compares"
    API: ClassVar[str] = "Compares"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src0}, {scalar}, AscendC::CMPMODE::{cmp_mode}, {count});"
    traits = traits_def(BufferEffects(reads=("src0",), writes=("dst",)), CarriesUndefined())
    dst = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    scalar = operand_def(AnyAttr())
    cmp_mode = prop_def(CmpModeAttr)
    count = operand_def(IndexType)
    assembly_format = ("$dst `,` $src0 `,` $scalar `,` $cmp_mode `,` $count attr-dict `:` type($dst) `,` "
                       "type($src0) `,` type($scalar)")

    def __init__(self, dst, src0, scalar, mode: CmpMode, count):
        super().__init__(operands=[dst, src0, scalar, count], properties={"cmp_mode": CmpModeAttr(CmpMode(mode))})

    @staticmethod
    def numpy_operation(dst, src0, scalar, mode: str) -> None:
        """The mask bytes ``dst`` of ``src0 <mode> scalar``."""
        if src0.dtype.char == "e" and mode in ("EQ", "NE") and type(scalar) in (float, int, np.float16):
            s = np.float16(scalar)
            if s == s and s != 0:  # one bit pattern has the value, and NaN has none: compare bits (NumPy
                bits = np.equal(src0.view(np.uint16), s.view(np.uint16))  # compares float16 one at a time)
                dst[...] = pack_mask(bits if mode == "EQ" else ~bits)
                return
        dst[...] = pack_mask(getattr(np, CMP_UFUNCS[mode])(src0, scalar))

    def verify_(self) -> None:
        _check_mask(self.name, self.dst.type)
        _check(self.name, self.src0.type, COMPARE_DTYPES)
        _check_contract(self)
        if self.scalar.type != self.src0.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the tensor's "
                                  f"element type {self.src0.type.element_type}")


@irdl_op_definition
class SelectOp(VectorOp):
    """``Select(dst, selMask, src0, src1, SELMODE::VSEL_TENSOR_TENSOR_MODE, count)``."""

    NEEDS_TPIPE: ClassVar[bool] = True
    name = "ascendc.select"
    API: ClassVar[str] = "Select"
    CALL: ClassVar[str] = ("AscendC::{api}({dst}, {sel_mask}, {src0}, {src1}, "
                           "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});")
    traits = traits_def(BufferEffects(reads=("sel_mask", "src0", "src1"), writes=("dst",)), CarriesUndefined())
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    sel_mask = operand_def(LocalTensorType)
    src0 = operand_def(T)
    src1 = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $sel_mask `,` $src0 `,` $src1 `,` $count attr-dict `:` type($dst) `,` type($sel_mask)"

    def __init__(self, dst, sel_mask, src0, src1, count):
        super().__init__(operands=[dst, sel_mask, src0, src1, count])

    @staticmethod
    def numpy_operation(dst, sel_mask, src0, src1) -> None:
        """dst = src0 where the mask bit is set, else src1 (``dst``'s last axis is the count)."""
        dst[...] = np.where(unpack_mask(sel_mask, dst.shape[-1]), src0, src1)

    def verify_(self) -> None:
        _check_mask(self.name, self.sel_mask.type)
        _check(self.name, self.dst.type, SELECT_DTYPES)


@irdl_op_definition
class SelectScalarOp(VectorOp):
    """``Select(dst, selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, count)``."""

    NEEDS_TPIPE: ClassVar[bool] = True
    name = "ascendc.select_scalar"
    API: ClassVar[str] = "Select"
    CALL: ClassVar[str] = ("AscendC::{api}({dst}, {sel_mask}, {src0}, {scalar}, "
                           "AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, {count});")
    traits = traits_def(BufferEffects(reads=("sel_mask", "src0"), writes=("dst",)), CarriesUndefined())
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    sel_mask = operand_def(LocalTensorType)
    src0 = operand_def(T)
    scalar = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = ("$dst `,` $sel_mask `,` $src0 `,` $scalar `,` $count attr-dict `:` type($dst) `,` "
                       "type($sel_mask) `,` type($scalar)")

    def __init__(self, dst, sel_mask, src0, scalar, count):
        super().__init__(operands=[dst, sel_mask, src0, scalar, count])

    @staticmethod
    def numpy_operation(dst, sel_mask, src0, scalar) -> None:
        """dst = src0 where the mask bit is set, else the scalar."""
        dst[...] = np.where(unpack_mask(sel_mask, dst.shape[-1]), src0, scalar)

    def verify_(self) -> None:
        _check_mask(self.name, self.sel_mask.type)
        _check(self.name, self.dst.type, SELECT_DTYPES)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the tensor's "
                                  f"element type {self.dst.type.element_type}")


OPS = [CompareOp, ComparesOp, SelectOp, SelectScalarOp]
ATTRIBUTES = [CmpModeAttr, SelModeAttr]
