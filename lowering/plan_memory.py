"""``plan-memory``: give every UB buffer a byte offset, sharing memory between temporaries.

Buffers with rotating slots, buffers filled from or drained to GM (loaded and stored tiles:
queues of their own in the TPipe style) and buffers used outside the tile loop live for the
whole kernel. A one-slot temporary lives from its first to its last access in the
loop body; temporaries whose lives do not overlap share memory: first fit over equal-size slots
of the widest temporary, so the plan never fragments, with small temporaries (a quarter of that
or less: row values, work areas) in slots of their own size. A plan that does not fit the
target's usable UB is a compile-time error naming the kernel and the sizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.ascbuf import MemorySpace, memory_space
from pyasc.dialects.target import module_target
from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.passes import ModulePass

from .errors import CompileError


class MemoryPlanError(CompileError):
    """The buffers of a kernel do not fit in UB."""


def buffer_of(value) -> ascbuf.AllocOp | None:
    """The alloc a buffer value (an alloc result or a slot of one) comes from."""
    owner = value.owner
    if isinstance(owner, ascbuf.SlotOp):
        owner = owner.buffer.owner
    return owner if isinstance(owner, ascbuf.AllocOp) else None


def capacities(spec) -> dict[MemorySpace, int]:
    """Bytes a kernel may use in each on-chip memory of the target."""
    return {MemorySpace.UB: spec.ub_usable_bytes, MemorySpace.L1: spec.l1_bytes, MemorySpace.L0A: spec.l0a_bytes,
            MemorySpace.L0B: spec.l0b_bytes, MemorySpace.L0C: spec.l0c_bytes}


def plan_kernel(kernel: func.FuncOp, capacity: dict[MemorySpace, int]) -> dict[MemorySpace, int]:
    """Assign offsets in every memory space; return the bytes used per space."""
    allocs = [op for op in kernel.body.block.ops if isinstance(op, ascbuf.AllocOp)]
    loop = next((op for op in kernel.body.block.ops if isinstance(op, scf.ForOp)), None)
    first: dict[ascbuf.AllocOp, int] = {}
    last: dict[ascbuf.AllocOp, int] = {}
    staged: set[ascbuf.AllocOp] = set()  # filled from or drained to GM: a queue's own memory
    if loop is not None:
        for i, op in enumerate(loop.body.block.walk()):
            for v in op.operands:
                a = buffer_of(v)
                if a is not None:
                    first.setdefault(a, i)
                    last[a] = i
                    if any(isinstance(o.type, MemRefType) and memory_space(o.type) is None for o in op.operands):
                        staged.add(a)  # the op moves data between this buffer and GM
    outside = {buffer_of(v) for op in kernel.body.block.ops if loop is None or op is not loop
               for v in op.operands}  # used before or after the loop: live throughout
    staged |= {a for a in outside if a is not None}
    used = {}
    for space in dict.fromkeys(memory_space(a.result.type) for a in allocs):
        mine = [a for a in allocs if memory_space(a.result.type) == space]
        used[space] = _plan_space(kernel, space, mine, first, last, staged, capacity[space])
    return used


def _plan_space(kernel, space, allocs, first, last, staged, capacity: int) -> int:
    whole = [a for a in allocs if a.slots.value.data > 1 or a not in first or a in staged]
    temps = [a for a in allocs if a not in whole]
    offset = 0
    for a in whole:
        a.offset = IntegerAttr(offset, 64)
        offset += a.slot_bytes * a.slots.value.data
    used = offset
    counts = []
    widest = max((a.slot_bytes for a in temps), default=0)
    small = [a for a in temps if a.slot_bytes * 4 <= widest]  # row values, work areas: planned apart
    for group in (t for t in ([a for a in temps if a not in small], small) if t):
        slot = max(a.slot_bytes for a in group)  # equal slots in a class: the plan never fragments
        free_at: list[int] = []  # per slot of this class: the body index after which it is free again
        for a in sorted(group, key=lambda a: first[a]):
            for j, end in enumerate(free_at):
                if end < first[a]:
                    free_at[j] = last[a]
                    break
            else:
                j = len(free_at)
                free_at.append(last[a])
            a.offset = IntegerAttr(used + j * slot, 64)
        used += slot * len(free_at)
        counts.append(f"{len(free_at)} of {slot} B")
    if used > capacity:
        raise MemoryPlanError(
            f"{space.value.upper()} overflow in kernel @{kernel.sym_name.data}: its buffers need {used} bytes "
            f"({offset} B of rotating and staged tiles, temporaries: {', '.join(counts) or 'none'}) "
            f"but the target has {capacity} B of {space.value.upper()}; use a smaller tile_size")
    return used


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Assign UB offsets with liveness-based reuse; overflow is an error."""

    name = "plan-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        capacity = capacities(module_target(op))
        from .mix_parts import core_parts, is_mix_kernel

        for f in op.ops:
            if isinstance(f, func.FuncOp) and is_mix_kernel(f):
                with core_parts(f) as parts:  # each core has its own memories
                    for part in parts.values():
                        plan_kernel(part, capacity)
            elif isinstance(f, func.FuncOp) and asctile.KERNEL_ATTR in f.attributes:
                plan_kernel(f, capacity)
