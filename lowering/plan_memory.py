"""``plan-memory``: give every on-chip buffer a byte offset, sharing memory between temporaries
(the planner is ``analysis.memory.plan_kernel``; a MIX kernel's parts are planned apart).

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

from pyasc.dialects.asctile.analysis import core_parts, is_mix_kernel, kernel_kind
from pyasc.dialects.target import module_target
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from .analysis.memory import capacities, plan_kernel


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Assign UB offsets with liveness-based reuse; overflow is an error."""

    name = "plan-memory"
    INPUT_LEVEL = "ascbuf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        capacity = capacities(module_target(op))
        for f in op.ops:
            if isinstance(f, func.FuncOp) and is_mix_kernel(f):
                with core_parts(f) as parts:  # each core has its own memories
                    for part in parts.values():
                        plan_kernel(part, capacity)
            elif isinstance(f, func.FuncOp) and kernel_kind(f) is not None:
                plan_kernel(f, capacity)
