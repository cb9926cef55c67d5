"""``pyasc.jit``: trace a Python function on its input signature, compile it, run it.

::

    @pyasc.jit
    def f(x, y):
        return pyasc.gelu(x * y + 1.5)

    z = f(x, y)                       # trace + compile once per signature, simulate
    f.lower(x, y).as_text("asctile")  # the IR at any level
    c = f.lower(x, y).compile()       # the ascendc-level program
    outs, report = c.simulate(x, y)   # numpy outputs and the simulator's report
    c.write_project("out/")           # Ascend C kernel + AscendCL host + CMake project

Positional arguments are tensors (pyasc Tensors, NumPy arrays, torch tensors) and become the traced
function's parameters; Python numbers, strings and None among them, and keyword arguments, are static: they
are baked into the trace and are part of the cache key. Dicts, lists and tuples of these are flattened
(``optree``) and rebuilt around the traced tensors; results may nest the same way. An argument the function
updates in place is an extra result, written back into the caller's tensor after each call.

A jit function may be called from many threads at once: tracing and compiling take one lock
(a signature is compiled once), and the calls of a compiled program simulate on state of their
own (``pyasc.runtime.simulator``), so each thread gets its own, correct outputs.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import threading
import time
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from pyasc.lowering.pipeline import LEVELS, CompileOptions

from . import amp as _amp
from . import cache
from . import dtypes as dt
from .device import default_target
from .dtypes import DType
from .errors import DataDependentShapeError, PyascError, describe
from .jit_args import (as_tensor_arg, built, call_eagerly, entry_key, entry_of, flattened, nesting, results_of,
                       tensor_names)
from .interop import is_torch_tensor
from .logs import log
from .memory import check_tensor_fits
from .progress import progress
from .streams import launch, simulate
from .tensor import Tensor
from .tracing import Trace, current_trace

TRACED_LEVEL = "traced"
# tracing keeps the current trace in a process-wide stack and the passes are not written for
# concurrent use: one thread at a time traces and compiles (re-entrant: a trace may compile an op)
_COMPILE_LOCK = threading.RLock()


def make_options(options) -> CompileOptions:
    """``CompileOptions`` from None, a dict or CompileOptions; bad options raise PyascError."""
    if options is None:
        return CompileOptions()
    if isinstance(options, CompileOptions):
        return options
    if not isinstance(options, dict):
        raise PyascError("jit", f"options must be a dict, got {describe(options)}")
    try:
        return CompileOptions.from_dict(options)
    except (ValueError, TypeError) as e:
        raise PyascError("jit", f"bad options: {e}") from None


@dataclass(frozen=True)
class TensorSpec:
    """Shape and dtype of one input or output."""

    shape: tuple[int, ...]
    dtype: DType

    def __str__(self) -> str:
        return f"{self.dtype.name}{list(self.shape)}"

    @staticmethod
    def of(t: Tensor) -> TensorSpec:
        return TensorSpec(t.shape, t.dtype)


def _check_inputs(where: str, name: str, specs: tuple[TensorSpec, ...], args) -> list[Tensor]:
    if len(args) != len(specs):
        raise PyascError(where, f"{name} was compiled for {len(specs)} tensor input(s), got {len(args)}")
    out = []
    for i, (spec, a) in enumerate(zip(specs, args)):
        if type(a) is Tensor and a._trace is None and a._shape == spec.shape and a._dtype is spec.dtype:
            out.append(a)           # the common case, without building a TensorSpec
            continue
        if not isinstance(a, Tensor | np.ndarray) and not is_torch_tensor(a):
            raise PyascError(where, f"input {i} of {name} must be a tensor, got {describe(a)}")
        t = as_tensor_arg(a)
        if t.is_traced:
            raise PyascError(where, f"input {i} of {name} is a traced tensor; call compiled programs "
                             "with concrete tensors")
        if TensorSpec.of(t) != spec:
            raise PyascError(where, f"input {i} of {name} is {TensorSpec.of(t)}, but the program was "
                             f"compiled for {spec}", shapes=[t.shape, spec.shape],
                             dtypes=[t.dtype.name, spec.dtype.name])
        out.append(t)
    return out


class _Program:
    """What every form of a traced program carries: its name, options and signature."""

    def __init__(self, name: str, options: CompileOptions, inputs: tuple[TensorSpec, ...],
                 outputs: tuple[TensorSpec, ...], returns_tuple: bool, constants: tuple[np.ndarray, ...] = ()):
        self.name = name
        self.options = options
        self.inputs = inputs
        self.outputs = outputs
        self.returns_tuple = returns_tuple
        self.structure = None  # how the results nest (``nesting``), when the function returns nested tuples
        self.mutated: tuple[int, ...] = ()  # inputs the function updates in place: extra results after its own
        self.user_tuple = returns_tuple  # whether the function's own result is a tuple (or list, or dict)
        # concrete tensors the traced function used (lifted to extra parameters after the inputs)
        self.constants = tuple(constants)
        # whether a call runs kernels: not when every output is a zero-size tensor
        self.launches_kernels = any(not _is_empty(s.shape) for s in outputs)
        # whether some input, constant or output is a zero-size tensor (no parameter of the kernels)
        self.has_empty = any(_is_empty(s.shape) for s in (*inputs, *outputs)) or any(not c.size for c in constants)
        self._outputs_fit_on = None  # the target the outputs were last found to fit on
        self._output_arrays = tuple((s.shape, s.dtype.np_dtype) for s in outputs)  # ``new_outputs``' arrays

    def check_inputs(self, where: str, args) -> list[Tensor]:
        """``args`` as concrete Tensors of the program's input signature; PyascError otherwise."""
        return _check_inputs(where, self.name, self.inputs, args)

    def check_outputs_fit(self) -> None:
        """PyascError naming the program and the shape when an output cannot fit in device memory
        (the chip's memory, so a program whose outputs fit once fits on that target every call)."""
        target = default_target()
        if self._outputs_fit_on == target:
            return
        for i, spec in enumerate(self.outputs):
            check_tensor_fits(self.name, spec.shape, spec.dtype.itemsize, spec.dtype.name,
                              role=f"result {i}" if len(self.outputs) > 1 else "the result")
        self._outputs_fit_on = target

    def new_outputs(self, fit: bool = False) -> list[np.ndarray]:
        """Uninitialised arrays for the outputs (every element is written by the launch), once each is
        known to fit in device memory (``fit``: checked already for the current target)."""
        if not fit:
            self.check_outputs_fit()
        return [np.empty(shape, dtype) for shape, dtype in self._output_arrays]

    def _compiled(self, module: ModuleOp) -> "Compiled":
        """The ``ascendc`` ``module`` of this program, ready to emit, simulate or call."""
        return Compiled(module, self.name, self.options, self.inputs, self.outputs, self.returns_tuple,
                        self.constants)


