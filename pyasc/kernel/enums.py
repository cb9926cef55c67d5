"""The official enums (``asc.TPosition``, ``asc.HardEvent``, ``asc.PipeID``, ...) with their official
values; ``.name`` matches the ``ascendc`` dialect's enum of the same name where one exists."""

from __future__ import annotations

from enum import IntEnum


class TPosition(IntEnum):
    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    MAX = 12


UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)
CUBE_POSITIONS = (TPosition.A1, TPosition.B1, TPosition.A2, TPosition.B2, TPosition.CO1)

HardEvent = IntEnum("HardEvent", [(n, i) for i, n in enumerate(
    "MTE2_MTE1 MTE1_MTE2 MTE1_M M_MTE1 MTE2_V V_MTE2 MTE3_V V_MTE3 M_V V_M V_V MTE3_MTE1 MTE1_MTE3 MTE1_V "
    "MTE2_M M_MTE2 V_MTE1 M_FIX FIX_M MTE3_MTE2 MTE2_MTE3 S_V V_S S_MTE2 MTE2_S S_MTE3 MTE3_S MTE2_FIX "
    "FIX_MTE2 FIX_S M_S FIX_MTE3 MTE1_FIX FIX_MTE1 FIX_FIX".split())])
HardEvent.__doc__ = "``AscendC::HardEvent``: ``SRC_DST``, the DST pipe waits for the SRC pipe."


class PipeID(IntEnum):
    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


class CubeFormat(IntEnum):
    ND = 0
    NZ = 1


class DataFormat(IntEnum):
    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4


class RoundMode(IntEnum):
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6


class CMPMODE(IntEnum):
    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class SelMode(IntEnum):
    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


class QuantModes(IntEnum):
    NoQuant = 0
    F322F16 = 1
    F322BF16 = 2
    DEQF16 = 3
    VDEQF16 = 4
    QF322B8_PRE = 5
    VQF322B8_PRE = 6
    REQ8 = 7
    VREQ8 = 8


class CO2Layout(IntEnum):
    NZ = 0
    ROW_MAJOR = 1
    COLUMN_MAJOR = 2


class MaskMode(IntEnum):
    NORMAL = 0
    COUNTER = 1


class ReduceOrder(IntEnum):
    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class LayoutMode(IntEnum):
    NONE = 0
    BSNGD = 1
    SBNGD = 2
    BNGS1S2 = 3
    NORMAL = 4


class CacheMode(IntEnum):
    CACHE_MODE_NORMAL = 0
    CACHE_MODE_DISABLE = 1


class CacheRwMode(IntEnum):
    READ = 1
    WRITE = 2
    RW = 3
