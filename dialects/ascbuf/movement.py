"""The ``ascbuf`` dialect: gathers (element-wise rearrangement inside UB, on PIPE_V).

``gather_offsets`` fills a ``rows x pitch`` ``i32`` buffer with the byte offsets
``min(c, cols - 1) * col_bytes + r * row_bytes`` (a negative ``col_bytes`` counts the columns
from the last valid one: ``(cols - 1 - min(c, cols - 1)) * -col_bytes + r * row_bytes``, for rows
read backwards; with ``blocks`` ``B``, a row is ``B`` runs of ``cols`` columns ``block_bytes`` apart:
``c * col_bytes + b * block_bytes + r * row_bytes`` at column ``b * cols + c``); ``gather`` sets ``dst[k] = src[offsets[k]]``
(byte offsets from the start of ``src``) for the first ``count`` elements. ``pick_columns`` sets ``dst[r][c] =
src[r][start + c * stride]`` (one ``GatherMask`` per 255 rows; with ``phases``, per phase).
``phase_transpose`` lays the phases of a strided image out as the channels of its pixels (``Duplicate`` of
zeros, then one ``TransDataTo5HD`` per output row and 16 channels). ``transpose`` sets ``dst[r][c] =
src[c][r]`` over whole 32 B blocks: ``dst`` is ``R x C`` with ``R`` a multiple of a block's elements and ``C`` of
16, of a 2- or 4-byte type (one ``TransDataTo5HD`` per 16 columns).
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, MemRefType
from xdsl.irdl import IRDLOperation, operand_def, opt_prop_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from ..ascendc.movement import MAX_REPEATS, TRANS_5HD_DTYPES as TRANSPOSE_TYPES
from ..gather_table import check_blocks, check_first, check_phase_transpose, check_phases
from ..types import element_bytes
from .base import check_ub


@irdl_op_definition
class GatherOffsetsOp(IRDLOperation):
    """Fill ``dst`` (``rows x pitch`` of i32) with ``min(max(c + first, 0), cols - 1) * col_bytes + r * row_bytes``
    (``first`` <= 0, default 0; a negative ``col_bytes`` counts from column ``cols - 1`` down; ``blocks``: rows of
    runs, see the module docstring)."""

    name = "ascbuf.gather_offsets"
    dst = operand_def(MemRefType)
    cols = prop_def(IntegerAttr[I64])
    first = opt_prop_def(IntegerAttr[I64])
    col_bytes = prop_def(IntegerAttr[I64])
    row_bytes = prop_def(IntegerAttr[I64])
    blocks = opt_prop_def(IntegerAttr[I64])
    block_bytes = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `cols` $cols (`first` $first^)? `col_bytes` $col_bytes `row_bytes` $row_bytes "
                       "(`blocks` $blocks^ `block_bytes` $block_bytes)? attr-dict `:` type($dst)")
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(writes=("dst",)))

    def __init__(self, dst, cols: int, col_bytes: int, row_bytes: int, blocks: int | None = None,
                 block_bytes: int = 0, first: int = 0):
        props = {"cols": IntegerAttr(cols, 64), "col_bytes": IntegerAttr(col_bytes, 64),
                 "row_bytes": IntegerAttr(row_bytes, 64)}
        if blocks is not None:
            props.update(blocks=IntegerAttr(blocks, 64), block_bytes=IntegerAttr(block_bytes, 64))
        if first:
            props["first"] = IntegerAttr(first, 64)
        super().__init__(operands=[dst], properties=props)

    def verify_(self) -> None:
        check_ub(self.name, self.dst.type)
        shape = self.dst.type.get_shape()
        if len(shape) != 2 or str(self.dst.type.element_type) != "i32":
            raise VerifyException(f"ascbuf.gather_offsets: the table is a 2-D i32 buffer, got {self.dst.type}")
        if not 1 <= self.cols.value.data <= shape[1]:
            raise VerifyException(f"ascbuf.gather_offsets: cols {self.cols.value.data} outside 1..{shape[1]}")
        check_blocks(self.name, self.blocks, self.block_bytes, self.cols.value.data, self.col_bytes.value.data,
                     shape[1])
        check_first(self.name, self.first, self.blocks, self.col_bytes.value.data)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``dst[k] = src[base + offsets[k]]`` for ``k < count`` (byte offsets from the start of ``src``; ``base``,
    ``Gather``'s ``srcBaseAddr``, 0 unless given)."""

    name = "ascbuf.gather"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    offsets = operand_def(MemRefType)
    count = operand_def(IndexType)
    base = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `,` $offsets `,` $count (`base` $base^)? attr-dict `:` type($dst) `,` "
                       "type($src) `,` type($offsets)")
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src", "offsets"), writes=("dst",)))

    def __init__(self, dst, src, offsets, count, base: int = 0):
        super().__init__(operands=[dst, src, offsets, count],
                         properties={"base": IntegerAttr(base, 64)} if base else {})

    def base_bytes(self) -> int:
        return 0 if self.base is None else self.base.value.data

    def verify_(self) -> None:
        for t in (self.dst.type, self.src.type, self.offsets.type):
            check_ub(self.name, t)
        if self.dst.type.element_type != self.src.type.element_type:
            raise VerifyException("ascbuf.gather: dst and src element types differ")
        if str(self.offsets.type.element_type) != "i32":
            raise VerifyException(f"ascbuf.gather: offsets must be i32, got {self.offsets.type}")




