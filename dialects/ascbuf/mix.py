"""The ``ascbuf`` dialect: cross-core flags of a MIX kernel (AIC <-> AIVs of one AI Core).

``cross_set_flag`` is issued on ``pipe`` and fires once the earlier work of that pipe is done; it adds
one to the flag's counter on the other side of the AI Core (an AIC's set reaches both AIVs, the AIVs'
sets reach the AIC once both have set). ``cross_wait_flag`` blocks the scalar unit, and with it
everything issued later, until the counter is positive, then takes one. Flag ids are 0..10; a counter
holds at most 15 pending sets.

``vrepeat_rows`` copies the one row of ``src`` into every row of ``dst`` on the vector pipe.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.irdl import IRDLOperation, operand_def, prop_def, traits_def
from xdsl.utils.exceptions import VerifyException

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import BufferEffects, OnPipe

from .base import PipeAttr

CROSS_FLAG_IDS = 11
CROSS_FLAG_MAX_PENDING = 15


def check_cross_flag_id(op: str, value) -> None:
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr

    owner = getattr(value, "owner", None)
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        fid = owner.value.value.data
        if not 0 <= fid < CROSS_FLAG_IDS:
            raise VerifyException(f"{op}: cross-core flag id {fid} is out of range 0..{CROSS_FLAG_IDS - 1}")


@irdl_op_definition
class CrossSetFlagOp(IRDLOperation):
    """Issued on ``pipe``: once its earlier work is done, one more set of ``flag_id`` on the other side."""

    name = "ascbuf.cross_set_flag"
    pipe = prop_def(PipeAttr)
    flag_id = operand_def(IndexType)
    assembly_format = "$pipe `,` $flag_id attr-dict"

    def __init__(self, pipe: Pipe, flag_id):
        super().__init__(operands=[flag_id], properties={"pipe": PipeAttr(pipe)})

    def verify_(self) -> None:
        if self.pipe.data in (Pipe.S, Pipe.ALL):
            raise VerifyException(f"{self.name}: a cross-core set is issued on a work pipe, not {self.pipe.data.value}")
        check_cross_flag_id(self.name, self.flag_id)


@irdl_op_definition
class CrossWaitFlagOp(IRDLOperation):
    """Blocks the scalar unit (and all later work) until ``flag_id`` has a pending set, then takes it."""

    name = "ascbuf.cross_wait_flag"
    flag_id = operand_def(IndexType)
    assembly_format = "$flag_id attr-dict"

    def __init__(self, flag_id):
        super().__init__(operands=[flag_id])

    def verify_(self) -> None:
        check_cross_flag_id(self.name, self.flag_id)


@irdl_op_definition
class VRepeatRowsOp(IRDLOperation):
    """``dst[r, :] = src[0, :]`` for every row ``r`` (UB -> UB copies on V, doubling the rows done)."""

    name = "ascbuf.vrepeat_rows"
    dst = operand_def(MemRefType)
    src = operand_def(MemRefType)
    assembly_format = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)"
    traits = traits_def(OnPipe(Pipe.V), BufferEffects(reads=("src", "dst"), writes=("dst",)))

    def __init__(self, dst, src):
        super().__init__(operands=[dst, src])

    def verify_(self) -> None:
        d, s = self.dst.type, self.src.type
        if (len(s.get_shape()) != 2 or s.get_shape()[0] != 1 or len(d.get_shape()) != 2
                or s.get_shape()[1] != d.get_shape()[1] or s.element_type != d.element_type):
            raise VerifyException(f"{self.name}: repeats a 1 x P buffer into an R x P buffer of its element "
                                  f"type, got {s} -> {d}")


OPS = [CrossSetFlagOp, CrossWaitFlagOp, VRepeatRowsOp]
ATTRIBUTES: list = []
