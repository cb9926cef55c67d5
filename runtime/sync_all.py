"""``SyncAll`` (``ascendc.sync_all``): every core of a launch waits until all of them have arrived.

Data path. A kernel with a ``SyncAll`` is translated into a generator: the op records a
``PipeBarrier<PIPE_ALL>`` (the core drains its pipes first) and yields. ``run_cores`` starts one generator
per core and advances them round by round: every core to its next ``SyncAll``, then all of them on. The
cores share the machine's one UB, so each core's UB is put back before it resumes and kept when it yields.
A core that ends while others wait, and a launch of more blocks than the chip runs at once, hang on the
device: both are errors naming the rule (``sync-all-every-core``, ``sync-all-blocks``).

Replays run each group of cores with one data path as one unit on the group UB, by its tape once recorded
(``replay.joined_unit``). A core's UB is kept only while another unit runs on the same memory, and not at all
when a TPipe ``Reset`` comes right before each ``SyncAll`` (``forgets_ub``).

Timing. Each core's trace is scheduled as usual; the barrier record ends when the core's pipes have
drained. Between two barriers a core runs from its own arrival at the first, so the launch takes, per
stretch between barriers, its slowest core or at least the stretch's GM traffic at the aggregate HBM rate,
plus ``sync_all_cycles`` per barrier (``joined_cycles``).
"""

from __future__ import annotations

import numpy as np

from pyasc.dialects import ascendc as asc
from pyasc.dialects.ascendc.contract import rule

from . import batched
from .codegen import KernelTranslator, record
from .costs import S
from .errors import SimulationError
from .opinfo import BARRIER_ALL, WORK


def sync_all(t: KernelTranslator, op: asc.SyncAllOp) -> None:
    """The core drains its pipes (a ``PipeBarrier<PIPE_ALL>`` record) and hands control back to the launch."""
    if "_CUBE" in t.env:
        raise SimulationError(f"kernel @{t.kernel}: SyncAll in a kernel that uses the cube is not simulated "
                              "(only vector kernels, isAIVOnly = true)")
    sid = t.info(op, S, BARRIER_ALL, label="SyncAll")
    record(t, sid, "0", "0", [])
    t.emit("yield")


def joins_cores(kernel) -> bool:
    """Whether ``kernel`` (a ``func.func``) synchronises its cores."""
    return any(isinstance(op, asc.SyncAllOp) for op in kernel.body.walk())


def forgets_ub(kernel) -> bool:
    """Whether each ``SyncAll`` of ``kernel`` comes right after an op that ``FORGETS_LOCAL_MEMORY`` (a TPipe
    ``Reset``, as ``ascendc-merge-launches`` puts there): no UB byte is live across it (the initcheck reports a
    read of one), so a core's UB need not be kept while the others run."""
    return all(getattr(op.prev_op, "FORGETS_LOCAL_MEMORY", False)
               for op in kernel.body.walk() if isinstance(op, asc.SyncAllOp))


def barrier_sids(infos) -> frozenset[int]:
    """The op ids of a kernel's ``SyncAll`` records."""
    return frozenset(i for i, info in enumerate(infos) if isinstance(info.op, asc.SyncAllOp))


def check_blocks(kernel: str, blocks: int, spec) -> None:
    """A launch of more blocks than vector cores runs in rounds: the first round waits forever."""
    if blocks > spec.vector_cores:
        raise SimulationError(f"deadlock: kernel @{kernel} calls SyncAll and is launched on {blocks} blocks, but "
                              f"{spec.name} runs {spec.vector_cores} vector cores at once; the first "
                              f"{spec.vector_cores} wait forever for the others: {rule('sync-all-blocks').cite()}")


def run_cores(kernel: str, fn, blocks: int, args: list, runs: list, ub: np.ndarray, on_error,
              backwards: bool = False, traced: bool = True, start=None, keep: bool = True) -> list[list]:
    """Runs the cores ``runs`` (``(bid, ct, sub)``) of a launch of ``fn`` round by round between their
    ``SyncAll`` calls (within a round in the order of ``runs``, or the reverse order); returns each core's trace
    (``traced``; else ``fn`` is the data path alone, ``CompiledKernel.data_fn``, and the traces are empty).
    ``on_error(bid, e)`` reports an error of the kernel's code. ``start(env, unit, data)`` (data paths only;
    ``env`` None: the kernel's own globals) gives the generator a unit runs as (``replay.joined_unit``: maybe its
    tape's), ``data()`` being the data path and its arguments, made only when that runs; by default ``fn(*call)``.
    ``keep``: as ``run_rounds``'."""
    traces: list[list] = [[] for _ in runs]
    start = start or _plain_start

    def data(i: int, bid: int, ct: int, sub: int):
        return lambda: (fn, (bid, blocks, args, traces[i].append if traced else None, ct, sub))

    run_rounds(kernel, [(bid, start(None, (bid, ct, sub), data(i, bid, ct, sub)), ub)
                        for i, (bid, ct, sub) in enumerate(runs)], on_error, backwards, keep)
    return traces


def _plain_start(env, unit, data):
    fn, call = data()
    return fn(*call)


