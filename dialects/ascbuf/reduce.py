"""The ``ascbuf`` dialect: vector reductions and per-row scalar operations.

A *row buffer* holds one value per tile row, 32 B apart (``memref<rows x A>``). ``vreduce`` folds
the first ``cols`` elements of each row of a buffer into a row buffer (``ReduceSum``/``ReduceMax``
/``ReduceMin`` per row, with a work buffer). ``vrow`` combines every row of a buffer with that
row's value (the scalar unit reads it from UB: ``scalar_reads``), ``vrow_dup`` fills each row with
its value. The scalar reads make ``insert-sync`` order them after the vector pipe (V -> S).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    operand_def,
    prop_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from .base import check_ub


class VReduceKind(StrEnum):
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
    ARGMAX = "argmax"  # dst row: [max, index bits]
    ARGMIN = "argmin"


class VRowKind(StrEnum):
    """``x <op> row value``; ``rsub``/``rdiv`` put the row value on the left."""

    ADD = "add"
    SUB = "sub"
    RSUB = "rsub"
    MUL = "mul"
    DIV = "div"
    RDIV = "rdiv"
    MAX = "max"
    MIN = "min"


@irdl_attr_definition
class VReduceKindAttr(EnumAttribute[VReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.vreduce_kind"


@irdl_attr_definition
class VRowKindAttr(EnumAttribute[VRowKind], SpacedOpaqueSyntaxAttribute):
    name = "ascbuf.vrow_kind"


def _check_rows(op: str, full, rows) -> None:
    check_ub(op, full)
    check_ub(op, rows)
    if full.get_shape()[0] != rows.get_shape()[0]:
        raise VerifyException(f"{op}: {full} and the row buffer {rows} have different row counts")
    if full.element_type != rows.element_type:
        raise VerifyException(f"{op}: element types differ ({full} vs {rows})")


@irdl_op_definition
class VReduceOp(IRDLOperation):
    """``dst[r] = kind(src[r, 0:cols])`` for every row ``r``; ``work`` is scratch of one row."""

    name = "ascbuf.vreduce"
    kind = prop_def(VReduceKindAttr)
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    work = operand_def(MemRefType)
    cols = operand_def(IndexType)
    assembly_format = ("$kind $dst `,` $src `,` $work `cols` $cols attr-dict `:` type($dst) `,` type($src) `,` "
                       "type($work)")
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src",), writes=("dst", "work")))

    def __init__(self, kind: VReduceKind, dst, src, work, cols):
        super().__init__(operands=[dst, src, work, cols], properties={"kind": VReduceKindAttr(VReduceKind(kind))})

    def verify_(self) -> None:
        _check_rows(self.name, self.src.type, self.dst.type)
        check_ub(self.name, self.work.type)
        if str(self.src.type.element_type) not in ("f16", "f32"):
            raise VerifyException(f"{self.name}: ReduceSum/Max/Min take f16 or f32, got {self.src.type.element_type}")


@irdl_op_definition
class VRowOp(IRDLOperation):
    """``dst[r, :] = src[r, :] <kind> rows[r]`` for every row ``r`` (the row value read by the scalar unit)."""

    name = "ascbuf.vrow"
    T: ClassVar = VarConstraint("T", base(MemRefType))
    kind = prop_def(VRowKindAttr)
    dst = operand_def(T)
    src = operand_def(T)
    rows = operand_def(MemRefType)
    assembly_format = "$kind $dst `,` $src `,` $rows attr-dict `:` type($dst) `,` type($rows)"
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src",), writes=("dst",), scalar_reads=("rows",)))

    def __init__(self, kind: VRowKind, dst, src, rows):
        super().__init__(operands=[dst, src, rows], properties={"kind": VRowKindAttr(VRowKind(kind))})


    def verify_(self) -> None:
        _check_rows(self.name, self.src.type, self.rows.type)
        if self.dst.type != self.src.type:
            raise VerifyException(f"{self.name}: dst {self.dst.type} and src {self.src.type} differ")


@irdl_op_definition
class VRowDupOp(IRDLOperation):
    """``dst[r, :] = rows[r]`` for every row ``r``."""

    name = "ascbuf.vrow_dup"
    dst = operand_def(MemRefType)
    rows = operand_def(MemRefType)
    assembly_format = "$dst `,` $rows attr-dict `:` type($dst) `,` type($rows)"
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(writes=("dst",), scalar_reads=("rows",)))

    def __init__(self, dst, rows):
        super().__init__(operands=[dst, rows])


    def verify_(self) -> None:
        _check_rows(self.name, self.dst.type, self.rows.type)


@irdl_op_definition
class RowIndexOp(IRDLOperation):
    """``dst[r] = bits of src[r, 1]`` as i32: the index an ``argmax``/``argmin`` ``vreduce`` left next to the
    value of each row, moved by the scalar unit (GetValue/SetValue through a uint32 view)."""

    name = "ascbuf.row_index"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    assembly_format = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)"
    traits = traits_def(OnPipe(Pipe.S), BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, dst, src):
        super().__init__(operands=[dst, src])

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        check_ub(self.name, self.src.type)
        if str(self.dst.type.element_type) != "i32":
            raise VerifyException(f"{self.name}: dst must hold i32, got {self.dst.type}")
        if self.dst.type.get_shape()[0] != self.src.type.get_shape()[0]:
            raise VerifyException(f"{self.name}: row counts differ")


OPS = [VReduceOp, VRowOp, VRowDupOp, RowIndexOp]
ATTRIBUTES = [VReduceKindAttr, VRowKindAttr]