class Compiled(_Program):
    """A program lowered to the ``ascendc`` level: emit it, simulate it or call it. The emitters and
    the simulator are imported when first used: most programs are only simulated, or only emitted."""

    def __init__(self, module: ModuleOp, name: str, options: CompileOptions,
                 inputs: tuple[TensorSpec, ...], outputs: tuple[TensorSpec, ...], returns_tuple: bool,
                 constants: tuple[np.ndarray, ...] = ()):
        super().__init__(name, options, inputs, outputs, returns_tuple, constants)
        self.module = module
        self._simulator = None
        self._sim_lock = threading.Lock()

    def __repr__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        outs = ", ".join(map(str, self.outputs))
        return f"<pyasc.Compiled {self.name}({ins}) -> ({outs}) on {self.options.target}>"

    @property
    def kernels(self) -> list[str]:
        """Names of the kernel functions of the program."""
        from pyasc.lowering.emit.common import kernels

        return [fn.sym_name.data for fn in kernels(self.module)]

    def as_text(self) -> str:
        return str(self.module)

    # -- emission ---------------------------------------------------------------------------
    def ascendc_source(self) -> str:
        """The Ascend C source of every kernel of the program."""
        from pyasc.lowering.emit.kernel import kernel_source

        return kernel_source(self.module)

    def host_source(self) -> str:
        """The AscendCL host program that allocates, copies and launches the kernels."""
        from pyasc.lowering.emit.host import host_source

        return host_source(self.module, self.name)

    def write_project(self, out_dir, force: bool = False, inputs=None, flow: str = "asc"):
        """Write the Ascend C project (kernels, host, CMake) to ``out_dir`` and return the written
        paths. An existing non-empty folder is only overwritten with ``force=True``. With
        ``inputs`` (the program's input tensors) their data and the simulated outputs are written
        too, as ``input/*.bin`` and ``golden/*.bin``. ``flow``: the CMake flow, ``"asc"`` (the
        devkit's find_package(ASC) flow) or ``"ascendc_library"`` (the legacy one)."""
        from pathlib import Path

        from pyasc.lowering.emit.host import host_plan
        from pyasc.lowering.emit.project import write_project

        out = Path(out_dir)
        if out.is_dir() and any(out.iterdir()) and not force:
            raise PyascError("write_project", f"output folder '{out}' exists and is not empty "
                             "(use force=True / --force to overwrite)")
        data = goldens = None
        if inputs is not None:
            outs, _ = self.simulate(*inputs)
            outs = outs if self.returns_tuple else (outs,)
            plan = host_plan(self.module, self.name)
            arrays = [np.asarray(as_tensor_arg(t).numpy()) for t in [*inputs, *self.constants]]
            data = {b.name: a for b, a in zip(plan.inputs, device_arrays(arrays))}
            goldens = {b.name: o for b, o in zip(plan.outputs, device_arrays(outs))}
        return write_project(self.module, out, inputs=data, goldens=goldens, force=force, host=self.name, flow=flow)

    # -- execution --------------------------------------------------------------------------
    def _sim(self):
        if self._simulator is None:
            from pyasc.collector import gc_paused

            with self._sim_lock, gc_paused():  # translating the kernels builds many objects, as a compilation does
                from pyasc.runtime import Simulator

                if self._simulator is None:
                    self._simulator = Simulator(self.module)
        return self._simulator

    def simulate(self, *args):
        """Run on the simulator: ``(outputs, report)`` with the outputs as NumPy arrays (a tuple when
        the traced function returned a tuple) and the simulator's report (seconds, cycles, ...)."""
        return self.simulate_checked(_check_inputs("simulate", self.name, self.inputs, args))

    def simulate_checked(self, tensors: list[Tensor]):
        """``simulate`` on tensors of the program's input signature (``check_inputs``)."""
        return self.simulate_arrays([d if d.flags.c_contiguous else np.ascontiguousarray(d)
                                     for d in [t._data for t in tensors]])

    def simulate_arrays(self, inputs: list[np.ndarray], outputs_fit: bool = False):
        """``simulate`` on the C-contiguous arrays of the inputs (a list this call extends); ``outputs_fit``:
        the outputs are known to fit in the current target's memory (``check_outputs_fit`` passed for it)."""
        if self.constants:
            inputs += self.constants
        outputs = self.new_outputs(outputs_fit)
        inputs += outputs
        report = simulate(self, inputs)
        return (tuple(outputs) if self.returns_tuple else outputs[0]), report

    def __call__(self, *args):
        """Run on the simulator and return pyasc Tensors (a tuple if the function returned one); on a
        non-default stream (``with pyasc.stream(s):``) the launch is queued and the tensors are filled
        when the stream is synchronised."""
        return launch(self, args)


