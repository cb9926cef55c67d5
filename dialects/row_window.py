"""Rows ``[first, first + R)`` of a taller tile or buffer as one of ``R`` rows (``asctile.row_window``,
``ascbuf.rows``): the check both levels share."""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException


def check_row_window(name: str, src, dst, first: int) -> None:
    """``dst`` is rows ``[first, first + R)`` of ``src``: the same pitch, element type and memory space, the rows
    inside ``src``."""
    (rows, pitch), (r, p) = src.get_shape(), dst.get_shape()
    same = p == pitch and src.element_type == dst.element_type
    same = same and getattr(src, "memory_space", None) == getattr(dst, "memory_space", None)
    if not same or not 0 <= first <= rows - r:
        raise VerifyException(f"{name}: rows [{first}, {first + r}) of {src} as {dst}: the pitch, element type and "
                              f"memory stay, the rows lie inside")
