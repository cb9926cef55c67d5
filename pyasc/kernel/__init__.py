"""A kernel-level Python DSL compatible with the official pyasc (``import pyasc.kernel as asc``).

``@asc.jit`` kernels over ``asc.GlobalAddress`` arguments are traced into the ``ascendc`` dialect
(``scf`` for control flow on run-time values) and launched as ``kernel[block_dim, stream](args...)``
on the simulator (``asc.runtime.config.Backend.Model``, the default), on the CPU through the emitted
Ascend C (``Backend.CPU``), or written as a CANN project (``Backend.NPU``). Submodules follow the
official layout: ``asc.runtime.config``, ``asc.lib.runtime``, ``asc.lib.host``, ``asc.adv``.
"""

from __future__ import annotations

from . import adv, lib, runtime  # noqa: F401
from .basic import (  # noqa: F401
    abs, add, adds, ascend_is_aic, ascend_is_aiv, cast, compare, compare_scalar, create_vec_index, cross_core_set_flag,
    cross_core_wait_flag, data_copy, data_copy_pad, div, duplicate, exp, gather, gather_mask, get_block_idx, get_block_num,
    get_sub_block_idx, get_sub_block_num, leaky_relu, ln, max, maxs, min, mins, mul, muls, pipe_barrier, reciprocal,
    reduce_max, reduce_min, reduce_sum, relu, rsqrt, scalar_cast, select, set_flag, sqrt, sub, sync_all,
    trans_data_to_5hd,
    wait_flag,
)
from .cube import fixpipe, load_data, mmad, set_mm_column_major, set_mm_row_major  # noqa: F401
from .dtypes import (  # noqa: F401
    DataType, bfloat16, bool_, double, float16, float32, float64, float_, half, int8, int16, int32, int64, int_,
    uint8, uint16, uint32, uint64,
)
from .enums import (  # noqa: F401
    CMPMODE, CO2Layout, CacheMode, CacheRwMode, CubeFormat, DataFormat, HardEvent, LayoutMode, MaskMode, PipeID,
    QuantModes, ReduceOrder, RoundMode, SelMode, TPosition,
)
from .errors import KernelError, Unsupported  # noqa: F401
from .fwk import TBuf, TPipe, TQue, TQueBind  # noqa: F401
from .interp import RangeSpec
from .jit import ConstExpr, JITFunction, jit  # noqa: F401
from .launch import KernelHazardError  # noqa: F401
from .params import (  # noqa: F401
    BinaryRepeatParams, DataCopyExtParams, DataCopyPadExtParams, DataCopyPadParams, DataCopyParams, FixpipeConfig,
    FixpipeParamsV220, GatherMaskParams, LoadData2DParams, LoadData3DParamsV2, MmadParams, Nd2NzParams, ShapeInfo, TransDataTo5HDParams,
    UnaryRepeatParams,
)
from .unsupported import API as _UNSUPPORTED
from .values import GlobalAddress, GlobalTensor, LocalTensor  # noqa: F401

globals().update(_UNSUPPORTED)

DEFAULT_C0_SIZE = "DEFAULT_C0_SIZE"
ONE_BLK_SIZE = "ONE_BLK_SIZE"
TOTAL_L0C_SIZE = "TOTAL_L0C_SIZE"
TOTAL_L1_SIZE = "TOTAL_L1_SIZE"
_PROPERTIES = {DEFAULT_C0_SIZE: 32, ONE_BLK_SIZE: 32, TOTAL_L0C_SIZE: 128 * 1024, TOTAL_L1_SIZE: 512 * 1024}


def property(name):  # noqa: A001 - official name
    """``asc.property(asc.DEFAULT_C0_SIZE)``: a constant of the platform (32 B blocks, memory sizes)."""
    return _PROPERTIES[name]


def range(*args):  # noqa: A001 - official name
    """A loop that is always an ``scf.for`` (never unrolled)."""
    return RangeSpec(args, "dynamic")


def static_range(*args):
    """A loop that is always unrolled (its bounds must be compile-time values)."""
    return RangeSpec(args, "static")


def ceildiv(a, b):
    """``ceil(a / b)`` of integers (Python numbers or run-time scalars)."""
    from .trace import Scalar

    if isinstance(a, Scalar):
        return a.ceildiv(b)
    if isinstance(b, Scalar):
        from .trace import as_scalar

        return as_scalar(a, "int").ceildiv(b)
    return -(-a // b)


def set_sys_workspace(workspace) -> None:
    """``SetSysWorkspace(workspace)``: the GM scratch the 3-argument ``register_matmul`` uses."""
    from .trace import current

    current().cache["sys_workspace"] = workspace
