"""Which kernel arguments an ``ascendc`` op reads and writes as global tensors, by its ``BufferEffects``."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from pyasc.dialects.traits import buffer_effects

from .attributes import GlobalTensorType
from .base import GlobalTensorOp, SubviewOp


def gm_argument(value: SSAValue) -> SSAValue | None:
    """The kernel argument a global tensor value views (through subviews), or None."""
    owner = value.owner
    while isinstance(owner, SubviewOp):
        owner = owner.source.owner
    return owner.addr if isinstance(owner, GlobalTensorOp) else None


def gm_effects(op: Operation) -> tuple[set, set, bool]:
    """The kernel arguments ``op`` reads and writes as global tensors (by its ``BufferEffects``), and whether every
    global tensor it touches views a known argument (the unknown ones are left out of the sets)."""
    reads, writes, known = set(), set(), True
    for effect in buffer_effects(type(op)):
        for values, into in ((effect.buffer_reads(op), reads), (effect.buffer_writes(op), writes)):
            for v in values:
                if isinstance(v.type, GlobalTensorType):
                    root = gm_argument(v)
                    if root is None:
                        known = False
                    else:
                        into.add(root)
    return reads, writes, known
