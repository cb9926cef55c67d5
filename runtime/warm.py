"""Calls of a host function whose every launch replays: the kernels' data paths and the checked run's report.

A run of a host function in which every launch replayed a traced launch (``replay``) that reported nothing,
on arrays none of which shares memory with another, is recorded as a ``WarmHost``: the host's steps with
their arguments resolved to positions, each launch's ``Traced`` entry and the report those launches gave.
A later call with arrays of the same dtypes and sizes, contiguous and again sharing no memory, under the
same hazard policy and race check, has the same launch signatures (``replay.signature``: each GM buffer's
size and whether it views another's memory; the bytes of a gather's offset table, checked per call), so it
would replay every launch: it runs the data paths (``replay.run_data_path``) and reports the recorded time,
cycles and pipe use, with none of the per-launch bookkeeping of ``Simulator.run``. A launch whose traced entry
has changed since (traced again, grouped, planned) sends the call back to ``Simulator.run``.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from . import replay
from .errors import FindingLog
from .machine import flat
from .report import Report


@dataclass
class WarmLaunch:
    """One launch step: its kernel, core count, argument positions and the traced launch it replays."""

    name: str
    n: int
    refs: tuple  # per kernel argument, its position in the run's values (parameters, then the steps')
    traced: replay.Traced
    runs: list  # (block, kind of core, sub-block) of each core run (``Simulator._launch``)
    cube: bool  # whether the kernel has cube memories (``Machine.garbage``)


@dataclass
class WarmHost:
    """A host function's recorded run (see the module docstring)."""

    specs: tuple  # per parameter, (dtype, size)
    steps: tuple  # ("alloc", position, value, shape, dtype) | ("const", position, number) | WarmLaunch
    n_values: int
    policy: str
    check: bool
    block_dim: int | None
    seconds: float
    cycles: float
    pipe_busy: dict
    launches: tuple
    cores: int
    grouped: int
    entries: tuple = ()  # per launch, its key in ``Simulator._traced`` and the traced launch it replays
    tables: tuple = ()  # (parameter position, digest) of each launch's offset tables (``replay.trace_tables``)
    serial: int = field(default_factory=itertools.count().__next__)  # names it in ``Machine.warm_runs``


def distinct_owners(args) -> bool:
    """Whether no two of the arrays ``args`` view the same memory (each is its own base or the only view
    of its base among them)."""
    owners = {id(a if a.base is None else a.base) for a in args}
    return len(owners) == len(args)


def record(sim, fop, args: list, policy: str, check: bool, report: Report) -> WarmHost | None:
    """The ``WarmHost`` of the run of host function ``fop`` on ``args`` that gave ``report``, or None when
    that run cannot be repeated so (a nested host call, a launch that did not replay or reported something,
    a scalar parameter, arrays sharing memory)."""
    if report.findings or report.error is not None or replay.REPLAY_MODE != "on":
        return None
    if not all(type(a) is np.ndarray and a.flags.c_contiguous for a in args) or not distinct_owners(args):
        return None
    params, steps = sim._host_steps(fop)
    position = {p: i for i, p in enumerate(params)}
    warm_steps, cores, grouped, tables = [], 0, 0, []
    for step in steps:
        kind = step[0]
        if kind == "alloc":
            position[step[1]] = len(position)
            warm_steps.append(("alloc", position[step[1]], step[1], step[2], step[3]))
        elif kind == "const":
            position[step[1]] = len(position)
            warm_steps.append(("const", position[step[1]], step[2]))
        elif kind == "launch":
            n = sim.block_dim if sim.block_dim is not None else step[2]
            traced = sim._traced.get((step[1], n, check))
            if traced is None or not _replays_quietly(traced) or (traced.plan is None and sim._plans.get((step[1], n, check))):
                return None
            if any(type(s[0]) is int and s[1] is not None for s in traced.signature):  # buffers share memory
                return None
            refs = tuple(position[v] for v in step[3])
            for i in sorted(sim.trace_tables.get(step[1], ())):  # an offset table: a parameter, checked per call
                if refs[i] >= len(params):
                    return None
                tables.append((refs[i], traced.signature[i][-1]))
            warm_steps.append(WarmLaunch(step[1], n, refs, traced,
                                         replay.core_runs(n, step[1] in sim.mix, step[1] in sim.aiv_first),
                                         "_CUBE" in sim.kernels[step[1]][0].env))
            cores += n
            grouped += sum(len(bids) for _, bids in traced.plan or () if len(bids) > 1)
        else:
            return None
    launches = [s.traced.launch for s in warm_steps if isinstance(s, WarmLaunch)]
    if len(launches) != len(report.launches) or any(a is not b for a, b in zip(launches, report.launches)):
        return None  # some launch was traced in this run, not replayed
    entries = tuple(((s.name, s.n, check), s.traced) for s in warm_steps if isinstance(s, WarmLaunch))
    return WarmHost(tuple((a.dtype, a.size) for a in args), tuple(warm_steps), len(position), policy, check,
                    sim.block_dim, report.seconds, report.cycles, dict(report.pipe_busy), tuple(launches),
                    cores, grouped, entries, tuple(tables))


