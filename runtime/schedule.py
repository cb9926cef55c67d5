"""The timing model and the happens-before hazard analysis of one core's trace.

Timing. The scalar unit issues every op at its recorded ``issue`` cycle (plus any stall the scalar itself
suffered in a ``WaitFlag<*_S>`` or ``PipeBarrier<PIPE_ALL>``) into the in-order queue of its pipe. Pipes
run concurrently. Inside one pipe instructions issue in order but *overlap*: an op of cost ``c`` occupies
its pipe for ``c - latency(pipe)`` cycles (at least one) and completes ``c`` cycles after its start, so the
next op of the same pipe can start before it has finished (``latency`` is the fixed, pipelined part of the
cost: the vector instruction overhead, the DMA fixed cost). ``PipeBarrier`` waits until every earlier op
of its pipe has completed; ``SetFlag`` fires once every earlier op of its pipe has completed and does not
block the pipe; ``WaitFlag`` blocks its pipe until the matching (event, id) has been set and clears it:
the k-th wait on a key consumes the k-th set, which may come later in program order. The queues are
advanced until no pipe can make progress: if work remains, the core is deadlocked.

Hazards. Alongside the timing, each pipe carries a vector clock: for every pipe ``q``, how many of
``q``'s ops are *known complete* before the pipe's next op starts. Knowledge flows only through
synchronisation: a ``SetFlag`` publishes its pipe's clock (with all of its own pipe's earlier ops
complete), the ``WaitFlag`` that consumes it joins that clock, ``PipeBarrier`` makes its pipe's earlier ops
known complete, the scalar unit is in order and blocking (ops issued after a scalar wait or a
``PipeBarrier<PIPE_ALL>`` know what it knew). Queues (EnQue/DeQue/AllocTensor/FreeTensor) are flags on
synthetic keys. Every access of a local memory (UB, and the cube's L1, L0A, L0B and L0C, placed one after
another in one address space by ``costs.local_layout``) is checked against the latest conflicting access
of every pipe (kept per 32 B block): if that op is not known complete, the two are unordered: a race
(RAW, WAR, WAW between pipes; RAW and WAW inside an overlapping pipe, where Ascend C needs
``PipeBarrier``). The analysis does
not depend on the simulated cycles, so a race is found even when the timing happens to be harmless.

Cross-core flags (MIX kernels, keys from ``CROSS_KEY_BASE``) join this core to the other cores of its AI
Core: the sets this core issues are collected in ``CoreTiming.cross_sets`` instead of being matched here,
and its waits consume the sets given in ``external`` (their times on the other cores); ``mix_schedule``
iterates the cores of an AI Core to the joint schedule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pyasc.dialects.target import DEFAULT_TARGET, get_target

from .costs import NPIPES, PIPE_INDEX, PIPE_NAMES, local_layout
from .errors import Finding, SimulationError
from .initcheck import initcheck as check_init
from .opinfo import BARRIER_ALL, CROSS_KEY_BASE, EVENTS, SET, WAIT, WORK, OpInfo
from .queues import QUEUE_KEY_BASE, describe_key
from .unit_flags import UnitFlags, unit_flag_facts


def is_cross_key(key: int) -> bool:
    return CROSS_KEY_BASE <= key < QUEUE_KEY_BASE

_KINDS = {(True, False): "RAW", (False, True): "WAR", (True, True): "WAW"}
DEFAULT_LAYOUT = local_layout(get_target(DEFAULT_TARGET))[:1]  # UB alone, of the default chip

# pipes whose consecutive instructions may overlap so that a RAW/WAW inside the pipe needs PipeBarrier;
# the scalar unit is in order, Mmad accumulation into L0C is ordered by the cube itself, and MTE1 only
# reads L1 and writes L0A/L0B (no RAW inside the pipe; the destination of a LoadData with a dstGap is
# recorded as the span of its interleaved fractals, which overlaps its neighbours' spans)
_INPIPE = frozenset(PIPE_INDEX[p] for p in ("V", "MTE2", "MTE3", "FIX"))


@dataclass
class CoreTiming:
    """The schedule of one core: per record its start and end cycle, per pipe its busy cycles."""

    records: list[tuple]
    start: list[float]
    end: list[float]
    cycles: float
    busy: list[float]
    gm_bytes: int
    findings: list[Finding] = field(default_factory=list)
    infos: list[OpInfo] | None = None
    cross_sets: dict[int, list[float]] = field(default_factory=dict)  # cross-core key -> fire times
    cross_waits: dict[int, list[float]] = field(default_factory=dict)  # cross-core key -> pass times

    def timeline(self) -> dict[str, list[tuple[float, float, str]]]:
        """Per pipe name, the (start, end, op name) of every op that ran on it, in order."""
        out: dict[str, list[tuple[float, float, str]]] = {}
        infos = self.infos or []
        for i, r in enumerate(self.records):
            info = infos[r[0]]
            out.setdefault(PIPE_NAMES[info.pipe], []).append((self.start[i], self.end[i], info.label or info.name))
        return out


def key_name(key: int) -> str:
    if is_cross_key(key):
        return f"cross-core flag {key - CROSS_KEY_BASE}"
    if key >= QUEUE_KEY_BASE:
        q, slot, what = describe_key(key)
        return f"queue #{q} buffer {slot} ({what})"
    return f"{EVENTS[key // 8].value} id {key % 8}"


class KernelTables:
    """Per-kernel lookup lists indexed by ``sid`` (built once per translated kernel)."""

    def __init__(self, infos: list[OpInfo], latency: list[float] | None = None):
        self.infos = infos
        self.pipe = [i.pipe if i.pipe is not None else 0 for i in infos]
        self.kind = [i.kind for i in infos]
        self.writes = [i.writes for i in infos]
        self.gm = [i.gm for i in infos]
        self.latency = list(latency) if latency is not None else [0.0] * NPIPES
        self.unit = unit_flag_facts(infos)  # Mmads and Fixpipes with a unitFlag (``unit_flags``)
        self.any_unit = any(u is not None for u in self.unit)
        self.initcheck_facts = None  # what the initcheck derives from the infos, on its first use
        self.gm_access = None  # per sid, the GM arguments it reads and writes (``mix_schedule``), on first use


def schedule(recs: list[tuple], tabs: KernelTables, core: int, check: bool = True,
             layout: tuple = DEFAULT_LAYOUT, limit: int = 20,
             external: dict[int, list[float]] | None = None, initcheck: bool = False) -> CoreTiming:
    """Schedule the trace ``recs`` of one core and (``check``) find its races.

    ``layout`` places the local memories (UB, L1, L0A, L0B, L0C) in the race check's address space
    (``costs.local_layout``); the trace records their accesses at those addresses.

    ``external`` gives the fire times of the cross-core sets this core's waits consume; ``initcheck``:
    also report reads of never-written local memory (``initcheck``).
    Raises ``SimulationError`` on deadlock. Double sets, unconsumed sets and races are findings.
    """
    pipe_of, kind_of, lat = tabs.pipe, tabs.kind, tabs.latency
    n = len(recs)
    qs: list[list[int]] = [[] for _ in range(NPIPES)]
    seg = [0] * n
    num = [0] * n
    c = 0
    for i, r in enumerate(recs):
        p = pipe_of[r[0]]
        seg[i] = c
        q = qs[p]
        q.append(i)
        num[i] = len(q)
        if p == 0:
            c += 1
    start = [0.0] * n
    end = [0.0] * n
    stall = [0.0]  # stall[k]: the scalar's accumulated delay once k scalar-pipe ops have resolved
    skn = [[0] * NPIPES]  # skn[k]: the scalar's knowledge once k scalar-pipe ops have resolved
    heads = [0] * NPIPES
    free = [0.0] * NPIPES  # earliest start of the pipe's next op
    done = [0.0] * NPIPES  # completion of everything the pipe has started
    busy = [0.0] * NPIPES
    kn = [[0] * NPIPES for _ in range(NPIPES)]  # per pipe: ops of each pipe known complete
    kseg = [0] * NPIPES
    sets: dict[int, list[float]] = {}
    setclk: dict[int, list[tuple[list[int], int]]] = {}  # key -> (clock, record) per set
    waits: dict[int, list[float]] = {}
    waitat: dict[int, list[tuple[int, int]]] = {}  # key -> (pipe, op number) per consumed wait
    cross_sets: dict[int, list[float]] = {}
    for key, times in (external or {}).items():  # other cores' sets: no knowledge of this core's pipes
        sets[key] = list(times)
        setclk[key] = [([0] * NPIPES, -1)] * len(times)
    race = _RaceCheck(recs, tabs, qs, num, start, end, core, layout, limit) if check else None
    unit = tabs.unit if tabs.any_unit else None
    flags = UnitFlags(layout) if unit else None
    active = [p for p in range(1, NPIPES) if qs[p]]
    sq = qs[0]
    while True:
        progress = False
        nres = len(stall)
        for p in active:
            q = qs[p]
            h = h0 = heads[p]
            m = len(q)
            f = free[p]
            d = done[p]
            k_p = kn[p]
            lp = lat[p]
            while h < m:
                i = q[h]
                sg = seg[i]
                if sg >= nres:
                    break
                r = recs[i]
                t = r[1] + stall[sg]
                if t < f:
                    t = f
                if sg != kseg[p]:
                    sk = skn[sg]
                    for j in range(NPIPES):
                        if sk[j] > k_p[j]:
                            k_p[j] = sk[j]
                    kseg[p] = sg
                k = kind_of[r[0]]
                if k == WORK:
                    cost = r[2]
                    u = unit[r[0]] if unit else None
                    if u is not None:  # an Mmad or a Fixpipe waiting for L0C's unit flags
                        got = flags.ready(i, r, u, k_p)
                        if got is None:
                            break
                        if got[0] > t:
                            t = got[0]
                    start[i] = t
                    e = t + cost
                    occ = cost - lp
                    if occ < 1.0:
                        occ = cost if cost < 1.0 else 1.0
                    f = t + occ
                    if u is not None:
                        if got[1] > e:  # still streaming behind the op it follows block by block
                            f += got[1] - e
                            e = got[1]
                        clock = list(k_p)
                        clock[p] = num[i]
                        flags.done(i, r, u, t, e, clock)
                    end[i] = e
                    busy[p] += occ
                    if e > d:
                        d = e
                    if race is not None and len(r) > 4:
                        race.access(i, p, k_p)
                elif k == WAIT:
                    key = r[3]
                    if key >= 0:
                        wl = waits.get(key)
                        sl = sets.get(key)
                        ci = len(wl) if wl is not None else 0
                        if sl is None or len(sl) <= ci:
                            break
                        st = sl[ci]
                        if st > t:
                            t = st
                        if wl is None:
                            waits[key] = [t]
                            waitat[key] = [(p, num[i])]
                        else:
                            wl.append(t)
                            waitat[key].append((p, num[i]))
                        clk = setclk[key][ci][0]
                        for j in range(NPIPES):
                            if clk[j] > k_p[j]:
                                k_p[j] = clk[j]
                    start[i] = end[i] = f = t
                elif k == SET:
                    if d > t:
                        t = d
                    key = r[3]
                    if key >= CROSS_KEY_BASE and key < QUEUE_KEY_BASE:
                        cross_sets.setdefault(key, []).append(t)
                        start[i] = end[i] = t
                        h += 1
                        continue
                    sl = sets.get(key)
                    clk = list(k_p)
                    clk[p] = num[i]
                    if sl is None:
                        sets[key] = [t]
                        setclk[key] = [(clk, i)]
                    else:
                        sl.append(t)
                        setclk[key].append((clk, i))
                    start[i] = end[i] = t
                else:  # PipeBarrier on this pipe
                    if d > t:
                        t = d
                    k_p[p] = num[i]
                    start[i] = end[i] = f = t
                h += 1
            if h != h0:
                heads[p] = h
                free[p] = f
                done[p] = d
                progress = True
        # the scalar pipe: in program order, may stall the issue of everything after it
        h = heads[0]
        ks = kn[0]
        while h < len(sq):
            i = sq[h]
            r = recs[i]
            t = r[1] + stall[-1]
            k = kind_of[r[0]]
            extra = 0.0
            if k == WAIT:
                key = r[3]
                wl = waits.get(key)
                sl = sets.get(key)
                ci = len(wl) if wl is not None else 0
                if sl is None or len(sl) <= ci:
                    break
                st = sl[ci]
                if st > t:
                    extra = st - t
                    t = st
                waits.setdefault(key, []).append(t)
                waitat.setdefault(key, []).append((0, num[i]))
                clk = setclk[key][ci][0]
                for j in range(NPIPES):
                    if clk[j] > ks[j]:
                        ks[j] = clk[j]
                start[i] = end[i] = t
            elif k == BARRIER_ALL:
                blocked = False
                tt = t
                for p in active:
                    hp = heads[p]
                    if hp < len(qs[p]) and qs[p][hp] < i:
                        blocked = True
                        break
                    if done[p] > tt:
                        tt = done[p]
                    if free[p] > tt:
                        tt = free[p]
                    if hp > ks[p]:
                        ks[p] = hp
                if blocked:
                    break
                extra = tt - t
                start[i] = t
                end[i] = tt
            elif k == SET:
                clk = list(ks)
                clk[0] = num[i]
                sets.setdefault(r[3], []).append(t)
                setclk.setdefault(r[3], []).append((clk, i))
                start[i] = end[i] = t
            elif k == WORK:
                start[i] = t
                end[i] = t + r[2]
                busy[0] += r[2]
                if race is not None and len(r) > 4:
                    race.access(i, 0, ks)
            else:
                start[i] = end[i] = t
            ks[0] = num[i]
            stall.append(stall[-1] + extra)
            skn.append(list(ks))
            h += 1
            progress = True
        heads[0] = h
        if all(heads[p] == len(qs[p]) for p in range(NPIPES)):
            break
        if not progress:
            _deadlock(recs, qs, heads, tabs, core, sets, waits, flags)

    gm = 0
    gm_of = tabs.gm
    last = 0.0
    for i, r in enumerate(recs):
        sid = r[0]
        if gm_of[sid] and kind_of[sid] == WORK:
            gm += r[3]
        if end[i] > last:
            last = end[i]
    findings = race.items() if race is not None else []
    local = {k: v for k, v in setclk.items() if not is_cross_key(k)}
    findings += _check_sets(recs, local, waitat, tabs, core)
    for key, sl in sets.items():
        if key < CROSS_KEY_BASE and len(sl) > len(waits.get(key, ())):
            i = setclk[key][len(waits.get(key, ()))][1]
            info = tabs.infos[recs[i][0]]
            findings.append(Finding("unpaired-flag", f"{info.where()} is never waited for: {key_name(key)} stays "
                                    "set when the kernel ends and leaks into the next operator",
                                    info.kernel, info.text, core, loc=info.loc))
    if flags is not None:
        findings += _unit_flags_left(flags, recs, tabs, core)
    if initcheck:
        findings += check_init(recs, tabs, core, layout)
    cross_waits = {k: v for k, v in waits.items() if is_cross_key(k)}
    return CoreTiming(recs, start, end, last, busy, gm, findings, tabs.infos, cross_sets, cross_waits)


class _RaceCheck:
    """Per 32 B block of the local memories and pipe, the number of the latest op of that pipe that
    read / wrote it."""

    def __init__(self, recs, tabs: KernelTables, qs, num, start, end, core: int, layout: tuple, limit: int):
        name, base, size = layout[-1]
        self.nblk = (base + size + 31) // 32
        self.layout = layout
        # rows: 2 * (the pipe's place among the pipes the trace uses) + (0 = read, 1 = write); value: op
        # number on that pipe (1-based; 0 = none)
        self.pipes = [q for q in range(NPIPES) if qs[q]]
        self.row = {q: 2 * k for k, q in enumerate(self.pipes)}
        self.last = np.zeros((2 * len(self.pipes), self.nblk), np.int32)
        self.recs, self.tabs, self.qs, self.num = recs, tabs, qs, num
        self.start, self.end, self.core, self.limit = start, end, core, limit
        self.found: dict[tuple[int, int], Finding] = {}

    def items(self) -> list[Finding]:
        return list(self.found.values())

    def access(self, i: int, p: int, known: list[int]) -> None:
        r = self.recs[i]
        w = self.tabs.writes[r[0]]
        last, nblk = self.last, self.nblk
        inpipe = p in _INPIPE
        regs = []
        for j, is_w in enumerate(w):
            a, nb = r[4 + 2 * j], r[5 + 2 * j]
            if nb <= 0:
                continue
            lo, hi = a >> 5, min((a + nb + 31) >> 5, nblk)
            if lo >= hi:
                continue
            regs.append((lo, hi, is_w))
            m = (last[:, lo] if hi - lo == 1 else last[:, lo:hi].max(axis=1)).tolist()
            for k, q in enumerate(self.pipes):
                kq = known[q]
                mw = m[2 * k + 1]
                if mw > kq and (q != p or inpipe):
                    self._report(i, j, q, mw, True)
                if is_w and q != p:
                    mr = m[2 * k]
                    if mr > kq:
                        self._report(i, j, q, mr, False)
        nm, row = self.num[i], self.row[p]
        for lo, hi, is_w in regs:
            last[row + (1 if is_w else 0), lo:hi] = nm

    def _report(self, i: int, j: int, q: int, number: int, earlier_writes: bool) -> None:
        if len(self.found) >= self.limit:
            return
        recs, tabs = self.recs, self.tabs
        k = self.qs[q][number - 1]
        r, rk = recs[i], recs[k]
        key = (rk[0], r[0])
        if key in self.found:
            return
        is_w = tabs.writes[r[0]][j]
        a, nb = r[4 + 2 * j], r[5 + 2 * j]
        lo, hi = a, a + nb
        for jj, w2 in enumerate(tabs.writes[rk[0]]):  # the overlapping region of the earlier op
            if w2 != earlier_writes:
                continue
            a2, nb2 = rk[4 + 2 * jj], rk[5 + 2 * jj]
            if a2 < a + nb and a < a2 + nb2:
                lo, hi = max(a, a2), min(a + nb, a2 + nb2)
                break
        first, second = tabs.infos[rk[0]], tabs.infos[r[0]]
        kind = _KINDS[(earlier_writes, is_w)] if (earlier_writes, is_w) in _KINDS else "RAW"
        p = tabs.pipe[r[0]]
        if p == q:
            why = (f"both on pipe {PIPE_NAMES[p]}, whose instructions overlap: a PipeBarrier<PIPE_{PIPE_NAMES[p]}> "
                   "is needed between them")
        else:
            why = f"no flag, barrier or queue orders {PIPE_NAMES[q]} before {PIPE_NAMES[p]} here"
        s, e = self.start, self.end
        space, base = next((n, b) for n, b, z in reversed(self.layout) if lo >= b)
        msg = (f"{kind} race on {space} [{lo - base}, {hi - base}): {first.where()} on {PIPE_NAMES[q]} "
               f"(cycles {s[k]:.0f}-{e[k]:.0f}) "
               f"and the later {second.where()} on {PIPE_NAMES[p]} (cycles {s[i]:.0f}-{e[i]:.0f}); {why}")
        self.found[key] = Finding("race", msg, first.kernel, second.text, self.core, key=("race",) + key,
                                  loc=second.loc, other=first.text, other_loc=first.loc)


def _deadlock(recs, qs, heads, tabs: KernelTables, core: int, sets, waits, flags: UnitFlags | None):
    blocked = []
    for p in range(NPIPES):
        if heads[p] < len(qs[p]):
            i = qs[p][heads[p]]
            blocked.append((i, p))
    blocked.sort()
    unit_waits = {i: flags.why_waiting(i) for i, _ in blocked} if flags is not None else {}
    wl = [(i, p) for i, p in blocked if tabs.kind[recs[i][0]] == WAIT or unit_waits.get(i)]
    i, p = (wl or blocked)[0]
    info = tabs.infos[recs[i][0]]
    if unit_waits.get(i):
        what = f"{unit_waits[i]}, which no op does (UnitFlag.md: Mmad and Fixpipe must enable it together)"
    elif info.kind == WAIT:
        key = recs[i][3]
        got, used = len(sets.get(key, ())), len(waits.get(key, ()))
        what = (f"waits for {key_name(key)}, which is never set" if got == 0 else
                f"waits for {key_name(key)} a {used + 1}th time, but it is only set {got} time(s)")
    else:
        what = "can never complete"
    others = "; ".join(f"{PIPE_NAMES[q]} at {tabs.infos[recs[j][0]].where()}" for j, q in blocked)
    err = SimulationError(f"deadlock: {info.describe()}, core {core}: {what} (pipe {PIPE_NAMES[p]}); "
                          f"blocked pipes: {others}")
    err.kind = "deadlock"
    err.loc = info.loc
    raise err


def _unit_flags_left(flags: UnitFlags, recs, tabs: KernelTables, core: int) -> list[Finding]:
    """An Mmad with unitFlag 3 whose L0C blocks no Fixpipe with unitFlag 3 reads out leaves their flags set when the
    kernel ends (``UnitFlag.md``: the next operator's Mmads wait on them)."""
    out = []
    for i, (lo, hi) in flags.left_set().items():
        info = tabs.infos[recs[i][0]]
        space, lo, hi = flags.where(lo, hi)
        out.append(Finding("unpaired-flag", f"{info.where()} sets the unit flags of {space} [{lo}, {hi}) and "
                           "no Fixpipe with unitFlag 3 clears them: they stay set when the kernel ends and the next "
                           "operator's Mmads wait on them", info.kernel, info.text, core, loc=info.loc))
    return out


def _check_sets(recs, setclk, waitat, tabs: KernelTables, core: int) -> list[Finding]:
    """A SetFlag must be ordered after the WaitFlag that consumed the previous set of its (event, id)."""
    out = []
    for key, sl in setclk.items():
        wl = waitat.get(key, [])
        for j in range(len(sl) - 1):
            clk, i = sl[j + 1]
            if j < len(wl):
                wp, wn = wl[j]
                if clk[wp] >= wn:
                    continue
                when = "the wait that consumes the previous set is not ordered before it"
            else:
                when = "the previous set is never consumed"
            info = tabs.infos[recs[i][0]]
            out.append(Finding("double-set", f"{info.where()} sets {key_name(key)} while it may still be set: "
                               f"{when} (undefined behaviour on the hardware)", info.kernel, info.text, core,
                               key=("double-set", key), loc=info.loc))
            break
    return out
