"""Code generation for the MIX-kernel ops.

A MIX kernel's function runs once per core of an AI Core: the generated ``_kernel`` takes the core type
``ct`` (0: AIC, 1: AIV) and ``sub`` (``GetSubBlockIdx()``); a ``core_section`` runs only on its core type.
``CrossCoreSetFlag`` is a set on its pipe and ``CrossCoreWaitFlag`` a wait of the scalar unit, both on the
key ``CROSS_KEY_BASE + id``; ``mix_schedule`` pairs them across the cores of the AI Core.
"""

from __future__ import annotations

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.mix import CROSS_FLAG_IDS

from .codegen import KernelTranslator, pipe_index, record
from .opinfo import CROSS_KEY_BASE, SET, WAIT

CORE_TYPE = {asc.CoreKind.AIC: 0, asc.CoreKind.AIV: 1}


def core_section(t: KernelTranslator, op: asc.CoreSectionOp) -> None:
    t.flush()
    t.emit(f"if ct == {CORE_TYPE[op.core.data]}:")
    t.emit_region_block(op.body.block)


def get_sub_block_idx(t: KernelTranslator, op) -> None:
    t.bind(op.result, "sub")


def _cross_key(t: KernelTranslator, op, sid: int) -> str:
    c = t.consts.get(op.flag_id)
    if c is not None:
        if not 0 <= c < CROSS_FLAG_IDS:
            t.fail_line(sid, f"cross-core flag id {c} is out of range 0..{CROSS_FLAG_IDS - 1}")
        return str(CROSS_KEY_BASE + c)
    v = t.v(op.flag_id)
    t.emit(f"if not 0 <= {v} < {CROSS_FLAG_IDS}: _fail({sid}, bid, f'cross-core flag id {{{v}}} is out of range')")
    return f"{CROSS_KEY_BASE} + {v}"


def cross_core_set_flag(t: KernelTranslator, op: asc.CrossCoreSetFlagOp) -> None:
    sid = t.info(op, pipe_index(op), SET, label=f"CrossCoreSetFlag {op.pipe.data.pipe.value}")
    record(t, sid, "0", _cross_key(t, op, sid), [])


def cross_core_wait_flag(t: KernelTranslator, op: asc.CrossCoreWaitFlagOp) -> None:
    sid = t.info(op, pipe_index(op), WAIT, label="CrossCoreWaitFlag")
    record(t, sid, "0", _cross_key(t, op, sid), [])
