"""The ``ascendc`` dialect: synchronisation inside a core (``SetFlag``/``WaitFlag`` on a
``HardEvent`` and an event id, ``PipeBarrier`` on a pipe)."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from xdsl.utils.exceptions import VerifyException

from .base import HardEvent, HardEventAttr, PipeAttr, PipeKind, _const_int


class _FlagOp(IRDLOperation):
    """A flag op on a ``HardEvent`` (source and destination pipes) and an event id 0..7."""

    event = prop_def(HardEventAttr)
    event_id = operand_def(IndexType)
    assembly_format = "$event `,` $event_id attr-dict"

    def __init__(self, event: HardEvent, event_id):
        super().__init__(operands=[event_id], properties={"event": HardEventAttr(event)})

    def verify_(self) -> None:
        _check_event_id(self.name, self.event_id)


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """``SetFlag<HardEvent::SRC_DST>(id)``: issued on SRC, fires once earlier SRC work is done."""

    name = "ascendc.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """``WaitFlag<HardEvent::SRC_DST>(id)``: blocks DST until the matching flag is set, then clears it."""

    name = "ascendc.wait_flag"


def _check_event_id(op: str, value) -> None:
    eid = _const_int(value)
    if eid is not None and not 0 <= eid <= 7:
        raise VerifyException(f"{op} event id {eid} is out of range 0..7")


@irdl_op_definition
class PipeBarrierOp(IRDLOperation):
    """``PipeBarrier<PIPE_X>()``: later work on the pipe waits until earlier work has finished."""

    name = "ascendc.pipe_barrier"
    pipe = prop_def(PipeAttr)
    assembly_format = "$pipe attr-dict"

    def __init__(self, pipe: PipeKind):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    def verify_(self) -> None:
        if self.pipe.data == PipeKind.PIPE_S:
            raise VerifyException("PipeBarrier<PIPE_S> is not allowed: the scalar pipe is ordered by hardware")


OPS = [SetFlagOp, WaitFlagOp, PipeBarrierOp]
