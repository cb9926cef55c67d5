"""The simulator's entry points: ``Simulator`` (translate once, run many times) and ``simulate``.

``Simulator(module)`` translates every kernel of an ``ascendc``-level module into Python once.
``run(host, arrays)`` interprets the host function (``memref.alloc``, ``ascendc.launch``, ``func.return``):
each launch runs the kernel functionally on every core in turn (sharing one UB array), schedules each
core's trace on its pipes, checks it for races, and combines the cores into the launch's time. Cores whose
traces are identical (same ops, costs, flags and UB regions; GM offsets do not matter) share one schedule,
and the next time the launch runs, each such group runs in one call of the kernel's code (``batched``).

Threads: ``run`` may be called from many threads at once. The state a run writes (UB and the other
local memories, the findings, the kernels' code bound to them) lives in a ``Machine``; each run takes
a machine of its own from the simulator's pool (translating the kernels again for a new machine the
first time more runs overlap than there are machines), so concurrent runs never share memory. What
runs share is read-only or keyed by the trace (the schedules, the group plans), guarded by a lock.
"""

from __future__ import annotations

import os
import threading
import time
import warnings
from functools import partial

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp

from pyasc.dialects.ascendc import KERNEL_ATTR, KERNEL_TYPE_ATTR, MIX_AIC_1_2
from pyasc.dialects.target import TargetSpec, module_target
from pyasc.dialects.types import numpy_dtype

from . import batched, core_order, fpstate, hazards, replay, sync_all, warm
from .codegen import CompiledKernel
from .costs import PIPE_NAMES, local_layout, make_dma_cost, make_dma_read_cost, pipe_latencies
from .l2 import CoreLines
from .errors import Finding, FindingLog, HazardError, SimulationError
from .initcheck import RULE as INITCHECK_RULE, get_initcheck_default
from .memory import copy_msg, gm_bytes, gm_view, make_gm_views, make_pad_helpers, make_pad_zero, make_view2, ub_msg, \
    ub_views
from .queues import TBufState, TPipeState, TQueData, TQueState, init_buffer
from .report import LaunchReport, Report
from .mix_schedule import schedule_ai_core
from .scalar_ops import DivByZero, scalar_helpers
from .schedule import KernelTables, schedule
from .machine import Machine


# callables ``listener(simulator, host, report)`` told about every run (the profiler, streams); use
# ``add_listener``/``remove_listener``
LISTENERS: list = []
_LISTENERS_LOCK = threading.Lock()


def add_listener(fn) -> None:
    """Tell ``fn(simulator, host, report)`` about every run from now on."""
    with _LISTENERS_LOCK:
        if fn not in LISTENERS:
            LISTENERS.append(fn)


def remove_listener(fn) -> None:
    """Stop telling ``fn`` about runs (no error if it was not listening)."""
    with _LISTENERS_LOCK:
        if fn in LISTENERS:
            LISTENERS.remove(fn)

# cores with identical traces run in groups ("on"), always core by core ("off"), or both, compared ("verify")
BATCH_MODE = os.environ.get("PYASC_SIM_BATCH", "on")


def _notify(sim, host: str, report) -> None:
    if not LISTENERS:  # a list's truth is read at once; a listener added meanwhile hears the next run
        return
    with _LISTENERS_LOCK:
        listeners = list(LISTENERS)
    for fn in listeners:
        fn(sim, host, report)


