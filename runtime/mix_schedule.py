"""The joint schedule of one AI Core of a MIX kernel: the AIC and its two AIVs, linked by cross-core flags.

Each core keeps its own pipes (``schedule.schedule``); a cross-core flag is a happens-before edge between
cores. A set of the AIC on flag ``f`` adds one to ``f`` on both AIVs; the ``j``-th set of ``f`` reaches the
AIC when both AIVs have issued their ``j``-th set (mode 2). A core's waits consume the sets that reach
it in order, so its schedule is a monotone function of their times: starting from every set at cycle 0
and rescheduling the cores in turn with the other side's latest times climbs to the least fixed point,
the joint schedule. If it does not settle within one round per cross-core set, the waits form a cycle:
a deadlock. A wait that is never matched deadlocks in the first round (``schedule`` names it).

Checks, after the fixed point: a set that no wait consumes is an unpaired flag (when the AIC's ``ready``
sets outnumber an AIV's waits, that AIV reads the GM workspace without waiting for the AIC: a race on
the workspace); more than ``MAX_PENDING`` sets pending on a counter at once is an overflow. A read of a hand-off
buffer (GM one side of the AI Core writes and the other only reads, ``handoff``) that starts before the writing
side's first write of it ends is a race (``crosscore-gm-handoff``): the schedule orders each op after what its
waits were paired with, so the read was ordered after no write at all. The structural check in ``handoff`` counts
no flags: a set before the write, followed by more sets after later writes, passes it; this one does not.
"""

from __future__ import annotations

from pyasc.dialects.ascbuf.mix import CROSS_FLAG_MAX_PENDING
from pyasc.dialects.ascendc.gm_access import gm_effects

from .errors import Finding, SimulationError
from .handoff import RULE as HANDOFF_RULE
from .opinfo import SET, WAIT
from .schedule import DEFAULT_LAYOUT, CoreTiming, KernelTables, is_cross_key, key_name, schedule

MAX_PENDING = CROSS_FLAG_MAX_PENDING  # CrossCoreSetFlag(ISASI).md: a flag's counter counts 0-15


def _sets_in(recs, tabs: KernelTables) -> dict[int, list[int]]:
    """Cross-core key -> the records of this core that set it."""
    out: dict[int, list[int]] = {}
    for i, r in enumerate(recs):
        if tabs.kind[r[0]] == SET and is_cross_key(r[3]):
            out.setdefault(r[3], []).append(i)
    return out


def _to_aic(aiv_sets: list[dict[int, list[float]]]) -> dict[int, list[float]]:
    keys = set().union(*aiv_sets)
    out = {}
    for k in keys:
        lists = [s.get(k, []) for s in aiv_sets]
        n = min(len(x) for x in lists)
        out[k] = [max(x[j] for x in lists) for j in range(n)]
    return out


def schedule_ai_core(traces: list[list[tuple]], tabs: KernelTables, core: int, check: bool = True,
                     layout: tuple = DEFAULT_LAYOUT, initcheck: bool = False) -> list[CoreTiming]:
    """Schedule AI Core ``core``: ``traces`` = [AIC, AIV 0, AIV 1]; returns their timings (same order)."""
    aic_tr, aiv_trs = traces[0], traces[1:]
    ids = [core] + [2 * core + i for i in range(len(aiv_trs))]
    set_recs = [_sets_in(tr, tabs) for tr in traces]
    to_aiv = {k: [0.0] * len(v) for k, v in set_recs[0].items()}
    to_aic = _to_aic([{k: [0.0] * len(v) for k, v in s.items()} for s in set_recs[1:]])
    rounds = 2 + sum(len(v) for s in set_recs for v in s.values())
    for _ in range(rounds):
        aic = schedule(aic_tr, tabs, ids[0], check, layout, external=to_aic, initcheck=initcheck)
        aivs = [schedule(tr, tabs, ids[i + 1], check, layout, external=to_aiv, initcheck=initcheck)
                for i, tr in enumerate(aiv_trs)]
        new_to_aiv = aic.cross_sets
        new_to_aic = _to_aic([t.cross_sets for t in aivs])
        if new_to_aiv == to_aiv and new_to_aic == to_aic:
            break
        to_aiv, to_aic = new_to_aiv, new_to_aic
    else:
        rec = next((r for r in aic_tr if tabs.kind[r[0]] == WAIT and is_cross_key(r[3])), aic_tr[0])
        info = tabs.infos[rec[0]]
        err = SimulationError(f"deadlock: {info.describe()}, AI Core {core}: the cross-core waits of the AIC and "
                              f"its AIVs wait for each other ({key_name(rec[3])}) and never settle")
        err.kind = "deadlock"
        err.loc = info.loc
        raise err
    for t, c in zip(aivs, ids[1:]):
        _pair(aic_tr, set_recs[0], aic.cross_sets, t.cross_waits, tabs, c, aic, "AIV", core)
    if aivs:
        _pair(aiv_trs[0], set_recs[1], _to_aic([x.cross_sets for x in aivs]), aic.cross_waits, tabs, ids[0],
              aivs[0], "AIC", core)
        if check:
            _reads_before_writes(aic, aivs, tabs, ids)
    return [aic] + aivs


