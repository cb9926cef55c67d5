"""The byte-offset table of a gather (``asctile.gather_offsets``, ``ascbuf.gather_offsets``): the checks of its
rows of runs (``blocks``) and of its first column (``first``), which both levels share."""

from __future__ import annotations

from xdsl.utils.exceptions import VerifyException


def check_blocks(name: str, blocks, block_bytes, cols: int, col_bytes: int, pitch: int) -> None:
    """A gather table of rows of ``blocks`` runs of ``cols`` columns (``gather_offsets``): both fields or neither,
    the pitch ``blocks * cols``, runs of whole 32 B of the i32 table (``cols`` a multiple of 8) counted forwards."""
    if (blocks is None) != (block_bytes is None):
        raise VerifyException(f"{name}: blocks and block_bytes go together")
    if blocks is None:
        return
    b = blocks.value.data
    if b < 1 or b * cols != pitch or cols % 8 or col_bytes < 0 or block_bytes.value.data < 0:
        raise VerifyException(f"{name}: {b} blocks of {cols} columns (a multiple of 8, counted forwards) must "
                              f"make the pitch {pitch}")


def check_first(name: str, first, blocks, col_bytes: int) -> None:
    """``first`` (leading columns that repeat column 0) is negative when given, on a table of one run per row
    counted forwards."""
    if first is None:
        return
    if first.value.data >= 0 or blocks is not None or col_bytes < 0:
        raise VerifyException(f"{name}: first {first.value.data} must be negative, on a table without blocks whose "
                              "columns count forwards")
