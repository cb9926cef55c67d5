"""The HBM traffic of cube copies (``L2Lines``): every 512 B line a launch reads comes from HBM once, whole.
The expected counts are computed independently, as the set of lines the byte ranges cover."""

from __future__ import annotations

import numpy as np
import pytest

from pyasc.dialects.target import get_target
from pyasc.runtime.kernel_ops_cube import L2Lines

LINE = 512


def _lines(start: int, rows: int, row_bytes: int, stride: int) -> set[int]:
    return {b // LINE for r in range(rows) for b in range(start + r * stride, start + r * stride + row_bytes)}


@pytest.mark.parametrize("row_bytes,stride", [(256, 294), (294, 294), (38, 294), (700, 16384), (512, 512)])
def test_each_line_a_launch_reads_counts_once(row_bytes, stride):
    """Rows closer than a line share lines; a line read again (by the same region, an overlapping one or
    another core's slice of it) adds nothing; a new launch starts the record again."""
    l2 = L2Lines(get_target("ascend910b2"))
    g = np.zeros(64 * 16384, np.uint8)
    args = [g]
    first = l2.first_bytes(args, g, 100, 40, row_bytes, stride)
    assert first == len(_lines(100, 40, row_bytes, stride)) * LINE
    assert l2.first_bytes(args, g, 100, 40, row_bytes, stride) == 0
    shifted = l2.first_bytes(args, g, 100 + row_bytes // 2, 40, row_bytes, stride)
    assert shifted == len(_lines(100 + row_bytes // 2, 40, row_bytes, stride) - _lines(100, 40, row_bytes, stride)) * LINE
    assert l2.first_bytes([g], g, 100, 40, row_bytes, stride) == first