def run_groups(m, kernel: str, ck, blocks: int, args: list, plan: list, on_error, start=None,
               keep: bool = True) -> None:
    """The data path of a launch whose cores ran ``plan`` ([(trace key, cores)]) round by round: each group of
    cores with one trace as one unit (``batched``, on the group UB), each other core on its own; raises
    ``batched.Diverged`` when a group's cores part ways (the caller runs the launch again core by core).
    ``start(env, unit, data)``: as ``run_cores``'; a group's unit is ``("group", i, 0, 0)``, the plan's ``i``-th,
    and its ``env`` its globals (``Machine.group_env``). ``keep``: as ``run_rounds``'."""
    start = start or _plain_start

    def core(bid: int):
        return lambda: (ck.data_fn, (bid, blocks, args, None, 0, 0))

    def group(bids: list):
        return lambda: (m.group_fn(kernel, len(bids), data=True), (batched.weak(bids), blocks, args, None, 0, 0))

    units = []
    order = sorted(range(len(plan)), key=lambda i: -len(plan[i][1]))  # the largest group first: its UB grows once
    for i in order:
        bids = plan[i][1]
        if len(bids) == 1:
            units.append((bids[0], start(ck.env, (bids[0], 0, 0), core(bids[0])), m.ub))
            continue
        k = len(bids)
        units.append((bids[0], start(m.group_env(kernel, k), ("group", i, 0, 0), group(bids)),
                      batched.group_ub(m.spec.ub_bytes, k)[:k]))
    run_rounds(kernel, units, on_error, keep=keep)


def run_rounds(kernel: str, units: list, on_error, backwards: bool = False, keep: bool = True) -> None:
    """Advances ``units`` ([(core named in errors, generator, the UB it runs on)]) round by round: every unit to its
    next ``SyncAll``, then all of them on; each unit's UB put back before it resumes and kept when it yields, when
    another unit runs on the same memory and ``keep`` (a kernel whose UB holds nothing across a SyncAll,
    ``forgets_ub``, needs not)."""
    kept: list = [None] * len(units)
    owners = [_owner(ub) for _, _, ub in units]
    alone = [not keep or owners.count(o) == 1 for o in owners]  # no other unit runs on its UB
    waiting = list(range(len(units)))
    calls = 0
    while waiting:
        arrived, ended = [], []
        for i in (reversed(waiting) if backwards else waiting):
            name, core, ub = units[i]
            if kept[i] is not None:
                np.copyto(ub, kept[i])
            try:
                next(core)
            except StopIteration:
                ended.append(i)
                continue
            except batched.Diverged:
                raise
            except Exception as e:  # noqa: BLE001 - reported with the kernel and core
                on_error(name, e)
            arrived.append(i)
            if alone[i]:
                continue
            if kept[i] is None:
                kept[i] = ub.copy()
            else:
                np.copyto(kept[i], ub)
        if arrived and ended:
            raise SimulationError(
                f"deadlock: kernel @{kernel}: core(s) {_names(units, arrived)} wait in SyncAll call {calls + 1} while "
                f"core(s) {_names(units, ended)} ended after {calls}: {rule('sync-all-every-core').cite()}")
        waiting = sorted(arrived)
        calls += 1


def _owner(a: np.ndarray) -> int:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return id(a)


def groupable(kernel) -> bool:
    """Whether groups of ``kernel``'s cores may run its data path together (``batched``): every op but SyncAll is
    batchable (a joined kernel reads GM it writes, so a group that parts ways runs the launch again from a copy
    of what it writes: ``replay.run_data_path``)."""
    return all(isinstance(op, asc.SyncAllOp) or batched.op_batchable(op) for op in kernel.body.walk())


def _names(units: list, which: list[int]) -> str:
    bids = [units[i][0] for i in which]
    return ", ".join(map(str, bids[:8])) + (f" and {len(bids) - 8} more" if len(bids) > 8 else "")


def joined_cycles(timings: list, tabs, sids: frozenset[int], spec) -> float:
    """The cycles of a launch whose cores meet at every ``SyncAll``: per stretch between barriers its slowest core
    (each core's stretch from its own drained arrival), at least the stretch's GM traffic over the aggregate HBM
    bandwidth, plus ``sync_all_cycles`` per barrier."""
    gm_of, kind_of = tabs.gm, tabs.kind
    stretches = []  # per core: [(end cycle, GM bytes)] of each stretch, the last one ending with the core
    for t in timings:
        marks, gm = [], 0
        for i, r in enumerate(t.records):
            sid = r[0]
            if sid in sids:
                marks.append((t.end[i], gm))
                gm = 0
            elif gm_of[sid] and kind_of[sid] == WORK:
                gm += r[3]
        marks.append((t.cycles, gm))
        stretches.append(marks)
    total, before = 0.0, [0.0] * len(timings)
    for k in range(min(map(len, stretches), default=0)):
        slowest = max(m[k][0] - b for m, b in zip(stretches, before))
        total += max(slowest, sum(m[k][1] for m in stretches) / spec.hbm_bytes_per_cycle)
        before = [m[k][0] for m in stretches]
    return total + spec.sync_all_cycles * (min(map(len, stretches), default=1) - 1)
