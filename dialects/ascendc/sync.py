"""The ``ascendc`` dialect: synchronisation inside a core (``SetFlag``/``WaitFlag`` on a
``HardEvent`` and an event id, ``PipeBarrier`` on a pipe, and a TPipe's event ids: ``AllocEventID`` /
``ReleaseEventID``)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import operand_def, prop_def, result_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import OnPipe
from .attributes import HardEvent, HardEventAttr, PipeAttr, PipeKind, TPipeType
from .base import AscendCOperation, const_int


class FlagOp(AscendCOperation):
    """A flag op on a ``HardEvent`` (source and destination pipes) and an event id 0..7."""

    event = prop_def(HardEventAttr)
    event_id = operand_def(IndexType)
    assembly_format = "$event `,` $event_id attr-dict"
    CALL: ClassVar[str] = "AscendC::{api}<AscendC::HardEvent::{event}>({event_id});"
    BATCHABLE: ClassVar[bool] = True

    def __init__(self, event: HardEvent, event_id):
        super().__init__(operands=[event_id], properties={"event": HardEventAttr(event)})

    def verify_(self) -> None:
        _check_event_id(self.name, self.event_id)


def _source_pipe(op: FlagOp) -> Pipe:
    return op.event.data.src


def _destination_pipe(op: FlagOp) -> Pipe:
    return op.event.data.dst


@irdl_op_definition
class SetFlagOp(FlagOp):
    """``SetFlag<HardEvent::SRC_DST>(id)``: issued on SRC, fires once earlier SRC work is done."""

    name = "ascendc.set_flag"
    API: ClassVar[str] = "SetFlag"
    traits = traits_def(OnPipe(_source_pipe))


@irdl_op_definition
class WaitFlagOp(FlagOp):
    """``WaitFlag<HardEvent::SRC_DST>(id)``: blocks DST until the matching flag is set, then clears it."""

    name = "ascendc.wait_flag"
    API: ClassVar[str] = "WaitFlag"
    traits = traits_def(OnPipe(_destination_pipe))


def _check_event_id(op: str, value) -> None:
    eid = const_int(value)
    if eid is not None and not 0 <= eid <= 7:
        raise VerifyException(f"{op} event id {eid} is out of range 0..7")


def _barrier_pipe(op: PipeBarrierOp) -> Pipe:
    return op.pipe.data.pipe


@irdl_op_definition
class PipeBarrierOp(AscendCOperation):
    """``PipeBarrier<PIPE_X>()``: later work on the pipe waits until earlier work has finished
    (``PIPE_ALL``: on the scalar unit, for every pipe)."""

    name = "ascendc.pipe_barrier"
    API: ClassVar[str] = "PipeBarrier"
    CALL: ClassVar[str] = "AscendC::PipeBarrier<{pipe}>();"
    BATCHABLE: ClassVar[bool] = True
    pipe = prop_def(PipeAttr)
    assembly_format = "$pipe attr-dict"
    traits = traits_def(OnPipe(_barrier_pipe))

    def __init__(self, pipe: PipeKind):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    def verify_(self) -> None:
        if self.pipe.data == PipeKind.PIPE_S:
            raise VerifyException("PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware")


@irdl_op_definition
class InitSocStateOp(AscendCOperation):
    """``InitSocState()``: resets the core's state (atomic mode, masks, Load3D settings); a kernel
    without a TPipe calls it at entry (a TPipe's constructor does it otherwise)."""

    name = "ascendc.init_soc_state"
    API: ClassVar[str] = "InitSocState"
    CALL: ClassVar[str] = "AscendC::InitSocState();"
    BATCHABLE: ClassVar[bool] = True
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class AllocEventIdOp(AscendCOperation):
    """``pipe.AllocEventID<HardEvent::SRC_DST>()``: takes the lowest free id of the event's pool (8 ids per
    HardEvent on arch 2201, shared with the TQue buffers' EnQue/FreeTensor) until ``ReleaseEventID``
    gives it back. Scalar bookkeeping like the TPipe itself: no pipe, no buffer (doc: TPipe/AllocEventID.md, rule ``tpipe-event-pool-8``)."""

    name = "ascendc.alloc_event_id"
    API: ClassVar[str] = "AllocEventID"
    CALL: ClassVar[str] = "AscendC::TEventID {res} = {pipe}.{api}<AscendC::HardEvent::{event}>();"
    BATCHABLE: ClassVar[bool] = True
    pipe = operand_def(TPipeType)
    event = prop_def(HardEventAttr)
    result = result_def(IndexType)
    assembly_format = "$pipe `,` $event attr-dict `:` type($result)"

    def __init__(self, pipe, event: HardEvent):
        super().__init__(operands=[pipe], result_types=[IndexType()], properties={"event": HardEventAttr(event)})


@irdl_op_definition
class ReleaseEventIdOp(AscendCOperation):
    """``pipe.ReleaseEventID<HardEvent::SRC_DST>(id)``: gives back an id taken by ``AllocEventID`` of the
    same event (doc: TPipe/ReleaseEventID.md, rule ``release-event-id-paired``)."""

    name = "ascendc.release_event_id"
    API: ClassVar[str] = "ReleaseEventID"
    CALL: ClassVar[str] = "{pipe}.{api}<AscendC::HardEvent::{event}>({event_id});"
    BATCHABLE: ClassVar[bool] = True
    pipe = operand_def(TPipeType)
    event = prop_def(HardEventAttr)
    event_id = operand_def(IndexType)
    assembly_format = "$pipe `,` $event `,` $event_id attr-dict"

    def __init__(self, pipe, event: HardEvent, event_id):
        super().__init__(operands=[pipe, event_id], properties={"event": HardEventAttr(event)})


OPS = [SetFlagOp, WaitFlagOp, PipeBarrierOp, InitSocStateOp, AllocEventIdOp, ReleaseEventIdOp]
