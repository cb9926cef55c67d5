"""Environment variables read on every call (the target, the precision mode, the device count)."""

from __future__ import annotations

import os

# CPython's mapping behind ``os.environ``, which ``os.environ[...] = ...`` and ``del`` keep current
_RAW = getattr(os.environ, "_data", None)
_KEYS: dict[str, object] = {}


def getenv(name: str, default: str | None = None) -> str | None:
    """``os.environ.get(name, default)``. An unset variable costs one dict lookup here; ``os.environ.get``
    raises and catches a ``KeyError`` for it, about a microsecond."""
    if _RAW is None:
        return os.environ.get(name, default)
    key = _KEYS.get(name)
    if key is None:
        key = _KEYS[name] = os.environ.encodekey(name)
    raw = _RAW.get(key)
    return default if raw is None else os.environ.decodevalue(raw)