class Simulator:
    """A cycle-approximate simulator of the ``ascendc`` level of one module.

    ``race_check`` turns the UB race check on or off; ``target`` overrides the module's target.
    """

    # schedules kept per simulator, least recently used dropped first: a whole model (ResNet-18 has
    # 93 launches, up to 24 distinct core traces each) must fit, or every call reschedules everything
    CACHE_LIMIT = 8192
    CACHE_RECORDS = 2_000_000  # trace records held by the cached keys, at most
    MAX_GROUP_FAILURES = 3  # launches whose groups diverged before a kernel is always run core by core

    def __init__(self, module: ModuleOp, *, race_check: bool = True, target: TargetSpec | None = None,
                 hazards: str | None = None, block_dim: int | None = None, initcheck: bool | None = None):
        self.module = module
        # reads of never-written local memory are findings (``initcheck``); None: the default at construction
        self.initcheck = get_initcheck_default() if initcheck is None else initcheck
        self.block_dim = block_dim
        self.spec = target or module_target(module)
        self.race_check = race_check
        self.hazards = hazards  # None: the global hazard policy
        self._warned: set = set()
        # cores whose traces are identical share one schedule and hazard analysis
        # "grouped": cores whose data path a replay ran in a group of cores (``batched``); "warm": runs that
        # replayed a whole recorded host run (``warm``)
        # (``stats`` adds the warm runs, which each machine counts: ``Machine.warm_runs``)
        self._counts = {"cores": 0, "schedules": 0, "schedule_seconds": 0.0, "replays": 0, "grouped": 0, "warm": 0}
        self.funcs: dict[str, func.FuncOp] = {}
        self._lock = threading.Lock()  # the shared tables below and the machine pool
        self._timing_cache: dict[tuple, tuple] = {}
        self._cached_records = 0
        self._steps: dict = {}  # host function -> its parameters and steps (``_host_steps``)
        self._layout = local_layout(self.spec)
        self._hosts: dict = {}  # host function name -> (func, parameters, buffer specs) (``_host``)
        for op in module.body.block.ops:
            if isinstance(op, func.FuncOp):
                self.funcs[op.sym_name.data] = op
        self.mix: set[str] = set()  # MIX kernels: each block is an AI Core (AIC + 2 AIVs)
        self.aiv_first: set[str] = set()  # MIX kernels whose AIVs lay out the AIC's input (run first)
        self.batchable: set[str] = set()  # kernels whose cores may run in groups (``batched``)
        self.data_batchable: set[str] = set()  # kernels whose cores may run their data path in groups
        self._plans: dict[tuple, list] = {}  # (kernel, cores, checked) -> [(trace key, cores)]
        self._failures: dict[str, int] = {}
        self.replayable: set[str] = set()  # kernels whose traces depend on their launch arguments only (``replay``)
        self.trace_tables: dict[str, frozenset] = {}  # the GM arguments whose bytes a kernel's traces read
        self.joined: dict[str, frozenset] = {}  # kernels that call SyncAll -> the op ids of its records
        self.joined_groups: set[str] = set()  # joined kernels whose replays may run groups of cores together
        self.joined_fresh: set[str] = set()  # joined kernels whose UB holds nothing across a SyncAll
        self._orders_checked: set = set()  # launches run again with their cores in another order (``core_order``)
        self.shares_gm: set[str] = set()  # kernels whose cores may read or write GM other cores write (``core_order``)
        self.recorded_only: set[str] = set()  # of those, the kernels whose GM only ops that record it write
        self.written: dict[str, frozenset | None] = {}  # kernel -> the GM arguments it may write (None: any)
        self._traced: dict[tuple, replay.Traced] = {}  # (kernel, cores, checked) -> its last traced launch
        self._warm: dict[str, warm.WarmHost | None] = {}  # host function -> its last run, if it can repeat (``warm``)
        first = Machine(self)
        self._idle: list[Machine] = [first]  # machines no run holds
        self._made: list[Machine] = [first]  # every machine, for ``stats``
        self.machines = 1
        self.ub = first.ub
        self.kernels: dict[str, tuple[CompiledKernel, KernelTables]] = {}
        for name, ck in first.kernels.items():
            op = self.funcs[name]
            self.kernels[name] = (ck, KernelTables(ck.infos, pipe_latencies(self.spec)))
            if getattr(op.attributes.get(KERNEL_TYPE_ATTR), "data", None) == MIX_AIC_1_2:
                self.mix.add(name)
                if batched.aiv_feeds_aic(op):
                    self.aiv_first.add(name)
                if batched.mix_batchable(op):  # traced core by core; data paths in groups
                    self.data_batchable.add(name)
            elif sync_all.joins_cores(op):  # its cores run round by round (``sync_all.run_cores``)
                self.joined[name] = sync_all.barrier_sids(ck.infos)
                if sync_all.groupable(op):  # replays run groups of cores with one trace together
                    self.joined_groups.add(name)
                if sync_all.forgets_ub(op):
                    self.joined_fresh.add(name)
            elif batched.batchable(op):
                (self.data_batchable if batched.ordered_trace(op) else self.batchable).add(name)
            tables = replay.trace_tables(op)
            if tables is not None:
                self.replayable.add(name)
                if tables:
                    self.trace_tables[name] = tables
            if core_order.shares_gm(op):
                self.shares_gm.add(name)
                if name not in self.mix and core_order.recorded_writes_only(op):
                    self.recorded_only.add(name)
            self.written[name] = core_order.written_args(op)

    def _acquire(self) -> Machine:
        try:
            return self._idle.pop()  # one list operation: atomic, so no two runs take the same machine
        except IndexError:
            with self._lock:
                self.machines += 1
        m = Machine(self)
        with self._lock:
            self._made.append(m)
        return m

    @property
    def stats(self) -> dict:
        """Counts of the runs so far: core runs (``cores``), launches replayed (``replays``), cores run in
        groups (``grouped``), whole host runs replayed (``warm``), schedules made and their seconds."""
        with self._lock:
            counts, machines = dict(self._counts), list(self._made)
        for m in machines:
            for (cores, launches, grouped), runs in list(m.warm_runs.values()):
                counts["cores"] += cores * runs
                counts["replays"] += launches * runs
                counts["grouped"] += grouped * runs
                counts["warm"] += runs
        return counts

    def _release(self, machine: Machine) -> None:
        self._idle.append(machine)

    def _base_env(self, ub: np.ndarray) -> dict:
        ubn = self.spec.ub_bytes
        pad_in, pad_out = make_pad_helpers(ub, ubn)
        gm_views, gm_cache = make_gm_views()
        env = {
            "np": np,
            "UBN": ubn,
            "_gm": gm_view,
            "_gm_bytes": gm_bytes,
            "_gmc": gm_views,
            "_gm_cache": gm_cache,
            "_ub_msg": partial(ub_msg, ub_bytes=ubn),
            "_copy_msg": copy_msg,
            "_pad_in": pad_in,
            "_pad_zero": make_pad_zero(ub.reshape(1, -1)),
            "_pad_out": pad_out,
            "_V2": make_view2(ub),
            "TPipeState": TPipeState,
            "TQueState": TQueState,
            "TQueData": TQueData,
            "TBufState": TBufState,
            "_init_buffer": init_buffer,
            "_dma2": make_dma_cost(self.spec, False),
            "_dma3": make_dma_cost(self.spec, True),
            "_dma2_l2": make_dma_cost(self.spec, False, True),
            "_dma2m": make_dma_read_cost(self.spec),
            "_L2V": CoreLines(self.spec),
            "_GMW": None,  # the GM rows copies write, while a launch is watched (``core_order.watch_writes``)
        }
        env.update(ub_views(ub))
        env.update(scalar_helpers())
        return env

    @property
    def host_functions(self) -> list[str]:
        return [n for n, f in self.funcs.items() if KERNEL_ATTR not in f.attributes]

    def kernel_source(self, name: str) -> str:
        """The generated Python of a kernel (for debugging the simulator)."""
        return self.kernels[name][0].source

    # ------------------------------------------------------------------------------ running

    def run(self, host: str, args, *, raise_errors: bool = True) -> Report:
        """Run host function ``host`` on NumPy arrays (inputs then outputs; outputs written in place).

        A fatal problem (deadlock, bad event id, overflow, out-of-bounds access) raises
        ``SimulationError`` whose ``report`` holds the findings so far plus the error; with
        ``raise_errors=False`` it is returned in ``report.error`` instead. Error findings (races, ...)
        then follow the hazard policy (``hazards.set_hazard_policy``).
        """
        fop, params, specs = self._host(host)
        policy = self.hazards or hazards.get_hazard_policy()
        check = self.race_check and policy != "off"
        recorded = self._warm.get(host)
        if recorded is not None and warm.matches(recorded, self, args, policy, check):
            report = self._run_warm(host, recorded, args, raise_errors)
            if report is not None:
                return self._finish(host, report, policy)
        report = Report(self.spec.name, self.spec.clock_hz)
        report.pipe_busy = dict.fromkeys(PIPE_NAMES, 0.0)
        if len(args) != len(params):
            raise SimulationError(f"@{host} takes {len(params)} arguments, got {len(args)}")
        copies = []
        bound = [x if spec is None else self._bind_arg(host, i, spec, x, copies)
                 for i, (spec, x) in enumerate(zip(specs, args))]
        m = self._acquire()
        m.ctx.log = FindingLog()
        m.check = check
        try:
            with np.errstate(all="ignore"):
                self._run_host(m, fop, bound, report)
        except SimulationError as e:
            return self._failed(host, report, m, e, raise_errors)
        finally:
            self._release(m)
        for orig, tmp in copies:
            orig[...] = tmp
        report.findings = m.ctx.log.items()
        if not copies:
            self._warm[host] = warm.record(self, fop, bound, policy, check, report)
        return self._finish(host, report, policy)

    def run_checked(self, host: str, args: list, fresh: int = 0) -> Report:
        """``run`` for a caller that made ``args`` C-contiguous arrays of the host's parameter dtypes and sizes (a
        compiled program's call): a call that replays as the recorded one (``warm``) skips re-checking them. The
        last ``fresh`` arrays are new for this call (its outputs), the others may come again (``Machine.flat``)."""
        recorded = self._warm.get(host)
        if recorded is not None:
            policy = self.hazards or hazards.get_hazard_policy()
            if warm.applies(recorded, self, args, policy, self.race_check and policy != "off"):
                report = self._run_warm(host, recorded, args, True, len(args) - fresh)
                if report is not None:
                    return self._finish(host, report, policy) if report.findings or LISTENERS else report
        return self.run(host, args)

    def _run_warm(self, host: str, recorded: warm.WarmHost, args, raise_errors: bool,
                  kept: int | None = None) -> Report | None:
        """A call that replays as ``recorded`` did (``warm``); None when it cannot. ``kept``: how many of the
        first ``args`` may come again in later calls (all by default)."""
        m = self._acquire()
        if m.ctx.log:  # a log another run left findings in (its report holds a copy of them)
            m.ctx.log = FindingLog()
        m.check = recorded.check
        token = fpstate.quiet()
        try:
            return warm.run(self, m, recorded, args, len(args) if kept is None else kept)
        except SimulationError as e:
            fpstate.restore(token)
            token = None
            report = Report(self.spec.name, self.spec.clock_hz)
            report.pipe_busy = dict.fromkeys(PIPE_NAMES, 0.0)
            return self._failed(host, report, m, e, raise_errors)
        finally:
            if token is not None:
                fpstate.restore(token)
            self._release(m)

    def _failed(self, host: str, report: Report, m: Machine, e: SimulationError, raise_errors: bool) -> Report:
        """The report of a run a fatal problem stopped (raised with it, unless ``raise_errors`` is False)."""
        report.findings = m.ctx.log.items()
        kind = getattr(e, "kind", "error")
        report.error = Finding(kind if kind == "deadlock" else "error", str(e), host, "", 0, loc=getattr(e, "loc", None))
        report.findings.append(report.error)
        e.report = report
        _notify(self, host, report)
        if raise_errors:
            raise e
        return report

    def _finish(self, host: str, report: Report, policy: str) -> Report:
        """The report of a completed run, told to the listeners; its error findings raised or warned of
        as ``policy`` says."""
        _notify(self, host, report)
        if not report.findings:
            return report
        errors = report.errors
        if errors and policy == "error":
            err = HazardError(f"{len(errors)} hazard(s) in @{host}:\n" + "\n".join(str(f) for f in errors))
            err.report = report
            raise err
        if errors and policy == "warn":
            new = [f for f in errors if (f.kind, f.kernel, f.op) not in self._warned]
            if new:
                self._warned.update((f.kind, f.kernel, f.op) for f in new)
                warnings.warn("pyasc simulator: " + "\n".join(str(f) for f in new), RuntimeWarning, stacklevel=4)
        return report

    def allocate_outputs(self, host: str, given: int) -> list[np.ndarray]:
        """Zero arrays for the arguments of ``host`` after the first ``given`` (its outputs)."""
        fop = self.funcs.get(host)
        if fop is None:
            raise SimulationError(f"no host function @{host} in the module")
        out = []
        for a in list(fop.body.block.args)[given:]:
            t = a.type
            if not isinstance(t, MemRefType):
                raise SimulationError(f"@{host}: argument {len(out) + given} ({t}) is not a buffer; pass it")
            out.append(np.zeros(tuple(t.get_shape()), numpy_dtype(t.element_type)))
        return out

    def _host(self, host: str) -> tuple:
        """Host function ``host``, its parameters and, per parameter, (NumPy dtype, shape, size, type) of a
        buffer or None; read from the IR once (converting xDSL types is slow)."""
        entry = self._hosts.get(host)
        if entry is None:
            fop = self.funcs.get(host)
            if fop is None or KERNEL_ATTR in fop.attributes:
                raise SimulationError(f"no host function @{host} in the module (host functions: "
                                      f"{', '.join(self.host_functions) or 'none'})")
            params = tuple(fop.body.block.args)
            specs = []
            for a in params:
                t = a.type
                shape = tuple(t.get_shape()) if isinstance(t, MemRefType) else None
                specs.append(None if shape is None else (numpy_dtype(t.element_type), shape, int(np.prod(shape)), t))
            entry = self._hosts[host] = (fop, params, specs)
        return entry

    @staticmethod
    def _bind_arg(host: str, i: int, spec: tuple, x, copies):
        dt, shape, size, t = spec
        if not isinstance(x, np.ndarray):
            raise SimulationError(f"@{host} argument {i} must be a NumPy array of {dt} {shape}, got {type(x).__name__}")
        if x.dtype != dt or x.size != size:
            raise SimulationError(f"@{host} argument {i} is {x.dtype} {x.shape}, but the function takes "
                                  f"{t} ({dt} {shape})")
        if not x.flags.c_contiguous:
            tmp = np.ascontiguousarray(x)
            copies.append((x, tmp))
            return tmp
        return x

    def _host_steps(self, fop: func.FuncOp) -> tuple[tuple, list[tuple]]:
        """The host function's parameters and its steps, read from the IR once: ("alloc", value, shape,
        dtype), ("const", value, number), ("launch", kernel, block_dim, values), ("call", callee, values)."""
        entry = self._steps.get(fop)
        if entry is not None:
            return entry
        steps = []
        for op in fop.body.block.ops:
            name = op.name
            if name == "memref.alloc":
                t = op.results[0].type
                steps.append(("alloc", op.results[0], tuple(t.get_shape()), numpy_dtype(t.element_type)))
            elif name == "memref.dealloc":
                pass
            elif name == "arith.constant":
                v = op.value
                if isinstance(v, IntegerAttr):
                    steps.append(("const", op.result, v.value.data))
                elif isinstance(v, FloatAttr):
                    steps.append(("const", op.result, numpy_dtype(v.type).type(v.value.data)))
                else:
                    raise SimulationError(f"unsupported host constant `{op}`")
            elif name == "ascendc.launch":
                steps.append(("launch", op.kernel.root_reference.data, op.block_dim.value.data, list(op.args)))
            elif name == "func.call":
                callee = self.funcs.get(op.callee.root_reference.data)
                if callee is None or KERNEL_ATTR in callee.attributes:
                    raise SimulationError(f"host call `{op}` does not name a host function")
                steps.append(("call", callee, list(op.arguments)))
            elif name == "func.return":
                break
            else:
                raise SimulationError(f"host function @{fop.sym_name.data}: unsupported op `{op}`")
        entry = self._steps[fop] = (tuple(fop.body.block.args), steps)
        return entry

    def _run_host(self, m: Machine, fop: func.FuncOp, args: list, report: Report) -> None:
        params, steps = self._host_steps(fop)
        env = dict(zip(params, args))
        for step in steps:
            kind = step[0]
            if kind == "launch":
                n = self.block_dim if self.block_dim is not None else step[2]
                self._launch(m, step[1], n, [env[v] for v in step[3]], report)
            elif kind == "alloc":
                env[step[1]] = m.alloc(step[1], step[2], step[3])
            elif kind == "const":
                env[step[1]] = step[2]
            else:
                self._run_host(m, step[1], [env[v] for v in step[2]], report)

    def _core_keys(self, m: Machine, name: str, n: int, args: list, runs: list, check: bool) -> list[tuple]:
        """Run every core of a launch in turn; the trace key of each core (of each AI Core for MIX:
        its AIC and two AIV traces)."""
        keys, group = [], []
        ck = m.kernels[name]
        if name in self.joined:
            return [(name, check, tuple(tr)) for tr in sync_all.run_cores(
                name, ck.fn, n, args, runs, m.ub, lambda bid, e: _raise_run_error(name, ck, bid, e))]
        for bid, ct, sub in runs:
            tr: list[tuple] = []
            try:
                ck.fn(bid, n, args, tr.append, ct, sub)
            except Exception as e:  # noqa: BLE001 - reported with the kernel and core
                _raise_run_error(name, ck, bid, e)
            if name not in self.mix:
                keys.append((name, check, tuple(tr)))
                continue
            group.append((ct, tuple(tr)))
            if len(group) == 3:  # the AIC's trace first, then the AIVs' (``schedule_ai_core``)
                keys.append((name, check, tuple(t for _, t in sorted(group, key=lambda g: g[0] != 0))))
                group = []
        return keys

    def _plan_groups(self, name: str, n: int, check: bool, keys: list[tuple]) -> None:
        """Remember which cores had identical traces, to run each such group in one call next time (an
        empty plan: no two cores alike)."""
        self._plans[(name, n, check)] = batched.core_groups(keys) or []

    def _group_keys(self, m: Machine, name: str, n: int, args: list, plan: list, check: bool) -> list[tuple] | None:
        """The trace key of every core, each group of the plan run in one call; None when a group's
        cores diverged or its trace differs from the recorded one."""
        keys: list = [None] * n
        for key, bids in plan:
            if len(bids) == 1:
                keys[bids[0]] = self._core_keys(m, name, n, args, [(bids[0], 0, 0)], check)[0]
                continue
            tr: list[tuple] = []
            try:
                m.group_fn(name, len(bids))(batched.weak(bids), n, args, tr.append, 0, 0)
                same = tuple(tr) == key[2]
            except Exception:  # noqa: BLE001 - Diverged, or anything a group cannot do: core by core
                same = False
            if not same:
                return None
            for b in bids:
                keys[b] = key
        return keys

    def _run_again(self, m: Machine, name: str, n: int, args: list, runs: list, keys: list, check: bool,
                   before: list | None, what: str) -> None:
        """Run the launch again core by core (from the arguments as they were, ``before``, when the first run
        may have changed what it reads) and require the same outputs and traces as the first run, ``what``."""
        first = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        for a, b in zip(args, before or ()):
            if isinstance(a, np.ndarray) and a.flags.writeable:  # (a read-only argument was not written)
                np.copyto(a, b)
        m.ub.fill(0)
        log, m.ctx.log = m.ctx.log, FindingLog()  # the first run reported the findings already
        try:
            again = self._core_keys(m, name, n, args, runs, check)
        finally:
            m.ctx.log = log
        if again != keys or not all(not isinstance(a, np.ndarray) or np.array_equal(a, f) for a, f in zip(args, first)):
            raise SimulationError(f"kernel @{name}: {what} gave other results than tracing core by core")

    def _trace_records(self, key: tuple) -> int:
        """Records held by a schedule key (a MIX key holds the AIC and two AIV traces)."""
        return sum(map(len, key[2])) if key[0] in self.mix else len(key[2])

    def _traced_keys(self, m: Machine, name: str, n: int, args: list, runs: list, check: bool):
        """Run the launch with its traces: its cores' trace keys, and the plan of groups the cores ran in (None
        when they ran one by one)."""
        plan = self._plans.get((name, n, check)) if name in self.batchable else None
        if plan:
            keys = self._group_keys(m, name, n, args, plan, check)
            if keys is not None and BATCH_MODE == "verify":
                self._run_again(m, name, n, args, runs, keys, check, None, "running cores in groups")
            if keys is not None:
                return keys, plan
            m.ub.fill(0)  # a group diverged: core by core, and a new plan from its traces
            with self._lock:
                self._plans.pop((name, n, check), None)
                self._failures[name] = self._failures.get(name, 0) + 1
                if self._failures[name] >= self.MAX_GROUP_FAILURES:
                    self.batchable.discard(name)
        keys = self._core_keys(m, name, n, args, runs, check)
        if n > 1 and name in self.batchable and BATCH_MODE != "off" and (name, n, check) not in self._plans:
            with self._lock:
                self._plan_groups(name, n, check, keys)
        return keys, None

    def _launch(self, m: Machine, name: str, n: int, values: list, report: Report) -> None:
        entry = self.kernels.get(name)
        if entry is None:
            raise SimulationError(f"ascendc.launch of @{name}, which is not a kernel of the module")
        ck, tabs = entry
        if len(values) != ck.num_args:
            raise SimulationError(f"ascendc.launch @{name} passes {len(values)} arguments, the kernel takes {ck.num_args}")
        if n <= 0:
            raise SimulationError(f"ascendc.launch @{name} with block_dim {n}: at least one core is needed")
        args = [(v if v.ndim == 1 else v.reshape(-1)).view(np.uint8) if isinstance(v, np.ndarray) else v for v in values]
        check = m.check
        with self._lock:
            self._counts["cores"] += n
        runs = replay.core_runs(n, name in self.mix, name in self.aiv_first)
        if name in self.joined:
            sync_all.check_blocks(name, n, self.spec)
        tables = self.trace_tables.get(name, frozenset())
        sig = replay.signature(args, tables) if name in self.replayable and replay.REPLAY_MODE != "off" else None
        traced = self._traced.get((name, n, check)) if sig is not None else None
        if traced is not None and traced.plan is None and self._plans.get((name, n, check)):
            traced = None  # groups planned since: trace them once, and replay them from then on
        replaying = traced is not None and traced.signature == sig
        before = [a.copy() if isinstance(a, np.ndarray) else a for a in args] \
            if replaying and replay.REPLAY_MODE == "verify" else None
        if not (replaying and traced.initialized):  # else no core reads a UB byte it did not write
            m.ub.fill(0)
        elif before is not None:  # verified: what the replay does not write again reads as NaN
            m.ub.fill(0xFF)
        if replaying:
            m.garbage(name, not traced.initialized or before is not None)
        try:
            if replaying and traced.unverified:  # groups of cores that have only run one by one
                ran = replay.verify_data_groups(self, m, name, n, args, runs, traced)
                if traced.plan is None:
                    with self._lock:
                        self.data_batchable.discard(name)
            else:
                ran = replaying and replay.run_data_path(self, m, name, n, args, runs, traced)
        finally:
            if replaying:
                m.garbage(name, True)
        if ran:
            keys = traced.keys
            m.ctx.log.merge(traced.findings)
            with self._lock:
                self._counts["replays"] += 1
                self._counts["grouped"] += sum(len(bids) for _, bids in traced.plan or () if len(bids) > 1)
            if before is not None:
                self._run_again(m, name, n, args, runs, keys, check, before, "replaying the data path")
        else:
            traced, log = None, m.ctx.log
            m.ctx.log = FindingLog()  # what the kernel's code reports, to report again when replayed
            order = (name, n, check, replay.signature(args, tables))
            ordered = (n > 1 or name in self.mix) and order not in self._orders_checked and (
                name in self.shares_gm or core_order.aliased(args))
            before = core_order.snapshot(args, self.written[name]) if ordered else None
            ub_before = m.ub.copy() if ordered else None
            # a kernel whose GM only Fixpipe and copies out of UB write, with reads of never-written local memory
            # reported, runs again only if two cores write the same bytes (``core_order.watch_writes``)
            watched = core_order.watch_writes(m.kernels[name], args) \
                if ordered and name in self.recorded_only and self.initcheck else None
            try:
                keys, grouped = self._traced_keys(m, name, n, args, runs, check)
                rows = watched if watched is not None and grouped is None else None
                if name in self.joined_groups and n > 1:
                    grouped = batched.core_groups(keys)
                if ordered:
                    with self._lock:
                        self._orders_checked.add(order)
                    if rows is None or not core_order.disjoint_cores(rows):
                        ck = m.kernels[name]
                        core_order.check_launch(m, ck, n, args, runs, before, ub_before, name in self.joined,
                                                3 if name in self.mix else 1, self.funcs[name],
                                                lambda bid, e: _raise_run_error(name, ck, bid, e))
            finally:
                if watched is not None:
                    core_order.unwatch(m.kernels[name])
                found, m.ctx.log = m.ctx.log.items(), log
                log.merge(found)
            if sig is not None:
                # cores traced one by one run their data paths in groups: always for a kernel whose traces depend
                # on the cores before (``data_batchable``), and for one whose traces all differ (no plan of groups)
                unverified = grouped is None and n > 1 and BATCH_MODE != "off" and (
                    name in self.data_batchable or name in self.joined_groups
                    or (name in self.batchable and self._plans.get((name, n, check)) == []))
                if unverified:
                    grouped = replay.data_groups(keys, name in self.mix)
                self._traced[(name, n, check)] = replay.Traced(sig, keys, grouped, found, unverified=grouped is not None
                                                               and unverified)
        if traced is None or traced.launch is None:
            launch = self._account(m, name, n, keys, runs, tabs)
            busy = replay.busy_totals(launch)
            if sig is not None:
                last = self._traced[(name, n, check)]
                last.launch, last.busy = launch, busy
                last.scheduled_findings = any(t.findings for t in launch.timings)
                # checked to read no local byte it did not write: its replays need not fill memory with garbage
                last.initialized = self.initcheck and not any(
                    f.rule == INITCHECK_RULE for f in (*last.findings, *(f for t in launch.timings for f in t.findings)))
            m.ctx.log.merge_schedules(launch.timings)
        else:
            launch, busy = traced.launch, traced.busy
            if traced.scheduled_findings:
                m.ctx.log.merge_schedules(launch.timings)
        pipe_busy = report.pipe_busy
        for p, b in busy:
            pipe_busy[p] += b
        report.launches.append(launch)
        report.seconds += launch.seconds
        report.cycles += launch.cycles + launch.overhead_cycles

    def _account(self, m: Machine, name: str, n: int, keys: list, runs: list, tabs) -> LaunchReport:
        """The report of a launch whose cores traced ``keys``: each distinct trace scheduled (or its schedule
        taken from the cache), the launch's time the slowest core's or the HBM bound."""
        spec, cache, check, layout, mix = self.spec, self._timing_cache, m.check, self._layout, name in self.mix
        timings = []
        seen: dict[int, dict] = {}  # busy table per distinct schedule (cores with the same trace share one)
        found: dict[int, list] = {}  # schedules by key object (the cores of a group share one key)
        for core, key in enumerate(keys):
            entry = found.get(id(key))
            if entry is None:
                with self._lock:
                    entry = found[id(key)] = cache.pop(key, None)
                    if entry is not None:
                        cache[key] = entry  # most recently used last
            if entry is None:
                t0 = time.perf_counter()
                init = self.initcheck
                entry = (schedule_ai_core([list(x) for x in key[2]], tabs, core, check=check, layout=layout,
                                          initcheck=init) if mix
                         else [schedule(list(key[2]), tabs, core, check=check, layout=layout, initcheck=init)])
                with self._lock:
                    self._counts["schedules"] += 1
                    self._counts["schedule_seconds"] += time.perf_counter() - t0
                    size = self._trace_records(key)
                    while cache and (len(cache) >= self.CACHE_LIMIT or
                                     self._cached_records + size > self.CACHE_RECORDS):
                        oldest = next(iter(cache))  # the least recently used
                        del cache[oldest]
                        self._cached_records -= self._trace_records(oldest)
                    cache[key] = found[id(key)] = entry
                    self._cached_records += size
            for timing in entry:
                if id(timing) not in seen:
                    seen[id(timing)] = {PIPE_NAMES[p]: b for p, b in enumerate(timing.busy) if b}
                timings.append(timing)
        core_cycles = [t.cycles for t in timings]
        gm = sum(t.gm_bytes for t in timings)
        hbm = gm / spec.hbm_bytes_per_cycle
        slowest = (sync_all.joined_cycles(timings, tabs, self.joined[name], spec) if name in self.joined
                   else max(core_cycles, default=0.0))
        cycles = max(slowest, hbm)
        overhead = spec.launch_overhead_us * 1e-6
        kinds = ["aic", "aiv", "aiv"] * n if mix else []  # as ``schedule_ai_core`` returns the timings
        return LaunchReport(name, n, cycles, cycles / spec.clock_hz + overhead, core_cycles,
                            [seen[id(t)] for t in timings], gm, hbm, timings, overhead * spec.clock_hz,
                            spec.clock_hz, kinds)


