"""A progress line for slow work: ``with progress("compiling f"):`` prints nothing for work that
ends within ``delay`` seconds (about one), and otherwise shows the message with the elapsed time
on stderr (redrawn in place on a terminal, one line at start and end otherwise).

It is on in the ``pyasc`` command line and off in library use unless ``PYASC_PROGRESS=1``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

_enabled = [os.environ.get("PYASC_PROGRESS", "") not in ("", "0")]


def set_enabled(on: bool) -> None:
    _enabled[0] = bool(on)


def enabled() -> bool:
    return _enabled[0]


@contextmanager
def progress(message: str, delay: float = 1.0, stream=None):
    """Show ``message`` and the elapsed time while the block runs longer than ``delay`` seconds."""
    if not _enabled[0]:
        yield
        return
    out = stream or sys.stderr
    tty = hasattr(out, "isatty") and out.isatty()
    done = threading.Event()
    shown = []
    start = time.perf_counter()

    def show():
        if done.wait(delay):
            return
        shown.append(True)
        if not tty:
            out.write(f"pyasc: {message} ...\n")
            out.flush()
            return
        spin = "|/-\\"
        i = 0
        while not done.wait(0.1):
            out.write(f"\rpyasc: {message} {spin[i % 4]} {time.perf_counter() - start:.1f}s")
            out.flush()
            i += 1

    th = threading.Thread(target=show, daemon=True)
    th.start()
    try:
        yield
    finally:
        done.set()
        th.join()
        if shown:
            elapsed = time.perf_counter() - start
            out.write(("\r" if tty else "") + f"pyasc: {message} done in {elapsed:.1f}s\n")
            out.flush()
