"""``insert-sync``: the flags and barriers a kernel's tile loop needs, and no more.

Each buffer op runs on one pipe and reads/writes buffers (``ascbuf.slot`` copies of a
multi-slot buffer only conflict with the same buffer; one-slot buffers conflict where their
planned byte ranges overlap). For every dependency (RAW, WAR or WAW):

* on two pipes, a ``set_flag`` right after the latest producer on the source pipe and a
  ``wait_flag`` right before the consumer, unless an earlier flag pair already orders them;
* on one pipe, a ``barrier`` before the consumer for RAW and WAW (instructions in one queue
  issue in order but overlap), unless one already separates them.

The loop-invariant prologue (computed once before the loop) gets the barriers of its own in-pipe
RAW and WAW dependencies.

Dependencies from iteration ``i`` to a later one (write-after-read of a rotating slot) get a
flag whose set is primed before the loop and whose wait is drained after it. Flags inside the
loop use the event id ``i mod buffers`` (plus ``buffers`` for a second channel on the same pipe
pair), so a producer running ``buffers - 1`` tiles ahead never sets a flag that is still set. A dependency
whose pipe pair has no event id left is ordered by a ``PipeBarrier<PIPE_ALL>`` before its consumer.
With ``sync_style=queue`` only barriers and the flags of the scalar unit are placed: TQue's
EnQue/DeQue carry the rest. The scalar unit reading UB (an op's ``BufferEffects.scalar_reads``,
e.g. a row value for a per-row op) waits for the vector pipe that wrote it (V -> S); it needs no
flag the other way, since it finishes its reads before it issues later work.

Pipes and accesses come from the ops' traits through ``pyasc.dialects.ascbuf.analysis``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyasc.dialects import ascbuf, asctile
from pyasc.dialects.ascbuf.analysis import accesses, buffer_of, pipe_of, scalar_reads
from pyasc.dialects.asctile.analysis import core_parts, is_mix_kernel, is_vector_kernel
from pyasc.dialects.asctile.mix import CoreKind
from pyasc.dialects.target import Pipe, module_target
from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from .emitter import OpEmitter
from .errors import CompileError


class SyncError(CompileError):
    """A kernel needs more event ids than the target provides."""


def _region(v: SSAValue, staged: set):
    """("slots", alloc) for a rotating buffer, else ("range", start, end, staged): ``staged`` marks a
    buffer filled from or drained to GM (a queue's buffer in the TPipe style)."""
    a = buffer_of(v)
    if a.slots.value.data > 1:
        return ("slots", a)
    start = a.offset.value.data if a.offset is not None else id(a)
    return ("range", start, start + a.slot_bytes, a in staged)


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
class _Edge:
    """A set_flag after op ``set_at`` on ``src`` and a wait_flag before op ``wait_at`` on ``dst``;
    ``carried``: the wait is in a later iteration (primed before the loop, drained after it)."""

    src: Pipe
    dst: Pipe
    set_at: int
    wait_at: int
    carried: bool
    channel: int = 0


@dataclass
class _Plan:
    edges: list[_Edge] = field(default_factory=list)
    barriers: list[tuple[int, Pipe]] = field(default_factory=list)  # (before op index, pipe)


def _dependencies(d: _Access, c: _Access) -> tuple[bool, bool, bool]:
    """For ``d`` before ``c``: (any dependency, RAW or WAW, only through staged buffers). The scalar unit
    finishes its reads before it issues anything later, so a read on S orders itself."""
    dep = ordered = False
    slotted = True
    for w in d.writes:
        for x in (*c.reads, *c.writes):
            if _conflict(w, x):
                dep = ordered = True
                slotted = slotted and (w[0] == "slots" or w[3])
    if d.pipe != Pipe.S:
        for r in d.reads:
            for w in c.writes:
                if _conflict(r, w):
                    dep = True
                    slotted = slotted and (r[0] == "slots" or r[3])
    return dep, ordered, slotted


def plan_sync(ops: list[_Access], flags: bool, slots: int) -> _Plan:
    plan = _Plan()
    # per op c, the ops d it depends on, in order: (d, RAW or WAW, only through staged buffers); found once
    # for the four visits (most pairs of ops share no buffer)
    depends = [[(di, ordered, slotted) for di, d in enumerate(ops)
                for dep, ordered, slotted in (_dependencies(d, c),) if dep] for c in ops]

    def place_flag(src: Pipe, dst: Pipe, d: int, c: int, carried: bool, slotted: bool = False) -> None:
        """Order op ``d`` on ``src`` before op ``c`` on ``dst`` (``c`` in a later iteration if carried;
        ``slotted``: only through rotating slots, so ``c`` is ``slots`` iterations later)."""
        if carried and slotted and slots > 1 and any(e.src == src and e.dst == Pipe.S for e in plan.edges):
            return  # in an iteration between, the scalar unit waits for ``src`` before issuing ``c``
        same = [e for e in plan.edges if (e.src, e.dst) == (src, dst) and not e.carried]
        if any(e.set_at >= d and (carried or e.wait_at <= c) for e in same):
            return  # a wait in iteration i also orders everything later on ``dst``
        if any(e.src == src and e.dst == Pipe.S and not e.carried and e.set_at >= d and (carried or e.wait_at <= c)
               for e in plan.edges):
            return  # the scalar unit waited for ``src`` past ``d`` before it issued ``c``
        if carried:
            for e in plan.edges:
                if (e.src, e.dst) == (src, dst) and e.carried:  # one carried flag per pipe pair
                    e.set_at, e.wait_at = max(e.set_at, d), min(e.wait_at, c)
                    return
            plan.edges.append(_Edge(src, dst, d, c, True))
            return
        for e in same:  # move an earlier flag's set down to ``d`` if it still precedes its wait
            if e.wait_at <= c and d < e.wait_at:
                e.set_at = max(e.set_at, d)
                return
        plan.edges.append(_Edge(src, dst, d, c, False, channel=len(same)))

    def covered_barrier(pipe, d: int, c: int, carried: bool) -> bool:
        for pos, p in plan.barriers:
            if p == pipe and ((d < pos <= c) if not carried else (pos > d or pos <= c)):
                return True
        # the scalar unit waited for ``pipe`` to finish ``d`` before it issued ``c``
        return any(e.src == pipe and e.dst == Pipe.S and e.set_at >= d and (carried or e.wait_at <= c)
                   for e in plan.edges)

    def round_trip(pipe) -> bool:
        """Every iteration, ``pipe`` waits for another pipe that waited for ``pipe``: a slot reused
        ``slots >= 2`` iterations later is then ordered after its previous use. (With queues,
        AllocTensor waiting for FreeTensor is that round trip; the scalar unit waiting for the other
        pipe closes it too, since it issues the next use.)"""
        return any(e.src == pipe and any(f.src == e.dst and f.dst in (pipe, Pipe.S) and f.set_at >= e.wait_at
                                         for f in plan.edges) for e in plan.edges)

    def rewritten_before(ci: int, c: _Access) -> bool:
        """Every region ``c`` reads was written again earlier in its own iteration (so nothing from
        the previous iteration reaches it) and ``c`` writes nothing."""
        return not c.writes and all(any(r in ops[j].writes for j in range(ci)) for r in c.reads)

    def visit(carried: bool, cross: bool) -> None:
        for ci, c in enumerate(ops):
            need: dict[Pipe, int] = {}
            if carried and rewritten_before(ci, c):
                continue
            for di, ordered_in_pipe, slotted in depends[ci]:
                if di >= ci and not carried:
                    break
                d = ops[di]
                if (d.pipe == c.pipe) == cross or (d.pipe == c.pipe == Pipe.S):
                    continue  # the scalar unit is ordered by hardware
                if not cross:
                    if not ordered_in_pipe or covered_barrier(c.pipe, di, ci, carried):
                        continue
                    if carried and slotted and (not flags or round_trip(c.pipe)):
                        continue
                    plan.barriers.append((ci, c.pipe))
                elif flags or Pipe.S in (d.pipe, c.pipe):  # queues do not order the scalar unit
                    prev = need.get(d.pipe, (-1, True))
                    need[d.pipe] = (max(prev[0], di), prev[1] and slotted)
            for p, (di, all_slotted) in need.items():
                place_flag(p, c.pipe, di, ci, carried, all_slotted)

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
        staged = {buffer_of(v) for op in body.ops if isinstance(op, ascbuf.CopyInOp | ascbuf.CopyOutOp)
                  for v in (op.dest if isinstance(op, ascbuf.CopyInOp) else op.source,)}
        for op in body.ops:
            acc = accesses(op)
            if acc is None:
                continue
            if scalar_reads(op):  # the scalar unit reads UB first (GetValue), then issues vector work
                ops.append(_Access(op, Pipe.S, [_region(v, staged) for v in scalar_reads(op)], []))
            ops.append(_Access(op, pipe_of(op), [_region(v, staged) for v in acc[0]],
                               [_region(v, staged) for v in acc[1]]))
        plan = plan_sync(ops, self.flags, self.slots)
        self._drop_covered_prologue_barriers(loop, ops, plan)
        _order_prologue(self.kernel.body.block, loop)
        bases: dict[tuple, int] = {}  # (src, dst, carried, channel) -> first event id
        for e in plan.edges:
            key = (e.src, e.dst, e.carried, e.channel)
            if e.dst == Pipe.S:  # the scalar unit itself waits: it cannot set the next one early
                continue
            if key not in bases:
                base = sum(1 for k in bases if k[:2] == (e.src, e.dst) and bases[k] >= 0) * self.slots
                # past the pipe pair's event ids, the wait becomes a PipeBarrier<PIPE_ALL> (which orders
                # everything issued before it, in this iteration and earlier ones)
                bases[key] = base if base + self.slots <= self.usable_ids else -1
        barrier_all = [e for e in plan.edges if e.dst != Pipe.S and bases[(e.src, e.dst, e.carried, e.channel)] < 0]
        plan.edges = [e for e in plan.edges if e not in barrier_all]
        for pos in sorted({e.wait_at for e in barrier_all}):
            plan.barriers.append((pos, Pipe.ALL))

        head = OpEmitter(InsertPoint.at_start(body))
        ids: dict = {}

        def event_id(e: _Edge) -> SSAValue:
            if e.dst == Pipe.S:  # id 0 within an iteration, id 1 for a carried one
                return head.index(int(e.carried))
            base = bases[(e.src, e.dst, e.carried, e.channel)]
            if base not in ids:
                if "slot" not in ids:
                    ids["slot"] = head.remui(body.args[0], self.slots)
                ids[base] = head.addi(ids["slot"], base)
            return ids[base]

        for i, acc in enumerate(ops):
            before = OpEmitter(InsertPoint.before(acc.op))
            for e in plan.edges:
                if e.wait_at == i:
                    before.add(ascbuf.WaitFlagOp(e.src, e.dst, event_id(e)))
            for pos, pipe in plan.barriers:
                if pos == i:
                    before.add(ascbuf.BarrierOp(pipe))
            after = OpEmitter(InsertPoint.after(acc.op))
            for e in plan.edges:
                if e.set_at == i:
                    after.add(ascbuf.SetFlagOp(e.src, e.dst, event_id(e)))

        pre = OpEmitter(InsertPoint.before(loop))
        post = OpEmitter(InsertPoint.after(loop))
        carried = [e for e in plan.edges if e.carried]

        def primed_ids(e: _Edge) -> list[int]:
            if e.dst == Pipe.S:
                return [1]
            base = bases[(e.src, e.dst, True, e.channel)]
            return [base + s for s in range(self.slots)]

        block = self.kernel.body.block
        prologue = list(block.ops)[:block.get_operation_index(loop)]
        for e in carried:
            # the first slot is primed after the prologue (its set orders the prologue's work on e.src before
            # the first wait); the waits of later slots follow that one on the in-order e.dst pipe, so their
            # sets go before the prologue's first op on e.src
            for k, i in enumerate(primed_ids(e)):
                first = next((o for o in prologue if pipe_of(o) == e.src), None) if k else None
                at = pre if first is None else OpEmitter(InsertPoint.before(first))
                at.add(ascbuf.SetFlagOp(e.src, e.dst, at.index(i)))
        for e in carried:
            for i in primed_ids(e):
                post.add(ascbuf.WaitFlagOp(e.src, e.dst, post.index(i)))


    def _drop_covered_prologue_barriers(self, loop, ops: list[_Access], plan: _Plan) -> None:
        """Drop the barriers bufferize put after the loop-invariant prologue when the loop already orders
        the first use: an MTE2 -> V wait (flags) before the first vector read of a loaded buffer, or a
        vector barrier / V -> S wait before the first read of a buffer computed in the prologue."""
        block = self.kernel.body.block
        end = block.get_operation_index(loop)
        pre = [op for op in block.ops if op is not loop and block.get_operation_index(op) < end]
        loaded = {buffer_of(o.dest) for o in pre if isinstance(o, ascbuf.CopyInOp)}
        computed = {buffer_of(v) for o in pre if pipe_of(o) == Pipe.V and accesses(o) is not None
                    for v in accesses(o)[1]}
        for bar in [o for o in pre if isinstance(o, ascbuf.BarrierOp)]:
            if bar.pipe.data == Pipe.ALL and self.flags and not any(pipe_of(o) == Pipe.V for o in pre):
                first = _first_reader(ops, loaded, Pipe.V)
                if first is None or any(e.src == Pipe.MTE2 and e.dst == Pipe.V and not e.carried and e.wait_at <= first
                                        for e in plan.edges):
                    bar.detach()
                    bar.erase()
            elif bar.pipe.data == Pipe.V:
                first = _first_reader(ops, computed, Pipe.V)
                if first is None or any(p == Pipe.V and pos <= first for pos, p in plan.barriers) or any(
                        e.src == Pipe.V and e.dst == Pipe.S and not e.carried and e.wait_at <= first
                        for e in plan.edges) or (self.flags and _primed_round_trip(plan, first)):
                    bar.detach()
                    bar.erase()


def _order_prologue(block, loop) -> None:
    """A barrier before each op of the loop-invariant prologue that reads or rewrites what an earlier
    op on its pipe wrote, unless a barrier of that pipe (or of all pipes) already separates them; a
    V -> S flag before the scalar unit reads what the vector pipe wrote (a row value of a row prologue)."""
    done: list[_Access] = []
    for op in list(block.ops):
        if op is loop:
            return
        if isinstance(op, ascbuf.BarrierOp):
            if op.pipe.data == Pipe.ALL:
                done = []
            else:
                done = [d for d in done if d.pipe != op.pipe.data]
            continue
        acc = accesses(op)
        if acc is None:
            continue
        reads = [_region(v, set()) for v in scalar_reads(op)]
        if reads and any(d.pipe == Pipe.V and _dependencies(d, _Access(op, Pipe.S, reads, []))[1] for d in done):
            at = OpEmitter(InsertPoint.before(op))
            at.add(ascbuf.SetFlagOp(Pipe.V, Pipe.S, at.index(0)))
            at.add(ascbuf.WaitFlagOp(Pipe.V, Pipe.S, at.index(0)))
            done = [d for d in done if d.pipe != Pipe.V]
        c = _Access(op, pipe_of(op), [_region(v, set()) for v in acc[0]], [_region(v, set()) for v in acc[1]])
        if c.pipe != Pipe.S and any(d.pipe == c.pipe and _dependencies(d, c)[1] for d in done):
            OpEmitter(InsertPoint.before(op)).add(ascbuf.BarrierOp(c.pipe))
            done = [d for d in done if d.pipe != c.pipe]
        done.append(c)


def _first_reader(ops: list[_Access], buffers: set, pipe: Pipe) -> int | None:
    for i, acc in enumerate(ops):
        if acc.pipe == pipe and any(buffer_of(v) in buffers for v in accesses(acc.op)[0]):
            return i
    return None


def _primed_round_trip(plan: _Plan, first: int) -> bool:
    """A carried V -> X flag (primed before the loop, so set after the prologue's vector work) that X
    waits for in the first iteration before it sets an X -> V flag that V waits for before op ``first``:
    the prologue's vector work completes before ``first`` starts."""
    return any(p.src == Pipe.V and p.carried and q.src == p.dst and q.dst == Pipe.V and not q.carried
               and q.wait_at <= first and p.wait_at <= q.set_at for p in plan.edges for q in plan.edges)



@dataclass(frozen=True)
class InsertSyncPass(ModulePass):
    """Place the minimal flags (``sync_style=flags``) or barriers only (``sync_style=queue``)."""

    name = "insert-sync"
    INPUT_LEVEL = "ascbuf-planned"

    sync_style: str = "queue"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.sync_style not in ("queue", "flags"):
            raise ValueError(f"insert-sync: sync_style must be 'queue' or 'flags', got '{self.sync_style}'")
        spec = module_target(op)
        for f in op.ops:
            if isinstance(f, func.FuncOp) and is_mix_kernel(f):  # the AIC part: synchronised by bufferize-cube
                with core_parts(f) as parts:
                    _KernelSync(parts[CoreKind.AIV], self.sync_style == "flags", spec.usable_event_ids).run()
            elif isinstance(f, func.FuncOp) and is_vector_kernel(f):  # cube kernels: synchronised by bufferize-cube
                _KernelSync(f, self.sync_style == "flags", spec.usable_event_ids).run()