@irdl_op_definition
class GatherRowsOp(IRDLOperation):
    """``dst[j] = `` the row of ``src`` at byte ``offsets[0, j]`` (``asctile.gather_rows``)."""

    name = "ascbuf.gather_rows"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    offsets = operand_def(MemRefType)
    assembly_format = "$dst `,` $src `,` $offsets attr-dict `:` type($dst) `,` type($src) `,` type($offsets)"
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src", "offsets"), writes=("dst",)))

    def __init__(self, dst, src, offsets):
        super().__init__(operands=[dst, src, offsets])

    def verify_(self) -> None:
        for t in (self.dst.type, self.src.type, self.offsets.type):
            check_ub(self.name, t)
        if self.dst.type.element_type != self.src.type.element_type or str(self.offsets.type.element_type) != "i32":
            raise VerifyException("ascbuf.gather_rows: dst and src of one element type, i32 offsets")


@irdl_op_definition
class PickColumnsOp(IRDLOperation):
    """``dst[p * R + r][c] = src[r][start + p + c * stride]`` for ``p`` below ``phases`` (default 1)
    (``check_pick``)."""

    name = "ascbuf.pick_columns"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    start = prop_def(IntegerAttr[I64])
    stride = prop_def(IntegerAttr[I64])
    phases = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `start` $start `stride` $stride (`phases` $phases^)? attr-dict `:` type($dst) "
                       "`,` type($src)")
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, dst, src, start: int, stride: int, phases: int = 1):
        super().__init__(operands=[dst, src],
                         properties={"start": IntegerAttr(start, 64), "stride": IntegerAttr(stride, 64),
                                     "phases": IntegerAttr(phases, 64) if phases != 1 else None})

    def phase_count(self) -> int:
        return 1 if self.phases is None else self.phases.value.data

    def verify_(self) -> None:
        for t in (self.dst.type, self.src.type):
            check_ub(self.name, t)
        shape, src_shape = self.dst.type.get_shape(), self.src.type.get_shape()
        et = self.dst.type.element_type
        if et != self.src.type.element_type or len(shape) != 2 or len(src_shape) != 2:
            raise VerifyException(f"ascbuf.pick_columns: {self.dst.type} and {self.src.type} are not tiles of one "
                                  "element type")
        check_phases(self.name, self.phase_count(), self.start.value.data, self.stride.value.data, src_shape[1],
                     shape[1], element_bytes(et), src_shape[0], shape[0])


@irdl_op_definition
class PhaseTransposeOp(IRDLOperation):
    """``asctile.phase_transpose`` into ``dst`` (``check_phase_transpose``)."""

    name = "ascbuf.phase_transpose"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    channels = prop_def(IntegerAttr[I64])
    sh = prop_def(IntegerAttr[I64])
    sw = prop_def(IntegerAttr[I64])
    left = prop_def(IntegerAttr[I64])
    pitch = prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `channels` $channels `stride` `(` $sh `,` $sw `)` `left` $left `pitch` $pitch "
                       "attr-dict `:` type($dst) `,` type($src)")
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, dst, src, channels: int, sh: int, sw: int, left: int, pitch: int):
        super().__init__(operands=[dst, src], properties={
            k: IntegerAttr(v, 64) for k, v in (("channels", channels), ("sh", sh), ("sw", sw), ("left", left),
                                               ("pitch", pitch))})

    def params(self) -> tuple[int, int, int, int, int]:
        """(channels, sh, sw, left, pitch)."""
        return tuple(p.value.data for p in (self.channels, self.sh, self.sw, self.left, self.pitch))

    def verify_(self) -> None:
        for t in (self.dst.type, self.src.type):
            check_ub(self.name, t)
        et = self.dst.type.element_type
        if et != self.src.type.element_type or str(et) not in TRANSPOSE_TYPES:
            raise VerifyException(f"ascbuf.phase_transpose: {self.dst.type} and {self.src.type} need one element "
                                  f"type of {', '.join(TRANSPOSE_TYPES)}")
        check_phase_transpose(self.name, self.src.type.get_shape(), self.dst.type.get_shape(), element_bytes(et),
                              *self.params())


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """``dst[r][c] = src[c][r]`` for ``dst`` of ``R x C`` and ``src`` of ``C x R`` (see the module docstring)."""

    name = "ascbuf.transpose"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    assembly_format = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)"
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src",), writes=("dst",)))

    def __init__(self, dst, src):
        super().__init__(operands=[dst, src])

    def verify_(self) -> None:
        for t in (self.dst.type, self.src.type):
            check_ub(self.name, t)
        et = self.dst.type.element_type
        shape, src_shape = self.dst.type.get_shape(), self.src.type.get_shape()
        if et != self.src.type.element_type or len(shape) != 2 or src_shape != shape[::-1]:
            raise VerifyException(f"ascbuf.transpose: {self.dst.type} is not the transpose of {self.src.type}")
        if str(et) not in TRANSPOSE_TYPES:
            raise VerifyException(f"ascbuf.transpose: element type {et} (supported: {', '.join(TRANSPOSE_TYPES)})")
        per = 32 // (et.bitwidth // 8)
        if shape[0] % per or shape[1] % 16 or shape[0] > MAX_REPEATS * per:
            raise VerifyException(f"ascbuf.transpose: {self.dst.type} needs rows in multiples of {per}, at most "
                                  f"{MAX_REPEATS * per} (repeatTimes <= {MAX_REPEATS}), and columns in multiples of 16")


OPS = [GatherOffsetsOp, GatherOp, GatherRowsOp, PickColumnsOp, PhaseTransposeOp, TransposeOp]
ATTRIBUTES: list = []
