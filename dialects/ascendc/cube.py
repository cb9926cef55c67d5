"""The ``ascendc`` dialect, cube part: ``DataCopy`` with ``Nd2NzParams``, ``InitConstValue``, ``LoadData`` with
``LoadData2DParams``, ``Mmad`` with ``MmadParams`` and ``Fixpipe`` with ``FixpipeParamsV220``.

Units follow the API. Local tensors of the cube live at byte addresses of their own memory,
named by their ``TPosition``: A1/B1 = L1, A2 = L0A, B2 = L0B, CO1 = L0C. A fractal is 512 B,
``16 x c0`` elements with ``c0 = 32 B / sizeof(T)``.

* ``DataCopy(dst, src, Nd2NzParams{ndNum, nValue, dValue, srcNdMatrixStride, srcDValue,
  dstNzC0Stride, dstNzNStride, dstNzMatrixStride})`` (MTE2): ``nValue`` rows of ``dValue`` elements,
  ``srcDValue`` apart in GM, to NZ: element ``(r, c)`` lands at element
  ``(c / c0) * dstNzC0Stride * c0 + r * dstNzNStride * c0 + c % c0`` (strides in 32 B blocks);
  the rest of a partial last column block keeps its contents; ``ndNum`` matrices ``srcNdMatrixStride``
  elements apart in GM land ``dstNzMatrixStride`` elements apart in L1.
* ``InitConstValue(dst, InitConstValueParams<T>{repeatTimes, blockNum, dstGap, initValue})`` (MTE2 for
  L1): ``repeatTimes`` runs of ``blockNum`` 32 B blocks set to ``initValue``, ``dstGap`` blocks apart
  (the rows of an L1 tile past the rows an ND2NZ wrote, which LoadData reads as whole fractals).
* ``LoadData(dst, src, LoadData2DParams{startIndex, repeatTimes, srcStride, sid, dstGap,
  ifTranspose, addrMode})`` (MTE1): repeat ``r`` copies the 512 B fractal
  ``startIndex + r * srcStride`` of ``src`` to fractal ``r * (dstGap + 1)`` of ``dst``, transposing
  it (16 x 16, 2-byte types only) when ``ifTranspose``.
* ``LoadDataWithTranspose(dst, src, LoadData2dTransposeParams{startIndex, repeatTimes, srcStride, dstGap,
  dstFracGap, addrMode})`` (MTE1, A1/B1 -> A2/B2): repeat ``r`` reads the square ``startIndex + r * srcStride``
  of ``src`` (``-`` with ``addrMode``), 512 B for 2-byte types and 1 KB (two 16 x 8 fractals side by side,
  a 16 x 16 matrix) for 4-byte ones, transposes it and writes its fractals (2-byte: one; 4-byte: the
  16 x 8 halves of the transposed square, its first and second 8 columns) at fractal ``r * (dstGap + 1)``
  of ``dst`` and ``dstFracGap + 1`` fractals after it.
* ``Mmad(dst, fm, filter, MmadParams{m, n, k, unitFlag, cmatrixSource, cmatrixInitVal})`` (M):
  ``C[:m, :n] (= if cmatrixInitVal else +=) A[:m, :k] @ B[:k, :n]`` with A in L0A as ZZ
  (``ceil(k / c0)`` fractals per 16-row stripe), B in L0B as ZN (``ceil16(n) / 16`` fractals per
  ``c0``-row stripe, each stored N-major) and C in L0C as NZ (``ceil16(m)`` rows per 16 columns),
  accumulated in f32 (i32 for int8).
* ``Mmad(dst, fm, filter, bias, MmadParams{...})`` (M): ``C[:m, :n] = broadcast(bias[:n]) + A @ B``, the bias
  a float32 (int32) row in BiasTable (C2), filled from L1 by ``DataCopy(bt, l1, DataCopyParams{...})`` (MTE1).
* ``Fixpipe(dst, src, FixpipeParamsV220{nSize, mSize, srcStride, dstStride, reluEn, quantPre,
  ...})`` (FIX): the ``mSize x nSize`` NZ matrix (``srcStride`` rows per 16-column block) to
  row-major GM rows ``dstStride`` elements apart, through ReLU when ``reluEn`` and converted by
  ``quantPre`` (``NoQuant``, ``F322F16``, ``F322BF16``).
* ``unitFlag`` of Mmad and Fixpipe (``UnitFlag.md``; ``unit_flag``, absent = 0, off): L0C has a flag per 512 B
  block. An Mmad with 2 or 3 writes a block once its flag is 0 and a Fixpipe with 2 or 3 reads it once it is 1;
  with 3 the Mmad sets the flag to 1 and the Fixpipe clears it when done with the block. So the last Mmad of a
  block (3) and its Fixpipe (3) overlap, block by block, and the next Mmads (2) follow the Fixpipe the same way,
  with no SetFlag/WaitFlag between M and FIX.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, IntegerType, UnitAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AnyAttr,
    irdl_attr_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import BufferEffects, OnPipe
from ..types import kernel_ctype
from .attributes import GlobalTensorType, LocalTensorType
from .attributes import POSITION_MEMORY, TPosition
from .base import AscendCOperation, CallPrinter, LocalTensorOp, SubviewOp, const_int
from .contract import check_unit_flag, unit_flag_of


class QuantMode(StrEnum):
    """``QuantMode_t`` of FixPipe (the conversions pyasc uses)."""

    NoQuant = "NoQuant"
    F322F16 = "F322F16"
    F322BF16 = "F322BF16"


@irdl_attr_definition
class QuantModeAttr(EnumAttribute[QuantMode], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.quant_mode"


QUANT_OF = {("f32", "f16"): QuantMode.F322F16, ("f32", "bf16"): QuantMode.F322BF16,
            ("f32", "f32"): QuantMode.NoQuant, ("i32", "i32"): QuantMode.NoQuant}

CUBE_INPUT_TYPES = ("f16", "bf16", "f32", "i8")


def _et(v) -> str:
    return str(v.type.element_type)


def _check_range(op: str, name: str, value, lo: int, hi: int) -> None:
    c = const_int(value)
    if c is not None and not lo <= c <= hi:
        raise VerifyException(f"{op}: {name} must be in {lo}..{hi}, got {c}")


@irdl_op_definition
class DataCopyNd2NzOp(AscendCOperation):
    """``DataCopy(dst, src, Nd2NzParams{...})``: GM (ND) -> L1 (NZ) on MTE2."""

    name = "ascendc.data_copy_nd2nz"
    BATCHABLE: ClassVar[bool] = True
    ORDERED_TRACE: ClassVar[bool] = True  # its HBM bytes: the L2 lines earlier cores did not read
    API: ClassVar[str] = "DataCopy"
    traits = traits_def(OnPipe(Pipe.MTE2), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(GlobalTensorType)
    nd_num = operand_def(IndexType)
    n_value = operand_def(IndexType)
    d_value = operand_def(IndexType)
    src_nd_matrix_stride = operand_def(IndexType)
    src_d_value = operand_def(IndexType)
    dst_nz_c0_stride = operand_def(IndexType)
    dst_nz_n_stride = operand_def(IndexType)
    dst_nz_matrix_stride = operand_def(IndexType)
    assembly_format = ("$dst `,` $src `,` `{` $nd_num `,` $n_value `,` $d_value `,` $src_nd_matrix_stride `,` "
                       "$src_d_value `,` $dst_nz_c0_stride `,` $dst_nz_n_stride `,` $dst_nz_matrix_stride `}` "
                       "attr-dict `:` type($dst) `,` type($src)")

    def __init__(self, dst, src, nd_num, n_value, d_value, src_nd_matrix_stride, src_d_value, dst_nz_c0_stride,
                 dst_nz_n_stride, dst_nz_matrix_stride):
        super().__init__(operands=[dst, src, nd_num, n_value, d_value, src_nd_matrix_stride, src_d_value,
                                   dst_nz_c0_stride, dst_nz_n_stride, dst_nz_matrix_stride])

    def print_ascendc(self, p: CallPrinter) -> str:
        fields = [p.expr_as(v, "uint16_t") for v in (self.nd_num, self.n_value, self.d_value,
                                                     self.src_nd_matrix_stride, self.src_d_value,
                                                     self.dst_nz_c0_stride, self.dst_nz_n_stride,
                                                     self.dst_nz_matrix_stride)]
        return (f"AscendC::DataCopy({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::Nd2NzParams{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        if self.dst.type.element_type != self.src.type.element_type:
            raise VerifyException(f"{self.name} needs one element type, got {self.dst.type} and {self.src.type}")
        for name in ("nd_num", "n_value", "d_value", "src_d_value", "dst_nz_c0_stride", "dst_nz_n_stride"):
            _check_range(self.name, name, getattr(self, name), 0, 65535)
        _check_range(self.name, "n_value", self.n_value, 0, 16384)


@irdl_op_definition
class InitConstValueOp(AscendCOperation):
    """``InitConstValue(dst, InitConstValueParams<T>{repeatTimes, blockNum, dstGap, initValue})``: an L1 tensor
    (A1/B1) set to ``value`` on MTE2, ``blockNum`` 32 B blocks per repeat, ``dstGap`` blocks between repeats
    (repeatTimes or blockNum 0: nothing). The doc allows L0A/L0B (512 B blocks, MTE1) too; only L1 is used."""

    name = "ascendc.init_const_value"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "InitConstValue"
    traits = traits_def(OnPipe(Pipe.MTE2), BufferEffects(writes=("dst",)))
    dst = operand_def(LocalTensorType)
    repeat_times = operand_def(IndexType)
    block_num = operand_def(IndexType)
    dst_gap = operand_def(IndexType)
    value = operand_def(AnyAttr())
    assembly_format = ("$dst `,` `{` $repeat_times `,` $block_num `,` $dst_gap `,` $value `}` attr-dict `:` "
                       "type($dst) `,` type($value)")

    def __init__(self, dst, repeat_times, block_num, dst_gap, value):
        super().__init__(operands=[dst, repeat_times, block_num, dst_gap, value])

    def print_ascendc(self, p: CallPrinter) -> str:
        t = kernel_ctype(self.dst.type.element_type)
        fields = [p.expr_as(v, "uint16_t") for v in (self.repeat_times, self.block_num, self.dst_gap)]
        fields.append(p.expr_as(self.value, t))
        return (f"AscendC::InitConstValue({p.expr(self.dst)}, "
                f"AscendC::InitConstValueParams<{t}>{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        if self.value.type != self.dst.type.element_type:
            raise VerifyException(f"{self.name}: the value's type {self.value.type} differs from the tensor's "
                                  f"{self.dst.type.element_type}")
        for name in ("repeat_times", "block_num", "dst_gap"):
            _check_range(self.name, name, getattr(self, name), 0, 32767)


@irdl_op_definition
class LoadDataOp(AscendCOperation):
    """``LoadData(dst, src, LoadData2DParams{startIndex, repeatTimes, srcStride, sid, dstGap,
    ifTranspose, 0})``: L1 -> L0A/L0B, fractal by fractal, on MTE1."""

    name = "ascendc.load_data"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "LoadData"
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    start_index = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    sid = operand_def(IndexType)
    dst_gap = operand_def(IndexType)
    if_transpose = opt_prop_def(UnitAttr)
    assembly_format = ("$dst `,` $src `,` `{` $start_index `,` $repeat_times `,` $src_stride `,` $sid `,` "
                       "$dst_gap `}` (`transpose` $if_transpose^)? attr-dict `:` type($dst) `,` type($src)")

    def __init__(self, dst, src, start_index, repeat_times, src_stride, sid, dst_gap, transpose: bool = False):
        super().__init__(operands=[dst, src, start_index, repeat_times, src_stride, sid, dst_gap],
                         properties={"if_transpose": UnitAttr() if transpose else None})

    def print_ascendc(self, p: CallPrinter) -> str:
        fields = [p.expr_as(self.start_index, "uint16_t"), p.expr_as(self.repeat_times, "uint8_t"),
                  p.expr_as(self.src_stride, "uint16_t"), p.expr_as(self.sid, "uint8_t"),
                  p.expr_as(self.dst_gap, "uint16_t"), "true" if self.if_transpose is not None else "false", "0"]
        return (f"AscendC::LoadData({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::LoadData2DParams{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        if self.dst.type.element_type != self.src.type.element_type:
            raise VerifyException(f"{self.name} needs one element type, got {self.dst.type} and {self.src.type}")
        if self.if_transpose is not None and _et(self.dst) not in ("f16", "bf16"):
            raise VerifyException(f"{self.name}: ifTranspose transposes 16x16 fractals of 2-byte types, "
                                  f"not {_et(self.dst)}")
        _check_range(self.name, "repeatTimes", self.repeat_times, 0, 255)
        _check_range(self.name, "startIndex", self.start_index, 0, 65535)
        _check_range(self.name, "srcStride", self.src_stride, 0, 65535)
        _check_range(self.name, "dstGap", self.dst_gap, 0, 65535)


def position_of(value) -> TPosition | None:
    """The ``TPosition`` of the static local tensor ``value`` views, if known."""
    owner = value.owner
    while isinstance(owner, SubviewOp):
        owner = owner.source.owner
    return owner.position.data if isinstance(owner, LocalTensorOp) else None


def _check_positions(op, src_allowed: tuple, dst_allowed: tuple) -> None:
    """The ``TPosition`` of ``op``'s static ``src`` and ``dst`` tensors, where known, among those allowed."""
    for operand, allowed in ((op.src, src_allowed), (op.dst, dst_allowed)):
        pos = position_of(operand)
        if pos is not None and pos not in allowed:
            raise VerifyException(f"{op.name}: {'src' if operand is op.src else 'dst'} must be in "
                                  f"{' or '.join(a.value for a in allowed)}, got {pos.value} "
                                  f"({POSITION_MEMORY.get(pos, 'UB')})")