def _replays_quietly(traced: replay.Traced) -> bool:
    """Whether a launch replaying ``traced`` reports nothing and needs neither garbage in local memory nor
    a check of its groups."""
    return (traced.launch is not None and traced.initialized and not traced.unverified and not traced.findings
            and not traced.scheduled_findings)


def applies(warm: WarmHost, sim, args, policy: str, check: bool) -> bool:
    """Whether a call on ``args`` (arrays of the host's dtypes and sizes, contiguous) replays as ``warm`` did:
    the same policy, race check, core count and replay mode, no two arrays sharing memory, and the same bytes
    in the launches' offset tables."""
    return (policy == warm.policy and check == warm.check and sim.block_dim == warm.block_dim
            and len(args) == len(warm.specs) and replay.REPLAY_MODE == "on" and distinct_owners(args)
            and (not warm.tables or all(replay.table_digest(args[p]) == digest for p, digest in warm.tables)))


def matches(warm: WarmHost, sim, args, policy: str, check: bool) -> bool:
    """Whether a call of the host on ``args`` replays as ``warm`` did."""
    if len(args) != len(warm.specs):
        return False
    for a, (dtype, size) in zip(args, warm.specs):
        if type(a) is not np.ndarray or a.dtype != dtype or a.size != size or not a.flags.c_contiguous:
            return False
    return applies(warm, sim, args, policy, check)


def run(sim, m, warm: WarmHost, args: list, kept: int = 0) -> Report | None:
    """The data paths of ``warm``'s launches on ``args`` and machine ``m``, and the call's report; None
    (before anything is written) when a launch's traced entry changed since ``warm`` was recorded. The first
    ``kept`` arrays may come again in later calls: the machine keeps their flat bytes when small."""
    traced = sim._traced
    for key, entry in warm.entries:
        if traced.get(key) is not entry:
            return None
    values = args if warm.n_values == len(args) else list(args) + [None] * (warm.n_values - len(args))
    flats = [None] * warm.n_values  # each value as the kernels take it (``machine.flat``), made once
    again = None  # once a group diverged: the report, launch by launch, with that launch traced again
    for step in warm.steps:
        if type(step) is not WarmLaunch:
            if step[0] == "alloc":
                values[step[1]], flats[step[1]] = m.alloc_flat(step[2], step[3], step[4])
            else:
                values[step[1]] = flats[step[1]] = step[2]
            continue
        kargs = []
        for i in step.refs:
            f = flats[i]
            if f is None:
                f = flats[i] = m.flat(values[i]) if i < kept else flat(values[i])
            kargs.append(f)
        if step.cube:
            m.garbage(step.name, False)
        try:
            ran = replay.run_data_path(sim, m, step.name, step.n, kargs, step.runs, step.traced)
        finally:
            if step.cube:
                m.garbage(step.name, True)
        if ran:
            if again is not None:
                _add_launch(again, step.traced)
            continue
        if again is None:  # as ``Simulator.run`` would: the launches before as replayed, this one traced
            again = Report(sim.spec.name, sim.spec.clock_hz, pipe_busy=dict.fromkeys(warm.pipe_busy, 0.0))
            launches = [s for s in warm.steps if isinstance(s, WarmLaunch)]
            for before in launches[:launches.index(step)]:
                _add_launch(again, before.traced)
            m.ctx.log = FindingLog()
        sim._launch(m, step.name, step.n, [values[i] for i in step.refs], again)
    if again is not None:
        again.findings = m.ctx.log.items()
        return again
    return report_of(sim, m, warm)


def _add_launch(report: Report, traced: replay.Traced) -> None:
    """The replayed launch ``traced`` added to ``report`` (as ``Simulator._launch`` adds it)."""
    for p, b in traced.busy:
        report.pipe_busy[p] = report.pipe_busy.get(p, 0.0) + b
    report.launches.append(traced.launch)
    report.seconds += traced.launch.seconds
    report.cycles += traced.launch.cycles + traced.launch.overhead_cycles


def report_of(sim, m, warm: WarmHost) -> Report:
    """The report of a call that ran as ``warm`` on machine ``m`` (which counts it, ``Simulator.stats``)."""
    held = m.warm_runs.get(warm.serial)
    if held is None:  # what one run adds to ``Simulator.stats``, not the record (which a new one may replace)
        held = m.warm_runs[warm.serial] = [(warm.cores, len(warm.launches), warm.grouped), 0]
    held[1] += 1
    return Report(sim.spec.name, sim.spec.clock_hz, warm.seconds, warm.cycles, dict(warm.pipe_busy),
                  list(warm.launches))
