"""The ``ascendc`` dialect: vector reductions (count form).

``ReduceSum/ReduceMax/ReduceMin(dst, src, sharedTmpBuffer, count)`` fold the first ``count``
elements of ``src`` into ``dst[0]`` on PIPE_V; the work tensor holds the per-repeat partial
results (at least one element per 256 B repeat of ``src``). half and float only on arch 2201.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, UnitAttr
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from .base import LocalTensorType


class ReduceCountOp(IRDLOperation):
    """Base of ``Reduce*(dst, src, work, count[, calIndex])``: with ``cal_index`` (max/min only) dst[1]
    holds the index of the result as the bits of a uint32."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    work = operand_def(T)
    count = operand_def(IndexType)
    cal_index = opt_prop_def(UnitAttr)
    assembly_format = "$dst `,` $src `,` $work `,` $count (`cal_index` $cal_index^)? attr-dict `:` type($dst)"

    def __init__(self, dst, src, work, count, cal_index: bool = False):
        super().__init__(operands=[dst, src, work, count], properties={"cal_index": UnitAttr() if cal_index else None})

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in ("f16", "f32"):
            raise VerifyException(f"{self.name} supports half and float, not {et}")
        if self.cal_index is not None and self.name == "ascendc.reduce_sum":
            raise VerifyException("ascendc.reduce_sum has no calIndex")


@irdl_op_definition
class ReduceSumOp(ReduceCountOp):
    """``ReduceSum(dst, src, work, count)``: dst[0] = sum of src[0:count]."""

    name = "ascendc.reduce_sum"


@irdl_op_definition
class ReduceMaxOp(ReduceCountOp):
    """``ReduceMax(dst, src, work, count)``: dst[0] = max of src[0:count]."""

    name = "ascendc.reduce_max"


@irdl_op_definition
class ReduceMinOp(ReduceCountOp):
    """``ReduceMin(dst, src, work, count)``: dst[0] = min of src[0:count]."""

    name = "ascendc.reduce_min"


@irdl_op_definition
class ReinterpretCastOp(IRDLOperation):
    """``t.ReinterpretCast<U>()``: the same local memory viewed as elements of another type."""

    name = "ascendc.reinterpret_cast"
    source = operand_def(LocalTensorType)
    result = result_def(LocalTensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, element_type):
        super().__init__(operands=[source], result_types=[LocalTensorType(element_type)])


@irdl_op_definition
class SetValueOp(IRDLOperation):
    """``t.SetValue(index, value)``: a scalar write of a local tensor by the scalar unit (the pipes that read
    it afterwards must wait for the scalar pipe: S_V / S_MTE3)."""

    name = "ascendc.set_value"
    dest = operand_def(LocalTensorType)
    index = operand_def(IndexType)
    value = operand_def(AnyAttr())
    assembly_format = "$dest `[` $index `]` `,` $value attr-dict `:` type($dest) `,` type($value)"

    def __init__(self, dest, index, value):
        super().__init__(operands=[dest, index, value])

    def verify_(self) -> None:
        if self.value.type != self.dest.type.element_type:
            raise VerifyException(f"ascendc.set_value: value type {self.value.type} differs from the tensor's "
                                  f"element type {self.dest.type.element_type}")


OPS = [ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReinterpretCastOp, SetValueOp]
ATTRIBUTES: list = []
