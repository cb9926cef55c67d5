"""A progress bar for slow work: ``with progress("compiling f"):`` shows nothing for work that ends
within ``delay`` seconds (about one), and otherwise a ``tqdm`` bar with the message and the elapsed
time on stderr, redrawn in place while the work runs.

It is shown only when stderr is a terminal; ``PYASC_PROGRESS=0`` turns it off and
``PYASC_PROGRESS=1`` shows it on any output. Nested work (a compile inside a simulation) shows
the outermost bar only. One watcher thread shows and redraws the bars: work that ends sooner than
its delay (every small launch) only registers and unregisters itself.
"""

from __future__ import annotations

import os
import sys
import threading
import time

_setting = os.environ.get("PYASC_PROGRESS", "")
_enabled = [_setting != "0"]
_forced = _setting not in ("", "0")
_active = threading.local()


def set_enabled(on: bool) -> None:
    _enabled[0] = bool(on)


_last_stream: list = [None, False]  # the stream last asked about, and whether it is a terminal


def enabled(stream=None) -> bool:
    """True when a bar would be shown on ``stream`` (default stderr): on, and a terminal (or forced)."""
    if not _enabled[0]:
        return False
    if _forced:
        return True
    out = stream or sys.stderr
    if out is not _last_stream[0]:  # a stream's terminal or not stays so: asked once (a system call)
        _last_stream[:] = [out, hasattr(out, "isatty") and out.isatty()]
    return _last_stream[1]


class _Work:
    """One block of work in progress: its bar, once the watcher shows one."""

    __slots__ = ("message", "start", "delay", "out", "bar", "done", "lock")

    def __init__(self, message: str, delay: float, out) -> None:
        self.message, self.delay, self.out = message, delay, out
        self.start = time.perf_counter()
        self.bar = None
        self.done = False
        self.lock = threading.Lock()


_works: list[_Work] = []
_works_changed = threading.Condition()
_watcher: list[threading.Thread] = []


def _watch() -> None:
    """The one thread that shows and redraws the bars (so fast work costs no thread of its own)."""
    while True:
        with _works_changed:
            while not _works:
                _works_changed.wait()
            works = list(_works)
        now = time.perf_counter()
        for w in works:
            with w.lock:
                if w.done:
                    continue
                if w.bar is None and now - w.start >= w.delay:
                    from tqdm import tqdm      # only once a bar is shown: it takes a while to import

                    w.bar = tqdm(total=None, desc=f"pyasc: {w.message}", file=w.out, bar_format="{desc} [{elapsed}]",
                                 leave=False, mininterval=0.1)
                elif w.bar is not None:
                    w.bar.refresh()
        due = [w.start + w.delay - now for w in works if w.bar is None and not w.done]
        time.sleep(max(0.01, min([0.2, *due])))


class progress:  # noqa: N801 - used like a function
    """``with progress(message):`` shows ``message`` and the elapsed time while the block runs longer than
    ``delay`` seconds. Off (or inside another bar, or not on a terminal) it only checks that: every small
    launch enters one."""

    __slots__ = ("message", "delay", "out", "work")

    def __init__(self, message: str, delay: float = 1.0, stream=None):
        self.message, self.delay, self.out = message, delay, stream or sys.stderr
        self.work = None

    def __enter__(self):
        if not enabled(self.out) or getattr(_active, "on", False):
            return self
        _active.on = True
        self.work = work = _Work(self.message, self.delay, self.out)
        with _works_changed:
            _works.append(work)
            if not _watcher:
                _watcher.append(threading.Thread(target=_watch, name="pyasc-progress", daemon=True))
                _watcher[0].start()
            _works_changed.notify()
        return self

    def __exit__(self, *exc) -> None:
        work = self.work
        if work is None:
            return
        self.work = None
        try:
            with work.lock:
                work.done = True
            with _works_changed:
                _works.remove(work)
            if work.bar is not None:
                work.bar.close()
                self.out.write(f"pyasc: {self.message} done in {time.perf_counter() - work.start:.1f}s\n")
                self.out.flush()
        finally:
            _active.on = False
