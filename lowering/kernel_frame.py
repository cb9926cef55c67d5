"""The frame of a kernel without a TPipe (the static-tensor programming guide): ``InitSocState()`` at
entry and ``PipeBarrier<PIPE_ALL>()`` before it ends; a kernel that calls an API needing the TPipe's
event ids (``NEEDS_TPIPE``: ReduceMax/Min/Sum, CreateVecIndex, Select) creates a TPipe instead, whose
constructor and destructor do both."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascendc


def _core_blocks(kernel: func.FuncOp) -> list[Block]:
    sections = [o for o in kernel.body.block.ops if isinstance(o, ascendc.CoreSectionOp)]
    return [s.body.block for s in sections] if sections else [kernel.body.block]


def add_kernel_frame(kernel: func.FuncOp) -> None:
    """Give ``kernel`` (an ``ascendc`` kernel) the entry and exit its programming style requires."""
    ops = list(kernel.walk())
    if any(isinstance(o, ascendc.TPipeOp) for o in ops):
        return
    if any(getattr(o, "NEEDS_TPIPE", False) for o in ops):
        for block in _core_blocks(kernel):
            pipe = ascendc.TPipeOp()
            pipe.result.name_hint = "pipe"
            Rewriter.insert_op(pipe, InsertPoint.at_start(block))
        return
    for block in _core_blocks(kernel):
        Rewriter.insert_op(ascendc.InitSocStateOp(), InsertPoint.at_start(block))
        last = block.last_op
        end = ascendc.PipeBarrierOp(ascendc.PipeKind.PIPE_ALL)
        if isinstance(last, func.ReturnOp):
            Rewriter.insert_op(end, InsertPoint.before(last))
        else:
            Rewriter.insert_op(end, InsertPoint.at_end(block))
