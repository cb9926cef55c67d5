"""``asc.lib.host``: host-side tiling (filled in by the matmul tiler)."""
