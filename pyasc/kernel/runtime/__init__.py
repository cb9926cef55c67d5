"""``asc.runtime``: ``config`` (backends and platforms)."""

from . import config  # noqa: F401
