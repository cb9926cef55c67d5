"""``asc.lib``: ``runtime`` (streams) and ``host`` (the matmul tiling helpers)."""

from . import host, runtime  # noqa: F401
