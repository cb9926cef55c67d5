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
the workspace); more than ``MAX_PENDING`` sets pending on a counter at once is an overflow.
"""

from __future__ import annotations

from pyasc.dialects.ascbuf.mix import CROSS_FLAG_MAX_PENDING

from .errors import Finding, SimulationError
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
    return [aic] + aivs


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
