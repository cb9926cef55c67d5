"""pyasc's log: Python ``logging`` in the ``pyasc`` logger.

``pyasc.set_debug_level(n)`` or the ``PYASC_LOG_LEVEL=n`` environment variable (read when pyasc
first logs) chooses what is shown on stderr: 0 (the default) nothing but warnings; 1 compile
stages, cache misses, kernel launches with their simulated times; 2 and more also cache hits and
every eager op's program lookup. Applications that configure ``logging`` themselves can attach
their own handlers to the ``pyasc`` logger instead.
"""

from __future__ import annotations

import logging
import os

from .errors import PyascError, describe

log = logging.getLogger("pyasc")
LEVELS = {0: logging.WARNING, 1: logging.INFO, 2: logging.DEBUG}
_handler: list[logging.Handler] = []


def set_debug_level(level: int) -> None:
    """Show pyasc's log on stderr at ``level`` (0: warnings only, 1: info, 2 or more: debug)."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise PyascError("set_debug_level", f"level must be a non-negative integer, got {describe(level)}")
    log.setLevel(LEVELS[min(level, 2)])
    if level > 0 and not _handler:
        h = logging.StreamHandler()
        h.setFormatter(logging.Formatter("pyasc %(levelname)s: %(message)s"))
        log.addHandler(h)
        _handler.append(h)
    elif level == 0 and _handler:
        log.removeHandler(_handler.pop())


def get_debug_level() -> int:
    return {v: k for k, v in LEVELS.items()}.get(log.getEffectiveLevel(), 0)


def _from_environment() -> None:
    value = os.environ.get("PYASC_LOG_LEVEL", "").strip()
    if not value:
        return
    try:
        set_debug_level(int(value))
    except (ValueError, PyascError):
        raise PyascError("PYASC_LOG_LEVEL", f"must be a non-negative integer, got {value!r}") from None


_from_environment()
