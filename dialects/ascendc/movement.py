"""The ``ascendc`` dialect: ``CreateVecIndex`` and ``Gather`` (count form, PIPE_V).

* ``CreateVecIndex(dst, firstValue, count)``: ``dst[i] = firstValue + i`` (int16/half/int32/float);
* ``Gather(dst, src, srcOffset, srcBaseAddr, count)``: ``dst[i] = *(src + srcBaseAddr + srcOffset[i])``
  with ``srcOffset`` a ``uint32_t`` tensor of byte offsets (multiples of the element size); on A2
  for int16/uint16/int32/uint32/half/float/bfloat16. Cost [O]: 5 elements per cycle.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import AnyAttr, operand_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..lazy_numpy import LazyNumPy
from ..traits import BufferEffects, ValueDependentTrace
from .attributes import LocalTensorType
from .vector import VectorOp

np = LazyNumPy(globals())  # NumPy on first use (parsing and printing IR do not load it)


INDEX_DTYPES = ("i16", "f16", "i32", "f32")
GATHER_DTYPES = ("i16", "ui16", "i32", "ui32", "f16", "f32", "bf16")


@irdl_op_definition
class CreateVecIndexOp(VectorOp):
    """``CreateVecIndex(dst, firstValue, count)``: dst[i] = firstValue + i."""

    NEEDS_TPIPE: ClassVar[bool] = True
    name = "ascendc.create_vec_index"
    API: ClassVar[str] = "CreateVecIndex"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {first_value}, {count});"
    traits = traits_def(BufferEffects(writes=("dst",)))
    dst = operand_def(LocalTensorType)
    first_value = operand_def(AnyAttr())
    count = operand_def(IndexType)
    assembly_format = "$dst `,` $first_value `,` $count attr-dict `:` type($dst) `,` type($first_value)"

    def __init__(self, dst, first_value, count):
        super().__init__(operands=[dst, first_value, count])

    @staticmethod
    def numpy_operation(dst, first_value) -> None:
        """dst[..., i] = first_value + i over ``dst``'s last axis."""
        n = dst.shape[-1]
        dst[...] = np.arange(first_value, first_value + n).astype(dst.dtype)

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in INDEX_DTYPES:
            raise VerifyException(f"ascendc.create_vec_index does not support element type {et} "
                                  f"(supported: {', '.join(INDEX_DTYPES)})")
        if self.first_value.type != self.dst.type.element_type:
            raise VerifyException("ascendc.create_vec_index: firstValue must have the tensor's element type")


@irdl_op_definition
class GatherOp(VectorOp):
    """``Gather(dst, src, srcOffset, srcBaseAddr, count)``: dst[i] = src at byte srcBaseAddr + srcOffset[i]."""

    name = "ascendc.gather"
    API: ClassVar[str] = "Gather"
    CALL: ClassVar[str] = "AscendC::{api}({dst}, {src}, {src_offset}, {src_base_addr}, {count});"
    traits = traits_def(BufferEffects(reads=("src", "src_offset"), writes=("dst",)), ValueDependentTrace())
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    src_offset = operand_def(LocalTensorType)
    src_base_addr = operand_def(IndexType)
    count = operand_def(IndexType)
    assembly_format = ("$dst `,` $src `,` $src_offset `,` $src_base_addr `,` $count attr-dict `:` type($dst) `,` "
                       "type($src) `,` type($src_offset)")

    def __init__(self, dst, src, src_offset, src_base_addr, count):
        super().__init__(operands=[dst, src, src_offset, src_base_addr, count])

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in GATHER_DTYPES:
            raise VerifyException(f"ascendc.gather does not support element type {et} "
                                  f"(supported: {', '.join(GATHER_DTYPES)})")
        if self.src.type != self.dst.type:
            raise VerifyException("ascendc.gather: dst and src must have the same element type")
        if str(self.src_offset.type.element_type) != "ui32":
            raise VerifyException(f"ascendc.gather: srcOffset must be a uint32_t (ui32) tensor, "
                                  f"got {self.src_offset.type}")


OPS = [CreateVecIndexOp, GatherOp]
ATTRIBUTES: list = []
