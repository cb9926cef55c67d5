"""``convert-ascbuf-to-ascendc`` for MIX kernels: one ``KERNEL_TYPE_MIX_AIC_1_2`` kernel with a section per core.

``lower_mix_kernel`` lowers the AIC part as a cube kernel and the AIV part as a vector kernel
(``core_parts``) and puts each into an ``ascendc.core_section`` of one kernel marked
``ascendc.kernel_type = "mix_aic_1_2"``; the translations here map the cross-core flags to ``CrossCoreSetFlag<2, PIPE_X>(id)`` / ``CrossCoreWaitFlag(id)`` (mode 2:
the AIC with the AIVs of its AI Core) and ``asctile.sub_block_idx`` to ``GetSubBlockIdx()``.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.ir import Block, Region

from pyasc.dialects import ascbuf, ascendc, asctile
from pyasc.dialects.ascendc import KERNEL_TYPE_ATTR, MIX_AIC_1_2, PipeKind
from pyasc.dialects.asctile.analysis import core_parts
from pyasc.dialects.asctile.mix import CoreKind, SubBlockIdxOp

from .emitter import OpEmitter
from .to_ascendc_cube import lower_cube_kernel
from .to_ascendc_kernel import KernelLowering

AIC_AIV_MODE = 2


def lower_mix_kernel(kernel: func.FuncOp, sync_style: str, translators) -> func.FuncOp:
    """One ``ascendc`` kernel with a section per core of the MIX ``kernel``."""
    with core_parts(kernel) as parts:
        lowered = {CoreKind.AIC: lower_cube_kernel(parts[CoreKind.AIC], sync_style, translators),
                   CoreKind.AIV: KernelLowering(parts[CoreKind.AIV], sync_style == "queue", translators).run()}
    n = len(kernel.body.block.args)
    new = func.FuncOp(kernel.sym_name.data, ([ascendc.GmAddrType()] * n, []))
    nb = new.body.block
    for a, b in zip(kernel.body.block.args, nb.args):
        b.name_hint = a.name_hint
    for core in (CoreKind.AIC, CoreKind.AIV):
        part = lowered[core].body.block
        body = Block()
        for old, arg in zip(part.args, nb.args):
            old.replace_all_uses_with(arg)
        for op in list(part.ops):
            op.detach()
            if not isinstance(op, func.ReturnOp):
                body.add_op(op)
        nb.add_op(ascendc.CoreSectionOp(core, Region(body)))
    nb.add_op(func.ReturnOp())
    new.attributes[ascendc.KERNEL_ATTR] = UnitAttr()
    new.attributes[ascendc.BLOCK_DIM_ATTR] = kernel.attributes[asctile.BLOCK_DIM_ATTR]
    new.attributes[KERNEL_TYPE_ATTR] = StringAttr(MIX_AIC_1_2)
    return new


def cross_set(low, op: ascbuf.CrossSetFlagOp, e: OpEmitter) -> None:
    e.add(ascendc.CrossCoreSetFlagOp(AIC_AIV_MODE, PipeKind(f"PIPE_{op.pipe.data.value}"), low.map[op.flag_id]))


def cross_wait(low, op: ascbuf.CrossWaitFlagOp, e: OpEmitter) -> None:
    e.add(ascendc.CrossCoreWaitFlagOp(low.map[op.flag_id]))


def sub_block_idx(low, op: SubBlockIdxOp, e: OpEmitter) -> None:
    low.map[op.result] = e.value(ascendc.GetSubBlockIdxOp())
    low.map[op.result].name_hint = "subBlockIdx"


def repeat_rows(low, op: ascbuf.VRepeatRowsOp, e: OpEmitter) -> None:
    """Row 0 from ``src``, then the rows done so far copied after themselves (1, 2, 4, ...) on V,
    with a ``PipeBarrier<PIPE_V>`` between the dependent copies."""
    rows, pitch = op.dst.type.get_shape()
    dst, src = low.tensor(op.dst, e), low.tensor(op.src, e)
    e.add(ascendc.DataCopyOp(dst, src, e.index(pitch)))
    done = 1
    while done < rows:
        n = min(done, rows - done)
        e.add(ascendc.PipeBarrierOp(PipeKind.PIPE_V))
        e.add(ascendc.DataCopyOp(e.value(ascendc.SubviewOp(dst, e.index(done * pitch))), dst, e.index(n * pitch)))
        done += n
