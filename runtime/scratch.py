"""Scratch arrays kept between calls, so that a hot path does not allocate (and fault in) new memory each time."""

from __future__ import annotations

import numpy as np


def kept(store: dict, tag: str, size: int, dt) -> np.ndarray:
    """The flat array of ``size`` elements of type ``dt`` that ``store`` keeps under ``tag``, made on first use."""
    a = store.get((tag, size, dt))
    if a is None:
        a = store[(tag, size, dt)] = np.empty(size, dt)
    return a
