"""Streams and events (PyTorch-like) on the simulated device.

::

    s = pyasc.Stream()
    start, end = pyasc.Event(), pyasc.Event()
    with pyasc.stream(s):                # or ``with pyasc.Stream() as s:``
        start.record()
        y = f(x)              # returns at once; y is filled when s runs
        end.record()
    y.numpy()                 # waits for s up to y's launch, as PyTorch waits for the producing stream
    end.synchronize()         # or s.synchronize() / pyasc.synchronize()
    start.elapsed_time(end)   # simulated milliseconds

Kernels launched on one stream run in order, when the stream is synchronised, when an event
recorded after them is, or when a tensor they produce is read (``.numpy()``, ``float()``,
printing, a host op, or a launch on another stream, which first waits for it). A tensor of a
queued launch is never readable before that launch ran: unwritten memory is never exposed, and
a tensor whose launch failed raises the failure when read. Outside ``with pyasc.stream(...)``
launches go to the default stream, which runs them at once. The current stream is per thread,
as in PyTorch; a stream's queue and clock are updated under its lock. Every stream keeps a simulated
clock: a launch advances it by the kernel's simulated time, a copy by its bytes over the link's
bandwidth; ``Event.record`` stamps the clock after the work queued before it.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from .errors import PyascError
from .logs import log
from .memory import track_result, track_tensor
from .progress import enabled as progress_shown
from .progress import progress
from .tensor import Tensor

# simulated link bandwidths of a non-blocking copy, bytes/s: host<->device over PCIe 4.0 x16 and
# device<->device over HCCS (Atlas 800T A2: 56 GB/s per link)
HOST_LINK_BYTES_PER_S = 25e9
DEVICE_LINK_BYTES_PER_S = 56e9


class Event:
    """A marker in a stream; ``elapsed_time`` between two recorded events is in simulated ms."""

    def __init__(self, enable_timing: bool = True):
        self.enable_timing = enable_timing
        self._stream: Stream | None = None
        self._time: float | None = None  # simulated seconds on the stream's clock
        self._pending = False
        self._error: BaseException | None = None  # the failure of the work this event follows

    @property
    def stream(self) -> Stream | None:
        """The stream the event was last recorded on."""
        return self._stream

    def record(self, stream: Stream | None = None) -> None:
        s = stream or current_stream()
        self._stream = s
        self._time = None
        self._pending = True
        s._enqueue(_Marker(self))

    def query(self) -> bool:
        """True once the work recorded before the event has run."""
        return not self._pending

    def synchronize(self) -> None:
        if self._pending and self._stream is not None:
            self._stream._run_until(self)
        if self._error is not None:
            raise PyascError("synchronize", f"the queued work this waits for failed: {self._error}") \
                from self._error

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

    def _complete(self, time: float, error: BaseException | None = None) -> None:
        self._time, self._pending, self._error = time, False, error

    def __repr__(self) -> str:
        state = "pending" if self._pending else ("not recorded" if self._stream is None else f"t={self._time:.3e}s")
        return f"<pyasc.Event {state}>"


# -- the work a stream queues ---------------------------------------------------------------------


class _Marker:
    """A recorded event."""

    def __init__(self, event: Event):
        self.done = event

    def run(self, stream: Stream) -> float:
        return 0.0


class _Wait:
    """The stream waits for an event of another stream."""

    def __init__(self, event: Event):
        self.event = event
        self.done = None

    def run(self, stream: Stream) -> float:
        ev = self.event
        if ev._pending and ev._stream is not None and ev._stream is not stream:
            ev._stream._run_until(ev)
        if ev._time is not None and ev._time > stream.clock:
            stream.clock = ev._time
        return 0.0


class _Launch:
    """A compiled program run on the simulator; ``done`` completes when its outputs are written."""

    def __init__(self, compiled, tensors, outputs):
        self.compiled, self.tensors, self.outputs = compiled, tensors, outputs
        self.done = Event()

    def run(self, stream: Stream) -> float:
        inputs = [np.ascontiguousarray(t.numpy()) for t in self.tensors]
        self.tensors = ()
        c = self.compiled
        with launching(stream):
            report = simulate(c, [*inputs, *getattr(c, "constants", ()), *self.outputs])
        return report.seconds


class _Copy:
    """A non-blocking copy of ``src``'s values into ``dst``'s storage."""

    def __init__(self, dst: Tensor, src: Tensor, seconds: float):
        self.dst_storage, self.src, self.seconds = dst._storage, src, seconds
        self.done = Event()

    def run(self, stream: Stream) -> float:
        np.copyto(self.dst_storage, self.src.numpy(), casting="unsafe")
        self.src = None
        log.info("copy of %d bytes on stream %d: %.3f us simulated", self.dst_storage.nbytes, stream.id,
                 self.seconds * 1e6)
        return self.seconds


class Stream:
    """An in-order queue of kernel launches and copies on the simulated device."""

    _count = 0
    _count_lock = threading.Lock()

    def __init__(self, priority: int = 0, *, _default: bool = False):
        self.priority = priority
        self.is_default = _default
        self.clock = 0.0  # simulated seconds at which the stream's queued work ends
        self._queue: list = []
        self._lock = threading.RLock()
        with Stream._count_lock:
            Stream._count += 1
            self.id = 0 if _default else Stream._count
        if not _default:
            _streams.add(self)

    def __repr__(self) -> str:
        return f"<pyasc.Stream {self.id}{' (default)' if self.is_default else ''}, {len(self._queue)} pending>"

    def _enqueue(self, item) -> None:
        with self._lock:
            self._queue.append(item)
        if self.is_default:
            self.synchronize()

    def _wait_for_inputs(self, tensors) -> None:
        """Queue a wait for every input another stream still has to write."""
        for t in tensors:
            ev = t.producer
            if ev is not None and ev.stream is not self:
                self.wait_event(ev)

    def launch(self, compiled, args) -> object:
        """Queue ``compiled(*args)``: the result tensors are returned at once and become readable
        when the launch has run (reading one runs the stream up to it)."""
        tensors = compiled.check_inputs("launch", args)
        for t in tensors:
            track_tensor(t)
        self._wait_for_inputs(tensors)
        outputs = compiled.new_outputs()
        results = [Tensor(o, s.dtype) for o, s in zip(outputs, compiled.outputs)]
        item = _Launch(compiled, tensors, outputs)
        self._queue_producing(item, results)
        return tuple(results) if compiled.returns_tuple else results[0]

    def copy(self, dst: Tensor, src: Tensor, seconds: float) -> Tensor:
        """Queue a copy of ``src`` into ``dst`` taking ``seconds`` of simulated time."""
        self._wait_for_inputs([src, dst])
        self._queue_producing(_Copy(dst, src, seconds), [dst])
        return dst

    def _queue_producing(self, item, results) -> None:
        item.done._stream, item.done._pending = self, True
        for r in results:
            track_tensor(r)
            r._produced_by(item.done)
        self._enqueue(item)

    def wait_event(self, event: Event) -> None:
        self._enqueue(_Wait(event))

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
            while self._queue:
                item = self._queue.pop(0)
                try:
                    seconds = item.run(self)     # a wait moves the clock itself
                    self.clock += seconds
                except Exception as e:  # the outputs of a failed launch stay unreadable
                    if item.done is not None:
                        item.done._complete(self.clock, e)
                    raise
                if item.done is not None:
                    item.done._complete(self.clock)
                    if item.done is marker:
                        return

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc) -> None:
        _stack().pop()


class _LaunchCtx(threading.local):
    stream: Stream | None = None
    start: float = 0.0


_launch_ctx = _LaunchCtx()
_default_stream = Stream(_default=True)
_streams: weakref.WeakSet = weakref.WeakSet()


class _ThreadStreams(threading.local):
    def __init__(self) -> None:
        self.stack: list[Stream] = []


_thread_streams = _ThreadStreams()


def _stack() -> list[Stream]:
    """The streams entered by this thread (``with pyasc.stream(s)``), innermost last."""
    return _thread_streams.stack


def launch_context() -> _LaunchCtx:
    """The stream a simulation running in this thread belongs to, and its start on the stream's clock."""
    return _launch_ctx


