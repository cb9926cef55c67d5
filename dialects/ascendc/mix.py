"""The ``ascendc`` dialect: MIX kernels (one AIC and two AIVs per AI Core, ``KERNEL_TYPE_MIX_AIC_1_2``).

A MIX kernel carries ``ascendc.kernel_type = "mix_aic_1_2"``; its body holds one ``core_section`` per
core type (``if ASCEND_IS_AIC { ... }`` / ``if ASCEND_IS_AIV { ... }``). On an AIV ``GetBlockIdx()``
is ``2 * AI Core + GetSubBlockIdx()``. ``CrossCoreSetFlag<mode, pipe>(id)`` / ``CrossCoreWaitFlag(id)``
order the cores: per flag id a counter on each core; mode 2 pairs the AIC with its two AIVs (an AIC's
set adds one on both AIVs, the AIC's counter goes up once both AIVs have set); a wait blocks while the
counter is 0, then takes one. Ids are 0..10 and a counter holds at most 15 sets.

A vector kernel whose cores meet at ``SyncAll`` (the hard sync, ``isAIVOnly = true``) carries
``ascendc.kernel_type = "mix_aiv_1_0"`` (``KERNEL_TYPE_MIX_AIV_1_0``, ``__mix__(0, 1)``: SyncAll.md).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    irdl_attr_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from pyasc.dialects.asctile.mix import CoreKind, CoreSectionBase, enclosing_core

from ..lazy_format import irdl_op_definition
from ..target import Pipe
from ..traits import OnPipe
from .attributes import PipeAttr, PipeKind
from .base import AscendCOperation, CallPrinter, const_int
from .contract import violation

KERNEL_TYPE_ATTR = "ascendc.kernel_type"  # KERNEL_TASK_TYPE_DEFAULT of the emitted kernel
MIX_AIC_1_2 = "mix_aic_1_2"  # one AIC and its two AIVs per block
AIC_ONLY = "aic_only"  # cube kernels: only the AICs are started
AIV_ONLY = "aiv_only"  # vector kernels: only the AIVs are started
MIX_AIV_1_0 = "mix_aiv_1_0"  # vector kernels that synchronise their cores (``__mix__(0, 1)``, SyncAll.md)
SECTION_MACRO = {CoreKind.AIC: "ASCEND_IS_AIC", CoreKind.AIV: "ASCEND_IS_AIV"}
CROSS_CORE_MODES = (0, 1, 2)
CROSS_FLAG_IDS = 11


@irdl_attr_definition
class CoreKindAttr(EnumAttribute[CoreKind], SpacedOpaqueSyntaxAttribute):
    name = "ascendc.core"


def _check_flag_id(op: str, value) -> None:
    fid = const_int(value)
    if fid is not None and not 0 <= fid < CROSS_FLAG_IDS:
        raise VerifyException(f"{op}: flag id {fid} is out of range 0..{CROSS_FLAG_IDS - 1}")


def _core_of(op) -> CoreKind | None:
    return enclosing_core(op, CoreSectionOp)


@irdl_op_definition
class CoreSectionOp(CoreSectionBase, AscendCOperation):
    """``if ASCEND_IS_AIC { ... }`` or ``if ASCEND_IS_AIV { ... }`` in a MIX kernel."""

    name = "ascendc.core_section"
    BATCHABLE: ClassVar[bool] = True
    core = prop_def(CoreKindAttr)
    CORE_ATTR: ClassVar[type] = CoreKindAttr

    def print_ascendc(self, p: CallPrinter) -> list[str]:
        p.section(f"if {SECTION_MACRO[self.core.data]}", self.body.block)
        return []


@irdl_op_definition
class GetSubBlockIdxOp(AscendCOperation):
    """``GetSubBlockIdx()``: 0 or 1, which AIV of its AI Core this is."""

    name = "ascendc.get_sub_block_idx"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "GetSubBlockIdx"
    CALL: ClassVar[str] = "int64_t {res} = AscendC::{api}();"
    result = result_def(IndexType)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        if _core_of(self) == CoreKind.AIC:
            raise VerifyException(f"{self.name}: GetSubBlockIdx is an AIV query, used in an AIC section")


def _flag_pipe(op: CrossCoreSetFlagOp) -> Pipe:
    return op.pipe.data.pipe


@irdl_op_definition
class CrossCoreSetFlagOp(AscendCOperation):
    """``CrossCoreSetFlag<mode, pipe>(flag_id)``: issued on ``pipe``, adds one to the flag on the other side."""

    name = "ascendc.cross_core_set_flag"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "CrossCoreSetFlag"
    traits = traits_def(OnPipe(_flag_pipe))
    mode = prop_def(IntegerAttr[I64])
    pipe = prop_def(PipeAttr)
    flag_id = operand_def(IndexType)
    assembly_format = "$mode `,` $pipe `,` $flag_id attr-dict"

    def __init__(self, mode: int, pipe: PipeKind, flag_id):
        super().__init__(operands=[flag_id], properties={"mode": IntegerAttr(mode, 64), "pipe": PipeAttr(pipe)})

    def print_ascendc(self, p: CallPrinter) -> str:
        return (f"AscendC::CrossCoreSetFlag<{self.mode.value.data}, {self.pipe.data.value}>"
                f"({p.expr_as(self.flag_id, 'uint16_t')});")

    def verify_(self) -> None:
        if self.mode.value.data not in CROSS_CORE_MODES:
            raise VerifyException(f"{self.name}: mode {self.mode.value.data} is not one of 0, 1, 2")
        if self.pipe.data in (PipeKind.PIPE_S, PipeKind.PIPE_ALL):
            raise VerifyException(f"{self.name}: CrossCoreSetFlag takes a work pipe, not {self.pipe.data.value}")
        _check_flag_id(self.name, self.flag_id)


@irdl_op_definition
class CrossCoreWaitFlagOp(AscendCOperation):
    """``CrossCoreWaitFlag(flag_id)``: blocks everything after it until the flag's counter is positive
    (the scalar unit waits)."""

    name = "ascendc.cross_core_wait_flag"
    BATCHABLE: ClassVar[bool] = True
    API: ClassVar[str] = "CrossCoreWaitFlag"
    traits = traits_def(OnPipe(Pipe.S))
    flag_id = operand_def(IndexType)
    assembly_format = "$flag_id attr-dict"

    def __init__(self, flag_id):
        super().__init__(operands=[flag_id])

    def print_ascendc(self, p: CallPrinter) -> str:
        return f"AscendC::CrossCoreWaitFlag({p.expr_as(self.flag_id, 'uint16_t')});"

    def verify_(self) -> None:
        _check_flag_id(self.name, self.flag_id)


@irdl_op_definition
class SyncAllOp(AscendCOperation):
    """``SyncAll()``, the hard sync of a vector kernel (``isAIVOnly = true``): the core finishes everything issued
    before it (all pipes), then waits until every core of the launch has arrived at its own ``SyncAll``; what
    they wrote to GM before is then visible to all. Declared in a ``mix_aiv_1_0`` kernel only
    (``sync-all-kernel-type``; doc: 核间同步/SyncAll.md)."""

    name = "ascendc.sync_all"
    API: ClassVar[str] = "SyncAll"
    CALL: ClassVar[str] = "AscendC::SyncAll();"
    ORDERS_ALL_PIPES: ClassVar[bool] = True  # like PipeBarrier<PIPE_ALL> inside the core
    traits = traits_def(OnPipe(Pipe.S))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()

    def verify_(self) -> None:
        kernel = self.parent_op()
        while kernel is not None and not isinstance(kernel, func.FuncOp):
            kernel = kernel.parent_op()
        if kernel is None:
            return
        kind = kernel.attributes.get(KERNEL_TYPE_ATTR)
        kind = kind.data if isinstance(kind, StringAttr) else None
        if kind != MIX_AIV_1_0:
            raise violation("sync-all-kernel-type", f"{self.name} in kernel @{kernel.sym_name.data} of kernel type "
                            f"{kind or 'unset'} (it must be {MIX_AIV_1_0})")


OPS = [CoreSectionOp, GetSubBlockIdxOp, CrossCoreSetFlagOp, CrossCoreWaitFlagOp, SyncAllOp]
ATTRIBUTES = [CoreKindAttr]
