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
from xdsl.irdl import (AnyAttr, IRDLOperation, VarConstraint, base, irdl_attr_definition, irdl_op_definition,
                       operand_def, prop_def)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from .base import LocalTensorType


class CmpMode(StrEnum):
    LT = "LT"
    GT = "GT"
    EQ = "EQ"
    LE = "LE"
    GE = "GE"
    NE = "NE"


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


def _check(op: str, t, allowed) -> None:
    if str(t.element_type) not in allowed:
        raise VerifyException(f"{op} does not support element type {t.element_type} (supported: {', '.join(allowed)})")


@irdl_op_definition
class CompareOp(IRDLOperation):
    """``Compare(dst, src0, src1, CMPMODE::mode, count)``: a bit mask of ``src0 <mode> src1``."""

    name = "ascendc.compare"
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(LocalTensorType)
    src0 = operand_def(T)
    src1 = operand_def(T)
    cmp_mode = prop_def(CmpModeAttr)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src0 `,` $src1 `,` $cmp_mode `,` $count attr-dict `:` type($dst) `,` type($src0)"

    def __init__(self, dst, src0, src1, mode: CmpMode, count):
        super().__init__(operands=[dst, src0, src1, count], properties={"cmp_mode": CmpModeAttr(CmpMode(mode))})

    def verify_(self) -> None:
        _check_mask(self.name, self.dst.type)
        _check(self.name, self.src0.type, COMPARE_DTYPES)


@irdl_op_definition
class ComparesOp(IRDLOperation):
    """``Compares(dst, src0, scalar, CMPMODE::mode, count)``: a bit mask of ``src0 <mode> scalar``."""

    name = "ascendc.compares"
    dst = operand_def(LocalTensorType)
    src0 = operand_def(LocalTensorType)
    scalar = operand_def(AnyAttr())
    cmp_mode = prop_def(CmpModeAttr)
    count = operand_def(IndexType)
    assembly_format = ("$dst `,` $src0 `,` $scalar `,` $cmp_mode `,` $count attr-dict `:` type($dst) `,` "
                       "type($src0) `,` type($scalar)")

    def __init__(self, dst, src0, scalar, mode: CmpMode, count):
        super().__init__(operands=[dst, src0, scalar, count], properties={"cmp_mode": CmpModeAttr(CmpMode(mode))})

    def verify_(self) -> None:
        _check_mask(self.name, self.dst.type)
        _check(self.name, self.src0.type, COMPARE_DTYPES)
        if self.scalar.type != self.src0.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the tensor's "
                                  f"element type {self.src0.type.element_type}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """``Select(dst, selMask, src0, src1, SELMODE::VSEL_TENSOR_TENSOR_MODE, count)``."""

    name = "ascendc.select"
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    sel_mask = operand_def(LocalTensorType)
    src0 = operand_def(T)
    src1 = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $sel_mask `,` $src0 `,` $src1 `,` $count attr-dict `:` type($dst) `,` type($sel_mask)"

    def __init__(self, dst, sel_mask, src0, src1, count):
        super().__init__(operands=[dst, sel_mask, src0, src1, count])

    def verify_(self) -> None:
        _check_mask(self.name, self.sel_mask.type)
        _check(self.name, self.dst.type, SELECT_DTYPES)


@irdl_op_definition
class SelectScalarOp(IRDLOperation):
    """``Select(dst, selMask, src0, scalar, SELMODE::VSEL_TENSOR_SCALAR_MODE, count)``."""

    name = "ascendc.select_scalar"
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

    def verify_(self) -> None:
        _check_mask(self.name, self.sel_mask.type)
        _check(self.name, self.dst.type, SELECT_DTYPES)
        if self.scalar.type != self.dst.type.element_type:
            raise VerifyException(f"{self.name}: scalar type {self.scalar.type} differs from the tensor's "
                                  f"element type {self.dst.type.element_type}")


OPS = [CompareOp, ComparesOp, SelectOp, SelectScalarOp]
ATTRIBUTES = [CmpModeAttr, SelModeAttr]
