"""The MIX pieces of bufferization (``bufferize`` for the AIV part, ``bufferize-cube`` for the AIC part).

The hand-off ops become cross-core flags (``lower_handoffs``): channel ``ready`` is flag
``READY_FLAG`` set on FIX after the AIC's Fixpipe, channel ``free`` is flag ``FREE_FLAG`` set on MTE2
after the AIV's read of the workspace; every wait blocks the scalar unit. ``asctile.repeat_rows``
becomes ``ascbuf.vrepeat_rows`` (``bufferize_repeat_rows``, a buffer form of the vector bufferizer).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.asctile.mix import CrossSignalOp, CrossWaitOp, HandoffChannel
from pyasc.dialects.target import Pipe

from .emitter import OpEmitter

READY_FLAG = 0
FREE_FLAG = 1
FLAG_OF = {HandoffChannel.READY: READY_FLAG, HandoffChannel.FREE: FREE_FLAG}
SIGNAL_PIPE = {HandoffChannel.READY: Pipe.FIX, HandoffChannel.FREE: Pipe.MTE2}


def lower_handoffs(part: func.FuncOp) -> None:
    """``asctile.cross_signal``/``cross_wait`` -> ``ascbuf.cross_set_flag``/``cross_wait_flag``."""
    for op in list(part.body.walk()):
        if isinstance(op, CrossSignalOp | CrossWaitOp):
            ch = op.channel.data
            e = OpEmitter(InsertPoint.before(op), op)
            fid = e.index(FLAG_OF[ch])
            e.add(ascbuf.CrossSetFlagOp(SIGNAL_PIPE[ch], fid) if isinstance(op, CrossSignalOp)
                  else ascbuf.CrossWaitFlagOp(fid))
            Rewriter.erase_op(op)


def bufferize_repeat_rows(bz, op: asctile.RepeatRowsOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.VRepeatRowsOp(dst, bz.operand(e, op.input)))
