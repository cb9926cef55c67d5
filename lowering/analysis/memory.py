"""The memory plan of a kernel: a byte offset for every on-chip buffer, sharing memory between
temporaries (``plan_kernel``; ``plan-memory`` applies it to every kernel).

Buffers with rotating slots, buffers filled from or drained to GM (loaded and stored tiles:
queues of their own in the TPipe style) and buffers used outside the tile loop live for the
whole kernel. A one-slot temporary lives from its first to its last access in the
loop body; temporaries whose lives do not overlap share memory: first fit over equal-size slots
of the widest temporary, so the plan never fragments, with small temporaries (a quarter of that
or less: row values, work areas) in slots of their own size. A plan that does not fit the
given capacity is a ``MemoryPlanError`` naming the kernel and the sizes.

Tiling asks whether a tile fits with ``tile_kernel_bytes``: the UB bytes a tile-level vector kernel
needs once bufferized and planned (computed on a copy, so the answer is exact).
"""

from __future__ import annotations

from pyasc.dialects import ascbuf
from pyasc.dialects.ascbuf import MemorySpace, memory_space
from pyasc.dialects.ascbuf.analysis import buffer_of
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp

from ..errors import CompileError
from ..vector_bufferizer import bufferize_vector_kernel


class MemoryPlanError(CompileError):
    """The buffers of a kernel do not fit in UB."""


def capacities(spec) -> dict[MemorySpace, int]:
    """Bytes a kernel may use in each on-chip memory of the target."""
    return {MemorySpace.UB: spec.ub_usable_bytes, MemorySpace.L1: spec.l1_bytes, MemorySpace.L0A: spec.l0a_bytes,
            MemorySpace.L0B: spec.l0b_bytes, MemorySpace.L0C: spec.l0c_bytes, MemorySpace.BT: spec.bt_bytes}


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


UNBOUNDED = 1 << 62


def tile_kernel_bytes(kernel: func.FuncOp, space: MemorySpace = MemorySpace.UB) -> int:
    """The bytes of ``space`` the tile-level vector ``kernel`` needs once bufferized and planned
    (on a copy; ``kernel`` is left as it is)."""
    probe = kernel.clone()
    ModuleOp([probe])
    bufferize_vector_kernel(probe)
    try:
        used = plan_kernel(probe, {s: UNBOUNDED for s in MemorySpace if s != MemorySpace.GM})
    except MemoryPlanError:
        return UNBOUNDED
    return used.get(space, 0)
