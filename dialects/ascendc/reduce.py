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
    VarConstraint,
    base,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..lazy_numpy import LazyNumPy
from ..target import Pipe
from ..traits import BufferEffects, CarriesUndefined, OnPipe
from .attributes import LocalTensorType
from .base import AscendCOperation, CallPrinter
from .vector import VectorOp

np = LazyNumPy(globals())  # NumPy on first use (parsing and printing IR do not load it)


class ReduceCountOp(VectorOp):
    """Base of ``Reduce*(dst, src, work, count[, calIndex])``: with ``cal_index`` (max/min only) dst[1]
    holds the index of the result as the bits of a uint32.

    NumPy semantics: ``numpy_reduce(src)`` folds the last axis (one core's view is 1-D, a group's
    ``(cores, n)``); ``numpy_index(src)`` is the index of the first extreme (max/min)."""

    NEEDS_TPIPE: ClassVar[bool] = True
    T: ClassVar = VarConstraint("T", base(LocalTensorType))
    dst = operand_def(T)
    src = operand_def(T)
    work = operand_def(T)
    count = operand_def(IndexType)
    cal_index = opt_prop_def(UnitAttr)
    assembly_format = "$dst `,` $src `,` $work `,` $count (`cal_index` $cal_index^)? attr-dict `:` type($dst)"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst", "work")), CarriesUndefined(per_lane=False))

    def __init__(self, dst, src, work, count, cal_index: bool = False):
        super().__init__(operands=[dst, src, work, count], properties={"cal_index": UnitAttr() if cal_index else None})

    def print_ascendc(self, p: CallPrinter) -> str:
        index = ", true" if self.cal_index is not None else ""
        return (f"AscendC::{self.API}({p.expr(self.dst)}, {p.expr(self.src)}, {p.expr(self.work)}, "
                f"{p.expr(self.count)}{index});")

    @staticmethod
    def work_elems(count: int, es: int, cal_index: bool) -> int:
        """Elements the work buffer needs for ``count`` elements of ``es`` bytes (``reducemax-tmp-size``,
        ReduceMax.md: two per 256 B repeat, rounded to 32 B; with the index, the later rounds' too;
        the worked examples: half, 8320, index: 176; float, 130 repeats, index: 288)."""
        eblk, erep = 32 // es, 256 // es
        r1 = max(1, -(-count // erep))
        need = -(-2 * r1 // eblk) * eblk
        if cal_index:
            out2 = -(-2 * r1 // erep) * 2
            need += -(-out2 // eblk) * eblk
            if out2 > 2:
                need += -(-(-(-out2 // erep) * 2) // eblk) * eblk
        return need

    @staticmethod
    def numpy_reduce(src: np.ndarray):
        """The fold of ``src`` along its last axis."""
        raise NotImplementedError

    @staticmethod
    def numpy_index(src: np.ndarray):
        """The index of the result along the last axis (``calIndex``)."""
        raise NotImplementedError

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
    API: ClassVar[str] = "ReduceSum"

    @staticmethod
    def numpy_reduce(src):
        return np.add.reduce(src, axis=-1, dtype=np.float32)  # float32 accumulation for half, as the tree keeps it


@irdl_op_definition
class ReduceMaxOp(ReduceCountOp):
    """``ReduceMax(dst, src, work, count)``: dst[0] = max of src[0:count]."""

    name = "ascendc.reduce_max"
    API: ClassVar[str] = "ReduceMax"

    @staticmethod
    def numpy_reduce(src):
        return np.maximum.reduce(src, axis=-1)

    @staticmethod
    def numpy_index(src):
        return np.argmax(src, axis=-1)


@irdl_op_definition
class ReduceMinOp(ReduceCountOp):
    """``ReduceMin(dst, src, work, count)``: dst[0] = min of src[0:count]."""

    name = "ascendc.reduce_min"
    API: ClassVar[str] = "ReduceMin"

    @staticmethod
    def numpy_reduce(src):
        return np.minimum.reduce(src, axis=-1)

    @staticmethod
    def numpy_index(src):
        return np.argmin(src, axis=-1)


@irdl_op_definition
class ReinterpretCastOp(AscendCOperation):
    """``t.ReinterpretCast<U>()``: the same local memory viewed as elements of another type."""

    name = "ascendc.reinterpret_cast"
    API: ClassVar[str] = "ReinterpretCast"
    CALL: ClassVar[str] = "{RT} {res} = {source}.ReinterpretCast<{T}>();"
    BATCHABLE: ClassVar[bool] = True
    source = operand_def(LocalTensorType)
    result = result_def(LocalTensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source, element_type):
        super().__init__(operands=[source], result_types=[LocalTensorType(element_type)])


@irdl_op_definition
class SetValueOp(AscendCOperation):
    """``t.SetValue(index, value)``: a scalar write of a local tensor by the scalar unit (the pipes that read
    it afterwards must wait for the scalar pipe: S_V / S_MTE3)."""

    name = "ascendc.set_value"
    API: ClassVar[str] = "SetValue"
    CALL: ClassVar[str] = "{dest}.SetValue({index}, {value});"
    BATCHABLE: ClassVar[bool] = True
    traits = traits_def(OnPipe(Pipe.S), BufferEffects(writes=("dest",)), CarriesUndefined())
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
