"""The MIX pieces of bufferization (``bufferize`` for the AIV part, ``bufferize-cube`` for the AIC part).

The hand-off ops become cross-core flags (``lower_handoffs``, the table ``CHANNEL_FLAGS``): channel ``ready`` is
set on FIX after the AIC's Fixpipe, ``free`` on MTE2 after the AIV's read of the workspace, ``staged`` on MTE3
after the AIV's write of the workspace and ``credit`` on MTE2 with the AIC's loads; every wait blocks the scalar
unit. ``asctile.repeat_rows``
becomes ``ascbuf.vrepeat_rows`` (``bufferize_repeat_rows``, a buffer form of the vector bufferizer).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.asctile.mix import CrossSignalOp, CrossWaitOp, HandoffChannel
from pyasc.dialects.target import Pipe

from .emitter import OpEmitter

CHANNEL_FLAGS = {  # channel -> (cross-core flag id, the pipe its signal is set on)
    HandoffChannel.READY: (0, Pipe.FIX),
    HandoffChannel.FREE: (1, Pipe.MTE2),
    HandoffChannel.STAGED: (2, Pipe.MTE3),
    HandoffChannel.CREDIT: (3, Pipe.MTE2),
}


def lower_handoffs(part: func.FuncOp) -> None:
    """``asctile.cross_signal``/``cross_wait`` -> ``ascbuf.cross_set_flag``/``cross_wait_flag``."""
    for op in list(part.body.walk()):
        if isinstance(op, CrossSignalOp | CrossWaitOp):
            ch = op.channel.data
            e = OpEmitter(InsertPoint.before(op), op)
            flag, pipe = CHANNEL_FLAGS[ch]
            fid = e.index(flag)
            e.add(ascbuf.CrossSetFlagOp(pipe, fid) if isinstance(op, CrossSignalOp)
                  else ascbuf.CrossWaitFlagOp(fid))
            Rewriter.erase_op(op)


def bufferize_repeat_rows(bz, op: asctile.RepeatRowsOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.VRepeatRowsOp(dst, bz.operand(e, op.input)))
