"""Races on GM between the cores of a launch: the launch run again with its cores in another order.

The cores of a launch run at the same time on the chip, in no order the kernel can rely on, unless they meet at
``SyncAll`` (``sync_all``). The simulator runs them one after another, so a core that reads what another core
writes, or writes bytes another core writes too, sees whatever the order of the simulation gives it: a race on
the chip, and a silent wrong answer in a simulator that runs the cores in one order only. The classic case is a
``DataCopy`` out of UB whose length is rounded up to whole 32 B blocks: each core's last block spills into the
next core's first elements with whatever its UB holds there (the Ascend C guide's "non-aligned" write-out).

So the first launch of a multi-core kernel at a size (per block count and argument sizes) that writes GM runs
again from the same arguments with the cores in the reverse order (between two ``SyncAll`` calls, each round's
cores reversed; a MIX kernel's AI Cores reversed and the two AIVs of each swapped) and must write the same
bytes; the first run's results are kept. Cores that write the same bytes with the same values agree in any
order, as on the chip. A difference is a ``race`` finding of rule ``cross-core-gm-sync`` naming the argument,
its first byte, and the op that writes it.
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_effects

from . import sync_all
from .errors import FindingLog


def shares_gm(kernel) -> bool:
    """Whether the cores of ``kernel`` (a ``func.func``) may read or write GM that other cores write: it writes a GM
    argument, calls ``SyncAll``, or accesses global tensors of unknown origin."""
    for op in kernel.body.walk():
        _, w, known = gm_effects(op)
        if isinstance(op, asc.SyncAllOp) or not known or w:
            return True
    return False


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


# the ops that write GM and record the rows they wrote while a launch is watched (``watch_writes``)
RECORDING_WRITERS = (asc.FixpipeOp, asc.DataCopyOp, asc.DataCopyPadOp)


def recorded_writes_only(kernel) -> bool:
    """Whether only ops that record their rows (``Fixpipe``, copies out of UB) write GM in ``kernel``, no op reads a GM
    argument that an op writes, every global tensor's argument is known and no ``SyncAll`` joins the cores: cores
    that write disjoint bytes then end alike in any order (``disjoint_cores``)."""
    reads: set = set()
    writes: set = set()
    for op in kernel.body.walk():
        r, w, known = gm_effects(op)
        if not known or isinstance(op, asc.SyncAllOp) or (w and not isinstance(op, RECORDING_WRITERS)):
            return False
        reads.update(r)
        writes.update(w)
    return not reads & writes


def disjoint_cores(rows: list) -> bool:
    """Whether no byte is in the rows of two cores: ``rows`` holds (core, first byte, rows, row stride, row bytes)
    of each write of a launch that ran core by core (``watch_writes``). Sorted by first byte, two rows of
    different cores overlap somewhere if and only if some row starts before the furthest end so far and after a
    row of another core: the first row that overlaps an earlier row of another core follows such a row (a row of
    its own core there would overlap that earlier row too)."""
    table = np.array(rows, np.int64).reshape(-1, 5)
    table = table[(table[:, 2] > 0) & (table[:, 4] > 0)]  # writes of no bytes
    if not len(table):
        return True
    counts = table[:, 2]
    each = np.repeat(np.arange(len(table)), counts)
    within = np.arange(len(each)) - np.repeat(np.cumsum(counts) - counts, counts)
    starts = table[each, 1] + within * table[each, 3]
    order = np.argsort(starts, kind="stable")
    ends, cores, starts = (starts + table[each, 4])[order], table[each, 0][order], starts[order]
    furthest = np.maximum.accumulate(ends)
    return not ((starts[1:] < furthest[:-1]) & (cores[1:] != cores[:-1])).any()


def watch_writes(ck, args: list) -> list | None:
    """The list that the ops of compiled kernel ``ck`` writing GM (``recorded_writes_only``) fill, during a launch on
    ``args``, with the rows they write: (core, first byte's address, rows, row stride, row bytes). The launch runs
    with its reads of local memory that no earlier op of the core wrote reported (``initcheck``): when its arguments
    share no memory, no core reads what another core writes or left behind, so the cores end alike in any order
    unless two write the same bytes (``disjoint_cores``). None when the arguments share memory. ``unwatch`` ends it."""
    if aliased(args):
        return None
    rows: list = []
    ck.env["_GMW"] = rows   # the copies out of UB (the generated code's ``_GMW`` lines)
    cube = ck.env.get("_CUBE")
    if cube is not None:
        cube.footprints = rows
    return rows


def unwatch(ck) -> None:
    """Stop recording the rows ``ck``'s ops write (``watch_writes``)."""
    ck.env["_GMW"] = None
    cube = ck.env.get("_CUBE")
    if cube is not None:
        cube.footprints = None


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
    """``runs`` with its cores (``per_core`` runs each: 3 for a MIX kernel's AI Core) in the reverse order, and the
    two AIVs of each AI Core swapped (its AIC keeps its place: it hands data to them, or they to it)."""
    cores = [runs[i:i + per_core] for i in range(0, len(runs), per_core)]
    out = []
    for core in reversed(cores):
        aivs = iter([r for r in core if r[1] == 1][::-1])
        out.extend(next(aivs) if r[1] == 1 else r for r in core)
    return out


def rerun_differs(args: list, before: list, run_again) -> tuple[int, int] | None:
    """Runs ``run_again()`` from the arguments as they were (``before``) and compares what it writes with what the
    first run wrote (``args``, left as the first run wrote them): (argument, first byte) of the first difference,
    or None."""
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
            found = (k, int(np.flatnonzero(a != f)[0]))
        np.copyto(a, f)
    return found


def race_message(kernel, k: int, at: int) -> tuple[str, object]:
    """The finding for argument ``k`` of ``kernel`` ending differently from byte ``at``, and the op it names: the
    first ``SyncAll`` of a kernel that has one, else the first op that writes the argument."""
    arg = kernel.body.block.args[k]
    name = arg.name_hint or f"#{k}"
    ops = list(kernel.body.walk())
    barrier = next((op for op in ops if isinstance(op, asc.SyncAllOp)), None)
    reads = any(arg in gm_effects(op)[0] for op in ops)
    writer = next((op for op in ops if arg in gm_effects(op)[1]), None)
    if barrier is None and not reads:
        what = (f"two cores write the same bytes of GM argument {name} with different values (first at byte {at}): "
                f"on the chip the last to write wins, in no fixed order; give each core its own bytes (a tail that "
                f"is not whole 32 B blocks goes out with DataCopyPad)")
    else:
        what = (f"GM argument {name} ends differently (first at byte {at}) when the cores run in another order: a "
                f"core reads or writes GM that another core writes, with no SyncAll between the two")
    return what, barrier or writer


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
    log, m.ctx.log = m.ctx.log, FindingLog()  # the first run reported the kernel's own findings
    try:
        race = rerun_differs(args, before, again)
    finally:
        m.ctx.log = log
    if race is not None:
        what, named = race_message(kernel, *race)
        info = next((i for i in ck.infos if i.op is named), ck.infos[0])
        log.add("race", what, ck.name, info.text, 0, loc=info.loc, rule="cross-core-gm-sync")
