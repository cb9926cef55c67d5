"""The AIC -> AIV hand-off of a MIX Matmul kernel: the AIC computes all its blocks and then sets one
cross-core flag (``CrossCoreSetFlag<2, PIPE_FIX>``, which both AIVs of its AI Core receive); each AIV
waits for it once, at the top level of its body just before the first statement that reads a result."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType

from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc.mix import CrossCoreSetFlagOp, CrossCoreWaitFlagOp

FLAG_ID = 0
MODE = 2  # the AIC with the two AIVs of its AI Core


def need_result(t) -> None:
    """On the AIV: wait for the AIC's flag (once)."""
    if t.cache.get("handoff_wait"):
        return
    t.cache["handoff_wait"] = True
    fid = t.preamble(arith.ConstantOp.from_int_and_width(FLAG_ID, IndexType()))
    t.add_top(CrossCoreWaitFlagOp(fid))


def produced(t) -> None:
    """On the AIC of a MIX kernel: set the flag once the body is done."""
    if t.block_idx is None:  # an AIC-only kernel: no AIV to tell
        return
    t.cache["finish"] = _set_flag


def _set_flag(t) -> None:
    fid = t.preamble(arith.ConstantOp.from_int_and_width(FLAG_ID, IndexType()))
    t.add(CrossCoreSetFlagOp(MODE, A.PipeKind.PIPE_FIX, fid))


def finish_core(t) -> None:
    """Close the hand-off at the end of a core's trace."""
    hook = t.cache.get("finish")
    if hook is not None:
        hook(t)
