"""The ``asctile`` dialect: on-chip rearrangement of a tile by a gather or a transpose.

``gather_offsets`` builds the byte-offset table of a gather once per kernel:
``offset[r][c] = min(c, cols - 1) * col_bytes + r * row_bytes`` over a ``rows x pitch`` tile of
``i32`` (read as ``uint32_t`` by the hardware); a negative ``col_bytes`` counts the columns from the
last valid one, ``(cols - 1 - min(c, cols - 1)) * -col_bytes + r * row_bytes`` (rows read backwards);
with ``col_bytes`` 1 and ``row_bytes`` 0 the table is the column index of every element (the
``asctensor.iota`` of a row-wise kernel). With ``blocks`` ``B`` a row is ``B`` runs of ``cols`` columns, the
``b``-th run ``b * block_bytes`` further: ``offset[r][b * cols + c] = c * col_bytes + b * block_bytes + r *
row_bytes`` (the pitch is ``B * cols``; a row of the tile is a block of a batch of small transposes). ``gather``
collects ``result[k] = src[base + offset[k]]`` (bytes from the start of ``src``; ``base`` is ``Gather``'s
``srcBaseAddr``, 0 unless given: one table serves windows of a tile that start ``base`` bytes apart) over the
whole result tile. ``pick_columns`` takes every ``stride``-th column of each row from column ``start``:
``result[r][c] = src[r][start + c * stride]`` (a ``GatherMask``); with ``phases`` ``P`` it stacks the picks from
``start``, ..., ``start + P - 1`` along the rows. ``phase_transpose`` lays the phases of a strided image out as
the channels of its pixels (the input of a convolution rewritten space to depth, ``conv_fold.py``). ``transpose``
swaps a 2-D tile's rows and columns: ``result[r][c] = src[c][r]``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, TensorType
from xdsl.irdl import IRDLOperation, operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..gather_table import check_blocks, check_first, check_phase_transpose, check_phases
from ..types import element_bytes
from .base import check_tile_type


@irdl_op_definition
class GatherOffsetsOp(IRDLOperation):
    """The ``i32`` table ``min(max(c + first, 0), cols - 1) * col_bytes + r * row_bytes`` of a ``rows x pitch`` tile
    (``first`` <= 0, default 0: the first ``-first`` columns repeat column 0; counted from the last column when
    ``col_bytes`` is negative; with ``blocks``, rows of runs: see the module docstring)."""

    name = "asctile.gather_offsets"
    cols = prop_def(IntegerAttr[I64])
    first = opt_prop_def(IntegerAttr[I64])
    col_bytes = prop_def(IntegerAttr[I64])
    row_bytes = prop_def(IntegerAttr[I64])
    blocks = opt_prop_def(IntegerAttr[I64])
    block_bytes = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = ("`cols` $cols (`first` $first^)? `col_bytes` $col_bytes `row_bytes` $row_bytes "
                       "(`blocks` $blocks^ `block_bytes` "
                       "$block_bytes)? attr-dict `:` type($result)")

    def __init__(self, result_type: TensorType, cols: int, col_bytes: int, row_bytes: int,
                 blocks: int | None = None, block_bytes: int = 0, first: int = 0):
        props = {"cols": IntegerAttr(cols, 64), "col_bytes": IntegerAttr(col_bytes, 64),
                 "row_bytes": IntegerAttr(row_bytes, 64)}
        if blocks is not None:
            props.update(blocks=IntegerAttr(blocks, 64), block_bytes=IntegerAttr(block_bytes, 64))
        if first:
            props["first"] = IntegerAttr(first, 64)
        super().__init__(result_types=[result_type], properties=props)

    def verify_(self) -> None:
        check_tile_type(self.name, self.result.type)
        if str(self.result.type.element_type) != "i32":
            raise VerifyException(f"asctile.gather_offsets: the table is i32, got {self.result.type}")
        pitch = self.result.type.get_shape()[1]
        if not 1 <= self.cols.value.data <= pitch:
            raise VerifyException(f"asctile.gather_offsets: cols {self.cols.value.data} outside 1..{pitch}")
        if self.row_bytes.value.data < 0:
            raise VerifyException("asctile.gather_offsets: row_bytes must be non-negative")
        check_blocks(self.name, self.blocks, self.block_bytes, self.cols.value.data, self.col_bytes.value.data,
                     pitch)
        check_first(self.name, self.first, self.blocks, self.col_bytes.value.data)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``result[k] = src[base + offsets[k]]`` (byte offsets from the start of ``src``), every element of the result."""

    name = "asctile.gather"
    src = operand_def(TensorType)
    offsets = operand_def(TensorType)
    base = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = ("$src `,` $offsets (`base` $base^)? attr-dict `:` type($src) `,` type($offsets) `->` "
                       "type($result)")

    def __init__(self, src, offsets, result_type: TensorType, base: int = 0):
        super().__init__(operands=[src, offsets], result_types=[result_type],
                         properties={"base": IntegerAttr(base, 64)} if base else {})

    def base_bytes(self) -> int:
        return 0 if self.base is None else self.base.value.data

    def verify_(self) -> None:
        for t in (self.src.type, self.offsets.type, self.result.type):
            check_tile_type(self.name, t)
        if self.src.type.element_type != self.result.type.element_type:
            raise VerifyException(f"asctile.gather: element types differ ({self.src.type} -> {self.result.type})")
        if self.offsets.type.get_shape() != self.result.type.get_shape() or str(
                self.offsets.type.element_type) != "i32":
            raise VerifyException(f"asctile.gather: offsets {self.offsets.type} must be i32 of the result's shape")
        if self.base_bytes() < 0:
            raise VerifyException("asctile.gather: base must be non-negative")


