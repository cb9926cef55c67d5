"""Emitter entries for MIX kernels (registered into the kernel table).

``core_section`` -> ``if ASCEND_IS_AIC { ... }`` / ``if ASCEND_IS_AIV { ... }``; the cross-core flags ->
``CrossCoreSetFlag<mode, PIPE_X>(id)`` / ``CrossCoreWaitFlag(id)``; ``GetSubBlockIdx()``. The kernel's
``KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)`` is printed by ``KernelPrinter.print_kernel``.
"""

from pyasc.dialects import ascendc as A

from .kernel import register

SECTION_MACRO = {"aic": "ASCEND_IS_AIC", "aiv": "ASCEND_IS_AIV"}


def _core_section(p, op: A.CoreSectionOp) -> list[str]:
    with p.out.block(f"if {SECTION_MACRO[op.core.data.value]}"):
        p.print_block(op.body.block)
    return []


def _cross_set(p, op: A.CrossCoreSetFlagOp) -> str:
    return (f"AscendC::CrossCoreSetFlag<{op.mode.value.data}, {op.pipe.data.value}>"
            f"({p.expr_as(op.flag_id, 'uint16_t')});")


register({
    A.CoreSectionOp: _core_section,
    A.GetSubBlockIdxOp: "int64_t {res} = AscendC::GetSubBlockIdx();",
    A.CrossCoreSetFlagOp: _cross_set,
    A.CrossCoreWaitFlagOp: lambda p, op: f"AscendC::CrossCoreWaitFlag({p.expr_as(op.flag_id, 'uint16_t')});",
})
