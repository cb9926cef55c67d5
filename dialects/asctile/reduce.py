"""The ``asctile`` dialect: reductions over the rows of a tile.

A row-wise kernel keeps one value per tile row in a *row tile* ``tensor<rows x A>`` (``A`` = 32 B
of the kernel's narrowest element type; the value sits in column 0, so every row starts on a
32 B block and row tiles of different element types line up for ``Cast``). ``reduce`` folds the
first ``cols`` columns of every row of a tile into a row tile; ``row_broadcast`` spreads a row
tile back over full rows.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, operand_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from .base import check_tile_type


class RowReduceKind(StrEnum):
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


@irdl_attr_definition
class RowReduceKindAttr(EnumAttribute[RowReduceKind], SpacedOpaqueSyntaxAttribute):
    name = "asctile.reduce_kind"


def _check_rows(op: str, src, dst) -> None:
    check_tile_type(op, src)
    check_tile_type(op, dst)
    if src.get_shape()[0] != dst.get_shape()[0]:
        raise VerifyException(f"{op}: {src} and {dst} have different row counts")
    if src.element_type != dst.element_type:
        raise VerifyException(f"{op}: element types differ ({src} vs {dst})")


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Fold the first ``cols`` elements of each row with ``kind``: one value per row."""

    name = "asctile.reduce"
    kind = prop_def(RowReduceKindAttr)
    input = operand_def(TensorType)
    cols = operand_def(IndexType)
    result = result_def(TensorType)
    assembly_format = "$kind $input `cols` $cols attr-dict `:` type($input) `->` type($result)"

    def __init__(self, kind: RowReduceKind, input, cols, result_type: TensorType):
        super().__init__(operands=[input, cols], result_types=[result_type],
                         properties={"kind": RowReduceKindAttr(RowReduceKind(kind))})

    def verify_(self) -> None:
        _check_rows(self.name, self.input.type, self.result.type)
        if str(self.input.type.element_type) not in ("f16", "f32"):
            raise VerifyException(f"{self.name}: the vector unit reduces f16 and f32, not "
                                  f"{self.input.type.element_type}")


@irdl_op_definition
class RowBroadcastOp(IRDLOperation):
    """Every element of row ``r`` of the result is the value of row ``r`` of the row tile."""

    name = "asctile.row_broadcast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        _check_rows(self.name, self.input.type, self.result.type)


@irdl_op_definition
class ArgReduceOp(IRDLOperation):
    """The index (i32) of the first max (``max``) or min (``min``) of the first ``cols`` elements of each
    row: one value per row."""

    name = "asctile.arg_reduce"
    kind = prop_def(RowReduceKindAttr)
    input = operand_def(TensorType)
    cols = operand_def(IndexType)
    result = result_def(TensorType)
    assembly_format = "$kind $input `cols` $cols attr-dict `:` type($input) `->` type($result)"

    def __init__(self, kind: RowReduceKind, input, cols, result_type: TensorType):
        super().__init__(operands=[input, cols], result_types=[result_type],
                         properties={"kind": RowReduceKindAttr(RowReduceKind(kind))})

    def verify_(self) -> None:
        check_tile_type(self.name, self.input.type)
        check_tile_type(self.name, self.result.type)
        if self.kind.data not in (RowReduceKind.MAX, RowReduceKind.MIN):
            raise VerifyException(f"{self.name}: kind must be max or min, got {self.kind.data.value}")
        if str(self.input.type.element_type) not in ("f16", "f32") or str(self.result.type.element_type) != "i32":
            raise VerifyException(f"{self.name}: takes an f16/f32 tile and gives i32, got {self.input.type} -> "
                                  f"{self.result.type}")
        if self.input.type.get_shape()[0] != self.result.type.get_shape()[0]:
            raise VerifyException(f"{self.name}: row counts differ")


OPS = [ReduceOp, RowBroadcastOp, ArgReduceOp]
ATTRIBUTES = [RowReduceKindAttr]