class Lowered(_Program):
    """A traced program and its lowerings; ``as_text(level)`` prints any level."""

    def __init__(self, traced: ModuleOp, name: str, options: CompileOptions,
                 inputs: tuple[TensorSpec, ...], outputs: tuple[TensorSpec, ...], returns_tuple: bool,
                 constants: tuple[np.ndarray, ...] = ()):
        super().__init__(name, options, inputs, outputs, returns_tuple, constants)
        self.traced = traced
        self._levels: dict[str, ModuleOp] = {}
        self._lifted_taken = False  # the constants went through the first stage's hoisting
        self.lifts = False  # a pass lifted constants to parameters (a disk-cache hit redoes the first stage)
        self.constants_text = ""    # the functions computing the constants (``_take_lifted``)

    def module(self, level: str = "ascendc") -> ModuleOp:
        """The program lowered to ``level`` ("traced" is the unlowered trace); cached."""
        if level == TRACED_LEVEL:
            return self.traced
        if level not in LEVELS:
            raise PyascError("lower", f"unknown level '{level}'; levels: {TRACED_LEVEL}, {', '.join(LEVELS)}")
        with _COMPILE_LOCK:
            return self._module(level)

    def _module(self, level: str) -> ModuleOp:
        if level not in self._levels:
            from pyasc.collector import gc_paused

            with gc_paused():  # the passes' modules, imported by a first compilation, too
                self._compile_to(level)
        return self._levels[level]

    def _compile_to(self, level: str) -> None:
        """``_module``'s compilation, with the collector paused."""
        from pyasc.dialects import make_context
        from pyasc.lowering.errors import CompileError
        from pyasc.lowering.levels import InternalPassError
        from pyasc.lowering.pipeline import CompileBudget, run_stage

        # the stages from the deepest level already kept, on one copy of it; only the level
        # asked for is kept (asking for every level in order costs one compilation)
        done = [lv for lv in LEVELS[: LEVELS.index(level)] if lv in self._levels]
        module = (self._levels[done[-1]] if done else self.traced).clone()
        start = LEVELS.index(done[-1]) + 1 if done else 0
        ctx = make_context()
        budget = CompileBudget()
        try:
            for lv in LEVELS[start: LEVELS.index(level) + 1]:
                t0 = time.perf_counter()
                module = run_stage(module, lv, self.options, ctx, budget)
                if lv == LEVELS[0] and not self._lifted_taken:
                    self._take_lifted(module)
                    self._lifted_taken = True
                log.info("compile %s: stage %s in %.3f s", self.name, lv, time.perf_counter() - t0)
            module.verify()
            self._levels[level] = module
        except InternalPassError as err:
            raise PyascError("jit", f"{err} (compiling '{self.name}' for inputs "
                             f"{', '.join(str(s) for s in self.inputs)}); this is a bug in pyasc, "
                             "please report it") from err
        except (CompileError, ValueError, NotImplementedError) as err:
            raise PyascError("jit", f"cannot compile '{self.name}' for inputs "
                             f"{', '.join(str(s) for s in self.inputs)}: {err}",
                             shapes=[s.shape for s in self.inputs],
                             dtypes=[s.dtype for s in self.inputs]) from None

    def _take_lifted(self, module: ModuleOp) -> None:
        """The program's constants once its constants functions ran on them (on the host, once:
        ``asctensor-hoist-constants``), then those a pass lifted to parameters (the backward's masks)."""
        from pyasc.lowering.const_eval import take_constants
        from pyasc.tracing import lifted_constants

        values, self.constants_text = take_constants(module, self.name, list(self.constants))
        self.constants = tuple(values)
        for op in module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == self.name:
                lifted = lifted_constants(op)
                self.lifts = bool(lifted)
                self.constants = (*self.constants, *lifted)

    def evaluate_constants(self, text: str) -> None:
        """The constants once the constants functions in ``text`` (a module, as ``constants_text``) ran
        on them: what a program served from the disk cache does instead of compiling."""
        from xdsl.parser import Parser

        from pyasc.dialects import make_context
        from pyasc.lowering.const_eval import take_constants

        module = Parser(make_context(), text).parse_module()
        module.verify()
        values, self.constants_text = take_constants(module, self.name, list(self.constants))
        self.constants = tuple(values)

    def as_text(self, level: str = "asctensor") -> str:
        """The IR text at ``level``: "traced", "asctensor" (after decompose and fuse), "asctile",
        "ascbuf" or "ascendc"."""
        return str(self.module(level))

    def compile(self) -> Compiled:
        if not self.launches_kernels:     # nothing to compute: the traced module, never launched
            return self._compiled(self.traced)
        return self._compiled(self.module("ascendc"))


