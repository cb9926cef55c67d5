"""The profiler: every simulated launch while active, summarised per user-level op.

::

    with pyasc.profiler("/tmp/profile_result"):      # a directory (created if missing)
        y = pyasc.conv2d(x, w, stride=1, padding=1)
        pyasc.relu(y)
    report = pyasc.profiler.summary("/tmp/profile_result")   # read back
    print(report)
    # conv2d: avg=2.310ms, calls=10, min=2.180ms, max=2.670ms, bound=cube, HBM 412.3 GB/s
    # relu:   avg=0.420ms, calls=10, min=0.380ms, max=0.510ms, bound=HBM, HBM 1410.2 GB/s
    # bottleneck: conv2d takes 84.6% of the total time (cube-bound)
    # memory: peak allocated ..., HBM traffic ..., average bandwidth ...

The directory gets ``trace.json`` (Chrome trace / Perfetto: a track per stream, core and pipe),
``timeline.png`` (the same timeline drawn with matplotlib), ``profile.json`` (what
``profiler.summary`` reads back) and ``summary.txt``. A path ending in ``.json`` is the trace
file itself, with the others beside it (``<stem>.png``, ``<stem>.profile.json``,
``<stem>.summary.txt``). A user-level op is what the user called: an eager op (``relu``), a
``pyasc.jit`` function or a custom op; its time is the simulated time of all its kernels. The
bounding unit of an op is the one that decides most of its time: ``cube`` (the M, MTE1 and FIX
pipes), ``vector`` (V, MTE3), ``HBM`` (global-memory bandwidth) or ``scalar``.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pyasc.dialects.target import get_target

from .device import get_target as current_target
from .errors import PyascError, describe
from .logs import log
from .memory import device_allocator, fmt_bytes
from .streams import launch_context

_PIPES = ("V", "MTE2", "MTE3", "S", "M", "MTE1", "FIX")
UNITS = {"M": "cube", "MTE1": "cube", "FIX": "cube", "V": "vector", "MTE3": "vector", "MTE2": "HBM",
         "HBM": "HBM", "S": "scalar"}
EAGER_PREFIX = "eager_"
TIMELINE_CORES = 2          # cores drawn in the timeline picture a profile directory gets


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
class OpRecord:
    """One call of a user-level op: all the kernels of one simulated program run."""

    op: str
    stream: int
    start: float
    seconds: float
    gm_bytes: int
    units: dict[str, float]  # bounding unit -> simulated seconds it decided

    @property
    def bound(self) -> str:
        return max(self.units, key=self.units.get) if self.units else "-"


@dataclass
class OpStats:
    """An op's calls in a profile (times in milliseconds)."""

    op: str
    calls: int
    total_ms: float
    avg_ms: float
    min_ms: float
    max_ms: float
    share: float        # of the total simulated time
    bound: str
    gm_bytes: int

    @property
    def bandwidth(self) -> float:
        """Average global-memory bandwidth, bytes/s."""
        return self.gm_bytes / (self.total_ms * 1e-3) if self.total_ms > 0 else 0.0


@dataclass
class ProfileSummary:
    """``print(summary)`` shows it; ``ops`` maps op name -> OpStats (slowest first)."""

    ops: dict[str, OpStats]
    total_ms: float
    peak_allocated: int
    gm_bytes: int
    hbm_peak_bytes_per_s: float
    kernel_table: str = ""

    @property
    def bottleneck(self) -> OpStats | None:
        return next(iter(self.ops.values()), None)

    def __str__(self) -> str:
        width = max((len(o) for o in self.ops), default=0) + 1
        lines = []
        for s in self.ops.values():
            bw = s.bandwidth
            lines.append(f"{s.op + ':':<{width}} avg={s.avg_ms:.3f}ms, calls={s.calls}, min={s.min_ms:.3f}ms, "
                         f"max={s.max_ms:.3f}ms, share={100 * s.share:.1f}%, bound={s.bound}, "
                         f"HBM {bw / 1e9:.1f} GB/s ({100 * bw / self.hbm_peak_bytes_per_s:.1f}% of peak)")
        b = self.bottleneck
        if b is None:
            lines.append("no launches recorded")
        else:
            lines.append(f"bottleneck: {b.op} takes {100 * b.share:.1f}% of the total time "
                         f"({self.total_ms:.3f} ms), bound by {b.bound}")
        avg_bw = self.gm_bytes / (self.total_ms * 1e-3) if self.total_ms > 0 else 0.0
        lines.append(f"memory: peak allocated {fmt_bytes(self.peak_allocated)}, HBM traffic "
                     f"{fmt_bytes(self.gm_bytes)}, average bandwidth {avg_bw / 1e9:.1f} GB/s "
                     f"({100 * avg_bw / self.hbm_peak_bytes_per_s:.1f}% of {self.hbm_peak_bytes_per_s / 1e9:.0f} GB/s)")
        if self.kernel_table:
            lines += ["", "per kernel:", self.kernel_table]
        return "\n".join(lines)

    __repr__ = __str__


