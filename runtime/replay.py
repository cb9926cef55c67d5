"""Replaying a launch whose traces cannot have changed: the data path alone.

What a core records (its trace: ops, scalar clock, addresses, costs) is a function of its block index, the
core count, the launch's scalar arguments, the sizes of its GM buffers and which of them share memory, unless
an op of the kernel traces values it reads (``ValueDependentTrace``: a scalar read that may steer the scalar
code; a gather's offsets, unless they are a table the kernel computes from scalars and from GM arguments it
does not write, whose bytes then join the signature: ``trace_tables``). For a kernel without such an op, a
launch whose arguments have the :func:`signature` of the kernel's last traced launch (same core count and check
mode) has that launch's traces, which were scheduled and checked (hazards, contract rules, initialisation)
then. It runs only the data path (``codegen.data_only_source``), per core or per group of cores when the
traced launch ran the same groups (``batched``; a MIX kernel's group runs the AIVs of both indices as one unit
when their data paths agree), and reports what the traced launch reported: its schedules, time and findings.

``PYASC_SIM_REPLAY``: ``on`` (the default), ``off`` (trace every launch) or ``verify`` (replay on local memory
filled with NaN, then trace the launch again and require the same outputs and traces). A replayed core runs its
tape once it has one (``tape``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field

import numpy as np

from xdsl.dialects import func, scf
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import Block

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.gm_access import gm_argument
from pyasc.dialects.traits import ValueDependentTrace, buffer_reads, buffer_writes, scalar_reads

from . import batched, core_order, sync_all, tape
from .errors import SimulationError

REPLAY_MODE = os.environ.get("PYASC_SIM_REPLAY", "on")


# float arithmetic: what it computes from a scalar read stays a value, never a trip count, address or condition
_FLOAT_ARITH = frozenset({"arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf", "arith.maximumf",
                          "arith.minimumf", "arith.extf", "arith.truncf"})


def _only_computed_with(op) -> bool:
    """Whether every result of ``op`` only reaches ``ascendc`` ops as a value to compute with: a float through
    float arithmetic (an ``ascendc`` op takes a float scalar only as such a value, as ``Adds`` does), an integer
    directly as the ``scalar`` operand of a vector instruction (``Duplicate``, ``Adds``) or as the value a
    ``SetValue`` writes (an op that reads it back traces it only if it is checked itself: a ``GetValue``, or a
    gather whose table ``_table_sources`` refuses), never as a count, an address or a condition."""
    todo = list(op.results)
    while todo:
        v = todo.pop()
        is_float = isinstance(v.type, AnyFloat)
        for use in v.uses:
            user = use.operation
            if is_float and user.name in _FLOAT_ARITH:
                todo.extend(user.results)
            elif not isinstance(user, asc.AscendCOperation) or not (
                    is_float or (isinstance(user, asc.VectorOp) and getattr(user, "scalar", None) is v)
                    or (isinstance(user, asc.SetValueOp) and user.value is v and user.index is not v)):
                return False
    return True


def _read_from_memory(value) -> bool:
    """Whether ``value`` may be computed (through any ops, and a loop's carried values) from a scalar read of a
    local tensor (``GetValue``); a block argument of anything but the kernel or an ``scf.for`` counts as one."""
    todo, seen = [value], set()
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        owner = v.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            if isinstance(parent, scf.ForOp):
                if v.index > 0:  # a carried value: its initial value and what each iteration yields
                    todo += [parent.iter_args[v.index - 1], owner.last_op.operands[v.index - 1]]
                todo += [parent.lb, parent.ub, parent.step]
            elif not isinstance(parent, func.FuncOp):
                return True
            continue
        if isinstance(owner, asc.GetValueOp):
            return True
        todo.extend(owner.operands)
    return False


def _tbuf(value):
    """The ``TBuf`` a local tensor lies in (through subviews and reinterpret casts), or None."""
    owner = value.owner
    while isinstance(owner, asc.SubviewOp | asc.ReinterpretCastOp):
        owner = owner.operands[0].owner
    return owner.buffer if isinstance(owner, asc.TBufGetOp) else None


def _table_sources(kernel, buf, within: frozenset = frozenset()) -> set[int] | None:
    """The GM arguments (indices) from which the ops writing ``TBuf`` ``buf`` compute it, through other such
    ``TBuf``s (``CreateVecIndex``, ``Muls``/``Adds`` of scalars, copies from GM: none of them traces values),
    or None when an op writing it traces values or reads anything else (a queue's buffer, an unknown tensor)."""
    args = list(kernel.body.block.args)
    found: set[int] = set()
    for op in kernel.body.walk():
        if not any(_tbuf(v) is buf for v in buffer_writes(op)):
            continue
        if op.has_trait(ValueDependentTrace) or isinstance(op, asc.SetValueOp) and (
                _read_from_memory(op.value) or _read_from_memory(op.index)):
            return None
        for v in buffer_reads(op) + scalar_reads(op):
            if isinstance(v.type, asc.GlobalTensorType):
                arg = gm_argument(v)
                if arg is None or arg not in args:
                    return None
                found.add(args.index(arg))
                continue
            src = _tbuf(v)
            if src is None or src in within:
                return None
            if src is not buf:
                more = _table_sources(kernel, src, within | {buf})
                if more is None:
                    return None
                found |= more
    return found


def _offset_sources(kernel, op) -> set[int] | None:
    """For a ``ValueDependentTrace`` op: the GM arguments whose bytes its traced values come from (an empty set
    when they are values its launch arguments determine or values that cannot steer what is traced: a scalar
    read that only enters float arithmetic, or a gather's offset table computed from scalars), or None."""
    if isinstance(op, asc.GetValueOp):
        return set() if _only_computed_with(op) else None
    if isinstance(op, asc.GatherOp | asc.GatherbOp):
        buf = _tbuf(op.src_offset if isinstance(op, asc.GatherOp) else op.offset)
        return None if buf is None else _table_sources(kernel, buf)
    return None


def trace_tables(kernel) -> frozenset[int] | None:
    """The GM arguments besides the launch's sizes and scalars whose bytes the traces of ``kernel`` depend on:
    those its gathers' offset tables are copied from (the kernel must not write them); None when its traces
    may depend on other values it reads (the kernel cannot replay)."""
    tables: set[int] = set()
    for op in kernel.body.walk():
        if op.has_trait(ValueDependentTrace):
            found = _offset_sources(kernel, op)
            if found is None:
                return None
            tables |= found
    written = core_order.written_args(kernel)
    if tables and (written is None or not tables.isdisjoint(written)):
        return None
    return frozenset(tables)


def replayable(kernel) -> bool:
    """Whether the traces of ``kernel`` depend on its launch arguments only (``trace_tables``: their sizes and
    scalars, and the bytes of its gathers' offset tables)."""
    return trace_tables(kernel) is not None


def table_digest(a: np.ndarray) -> bytes:
    """A digest of an array's bytes: a launch's offset table in its signature."""
    return hashlib.blake2b(memoryview(np.ascontiguousarray(a)).cast("B"), digest_size=16).digest()


def signature(args: list, tables: frozenset = frozenset()) -> tuple:
    """What a launch's traces depend on besides the kernel: each GM buffer's size and, when it views the same
    memory as an earlier argument, that argument and the byte offset between them; each scalar's type and
    value; and the digest of each argument of ``tables`` (``trace_tables``), last in its entry (a table that shares
    memory with another argument, which may write it, gets an entry no other launch has: it is traced)."""
    sig, owners = [], {}
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            owner = a.base if a.base is not None else a
            j = owners.setdefault(id(owner), i)
            sig.append((a.nbytes, None) if j == i else (a.nbytes, j, _address(a) - _address(args[j])))
        else:
            sig.append((type(a), a))
    for i in tables:
        shared = any(k != i and isinstance(a, np.ndarray) and np.may_share_memory(a, args[i])
                     for k, a in enumerate(args))
        sig[i] += (object() if shared else table_digest(args[i]),)
    return tuple(sig)


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@dataclass
class Traced:
    """The last traced launch of a kernel: its signature, its cores' trace keys and, when its cores ran in
    groups, the plan of those groups."""

    signature: tuple
    keys: list
    plan: list | None
    findings: list  # what its cores' code reported (contract rules, rounded copies), reported again
    launch: object = None  # its ``LaunchReport``, which a replay reports again
    initialized: bool = False  # the initcheck found it reading no local byte before writing it
    unverified: bool = False  # ``plan``: data-path groups (``data_groups``) not yet checked against core by core
    busy: tuple = ()  # its busy cycles per pipe, summed over its cores (``busy_totals``)
    scheduled_findings: bool = False  # whether its cores' schedules reported anything
    tapes: dict = field(default_factory=dict)  # (id of a machine's CompiledKernel, core or group) -> ``UnitTape``
    runners: dict = field(default_factory=dict)  # id of a machine's CompiledKernel -> ``_Runner``
    tape_entries: int = 0  # the data statements its tapes hold
    apart: set = field(default_factory=set)  # groups of the plan whose AIVs cannot run as one unit (``_group_units``)
    joined_groups_ran: bool = False  # a SyncAll kernel's groups ran together once (they cannot part ways after)


def busy_totals(launch) -> tuple:
    """(pipe, busy cycles summed over the launch's cores) for every pipe some core used."""
    totals: dict[str, float] = {}
    for table in launch.core_busy:
        for p, b in table.items():
            totals[p] = totals.get(p, 0.0) + b
    return tuple(totals.items())


def core_runs(n: int, mix: bool, aiv_first: bool = False) -> list:
    """(block, kind of core, sub-block) of each core run of a launch of ``n`` blocks: per AI Core of a MIX
    kernel, the AIC part and then the two AIV parts (the data flows AIC -> AIV through GM that holds every
    block), or with ``aiv_first`` the AIVs first (they lay out the AIC's input: ``batched.aiv_feeds_aic``);
    their pipes are scheduled jointly (``mix_schedule``)."""
    if not mix:
        return [(bid, 0, 0) for bid in range(n)]
    if aiv_first:
        return [r for c in range(n) for r in ((2 * c, 1, 0), (2 * c + 1, 1, 1), (c, 0, 0))]
    return [r for c in range(n) for r in ((c, 0, 0), (2 * c, 1, 0), (2 * c + 1, 1, 1))]


def run_data_path(sim, m, name: str, n: int, args: list, runs: list, traced: Traced) -> bool:
    """Run the data path of every core of the launch; False when a group could not run together (nothing
    it wrote is wrong then: a grouped kernel reads no GM buffer it writes, so tracing the launch again
    gives every output). A core or a group of cores runs its tape (``tape``) once a replay here recorded one
    (its ``tape.RECORD_AFTER``-th)."""
    ck = m.kernels[name]
    taping = tape.TAPE_MODE != "off" and ck.may_tape
    views = ck.env.get("_gm_cache")
    try:
        if name in sim.joined:  # cores that meet at SyncAll: round by round
            return _run_joined(sim, m, ck, name, n, args, runs, traced)
        return _run_units(m, ck, name, n, args, runs, traced, taping)
    finally:
        if views:  # the launch's GM views (``memory.make_gm_views``) go with it
            views.clear()


def _run_joined(sim, m, ck, name: str, n: int, args: list, runs: list, traced: Traced) -> bool:
    """``run_data_path`` of a kernel whose cores meet at SyncAll: the groups of ``traced.plan`` each as one unit
    (``sync_all.run_groups``), else every core on its own; when a group parts ways, what the launch may write is
    put back and its cores run one by one, from then on."""
    def on_error(bid, e):
        raise SimulationError(f"kernel @{name}, core {bid}: the data path failed where its traced run "
                              f"passed: {type(e).__name__}: {e}") from e

    def start(env, unit, data):
        return joined_unit(ck, traced, env or ck.env, unit, args, data)

    start = start if tape.TAPE_MODE != "off" and ck.may_tape else None
    keep = name not in sim.joined_fresh or bool(traced.findings)  # a finding may be a read of a stale UB byte
    if traced.plan:
        # a copy of what the launch writes, in case a group parts ways; a replay has the traced launch's control flow,
        # so once the groups ran together they always do
        before = None if traced.joined_groups_ran else core_order.snapshot(args, sim.written[name])
        try:
            sync_all.run_groups(m, name, ck, n, args, traced.plan, on_error, start, keep)
            traced.joined_groups_ran = True
            return True
        except batched.Diverged:
            if before is None:
                raise SimulationError(f"kernel @{name}: a group of cores parted ways in a replay after running "
                                      "together before") from None
            for a, b in zip(args, before):
                if b is not None:
                    np.copyto(a, b)
            traced.plan = None
    sync_all.run_cores(name, ck.data_fn, n, args, runs, m.ub, on_error, traced=False, start=start, keep=keep)
    return True


def _run_units(m, ck, name: str, n: int, args: list, runs: list, traced: Traced, taping: bool) -> bool:
    """``run_data_path``'s cores, one by one or in the groups of ``traced.plan``; once every unit runs a
    straight-line tape, those functions in turn (``_Runner``)."""
    runner = traced.runners.get(id(ck)) if taping else None
    if runner is not None and runner.valid(m, ck, name):
        try:
            for fn, consts in runner.fns:
                fn(args, consts)
            runner.runs += 1
        except Exception as e:  # noqa: BLE001 - as the units' own runs below
            if traced.plan is None:
                raise SimulationError(f"kernel @{name}: the data path failed where its traced run passed: "
                                      f"{type(e).__name__}: {e}") from e
            return False
        return True
    straight: list = []  # each unit's straight-line function, while every unit has one
    if traced.plan is None:
        for unit in runs:
            bid, ct, sub = unit
            try:
                if not taping or not _taped(ck, traced, ck.env, unit, args, (bid, n, args, None, ct, sub)):
                    ck.data_fn(bid, n, args, None, ct, sub)
            except Exception as e:  # noqa: BLE001 - reported with the kernel and core
                raise SimulationError(f"kernel @{name}, core {bid}: the data path failed where its traced run "
                                      f"passed: {type(e).__name__}: {e}") from e
            _note_straight(straight, traced, ck, unit)
        _keep_runner(m, ck, name, traced, straight, len(runs), None)
        return True
    mix = len(runs) == 3 * n
    biggest, units = None, 0
    for i, (key, bids) in enumerate(traced.plan):
        try:
            if len(bids) == 1:
                for unit in (runs[3 * bids[0]:3 * bids[0] + 3] if mix else ((bids[0], 0, 0),)):
                    bid, ct, sub = unit
                    if not taping or not _taped(ck, traced, ck.env, unit, args, (bid, n, args, None, ct, sub)):
                        ck.data_fn(bid, n, args, None, ct, sub)
                    _note_straight(straight, traced, ck, unit)
                    units += 1
                continue
            for cores, ct, sub in _group_units(traced, i, key, bids, mix, mix and runs[0][1] == 1):
                biggest = max(biggest or 0, len(cores))
                try:
                    _run_group(m, ck, name, n, args, traced, i, cores, ct, sub, taping)
                    ran = (sub,)
                except batched.Diverged:
                    if sub != SUBS_TOGETHER:
                        raise
                    traced.apart.add(i)  # the AIVs' code tells them apart: from now on each AIV on its own (they
                    ran = (0, 1)         # read no GM they write, so running them again gives the same bytes)
                    for s in ran:
                        _run_group(m, ck, name, n, args, traced, i, cores[s::2], ct, s, taping)
                for s in ran:
                    _note_straight(straight, traced, ck, ("group", i, ct, s))
                units += len(ran)
        except Exception:  # noqa: BLE001 - Diverged, or anything a group cannot do: traced again
            return False
    _keep_runner(m, ck, name, traced, straight, units, biggest)
    return True


SUBS_TOGETHER = 2  # the ``sub`` of a unit that runs both AIVs of each AI Core of a group


def _group_units(traced: Traced, i: int, key: tuple, bids: list, mix: bool, aiv_first: bool = False) -> list:
    """(cores, ct, sub) of each unit the ``i``-th group of the plan runs as, in order. A MIX kernel's group runs its
    AICs, then its AIVs (its AIVs first with ``aiv_first``): as one unit of both AIVs of every AI Core (blocks 2c,
    2c + 1, ``sub`` per core) when the two AIVs' traces hold the same data path (``key``: the AIC's, AIV0's and
    AIV1's), else AIV0s then AIV1s."""
    if not mix:
        return [(bids, 0, 0)]
    if key is not None and _alike(key[1], key[2]) and i not in traced.apart:
        aivs = [([2 * b + s for b in bids for s in (0, 1)], 1, SUBS_TOGETHER)]
    else:
        aivs = [([2 * b + s for b in bids], 1, s) for s in (0, 1)]
    return [*aivs, (bids, 0, 0)] if aiv_first else [(bids, 0, 0), *aivs]


def _alike(aiv0: tuple, aiv1: tuple) -> bool:
    """Whether two AIVs' data paths (``data_groups``' records) run the same ops on the same local addresses, the
    UB span of a copy aside (a ``DataCopyPad`` whose block count differs per core, which a group moves core by
    core: ``batched``); a group whose AIVs then differ elsewhere diverges and runs them apart."""
    return len(aiv0) == len(aiv1) and all(
        a == b or (len(a) == len(b) > 2 and a[:2] == b[:2] and a[3:] == b[3:]) for a, b in zip(aiv0, aiv1))


def _run_group(m, ck, name: str, n: int, args: list, traced: Traced, i: int, cores: list, ct: int, sub: int,
               taping: bool) -> None:
    """The data path of the ``i``-th group's ``cores`` (of kind ``ct``; ``sub``: their AIV index, or
    ``SUBS_TOGETHER``)."""
    subs = batched.weak([c % 2 for c in cores]) if sub == SUBS_TOGETHER else sub

    def call():
        return batched.weak(cores), n, args, None, ct, subs

    if not taping or not _taped(ck, traced, m.group_env(name, len(cores)), ("group", i, ct, sub), args, call):
        m.group_fn(name, len(cores), data=True)(*call())


class _Runner:
    """The straight-line functions of a launch's units, in order, and what their globals were built on: the
    machine's group UB and cube rows, and the globals of its biggest group (``Machine.group_env``)."""

    __slots__ = ("ck", "fns", "biggest", "env", "ub2", "cube_rows", "runs")

    def __init__(self, m, ck, name: str, fns: tuple, biggest: int | None):
        self.ck, self.fns, self.biggest, self.runs = ck, fns, biggest, 0
        self.env = None if biggest is None else m.group_env(name, biggest)
        self.ub2, self.cube_rows = m.ub2, m.cube_rows

    def valid(self, m, ck, name: str) -> bool:
        """Whether the units' globals are still the ones their functions were compiled in."""
        return ck is self.ck and (self.biggest is None or (
            m.group_env(name, self.biggest) is self.env and m.ub2 is self.ub2 and m.cube_rows is self.cube_rows))


def _note_straight(straight: list, traced: Traced, ck, unit: tuple) -> None:
    held = traced.tapes.get((id(ck), unit))
    straight.append(None if held is None or held.straight is None else held.straight)


def _keep_runner(m, ck, name: str, traced: Traced, straight: list, units: int, biggest: int | None) -> None:
    """Once every one of the launch's ``units`` ran its straight-line function, keep them as its runner."""
    if len(straight) == units and all(f is not None for f in straight):
        traced.runners[id(ck)] = _Runner(m, ck, name, tuple(straight), biggest)


class UnitTape:
    """The tape of one core or group of cores, recorded on the globals ``env`` (None: not kept; ``_UNRECORDED``
    before it is recorded), how often it ran (or replayed unrecorded), and the straight-line function it became
    (``tape.straight_source``) once it ran often."""

    __slots__ = ("env", "tape", "runs", "straight")

    def __init__(self, env: dict, recorded):
        self.env, self.tape, self.runs, self.straight = env, recorded, 0, None


def _held(ck, traced: Traced, env: dict, unit: tuple) -> UnitTape:
    """The tape of ``unit`` on the globals ``env``, maybe not recorded yet."""
    key = (id(ck), unit)
    held = traced.tapes.get(key)
    if held is None or held.env is not env:
        held = traced.tapes[key] = UnitTape(env, _UNRECORDED)
    return held


def _due(ck, traced: Traced, held: UnitTape) -> bool:
    """Whether this replay of a unit without a tape records it (its ``tape.RECORD_AFTER``-th: most programs run
    only a few times)."""
    held.runs += 1
    if held.runs < tape.RECORD_AFTER or traced.tape_entries > tape.MAX_ENTRIES:
        return False
    if ck.tape_code is None:
        held.tape = None
        return False
    return True


def _keep(traced: Traced, held: UnitTape, fns: list, entries: list) -> None:
    recorded = tape.Tape(fns, entries)
    traced.tape_entries += len(entries)
    held.tape, held.runs = (recorded if recorded.kept() else None), 0


def _taped(ck, traced: Traced, env: dict, unit: tuple, args: list, call) -> bool:
    """Run the unit (a core ``(bid, ct, sub)`` or the ``i``-th group of the plan, ``("group", i, ct, sub)``) by its
    tape, or record its tape while its data path runs (``call``: the data path's arguments, or a function giving
    them); False (nothing run) when it has none to run."""
    held = _held(ck, traced, env, unit)
    if held.tape is not _UNRECORDED:
        if held.tape is None:
            return False
        if held.straight is not None:
            held.straight[0](args, held.straight[1])
            held.runs += 1
            return True
        held.tape.run(args)
        held.runs += 1
        if held.runs == tape.STRAIGHT_AFTER:
            _straighten(ck, traced, env)
        return True
    if not _due(ck, traced, held):
        return False
    record, fns = ck.tape_program(env)  # the data path runs, recording its tape
    entries: list = []
    record(*(call() if callable(call) else call), entries)
    _keep(traced, held, fns, entries)
    return True


def joined_unit(ck, traced: Traced, env: dict, unit: tuple, args: list, data):
    """``_taped`` for a unit of a launch whose cores meet at SyncAll: the generator it runs as (``sync_all``), its
    straight-line function's, its tape's (``tape.Tape.rounds``), its data path's recording the tape, or its data
    path's (``data()``: the data path and its arguments)."""
    held = _held(ck, traced, env, unit)
    if held.tape is None or (held.tape is _UNRECORDED and not _due(ck, traced, held)):
        data_fn, call = data()
        return data_fn(*call)
    if held.tape is _UNRECORDED:
        record, fns = ck.tape_program(env)
        return _recording(traced, held, fns, record(*data()[1], entries := []), entries)
    held.runs += 1
    if held.straight is not None:
        return held.straight[0](args, held.straight[1])
    if held.runs == tape.STRAIGHT_AFTER:
        _straighten(ck, traced, env)
    return held.tape.rounds(args)


def _recording(traced: Traced, held: UnitTape, fns: list, rounds, entries: list):
    yield from rounds
    _keep(traced, held, fns, entries)


_UNRECORDED = object()  # a unit whose tape is not recorded yet


def _straighten(ck, traced: Traced, env: dict) -> None:
    """Every short tape (``tape.MAX_STRAIGHT``; a cube kernel's, ``MAX_STRAIGHT_CUBE``) of ``ck``'s units on
    ``env`` that has none yet gets its straight-line function (its sibling cores reach ``tape.STRAIGHT_AFTER`` in
    the same launch: one compile serves them all), for arguments of the sizes of the launch's signature (a replay
    has them)."""
    limit = tape.MAX_STRAIGHT_CUBE if "_CUBE" in env else tape.MAX_STRAIGHT
    units = [u for key, u in list(traced.tapes.items()) if key[0] == id(ck) and u.env is env
             and type(u.tape) is tape.Tape and u.straight is None and len(u.tape.entries) <= limit]
    arg_bytes = [a[0] if type(a[0]) is int else None for a in traced.signature]  # a buffer's bytes, or a scalar
    for u, made in zip(units, ck.straight([u.tape for u in units], env, arg_bytes)):
        u.straight = made


def data_groups(keys: list, mix: bool = False) -> list | None:
    """Groups of cores (of AI Cores for a ``mix`` kernel, whose keys hold the AIC's and two AIVs' traces) whose
    traces differ at most in costs and auxiliary counts (the HBM bytes of a GM read, which depend on the L2
    lines the cores before read: ``ORDERED_TRACE``), so whose data paths run the same ops on the same local
    addresses: [(key, cores)], or None when the groups are too small (``batched.MIN_DATA_GROUP``)."""
    groups: dict[tuple, list[int]] = {}
    def data_of(trace):
        return tuple((r[0], *r[4:]) for r in trace)

    for bid, key in enumerate(keys):
        groups.setdefault(tuple(map(data_of, key[2])) if mix else data_of(key[2]), []).append(bid)
    return list(groups.items()) if len(groups) * batched.MIN_DATA_GROUP <= len(keys) else None


def verify_data_groups(sim, m, name: str, n: int, args: list, runs: list, traced: Traced) -> bool:
    """Run the data path in the groups of ``traced.plan`` and then core by core, from the same arguments, and
    keep the groups only when both give the same bytes (else ``traced.plan`` becomes None). The outputs are
    the core-by-core run's; True."""
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    plan = traced.plan
    grouped = run_data_path(sim, m, name, n, args, runs, traced)
    together = [a.copy() if isinstance(a, np.ndarray) else a for a in args] if grouped else None
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray) and a.flags.writeable:  # (a read-only argument was not written)
            np.copyto(a, b)
    m.ub.fill(0)
    traced.plan = None
    run_data_path(sim, m, name, n, args, runs, traced)
    if together is not None and all(not isinstance(a, np.ndarray) or np.array_equal(a, t)
                                    for a, t in zip(args, together)):
        traced.plan = plan
    traced.unverified = False
    return True
