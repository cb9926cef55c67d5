"""The GM hand-off between the cores of a MIX kernel's AI Core, checked on the kernel's structure.

``CrossCoreSetFlag`` reports that its pipe's earlier work is done, and ``CrossCoreWaitFlag`` blocks every later
instruction of its core until the set arrives (``CrossCoreSetFlag(ISASI).md``). So what one core (the AIC, or the
AIVs) writes to a GM buffer that the other reads is ready for it only after a wait, and only if the writer sets a
flag after the write. ``handoff_findings`` reports, for each GM buffer one core section writes and the other reads
(by the ops' ``BufferEffects``, through subviews to the kernel argument):

* a read of it in program order before any ``CrossCoreWaitFlag`` of the reading section (one before the read in its
  block or in an enclosing one);
* a write of it that no ``CrossCoreSetFlag`` of the writing section follows (later in its block or after an
  enclosing op).

Both hold in every schedule, so the check does not depend on the simulated timing. It does not match each read to
the set of the write it needs (the flags count, and a set may cover several writes).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from pyasc.dialects import ascendc as asc
from pyasc.dialects.traits import BufferEffects

RULE = "crosscore-gm-handoff"


def gm_argument(value: SSAValue) -> SSAValue | None:
    """The kernel argument a global tensor value views (through subviews), or None."""
    owner = value.owner
    while isinstance(owner, asc.SubviewOp):
        owner = owner.source.owner
    return owner.addr if isinstance(owner, asc.GlobalTensorOp) else None


def _gm(op: Operation) -> tuple[set, set]:
    """The kernel arguments ``op`` reads and writes as global tensors (unknown ones left out)."""
    reads, writes = set(), set()
    for effect in type(op).get_traits_of_type(BufferEffects):
        for values, into in ((effect.buffer_reads(op), reads), (effect.buffer_writes(op), writes)):
            for v in values:
                if isinstance(v.type, asc.GlobalTensorType):
                    root = gm_argument(v)
                    if root is not None:
                        into.add(root)
    return reads, writes


def _effects(block: Block) -> tuple[set, set]:
    reads, writes = set(), set()
    for op in block.walk():
        r, w = _gm(op)
        reads |= r
        writes |= w
    return reads, writes


def _unwaited_reads(block: Block, shared: set, waited: bool, out: list) -> None:
    for op in block.ops:
        if isinstance(op, asc.CrossCoreWaitFlagOp):
            waited = True
            continue
        if not waited:
            read = _gm(op)[0] & shared
            if read:
                out.append((op, f"{op.name} reads a GM buffer the other core of the AI Core writes "
                                f"({', '.join(sorted(a.name_hint or 'an argument' for a in read))}) before any "
                                f"CrossCoreWaitFlag"))
        for region in op.regions:
            for inner in region.blocks:
                _unwaited_reads(inner, shared, waited, out)


def _unsignalled_writes(block: Block, shared: set, set_after: bool, out: list) -> None:
    ops = list(block.ops)
    later = set_after
    after = [False] * len(ops)
    for i in range(len(ops) - 1, -1, -1):  # whether a set follows op i in this block or after the block
        after[i] = later
        if isinstance(ops[i], asc.CrossCoreSetFlagOp) or any(
                isinstance(o, asc.CrossCoreSetFlagOp) for o in ops[i].walk() if o is not ops[i]):
            later = True
    for op, followed in zip(ops, after):
        if not followed and not op.regions:
            written = _gm(op)[1] & shared
            if written:
                out.append((op, f"{op.name} writes a GM buffer the other core of the AI Core reads "
                                f"({', '.join(sorted(a.name_hint or 'an argument' for a in written))}) and no "
                                f"CrossCoreSetFlag follows"))
        for region in op.regions:
            for inner in region.blocks:
                _unsignalled_writes(inner, shared, followed, out)


def handoff_findings(kernel: func.FuncOp) -> list[tuple[str, Operation, str]]:
    """(rule id, op, detail) for each read before a wait and each write without a set after it (see the module
    docstring); none for a kernel without core sections."""
    sections = [o for o in kernel.body.block.ops if isinstance(o, asc.CoreSectionOp)]
    if len(sections) != 2:
        return []
    effects = [_effects(s.body.block) for s in sections]
    found: list = []
    for me, other in ((0, 1), (1, 0)):
        shared = effects[me][0] & effects[other][1]
        if shared:
            _unwaited_reads(sections[me].body.block, shared, False, found)
            _unsignalled_writes(sections[other].body.block, shared, False, found)
    return [(RULE, op, detail) for op, detail in found]