def _raise_run_error(name: str, ck, bid, e: Exception):
    if isinstance(e, SimulationError):
        raise e
    if isinstance(e, DivByZero):
        raise SimulationError(f"{ck.infos[e.sid].describe()}, core {e.bid}: integer division by zero") from None
    raise SimulationError(f"kernel @{name}, core {bid}: internal simulator error: {type(e).__name__}: {e}") from e


def parse_module(text: str) -> ModuleOp:
    """Parse IR text with the upstream (builtin, arith, scf, func, memref, ...) and pyasc dialects."""
    from xdsl.parser import Parser

    from pyasc.dialects import make_context

    return Parser(make_context(), text).parse_module()


def simulate(module_or_text, *arrays, host: str | None = None, race_check: bool = True,
             block_dim: int | None = None, raise_errors: bool = False, hazards: str | None = "ignore"):
    """Simulate ``host`` (default: the module's only non-kernel function) on NumPy ``arrays``.

    ``arrays`` are the host function's arguments in order; missing trailing ones (the outputs) are
    allocated as zeros of their memref type. ``block_dim`` overrides the core count of every launch.
    Returns ``(arrays, report)`` with every argument array (outputs written in place), or
    ``(None, report)`` when the program is wrong: a fatal error (deadlock, bad event id, overflow,
    out-of-bounds access; ``report.error``) or error findings such as races (``report.errors``).
    ``raise_errors=True`` raises ``SimulationError`` for fatal errors instead. ``hazards`` is the
    hazard policy for this run (default: findings only in the report).
    """
    module = parse_module(module_or_text) if isinstance(module_or_text, str) else module_or_text
    sim = Simulator(module, race_check=race_check, hazards=hazards, block_dim=block_dim)
    if host is None:
        hosts = sim.host_functions
        if len(hosts) != 1:
            raise SimulationError(f"the module has {len(hosts)} host functions ({', '.join(hosts)}); pass host=")
        host = hosts[0]
    args = list(arrays) + sim.allocate_outputs(host, len(arrays))
    report = sim.run(host, args, raise_errors=raise_errors)
    if report.error is not None or report.errors:
        return None, report
    return args, report
