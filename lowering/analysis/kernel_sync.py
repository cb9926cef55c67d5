"""Which synchronisation an ``ascendc`` kernel needs: a static happens-before analysis of its pipes.

A kernel body (each ``core_section`` of a MIX kernel on its own) is walked into an abstract trace: loops
are unrolled ``UNROLL`` times (fewer when the trip count is known), the two branches of an ``if`` decided at run
time are walked each from the state before it (what one branch orders orders nothing on the other path, nor after
the ``if``, unless both paths order it), and index arithmetic is evaluated as
linear forms over the values it cannot know (run-time sizes, each a non-negative unknown, fresh in every
iteration it is computed in), so a double-buffered ``x_ub[(i % 2) * tile:]`` is a different byte range in
consecutive iterations even when ``tile`` is a run-time value; two accesses overlap unless their ranges
are provably apart. A product of two unknowns is a new unknown.

Each op on a pipe (its ``OnPipe`` trait) accesses local memory (its ``BufferEffects``): a static
``local_tensor`` (its position's memory and byte range), a queue buffer (``alloc_tensor``/``deque``,
one region per slot of the queue) or a ``TBuf``. As in the simulator's hazard checker, every pipe keeps
a vector clock of the ops it knows complete: ``SetFlag`` publishes its pipe's clock, the ``WaitFlag``
that consumes it (the k-th wait of an (event, id) takes the k-th set) joins it, ``PipeBarrier`` orders
its pipe, ``PipeBarrier<PIPE_ALL>`` and a wait on the scalar unit order everything issued after them;
queues are flags on their own keys (``EnQue``/``DeQue``, ``FreeTensor``/``AllocTensor``).

An access that conflicts with an earlier one on another pipe (RAW, WAR, WAW) needs that op known
complete; on V, MTE2, MTE3 and FIX, whose instructions overlap, RAW and WAW need a ``PipeBarrier``.
``analyse`` lists what is missing; ``redundant_syncs`` the user's set/wait pairs and barriers that order
nothing a dependency needs. L0C's unit flags (``UnitFlag.md``) order an Mmad or a Fixpipe that takes them after the
latest op of the other kind that takes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from pyasc.dialects import ascendc as A
from pyasc.dialects.ascendc.attributes import POSITION_MEMORY
from pyasc.dialects.ascendc.contract import unit_flag_of
from pyasc.dialects.target import Pipe
from pyasc.dialects.traits import buffer_reads, buffer_writes, pipe_of
from pyasc.dialects.types import element_bytes

UNROLL = 3  # iterations of a loop walked: enough for a double buffer's slots to meet again
MAX_EVENTS = 20000
IN_PIPE = frozenset({Pipe.V, Pipe.MTE2, Pipe.MTE3, Pipe.FIX})  # instructions overlap: RAW/WAW need a barrier
_REST = 1 << 40  # "to the end of the tensor" when an extent is unknown


@dataclass(frozen=True)
class Need:
    """``consumer`` (on ``dst``) must wait for ``producer`` (on ``src``); ``src == dst``: a PipeBarrier."""

    src: Pipe
    dst: Pipe
    producer: Operation
    consumer: Operation
    kind: str  # RAW, WAR or WAW

    def describe(self) -> str:
        how = (f"a PipeBarrier<PIPE_{self.dst.value}>" if self.src == self.dst
               else f"a SetFlag/WaitFlag<HardEvent::{self.src.value}_{self.dst.value}>")
        return (f"{self.kind} on local memory: {_text(self.consumer)} on {self.dst.value} after "
                f"{_text(self.producer)} on {self.src.value} with nothing ordering them (needs {how})")


def _text(op: Operation) -> str:
    return getattr(op, "API", None) or op.name


class Lin:
    """``const + sum(coeff * unknown)``: an index value; unknowns are non-negative."""

    __slots__ = ("const", "terms")

    def __init__(self, const: int = 0, terms: dict | None = None):
        self.const = const
        self.terms = {k: c for k, c in (terms or {}).items() if c}

    @staticmethod
    def unknown() -> Lin:
        return Lin(0, {object(): 1})

    def known(self) -> int | None:
        return None if self.terms else self.const

    def __add__(self, other: Lin) -> Lin:
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms.get(k, 0) + c
        return Lin(self.const + other.const, terms)

    def scale(self, f: int) -> Lin:
        return Lin(self.const * f, {k: c * f for k, c in self.terms.items()})

    def __sub__(self, other: Lin) -> Lin:
        return self + other.scale(-1)

    def __mul__(self, other: Lin) -> Lin:
        if other.known() is not None:
            return self.scale(other.const)
        if self.known() is not None:
            return other.scale(self.const)
        return Lin.unknown()

    def at_least_zero(self) -> bool:
        return self.const >= 0 and all(c >= 0 for c in self.terms.values())


@dataclass
class _Access:
    op: Operation
    pipe: Pipe
    index: int
    reads: list
    writes: list


@dataclass
class _Walk:
    """The abstract execution of one core's body."""

    skip: frozenset = frozenset()  # ops treated as absent (to test whether they are needed)
    args: dict = field(default_factory=dict)  # kernel argument index -> the scalar it holds, when fixed
    env: dict = field(default_factory=dict)  # SSAValue -> int | region root | None
    known: dict = field(default_factory=lambda: {p: {} for p in Pipe})
    flags: dict = field(default_factory=dict)  # key -> [(clock, set op)]
    queues: dict = field(default_factory=dict)  # queue value -> {"alloc": n, "fifo": [slot]}
    accesses: list = field(default_factory=list)
    needs: dict = field(default_factory=dict)  # (producer, consumer, src, dst) -> Need
    matched: dict = field(default_factory=dict)  # wait op -> set of set ops it consumed
    consumed_by: dict = field(default_factory=dict)  # set op -> set of wait ops that consumed it
    unmatched: set = field(default_factory=set)  # wait ops with no set before them in the trace
    flag_ids: dict = field(default_factory=dict)  # HardEvent -> ids seen
    unit_flags: dict = field(default_factory=dict)  # "ascendc.mmad"/"ascendc.fixpipe" -> clock of the latest with one
    count: int = 0

    # ------------------------------------------------------------------ values
    def val(self, v: SSAValue) -> Lin:
        """The value of an index (or integer) SSA value as a linear form."""
        if v in self.env and isinstance(self.env[v], Lin):
            return self.env[v]
        op = v.owner
        if isinstance(op, arith.ConstantOp):
            data = getattr(getattr(op.value, "value", None), "data", None)
            if isinstance(data, int):
                return Lin(data)
        if isinstance(op, A.GetValueOp) and isinstance(op.source.owner, A.GlobalTensorOp):
            addr = op.source.owner.addr
            if isinstance(addr, BlockArgument) and addr.index in self.args and self.const(op.index) == 0:
                return Lin(self.args[addr.index])  # a scalar argument the kernel was specialised for
        lin = Lin.unknown()
        self.env[v] = lin
        return lin

    def const(self, v: SSAValue) -> int | None:
        return self.val(v).known()

    def _arith(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp):
            self.env.pop(op.result, None)  # val() reads the constant
            return
        if isinstance(op, arith.IndexCastOp):
            self.env[op.result] = self.val(op.input)
            return
        if isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            a, b = self.val(op.lhs), self.val(op.rhs)
            self.env[op.result] = a + b if isinstance(op, arith.AddiOp) else a - b if isinstance(
                op, arith.SubiOp) else a * b
            return
        fn = _ARITH.get(type(op))
        if fn is not None:
            a, b = self.const(op.lhs), self.const(op.rhs)
            r = None if a is None or b is None else fn(a, b)
            self.env[op.result] = Lin.unknown() if r is None else Lin(r)
            return
        for r in op.results:
            self.env[r] = Lin.unknown()  # fresh each time it is computed

    # ------------------------------------------------------------------ regions
    def region(self, v: SSAValue, extent: Lin | None, index: Lin | None = None):
        """(space, lo, hi) in bytes of an access of ``extent`` elements (None: to the end of the tensor) from
        element ``index`` of tensor ``v``; None for GM."""
        offset = index or Lin(0)
        eb = element_bytes(v.type.element_type) if hasattr(v.type, "element_type") else 1
        while isinstance(v.owner, A.SubviewOp):
            offset = offset + self.val(v.owner.offset)
            v = v.owner.source
        root = v.owner
        if isinstance(root, A.LocalTensorOp):
            pos = root.position.data
            space, base, size = POSITION_MEMORY.get(pos, "UB"), root.address.value.data, root.size.value.data * eb
        elif isinstance(self.env.get(v), tuple):
            space, base, size = self.env[v], 0, _REST
        else:
            return None
        lo = Lin(base) + offset.scale(eb)
        hi = Lin(base + size) if extent is None else lo + extent.scale(eb)
        return (space, lo, hi)

    # ------------------------------------------------------------------ sync
    def _clock(self, pipe: Pipe, index: int) -> dict:
        c = dict(self.known[pipe])
        c[pipe] = max(c.get(pipe, -1), index)
        return c

    def _join(self, pipe: Pipe, clock: dict) -> None:
        # the scalar unit blocks in its wait: everything issued after it knows what it learnt
        for q in (Pipe if pipe == Pipe.S else (pipe,)):
            k = self.known[q]
            for p, i in clock.items():
                if i > k.get(p, -1):
                    k[p] = i

    def set_flag(self, key, src: Pipe, op) -> None:
        self.flags.setdefault(key, []).append((self._clock(src, self.count), op))

    def wait_flag(self, key, dst: Pipe, op) -> None:
        pending = self.flags.get(key)
        if not pending:
            if op is not None:
                self.unmatched.add(op)
            return
        clock, setter = pending.pop(0)
        if op is not None and setter is not None:
            self.matched.setdefault(op, set()).add(setter)
            self.consumed_by.setdefault(setter, set()).add(op)
        self._join(dst, clock)

    # ------------------------------------------------------------------ walk
    def block(self, block: Block) -> None:
        for op in block.ops:
            if self.count > MAX_EVENTS:
                return
            self.op(op)

    def op(self, op: Operation) -> None:
        if isinstance(op, scf.ForOp):
            return self._for(op)
        if isinstance(op, scf.IfOp):
            c = self.const(op.cond)
            if c is None:
                return self._both_branches(op)
            if c:
                self.block(op.true_region.block)
            elif op.false_region.blocks:
                self.block(op.false_region.block)
            return
        if isinstance(op, A.CoreSectionOp):
            return
        if op.name.startswith("arith."):
            return self._arith(op)
        self.count += 1
        for r in op.results:  # computed again: a fresh unknown unless a handler below knows it
            self.env.pop(r, None)
        if op in self.skip:
            return
        if isinstance(op, A.SetFlagOp | A.WaitFlagOp):
            eid = self.const(op.event_id)
            ev = op.event.data
            self.flag_ids.setdefault(ev, set()).add(eid)
            key = ("flag", ev, eid)
            if isinstance(op, A.SetFlagOp):
                self.set_flag(key, ev.src, op)
            else:
                self.wait_flag(key, ev.dst, op)
            return
        if isinstance(op, A.PipeBarrierOp) or getattr(op, "ORDERS_ALL_PIPES", False):
            p = op.pipe.data.pipe if isinstance(op, A.PipeBarrierOp) else Pipe.ALL
            if p == Pipe.ALL:
                for q in Pipe:
                    for r in Pipe:
                        self.known[q][r] = self.count
            else:
                self.known[p][p] = self.count
            return
        if isinstance(op, A.AllocTensorOp | A.DeQueOp | A.EnQueOp | A.FreeTensorOp):
            return self._queue(op)
        if isinstance(op, A.TBufGetOp):
            self.env[op.result] = ("tbuf", op.buffer)
            return
        pipe = pipe_of(op)
        if pipe is None or pipe == Pipe.ALL:
            return
        self._access(op, pipe)

    def _both_branches(self, op: scf.IfOp) -> None:
        """An ``if`` whose condition is known only at run time: each branch (an absent ``else`` is an empty one)
        from the state before it, neither seeing the other's accesses or flags; after it, a pipe knows an op
        complete only when it does on both paths, and a flag is pending only as on the path with fewer pending
        sets (a wait after the ``if`` learns nothing a path may not have given it). Queues and L0C's unit flags
        keep the walk's order (the branches one after the other)."""
        known, flags, start = _copy_known(self.known), _copy_flags(self.flags), len(self.accesses)
        self.block(op.true_region.block)
        paths = [(self.known, self.flags, self.accesses[start:])]
        del self.accesses[start:]
        self.known, self.flags = known, flags
        if op.false_region.blocks:
            self.block(op.false_region.block)
        (known_t, flags_t, taken), known_f, flags_f = paths[0], self.known, self.flags
        self.known = {q: {p: min(i, known_f[q][p]) for p, i in known_t[q].items() if p in known_f[q]} for q in Pipe}
        self.flags = {k: min(flags_t.get(k, []), flags_f.get(k, []), key=len) for k in set(flags_t) | set(flags_f)}
        self.accesses[start:start] = taken  # both paths' accesses may meet what comes after the ``if``

    def _for(self, op: scf.ForOp) -> None:
        lb, ub, step = self.const(op.lb), self.const(op.ub), self.const(op.step)
        trips = UNROLL
        if lb is not None and ub is not None and step:
            trips = max(0, min(UNROLL, -(-(ub - lb) // step)))
        iv = op.body.block.args[0]
        for k in range(trips):
            self.env[iv] = Lin.unknown() if lb is None or step is None else Lin(lb + k * step)
            for a in op.body.block.args[1:]:
                self.env[a] = Lin.unknown()
            self.block(op.body.block)
        for r in op.results:
            self.env[r] = Lin.unknown()

    def _queue(self, op) -> None:
        q = self.queues.setdefault(op.queue, {"alloc": 0, "fifo": []})
        depth = op.queue.type.depth.data
        src, dst = op.queue.type.pipes()
        if isinstance(op, A.AllocTensorOp):
            slot = q["alloc"] % max(depth, 1)
            q["alloc"] += 1
            self.env[op.result] = ("que", op.queue, slot)
            if src is not None:
                self.wait_flag(("free", op.queue, slot), src, None)
        elif isinstance(op, A.EnQueOp):
            q["fifo"].append(self.env.get(op.tensor))
            if src is not None:
                self.set_flag(("enque", op.queue), src, None)
        elif isinstance(op, A.DeQueOp):
            self.env[op.result] = q["fifo"].pop(0) if q["fifo"] else None
            if dst is not None:
                self.wait_flag(("enque", op.queue), dst, None)
        else:
            tag = self.env.get(op.tensor)
            if dst is not None and isinstance(tag, tuple):
                self.set_flag(("free", op.queue, tag[2]), dst, None)

    def _access(self, op: Operation, pipe: Pipe) -> None:
        count = getattr(op, "count", None)
        n = self.val(count) if isinstance(count, SSAValue) else None  # elements, or to the end
        if isinstance(op, A.GetValueOp):
            reads = [self.region(op.source, Lin(1), self.val(op.index))]
            writes = []
        elif hasattr(op, "element_extents"):  # the element range of each tensor operand, known to the op
            span = {v: (Lin(lo), Lin(hi - lo)) for v, (lo, hi) in op.element_extents().items()}
            reads = [self.region(v, span[v][1], span[v][0]) for v in buffer_reads(op)]
            writes = [self.region(v, span[v][1], span[v][0]) for v in buffer_writes(op)]
        else:
            reads = [self.region(v, n) for v in buffer_reads(op)]
            writes = [self.region(v, n) for v in buffer_writes(op)]
        acc = _Access(op, pipe, self.count, [r for r in reads if r], [r for r in writes if r])
        if not acc.reads and not acc.writes:
            return
        flag = _unit_flag(op)
        if flag:  # L0C's unit flags order an Mmad after the Fixpipe before it, and a Fixpipe after the Mmad
            other = self.unit_flags.get("ascendc.fixpipe" if op.name == "ascendc.mmad" else "ascendc.mmad")
            if other is not None:
                self._join(pipe, other)
        self._check(acc)
        self.accesses.append(acc)
        if flag:  # (any unit flag: the walk takes both branches of an ``if``, one after the other, where a kernel
            # takes one, as a block's last Mmad (3) or another (2); one that leaves a flag wrong deadlocks, which the
            # simulator reports)
            self.unit_flags[op.name] = self._clock(pipe, self.count)

    def _check(self, c: _Access) -> None:
        latest: dict = {}  # (pipe, kind) -> the latest conflicting access
        for d in reversed(self.accesses):
            if d.pipe == Pipe.S:
                continue  # the scalar unit finishes its reads before it issues anything later
            kind = _conflict(d, c)
            if kind is None:
                continue
            if d.pipe == c.pipe and (c.pipe not in IN_PIPE or kind == "WAR"):
                continue
            latest.setdefault(d.pipe, (d, kind))
        for q, (d, kind) in latest.items():
            if self.known[c.pipe].get(q, -1) < d.index:
                key = (d.op, c.op, q, c.pipe)
                self.needs.setdefault(key, Need(q, c.pipe, d.op, c.op, kind))


def _copy_known(known: dict) -> dict:
    return {q: dict(k) for q, k in known.items()}


def _copy_flags(flags: dict) -> dict:
    return {k: list(v) for k, v in flags.items()}


def _unit_flag(op: Operation) -> int:
    """The ``unitFlag`` of an Mmad or a Fixpipe (``UnitFlag.md``), 0 for any other op."""
    return unit_flag_of(op) if isinstance(op, A.MmadOp | A.FixpipeOp) else 0


def _div(a, b):
    return None if not b else a // b


def _ceildiv(a, b):
    return None if not b else -(-a // b)


def _rem(a, b):
    return None if not b else a % b


_ARITH = {arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b, arith.MuliOp: lambda a, b: a * b,
          arith.DivSIOp: _div, arith.DivUIOp: _div, arith.FloorDivSIOp: _div, arith.CeilDivSIOp: _ceildiv,
          arith.CeilDivUIOp: _ceildiv, arith.RemSIOp: _rem, arith.RemUIOp: _rem,
          arith.MinSIOp: min, arith.MaxSIOp: max, arith.MinUIOp: min, arith.MaxUIOp: max}


def _overlap(r1, r2) -> bool:
    """Same memory and not provably apart (one ends before the other starts)."""
    return r1[0] == r2[0] and not (r2[1] - r1[2]).at_least_zero() and not (r1[1] - r2[2]).at_least_zero()


def _conflict(d: _Access, c: _Access) -> str | None:
    if any(_overlap(w, r) for w in d.writes for r in c.reads):
        return "RAW"
    if any(_overlap(w, x) for w in d.writes for x in c.writes):
        return "WAW"
    if any(_overlap(r, w) for r in d.reads for w in c.writes):
        return "WAR"
    return None


def bodies(kernel) -> list[Block]:
    """The bodies analysed on their own: each core section of a MIX kernel, else the kernel body."""
    blk = kernel.body.block
    sections = [op for op in blk.ops if isinstance(op, A.CoreSectionOp)]
    return [s.body.block for s in sections] or [blk]


def walk(block: Block, skip=frozenset(), args: dict | None = None) -> _Walk:
    """The abstract execution of ``block``; ``args``: kernel argument index -> the integer scalar it holds,
    for a kernel compiled for those values only."""
    w = _Walk(skip=frozenset(skip), args=dict(args or {}))
    w.block(block)
    return w


def analyse(block: Block, skip=frozenset(), args: dict | None = None) -> list[Need]:
    """The dependencies of ``block`` that nothing orders (``skip``: ops taken as absent)."""
    return list(walk(block, skip, args).needs.values())


@dataclass(frozen=True)
class Redundant:
    """A user-written ``SetFlag``/``WaitFlag`` pair or ``PipeBarrier`` that orders no dependency."""

    ops: tuple

    def describe(self) -> str:
        first = self.ops[0]
        if isinstance(first, A.PipeBarrierOp):
            return f"PipeBarrier<{first.pipe.data.value}> orders no dependency: it can be removed"
        return (f"SetFlag/WaitFlag<HardEvent::{first.event.data.value}> orders no dependency: the pair can be "
                f"removed")


def redundant_syncs(block: Block, args: dict | None = None) -> list[Redundant]:
    """The user's set/wait pairs (a set whose every wait is this wait, and back) and single-pipe barriers
    whose removal leaves every dependency ordered. The copies of one source line (an unrolled loop) are
    judged together. Flags that rotate over iterations (a set consumed by several waits, primed before a
    loop or drained after it) are not judged."""
    base = walk(block, args=args)
    missing = set(base.needs)
    groups: dict = {}
    for wait, sets in base.matched.items():
        if wait in base.unmatched or len(sets) != 1:
            continue
        (setter,) = sets
        if base.consumed_by.get(setter) == {wait}:
            groups.setdefault(("pair", _where(setter), _where(wait)), []).append((setter, wait))
    for op in block.walk():
        if isinstance(op, A.PipeBarrierOp) and op.pipe.data.pipe != Pipe.ALL:
            groups.setdefault(("barrier", _where(op)), []).append((op,))
    out = []
    for members in groups.values():
        ops = frozenset(o for m in members for o in m)
        if set(walk(block, skip=ops, args=args).needs) <= missing:
            out.append(Redundant(members[0]))
    return out


def _where(op: Operation):
    loc = op.attributes.get("asc.loc")
    return loc.data if loc is not None else op


def sync_groups(kernel) -> list[list[Operation]]:
    """The kernel's synchronisation as the units a user writes and removes: a WaitFlag with the SetFlag(s)
    it consumes, joined with the copies of the same source lines (an unrolled loop) and, for flags that
    rotate over a loop, the sets primed before it and the waits that drain it; each PipeBarrier on one
    pipe (with its copies) on its own. In program order of their first op."""
    flags = [op for op in kernel.walk() if isinstance(op, A.SetFlagOp | A.WaitFlagOp)]
    parent = {op: op for op in flags}

    def find(op):
        while parent[op] is not op:
            parent[op] = parent[parent[op]]
            op = parent[op]
        return op

    def union(a, b):
        parent[find(a)] = find(b)

    for body in bodies(kernel):
        for wait, sets in walk(body).matched.items():
            for s in sets:
                union(wait, s)
    by_line: dict = {}
    for op in flags:
        key = (type(op), op.event.data, _where(op))
        if key in by_line:
            union(op, by_line[key])
        by_line.setdefault(key, op)
    groups: dict = {}
    for op in flags:
        groups.setdefault(find(op), []).append(op)
    for op in kernel.walk():
        if isinstance(op, A.PipeBarrierOp) and op.pipe.data.pipe != Pipe.ALL:
            groups.setdefault(("barrier", op.pipe.data, _where(op)), []).append(op)
    return list(groups.values())


def used_flag_ids(block: Block, args: dict | None = None) -> dict:
    """Per HardEvent, the event ids the kernel's own flags use (None: an id it could not evaluate)."""
    return walk(block, args=args).flag_ids
