"""The ``ascendc`` dialect's enums, attributes and types: ``HardEvent``, ``TPosition`` (with the pipes
of a queue at each position and the memory behind it), ``PIPE_*``, ``RoundMode``, ``GlobalTensor<T>``,
``LocalTensor<T>``, ``GM_ADDR``, ``TPipe``, ``TQue<pos, depth>`` and ``TBuf<pos>``."""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import base, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ..target import Pipe

# ----------------------------------------------------------------------------------------------
# enums


class HardEvent(StrEnum):
    """``AscendC::HardEvent``: ``SRC_DST``, the DST pipe waits for the SRC pipe."""

    MTE2_MTE1 = "MTE2_MTE1"
    MTE1_MTE2 = "MTE1_MTE2"
    MTE1_M = "MTE1_M"
    M_MTE1 = "M_MTE1"
    MTE2_V = "MTE2_V"
    V_MTE2 = "V_MTE2"
    MTE3_V = "MTE3_V"
    V_MTE3 = "V_MTE3"
    M_V = "M_V"
    V_M = "V_M"
    V_V = "V_V"
    MTE3_MTE1 = "MTE3_MTE1"
    MTE1_MTE3 = "MTE1_MTE3"
    MTE1_V = "MTE1_V"
    MTE2_M = "MTE2_M"
    M_MTE2 = "M_MTE2"
    V_MTE1 = "V_MTE1"
    M_FIX = "M_FIX"
    FIX_M = "FIX_M"
    MTE3_MTE2 = "MTE3_MTE2"
    MTE2_MTE3 = "MTE2_MTE3"
    S_V = "S_V"
    V_S = "V_S"
    S_MTE2 = "S_MTE2"
    MTE2_S = "MTE2_S"
    S_MTE3 = "S_MTE3"
    MTE3_S = "MTE3_S"
    MTE2_FIX = "MTE2_FIX"
    FIX_MTE2 = "FIX_MTE2"
    FIX_S = "FIX_S"
    M_S = "M_S"
    FIX_MTE3 = "FIX_MTE3"
    MTE1_FIX = "MTE1_FIX"
    FIX_MTE1 = "FIX_MTE1"
    FIX_FIX = "FIX_FIX"

    @property
    def src(self) -> Pipe:
        return Pipe(self.value.split("_")[0])

    @property
    def dst(self) -> Pipe:
        return Pipe(self.value.split("_")[1])

    @staticmethod
    def of(src: Pipe, dst: Pipe) -> HardEvent:
        return HardEvent(f"{src.value}_{dst.value}")


class TPosition(StrEnum):
    """``AscendC::TPosition``: the logical place of a local tensor (VECIN/VECOUT/VECCALC = UB)."""

    GM = "GM"
    VECIN = "VECIN"
    VECOUT = "VECOUT"
    VECCALC = "VECCALC"
    A1 = "A1"
    A2 = "A2"
    B1 = "B1"
    B2 = "B2"
    CO1 = "CO1"
    CO2 = "CO2"
    C1 = "C1"
    C2 = "C2"


# (producer pipe, consumer pipe) of a queue at each position: EnQue/AllocTensor run on the producer,
# DeQue/FreeTensor on the consumer
QUEUE_PIPES: dict[TPosition, tuple[Pipe, Pipe]] = {
    TPosition.VECIN: (Pipe.MTE2, Pipe.V),
    TPosition.VECOUT: (Pipe.V, Pipe.MTE3),
    TPosition.A1: (Pipe.MTE2, Pipe.MTE1),
    TPosition.B1: (Pipe.MTE2, Pipe.MTE1),
    TPosition.A2: (Pipe.MTE1, Pipe.M),
    TPosition.B2: (Pipe.MTE1, Pipe.M),
    TPosition.CO1: (Pipe.M, Pipe.FIX),
    TPosition.CO2: (Pipe.V, Pipe.MTE3),
}

# the TQueBind pairs of two positions (the TQueBind page lists more; these are the ones the simulator models)
QUEUE_BINDS: tuple[tuple[TPosition, TPosition], ...] = ((TPosition.VECIN, TPosition.VECOUT),)

# the physical memory behind each local position on arch 2201 (VECIN/VECOUT/VECCALC/CO2: UB)
POSITION_MEMORY: dict[TPosition, str] = {
    TPosition.A1: "L1", TPosition.B1: "L1", TPosition.A2: "L0A", TPosition.B2: "L0B", TPosition.CO1: "L0C",
    TPosition.C1: "L1", TPosition.C2: "BT",
}


class PipeKind(StrEnum):
    """``PIPE_*`` for ``PipeBarrier``."""

    PIPE_S = "PIPE_S"
    PIPE_V = "PIPE_V"
    PIPE_M = "PIPE_M"
    PIPE_MTE1 = "PIPE_MTE1"
    PIPE_MTE2 = "PIPE_MTE2"
    PIPE_MTE3 = "PIPE_MTE3"
    PIPE_FIX = "PIPE_FIX"
    PIPE_ALL = "PIPE_ALL"

    @property
    def pipe(self) -> Pipe:
        return Pipe(self.value.removeprefix("PIPE_"))


