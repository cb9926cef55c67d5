"""The ``ascendc`` dialect: vector reductions (count form).

``ReduceSum/ReduceMax/ReduceMin(dst, src, sharedTmpBuffer, count)`` fold the first ``count``
elements of ``src`` into ``dst[0]`` on PIPE_V; the work tensor holds the per-repeat partial
results (at least one element per 256 B repeat of ``src``). half and float only on arch 2201.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import IRDLOperation, VarConstraint, base, irdl_op_definition, operand_def
from xdsl.utils.exceptions import VerifyException

from .base import LocalTensorType


class ReduceCountOp(IRDLOperation):
    """Base of ``Reduce*(dst, src, work, count)``."""

    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    work = operand_def(T)
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $src `,` $work `,` $count attr-dict `:` type($dst)"

    def __init__(self, dst, src, work, count):
        super().__init__(operands=[dst, src, work, count])

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in ("f16", "f32"):
            raise VerifyException(f"{self.name} supports half and float, not {et}")


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


OPS = [ReduceSumOp, ReduceMaxOp, ReduceMinOp]
ATTRIBUTES: list = []
