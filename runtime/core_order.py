"""Races on GM between the cores of a launch: the launch run again with its cores in another order.

The cores of a launch run at the same time on the chip, in no order the kernel can rely on, unless they meet at
``SyncAll`` (``sync_all``). The simulator runs them one after another, so a core that reads what another core
writes (or writes what another reads or writes) sees whatever the order of the simulation gives it: a race on
the chip, and a silent wrong answer in a simulator that runs the cores in one order only.

So the first launch of a kernel at a size (per block count and argument sizes) whose cores may share GM runs
again from the same arguments with the cores in the reverse order (between two ``SyncAll`` calls, each round's
cores reversed; a MIX kernel's AI Cores reversed, each AI Core's cores in their order) and must write the same
bytes; the first run's results are kept. The kernels checked: every one that calls ``SyncAll``, reads a GM
argument it also writes (by its ops' ``BufferEffects``), or is launched on arguments that share memory. A
difference is a ``race`` finding of rule ``cross-core-gm-sync`` naming the argument and its first byte.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_effects

from . import sync_all
from .errors import FindingLog


def shares_gm(kernel) -> bool:
    """Whether the cores of ``kernel`` (a ``func.func``) may read GM that other cores write: it calls ``SyncAll``, or
    reads a GM argument it also writes, or accesses global tensors of unknown origin."""
    reads, writes = set(), set()
    for op in kernel.body.walk():
        r, w, known = gm_effects(op)
        if isinstance(op, asc.SyncAllOp) or not known:
            return True
        reads |= r
        writes |= w
    return bool(reads & writes)


def written_args(kernel) -> frozenset[int] | None:
    """The indices of the GM arguments ``kernel`` may write (by its ops' ``BufferEffects``); None when some global
    tensor's argument is unknown."""
    args = list(kernel.body.block.args)
    written: set[int] = set()
    for op in kernel.body.walk():
        _, w, known = gm_effects(op)
        if not known:
            return None
        written.update(args.index(v) for v in w if v in args)
    return frozenset(written)


def aliased(args: list) -> bool:
    """Whether two of a launch's GM arguments may share memory."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return any(np.may_share_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])


def snapshot(args: list, written: frozenset[int] | None) -> list:
    """A copy of each argument the launch may write (``written``: their indices, None for any), None for the
    others."""
    return [a.copy() if isinstance(a, np.ndarray) and a.flags.writeable and (written is None or k in written)
            else None for k, a in enumerate(args)]


def reversed_runs(runs: list, per_core: int) -> list:
    """``runs`` with its cores (``per_core`` runs each: 3 for a MIX kernel's AI Core) in the reverse order."""
    cores = [runs[i:i + per_core] for i in range(0, len(runs), per_core)]
    return [r for core in reversed(cores) for r in core]


def rerun_differs(args: list, before: list, run_again, names: list[str]) -> str | None:
    """Runs ``run_again()`` from the arguments as they were (``before``) and compares what it writes with what the
    first run wrote (``args``, left as the first run wrote them): the race it shows, or None."""
    first = [a.copy() if b is not None else None for a, b in zip(args, before)]
    for a, b in zip(args, before):
        if b is not None:
            np.copyto(a, b)
    run_again()
    found = None
    for k, (a, f) in enumerate(zip(args, first)):
        if f is None:
            continue
        if found is None and not np.array_equal(a, f):
            at = int(np.flatnonzero(a != f)[0])
            found = (f"GM argument {names[k]} ends differently (first at byte {at}) when the cores run in another "
                     f"order: a core reads or writes GM that another core writes, with no SyncAll between the two")
        np.copyto(a, f)
    return found


def check_launch(m, ck, n: int, args: list, runs: list, before: list, ub_before, joined: bool, per_core: int,
                 kernel, on_error) -> None:
    """Runs the launch of compiled kernel ``ck`` on machine ``m`` again from ``before`` (and UB as ``ub_before``)
    with its cores in the reverse order (``joined``: each round's, between ``SyncAll`` calls; ``per_core`` runs
    each); a difference in what it writes is a ``race`` finding on the machine's log."""
    if joined:
        def again():
            sync_all.run_cores(ck.name, ck.data_fn, n, args, runs, m.ub, on_error, backwards=True, traced=False)
    else:
        def again():
            for bid, ct, sub in reversed_runs(runs, per_core):
                try:
                    ck.data_fn(bid, n, args, None, ct, sub)
                except Exception as e:  # noqa: BLE001 - reported with the kernel and core
                    on_error(bid, e)

    np.copyto(m.ub, ub_before)
    names = [a.name_hint or f"#{k}" for k, a in enumerate(kernel.body.block.args)]
    log, m.ctx.log = m.ctx.log, FindingLog()  # the first run reported the kernel's own findings
    try:
        race = rerun_differs(args, before, again, names)
    finally:
        m.ctx.log = log
    if race is not None:
        info = next((i for i in ck.infos if i.label == "SyncAll"), ck.infos[0])
        log.add("race", race, ck.name, info.text, 0, loc=info.loc, rule="cross-core-gm-sync")
