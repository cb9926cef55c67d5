"""The iteration space of an elementwise kernel and the tile plan derived from the target.

The output shape is collapsed to ``outer dims x R x C``: adjacent dims merge when every input
broadcasts the same way along both, so each input's window is affine in (row, column) inside a
tile. The tile is ``tr x P`` elements (``P`` = the tile's columns padded to 32 B); its size comes
from the UB capacity divided by what one element of the tile costs across all live buffers
(inputs and outputs in ``buffers`` rotating copies, plus the peak number of live temporaries).
The tile count is rounded to a multiple of the core count so the cores get equal work.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, prod

MAX_TILE_ROWS = 4095  # DataCopyPad blockCount limit


@dataclass(frozen=True)
class Access:
    """An input's strides over the collapsed dims (0 where it broadcasts)."""

    strides: tuple[int, ...]


@dataclass(frozen=True)
class IterationSpace:
    dims: tuple[int, ...]  # collapsed output dims, at least one
    out_strides: tuple[int, ...]

    @property
    def C(self) -> int:  # noqa: N802
        return self.dims[-1]

    @property
    def R(self) -> int:  # noqa: N802
        return self.dims[-2] if len(self.dims) > 1 else 1

    @property
    def outer(self) -> tuple[int, ...]:
        return self.dims[:-2]


def row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The element strides of a contiguous tensor of ``shape``."""
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def element_strides(shape: tuple[int, ...], out_shape: tuple[int, ...], strides=None) -> tuple[int, ...]:
    """An input's element strides over the output's dims (0 where it broadcasts); ``strides`` are its
    own (row-major when None: a contiguous tensor)."""
    rank = len(out_shape)
    own = tuple(strides) if strides is not None else row_major(tuple(shape))
    aligned = (1,) * (rank - len(shape)) + tuple(shape)
    own = (0,) * (rank - len(shape)) + own
    return tuple(0 if aligned[j] == 1 and out_shape[j] > 1 else own[j] for j in range(rank))


def collapse(out_shape: tuple[int, ...], in_shapes: list, keep_last: bool = False,
             in_strides: list | None = None) -> tuple[IterationSpace, list[Access]]:
    """Collapse the output shape and give every input its strides over the collapsed dims.

    Adjacent dims merge when every input walks them as one run (both broadcast, or contiguous
    across the pair); ``keep_last`` keeps the last dim apart (the row of a row-wise kernel).
    ``in_strides`` gives an input's own element strides (a slice of a bigger tensor), else row-major.
    """
    rank = len(out_shape)
    strides = [element_strides(s, out_shape, (in_strides or [None] * len(in_shapes))[i])
               for i, s in enumerate(in_shapes)]
    keep = [j for j in range(rank) if out_shape[j] > 1 or (keep_last and j == rank - 1)]
    groups: list[list[int]] = []
    for j in keep:
        prev = groups[-1][-1] if groups else None
        joins = prev is not None and not (keep_last and j == rank - 1) and all(
            (st[prev] == 0) == (st[j] == 0) and st[prev] == st[j] * out_shape[j] for st in strides)
        if joins:
            groups[-1].append(j)
        else:
            groups.append([j])
    dims = tuple(prod(out_shape[j] for j in g) for g in groups) or (1,)
    per_input = [tuple(st[g[-1]] for g in groups) if groups else (1,) for st in strides]
    if any(acc[-1] not in (0, 1) for acc in per_input):  # a strided innermost dim: rows of one element
        dims += (1,)
        per_input = [acc + (1,) for acc in per_input]
    return IterationSpace(dims, row_major(dims)), [Access(acc) for acc in per_input]


@dataclass(frozen=True)
class TilePlan:
    rows: int  # tr
    cols: int  # tc (valid columns of a full tile)
    pitch: int  # P, padded to 32 B
    row_tiles: int  # tiles per R
    col_tiles: int  # tiles per C
    total: int  # tiles in all
    block_dim: int


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def plan_tiles(space: IterationSpace, elems_budget: int, align: int, cores: int, balance: bool) -> TilePlan:
    """Tile rows/columns for ``elems_budget`` elements per tile, balanced over ``cores``."""
    C, R, outer = space.C, space.R, prod(space.outer)
    Cp = _align(C, align)
    if Cp <= elems_budget:
        rows_fit = max(1, min(elems_budget // Cp, MAX_TILE_ROWS, R))
        k = ceil(R / rows_fit)
        if balance:
            if outer * k < cores:
                k = min(R, ceil(cores / outer))
            else:
                k = min(R, ceil(ceil(outer * k / cores) * cores / outer))
        tr = ceil(R / k)
        return _plan(tr, C, Cp, ceil(R / tr), 1, outer, cores)
    budget = max(align, elems_budget // align * align)
    k = ceil(C / budget)
    if balance:
        lines = outer * R
        if lines * k < cores:
            k = min(ceil(C / align), ceil(cores / lines))
        else:
            k = ceil(ceil(lines * k / cores) * cores / lines)
    tc = _align(ceil(C / k), align)
    return _plan(1, tc, tc, R, ceil(C / tc), outer, cores)


def _plan(tr, tc, pitch, row_tiles, col_tiles, outer, cores) -> TilePlan:
    total = outer * row_tiles * col_tiles
    return TilePlan(tr, tc, pitch, row_tiles, col_tiles, total, max(1, min(cores, total)))
