"""Sync mutations of explicit-flag kernels: delete one synchronisation edge or one barrier.

A *synchronisation edge* is a ``set_flag`` and the ``wait_flag`` that consumes it: ops of one event,
in one block, whose event id is the same SSA value (inside the tile loop: the slot-derived id) or
the same constant (priming sets before the loop and draining waits after it). The k-th set of such a
group pairs with its k-th wait. Deleting an edge deletes both ops; deleting a barrier deletes one
``pipe_barrier``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp

from pyasc.dialects.ascendc import KERNEL_ATTR
from pyasc.runtime import Simulator

SYNC_OPS = ("ascendc.set_flag", "ascendc.wait_flag", "ascendc.pipe_barrier")


@dataclass(frozen=True)
class Mutation:
    kernel: str
    ops: tuple[int, ...]  # indices in the kernel's walk order
    what: str


def _id_key(v):
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return ("c", owner.value.value.data)
    return ("v", v)


def mutations(module: ModuleOp) -> list[Mutation]:
    out = []
    for f in module.body.block.ops:
        if KERNEL_ATTR not in f.attributes:
            continue
        kname = f.sym_name.data
        walk = list(f.walk())
        groups: dict[tuple, tuple[list, list]] = {}
        for i, op in enumerate(walk):
            if op.name == "ascendc.pipe_barrier":
                out.append(Mutation(kname, (i,), f"barrier #{i} `{op}`"))
            elif op.name in ("ascendc.set_flag", "ascendc.wait_flag"):
                key = (op.event.data, _id_key(op.event_id), id(op.parent_block()))
                groups.setdefault(key, ([], []))[op.name == "ascendc.wait_flag"].append(i)
        # a set in the loop body pairs with a wait in the same body; a set before the loop (priming)
        # with the wait after it (draining): both live in the function body with the same constant id
        for (ev, idk, _), (sets, waits) in groups.items():
            for s, w in zip(sets, waits):
                out.append(Mutation(kname, (s, w), f"edge {ev.value} id {idk[1] if idk[0] == 'c' else 'slot'}: "
                                    f"`{walk[s]}` / `{walk[w]}`"))
            for extra in sets[len(waits):] + waits[len(sets):]:
                out.append(Mutation(kname, (extra,), f"unpaired `{walk[extra]}`"))
    return out


def apply(module: ModuleOp, m: Mutation) -> ModuleOp:
    mod = module.clone()
    for f in mod.body.block.ops:
        if KERNEL_ATTR in f.attributes and f.sym_name.data == m.kernel:
            walk = list(f.walk())
            for i in sorted(m.ops, reverse=True):
                assert walk[i].name in SYNC_OPS
                walk[i].detach()
                walk[i].erase()
    return mod


def detected(module: ModuleOp, host: str, arrays: list[np.ndarray]) -> tuple[bool, str]:
    """Simulate; (True, why) when the run reports a deadlock, a race, a flag error or a broken
    documented rule (a ``contract`` finding)."""
    sim = Simulator(module, hazards="ignore")
    report = sim.run(host, [a.copy() for a in arrays], raise_errors=False)
    if report.error is not None:
        return True, report.error.message
    bad = [f for f in report.findings if f.kind in ("race", "double-set", "unpaired-flag", "contract")]
    if bad:
        return True, bad[0].message
    return False, str(report)
