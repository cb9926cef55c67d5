"""Mutations of explicit-flag kernels: delete one synchronisation edge or one barrier (``mutations``);
move a wait or a set, change an event id, make two live buffers overlap, shrink a buffer
(``MUTATION_CLASSES``).

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
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.rewriter import InsertPoint, Rewriter

from pyasc.dialects.ascendc import KERNEL_ATTR, POSITION_MEMORY
from pyasc.dialects.traits import OnPipe
from pyasc.dialects.types import numpy_dtype
from pyasc.runtime import Simulator

SYNC_OPS = ("ascendc.set_flag", "ascendc.wait_flag", "ascendc.pipe_barrier")


@dataclass(frozen=True)
class Mutation:
    kernel: str
    ops: tuple[int, ...]  # indices in the kernel's walk order
    what: str
    kind: str = "delete"  # delete ops; "address"/"size" of ops[0] := arg; "after"/"before": move ops[0]
    # next to ops[1]; "event": the event id of ops[0] := arg
    arg: int = 0


def _id_key(v):
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return ("c", owner.value.value.data)
    return ("v", v)


def _scope(op):
    """The block a flag op with a constant id pairs in: its own, or for an op under ``scf.if`` the block
    holding the ``if`` (a flag whose id is a computed value pairs with the ops that use the same value)."""
    block = op.parent_block()
    while block.parent_op() is not None and block.parent_op().name == "scf.if":
        block = block.parent_op().parent_block()
    return block


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
                idk = _id_key(op.event_id)
                key = (op.event.data, idk, id(_scope(op)) if idk[0] == "c" else None)
                groups.setdefault(key, ([], []))[op.name == "ascendc.wait_flag"].append(i)
        # a set pairs with the wait of the same event on the same id value (a slot computed in the loop body:
        # the wait may sit in a nested loop, under an ``if`` taking it on the first step); a set before the
        # loop (priming) with the wait after it (draining): both in the function body with the same constant id
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
            op = walk[m.ops[0]]
            if m.kind in ("delete", "erase"):  # erase: any op without results
                for i in sorted(m.ops, reverse=True):
                    assert walk[i].name in SYNC_OPS or m.kind == "erase" and not walk[i].results
                    walk[i].detach()
                    walk[i].erase()
            elif m.kind in ("address", "size"):
                op.properties[m.kind] = IntegerAttr(m.arg, 64)
            elif m.kind in ("after", "before"):
                op.detach()
                anchor = walk[m.ops[1]]
                Rewriter.insert_op(op, InsertPoint.after(anchor) if m.kind == "after" else InsertPoint.before(anchor))
            elif m.kind == "unit_flag":
                if m.arg:
                    op.properties["unit_flag"] = IntegerAttr(m.arg, 64)
                else:
                    del op.properties["unit_flag"]
            elif m.kind == "event":
                c = arith.ConstantOp(IntegerAttr(m.arg, IndexType()))
                Rewriter.insert_op(c, InsertPoint.before(op))
                op.operands[0] = c.result
    return mod


def _work(op) -> bool:
    """An op that occupies a pipe with data work (not a flag, barrier or queue op)."""
    trait = type(op).get_trait(OnPipe) if hasattr(type(op), "get_trait") else None
    return trait is not None and op.name not in SYNC_OPS


def _on(op, pipe) -> bool:
    return type(op).get_trait(OnPipe).of(op) == pipe


def _flag_ops(f):
    walk = list(f.walk())
    return walk, [(i, op) for i, op in enumerate(walk) if op.name in ("ascendc.set_flag", "ascendc.wait_flag")]


def moved_flags(module: ModuleOp) -> list[Mutation]:
    """Each wait moved past the next work op of its block on its destination pipe (its consumer); each set
    moved before the previous one on its source pipe (its producer). Pipes run their own instructions in
    order, so moving a flag past work of another pipe changes nothing."""
    out = []
    for f in _kernels(module):
        walk, flags = _flag_ops(f)
        index = {op: i for i, op in enumerate(walk)}
        for i, op in flags:
            block = list(op.parent_block().ops)
            k = block.index(op)
            event = op.event.data
            if op.name == "ascendc.wait_flag":
                nxt = next((o for o in block[k + 1:] if _work(o) and _on(o, event.dst)), None)
                if nxt is not None:
                    out.append(Mutation(f.sym_name.data, (i, index[nxt]), f"`{op}` moved after `{nxt}`", "after"))
            else:
                prev = next((o for o in reversed(block[:k]) if _work(o) and _on(o, event.src)), None)
                if prev is not None:
                    out.append(Mutation(f.sym_name.data, (i, index[prev]), f"`{op}` moved before `{prev}`",
                                        "before"))
    return out


def changed_event_ids(module: ModuleOp) -> list[Mutation]:
    """Each set or wait given another event id (0..5) than its own."""
    out = []
    for f in _kernels(module):
        _, flags = _flag_ops(f)
        for i, op in flags:
            k = _id_key(op.event_id)
            new = (k[1] + 1) % 6 if k[0] == "c" else 5
            out.append(Mutation(f.sym_name.data, (i,), f"`{op}` with event id {new}", "event", new))
    return out


def _local_tensors(f):
    walk = list(f.walk())
    return walk, [(i, op) for i, op in enumerate(walk) if op.name == "ascendc.local_tensor"]


def _live(op, index) -> tuple[int, int]:
    uses, work = [], [op.results[0]]
    while work:
        v = work.pop()
        for u in v.uses:
            if u.operation.name in ("ascendc.subview", "ascendc.reinterpret_cast"):
                work.append(u.operation.results[0])
            else:
                uses.append(index[u.operation])
    return (min(uses), max(uses)) if uses else (0, -1)


def _bytes(op) -> tuple[int, int]:
    a = op.address.value.data
    return a, a + op.size.value.data * numpy_dtype(op.results[0].type.element_type).itemsize


def _memory(op) -> str:
    return POSITION_MEMORY.get(op.position.data, "UB")


def overlapping_buffers(module: ModuleOp) -> list[Mutation]:
    """For each two local tensors of one memory (UB, L1, L0A, L0B, L0C) live at the same time in disjoint
    bytes: the second moved onto the first."""
    out = []
    for f in _kernels(module):
        walk, tensors = _local_tensors(f)
        index = {op: i for i, op in enumerate(walk)}
        for j, (i, a) in enumerate(tensors):
            for k, b in tensors[j + 1:]:
                (a0, a1), (b0, b1) = _bytes(a), _bytes(b)
                la, lb = _live(a, index), _live(b, index)
                if _memory(a) == _memory(b) and (a1 <= b0 or b1 <= a0) and la[0] <= lb[1] and lb[0] <= la[1]:
                    out.append(Mutation(f.sym_name.data, (k,), f"`{b}` moved onto `{a}`", "address", a0))
    return out


def shrunken_buffers(module: ModuleOp) -> list[Mutation]:
    """Each local tensor of 512 B or more (a tile or a fractal block, not a row value) halved."""
    out = []
    for f in _kernels(module):
        _, tensors = _local_tensors(f)
        for i, op in tensors:
            lo, hi = _bytes(op)
            if hi - lo >= 512:
                out.append(Mutation(f.sym_name.data, (i,), f"`{op}` halved", "size", op.size.value.data // 2))
    return out


def deleted_writes(module: ModuleOp) -> list[Mutation]:
    """Each copy into a local tensor (DataCopy, DataCopyPad and ND2NZ from GM, LoadData from L1) and each
    Duplicate deleted: what it wrote is read never written."""
    out = []
    for f in _kernels(module):
        for i, op in enumerate(f.walk()):
            into_local = op.name in ("ascendc.data_copy", "ascendc.data_copy_pad") and \
                "local_tensor" in str(op.operands[0].type)
            if into_local or op.name in ("ascendc.duplicate", "ascendc.data_copy_nd2nz", "ascendc.load_data",
                                         "ascendc.load_data_with_transpose"):
                out.append(Mutation(f.sym_name.data, (i,), f"`{op}` deleted", "erase"))
    return out


def changed_unit_flags(module: ModuleOp) -> list[Mutation]:
    """Each Mmad or Fixpipe with a unit flag given one that breaks how L0C passes between them: a Fixpipe's 0 or 2
    (L0C is never released), a block's last Mmad's 2 or 0 (never handed over), another Mmad's 3 (handed over too
    early). Not a mutant: 0 on an Mmad inside a block, which the Mmads before it still order."""
    out = []
    for f in _kernels(module):
        for i, op in enumerate(f.walk()):
            flag = op.properties.get("unit_flag") if op.name in ("ascendc.mmad", "ascendc.fixpipe") else None
            if flag is None:
                continue
            new = (0, 2) if op.name == "ascendc.fixpipe" or flag.value.data == 3 else (3,)
            out += [Mutation(f.sym_name.data, (i,), f"`{op}` with unit flag {x}", "unit_flag", x) for x in new]
    return out


MUTATION_CLASSES = {"overlapping buffers": overlapping_buffers, "shrunken buffers": shrunken_buffers,
                    "moved waits and sets": moved_flags, "changed event ids": changed_event_ids,
                    "deleted writes": deleted_writes, "changed unit flags": changed_unit_flags}
# the finding kinds that report a mutant of each class (``detected``); a deleted write is read never written
CLASS_KINDS = {"deleted writes": ("initcheck",)}  # "initcheck": simulate with the initcheck on


def _kernels(module: ModuleOp):
    return [f for f in module.body.block.ops if KERNEL_ATTR in f.attributes]


def detected(module: ModuleOp, host: str, arrays: list[np.ndarray], also: tuple[str, ...] = ()) -> tuple[bool, str]:
    """Simulate; (True, why) when the run reports a deadlock, a race, a flag error or a broken
    documented rule (a ``contract`` finding); ``also`` holding "initcheck": with the initcheck on."""
    sim = Simulator(module, hazards="ignore", initcheck="initcheck" in also)
    report = sim.run(host, [a.copy() for a in arrays], raise_errors=False)
    if report.error is not None:
        return True, report.error.message
    bad = [f for f in report.findings if f.kind in ("race", "double-set", "unpaired-flag", "contract")]
    if bad:
        return True, bad[0].message
    return False, str(report)
