"""The cube's basic API: ``load_data`` (``LoadData2DParams``, ``LoadData3DParamsV2``), ``mmad`` and ``fixpipe``
(``FixpipeParamsV220``); GM -> L1 is ``data_copy`` with ``Nd2NzParams`` (``basic``)."""

from __future__ import annotations

from pyasc.dialects.ascendc.cube import (
    FixpipeOp, LoadDataOp, MmadOp, QuantMode, SetMMColumnMajorOp, SetMMRowMajorOp,
)
from pyasc.dialects.ascendc.cube_load3d import FIELDS as LOAD3D_FIELDS, LoadData3DV2Op
from pyasc.dialects.target import UNIT_FLAG_MODES

from .basic import runs_here
from .enums import QuantModes
from .errors import KernelError, unsupported
from .params import FixpipeConfig, FixpipeParamsV220, LoadData2DParams, LoadData3DParamsV2, MmadParams
from .trace import Scalar, current, to_i1, to_index
from .values import GlobalTensor, LocalTensor, emit


def load_data(dst, src, params) -> None:
    """``LoadData(dst, src, LoadData2DParams | LoadData3DParamsV2)``: L1 -> L0A/L0B on MTE1."""
    if isinstance(params, LoadData3DParamsV2):
        return _load_3dv2(dst, src, params)
    if not isinstance(params, LoadData2DParams):
        raise unsupported(f"load_data with {type(params).__name__}",
                          "only LoadData2DParams and LoadData3DParamsV2 have ascendc ops")
    if params.addr_mode:
        raise unsupported("load_data with addr_mode != 0")
    if not runs_here("aic", "cube"):
        return
    p = params
    emit("load_data", LoadDataOp(dst.value, src.value, to_index(p.start_index), to_index(p.repeat_times),
                                 to_index(p.src_stride), to_index(p.sid), to_index(p.dst_gap), bool(p.if_transpose)))


_LOAD3D_NOT_MODELLED = ("en_transpose", "en_small_k", "filter_size_w", "filter_size_h", "f_matrix_ctrl")


def _load_3dv2(dst, src, p: LoadData3DParamsV2) -> None:
    """Load3Dv2: img2col of the NC1HWC0 feature map ``src`` (L1) into ``dst`` (L0A) as ZZ."""
    for name in _LOAD3D_NOT_MODELLED:
        flag = getattr(p, name)
        if isinstance(flag, Scalar) or flag:
            raise unsupported(f"load_data with LoadData3DParamsV2({name}=True)", "not modelled")
    if isinstance(p.pad_value, Scalar):
        raise unsupported("load_data with a run-time LoadData3DParamsV2 pad_value", "the pad value is a constant")
    pads = list(p.pad_list)
    if len(pads) != 4:
        raise KernelError("load_data", f"LoadData3DParamsV2 pad_list has 4 entries [left, right, top, bottom], "
                          f"got {len(pads)}", location=current().loc)
    if not runs_here("aic", "cube"):
        return
    values = dict(zip(LOAD3D_FIELDS, pads))
    values.update({n: getattr(p, n) for n in LOAD3D_FIELDS if not n.startswith("pad_")})
    emit("load_data", LoadData3DV2Op(dst.value, src.value, {n: to_index(x) for n, x in values.items()},
                                     float(p.pad_value)))


def mmad(dst, fm, filter, *args) -> None:  # noqa: A002 - official name
    """``Mmad(dst, fm, filter, MmadParams)``: L0C (+)= L0A x L0B on the cube."""
    if len(args) != 1:
        raise unsupported("mmad with a bias tensor", "the ascendc Mmad has no bias operand")
    p = args[0]
    if not isinstance(p, MmadParams):
        raise KernelError("mmad", "expects MmadParams", location=current().loc)
    if not runs_here("aic", "cube"):
        return
    if p.cmatrix_source:
        raise unsupported("mmad with cmatrix_source")
    emit("mmad", MmadOp(dst.value, fm.value, filter.value, to_index(p.m), to_index(p.n), to_index(p.k),
                        to_i1(p.cmatrix_init_val), unit_flag=_unit_flag("mmad", p.unit_flag)))


def set_mm_row_major() -> None:
    """``SetMMRowMajor()``: the cube produces each Mmad's results N first, then M."""
    if runs_here("aic", "cube"):
        emit("set_mm_row_major", SetMMRowMajorOp())


def set_mm_column_major() -> None:
    """``SetMMColumnMajor()``: the cube produces each Mmad's results M first, then N."""
    if runs_here("aic", "cube"):
        emit("set_mm_column_major", SetMMColumnMajorOp())


def _unit_flag(api: str, value) -> int:
    """``unitFlag`` of MmadParams/FixpipeParamsV220: 0 (off), 2 or 3, known when the kernel is traced."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in (0, *UNIT_FLAG_MODES):
        raise KernelError(api, f"unit_flag must be 0, 2 or 3 when the kernel is traced (UnitFlag.md; 1 is reserved), "
                               f"got {value!r}", location=current().loc)
    return value


_QUANT = {QuantModes.NoQuant: QuantMode.NoQuant, QuantModes.F322F16: QuantMode.F322F16,
          QuantModes.F322BF16: QuantMode.F322BF16}


def fixpipe(dst, src, *args, **kwargs) -> None:
    """``Fixpipe(dst, src, FixpipeParamsV220[, FixpipeConfig])``: L0C (NZ) -> GM (ND)."""
    params = kwargs.get("params") or kwargs.get("intri_params") or (args[0] if args else None)
    config = kwargs.get("config") or (args[1] if len(args) > 1 else FixpipeConfig.cfg_row_major())
    if not isinstance(dst, GlobalTensor) or not isinstance(src, LocalTensor):
        raise unsupported("fixpipe into a local tensor", "only L0C -> GM has an ascendc op")
    if not isinstance(params, FixpipeParamsV220):
        raise unsupported(f"fixpipe with {type(params).__name__}")
    if isinstance(config, FixpipeConfig) and config.layout.name != "ROW_MAJOR":
        raise unsupported("fixpipe with FixpipeConfig.cfg_nz()", "the ascendc Fixpipe writes row-major (ND)")
    p = params
    if p.nd_num != 1 or p.deq_scalar or p.is_channel_split:
        raise unsupported("fixpipe with nd_num/deq_scalar/channel split")
    quant = _QUANT.get(QuantModes(p.quant_pre))
    if quant is None:
        raise unsupported(f"fixpipe with quant_pre={QuantModes(p.quant_pre).name}")
    if not runs_here("aic", "cube"):
        return
    emit("fixpipe", FixpipeOp(dst.value, src.value, to_index(p.n_size), to_index(p.m_size), to_index(p.src_stride),
                              to_index(p.dst_stride), quant, bool(p.relu_en), _unit_flag("fixpipe", p.unit_flag)))