class RoundMode(StrEnum):
    """``AscendC::RoundMode`` for ``Cast``."""

    CAST_NONE = "CAST_NONE"
    CAST_RINT = "CAST_RINT"
    CAST_FLOOR = "CAST_FLOOR"
    CAST_CEIL = "CAST_CEIL"
    CAST_ROUND = "CAST_ROUND"
    CAST_TRUNC = "CAST_TRUNC"
    CAST_ODD = "CAST_ODD"


@irdl_attr_definition
class HardEventAttr(EnumAttribute[HardEvent], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.event"


@irdl_attr_definition
class TPositionAttr(EnumAttribute[TPosition], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.position"


@irdl_attr_definition
class PipeAttr(EnumAttribute[PipeKind], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.pipe"


@irdl_attr_definition
class RoundModeAttr(EnumAttribute[RoundMode], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.round_mode"


# ----------------------------------------------------------------------------------------------
# types


class _ElementTypeParam(ParametrizedAttribute, TypeAttribute):
    """A type with a single element-type parameter, printed ``<f16>``."""

    element_type: Attribute

    def __init__(self, element_type: Attribute):
        super().__init__(element_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element_type)


@irdl_attr_definition
class GlobalTensorType(_ElementTypeParam):
    """``AscendC::GlobalTensor<T>``: a typed view of global memory."""

    name = "ascendc.global_tensor"


@irdl_attr_definition
class LocalTensorType(_ElementTypeParam):
    """``AscendC::LocalTensor<T>``: a typed view of on-chip memory."""

    name = "ascendc.local_tensor"


@irdl_attr_definition
class GmAddrType(ParametrizedAttribute, TypeAttribute):
    """``GM_ADDR`` (``__gm__ uint8_t*``): a kernel argument."""

    name = "ascendc.gm_addr"


@irdl_attr_definition
class TPipeType(ParametrizedAttribute, TypeAttribute):
    """``AscendC::TPipe``: owns the UB space and event ids of a kernel."""

    name = "ascendc.tpipe"


@irdl_attr_definition
class TQueType(ParametrizedAttribute, TypeAttribute):
    """``AscendC::TQue<pos, depth>``: ``!ascendc.tque<VECIN, 1>``; or ``AscendC::TQueBind<src, dst, depth>``,
    a queue whose buffers the producer of ``src`` fills and the consumer of ``dst`` drains:
    ``!ascendc.tque<VECIN -> VECOUT, 1>`` (a tile moved in and out without vector work). ``depth`` is how
    many EnQue calls may follow each other without a DeQue, not the buffer count (``InitBuffer num``, 2 for
    double buffering); the TQue page recommends 1."""

    name = "ascendc.tque"

    position: TPositionAttr
    depth: IntAttr
    dst: TPositionAttr

    def __init__(self, position: TPosition, depth: int, dst: TPosition | None = None):
        super().__init__(TPositionAttr(position), IntAttr(depth), TPositionAttr(dst or position))

    @property
    def bound(self) -> bool:
        """Whether this is a ``TQueBind`` of two positions."""
        return self.dst.data != self.position.data

    def pipes(self) -> tuple[Pipe, Pipe] | tuple[None, None]:
        """(producer, consumer): the pipes of EnQue/AllocTensor and of DeQue/FreeTensor."""
        src, dst = QUEUE_PIPES.get(self.position.data), QUEUE_PIPES.get(self.dst.data)
        return (None, None) if src is None or dst is None else (src[0], dst[1])

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            pos = parser.parse_str_enum(TPosition)
            dst = parser.parse_str_enum(TPosition) if parser.parse_optional_punctuation("->") else pos
            parser.parse_punctuation(",")
            depth = parser.parse_integer()
        return (TPositionAttr(pos), IntAttr(depth), TPositionAttr(dst))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            bind = f" -> {self.dst.data.value}" if self.bound else ""
            printer.print_string(f"{self.position.data.value}{bind}, {self.depth.data}")

    def verify(self) -> None:
        if not 1 <= self.depth.data <= 8:
            raise VerifyException(f"TQue depth must be in 1..8 (QUE_MAX_EVENT), got {self.depth.data}")
        if self.position.data not in QUEUE_PIPES:
            raise VerifyException(f"TQue position {self.position.data.value} is not a queue position")
        if self.bound and (self.position.data, self.dst.data) not in QUEUE_BINDS:
            raise VerifyException(f"TQueBind<{self.position.data.value}, {self.dst.data.value}> is not supported "
                                  f"(supported: {', '.join(f'<{a.value}, {b.value}>' for a, b in QUEUE_BINDS)})")


@irdl_attr_definition
class TBufType(ParametrizedAttribute, TypeAttribute):
    """``AscendC::TBuf<pos>``: scratch space without queue semantics: ``!ascendc.tbuf<VECCALC>``."""

    name = "ascendc.tbuf"

    position: TPositionAttr

    def __init__(self, position: TPosition = TPosition.VECCALC):
        super().__init__(TPositionAttr(position))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return (TPositionAttr(parser.parse_str_enum(TPosition)),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.position.data.value)


TensorLike = base(GlobalTensorType) | base(LocalTensorType)


ATTRIBUTES = [HardEventAttr, TPositionAttr, PipeAttr, RoundModeAttr, GlobalTensorType, LocalTensorType, GmAddrType,
              TPipeType, TQueType, TBufType]
