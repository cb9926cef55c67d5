"""The ``ascendc`` dialect: ``CreateVecIndex``, ``Gather`` (count form), ``GatherMask`` (built-in patterns) and
``TransDataTo5HD``, on PIPE_V.

* ``CreateVecIndex(dst, firstValue, count)``: ``dst[i] = firstValue + i`` (int16/half/int32/float);
* ``Gather(dst, src, srcOffset, srcBaseAddr, count)``: ``dst[i] = *(src + srcBaseAddr + srcOffset[i])``
  with ``srcOffset`` a ``uint32_t`` tensor of byte offsets (multiples of the element size); on A2
  for int16/uint16/int32/uint32/half/float/bfloat16. Cost [O]: 5 elements per cycle.
* ``TransDataTo5HD(dstList, srcList, TransDataTo5HDParams)`` (the address-list form): 16 source and 16
  destination DataBlocks (32 B each, 32 B aligned) per repeat; repeat ``r`` reads block ``i`` at
  ``srcList[i] + r * srcRepStride`` and writes block ``j`` at ``dstList[j] + r * dstRepStride`` (strides in
  DataBlocks). For 16-bit types element ``i`` of destination block ``j`` is element ``j`` of source block
  ``i``; for 32-bit types destination blocks ``2k`` and ``2k + 1`` hold element ``k`` of source blocks 0-7 and
  8-15. Here the lists are element offsets into ``dst`` and ``src`` (``dst[o].GetPhyAddr()``); the 8-bit
  forms (``srcHighHalf``/``dstHighHalf``) are not modelled. Doc: ``数据排布转换/TransDataTo5HD.md``. Cost [O]:
  512 B per repeat at 256 B per cycle.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, DenseArrayBase, IndexType, IntegerAttr, i64
from xdsl.irdl import AnyAttr, operand_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..lazy_numpy import LazyNumPy
from ..traits import BufferEffects, ValueDependentTrace
from .attributes import LocalTensorType
from .contract import violation
from .vector import VectorOp

np = LazyNumPy(globals())  # NumPy on first use (parsing and printing IR do not load it)


INDEX_DTYPES = ("i16", "f16", "i32", "f32")
GATHER_DTYPES = ("i16", "ui16", "i32", "ui32", "f16", "f32", "bf16")
GATHER_MASK_DTYPES = ("i16", "ui16", "f16", "bf16", "i32", "ui32", "f32")
# built-in src1Pattern -> (period, lane): a repeat keeps its lanes i with i % period == lane
GATHER_MASK_PATTERNS = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3), 7: (1, 0)}
# GatherMaskParams: src0BlockStride and src1RepeatStride are uint8_t, repeatTimes and src0RepeatStride uint16_t
GATHER_MASK_FIELDS = {"src_block_stride": 255, "repeat_times": 65535, "src_repeat_stride": 65535}


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


GATHERB_DTYPES = ("ui16", "ui32")  # Gatherb(ISASI).md, Atlas A2
GATHERB_BLOCKS = 8  # DataBlocks per repeat


@irdl_op_definition
class GatherbOp(VectorOp):
    """``Gatherb(dst, src0, offset, repeatTime, {dstBlkStride, dstRepStride})``: repeat ``r`` copies the 32 B
    DataBlock at byte ``offset[8r + i]`` of ``src0`` to block ``r * dstRepStride + i * dstBlkStride`` of ``dst``
    (``i`` < 8; offsets multiples of 32, ``repeatTime`` in 1..255). Doc: ``Gatherb(ISASI).md``. Cost [O]: 42
    uint16 (21 uint32) elements per cycle."""

    name = "ascendc.gatherb"
    API: ClassVar[str] = "Gatherb"
    traits = traits_def(BufferEffects(reads=("src", "offset"), writes=("dst",)), ValueDependentTrace())
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    offset = operand_def(LocalTensorType)
    repeat_time = operand_def(IndexType)
    dst_blk_stride = prop_def(IntegerAttr[I64])
    dst_rep_stride = prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `,` $offset `,` $repeat_time `strides` `(` $dst_blk_stride `,` "
                       "$dst_rep_stride `)` attr-dict `:` type($dst) `,` type($src) `,` type($offset)")

    def __init__(self, dst, src, offset, repeat_time, dst_blk_stride: int, dst_rep_stride: int):
        super().__init__(operands=[dst, src, offset, repeat_time],
                         properties={"dst_blk_stride": IntegerAttr(dst_blk_stride, 64),
                                     "dst_rep_stride": IntegerAttr(dst_rep_stride, 64)})

    def print_ascendc(self, p) -> str:
        t = "uint16_t" if str(self.dst.type.element_type) == "ui16" else "uint32_t"
        return (f"AscendC::Gatherb<{t}>({p.expr(self.dst)}, {p.expr(self.src)}, {p.expr(self.offset)}, "
                f"{p.expr_as(self.repeat_time, 'uint8_t')}, AscendC::GatherRepeatParams"
                f"{{{self.dst_blk_stride.value.data}, {self.dst_rep_stride.value.data}}});")

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in GATHERB_DTYPES or self.src.type != self.dst.type:
            raise VerifyException(f"ascendc.gatherb takes uint16 or uint32 dst and src of one type (Gatherb(ISASI).md), "
                                  f"got {self.dst.type} and {self.src.type}")
        if str(self.offset.type.element_type) != "ui32":
            raise VerifyException(f"ascendc.gatherb: offset must be a uint32_t (ui32) tensor, got {self.offset.type}")
        for name in ("dst_blk_stride", "dst_rep_stride"):
            if not 0 <= getattr(self, name).value.data <= 255:
                raise VerifyException(f"ascendc.gatherb: {name} must be in 0..255")


TRANS_5HD_DTYPES = ("i16", "ui16", "f16", "i32", "ui32", "f32")
ADDR_LIST_SIZE = 16  # NCHW_CONV_ADDR_LIST_SIZE
MAX_REPEATS = 255  # repeatTimes
MAX_REP_STRIDE = 65535  # dstRepStride / srcRepStride are uint16_t


@irdl_op_definition
class TransDataTo5HDOp(VectorOp):
    """``TransDataTo5HD<T>(dstList, srcList, params)``: 16 x 16 DataBlock transposes (see the module docstring)."""

    name = "ascendc.trans_data_to_5hd"
    API: ClassVar[str] = "TransDataTo5HD"
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    dst_list = prop_def(DenseArrayBase.constr(i64))
    src_list = prop_def(DenseArrayBase.constr(i64))
    repeat_times = prop_def(IntegerAttr[I64])
    dst_rep_stride = prop_def(IntegerAttr[I64])
    src_rep_stride = prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `dst_list` $dst_list `src_list` $src_list `repeat` $repeat_times "
                       "`dst_stride` $dst_rep_stride `src_stride` $src_rep_stride attr-dict `:` type($dst) `,` "
                       "type($src)")

    def __init__(self, dst, src, dst_list, src_list, repeat_times: int, dst_rep_stride: int, src_rep_stride: int):
        super().__init__(operands=[dst, src], properties={
            "dst_list": DenseArrayBase.from_list(i64, list(dst_list)),
            "src_list": DenseArrayBase.from_list(i64, list(src_list)),
            "repeat_times": IntegerAttr(repeat_times, 64), "dst_rep_stride": IntegerAttr(dst_rep_stride, 64),
            "src_rep_stride": IntegerAttr(src_rep_stride, 64)})

    def params(self) -> tuple[list[int], list[int], int, int, int]:
        """(dstList, srcList) as element offsets, repeatTimes, dstRepStride, srcRepStride."""
        return (list(self.dst_list.get_values()), list(self.src_list.get_values()), self.repeat_times.value.data,
                self.dst_rep_stride.value.data, self.src_rep_stride.value.data)

    def element_offsets(self) -> tuple["np.ndarray", "np.ndarray"]:
        """(destination, source) element offsets of every element moved, in the order written: repeat,
        destination block, element of the block (so ``dst[d] = src[s]`` pairwise)."""
        dl, sl, rep, ds, ss = self.params()
        per = 32 // (self.dst.type.element_type.bitwidth // 8)
        r = np.arange(rep)[:, None, None] * per
        k = np.arange(per)[None, None, :]
        j = np.arange(ADDR_LIST_SIZE)[None, :, None]
        d = np.asarray(dl)[None, :, None] + r * ds + k
        if per == 16:  # element k of destination block j <- element j of source block k
            s = np.asarray(sl)[k] + r * ss + j
        else:  # blocks 2m, 2m + 1 <- element m of source blocks 0-7, 8-15
            s = np.asarray(sl)[(j % 2) * 8 + k] + r * ss + j // 2
        return d.reshape(-1), s.reshape(-1)

    def element_extents(self) -> dict:
        """{operand: (first, last + 1) element it touches} (the static sync analysis's regions)."""
        di, si = self.element_offsets()
        if not di.size:
            return {self.dst: (0, 0), self.src: (0, 0)}
        return {self.dst: (int(di.min()), int(di.max()) + 1), self.src: (int(si.min()), int(si.max()) + 1)}

    def print_ascendc(self, p) -> list[str]:
        dl, sl, rep, ds, ss = self.params()
        d, s = p.expr(self.dst), p.expr(self.src)
        t = p.format(self, "{T}")
        dst = ", ".join(f"(uint64_t){d}[{o}].GetPhyAddr()" for o in dl)
        src = ", ".join(f"(uint64_t){s}[{o}].GetPhyAddr()" for o in sl)
        return ["{",
                f"    uint64_t dstList[{ADDR_LIST_SIZE}] = {{{dst}}};",
                f"    uint64_t srcList[{ADDR_LIST_SIZE}] = {{{src}}};",
                "    AscendC::TransDataTo5HDParams params;",
                f"    params.repeatTimes = {rep};",
                f"    params.dstRepStride = {ds};",
                f"    params.srcRepStride = {ss};",
                f"    AscendC::{self.API}<{t}>(dstList, srcList, params);",
                "}"]

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in TRANS_5HD_DTYPES:
            raise VerifyException(f"ascendc.trans_data_to_5hd does not support element type {et} on A2 here "
                                  f"(supported: {', '.join(TRANS_5HD_DTYPES)}; the 8-bit forms are not modelled)")
        if self.src.type != self.dst.type:
            raise VerifyException("ascendc.trans_data_to_5hd: dst and src must have the same element type")
        dl, sl, rep, ds, ss = self.params()
        if len(dl) != ADDR_LIST_SIZE or len(sl) != ADDR_LIST_SIZE:
            raise VerifyException(f"ascendc.trans_data_to_5hd: dstList and srcList hold {ADDR_LIST_SIZE} addresses "
                                  f"each, got {len(dl)} and {len(sl)}")
        per = 32 // (self.dst.type.element_type.bitwidth // 8)
        bad = [o for o in dl + sl if o < 0 or o % per]
        if bad:
            raise violation("trans5hd-block-aligned", f"ascendc.trans_data_to_5hd: address offset {bad[0]} is not "
                            f"a non-negative multiple of {per} elements (32 B)")
        if not 0 <= rep <= MAX_REPEATS:
            raise violation("trans5hd-repeat-range", f"ascendc.trans_data_to_5hd: repeatTimes {rep} outside "
                            f"[0, {MAX_REPEATS}]")
        if not (0 <= ds <= MAX_REP_STRIDE and 0 <= ss <= MAX_REP_STRIDE):
            raise VerifyException(f"ascendc.trans_data_to_5hd: dstRepStride {ds} / srcRepStride {ss} outside "
                                  f"[0, {MAX_REP_STRIDE}]")


@irdl_op_definition
class GatherMaskOp(VectorOp):
    """``GatherMask(dst, src0, src1Pattern, reduceMode, mask, {src0BlockStride, repeatTimes, src0RepeatStride, 0},
    rsvdCnt)`` with a built-in ``pattern`` (see the module docstring); ``mask`` counts in counter mode only."""

    name = "ascendc.gather_mask"
    API: ClassVar[str] = "GatherMask"
    IN_PLACE: ClassVar[bool] = False
    traits = traits_def(BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    mask = operand_def(IndexType)
    src_block_stride = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_repeat_stride = operand_def(IndexType)
    pattern = prop_def(IntegerAttr[I64])
    reduce_mode = prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `pattern` $pattern `reduce_mode` $reduce_mode `mask` $mask `params` `(` "
                       "$src_block_stride `,` $repeat_times `,` $src_repeat_stride `)` attr-dict `:` type($dst) `,` "
                       "type($src)")

    def __init__(self, dst, src, pattern: int, reduce_mode: bool, mask, src_block_stride, repeat_times,
                 src_repeat_stride):
        super().__init__(operands=[dst, src, mask, src_block_stride, repeat_times, src_repeat_stride],
                         properties={"pattern": IntegerAttr(pattern, 64),
                                     "reduce_mode": IntegerAttr(int(bool(reduce_mode)), 64)})

    def print_ascendc(self, p) -> list[str]:
        t = p.format(self, "{T}")
        params = ", ".join(p.expr_as(v, c) for v, c in ((self.src_block_stride, "uint8_t"),
                                                        (self.repeat_times, "uint16_t"),
                                                        (self.src_repeat_stride, "uint16_t")))
        mode = "true" if self.reduce_mode.value.data else "false"
        return ["{",
                "    uint64_t rsvdCnt = 0;",
                f"    AscendC::{self.API}<{t}>({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"static_cast<uint8_t>({self.pattern.value.data}), {mode}, {p.expr_as(self.mask, 'uint32_t')}, "
                f"AscendC::GatherMaskParams({params}, 0), rsvdCnt);",
                "}"]

    def verify_(self) -> None:
        et = str(self.dst.type.element_type)
        if et not in GATHER_MASK_DTYPES:
            raise VerifyException(f"ascendc.gather_mask does not support element type {et} on A2 "
                                  f"(supported: {', '.join(GATHER_MASK_DTYPES)})")
        if self.src.type != self.dst.type:
            raise VerifyException("ascendc.gather_mask: dst and src0 must have the same element type")
        if self.pattern.value.data not in GATHER_MASK_PATTERNS:
            raise violation("gathermask-pattern-range", f"ascendc.gather_mask: src1Pattern "
                            f"{self.pattern.value.data} is not a built-in pattern")
        if self.reduce_mode.value.data not in (0, 1):
            raise VerifyException("ascendc.gather_mask: reduce_mode is 0 (normal) or 1 (counter)")


OPS = [CreateVecIndexOp, GatherOp, GatherbOp, GatherMaskOp, TransDataTo5HDOp]
ATTRIBUTES: list = []