TRANSPOSE_LOAD_TYPES = ("i8", "ui8", "f16", "bf16", "f32", "i32", "ui32")


@irdl_op_definition
class LoadDataWithTransposeOp(AscendCOperation):
    """``LoadDataWithTranspose(dst, src, LoadData2dTransposeParams{startIndex, repeatTimes, srcStride, dstGap,
    dstFracGap, addrMode})``: L1 (A1/B1) -> L0A/L0B (A2/B2), square by square transposed, on MTE1. The
    simulator runs 2- and 4-byte types."""

    name = "ascendc.load_data_with_transpose"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "LoadDataWithTranspose"
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    start_index = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_gap = operand_def(IndexType)
    dst_frac_gap = operand_def(IndexType)
    addr_mode = opt_prop_def(UnitAttr)
    assembly_format = ("$dst `,` $src `,` `{` $start_index `,` $repeat_times `,` $src_stride `,` $dst_gap `,` "
                       "$dst_frac_gap `}` (`decrement` $addr_mode^)? attr-dict `:` type($dst) `,` type($src)")

    def __init__(self, dst, src, start_index, repeat_times, src_stride, dst_gap, dst_frac_gap,
                 decrement: bool = False):
        super().__init__(operands=[dst, src, start_index, repeat_times, src_stride, dst_gap, dst_frac_gap],
                         properties={"addr_mode": UnitAttr() if decrement else None})

    def print_ascendc(self, p: CallPrinter) -> str:
        fields = [p.expr_as(self.start_index, "uint16_t"), p.expr_as(self.repeat_times, "uint8_t"),
                  p.expr_as(self.src_stride, "uint16_t"), p.expr_as(self.dst_gap, "uint16_t"),
                  p.expr_as(self.dst_frac_gap, "uint16_t"), "true" if self.addr_mode is not None else "false"]
        return (f"AscendC::LoadDataWithTranspose({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::LoadData2dTransposeParams{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        if self.dst.type.element_type != self.src.type.element_type:
            raise VerifyException(f"{self.name} needs one element type, got {self.dst.type} and {self.src.type}")
        if _et(self.dst) not in TRANSPOSE_LOAD_TYPES:
            raise VerifyException(f"{self.name}: {_et(self.dst)} is not one of {', '.join(TRANSPOSE_LOAD_TYPES)}")
        _check_positions(self, (TPosition.A1, TPosition.B1), (TPosition.A2, TPosition.B2))
        _check_range(self.name, "repeatTimes", self.repeat_times, 0, 255)
        for name in ("start_index", "src_stride", "dst_gap", "dst_frac_gap"):
            _check_range(self.name, name, getattr(self, name), 0, 65535)


@irdl_op_definition
class MmadOp(AscendCOperation):
    """``Mmad(dst, fm, filter, MmadParams{m, n, k, 0, false, init})``: L0C (+)= L0A x L0B on PIPE_M; with a
    ``bias`` (BiasTable, C2), ``Mmad(dst, fm, filter, bias, MmadParams{m, n, k, 0, false, false})``: L0C =
    broadcast(bias[:n]) + L0A x L0B, the bias overload always initialising C from BT (``init`` must be false)."""

    name = "ascendc.mmad"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "Mmad"
    # without init, dst is accumulated into: read as well as written
    traits = traits_def(OnPipe(Pipe.M), BufferEffects(reads=("fm", "filter", "dst", "bias"), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    fm = operand_def(LocalTensorType)
    filter = operand_def(LocalTensorType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)
    init = operand_def(IntegerType(1))
    bias = opt_operand_def(LocalTensorType)
    unit_flag = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $fm `,` $filter (`bias` $bias^)? `,` `{` $m `,` $n `,` $k `}` `init` $init "
                       "(`unit_flag` $unit_flag^)? attr-dict `:` type($dst) `,` type($fm) `,` type($filter) "
                       "(`,` type($bias)^)?")

    def __init__(self, dst, fm, filter, m, n, k, init, bias=None, unit_flag: int = 0):
        super().__init__(operands=[dst, fm, filter, m, n, k, init, [bias] if bias is not None else []],
                         properties={"unit_flag": IntegerAttr(unit_flag, 64) if unit_flag else None})

    def print_ascendc(self, p: CallPrinter) -> str:
        init = "false" if self.bias is not None else p.expr_as(self.init, "bool")
        fields = [p.expr_as(self.m, "uint16_t"), p.expr_as(self.n, "uint16_t"), p.expr_as(self.k, "uint16_t"),
                  str(unit_flag_of(self)), "false", init]
        bias = f"{p.expr(self.bias)}, " if self.bias is not None else ""
        return (f"AscendC::Mmad({p.expr(self.dst)}, {p.expr(self.fm)}, {p.expr(self.filter)}, {bias}"
                f"AscendC::MmadParams{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        et = _et(self.fm)
        if et not in CUBE_INPUT_TYPES or _et(self.filter) != et:
            raise VerifyException(f"{self.name}: operands must share one of {', '.join(CUBE_INPUT_TYPES)}, "
                                  f"got {self.fm.type} and {self.filter.type}")
        want = "i32" if et == "i8" else "f32"
        if _et(self.dst) != want:
            raise VerifyException(f"{self.name}: {et} operands accumulate into {want}, got {self.dst.type}")
        for name in ("m", "n", "k"):
            _check_range(self.name, name, getattr(self, name), 0, 4095)
        check_unit_flag(self)
        if self.bias is not None:
            if _et(self.bias) != want:
                raise VerifyException(f"{self.name}: the bias of {et} operands is {want}, got {self.bias.type}")
            if const_int(self.init) not in (0, None):
                raise VerifyException(f"{self.name}: with a bias C starts from BiasTable; init must be false")
            pos = position_of(self.bias)
            if pos is not None and pos != TPosition.C2:
                raise VerifyException(f"{self.name}: the bias must be in C2 (BiasTable), got {pos.value}")


BT_SOURCE_TYPES = {("f32", "f32"), ("i32", "i32"), ("f32", "f16")}  # (dst, src) of DataCopy C1 -> C2 on 910B


@irdl_op_definition
class DataCopyL1ToBtOp(AscendCOperation):
    """``DataCopy(dst, src, DataCopyParams{blockCount, blockLen, srcGap, dstGap})``: L1 (C1) -> BiasTable (C2) on
    MTE1. ``blockLen`` counts 64 B units of the source (a float16 source is widened to float32 on the way, as
    Ascend C's Matmul loads a half bias: each 64 B of it fill 128 B of BT); ``srcGap`` is in 32 B blocks, ``dstGap``
    in 64 B units; BT addresses are 64 B aligned, L1 ones 32 B."""

    name = "ascendc.data_copy_l1_bt"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "DataCopy"
    traits = traits_def(OnPipe(Pipe.MTE1), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(LocalTensorType)
    src = operand_def(LocalTensorType)
    block_count = operand_def(IndexType)
    block_len = operand_def(IndexType)
    src_gap = operand_def(IndexType)
    dst_gap = operand_def(IndexType)
    assembly_format = ("$dst `,` $src `,` `{` $block_count `,` $block_len `,` $src_gap `,` $dst_gap `}` attr-dict "
                       "`:` type($dst) `,` type($src)")

    def __init__(self, dst, src, block_count, block_len, src_gap, dst_gap):
        super().__init__(operands=[dst, src, block_count, block_len, src_gap, dst_gap])

    def print_ascendc(self, p: CallPrinter) -> str:
        fields = [p.expr_as(v, "uint16_t") for v in (self.block_count, self.block_len, self.src_gap, self.dst_gap)]
        return (f"AscendC::DataCopy({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::DataCopyParams{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        pair = (_et(self.dst), _et(self.src))
        if pair not in BT_SOURCE_TYPES:
            raise VerifyException(f"{self.name}: DataCopy C1 -> C2 copies f32, i32 or f16 -> f32, not "
                                  f"{pair[1]} -> {pair[0]}")
        _check_positions(self, (TPosition.C1, TPosition.A1, TPosition.B1), (TPosition.C2,))
        _check_range(self.name, "blockCount", self.block_count, 0, 4095)
        for name in ("block_len", "src_gap", "dst_gap"):
            _check_range(self.name, name, getattr(self, name), 0, 65535)


@irdl_op_definition
class FixpipeOp(AscendCOperation):
    """``Fixpipe(dst, src, FixpipeParamsV220{nSize, mSize, srcStride, dstStride, reluEn, quantPre, ...})``:
    L0C (NZ) -> GM (ND) on PIPE_FIX."""

    name = "ascendc.fixpipe"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "Fixpipe"
    traits = traits_def(OnPipe(Pipe.FIX), BufferEffects(reads=("src",), writes=("dst",)))
    dst = operand_def(GlobalTensorType)
    src = operand_def(LocalTensorType)
    n_size = operand_def(IndexType)
    m_size = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    quant = prop_def(QuantModeAttr)
    relu = opt_prop_def(UnitAttr)
    unit_flag = opt_prop_def(IntegerAttr[I64])
    assembly_format = ("$dst `,` $src `,` `{` $n_size `,` $m_size `,` $src_stride `,` $dst_stride `}` "
                       "`quant` $quant (`relu` $relu^)? (`unit_flag` $unit_flag^)? attr-dict `:` type($dst) `,` "
                       "type($src)")

    def __init__(self, dst, src, n_size, m_size, src_stride, dst_stride, quant: QuantMode, relu: bool = False,
                 unit_flag: int = 0):
        super().__init__(operands=[dst, src, n_size, m_size, src_stride, dst_stride],
                         properties={"quant": QuantModeAttr(quant), "relu": UnitAttr() if relu else None,
                                     "unit_flag": IntegerAttr(unit_flag, 64) if unit_flag else None})

    def print_ascendc(self, p: CallPrinter) -> str:
        fields = [p.expr_as(self.n_size, "uint16_t"), p.expr_as(self.m_size, "uint16_t"),
                  p.expr_as(self.src_stride, "uint16_t"), p.expr_as(self.dst_stride, "uint32_t"),
                  "true" if self.relu is not None else "false", f"QuantMode_t::{self.quant.data.value}",
                  "0", "1", "0", "0", str(unit_flag_of(self))]
        dt, st = kernel_ctype(self.dst.type.element_type), kernel_ctype(self.src.type.element_type)
        return (f"AscendC::Fixpipe<{dt}, {st}, AscendC::CFG_ROW_MAJOR>({p.expr(self.dst)}, {p.expr(self.src)}, "
                f"AscendC::FixpipeParamsV220{{{', '.join(fields)}}});")

    def verify_(self) -> None:
        pair = (_et(self.src), _et(self.dst))
        if QUANT_OF.get(pair) != self.quant.data:
            raise VerifyException(f"{self.name}: quantPre {self.quant.data.value} does not convert "
                                  f"{pair[0]} to {pair[1]}")
        if const_int(self.src_stride) is not None and const_int(self.src_stride) % 16:
            raise VerifyException(f"{self.name}: srcStride (rows per 16-column block) must be a multiple of 16")
        check_unit_flag(self)


class SetMMMajorOp(AscendCOperation):
    """``SetMMRowMajor()`` / ``SetMMColumnMajor()`` (``SetMMColumnMajor-SetMMRowMajor.md``, PIPE_S): the order in which
    the cube produces an Mmad's results, N first then M (row major) or M first (column major). With unit flags a
    Fixpipe that converts NZ to ND reads them N first, so they overlap block by block only after ``SetMMRowMajor``
    (``UnitFlag.md``)."""

    BATCHABLE: ClassVar[bool] = True
    ROW_MAJOR: ClassVar[bool]
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class SetMMRowMajorOp(SetMMMajorOp):
    name = "ascendc.set_mm_row_major"
    API: ClassVar[str] = "SetMMRowMajor"
    CALL: ClassVar[str] = "AscendC::SetMMRowMajor();"
    ROW_MAJOR: ClassVar[bool] = True


@irdl_op_definition
class SetMMColumnMajorOp(SetMMMajorOp):
    name = "ascendc.set_mm_column_major"
    API: ClassVar[str] = "SetMMColumnMajor"
    CALL: ClassVar[str] = "AscendC::SetMMColumnMajor();"
    ROW_MAJOR: ClassVar[bool] = False


OPS = [DataCopyNd2NzOp, InitConstValueOp, LoadDataOp, LoadDataWithTransposeOp, MmadOp, DataCopyL1ToBtOp, FixpipeOp,
       SetMMRowMajorOp, SetMMColumnMajorOp]
ATTRIBUTES = [QuantModeAttr]