def _gm_access(tabs: KernelTables, sid: int) -> tuple[set, set]:
    if tabs.gm_access is None:
        tabs.gm_access = [gm_effects(i.op)[:2] if i.gm else (set(), set()) for i in tabs.infos]
    return tabs.gm_access[sid]


def _reads_before_writes(aic: CoreTiming, aivs: list[CoreTiming], tabs: KernelTables, ids: list[int]) -> None:
    """A ``crosscore-gm-handoff`` race for each read of a hand-off buffer that starts before the other side's first
    write of it ends (see the module docstring)."""
    sides = [[aic], aivs]
    access = [[[_gm_access(tabs, r[0]) for r in t.records] for t in side] for side in sides]
    touched = [(set().union(*(a[0] for c in side for a in c)), set().union(*(a[1] for c in side for a in c)))
               for side in access]
    for me, other in ((0, 1), (1, 0)):
        one_way = (touched[me][0] & touched[other][1]) - touched[me][1] - touched[other][0]
        for buffer in one_way:
            first = min((t.end[i] for t, acc in zip(sides[other], access[other]) for i, a in enumerate(acc)
                         if buffer in a[1]), default=None)
            for t, acc, core in zip(sides[me], access[me], ids if me == 0 else ids[1:]):
                i = next((i for i, a in enumerate(acc) if buffer in a[0] and t.start[i] < first), None)
                if first is None or i is None:
                    continue
                info = tabs.infos[t.records[i][0]]
                name = buffer.name_hint or "an argument"
                t.findings.append(Finding(
                    "race", f"{info.where()} reads {name} at cycle {t.start[i]:.0f}, before the other core of the AI "
                    f"Core has written it (its first write ends at cycle {first:.0f}): the waits before the read "
                    f"were paired with sets issued before that write", info.kernel, info.text, core,
                    key=("cross-handoff-order", name), loc=info.loc, rule=HANDOFF_RULE))


def _pair(recs, set_recs: dict[int, list[int]], fired: dict[int, list[float]], consumed: dict[int, list[float]],
          tabs: KernelTables, receiver: int, owner: CoreTiming, side: str, core: int) -> None:
    """Findings for the sets ``recs`` issued towards one receiver: never consumed, or too many pending."""
    for key, idx in set_recs.items():
        times = fired.get(key, [])
        waits = consumed.get(key, [])
        info = tabs.infos[recs[idx[0]][0]]
        if len(times) > len(waits):
            extra = len(times) - len(waits)
            race = (" it runs ahead of the AIC's hand-off, so its reads of the GM the AIC writes (the workspace) "
                    "race with those writes;" if side == "AIV" else "")
            owner.findings.append(Finding(
                "unpaired-flag", f"{info.where()} sets {key_name(key)} {len(times)} times but the {side} of AI Core "
                f"{core} waits for it {len(waits)} times:{race} {extra} set(s) stay pending when the kernel ends",
                info.kernel, info.text, receiver, key=("cross-unpaired", key, side), loc=info.loc))
        pending, w = 0, 0
        for n, t in enumerate(times):
            while w < len(waits) and waits[w] < t:
                w += 1
            pending = max(pending, n + 1 - w)
        if pending > MAX_PENDING:
            owner.findings.append(Finding(
                "flag-overflow", f"{info.where()}: {pending} sets of {key_name(key)} pending at once on the {side} of "
                f"AI Core {core}; a cross-core counter holds {MAX_PENDING}", info.kernel, info.text, receiver,
                key=("cross-overflow", key, side), loc=info.loc))
