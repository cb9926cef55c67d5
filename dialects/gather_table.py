"""The byte-offset table of a gather (``asctile.gather_offsets``, ``ascbuf.gather_offsets``): the checks of its
rows of runs (``blocks``) and of its first column (``first``), which both levels share."""

from __future__ import annotations

from math import gcd

from xdsl.utils.exceptions import VerifyException


def first_runs(cols: int) -> int:
    """The fewest runs of ``cols`` columns whose i32 offsets are whole 32 B (built first, then doubled)."""
    return 8 // gcd(cols, 8)


def check_blocks(name: str, blocks, block_bytes, cols: int, col_bytes: int, pitch: int) -> None:
    """A gather table of rows of ``blocks`` runs of ``cols`` columns (``gather_offsets``): both fields or neither,
    the pitch ``blocks * cols``, counted forwards; runs of whole 32 B of the i32 table (``cols`` a multiple of 8),
    or narrower runs whose first ``first_runs(cols)`` fit three times in a row (the room their construction
    uses)."""
    if (blocks is None) != (block_bytes is None):
        raise VerifyException(f"{name}: blocks and block_bytes go together")
    if blocks is None:
        return
    b = blocks.value.data
    narrow_ok = cols % 8 == 0 or b >= 3 * first_runs(cols)
    if b < 1 or b * cols != pitch or pitch % 8 or not narrow_ok or col_bytes < 0 or block_bytes.value.data < 0:
        raise VerifyException(f"{name}: {b} blocks of {cols} columns (counted forwards; narrower than 8 columns: "
                              f"at least {3 * first_runs(cols)} blocks) must make the pitch {pitch}, a multiple "
                              "of 8")


def check_first(name: str, first, blocks, col_bytes: int) -> None:
    """``first`` (leading columns that repeat column 0) is negative when given, on a table of one run per row
    counted forwards."""
    if first is None:
        return
    if first.value.data >= 0 or blocks is not None or col_bytes < 0:
        raise VerifyException(f"{name}: first {first.value.data} must be negative, on a table without blocks whose "
                              "columns count forwards")