class JitFunction:
    """A function compiled per input signature; see the module docstring. ``shape_infer`` (a list
    with one shape per tensor argument, float32, or a Tensor / (shape, dtype) pair) compiles that
    signature at once, ahead of the first call."""

    def __init__(self, fn, options=None, shape_infer=None):
        if not callable(fn):
            raise PyascError("jit", f"expected a function, got {describe(fn)}")
        self.fn = fn
        self.options = make_options(options)
        # without an explicit target the program compiles for pyasc.set_target's chip
        self._target_given = (isinstance(options, dict) and "target" in options) or \
            (isinstance(options, CompileOptions) and options.target != CompileOptions().target)
        self._tunable = options is None or options == {}   # no explicit options: autotuned ones apply
        self._cache: dict = {}
        self._fast: dict = {}       # (shapes and dtypes, target) -> Compiled, for all-tensor calls
        self._eager: set = set()    # signatures whose trace met a data-dependent shape: run eagerly
        self._source: str | None = None
        try:
            self._params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self._params = []
        functools.update_wrapper(self, fn)
        if shape_infer is not None:
            self.compile(*_example_inputs(self.name, shape_infer))

    @property
    def name(self) -> str:
        return getattr(self.fn, "__name__", "fn")

    def _def_location(self) -> str | None:
        """``"file.py:LINE"`` of the traced function's definition, if known."""
        code = getattr(self.fn, "__code__", None)
        if code is None:
            return None
        return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"

    def _split(self, args, kwargs):
        """Classify the call's arguments: tensors (traced), Python numbers, strings and None (static), and dicts,
        lists and tuples of them (``("tree", (spec, entries))``: their leaves classified the same way, in
        ``optree`` order)."""
        tensors, layout = [], []
        for i, a in enumerate(args):
            pname = self._params[i] if i < len(self._params) else f"arg{i}"
            layout.append(entry_of(self.name, a, i, pname, tensors))
        try:
            static_kw = tuple(sorted(kwargs.items()))
            hash(static_kw)
        except TypeError:
            raise PyascError(self.name, "keyword arguments are static and must be hashable") from None
        key = (tuple(entry_key(e) for e in layout), tuple(TensorSpec.of(t) for t in tensors), static_kw,
               None if self._target_given else default_target(), _amp.state_key() if _amp.active() else None)
        return tensors, layout, key

    def effective_options(self) -> CompileOptions:
        """The options a compilation uses now (the default target follows ``pyasc.set_target``)."""
        if self._target_given or self.options.target == default_target():
            return self.options
        return dataclasses.replace(self.options, target=default_target())

    def _compiled(self, tensors, layout, kwargs, key) -> Compiled:
        """The program for one signature: from memory, else from the disk cache (re-parsed and
        verified), else compiled and stored; dumped when ``PYASC_DUMP_PATH`` is set."""
        compiled = self._cache.get(key)
        if compiled is not None:
            return compiled
        with _COMPILE_LOCK:
            compiled = self._cache.get(key)
            if compiled is None:
                compiled = self._compile_new(tensors, layout, kwargs, key)
        return compiled

    def _compile_new(self, tensors, layout, kwargs, key) -> Compiled:
        lowered = self._lower(tensors, layout, kwargs)
        log.info("jit %s: compiling for (%s)", lowered.name, ", ".join(map(str, lowered.inputs)))
        if self._source is None:
            self._source = cache.function_source(self.fn)
        traced_text = str(lowered.traced)
        if self._tunable:
            from .autotune import lookup

            tuned = lookup(self._source, traced_text, lowered.options.target)
            if tuned:
                lowered.options = CompileOptions.from_dict({**tuned, "target": lowered.options.target})
                log.info("jit %s: autotuned options %s", lowered.name, tuned)
        disk_key = cache.make_key(self._source, traced_text, lowered.options)
        hit = cache.load(disk_key)
        if hit is not None and hit[1].get("outputs") == [str(s) for s in lowered.outputs]:
            if "asctensor.vjp" in traced_text or hit[1].get("lifts"):
                lowered.module("asctensor")   # the constants the backward (or a layout) lifts
            elif isinstance(hit[1].get("constants"), str) and hit[1]["constants"]:
                lowered.evaluate_constants(hit[1]["constants"])
            compiled = lowered._compiled(hit[0])
            log.info("jit %s: disk cache hit %s", lowered.name, disk_key[:12])
        else:
            log.info("jit %s: cache miss, compiling", lowered.name)
            with progress(f"compiling {lowered.name}"):
                compiled = lowered.compile()
            cache.store(disk_key, compiled.module,
                        {"name": lowered.name, "inputs": [str(s) for s in lowered.inputs],
                         "outputs": [str(s) for s in lowered.outputs], "returns_tuple": lowered.returns_tuple,
                         "constants": lowered.constants_text, "lifts": lowered.lifts})
        if cache.dump_path() is not None:
            cache.dump(lowered, compiled, disk_key)
        compiled.structure = lowered.structure
        compiled.mutated, compiled.user_tuple = lowered.mutated, lowered.user_tuple
        self._cache[key] = compiled
        return compiled

    def trace(self, *args, **kwargs) -> ModuleOp:
        """The traced ``asctensor`` module for these arguments (nothing is lowered)."""
        return self.lower(*args, **kwargs).traced

    def lower(self, *args, **kwargs) -> Lowered:
        tensors, layout, _ = self._split(args, kwargs)
        return self._lower(tensors, layout, kwargs)

    def _lower(self, tensors, layout, kwargs) -> Lowered:
        from pyasc.collector import gc_paused

        with _COMPILE_LOCK, gc_paused():  # a trace builds IR, as a compilation does
            return self._trace(tensors, layout, kwargs)

    def _trace(self, tensors, layout, kwargs) -> Lowered:
        if not tensors:
            raise PyascError(self.name, "a pyasc.jit function is compiled for its tensor inputs, and this call "
                             "passes none; pass at least one tensor (a function of no tensors is a constant: "
                             "compute it eagerly, without pyasc.jit)")
        specs = tuple(TensorSpec.of(t) for t in tensors)
        names = tensor_names(layout)
        options = self.effective_options()
        # a zero-size input is known entirely from its shape: it is a constant of the trace, not a
        # parameter, and the ops on it fold at trace time (no kernel sees a zero-size tensor)
        traced = [(s.shape, s.dtype, n) for s, n in zip(specs, names) if not _is_empty(s.shape)]
        with Trace(self.name, traced, options.target) as tr:
            params = iter(tr.block.args)
            proxies = [Tensor(np.empty(s.shape, s.dtype.np_dtype), s.dtype) if _is_empty(s.shape)
                       else Tensor._traced(tr, next(params), s.dtype, s.shape) for s in specs]
            originals = [p._value for p in proxies]
            feed = iter(proxies)
            call_args = [built(e, feed) for e in layout]
            result = self.fn(*call_args, **kwargs)
            # inputs the function updated in place (``x.add_(1)``, ``x[0] = 5``): their new values are extra
            # results, written back into the caller's tensors after each call, as torch.compile does
            mutated = tuple(k for k, (p, v) in enumerate(zip(proxies, originals))
                            if p._trace is tr and p._value is not v)
            structure = nesting(result)
            returns_tuple = isinstance(result, tuple | list | dict)
            results = flattened(result) if returns_tuple else [result]
            if not results:
                raise PyascError(self.name, "the function must return at least one tensor")
            values, outputs = [], []
            for i, r in enumerate(results):
                if not isinstance(r, Tensor):
                    raise PyascError(self.name, f"result {i} must be a tensor, got {describe(r)}")
                outputs.append(TensorSpec(tuple(r.shape), r.dtype))
                if _is_empty(r.shape):
                    continue            # a zero-size result is no output of the kernels
                if r._trace is None:
                    values.append(tr.constant(r.numpy(), r.dtype))
                elif r._trace is not tr:
                    raise PyascError(self.name, f"result {i} comes from another traced function")
                else:
                    values.append(r._value)
            for k in mutated:
                values.append(proxies[k]._value)
                outputs.append(specs[k])
            module = tr.finish(values, self._def_location())
        lowered = Lowered(module, tr.name, options, specs, tuple(outputs), returns_tuple or bool(mutated),
                          tuple(tr.lifted))
        lowered.structure = structure
        lowered.mutated, lowered.user_tuple = mutated, returns_tuple
        lowered.check_outputs_fit()  # before compiling a program whose results cannot exist
        return lowered

    def compile(self, *args, **kwargs) -> Compiled:
        """The compiled program for these arguments (cached per signature)."""
        tensors, layout, key = self._split(args, kwargs)
        return self._compiled(tensors, layout, kwargs, key)

    def __call__(self, *args, **kwargs):
        if current_trace() is not None:   # called while another jit function traces: inlined
            return self.fn(*args, **kwargs)
        # fast path for the common call: concrete pyasc tensors only, no keyword arguments
        if not kwargs and not _amp.active():
            fast = [(a._shape, a._dtype) for a in args if type(a) is Tensor and a._trace is None]
            if len(fast) == len(args):
                compiled = self._fast.get((tuple(fast), default_target()))
                if compiled is not None:  # the key holds every input's shape and dtype: no check again
                    return results_of(compiled, launch(compiled, args, checked=True), args)
        tensors, layout, key = self._split(args, kwargs)
        if key in self._eager:
            return call_eagerly(self.fn, args, kwargs)
        compiled = self._cache.get(key)
        if compiled is None:
            try:
                compiled = self._compiled(tensors, layout, kwargs, key)
            except DataDependentShapeError as e:   # as torch.compile breaks the graph: run eagerly
                log.info("jit %s: %s; this signature runs eagerly, each op compiled on its own", self.name, e)
                self._eager.add(key)
                return call_eagerly(self.fn, args, kwargs)
        result = results_of(compiled, compiled(*tensors), args)
        if not kwargs and not _amp.active() and all(type(a) is Tensor for a in args):
            # after a call that ran: its outputs fit in this target's memory (``launch``'s ``checked``)
            self._fast[(tuple((a._shape, a._dtype) for a in args), default_target())] = compiled
        return result

    def cache_size(self) -> int:
        """Number of signatures compiled so far."""
        return len(self._cache)