@irdl_op_definition
class GatherRowsOp(IRDLOperation):
    """``result[j] = `` the row of ``src`` at byte ``offsets[0, j]`` (rows of whole 32 B blocks, a multiple of 8 of
    them: ``Gatherb`` per block column)."""

    name = "asctile.gather_rows"
    src = operand_def(TensorType)
    offsets = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src `,` $offsets attr-dict `:` type($src) `,` type($offsets) `->` type($result)"

    def __init__(self, src, offsets, result_type: TensorType):
        super().__init__(operands=[src, offsets], result_types=[result_type])

    def verify_(self) -> None:
        for t in (self.src.type, self.offsets.type, self.result.type):
            check_tile_type(self.name, t)
        (rows, cols), (one, count) = self.result.type.get_shape(), self.offsets.type.get_shape()
        et = self.result.type.element_type
        if et != self.src.type.element_type or self.src.type.get_shape()[1] != cols \
                or cols * element_bytes(et) % 32 or (one, count) != (1, rows) or rows % 8 \
                or str(self.offsets.type.element_type) != "i32":
            raise VerifyException(f"asctile.gather_rows: {self.src.type} by {self.offsets.type} -> {self.result.type}: "
                                  "rows of whole 32 B blocks, one i32 offset per row, a multiple of 8 rows")


@irdl_op_definition
class PickColumnsOp(IRDLOperation):
    """``result[p * R + r][c] = src[r][start + p + c * stride]`` for every element of the result, ``p`` below
    ``phases`` (default 1) and ``R`` the rows of ``src`` (``check_pick``)."""

    name = "asctile.pick_columns"
    src = operand_def(TensorType)
    start = prop_def(IntegerAttr[I64])
    stride = prop_def(IntegerAttr[I64])
    phases = opt_prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = ("$src `start` $start `stride` $stride (`phases` $phases^)? attr-dict `:` type($src) `->` "
                       "type($result)")

    def __init__(self, src, result_type: TensorType, start: int, stride: int, phases: int = 1):
        super().__init__(operands=[src], result_types=[result_type],
                         properties={"start": IntegerAttr(start, 64), "stride": IntegerAttr(stride, 64),
                                     "phases": IntegerAttr(phases, 64) if phases != 1 else None})

    def phase_count(self) -> int:
        return 1 if self.phases is None else self.phases.value.data

    def verify_(self) -> None:
        for t in (self.src.type, self.result.type):
            check_tile_type(self.name, t)
        (rows, src_cols), (out_rows, cols) = self.src.type.get_shape(), self.result.type.get_shape()
        et = self.src.type.element_type
        if et != self.result.type.element_type:
            raise VerifyException(f"asctile.pick_columns: {self.result.type} and {self.src.type} differ in type")
        check_phases(self.name, self.phase_count(), self.start.value.data, self.stride.value.data, src_cols, cols,
                     element_bytes(et), rows, out_rows)


@irdl_op_definition
class PhaseTransposeOp(IRDLOperation):
    """The phases of a strided image as the channels of its pixels (``check_phase_transpose``): with ``src`` the
    ``sw * channels`` rows ``(rw, c)`` of ``R * sh * OW`` columns ``(q, rh, j)``,
    ``result[q * pitch + left + j][(rh * sw + rw) * channels + c] = src[rw * channels + c][(q * sh + rh) * OW + j]``;
    the pixels of a row of ``pitch`` outside ``[left, left + OW)`` are zeros, and the channels past
    ``sh * sw * channels`` repeat channel 0."""

    name = "asctile.phase_transpose"
    src = operand_def(TensorType)
    channels = prop_def(IntegerAttr[I64])
    sh = prop_def(IntegerAttr[I64])
    sw = prop_def(IntegerAttr[I64])
    left = prop_def(IntegerAttr[I64])
    pitch = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = ("$src `channels` $channels `stride` `(` $sh `,` $sw `)` `left` $left `pitch` $pitch attr-dict "
                       "`:` type($src) `->` type($result)")

    def __init__(self, src, result_type: TensorType, channels: int, sh: int, sw: int, left: int, pitch: int):
        super().__init__(operands=[src], result_types=[result_type], properties={
            k: IntegerAttr(v, 64) for k, v in (("channels", channels), ("sh", sh), ("sw", sw), ("left", left),
                                               ("pitch", pitch))})

    def params(self) -> tuple[int, int, int, int, int]:
        """(channels, sh, sw, left, pitch)."""
        return tuple(p.value.data for p in (self.channels, self.sh, self.sw, self.left, self.pitch))

    def verify_(self) -> None:
        for t in (self.src.type, self.result.type):
            check_tile_type(self.name, t)
        et = self.src.type.element_type
        if et != self.result.type.element_type:
            raise VerifyException(f"asctile.phase_transpose: {self.result.type} and {self.src.type} differ in type")
        check_phase_transpose(self.name, self.src.type.get_shape(), self.result.type.get_shape(), element_bytes(et),
                              *self.params())


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """``result[r][c] = src[c][r]``: a 2-D tile with its rows and columns swapped."""

    name = "asctile.transpose"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"

    def __init__(self, src, result_type: TensorType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        for t in (self.src.type, self.result.type):
            check_tile_type(self.name, t)
        rows, cols = self.src.type.get_shape(), self.result.type.get_shape()
        if self.src.type.element_type != self.result.type.element_type or len(rows) != 2 or rows[::-1] != cols:
            raise VerifyException(f"asctile.transpose: {self.result.type} is not the transpose of {self.src.type}")


OPS = [GatherOffsetsOp, GatherOp, GatherRowsOp, PickColumnsOp, PhaseTransposeOp, TransposeOp]
ATTRIBUTES: list = []
