"""Parameter structs of the official API (``asc.DataCopyParams``, ``asc.Nd2NzParams``, ...): plain
records of Python numbers or run-time scalars, built inside a kernel and read by the ops."""

from __future__ import annotations

from dataclasses import dataclass, field

from .enums import CO2Layout, QuantModes


@dataclass
class DataCopyParams:
    """``DataCopyParams{blockCount, blockLen, srcStride, dstStride}``: lengths and gaps in 32 B blocks."""

    block_count: object = 1
    block_len: object = 0
    src_stride: object = 0
    dst_stride: object = 0


@dataclass
class DataCopyExtParams:
    """``DataCopyExtParams{blockCount, blockLen, srcStride, dstStride, rsv}``: ``blockLen`` in bytes."""

    block_count: object = 1
    block_len: object = 0
    src_stride: object = 0
    dst_stride: object = 0
    rsv: object = 0


@dataclass
class DataCopyPadParams:
    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: int = 0


@dataclass
class DataCopyPadExtParams:
    """``DataCopyPadExtParams<T>{isPad, leftPadding, rightPadding, paddingValue}``."""

    dtype: object = None
    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: int = 0


@dataclass
class Nd2NzParams:
    """``Nd2NzParams``: GM (ND) -> L1 (NZ)."""

    nd_num: object = 1
    n_value: object = 0
    d_value: object = 0
    src_nd_matrix_stride: object = 0
    src_d_value: object = 0
    dst_nz_c0_stride: object = 0
    dst_nz_n_stride: object = 0
    dst_nz_matrix_stride: object = 0


@dataclass
class TransDataTo5HDParams:
    """``TransDataTo5HDParams{dstHighHalf, srcHighHalf, repeatTimes, dstRepStride, srcRepStride}``: strides in
    32 B DataBlocks between repeats."""

    dst_high_half: bool = False
    src_high_half: bool = False
    repeat_times: object = 1
    dst_rep_stride: object = 0
    src_rep_stride: object = 0


@dataclass
class GatherMaskParams:
    """``GatherMaskParams{src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride}``: strides in 32 B
    DataBlocks (``src1RepeatStride`` applies to a pattern tensor only)."""

    src0_block_stride: object = 1
    repeat_times: object = 1
    src0_repeat_stride: object = 0
    src1_repeat_stride: object = 0


@dataclass
class LoadData2DParams:
    """``LoadData2DParams``: L1 -> L0A/L0B, fractal by fractal."""

    start_index: object = 0
    repeat_times: object = 1
    src_stride: object = 0
    sid: object = 0
    dst_gap: object = 0
    if_transpose: bool = False
    addr_mode: int = 0


@dataclass
class LoadData3DParamsV2:
    """``LoadData3DParamsV2<T>``: img2col of an NC1HWC0 feature map in L1 into L0A (Load3Dv2); the defaults
    are the struct's. ``pad_list``: [left, right, top, bottom]."""

    pad_list: object = (0, 0, 0, 0)
    l1_h: object = 0
    l1_w: object = 0
    channel_size: object = 0
    k_extension: object = 0
    m_extension: object = 0
    k_start_pt: object = 0
    m_start_pt: object = 0
    stride_w: object = 1
    stride_h: object = 1
    filter_w: object = 1
    filter_h: object = 1
    dilation_filter_w: object = 1
    dilation_filter_h: object = 1
    en_transpose: bool = False
    en_small_k: bool = False
    pad_value: float = 0
    filter_size_w: bool = False
    filter_size_h: bool = False
    f_matrix_ctrl: bool = False


class MmadParams:
    """``MmadParams{m, n, k, unitFlag, cmatrixSource, cmatrixInitVal}`` (``cmatrix_init_val`` True:
    overwrite L0C, False: accumulate)."""

    def __init__(self, m=0, n=0, k=0, unit_flag=0, cmatrix_source=False, cmatrix_init_val=True, *rest):
        if rest:
            from .errors import unsupported

            raise unsupported("MmadParams", "the form with is_bias/fm_offset/winograd fields has no ascendc op")
        self.m, self.n, self.k = m, n, k
        self.unit_flag, self.cmatrix_source, self.cmatrix_init_val = unit_flag, cmatrix_source, cmatrix_init_val


@dataclass
class FixpipeParamsV220:
    """``FixpipeParamsV220``: L0C (NZ) -> GM (ND)."""

    n_size: object = 0
    m_size: object = 0
    src_stride: object = 0
    dst_stride: object = 0
    quant_pre: QuantModes = QuantModes.NoQuant
    deq_scalar: int = 0
    nd_num: int = 1
    src_nd_stride: int = 0
    dst_nd_stride: int = 0
    relu_en: bool = False
    unit_flag: int = 0
    is_channel_split: bool = False


@dataclass
class FixpipeConfig:
    layout: CO2Layout = CO2Layout.ROW_MAJOR

    @classmethod
    def cfg_nz(cls):
        return cls(CO2Layout.NZ)

    @classmethod
    def cfg_row_major(cls):
        return cls(CO2Layout.ROW_MAJOR)


@dataclass
class BinaryRepeatParams:
    dst_blk_stride: int = 1
    src0_blk_stride: int = 1
    src1_blk_stride: int = 1
    dst_rep_stride: int = 8
    src0_rep_stride: int = 8
    src1_rep_stride: int = 8


@dataclass
class UnaryRepeatParams:
    dst_blk_stride: int = 1
    src_blk_stride: int = 1
    dst_rep_stride: int = 8
    src_rep_stride: int = 8


@dataclass
class ShapeInfo:
    shape: list = field(default_factory=list)
    original_shape: list | None = None
    data_format: int = 0
