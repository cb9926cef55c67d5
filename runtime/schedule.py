"""The timing model: schedule one core's trace on its pipes.

The scalar unit issues every op at its recorded ``issue`` cycle (plus any stall the scalar itself suffered
in a ``WaitFlag<*_S>`` or ``PipeBarrier<PIPE_ALL>``) into the in-order queue of its pipe. Pipes run
concurrently; an op starts at max(issue, end of the previous op on its pipe, the set it waits for).
``SetFlag`` fires once earlier work on its pipe has finished; ``WaitFlag`` blocks its pipe until the
matching (event, id) has been set and clears it: the k-th wait on a key consumes the k-th set, which may
come later in program order (priming). The queues are advanced until no pipe can make progress: if work
remains, the core is deadlocked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .costs import NPIPES, PIPE_NAMES
from .errors import Finding, SimulationError
from .kernel_ops import EVENTS
from .opinfo import BARRIER_ALL, SET, WAIT, WORK, OpInfo
from .queues import QUEUE_KEY_BASE, describe_key


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

    def timeline(self) -> dict[str, list[tuple[float, float, str]]]:
        """Per pipe name, the (start, end, op name) of every op that ran on it, in order."""
        out: dict[str, list[tuple[float, float, str]]] = {}
        infos = self.infos or []
        for i, r in enumerate(self.records):
            info = infos[r[0]]
            out.setdefault(PIPE_NAMES[info.pipe], []).append((self.start[i], self.end[i], info.label or info.name))
        return out


def key_name(key: int) -> str:
    if key >= QUEUE_KEY_BASE:
        q, slot, what = describe_key(key)
        return f"queue #{q} buffer {slot} ({what})"
    return f"{EVENTS[key // 8].value} id {key % 8}"


class KernelTables:
    """Per-kernel lookup lists indexed by ``sid`` (built once per translated kernel)."""

    def __init__(self, infos: list[OpInfo]):
        self.infos = infos
        self.pipe = [i.pipe if i.pipe is not None else 0 for i in infos]
        self.kind = [i.kind for i in infos]
        self.writes = [i.writes for i in infos]
        self.gm = [i.gm for i in infos]


def schedule(recs: list[tuple], tabs: KernelTables, core: int) -> CoreTiming:
    """Schedule the trace ``recs`` of one core; raises ``SimulationError`` on deadlock or a double set."""
    pipe_of, kind_of = tabs.pipe, tabs.kind
    n = len(recs)
    qs: list[list[int]] = [[] for _ in range(NPIPES)]
    seg = [0] * n
    c = 0
    for i, r in enumerate(recs):
        p = pipe_of[r[0]]
        seg[i] = c
        qs[p].append(i)
        if p == 0:
            c += 1
    start = [0.0] * n
    end = [0.0] * n
    stall = [0.0]  # stall[k]: the scalar's accumulated delay once k scalar-pipe ops have resolved
    heads = [0] * NPIPES
    free = [0.0] * NPIPES
    sets: dict[int, list[float]] = {}
    waits: dict[int, list[float]] = {}
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
            while h < m:
                i = q[h]
                sg = seg[i]
                if sg >= nres:
                    break
                r = recs[i]
                t = r[1] + stall[sg]
                if t < f:
                    t = f
                k = kind_of[r[0]]
                if k == WORK:
                    start[i] = t
                    f = end[i] = t + r[2]
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
                        else:
                            wl.append(t)
                    start[i] = end[i] = f = t
                elif k == SET:
                    key = r[3]
                    sl = sets.get(key)
                    if sl is None:
                        sets[key] = [t]
                    else:
                        sl.append(t)
                    start[i] = end[i] = f = t
                else:
                    start[i] = end[i] = f = t
                h += 1
            if h != h0:
                heads[p] = h
                free[p] = f
                progress = True
        # the scalar pipe: in program order, may stall the issue of everything after it
        h = heads[0]
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
                start[i] = end[i] = t
            elif k == BARRIER_ALL:
                blocked = False
                tt = t
                for p in active:
                    hp = heads[p]
                    if hp < len(qs[p]) and qs[p][hp] < i:
                        blocked = True
                        break
                    if free[p] > tt:
                        tt = free[p]
                if blocked:
                    break
                extra = tt - t
                start[i] = t
                end[i] = tt
            elif k == SET:
                sets.setdefault(r[3], []).append(t)
                start[i] = end[i] = t
            elif k == WORK:
                start[i] = t
                end[i] = t + r[2]
            else:
                start[i] = end[i] = t
            stall.append(stall[-1] + extra)
            h += 1
            progress = True
        heads[0] = h
        if all(heads[p] == len(qs[p]) for p in range(NPIPES)):
            break
        if not progress:
            _deadlock(recs, qs, heads, tabs, core)

    _check_sets(recs, sets, waits, tabs, core)
    busy = [0.0] * NPIPES
    gm = 0
    gm_of = tabs.gm
    last = 0.0
    for i, r in enumerate(recs):
        sid = r[0]
        if kind_of[sid] == WORK:
            busy[pipe_of[sid]] += r[2]
            if gm_of[sid]:
                gm += r[3]
        if end[i] > last:
            last = end[i]
    findings = []
    for key, sl in sets.items():
        if key < QUEUE_KEY_BASE and len(sl) > len(waits.get(key, ())):
            sid = next(r[0] for r in reversed(recs) if kind_of[r[0]] == SET and r[3] == key)
            info = tabs.infos[sid]
            findings.append(Finding("unpaired-flag", f"SetFlag {key_name(key)} is never waited for: the flag stays "
                                    "set when the kernel ends and leaks into the next operator",
                                    info.kernel, info.text, core))
    return CoreTiming(recs, start, end, last, busy, gm, findings, tabs.infos)


def _deadlock(recs, qs, heads, tabs: KernelTables, core: int):
    blocked = []
    for p in range(NPIPES):
        if heads[p] < len(qs[p]):
            i = qs[p][heads[p]]
            blocked.append((i, p))
    blocked.sort()
    waits = [(i, p) for i, p in blocked if tabs.kind[recs[i][0]] in (WAIT, BARRIER_ALL)]
    i, p = (waits or blocked)[0]
    info = tabs.infos[recs[i][0]]
    what = f"waits for {key_name(recs[i][3])}, which is never set" if info.kind == WAIT else "can never complete"
    others = ", ".join(f"{PIPE_NAMES[q]} at `{tabs.infos[recs[j][0]].text}`" for j, q in blocked)
    raise SimulationError(f"deadlock: {info.describe()}, core {core}: {what} (pipe {PIPE_NAMES[p]}); "
                          f"blocked pipes: {others}")


def _check_sets(recs, sets, waits, tabs: KernelTables, core: int) -> None:
    for key, sl in sets.items():
        wl = waits.get(key, [])
        for j in range(len(sl) - 1):
            if j >= len(wl) or sl[j + 1] < wl[j]:
                # the (j+1)-th set of this key in program order
                cnt = -1
                for r in recs:
                    if tabs.kind[r[0]] == SET and r[3] == key:
                        cnt += 1
                        if cnt == j + 1:
                            info = tabs.infos[r[0]]
                            break
                when = (f"its previous set (cycle {sl[j]:.0f}) is only consumed at cycle {wl[j]:.0f}"
                        if j < len(wl) else f"its previous set (cycle {sl[j]:.0f}) is never consumed")
                raise SimulationError(f"{info.describe()}, core {core}: SetFlag on {key_name(key)} at cycle "
                                      f"{sl[j + 1]:.0f} while the flag is still set: {when}")
