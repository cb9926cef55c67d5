"""Python's cyclic garbage collector paused while pyasc builds IR or translates kernels (``gc_paused``)."""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """Python's cyclic garbage collector off for a compilation, and on again after it (when it was on).
    The IR's ops, blocks, regions and uses reference each other, so a compilation allocates many
    container objects and the collector's passes over them, while they are alive, cost about a tenth of
    its time; its cyclic garbage is collected after it. Callers compile one at a time (a lock). The modules
    a first compilation imports are imported inside it, so their objects are not scanned while they load."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