def _is_empty(shape) -> bool:
    return 0 in tuple(shape)


def device_arrays(arrays) -> list[np.ndarray]:
    """The arrays of a call (inputs, constants, outputs) that the kernels see: zero-size tensors
    are no parameters of the compiled program."""
    return [a for a in arrays if a.size]


def _example_inputs(name: str, shape_infer) -> list[np.ndarray]:
    """Uninitialised arrays of the signature ``shape_infer`` describes (only their specs are used)."""
    if not isinstance(shape_infer, list | tuple) or not shape_infer:
        raise PyascError("jit", f"shape_infer must be a list with one shape per tensor argument of {name}, "
                         f"got {describe(shape_infer)}")
    out = []
    for i, spec in enumerate(shape_infer):
        if isinstance(spec, Tensor):
            spec = (spec.shape, spec.dtype)
        if (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], tuple | list)
                and not isinstance(spec[1], int)):
            shape, dtype = spec
        else:
            shape, dtype = spec, dt.DEFAULT_FLOAT
        if not isinstance(shape, tuple | list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise PyascError("jit", f"shape_infer[{i}] of {name} must be a shape such as (1024,), got {describe(spec)}")
        try:
            d = dt.get_dtype(dtype)
        except TypeError as e:
            raise PyascError("jit", f"shape_infer[{i}] of {name}: {e}") from None
        out.append(np.empty(tuple(shape), d.np_dtype))
    return out


def jit(fn=None, *, options=None, shape_infer=None):
    """Compile ``fn`` per input signature; usable as ``@jit``, ``@jit(options={...})`` or
    ``jit(fn, shape_infer=[(1024,), (1024,)])`` (compiled for those shapes at once).
    ``options`` keys: target, cores, tile_size, buffers, sync_style."""
    if fn is None:
        opts = make_options(options)
        return lambda f: JitFunction(f, opts, shape_infer)
    return JitFunction(fn, options, shape_infer)
