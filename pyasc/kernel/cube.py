"""The cube's basic API: ``load_data`` (``LoadData2DParams``), ``mmad`` and ``fixpipe``
(``FixpipeParamsV220``); GM -> L1 is ``data_copy`` with ``Nd2NzParams`` (``basic``)."""

from __future__ import annotations

from pyasc.dialects.ascendc.cube import FixpipeOp, LoadDataOp, MmadOp, QuantMode

from .basic import runs_here
from .enums import QuantModes
from .errors import KernelError, unsupported
from .params import FixpipeConfig, FixpipeParamsV220, LoadData2DParams, MmadParams
from .trace import current, to_i1, to_index
from .values import GlobalTensor, LocalTensor, emit


def load_data(dst, src, params) -> None:
    """``LoadData(dst, src, LoadData2DParams)``: L1 -> L0A/L0B on MTE1."""
    if not isinstance(params, LoadData2DParams):
        raise unsupported(f"load_data with {type(params).__name__}", "only LoadData2DParams has an ascendc op")
    if params.addr_mode:
        raise unsupported("load_data with addr_mode != 0")
    if not runs_here("aic", "cube"):
        return
    p = params
    emit("load_data", LoadDataOp(dst.value, src.value, to_index(p.start_index), to_index(p.repeat_times),
                                 to_index(p.src_stride), to_index(p.sid), to_index(p.dst_gap), bool(p.if_transpose)))


def mmad(dst, fm, filter, *args) -> None:  # noqa: A002 - official name
    """``Mmad(dst, fm, filter, MmadParams)``: L0C (+)= L0A x L0B on the cube."""
    if len(args) != 1:
        raise unsupported("mmad with a bias tensor", "the ascendc Mmad has no bias operand")
    p = args[0]
    if not isinstance(p, MmadParams):
        raise KernelError("mmad", "expects MmadParams", location=current().loc)
    if not runs_here("aic", "cube"):
        return
    if p.unit_flag or p.cmatrix_source:
        raise unsupported("mmad with unit_flag/cmatrix_source")
    emit("mmad", MmadOp(dst.value, fm.value, filter.value, to_index(p.m), to_index(p.n), to_index(p.k),
                        to_i1(p.cmatrix_init_val)))


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
    if p.nd_num != 1 or p.deq_scalar or p.is_channel_split or p.unit_flag:
        raise unsupported("fixpipe with nd_num/deq_scalar/channel split/unit_flag")
    quant = _QUANT.get(QuantModes(p.quant_pre))
    if quant is None:
        raise unsupported(f"fixpipe with quant_pre={QuantModes(p.quant_pre).name}")
    if not runs_here("aic", "cube"):
        return
    emit("fixpipe", FixpipeOp(dst.value, src.value, to_index(p.n_size), to_index(p.m_size), to_index(p.src_stride),
                              to_index(p.dst_stride), quant, bool(p.relu_en)))
