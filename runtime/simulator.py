"""The simulator's entry points: ``Simulator`` (translate once, run many times) and ``simulate``.

``Simulator(module)`` translates every kernel of an ``ascendc``-level module into Python once.
``run(host, arrays)`` interprets the host function (``memref.alloc``, ``ascendc.launch``, ``func.return``):
each launch runs the kernel functionally on every core in turn (sharing one UB array), schedules each
core's trace on its pipes, checks it for races, and combines the cores into the launch's time. Cores whose
traces are identical (same ops, costs, flags and UB regions; GM offsets do not matter) share one schedule.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, MemRefType, ModuleOp

from pyasc.dialects.ascendc import KERNEL_ATTR
from pyasc.dialects.target import TargetSpec, module_target

from .costs import PIPE_NAMES
from .dtypes import numpy_dtype
from .errors import FindingLog, SimulationError
from .hazards import find_races
from .memory import copy_msg, gm_view, make_pad_helpers, ub_msg, ub_views
from .numerics import cast_into, rsqrt_into
from .queues import TBufState, TPipeState, TQueState, init_buffer
from .report import LaunchReport, Report
from .schedule import KernelTables, schedule
from .translate import CompiledKernel, DivByZero, KernelTranslator, scalar_helpers


class _RunContext:
    """Mutable state the generated code reports into (the current run's findings)."""

    def __init__(self) -> None:
        self.log = FindingLog()


class Simulator:
    """A cycle-approximate simulator of the ``ascendc`` level of one module.

    ``race_check`` turns the UB race check on or off; ``target`` overrides the module's target.
    """

    CACHE_LIMIT = 256

    def __init__(self, module: ModuleOp, *, race_check: bool = True, target: TargetSpec | None = None):
        self.module = module
        self.spec = target or module_target(module)
        self.race_check = race_check
        self.ub = np.zeros(self.spec.ub_bytes, np.uint8)
        self._ctx = _RunContext()
        self.funcs: dict[str, func.FuncOp] = {}
        self.kernels: dict[str, tuple[CompiledKernel, KernelTables]] = {}
        self._timing_cache: dict[tuple, tuple] = {}
        env = self._base_env()
        for op in module.body.block.ops:
            if isinstance(op, func.FuncOp):
                self.funcs[op.sym_name.data] = op
        for name, op in self.funcs.items():
            if KERNEL_ATTR in op.attributes:
                ck = KernelTranslator(op, self.spec, env, self._ctx).translate()
                self.kernels[name] = (ck, KernelTables(ck.infos))

    def _base_env(self) -> dict:
        ubn = self.spec.ub_bytes
        pad_in, pad_out = make_pad_helpers(self.ub, ubn)
        env = {
            "np": np,
            "UBN": ubn,
            "_gm": gm_view,
            "_ub_msg": partial(ub_msg, ub_bytes=ubn),
            "_copy_msg": copy_msg,
            "_pad_in": pad_in,
            "_pad_out": pad_out,
            "_cast": cast_into,
            "_rsqrt": rsqrt_into,
            "TPipeState": TPipeState,
            "TQueState": TQueState,
            "TBufState": TBufState,
            "_init_buffer": init_buffer,
        }
        env.update(ub_views(self.ub))
        env.update(scalar_helpers())
        return env

    @property
    def host_functions(self) -> list[str]:
        return [n for n, f in self.funcs.items() if KERNEL_ATTR not in f.attributes]

    def kernel_source(self, name: str) -> str:
        """The generated Python of a kernel (for debugging the simulator)."""
        return self.kernels[name][0].source

    # ------------------------------------------------------------------------------ running

    def run(self, host: str, args) -> Report:
        """Run host function ``host`` on NumPy arrays (inputs then outputs; outputs written in place)."""
        fop = self.funcs.get(host)
        if fop is None or KERNEL_ATTR in fop.attributes:
            raise SimulationError(f"no host function @{host} in the module (host functions: "
                                  f"{', '.join(self.host_functions) or 'none'})")
        self._ctx.log = FindingLog()
        report = Report(self.spec.name, self.spec.clock_hz)
        report.pipe_busy = {p: 0.0 for p in PIPE_NAMES}
        block = fop.body.block
        if len(args) != len(block.args):
            raise SimulationError(f"@{host} takes {len(block.args)} arguments, got {len(args)}")
        bound, copies = [], []
        for i, (a, x) in enumerate(zip(block.args, args)):
            bound.append(self._bind_arg(host, i, a.type, x, copies))
        with np.errstate(all="ignore"):
            self._run_host(fop, bound, report)
        for orig, tmp in copies:
            orig[...] = tmp
        report.findings = self._ctx.log.items()
        return report

    def _bind_arg(self, host: str, i: int, t, x, copies):
        if not isinstance(t, MemRefType):
            return x
        dt = numpy_dtype(t.element_type)
        shape = tuple(t.get_shape())
        if not isinstance(x, np.ndarray):
            raise SimulationError(f"@{host} argument {i} must be a NumPy array of {dt} {shape}, got {type(x).__name__}")
        if x.dtype != dt or x.size != int(np.prod(shape)):
            raise SimulationError(f"@{host} argument {i} is {x.dtype} {x.shape}, but the function takes "
                                  f"{t} ({dt} {shape})")
        if not x.flags.c_contiguous:
            tmp = np.ascontiguousarray(x)
            copies.append((x, tmp))
            return tmp
        return x

    def _run_host(self, fop: func.FuncOp, args: list, report: Report) -> None:
        env = dict(zip(fop.body.block.args, args))
        for op in fop.body.block.ops:
            name = op.name
            if name == "memref.alloc":
                t = op.results[0].type
                env[op.results[0]] = np.zeros(tuple(t.get_shape()), numpy_dtype(t.element_type))
            elif name == "memref.dealloc":
                pass
            elif name == "arith.constant":
                v = op.value
                if isinstance(v, IntegerAttr):
                    env[op.result] = v.value.data
                elif isinstance(v, FloatAttr):
                    env[op.result] = numpy_dtype(v.type).type(v.value.data)
                else:
                    raise SimulationError(f"unsupported host constant `{op}`")
            elif name == "ascendc.launch":
                kernel = op.kernel.root_reference.data
                self._launch(kernel, op.block_dim.value.data, [env[v] for v in op.args], report)
            elif name == "func.call":
                callee = self.funcs.get(op.callee.root_reference.data)
                if callee is None or KERNEL_ATTR in callee.attributes:
                    raise SimulationError(f"host call `{op}` does not name a host function")
                self._run_host(callee, [env[v] for v in op.arguments], report)
            elif name == "func.return":
                break
            else:
                raise SimulationError(f"host function @{fop.sym_name.data}: unsupported op `{op}`")

    def _launch(self, name: str, n: int, values: list, report: Report) -> None:
        entry = self.kernels.get(name)
        if entry is None:
            raise SimulationError(f"ascendc.launch of @{name}, which is not a kernel of the module")
        ck, tabs = entry
        if len(values) != ck.num_args:
            raise SimulationError(f"ascendc.launch @{name} passes {len(values)} arguments, the kernel takes {ck.num_args}")
        args = [v.reshape(-1).view(np.uint8) if isinstance(v, np.ndarray) else v for v in values]
        spec, log, cache = self.spec, self._ctx.log, self._timing_cache
        self.ub.fill(0)
        fn = ck.fn
        timings = []
        for bid in range(n):
            tr: list[tuple] = []
            try:
                fn(bid, n, args, tr.append)
            except SimulationError:
                raise
            except DivByZero as e:
                raise SimulationError(f"{ck.infos[e.sid].describe()}, core {e.bid}: integer division by zero") from None
            except Exception as e:  # a bug in the simulator or an unsupported construct
                raise SimulationError(f"kernel @{name}, core {bid}: internal simulator error: "
                                      f"{type(e).__name__}: {e}") from e
            key = (name, tuple(tr))
            hit = cache.get(key)
            if hit is None:
                timing = schedule(tr, tabs, bid)
                races = find_races(timing, tabs, spec.ub_bytes, bid) if self.race_check else []
                if len(cache) >= self.CACHE_LIMIT:
                    cache.clear()
                hit = cache[key] = (timing, races)
            timing, races = hit
            log.merge(timing.findings)
            log.merge(races)
            timings.append(timing)
        core_cycles = [t.cycles for t in timings]
        gm = sum(t.gm_bytes for t in timings)
        hbm = gm / spec.hbm_bytes_per_cycle
        cycles = max(max(core_cycles, default=0.0), hbm)
        overhead = spec.launch_overhead_us * 1e-6
        seconds = cycles / spec.clock_hz + overhead
        busy = [{PIPE_NAMES[p]: b for p, b in enumerate(t.busy) if b} for t in timings]
        for t in timings:
            for p, b in enumerate(t.busy):
                report.pipe_busy[PIPE_NAMES[p]] += b
        report.launches.append(LaunchReport(name, n, cycles, seconds, core_cycles, busy, gm, hbm, timings))
        report.seconds += seconds
        report.cycles += cycles + overhead * spec.clock_hz


def parse_module(text: str) -> ModuleOp:
    """Parse IR text with the upstream (builtin, arith, scf, func, memref, ...) and pyasc dialects."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects
    from xdsl.parser import Parser

    from pyasc.dialects import get_all_dialects as pyasc_dialects

    ctx = Context()
    for n, f in get_all_dialects().items():
        ctx.register_dialect(n, f)
    for n, f in pyasc_dialects().items():
        if n not in ctx.registered_dialect_names:
            ctx.register_dialect(n, f)
    return Parser(ctx, text).parse_module()


def simulate(module_or_text, *arrays, host: str | None = None, race_check: bool = True):
    """Simulate ``host`` (default: the module's only non-kernel function) on ``arrays``.

    Returns ``(arrays, report)``; outputs are written into the arrays in place.
    """
    module = parse_module(module_or_text) if isinstance(module_or_text, str) else module_or_text
    sim = Simulator(module, race_check=race_check)
    if host is None:
        hosts = sim.host_functions
        if len(hosts) != 1:
            raise SimulationError(f"the module has {len(hosts)} host functions ({', '.join(hosts)}); pass host=")
        host = hosts[0]
    report = sim.run(host, list(arrays))
    return list(arrays), report