def summarize(ops: list[OpRecord], peak_allocated: int, hbm_peak: float, kernel_table: str = "") -> ProfileSummary:
    """The per-op summary of a list of op calls."""
    total = sum(r.seconds for r in ops)
    by_op: dict[str, list[OpRecord]] = defaultdict(list)
    for r in ops:
        by_op[r.op].append(r)
    stats = []
    for name, rs in by_op.items():
        ms = [r.seconds * 1e3 for r in rs]
        units: dict[str, float] = defaultdict(float)
        for r in rs:
            for u, t in r.units.items():
                units[u] += t
        avg = min(max(sum(ms) / len(ms), min(ms)), max(ms))     # no rounding past the extremes
        stats.append(OpStats(name, len(rs), sum(ms), avg, min(ms), max(ms),
                             sum(r.seconds for r in rs) / total if total > 0 else 0.0,
                             max(units, key=units.get) if units else "-", sum(r.gm_bytes for r in rs)))
    stats.sort(key=lambda s: -s.total_ms)
    return ProfileSummary({s.op: s for s in stats}, total * 1e3, peak_allocated,
                          sum(r.gm_bytes for r in ops), hbm_peak, kernel_table)


def _paths(path) -> dict[str, Path] | None:
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() == ".json" and not p.is_dir():
        stem = p.with_suffix("")
        return {"trace": p, "png": stem.with_suffix(".png"), "profile": Path(f"{stem}.profile.json"),
                "summary": Path(f"{stem}.summary.txt")}
    return {"dir": p, "trace": p / "trace.json", "png": p / "timeline.png", "profile": p / "profile.json",
            "summary": p / "summary.txt"}


