"""Autotuning: search the compile options of a function with the simulated time as the cost.

::

    result = pyasc.autotune(f, x, y, space={"tile_size": [2048, 8192], "buffers": [1, 2]})
    print(result.table())          # every configuration tried, fastest first
    result.plot("tuning.png")      # the same as a bar chart
    pyasc.jit(f)(x, y)             # compiles with the best configuration from now on

Every configuration of the space (the product of its lists, or a seeded sample of ``max_trials``)
is compiled and simulated on the example arguments; the analytic choice (the compiler's defaults)
is always tried too, and a configuration whose outputs differ from it at the dtype's tolerance is
rejected. The best configuration is kept in the disk cache (``PYASC_CACHE_DIR``), keyed by the
function's source, the input signature, the target and the compiler's version; a ``pyasc.jit``
function compiled without explicit options uses it.

The search runs on a local process pool (``backend="process"``, forked workers), serially
(``"serial"``) or on a Ray cluster (``backend="ray"``: the one ``ray.init`` connected to, or a
local one). Ray is an optional extra: ``pip install pyasc[ray]``.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import PyascError

log = logging.getLogger("pyasc")
BACKENDS = ("process", "serial", "ray")


@dataclass
class Trial:
    """One configuration tried: its options, simulated seconds (None if it failed) and why not."""

    options: dict
    seconds: float | None
    error: str = ""
    analytic: bool = False


@dataclass
class TuneResult:
    """The search: every trial, the best options and the analytic (default) configuration's time."""

    name: str
    target: str
    trials: list[Trial] = field(default_factory=list)

    @property
    def best(self) -> Trial:
        ok = [t for t in self.trials if t.seconds is not None]
        return min(ok, key=lambda t: (t.seconds, not t.analytic))

    @property
    def analytic(self) -> Trial:
        return next(t for t in self.trials if t.analytic)

    @property
    def speedup(self) -> float:
        """Simulated time of the analytic choice over that of the best configuration."""
        return self.analytic.seconds / self.best.seconds

    def table(self) -> str:
        """The trials as a text table, fastest first."""
        names = sorted({k for t in self.trials for k in t.options})
        rows = sorted(self.trials, key=lambda t: (t.seconds is None, t.seconds or 0.0))
        head = [*names, "simulated us", "vs analytic", "note"]
        body = []
        for t in rows:
            speed = f"{self.analytic.seconds / t.seconds:.2f}x" if t.seconds else "-"
            note = "analytic" if t.analytic else t.error
            body.append([str(t.options.get(n, "default")) for n in names] +
                        [f"{t.seconds * 1e6:.2f}" if t.seconds else "failed", speed, note])
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *body]]
        return "\n".join([f"autotune {self.name} on {self.target}: best {self.best.options} "
                          f"({self.speedup:.2f}x the analytic choice)", *lines])

    def plot(self, path) -> Path:
        """A bar chart of the simulated time of every trial (PNG), drawn with matplotlib."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = sorted((t for t in self.trials if t.seconds is not None), key=lambda t: t.seconds)
        labels = ["analytic" if t.analytic else ", ".join(f"{k}={v}" for k, v in t.options.items()) for t in rows]
        fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.2))
        colors = ["tab:green" if t is self.best else "tab:orange" if t.analytic else "tab:blue" for t in rows]
        ax.barh(range(len(rows)), [t.seconds * 1e6 for t in rows], color=colors)
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("simulated time (us)")
        ax.set_title(f"autotune {self.name} on {self.target}")
        fig.tight_layout()
        out = Path(path)
        fig.savefig(out, dpi=100)
        plt.close(fig)
        return out


# ----------------------------------------------------------------------------- the search space

def configurations(space: dict, max_trials: int | None, seed: int) -> list[dict]:
    """The option dicts of ``space`` (name -> list of values), each value checked; at most
    ``max_trials`` of them, sampled with ``seed``."""
    from pyasc.lowering.options import OPTIONS, check_option

    if not isinstance(space, dict) or not space:
        raise PyascError("autotune", f"space must be a non-empty dict of option -> list of values, got {space!r}")
    tunable = sorted(set(OPTIONS) - {"target"})
    for name, values in space.items():
        if name not in tunable:
            raise PyascError("autotune", f"unknown or untunable option '{name}' in space; tunable: {', '.join(tunable)}"
                             " (a target is tuned by a call per target)")
        if not isinstance(values, list | tuple) or not values:
            raise PyascError("autotune", f"space['{name}'] must be a non-empty list of values, got {values!r}")
        for v in values:
            try:
                check_option(name, v)
            except ValueError as e:
                raise PyascError("autotune", f"space['{name}']: {e}") from None
    names = list(space)
    configs = [dict(zip(names, combo)) for combo in itertools.product(*(space[n] for n in names))]
    if max_trials is not None and len(configs) > max_trials:
        configs = random.Random(seed).sample(configs, max_trials)
    return configs


# ----------------------------------------------------------------------------- evaluation

def evaluate(fn, arrays: list[np.ndarray], options: dict) -> tuple[float | None, str, list[np.ndarray]]:
    """Compile ``fn`` with ``options`` and simulate it on ``arrays``: (seconds, error, outputs)."""
    import pyasc

    try:
        tensors = [pyasc.tensor(a) for a in arrays]
        compiled = pyasc.jit(fn, options=options).compile(*tensors)
        outs, report = compiled.simulate(*tensors)
        outs = list(outs) if isinstance(outs, tuple) else [outs]
        return report.seconds, "", [np.asarray(o) for o in outs]
    except PyascError as e:
        return None, str(e).splitlines()[0][:120], []


_TASK: list = []      # (fn, arrays) of the search running in this process: inherited by forked workers


def _evaluate_forked(options: dict):
    fn, arrays = _TASK[0]
    return evaluate(fn, arrays, options)


def _run_process(fn, arrays, configs, workers):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _TASK[:] = [(fn, arrays)]
    try:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            return list(pool.map(_evaluate_forked, configs))
    finally:
        _TASK.clear()


def _run_ray(fn, arrays, configs, workers):
    try:
        import ray
    except ImportError:
        raise PyascError("autotune", "backend='ray' needs Ray: pip install 'pyasc[ray]'") from None
    if not ray.is_initialized():
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(evaluate)
    fn_ref, arrays_ref = ray.put(fn), ray.put(arrays)
    return ray.get([remote.remote(fn_ref, arrays_ref, c) for c in configs])


def _agrees(outs: list[np.ndarray], want: list[np.ndarray]) -> bool:
    from .dtypes import tolerance

    if len(outs) != len(want):
        return False
    for o, w in zip(outs, want):
        if o.shape != w.shape or o.dtype != w.dtype:
            return False
        if o.dtype.kind in "iub":
            if not np.array_equal(o, w):
                return False
            continue
        rtol, atol = tolerance(w.dtype)
        if not np.allclose(o.astype(np.float64), w.astype(np.float64), rtol=4 * rtol, atol=4 * atol, equal_nan=True):
            return False
    return True


# ----------------------------------------------------------------------------- the tuned table

def tuned_key(source: str, signature: str, target: str) -> str:
    from . import cache

    h = hashlib.sha256()
    for part in ("autotune", cache.version_fingerprint(), target, source, signature):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _tuned_path(key: str) -> Path | None:
    from . import cache

    d = cache.cache_dir()
    return None if d is None else d / "autotune" / f"{key}.json"


def lookup(source: str, signature: str, target: str) -> dict | None:
    """The best options found for this function, signature and target, or None."""
    path = _tuned_path(tuned_key(source, signature, target))
    if path is None or not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text())
        options = entry["options"]
        from pyasc.lowering.pipeline import CompileOptions

        CompileOptions.from_dict({**options, "target": target})
        return dict(options)
    except Exception as e:  # noqa: BLE001 - a damaged entry: ignored and removed
        log.warning("pyasc autotune: discarding bad entry %s (%s)", path, type(e).__name__)
        path.unlink(missing_ok=True)
        return None


def _store(key: str, result: TuneResult) -> None:
    path = _tuned_path(key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"options": result.best.options, "seconds": result.best.seconds,
                                   "analytic_seconds": result.analytic.seconds}))
        os.replace(tmp, path)
    except OSError:
        pass


# ----------------------------------------------------------------------------- the entry point

def autotune(fn, *example_args, space: dict, backend: str = "process", workers: int | None = None,
             max_trials: int | None = None, seed: int = 0, target: str | None = None,
             progress_bar: bool = True) -> TuneResult:
    """Search ``space`` for the compile options under which ``fn(*example_args)`` simulates fastest;
    see the module docstring."""
    from . import cache
    from .jit import JitFunction
    from .tensor import Tensor

    if isinstance(fn, JitFunction):
        fn = fn.fn
    if backend not in BACKENDS:
        raise PyascError("autotune", f"backend must be one of {', '.join(BACKENDS)}; got {backend!r}")
    if not example_args or not all(isinstance(a, Tensor | np.ndarray) for a in example_args):
        raise PyascError("autotune", "pass the example arguments as pyasc tensors or NumPy arrays "
                         f"(got {[type(a).__name__ for a in example_args]})")
    configs = configurations(space, max_trials, seed)
    arrays = [np.ascontiguousarray(a.numpy() if isinstance(a, Tensor) else a) for a in example_args]
    from .device import get_target

    target = target or get_target()
    base = {"target": target}
    trials_opts = [base] + [{**c, "target": target} for c in configs if {**c, "target": target} != base]
    workers = max(1, min(workers or os.cpu_count() or 1, len(trials_opts)))
    if backend == "serial" or workers == 1 and backend == "process":
        results = []
        from .progress import progress

        for i, o in enumerate(trials_opts):
            with progress(f"autotune {i + 1}/{len(trials_opts)}") if progress_bar else contextlib.nullcontext():
                results.append(evaluate(fn, arrays, o))
    elif backend == "process":
        results = _run_process(fn, arrays, trials_opts, workers)
    else:
        results = _run_ray(fn, arrays, trials_opts, workers)
    name = getattr(fn, "__name__", "fn")
    out = TuneResult(name, target)
    want = results[0][2]
    if results[0][0] is None:
        raise PyascError("autotune", f"'{name}' does not compile with the default options: {results[0][1]}")
    for i, (opts, (seconds, error, outs)) in enumerate(zip(trials_opts, results)):
        shown = {k: v for k, v in opts.items() if k != "target"}
        if seconds is not None and i and not _agrees(outs, want):
            seconds, error = None, "outputs differ from the analytic configuration's"
        out.trials.append(Trial(shown, seconds, error, analytic=(i == 0)))
    signature = _signature(fn, example_args, target)
    _store(tuned_key(cache.function_source(fn), signature, target), out)
    log.info("autotune %s: best %s, %.2fx the analytic choice", name, out.best.options, out.speedup)
    return out


def _signature(fn, example_args, target: str) -> str:
    """The traced program of ``fn`` on the examples, as ``jit`` keys it."""
    from .jit import JitFunction
    from .tensor import Tensor

    jf = JitFunction(fn, options={"target": target})
    args = [a if isinstance(a, Tensor) else _tensor(a) for a in example_args]
    return str(jf.lower(*args).traced)


def _tensor(a):
    import pyasc

    return pyasc.tensor(a)

