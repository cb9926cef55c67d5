"""The byte-offset table of a gather (``asctile.gather_offsets``, ``ascbuf.gather_offsets``): the checks of its
rows of runs (``blocks``) and of its first column (``first``), which both levels share; the column picks
(``pick_columns``) that a ``GatherMask`` with a built-in pattern makes instead; and the shapes of a
``phase_transpose``."""

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


# (stride, first lane of a 32 B block) -> GatherMask's built-in src1Pattern selecting those lanes
PICK_PATTERNS = {(1, 0): 7, (2, 0): 1, (2, 1): 2, (4, 0): 3, (4, 1): 4, (4, 2): 5, (4, 3): 6}


def pick_pattern(start: int, stride: int, elem_bytes: int) -> tuple[int, int] | None:
    """(the 32 B aligned column a ``GatherMask`` reads from, its built-in pattern) of picking every ``stride``-th
    column from column ``start`` of a row that starts 32 B aligned; None when no pattern selects them (a stride
    other than 1, 2 or 4, or ``start`` past the first ``stride`` columns of its 32 B block)."""
    per_block = 32 // elem_bytes
    lane = start % per_block
    pattern = PICK_PATTERNS.get((stride, lane))
    return None if pattern is None else (start - lane, pattern)


def check_pick(name: str, start: int, stride: int, src_cols: int, dst_cols: int, elem_bytes: int) -> None:
    """Picks of ``dst_cols`` columns of rows of ``src_cols``: inside the row, and a ``GatherMask`` pattern."""
    if start < 0 or start + stride * (dst_cols - 1) >= src_cols:
        raise VerifyException(f"{name}: columns {start}, {start} + {stride}, ... ({dst_cols} of them) leave a row of "
                              f"{src_cols}")
    if pick_pattern(start, stride, elem_bytes) is None:
        raise VerifyException(f"{name}: no GatherMask pattern picks columns {stride} apart from column {start} "
                              f"(strides 1, 2 and 4, from one of the first {stride} columns of a 32 B block)")


def check_phases(name: str, phases: int, start: int, stride: int, src_cols: int, dst_cols: int, elem_bytes: int,
                 rows: int, out_rows: int) -> None:
    """``phases`` picks from columns ``start``, ``start + 1``, ... stacked along the rows of the result."""
    if phases < 1 or out_rows != phases * rows:
        raise VerifyException(f"{name}: {phases} phases of {rows} rows make {phases * rows} rows, not {out_rows}")
    for p in range(phases):
        check_pick(name, start + p, stride, src_cols, dst_cols, elem_bytes)


def phase_channel(k: int, channels: int, sw: int) -> tuple[int, int, int]:
    """``(rh, rw, c)`` of channel ``k = (rh * sw + rw) * channels + c`` of a ``phase_transpose``."""
    return k // (sw * channels), k // channels % sw, k % channels


def check_phase_transpose(name: str, src_shape, dst_shape, elem_bytes: int, channels: int, sh: int, sw: int,
                          left: int, pitch: int) -> tuple[int, int]:
    """``(rows R, picked columns OW)`` of a ``phase_transpose`` of ``src`` (``sw * channels`` x ``R * sh * OW``)
    into ``dst`` (``R * pitch`` x ``CP``): ``OW`` whole 32 B blocks, ``left + OW <= pitch``, ``CP`` a multiple of 16
    holding the ``sh * sw * channels`` channels."""
    (src_rows, src_cols), (dst_rows, cp) = src_shape, dst_shape
    per = 32 // elem_bytes
    rows = dst_rows // pitch if pitch > 0 else 0
    ow = src_cols // (rows * sh) if rows and sh > 0 else 0
    if min(channels, sh, sw, pitch) < 1 or left < 0 or rows * pitch != dst_rows or rows * sh * ow != src_cols \
            or src_rows != sw * channels or ow % per or not ow or left + ow > pitch or cp % 16 \
            or cp < sh * sw * channels or ow // per > 255:
        raise VerifyException(
            f"{name}: {src_shape[0]}x{src_shape[1]} -> {dst_shape[0]}x{dst_shape[1]} is not a phase transpose of "
            f"{channels} channels at stride ({sh}, {sw}) into rows of {pitch} pixels from pixel {left} (the source "
            f"{sw * channels} rows of R * {sh} * OW columns, OW a multiple of {per} up to {255 * per}; the result "
            f"R * {pitch} rows of a multiple of 16 channels, at least {sh * sw * channels})")
    return rows, ow
