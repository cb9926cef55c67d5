"""The ``asctile`` dialect: core ops (see the package docstring)."""


from __future__ import annotations

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, MemRefType, UnitAttr, TensorType
from xdsl.irdl import AnyAttr, IRDLOperation, operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..row_window import check_row_window

KERNEL_ATTR = "asctile.kernel"
BLOCK_DIM_ATTR = "asctile.block_dim"
BUFFERS_ATTR = "asctile.buffers"


def check_tile_type(op: str, t) -> None:
    if not isinstance(t, TensorType) or len(t.get_shape()) != 2:
        raise VerifyException(f"{op}: a tile is a 2-D tensor (rows x pitch), got {t}")


@irdl_op_definition
class BlockIdxOp(IRDLOperation):
    """The index of the core running this instance of the kernel."""

    name = "asctile.block_idx"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class BlockNumOp(IRDLOperation):
    """The number of cores the kernel was launched on (``GetBlockNum()``)."""

    name = "asctile.block_num"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Load a ``rows x cols`` window of a GM tensor into a tile (see the module docstring)."""

    name = "asctile.load"
    source = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    row_stride = prop_def(IntegerAttr[I64])
    col_stride = prop_def(IntegerAttr[I64])
    dense = opt_prop_def(UnitAttr)
    zero_tail = opt_prop_def(UnitAttr)  # each row's columns from ``cols`` to the end of its last 32 B are zero
    result = result_def(TensorType)
    assembly_format = ("$source `[` $offset `]` `rows` $rows `cols` $cols `strides` `(` $row_stride `,` "
                       "$col_stride `)` (`dense` $dense^)? (`zero_tail` $zero_tail^)? attr-dict `:` type($source) "
                       "`->` type($result)")

    def __init__(self, source, offset, rows, cols, row_stride: int, col_stride: int, result_type: TensorType,
                 dense: bool = False, zero_tail: bool = False):
        super().__init__(operands=[source, offset, rows, cols],
                         properties={"row_stride": IntegerAttr(row_stride, 64),
                                     "col_stride": IntegerAttr(col_stride, 64),
                                     "dense": UnitAttr() if dense else None,
                                     "zero_tail": UnitAttr() if zero_tail else None},
                         result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.result.type)
        if self.source.type.element_type != self.result.type.element_type:
            raise VerifyException(f"asctile.load: element types differ ({self.source.type} -> {self.result.type})")
        if self.col_stride.value.data not in (0, 1):
            raise VerifyException(f"asctile.load: col_stride must be 0 or 1, got {self.col_stride.value.data}")
        if self.row_stride.value.data < 0:
            raise VerifyException("asctile.load: row_stride must be non-negative")


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Store the valid ``rows x cols`` part of a tile to a GM tensor, rows ``row_stride`` apart."""

    name = "asctile.store"
    value = operand_def(TensorType)
    dest = operand_def(MemRefType)
    offset = operand_def(IndexType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    row_stride = prop_def(IntegerAttr[I64])
    dense = opt_prop_def(UnitAttr)
    assembly_format = ("$value `,` $dest `[` $offset `]` `rows` $rows `cols` $cols `stride` $row_stride "
                       "(`dense` $dense^)? attr-dict `:` type($value) `,` type($dest)")

    def __init__(self, value, dest, offset, rows, cols, row_stride: int, dense: bool = False):
        super().__init__(operands=[value, dest, offset, rows, cols],
                         properties={"row_stride": IntegerAttr(row_stride, 64),
                                     "dense": UnitAttr() if dense else None})

    def verify_(self) -> None:
        check_tile_type(self.name, self.value.type)
        if self.dest.type.element_type != self.value.type.element_type:
            raise VerifyException(f"asctile.store: element types differ ({self.value.type} -> {self.dest.type})")
        if self.row_stride.value.data < 1:
            raise VerifyException("asctile.store: row_stride must be positive")


@irdl_op_definition
class SplatOp(IRDLOperation):
    """A tile whose every element is the scalar ``value`` (a scalar operand of vector ops)."""

    name = "asctile.splat"
    value = operand_def(AnyAttr())
    result = result_def(TensorType)
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value, result_type: TensorType):
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.result.type)
        if self.value.type != self.result.type.element_type:
            raise VerifyException(f"asctile.splat: scalar type {self.value.type} differs from the tile's "
                                  f"element type {self.result.type.element_type}")


@irdl_op_definition
class CastOp(IRDLOperation):
    """Convert a tile's element type between integers and floats (float to int truncates toward
    zero); float-to-float conversions use ``arith.extf``/``arith.truncf``."""

    name = "asctile.cast"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, result_type: TensorType):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.input.type)
        if self.input.type.get_shape() != self.result.type.get_shape():
            raise VerifyException(f"asctile.cast cannot change the tile shape ({self.input.type} -> {self.result.type})")


@irdl_op_definition
class RowWindowOp(IRDLOperation):
    """Rows ``[first, first + R)`` of a taller tile, as a tile of ``R`` rows of the same pitch (a view: one load
    serves windows of an input that lie whole rows apart, such as a stencil's taps)."""

    name = "asctile.row_window"
    input = operand_def(TensorType)
    first = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = "$input `rows` `from` $first attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input, first: int, result_type: TensorType):
        super().__init__(operands=[input], properties={"first": IntegerAttr(first, 64)}, result_types=[result_type])

    def verify_(self) -> None:
        check_tile_type(self.name, self.input.type)
        check_tile_type(self.name, self.result.type)
        check_row_window(self.name, self.input.type, self.result.type, self.first.value.data)


OPS = [BlockIdxOp, BlockNumOp, LoadOp, StoreOp, SplatOp, CastOp, RowWindowOp]
ATTRIBUTES = []
