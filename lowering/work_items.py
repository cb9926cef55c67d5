"""The frame of a vector tile kernel whose cores share out work items: the ``asctile`` function (GM buffers in,
then out; ``block_dim``, ``buffers``) and its loop over this core's items ``[bid * items / bnum, (bid + 1) * items
/ bnum)``, as ``tile-im2col`` and ``tile-pool`` build it."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from pyasc.dialects import asctile

from .emitter import OpEmitter, copy_loc


@dataclass
class WorkLoop:
    """A kernel being built: ``kernel``, its GM ``args``, ``pre`` (emits before the loop), ``body`` (emits into the
    loop) and ``item`` (the index of this iteration's work item)."""

    kernel: func.FuncOp
    args: list[SSAValue]
    pre: OpEmitter
    body: OpEmitter
    item: SSAValue


def work_loop(name: str, memrefs: list[MemRefType], hints: list[str], items: int, block_dim: int, buffers: int,
              anchor: Operation) -> WorkLoop:
    """An ``asctile`` kernel ``name`` over ``memrefs`` (named ``hints``) whose ``block_dim`` cores take ``items``
    work items in order (source locations from ``anchor``); its loop body ends in a yield once built."""
    new = func.FuncOp(name, (memrefs, []))
    new.attributes[asctile.KERNEL_ATTR] = UnitAttr()
    new.attributes[asctile.BLOCK_DIM_ATTR] = IntegerAttr(block_dim, 64)
    new.attributes[asctile.BUFFERS_ATTR] = IntegerAttr(buffers, 64)
    nb = new.body.block
    for a, hint in zip(nb.args, hints):
        a.name_hint = hint
    e = OpEmitter(InsertPoint.at_end(nb), anchor)
    bid = e.value(asctile.BlockIdxOp())
    bnum = e.value(asctile.BlockNumOp())  # GetBlockNum(): the launch's block_dim
    lo = e.divui(e.muli(bid, items), bnum)
    hi = e.divui(e.muli(e.addi(bid, 1), items), bnum)
    body = Block(arg_types=[IndexType()])
    body.args[0].name_hint = "i"
    body.add_op(scf.YieldOp())
    loop = copy_loc(anchor, scf.ForOp(e.index(0), e.subi(hi, lo), e.index(1), [], body))
    nb.add_op(loop)
    nb.add_op(func.ReturnOp())
    be = OpEmitter(InsertPoint.before(body.last_op), anchor)
    return WorkLoop(new, list(nb.args), OpEmitter(InsertPoint.before(loop), anchor), be, be.addi(lo, body.args[0]))
