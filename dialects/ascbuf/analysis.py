"""Queries on ``ascbuf`` kernels that several passes share: where a buffer value lives and what an op
reads and writes. They read the ops' traits (``OnPipe``, ``BufferEffects``), never the op class.

* ``buffer_of(value)``: the ``ascbuf.alloc`` a buffer value comes from (itself, a slot of it, or rows of either);
* ``accesses(op)``: the on-chip buffers an op on a pipe reads and writes (GM operands are left out);
* ``scalar_reads(op)``: the buffers the scalar unit reads for ``op`` before issuing it.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from ..traits import BufferEffects, buffer_reads, buffer_writes, pipe_of, scalar_reads
from .base import AllocOp, RowsOp, SlotOp

__all__ = ["accesses", "buffer_of", "pipe_of", "scalar_reads"]


def buffer_of(value: SSAValue) -> AllocOp | None:
    """The alloc a buffer value (an alloc result, a slot of one or rows of either) comes from, None for GM."""
    owner = value.owner
    if isinstance(owner, RowsOp):
        owner = owner.buffer.owner
    if isinstance(owner, SlotOp):
        owner = owner.buffer.owner
    return owner if isinstance(owner, AllocOp) else None


def accesses(op: Operation) -> tuple[list[SSAValue], list[SSAValue]] | None:
    """(reads, writes) of the on-chip buffers of an op that runs on a pipe and declares its buffer
    effects; None for any other op (flags, allocs, scalar code, loops)."""
    if pipe_of(op) is None or op.get_trait(BufferEffects) is None:
        return None
    return ([v for v in buffer_reads(op) if buffer_of(v) is not None],
            [v for v in buffer_writes(op) if buffer_of(v) is not None])