class Profiler:
    """Records every simulated launch while active; see the module docstring."""

    def __init__(self, path=None, *, max_trace_cores: int | None = None, timeline: bool = True):
        self.path = path
        self.records: list[LaunchRecord] = []
        self.ops: list[OpRecord] = []
        self.max_trace_cores = max_trace_cores
        self.timeline = timeline
        self._clock = 0.0
        self._peak = 0
        self._paths = _paths(path)
        self._lock = threading.Lock()       # launches may be simulated by several threads

    def __enter__(self):
        from pyasc.runtime import simulator

        if self._paths is not None and "dir" in self._paths:
            d = self._paths["dir"]
            if d.exists() and not d.is_dir():
                raise PyascError("profiler", f"'{d}' exists and is not a directory")
            d.mkdir(parents=True, exist_ok=True)
        self._peak = device_allocator().allocated
        simulator.add_listener(self._on_run)
        return self

    def __exit__(self, *exc) -> None:
        from pyasc.runtime import simulator

        simulator.remove_listener(self._on_run)
        if self._paths is not None and exc[0] is None:
            self.save()

    def save(self) -> None:
        """Write the trace, the timeline picture, the profile and its summary to the profiler's path."""
        p = self._paths
        self.export_chrome_trace(p["trace"])
        p["profile"].write_text(json.dumps({
            "ops": [r.__dict__ for r in self.ops], "peak_allocated": self._peak,
            "hbm_peak_bytes_per_s": _hbm_peak(), "kernel_table": self.kernel_table()}))
        p["summary"].write_text(str(self.summary(print_it=False)) + "\n")
        if self.timeline:
            try:
                self.plot(p["png"], max_cores=TIMELINE_CORES)
            except PyascError as e:     # matplotlib missing: the rest of the profile is still written
                log.warning("%s", e)
        log.info("profile written to %s", p.get("dir", p["trace"]))

    def _on_run(self, sim, host: str, report) -> None:
        with self._lock:
            self._record(host, report)

    def _record(self, host: str, report) -> None:
        ctx = launch_context()
        s = ctx.stream
        t = max(self._clock, ctx.start) if s is not None else self._clock
        start = t
        units: dict[str, float] = defaultdict(float)
        for lr in report.launches:
            self.records.append(LaunchRecord(lr.kernel, host, s.id if s is not None else 0, t, lr.seconds, lr,
                                             len(report.errors)))
            units[UNITS.get(lr.bounding_pipe, "scalar")] += lr.seconds
            t += lr.seconds
        op = host[len(EAGER_PREFIX):] if host.startswith(EAGER_PREFIX) else host
        self.ops.append(OpRecord(op, s.id if s is not None else 0, start, t - start,
                                 int(sum(lr.gm_bytes for lr in report.launches)), dict(units)))
        self._peak = max(self._peak, device_allocator().allocated)
        self._clock = t

    # -- analysis -----------------------------------------------------------------------------
    def kernel_table(self) -> str:
        """A table per compiler kernel: calls, simulated avg/min/max us, per-pipe utilisation, bound."""
        stats: dict[str, _KernelStats] = {}
        for r in self.records:
            k = stats.setdefault(r.kernel, _KernelStats(r.kernel))
            k.times.append(r.seconds)
            for p, u in r.launch.pipe_utilisation.items():
                k.util[p] += u
            k.bounds[r.launch.bounding_pipe] += 1
        pipes = [p for p in _PIPES if any(p in k.util for k in stats.values())] or ["V", "MTE2", "MTE3"]
        head = f"{'kernel':<28} {'calls':>5} {'avg us':>9} {'min us':>9} {'max us':>9} " + \
            " ".join(f"{p + ' %':>7}" for p in pipes) + f"  {'bound':<6}"
        lines = [head, "-" * len(head)]
        for k in sorted(stats.values(), key=lambda k: -sum(k.times)):
            us = [t * 1e6 for t in k.times]
            util = " ".join(f"{100 * k.util.get(p, 0.0) / len(us):>7.1f}" for p in pipes)
            bound = max(k.bounds, key=k.bounds.get) if k.bounds else "-"
            name = k.kernel if len(k.kernel) <= 28 else k.kernel[:25] + "..."
            lines.append(f"{name:<28} {len(us):>5} {sum(us) / len(us):>9.2f} {min(us):>9.2f} {max(us):>9.2f} "
                         f"{util}  {bound:<6}")
        return "\n".join(lines)

    def summary(self, print_it: bool = True) -> ProfileSummary:
        """The per-op summary (printed unless ``print_it`` is false), with the per-kernel table."""
        s = summarize(self.ops, self._peak, _hbm_peak(), self.kernel_table())
        if print_it:
            print(s)
        return s

    def events(self) -> list[dict]:
        """Chrome trace events: a track per stream for the launches, process = core, thread = pipe."""
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
                                "bound": lr.bounding_pipe, "gm_bytes": int(lr.gm_bytes)}})
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
        """Draw the timeline into ``path``: a row per user-level op call's stream, then a row per core
        and pipe (the first ``max_cores`` cores)."""
        try:
            import matplotlib

            matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError:
            raise PyascError("profiler.plot", "matplotlib is not installed; install it with "
                             "`pip install matplotlib` (or `pip install pyasc[dev]`)") from None
        rows: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
        colors = {"V": "tab:blue", "MTE2": "tab:green", "MTE3": "tab:orange", "S": "tab:gray", "M": "tab:red",
                  "MTE1": "tab:purple", "FIX": "tab:brown"}
        for o in self.ops:
            rows[(-1, f"stream {o.stream}")].append((o.start * 1e6, o.seconds * 1e6))
        for r in self.records:
            lr = r.launch
            cyc_us = 1e6 / _clock_hz(lr)
            for c in range(min(len(lr.timings), max_cores)):
                for pipe, items in lr.timings[c].timeline().items():
                    for s, e, _ in items:
                        if e > s:
                            rows[(c, pipe)].append((r.start * 1e6 + s * cyc_us, (e - s) * cyc_us))
        keys = sorted(rows, key=lambda k: (k[0], _PIPES.index(k[1]) if k[1] in _PIPES else k[1]))
        fig, ax = plt.subplots(figsize=(12, max(2.0, 0.3 * len(keys) + 1)))
        for y, k in enumerate(keys):
            ax.broken_barh(rows[k], (y - 0.4, 0.8), facecolors=colors.get(k[1], "black"))
        ax.set_yticks(range(len(keys)), [k[1] if k[0] < 0 else f"core {k[0]} {k[1]}" for k in keys])
        for o in self.ops:     # op names over the stream rows
            y = keys.index((-1, f"stream {o.stream}"))
            ax.text(o.start * 1e6, y, o.op, fontsize=6, va="center", clip_on=True)
        ax.invert_yaxis()
        ax.set_xlabel("simulated time (us)")
        ax.set_title(f"pyasc profile: {len(self.ops)} op call(s), {len(self.records)} kernel launch(es)")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)


@dataclass
class _KernelStats:
    kernel: str
    times: list[float] = field(default_factory=list)
    util: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    bounds: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def _clock_hz(lr) -> float:
    return lr.clock_hz or 1.8e9


def _hbm_peak() -> float:
    return get_target(current_target()).hbm_bytes_per_s


def read_summary(path) -> ProfileSummary:
    """The summary of a finished profile written by ``pyasc.profiler(path)``."""
    p = _paths(path)
    if p is None or not p["profile"].is_file():
        raise PyascError("profiler.summary", f"no finished profile at {describe(str(path))}: expected "
                         f"'{p['profile'] if p else path}' written when `with pyasc.profiler(path):` ended")
    data = json.loads(p["profile"].read_text())
    ops = [OpRecord(**r) for r in data["ops"]]
    return summarize(ops, data["peak_allocated"], data["hbm_peak_bytes_per_s"], data.get("kernel_table", ""))


def profiler(path=None, **kw) -> Profiler:
    """``with pyasc.profiler(path) as prof:`` records every launch; ``path`` (a directory, or a
    ``.json`` trace file) receives the trace, timeline, profile and summary at exit.
    ``pyasc.profiler.summary(path)`` reads a finished profile back."""
    return Profiler(path, **kw)


profiler.summary = read_summary
