"""The two parts of a MIX kernel as stand-alone kernels, so the per-kernel passes run on each unchanged.

A MIX kernel (``asctile.kernel = "mix"``) holds an ``asctile.core_section aic`` and an
``asctile.core_section aiv`` over the same arguments. ``core_parts(kernel)`` moves each section's
body into a kernel function of its own (the same arguments and attributes; ``asctile.kernel`` is
``"cube"`` for the AIC part and ``"vector"`` for the AIV part), yields them, and moves the
(transformed) bodies back. ``bufferize``, ``bufferize-cube``, ``plan-memory``, ``insert-sync`` and
the lowering to ``ascendc`` use it; each core has its own on-chip memories, so planning the parts
apart is exact.

The hand-off ops become cross-core flags here (``lower_handoffs``): channel ``ready`` is flag
``READY_FLAG`` set on FIX after the AIC's Fixpipe, channel ``free`` is flag ``FREE_FLAG`` set on MTE2
after the AIV's read of the workspace; every wait blocks the scalar unit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.asctile.mix import MIX_KIND, CoreKind, CoreSectionOp, CrossSignalOp, CrossWaitOp, HandoffChannel
from pyasc.dialects.target import Pipe

from .emitter import OpEmitter

READY_FLAG = 0
FREE_FLAG = 1
FLAG_OF = {HandoffChannel.READY: READY_FLAG, HandoffChannel.FREE: FREE_FLAG}
SIGNAL_PIPE = {HandoffChannel.READY: Pipe.FIX, HandoffChannel.FREE: Pipe.MTE2}
PART_KIND = {CoreKind.AIC: "cube", CoreKind.AIV: "vector"}


def is_mix_kernel(f) -> bool:
    attr = f.attributes.get(asctile.KERNEL_ATTR)
    return isinstance(attr, StringAttr) and attr.data == MIX_KIND


def sections(kernel: func.FuncOp) -> list[CoreSectionOp]:
    return [op for op in kernel.body.block.ops if isinstance(op, CoreSectionOp)]


def _inside(op: Operation, ancestor: Operation) -> bool:
    while op is not None:
        if op is ancestor:
            return True
        op = op.parent_op()
    return False


def _outline(kernel: func.FuncOp, section: CoreSectionOp) -> func.FuncOp:
    args = kernel.body.block.args
    core = section.core.data
    part = func.FuncOp(f"{kernel.sym_name.data}_{core.value}", ([a.type for a in args], []))
    for name, value in kernel.attributes.items():
        if name != "sym_name" and name != "function_type":
            part.attributes[name] = value
    part.attributes[asctile.KERNEL_ATTR] = StringAttr(PART_KIND[core])
    pb = part.body.block
    for a, n in zip(args, pb.args):
        n.name_hint = a.name_hint
        a.replace_uses_with_if(n, lambda use, s=section: _inside(use.operation, s))
    for op in list(section.body.block.ops):
        op.detach()
        pb.add_op(op)
    pb.add_op(func.ReturnOp())
    return part


def _inline(part: func.FuncOp, section: CoreSectionOp, kernel: func.FuncOp) -> None:
    pb = part.body.block
    for n, a in zip(pb.args, kernel.body.block.args):
        n.replace_all_uses_with(a)
    for op in list(pb.ops):
        op.detach()
        if not isinstance(op, func.ReturnOp):
            section.body.block.add_op(op)
        else:
            op.erase()


@contextmanager
def core_parts(kernel: func.FuncOp) -> Iterator[dict[CoreKind, func.FuncOp]]:
    """Each core section of a MIX ``kernel`` as a kernel function of its own, moved back on exit."""
    secs = sections(kernel)
    parts = {s.core.data: _outline(kernel, s) for s in secs}
    try:
        yield parts
    finally:
        for s in secs:
            _inline(parts[s.core.data], s, kernel)


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


def _bufferize_repeat_rows(bufferizer, op: asctile.RepeatRowsOp, dst, e: OpEmitter) -> None:
    e.add(ascbuf.VRepeatRowsOp(dst, bufferizer._operand(e, op.input)))


def _register() -> None:
    from .bufferize import BUFFERIZERS

    BUFFERIZERS[asctile.RepeatRowsOp] = _bufferize_repeat_rows


_register()