class launching:  # noqa: N801 - used like a function
    """``with launching(stream):`` marks the simulations inside as the stream's work."""

    def __init__(self, s: Stream):
        self.s = s

    def __enter__(self):
        _launch_ctx.stream = self.s
        _launch_ctx.start = self.s.clock

    def __exit__(self, *exc) -> None:
        _launch_ctx.stream = None


def simulate(compiled, arrays):
    """Run ``compiled`` on the simulator with ``arrays`` (inputs, constants, outputs); the report."""
    if not compiled.launches_kernels:     # every output is empty: nothing runs
        from pyasc.runtime.report import Report

        return Report(target=compiled.options.target, clock_hz=0.0)
    fresh = len(compiled.outputs)  # the last arrays: this call's new outputs
    if compiled.has_empty:
        arrays = [a for a in arrays if a.size]   # zero-size tensors are no parameters of the kernels
        fresh = 0
    if progress_shown():
        with progress(f"simulating {compiled.name}"):
            report = compiled._sim().run_checked(compiled.name, arrays, fresh)
    else:  # no bar can be shown (not a terminal, or turned off): no progress context per launch
        report = compiled._sim().run_checked(compiled.name, arrays, fresh)
    log.info("launch %s: %.3f us simulated", compiled.name, report.seconds * 1e6)
    return report


