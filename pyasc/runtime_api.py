"""The user-facing runtime: streams, events, the device memory allocator and the profiler.

Streams (PyTorch-like)::

    s = pyasc.Stream()
    start, end = pyasc.Event(), pyasc.Event()
    with pyasc.stream(s):
        start.record()
        y = f(x)              # returns at once; y's values exist after synchronisation
        end.record()
    end.synchronize()         # or s.synchronize() / pyasc.synchronize()
    start.elapsed_time(end)   # simulated milliseconds

Kernels launched on one stream run in order, when the stream is synchronised (or when an event
recorded after them is). Outside ``with pyasc.stream(...)`` launches go to the default stream,
which runs them at once. Every stream keeps a simulated clock: a launch advances it by the
kernel's simulated time; ``Event.record`` stamps the clock after the work queued before it.

Memory: tensors that a launch reads or writes live in device memory (HBM). The caching allocator
counts them (rounded up to 512 B) until they are garbage-collected; ``memory_stats()`` gives
``allocated``, ``peak_allocated`` and ``reserved`` (2 MiB segments the cache holds on to;
``empty_cache()`` returns the free ones). An allocation past the target's HBM capacity raises
``PyascError`` (device out of memory).

Profiler::

    with pyasc.profiler("trace.json") as prof:
        f(x); pyasc.exp(x)
    prof.summary()                       # table per kernel (also printed)
    prof.export_chrome_trace("t.json")   # Chrome trace / Perfetto: a track per core and pipe
    prof.plot("timeline.png")            # matplotlib (optional dependency)

Threads: everything here may be used from many threads at once. Compiled programs and eager ops
called concurrently each simulate on their own simulator state (see ``pyasc.runtime.simulator``)
and give the same outputs as when called one at a time. The current stream (``with
pyasc.stream(s)``) is per thread, like PyTorch's; a stream's queue, its clock, the memory counters
and a profiler's records are updated under locks. A stream shared by several threads runs its
launches in the order they were queued.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from pyasc.dialects.target import get_target

from .device import get_target as current_target
from .errors import PyascError
from .tensor import Tensor

# ------------------------------------------------------------------------------------ memory

_BLOCK = 512
_SEGMENT = 2 * 2**20


def _capacity() -> int:
    return get_target(current_target()).hbm_capacity_bytes


class _Allocator:
    """A caching allocator's bookkeeping (pyasc has no real device memory to carve)."""

    def __init__(self) -> None:
        self.allocated = 0
        self.peak = 0
        self.reserved = 0
        self.num_allocs = 0
        self.num_frees = 0
        self.capacity: int | None = None  # None: the target's HBM capacity
        self._live: dict[int, int] = {}  # id(array base) -> bytes
        self._lock = threading.RLock()

    def limit(self) -> int:
        return self.capacity if self.capacity is not None else _capacity()

    def alloc(self, nbytes: int, what: str = "tensor") -> int:
        size = max(_BLOCK, -(-int(nbytes) // _BLOCK) * _BLOCK)
        with self._lock:
            cap = self.limit()
            if self.allocated + size > cap:
                raise PyascError("memory", f"device out of memory: tried to allocate {_fmt(size)} for a {what}; "
                                 f"{_fmt(self.allocated)} already allocated of {_fmt(cap)} device capacity "
                                 f"({_fmt(cap - self.allocated)} free)")
            self.allocated += size
            self.num_allocs += 1
            if self.allocated > self.peak:
                self.peak = self.allocated
            if self.allocated > self.reserved:
                self.reserved = min(-(-self.allocated // _SEGMENT) * _SEGMENT, max(cap, self.allocated))
        return size

    def free(self, size: int) -> None:
        with self._lock:
            self.allocated -= size
            self.num_frees += 1

    def track(self, obj, nbytes: int, what: str = "tensor") -> None:
        """Count ``obj`` (a Tensor or array) as device memory until it is garbage-collected."""
        key = id(obj)
        with self._lock:
            if key in self._live:
                return
            size = self.alloc(nbytes, what)
            self._live[key] = size
        try:
            weakref.finalize(obj, self._release, key)
        except TypeError:  # not weak-referenceable: count it as a transient allocation
            self._release(key)

    def _release(self, key: int) -> None:
        with self._lock:
            size = self._live.pop(key, None)
        if size is not None:
            self.free(size)


def _fmt(n: int) -> str:
    for unit, f in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= f:
            return f"{n / f:.2f} {unit}"
    return f"{n} B"


_alloc = _Allocator()


def check_fits(shapes, itemsizes, what: str = "the inputs", target: str | None = None) -> None:
    """Raise ``PyascError`` when tensors of ``shapes`` (elements of ``itemsizes`` bytes) cannot fit in
    the device memory of ``target`` (default: the current one), before anything is allocated."""
    spec = get_target(target or current_target())
    total = sum(int(np.prod(s, dtype=object)) * b for s, b in zip(shapes, itemsizes))
    cap = _alloc.capacity if _alloc.capacity is not None else spec.hbm_capacity_bytes
    if total > cap:
        raise PyascError("memory", f"{what} ({', '.join('x'.join(map(str, s)) for s in shapes)}) do not fit in device "
                         f"memory ({total / 2**30:.2f} GiB of {cap / 2**30:.2f} GiB on {spec.name})")


def memory_stats() -> dict[str, int]:
    """Device memory counters in bytes: allocated, peak_allocated, reserved (and alloc/free counts)."""
    return {"allocated": _alloc.allocated, "peak_allocated": _alloc.peak, "reserved": _alloc.reserved,
            "num_allocs": _alloc.num_allocs, "num_frees": _alloc.num_frees, "capacity": _alloc.limit()}


def memory_allocated() -> int:
    return _alloc.allocated


def max_memory_allocated() -> int:
    return _alloc.peak


def memory_reserved() -> int:
    return _alloc.reserved


def reset_peak_memory_stats() -> None:
    """Restart the peak counter from the memory allocated now."""
    with _alloc._lock:
        _alloc.peak = _alloc.allocated


def empty_cache() -> None:
    """Return the cache's free segments: reserved shrinks to what allocated tensors need."""
    with _alloc._lock:
        _alloc.reserved = -(-_alloc.allocated // _SEGMENT) * _SEGMENT


def set_memory_capacity(nbytes: int | None) -> None:
    """Pretend the device has ``nbytes`` of memory (None: the target's HBM capacity); for tests."""
    _alloc.capacity = nbytes


def track_tensor(t) -> None:
    """Count a concrete tensor as device memory (done for every tensor a launch reads or writes)."""
    if getattr(t, "_trace", None) is None and getattr(t, "_data", None) is not None:
        _alloc.track(t, t._data.nbytes)


# ------------------------------------------------------------------------------------ streams and events


class Event:
    """A marker in a stream; ``elapsed_time`` between two recorded events is in simulated ms."""

    def __init__(self, enable_timing: bool = True):
        self.enable_timing = enable_timing
        self._stream: Stream | None = None
        self._time: float | None = None  # simulated seconds on the stream's clock
        self._pending = False

    def record(self, stream: Stream | None = None) -> None:
        s = stream or current_stream()
        self._stream = s
        self._time = None
        self._pending = True
        s._enqueue(("event", self))

    def query(self) -> bool:
        """True once the work recorded before the event has run."""
        return not self._pending

    def synchronize(self) -> None:
        if self._pending and self._stream is not None:
            self._stream._run_until(self)

    def wait(self, stream: Stream | None = None) -> None:
        """Make ``stream`` (default: current) wait for this event."""
        (stream or current_stream()).wait_event(self)

    def elapsed_time(self, end: Event) -> float:
        """Simulated milliseconds from this event to ``end`` (both recorded and completed)."""
        for e, n in ((self, "start"), (end, "end")):
            if e._stream is None:
                raise PyascError("elapsed_time", f"the {n} event was never recorded")
            if e._pending:
                raise PyascError("elapsed_time", f"the {n} event has not completed; synchronize it first")
            if not e.enable_timing:
                raise PyascError("elapsed_time", f"the {n} event was created with enable_timing=False")
        return (end._time - self._time) * 1e3

    def __repr__(self) -> str:
        state = "pending" if self._pending else ("not recorded" if self._stream is None else f"t={self._time:.3e}s")
        return f"<pyasc.Event {state}>"


class Stream:
    """An in-order queue of kernel launches on the simulated device."""

    _count = 0
    _count_lock = threading.Lock()

    def __init__(self, priority: int = 0, *, _default: bool = False):
        self.priority = priority
        self.is_default = _default
        self.clock = 0.0  # simulated seconds at which the stream's queued work ends
        self._queue: list[tuple] = []
        self._lock = threading.RLock()  # the queue and the clock
        with Stream._count_lock:
            Stream._count += 1
            self.id = 0 if _default else Stream._count
        if not _default:
            _streams.add(self)

    def __repr__(self) -> str:
        return f"<pyasc.Stream {self.id}{' (default)' if self.is_default else ''}, {len(self._queue)} pending>"

    def _enqueue(self, item: tuple) -> None:
        with self._lock:
            self._queue.append(item)
        if self.is_default:
            self.synchronize()

    def launch(self, compiled, args) -> object:
        """Queue ``compiled(*args)``: the result tensors are returned at once, filled when the launch runs."""
        tensors = compiled.check_inputs("launch", args)
        for t in tensors:
            track_tensor(t)
        outputs = [np.empty(s.shape, dtype=s.dtype.np_dtype) for s in compiled.outputs]
        results = [Tensor(o, s.dtype) for o, s in zip(outputs, compiled.outputs)]
        for r in results:
            track_tensor(r)
        self._enqueue(("launch", compiled, tensors, outputs))
        return tuple(results) if compiled.returns_tuple else results[0]

    def wait_event(self, event: Event) -> None:
        self._enqueue(("wait", event))

    def wait_stream(self, other: Stream) -> None:
        e = Event()
        e.record(other)
        self.wait_event(e)

    def query(self) -> bool:
        return not self._queue

    def synchronize(self) -> None:
        self._run_until(None)

    def _run_until(self, marker) -> None:
        with self._lock:
            self._run_queue(marker)

    def _run_queue(self, marker) -> None:
        while self._queue:
            item = self._queue.pop(0)
            kind = item[0]
            if kind == "event":
                ev = item[1]
                ev._time = self.clock
                ev._pending = False
                if ev is marker:
                    return
            elif kind == "wait":
                ev = item[1]
                if ev._pending and ev._stream is not None and ev._stream is not self:
                    ev._stream._run_until(ev)
                if ev._time is not None and ev._time > self.clock:
                    self.clock = ev._time
            else:
                _, compiled, tensors, outputs = item
                inputs = [np.ascontiguousarray(t.numpy()) for t in tensors]
                _launch_ctx.stream = self
                _launch_ctx.start = self.clock
                try:
                    report = compiled._sim().run(compiled.name, [*inputs, *getattr(compiled, "constants", ()), *outputs])
                finally:
                    _launch_ctx.stream = None
                self.clock += report.seconds

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        _stack().pop()


class _LaunchCtx(threading.local):
    stream: Stream | None = None
    start: float = 0.0


class _ThreadStreams(threading.local):
    def __init__(self) -> None:
        self.stack: list[Stream] = []


_launch_ctx = _LaunchCtx()
_default_stream = Stream(_default=True)
_streams: weakref.WeakSet = weakref.WeakSet()
_thread_streams = _ThreadStreams()


def _stack() -> list[Stream]:
    """The streams entered by this thread (``with pyasc.stream(s)``), innermost last."""
    return _thread_streams.stack


def current_stream() -> Stream:
    stack = _stack()
    return stack[-1] if stack else _default_stream


def default_stream() -> Stream:
    return _default_stream


@contextmanager
def stream(s: Stream | None):
    """``with pyasc.stream(s):`` sends launches (jit calls, eager ops) to ``s``."""
    if s is None:
        yield None
        return
    _stack().append(s)
    try:
        yield s
    finally:
        _stack().pop()


def synchronize() -> None:
    """Run everything queued on every stream."""
    for s in list(_streams):
        s.synchronize()
    _default_stream.synchronize()


def launch(compiled, args):
    """Run a compiled program on the current stream (at once on the default stream); the entry point
    of ``Compiled.__call__``."""
    s = current_stream()
    if not s.is_default:
        return s.launch(compiled, args)
    for a in args:
        if isinstance(a, Tensor):
            track_tensor(a)
    _launch_ctx.stream = s
    _launch_ctx.start = s.clock
    try:
        outs, report = compiled.simulate(*args)
    finally:
        _launch_ctx.stream = None
    with s._lock:
        s.clock += report.seconds
    if compiled.returns_tuple:
        res = tuple(Tensor(o, sp.dtype) for o, sp in zip(outs, compiled.outputs))
    else:
        res = (Tensor(outs, compiled.outputs[0].dtype),)
    for r in res:
        track_tensor(r)
    return res if compiled.returns_tuple else res[0]


# ------------------------------------------------------------------------------------ profiler


@dataclass
class LaunchRecord:
    """One simulated kernel launch seen by the profiler."""

    kernel: str
    program: str
    stream: int
    start: float  # simulated seconds on the profiler's device timeline
    seconds: float
    launch: object  # runtime.LaunchReport
    findings: int = 0


@dataclass
class KernelStats:
    kernel: str
    calls: int = 0
    times: list[float] = field(default_factory=list)
    util: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    bounds: dict[str, int] = field(default_factory=lambda: defaultdict(int))


_PIPES = ("V", "MTE2", "MTE3", "S", "M", "MTE1", "FIX")


class Profiler:
    """Records every simulated launch while active; see the module docstring."""

    def __init__(self, path=None, *, max_trace_cores: int | None = None):
        self.path = path
        self.records: list[LaunchRecord] = []
        self.max_trace_cores = max_trace_cores
        self._clock = 0.0
        self._lock = threading.Lock()

    def __enter__(self):
        from pyasc.runtime import simulator

        simulator.add_listener(self._on_run)
        return self

    def __exit__(self, *exc) -> None:
        from pyasc.runtime import simulator

        simulator.remove_listener(self._on_run)
        if self.path is not None and exc[0] is None:
            self.export_chrome_trace(self.path)

    def _on_run(self, sim, host: str, report) -> None:
        s = _launch_ctx.stream
        with self._lock:
            t = max(self._clock, _launch_ctx.start) if s is not None else self._clock
            for lr in report.launches:
                self.records.append(LaunchRecord(lr.kernel, host, s.id if s is not None else 0, t, lr.seconds, lr,
                                                 len(report.errors)))
                t += lr.seconds
            self._clock = t

    # -- analysis -----------------------------------------------------------------------------
    def stats(self) -> dict[str, KernelStats]:
        out: dict[str, KernelStats] = {}
        for r in self.records:
            k = out.setdefault(r.kernel, KernelStats(r.kernel))
            k.calls += 1
            k.times.append(r.seconds)
            for p, u in r.launch.pipe_utilisation.items():
                k.util[p] += u
            k.bounds[r.launch.bounding_pipe] += 1
        return out

    def summary(self, print_it: bool = True) -> str:
        """A table per kernel: calls, simulated avg/min/max us, per-pipe utilisation, bounding pipe."""
        stats = self.stats()
        pipes = [p for p in _PIPES if any(p in k.util for k in stats.values())] or ["V", "MTE2", "MTE3"]
        head = f"{'kernel':<28} {'calls':>5} {'avg us':>9} {'min us':>9} {'max us':>9} " + \
            " ".join(f"{p + ' %':>7}" for p in pipes) + f"  {'bound':<6}"
        lines = [head, "-" * len(head)]
        total = 0.0
        for k in sorted(stats.values(), key=lambda k: -sum(k.times)):
            us = [t * 1e6 for t in k.times]
            total += sum(k.times)
            util = " ".join(f"{100 * k.util.get(p, 0.0) / k.calls:>7.1f}" for p in pipes)
            bound = max(k.bounds, key=k.bounds.get) if k.bounds else "-"
            name = k.kernel if len(k.kernel) <= 28 else k.kernel[:25] + "..."
            lines.append(f"{name:<28} {k.calls:>5} {sum(us) / len(us):>9.2f} {min(us):>9.2f} {max(us):>9.2f} "
                         f"{util}  {bound:<6}")
        lines.append(f"{len(self.records)} launch(es), {total * 1e6:.2f} us simulated in total")
        text = "\n".join(lines)
        if print_it:
            print(text)
        return text

    def events(self) -> list[dict]:
        """Chrome trace events: process = core, thread = pipe (one track per core and pipe)."""
        ev: list[dict] = []
        named: set = set()
        for r in self.records:
            lr = r.launch
            start_us = r.start * 1e6
            cyc_us = 1e6 / _clock_hz(lr)
            ncores = len(lr.timings) if self.max_trace_cores is None else min(len(lr.timings), self.max_trace_cores)
            ev.append({"name": r.kernel, "ph": "X", "pid": "launches", "tid": f"stream {r.stream}",
                       "ts": start_us, "dur": r.seconds * 1e6,
                       "args": {"program": r.program, "cores": lr.block_dim, "cycles": lr.cycles,
                                "bound": lr.bounding_pipe}})
            for c in range(ncores):
                pid = f"core {c}"
                for pipe, items in lr.timings[c].timeline().items():
                    if (pid, pipe) not in named:
                        named.add((pid, pipe))
                        ev.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": pipe,
                                   "args": {"name": f"PIPE_{pipe}"}})
                    for s, e, name in items:
                        if e <= s and not name.startswith(("Wait", "Set", "Pipe")):
                            continue
                        ev.append({"name": name, "ph": "X", "pid": pid, "tid": pipe, "ts": start_us + s * cyc_us,
                                   "dur": max(e - s, 0.0) * cyc_us, "args": {"kernel": r.kernel}})
        return ev

    def export_chrome_trace(self, path) -> None:
        """Write a Chrome trace / Perfetto JSON file (open in chrome://tracing or ui.perfetto.dev)."""
        with open(path, "w") as f:
            json.dump({"traceEvents": self.events(), "displayTimeUnit": "ns"}, f)

    def plot(self, path, max_cores: int = 8) -> None:
        """Draw the timeline (a row per core and pipe, the first ``max_cores`` cores) into ``path``."""
        try:
            import matplotlib

            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError:
            raise PyascError("profiler.plot", "matplotlib is not installed; install it with "
                             "`pip install matplotlib` (or `pip install pyasc[dev]`)") from None
        rows: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
        colors = {"V": "tab:blue", "MTE2": "tab:green", "MTE3": "tab:orange", "S": "tab:gray", "M": "tab:red",
                  "MTE1": "tab:purple", "FIX": "tab:brown"}
        for r in self.records:
            lr = r.launch
            cyc_us = 1e6 / _clock_hz(lr)
            for c in range(min(len(lr.timings), max_cores)):
                for pipe, items in lr.timings[c].timeline().items():
                    for s, e, _ in items:
                        if e > s:
                            rows[(c, pipe)].append((r.start * 1e6 + s * cyc_us, (e - s) * cyc_us))
        keys = sorted(rows, key=lambda k: (k[0], _PIPES.index(k[1]) if k[1] in _PIPES else 99))
        fig, ax = plt.subplots(figsize=(12, max(2.0, 0.3 * len(keys) + 1)))
        for y, k in enumerate(keys):
            ax.broken_barh(rows[k], (y - 0.4, 0.8), facecolors=colors.get(k[1], "black"))
        ax.set_yticks(range(len(keys)), [f"core {c} {p}" for c, p in keys])
        ax.invert_yaxis()
        ax.set_xlabel("simulated time (us)")
        ax.set_title(f"pyasc profile: {len(self.records)} launch(es)")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


def _clock_hz(lr) -> float:
    return lr.clock_hz or 1.8e9


def profiler(path=None, **kw) -> Profiler:
    """``with pyasc.profiler("trace.json") as prof:`` records every launch; the trace is written at exit."""
    return Profiler(path, **kw)
