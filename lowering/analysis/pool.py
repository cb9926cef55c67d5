"""The gather form of a max pool's columns (``tile-pool``): which input column each output column reads for
each kernel column, and whether that form computes the pool.

For kernel column ``j`` the output columns ``ow`` whose tap ``ow * sw - pw + j`` lies inside the input form one
range ``[lo, hi)``; a gather table with ``first = -lo`` and ``hi - lo`` columns (``gather_offsets``) makes the
output columns before it repeat the tap of ``lo`` and those after it the tap of ``hi - 1``. A maximum does not
change when one of its terms is repeated, so the form computes the pool when every repeated column lies
inside its own output column's window (and inside the input).
"""

from __future__ import annotations


def pool_columns(w: int, ow: int, kw: int, sw: int, pw: int) -> list[tuple[int, int, int]] | None:
    """Per kernel column: (``first``, valid columns, first input column) of its gather table; None when some
    output column would repeat a column outside its window."""
    taps = []
    for j in range(kw):
        lo = -(-max(0, pw - j) // sw)
        hi = min(ow, (w - 1 + pw - j) // sw + 1) if w - 1 + pw - j >= 0 else 0
        if hi <= lo:
            return None
        for o in range(ow):
            col = min(max(o, lo), hi - 1) * sw - pw + j
            if not (o * sw - pw <= col <= o * sw - pw + kw - 1 and 0 <= col < w):
                return None
        taps.append((-lo, hi - lo, lo * sw - pw + j))
    return taps
