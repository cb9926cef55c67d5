"""``insert-sync``: the flags and barriers a kernel's tile loop needs, and no more.

Each buffer op runs on one pipe and reads/writes buffers (``ascbuf.slot`` copies of a
multi-slot buffer only conflict with the same buffer; one-slot buffers conflict where their
planned byte ranges overlap). For every dependency (RAW, WAR or WAW):

* on two pipes, a ``set_flag`` right after the latest producer on the source pipe and a
  ``wait_flag`` right before the consumer, unless an earlier flag pair already orders them;
* on one pipe, a ``barrier`` before the consumer for RAW and WAW (instructions in one queue
  issue in order but overlap), unless one already separates them.

Dependencies from iteration ``i`` to a later one (write-after-read of a rotating slot) get a
flag whose set is primed before the loop and whose wait is drained after it. Flags inside the
loop use the event id ``i mod buffers`` (plus ``buffers`` for a second channel on the same pipe
pair), so a producer running ``buffers - 1`` tiles ahead never sets a flag that is still set.
With ``sync_style=queue`` only barriers are placed: TQue's EnQue/DeQue carry the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.target import Pipe, module_target

from .emitter import OpEmitter
from .plan_memory import buffer_of


class SyncError(ValueError):
    """A kernel needs more event ids than the target provides."""


def accesses(op: Operation) -> tuple[list[SSAValue], list[SSAValue]] | None:
    """(reads, writes) of a buffer op, or None for ops that touch no buffer."""
    match op:
        case ascbuf.CopyInOp():
            return [], [op.dest]
        case ascbuf.CopyOutOp():
            return [op.source], []
        case ascbuf.VBinaryOp():
            return [op.lhs, op.rhs], [op.dst]
        case ascbuf.VScalarOp() | ascbuf.VUnaryOp() | ascbuf.VCastOp():
            return [op.src], [op.dst]
        case ascbuf.VDupOp():
            return [], [op.dst]
    return None


def _region(v: SSAValue):
    a = buffer_of(v)
    if a.slots.value.data > 1:
        return ("slots", a)
    start = a.offset.value.data if a.offset is not None else id(a)
    return ("range", start, start + a.slot_bytes)


def _conflict(r1, r2) -> bool:
    if r1[0] == "slots" or r2[0] == "slots":
        return r1 == r2
    return r1[1] < r2[2] and r2[1] < r1[2]


@dataclass
class _Access:
    op: Operation
    pipe: Pipe
    reads: list
    writes: list


@dataclass
class _Plan:
    after: dict[int, list] = field(default_factory=dict)  # op index -> sets to place after it
    before: dict[int, list] = field(default_factory=dict)  # op index -> waits/barriers before it
    edges: list = field(default_factory=list)  # (set_pos, wait_pos, src, dst, carried)
    barriers: list = field(default_factory=list)  # (pos, pipe)


def _dependencies(d: _Access, c: _Access) -> tuple[bool, bool, bool]:
    """For ``d`` before ``c``: (any dependency, RAW or WAW, only through rotating slots)."""
    pairs = [(w, r) for w in d.writes for r in c.reads] + [(w, x) for w in d.writes for x in c.writes]
    ordered = [p for p in pairs if _conflict(*p)]
    war = [(r, w) for r in d.reads for w in c.writes if _conflict(r, w)]
    hits = ordered + war
    return bool(hits), bool(ordered), all(a[0] == "slots" for a, _ in hits)


def plan_sync(ops: list[_Access], flags: bool, slots: int) -> _Plan:
    plan = _Plan()
    n = len(ops)

    def covered_flag(src, dst, set_after: int, wait_before: int, carried: bool) -> bool:
        for s, w, p, q, car in plan.edges:
            if (p, q) != (src, dst) or s < set_after:
                continue
            if not car and (carried or w <= wait_before):  # a wait in iteration i orders all later q work
                return True
            if car and carried and w <= wait_before:
                return True
        return False

    def covered_barrier(pipe, d: int, c: int, carried: bool) -> bool:
        for pos, p in plan.barriers:
            if p != pipe:
                continue
            if not carried and d < pos <= c:
                return True
            if carried and (pos > d or pos <= c):
                return True
        return False

    def round_trip(pipe) -> bool:
        """Every iteration, ``pipe`` waits for another pipe that waited for ``pipe``: a slot reused
        ``slots >= 2`` iterations later is then ordered after its previous use. (With queues,
        AllocTensor waiting for FreeTensor is that round trip.)"""
        return any(p == pipe and any(p2 == q and q2 == pipe and s2 >= w for s2, _, p2, q2, _ in plan.edges)
                   for _, w, p, q, _ in plan.edges)

    def visit(carried: bool, cross: bool) -> None:
        for ci, c in enumerate(ops):
            need: dict[Pipe, int] = {}
            for di in range(n) if carried else range(ci):
                d = ops[di]
                dep, ordered_in_pipe, slotted = _dependencies(d, c)
                if not dep or (d.pipe == c.pipe) == cross:
                    continue
                if not cross:
                    if not ordered_in_pipe or covered_barrier(c.pipe, di, ci, carried):
                        continue
                    if carried and slotted and slots > 1 and (not flags or round_trip(c.pipe)):
                        continue
                    plan.barriers.append((ci, c.pipe))
                    plan.before.setdefault(ci, []).append(("barrier", c.pipe))
                elif flags and not covered_flag(d.pipe, c.pipe, di, ci, carried):
                    need[d.pipe] = max(need.get(d.pipe, -1), di)
            for p, di in need.items():
                plan.edges.append((di, ci, p, c.pipe, carried))
                plan.after.setdefault(di, []).append(("set", p, c.pipe, carried))
                plan.before.setdefault(ci, []).insert(0, ("wait", p, c.pipe, carried))

    for carried in (False, True):
        visit(carried, cross=True)
        visit(carried, cross=False)
    return plan


@dataclass
class _KernelSync:
    kernel: func.FuncOp
    flags: bool
    usable_ids: int

    def run(self) -> None:
        loop = next((op for op in self.kernel.body.block.ops if isinstance(op, scf.ForOp)), None)
        if loop is None:
            return
        self.slots = self.kernel.attributes[asctile.BUFFERS_ATTR].value.data
        body = loop.body.block
        ops = []
        for op in body.ops:
            acc = accesses(op)
            if acc is not None:
                ops.append(_Access(op, op.PIPE, [_region(v) for v in acc[0]], [_region(v) for v in acc[1]]))
        plan = plan_sync(ops, self.flags, self.slots)
        channels: dict[tuple, int] = {}  # (src, dst, carried) -> id base
        for _, _, p, q, carried in plan.edges:
            key = (p, q, carried)
            if key not in channels:
                base = sum(1 for k in channels if k[:2] == (p, q)) * self.slots
                if base + self.slots > self.usable_ids:
                    raise SyncError(f"kernel @{self.kernel.sym_name.data} needs more than {self.usable_ids} event "
                                    f"ids on {p.value}->{q.value}; use fewer buffers")
                channels[key] = base

        head = OpEmitter(InsertPoint.at_start(body))
        ids: dict[int, SSAValue] = {}

        def event_id(e: OpEmitter, key) -> SSAValue:
            base = channels[key]
            if base not in ids:
                if "slot" not in ids:
                    ids["slot"] = head.remui(body.args[0], self.slots)
                ids[base] = head.addi(ids["slot"], base)
            return ids[base]

        for i, acc in enumerate(ops):
            e = OpEmitter(InsertPoint.before(acc.op))
            for item in plan.before.get(i, []):
                if item[0] == "barrier":
                    e.add(ascbuf.BarrierOp(item[1]))
                else:
                    _, p, q, carried = item
                    e.add(ascbuf.WaitFlagOp(p, q, event_id(e, (p, q, carried))))
            e = OpEmitter(InsertPoint.after(acc.op))
            for _, p, q, carried in plan.after.get(i, []):
                e.add(ascbuf.SetFlagOp(p, q, event_id(e, (p, q, carried))))

        pre = OpEmitter(InsertPoint.before(loop))
        post = OpEmitter(InsertPoint.after(loop))
        for (p, q, carried), base in channels.items():
            if not carried:
                continue
            for s in range(self.slots):
                pre.add(ascbuf.SetFlagOp(p, q, pre.index(base + s)))
        drains = []
        for (p, q, carried), base in channels.items():
            if carried:
                drains += [ascbuf.WaitFlagOp(p, q, post.index(base + s)) for s in range(self.slots)]
        for w in drains:
            post.add(w)


@dataclass(frozen=True)
class InsertSyncPass(ModulePass):
    """Place the minimal flags (``sync_style=flags``) or barriers only (``sync_style=queue``)."""

    name = "insert-sync"

    sync_style: str = "queue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sync_style not in ("queue", "flags"):
            raise ValueError(f"insert-sync: sync_style must be 'queue' or 'flags', got '{self.sync_style}'")
        spec = module_target(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and asctile.KERNEL_ATTR in f.attributes:
                _KernelSync(f, self.sync_style == "flags", spec.usable_event_ids).run()
