"""The GM hand-off between the cores of a MIX kernel's AI Core, checked on the kernel's structure.

``CrossCoreSetFlag`` reports that its pipe's earlier work is done, and ``CrossCoreWaitFlag`` blocks every later
instruction of its core until the set arrives (``CrossCoreSetFlag(ISASI).md``). A GM buffer that one core section
(the AIC's, or the AIVs') writes and the other only reads, a hand-off such as a workspace, is read for what was
written into it: each read must come after a wait on a flag that the writing section sets after each of its
writes. ``handoff_findings`` reports a read with no ``CrossCoreWaitFlag`` before it, and a write with no
``CrossCoreSetFlag`` of such a flag after it (the ops' ``BufferEffects``, through subviews to the kernel argument).
"Before" and "after" are program order: earlier in the op's block or in an enclosing one, later in its block or
after an enclosing op. A buffer both sections read, or both write, is left alone: the order it needs depends on
which bytes each touches.

Both hold in every schedule, so the check does not depend on the simulated timing. It does not match each read to
the set of the write it needs (the flags count, and a set may cover several writes).
"""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.ir import Block, Operation

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_effects

RULE = "crosscore-gm-handoff"


def _gm(op: Operation) -> tuple[set, set]:
    """The kernel arguments ``op`` reads and writes as global tensors (unknown ones left out)."""
    return gm_effects(op)[:2]


ANY_FLAG = "any"  # a flag id known only at run time


def _flag(op) -> object:
    owner = op.flag_id.owner
    value = getattr(owner, "value", None)
    return value.value.data if isinstance(owner, arith.ConstantOp) and hasattr(value, "value") else ANY_FLAG


def _accesses(block: Block, waited: frozenset, set_after: frozenset, out: list) -> None:
    """(op, GM reads, GM writes, flags waited for before it, flags set after it) of every op of ``block`` without
    regions."""
    ops = list(block.ops)
    follows, later = [set_after] * len(ops), set_after
    for i in range(len(ops) - 1, -1, -1):
        follows[i] = later
        later = later | {_flag(o) for o in ops[i].walk() if isinstance(o, asc.CrossCoreSetFlagOp)}
    for op, followed in zip(ops, follows):
        if isinstance(op, asc.CrossCoreWaitFlagOp):
            waited = waited | {_flag(op)}
        elif op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    _accesses(inner, waited, followed, out)
        else:
            reads, writes = _gm(op)
            if reads or writes:
                out.append((op, reads, writes, waited, followed))


def _matches(waited: frozenset, followed: frozenset) -> bool:
    return bool(waited & followed) or bool(waited and ANY_FLAG in followed) or bool(followed and ANY_FLAG in waited)


def _names(args) -> str:
    return ", ".join(sorted(a.name_hint or "an argument" for a in args))


def handoff_findings(kernel: func.FuncOp) -> list[tuple[str, Operation, str]]:
    """(rule id, op, detail) for each read of a hand-off buffer before any wait on a flag its writes set, and
    each write of one no set of such a flag follows (see the module docstring); none without core sections."""
    sections = [o for o in kernel.body.block.ops if isinstance(o, asc.CoreSectionOp)]
    if len(sections) != 2:
        return []
    accesses = []
    for s in sections:
        acc: list = []
        _accesses(s.body.block, frozenset(), frozenset(), acc)
        accesses.append(acc)
    touched = [(set().union(*(a[1] for a in acc)), set().union(*(a[2] for a in acc))) for acc in accesses]
    found, seen = [], set()
    for me, other in ((0, 1), (1, 0)):
        one_way = (touched[me][0] & touched[other][1]) - touched[me][1] - touched[other][0]
        for rop, reads, _, r_waited, _ in accesses[me]:
            for wop, _, writes, _, w_followed in accesses[other]:
                shared = reads & writes & one_way
                if not shared or _matches(r_waited, w_followed):
                    continue
                op, what = ((rop, f"reads a GM buffer the other core of the AI Core writes ({_names(shared)}) before "
                                  f"any CrossCoreWaitFlag on a flag that core sets after the write") if not r_waited
                            else (wop, f"writes a GM buffer the other core of the AI Core reads ({_names(shared)}) and "
                                       f"no CrossCoreSetFlag of a flag the reader waits for follows"))
                if op not in seen:
                    seen.add(op)
                    found.append((RULE, op, f"{op.name} {what}"))
    return found
