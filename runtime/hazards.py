"""The race check: conflicting UB accesses on different pipes that the schedule does not order.

Walking the trace in program order, each UB region an op reads or writes is compared with every earlier
access on another pipe to an overlapping region (RAW, WAR, WAW): if the earlier access ends after the
later one starts, the two either overlap in time or run opposite to program order, and nothing (flag,
barrier, queue) orders them: a race. State is kept per 32 B UB block and pipe as the latest end cycle of
reads and of writes, so each access costs two NumPy calls.
"""

from __future__ import annotations

import numpy as np

from .costs import NPIPES, PIPE_NAMES
from .errors import Finding
from .schedule import CoreTiming, KernelTables

_KINDS = {(True, False): "RAW", (False, True): "WAR", (True, True): "WAW"}


def find_races(timing: CoreTiming, tabs: KernelTables, ub_bytes: int, core: int, limit: int = 20) -> list[Finding]:
    """Races in one core's schedule (at most ``limit`` distinct op pairs are reported)."""
    nblk = (ub_bytes + 31) // 32
    # rows: pipe * 2 + (0 = read, 1 = write); value: latest end cycle of such an access
    last = np.full((NPIPES * 2, nblk), -np.inf)
    recs, start, end = timing.records, timing.start, timing.end
    writes_of, pipe_of = tabs.writes, tabs.pipe
    found: dict[tuple[int, int], Finding] = {}
    for i, r in enumerate(recs):
        w = writes_of[r[0]]
        if not w:
            continue
        p = pipe_of[r[0]]
        s = start[i]
        e = end[i]
        regs = []
        for j, is_w in enumerate(w):
            a, nb = r[4 + 2 * j], r[5 + 2 * j]
            if nb <= 0:
                continue
            lo, hi = a >> 5, min((a + nb + 31) >> 5, nblk)
            if lo >= hi:
                continue
            regs.append((lo, hi, is_w))
            m = last[:, lo:hi].max(axis=1).tolist()
            for q in range(NPIPES):
                if q == p:
                    continue
                # earlier write conflicts with anything; earlier read conflicts with a write
                if m[2 * q + 1] > s or (is_w and m[2 * q] > s):
                    if len(found) < limit:
                        _report(found, recs, start, end, tabs, i, j, q, s, core)
        for lo, hi, is_w in regs:
            row = last[2 * p + (1 if is_w else 0), lo:hi]
            np.maximum(row, e, out=row)
    return list(found.values())


def _report(found, recs, start, end, tabs: KernelTables, i: int, j: int, q: int, s: float, core: int) -> None:
    """Find the earlier access on pipe ``q`` that conflicts with access ``j`` of record ``i``; record it."""
    r = recs[i]
    is_w = tabs.writes[r[0]][j]
    a, nb = r[4 + 2 * j], r[5 + 2 * j]
    for k in range(i - 1, -1, -1):
        rk = recs[k]
        if tabs.pipe[rk[0]] != q or end[k] <= s:
            continue
        for jj, w2 in enumerate(tabs.writes[rk[0]]):
            if not (w2 or is_w):
                continue
            a2, nb2 = rk[4 + 2 * jj], rk[5 + 2 * jj]
            if a2 < a + nb and a < a2 + nb2:
                key = (rk[0], r[0])
                if key in found:
                    return
                first, second = tabs.infos[rk[0]], tabs.infos[r[0]]
                kind = _KINDS[(w2, is_w)] if (w2, is_w) in _KINDS else "RAW"
                lo, hi = max(a, a2), min(a + nb, a2 + nb2)
                msg = (f"{kind} race on UB [{lo}, {hi}): `{first.text}` on {PIPE_NAMES[q]} "
                       f"(cycles {start[k]:.0f}-{end[k]:.0f}) and the later `{second.text}` on "
                       f"{PIPE_NAMES[tabs.pipe[r[0]]]} (cycles {start[i]:.0f}-{end[i]:.0f}) are not ordered "
                       f"by any flag, barrier or queue")
                found[key] = Finding("race", msg, first.kernel, second.text, core, key=("race",) + key)
                return
