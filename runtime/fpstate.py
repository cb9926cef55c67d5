"""NumPy's floating-point error state set to "ignore" for a simulated run, as ``np.errstate(all="ignore")``
does, at a fifth of its cost: a warm call of a small program spends about a microsecond in ``errstate``.

``quiet()`` returns a token for ``restore``; between the two, ufuncs report no overflow, division by zero,
underflow or invalid operation (the simulator reports what the chip would, not NumPy). The ignoring state
is derived once per error state in force (``np.setbufsize`` and ``np.seterrcall`` keep their values).
"""

from __future__ import annotations

import numpy as np

try:  # NumPy 2's per-context error state
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
except ImportError:  # pragma: no cover - another NumPy: the public context manager
    _extobj_contextvar = None

_IGNORING: dict[int, tuple] = {}  # id of an error state -> (that state, the same state ignoring every error)


def quiet():
    """Ignore floating-point errors from now on (in this context); the token for ``restore``."""
    if _extobj_contextvar is None:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    current = _extobj_contextvar.get()
    held = _IGNORING.get(id(current))
    if held is None or held[0] is not current:
        if len(_IGNORING) > 64:
            _IGNORING.clear()
        held = _IGNORING[id(current)] = (current, _make_extobj(all="ignore"))
    return _extobj_contextvar.set(held[1])


def restore(token) -> None:
    """The error state before the ``quiet()`` that gave ``token``."""
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
    else:
        _extobj_contextvar.reset(token)
