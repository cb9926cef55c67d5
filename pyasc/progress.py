"""A progress bar for slow work: ``with progress("compiling f"):`` shows nothing for work that ends
within ``delay`` seconds (about one), and otherwise a ``tqdm`` bar with the message and the elapsed
time on stderr, redrawn in place while the work runs.

It is shown only when stderr is a terminal; ``PYASC_PROGRESS=0`` turns it off and
``PYASC_PROGRESS=1`` shows it on any output. Nested work (a compile inside a simulation) shows
the outermost bar only.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

_setting = os.environ.get("PYASC_PROGRESS", "")
_enabled = [_setting != "0"]
_forced = _setting not in ("", "0")
_active = threading.local()


def set_enabled(on: bool) -> None:
    _enabled[0] = bool(on)


def enabled(stream=None) -> bool:
    """True when a bar would be shown on ``stream`` (default stderr): on, and a terminal (or forced)."""
    out = stream or sys.stderr
    return _enabled[0] and (_forced or (hasattr(out, "isatty") and out.isatty()))


@contextmanager
def progress(message: str, delay: float = 1.0, stream=None):
    """Show ``message`` and the elapsed time while the block runs longer than ``delay`` seconds."""
    out = stream or sys.stderr
    if not enabled(out) or getattr(_active, "on", False):
        yield
        return
    _active.on = True
    done = threading.Event()
    start = time.perf_counter()

    def show():
        if done.wait(delay):
            return
        from tqdm import tqdm      # only once a bar is shown: it takes a while to import

        bar = tqdm(total=None, desc=f"pyasc: {message}", file=out, bar_format="{desc} [{elapsed}]",
                   leave=False, mininterval=0.1)
        while not done.wait(0.2):
            bar.refresh()
        bar.close()
        out.write(f"pyasc: {message} done in {time.perf_counter() - start:.1f}s\n")
        out.flush()

    th = threading.Thread(target=show, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()
        _active.on = False