def current_stream() -> Stream:
    stack = _stack()
    return stack[-1] if stack else _default_stream


def default_stream() -> Stream:
    return _default_stream


class stream:  # noqa: N801 - PyTorch's spelling
    """``with pyasc.stream(s):`` sends launches (jit calls, eager ops) to ``s``."""

    def __init__(self, s: Stream | None):
        if s is not None and not isinstance(s, Stream):
            raise PyascError("stream", f"expected a pyasc.Stream or None, got {type(s).__name__}")
        self.s = s

    def __enter__(self):
        if self.s is not None:
            _stack().append(self.s)
        return self.s

    def __exit__(self, *exc) -> None:
        if self.s is not None:
            _stack().pop()


def synchronize() -> None:
    """Run everything queued on every stream."""
    for s in list(_streams):
        s.synchronize()
    _default_stream.synchronize()


def launch(compiled, args, checked: bool = False):
    """Run a compiled program on the current stream (at once on the default stream); the entry point
    of ``Compiled.__call__``. ``checked``: ``args`` are known to be concrete Tensors of the program's
    input signature (a ``jit`` call whose cache key says so)."""
    s = current_stream()
    if not s.is_default:
        return s.launch(compiled, args)
    tensors = args if checked else compiled.check_inputs("launch", args)
    arrays = []
    for t, a in zip(tensors, args):
        if t is a:                   # a tensor the caller holds (not an array converted for this call)
            entry = t._mem
            if entry is None or entry[0] != id(t):  # not counted yet (``track_tensor``'s test, without its call)
                track_tensor(t)
            if t._producer is not None:
                s._wait_for_inputs((t,))  # a tensor another stream still writes: that stream runs first
        d = t._storage
        arrays.append(d if d.flags.c_contiguous else np.ascontiguousarray(d))
    ctx = _launch_ctx                # as ``with launching(s)``, inline
    ctx.stream, ctx.start = s, s.clock
    try:  # a checked call's program came from a cache keyed by the target its outputs were checked on
        outs, report = compiled.simulate_arrays(arrays, checked)
    finally:
        ctx.stream = None
    with s._lock:
        s.clock += report.seconds
    if compiled.returns_tuple:
        res = tuple(Tensor._wrap(o, sp.dtype, sp.shape) for o, sp in zip(outs, compiled.outputs))
    else:
        sp = compiled.outputs[0]
        res = (Tensor._wrap(outs, sp.dtype, sp.shape),)
    for r in res:
        track_result(r)
    return res if compiled.returns_tuple else res[0]


def copy(dst: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """Copy ``src``'s values into ``dst`` (same shape; converted to dst's dtype). With
    ``non_blocking`` the copy is queued on the current stream and ``dst`` is readable once it ran."""
    if tuple(dst.shape) != tuple(src.shape):
        raise PyascError("copy_to_device", f"destination shape {tuple(dst.shape)} differs from source shape "
                         f"{tuple(src.shape)}", shapes=[dst.shape, src.shape])
    if dst.is_traced or src.is_traced:
        raise PyascError("copy_to_device", "cannot copy traced tensors inside pyasc.jit")
    link = DEVICE_LINK_BYTES_PER_S if dst.device is not src.device else HOST_LINK_BYTES_PER_S
    seconds = src.nbytes / link
    s = current_stream()
    if non_blocking and not s.is_default:
        return s.copy(dst, src, seconds)
    s._wait_for_inputs([src, dst])
    np.copyto(dst._data, src.numpy(), casting="unsafe")
    with s._lock:
        s.clock += seconds
    return dst
