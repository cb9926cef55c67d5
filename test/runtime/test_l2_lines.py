"""What GM reads find in L2 (``runtime/l2``). The cube's copies (``L2Lines``): every 512 B line a launch reads
comes from HBM once, whole. A vector core's copies (``CoreLines``): the bytes in lines the core read before come
from L2. The expected counts are computed independently, as the set of lines the byte ranges cover."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pyasc.dialects.target import get_target
from pyasc.runtime.l2 import CoreLines, L2Lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

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


@pytest.mark.parametrize("row_bytes,stride", [(300, -294), (700, -16384), (100, 0), (600, -100), (1500, -512)])
def test_rows_at_falling_or_equal_addresses_count_each_line_once(row_bytes, stride):
    """Rows read from the last to the first, or one row read again and again, count each line they cover once."""
    l2 = L2Lines(get_target("ascend910b2"))
    g = np.zeros(64 * 16384, np.uint8)
    start = 40 * 16384 + 100
    assert l2.first_bytes([g], g, start, 40, row_bytes, stride) == len(_lines(start, 40, row_bytes, stride)) * LINE


# ---------------------------------------------------------------- a vector core's own lines (``CoreLines``)


def test_a_cores_reread_lines_miss_nothing_and_other_cores_still_miss():
    """A core's first read of a region misses all its bytes; its read again, or of bytes in the same lines,
    misses nothing; of a copy that reaches into new lines, the bytes in them miss; another core's first read
    misses; a core's record started again misses again. The HBM traffic is the copy's bytes in 32 B blocks the
    core had not read: bytes read again add none, new bytes of a line read before still count."""
    lines = CoreLines(get_target("ascend910b2"))
    g = np.zeros(64 * 16384, np.uint8)
    assert lines.missed(0, g, 100, 1, 60, 60) == (60, 60)
    assert lines.missed(0, g, 100, 1, 60, 60) == (0, 0)
    assert lines.missed(0, g, 102, 1, 60, 60) == (0, 2)  # a window one float16 to the right: 2 B in block 5, new
    assert lines.missed(0, g, 480, 1, 60, 60) == (28, 60)  # bytes 512-539 are in line 1, new; all its blocks new
    assert lines.missed(0, g, 0, 3, 100, 4096) == (200, 96 + 200)  # row 1: bytes 0-95 in blocks not read before
    assert lines.missed(0, g, 8192 + 256, 2, 100, 128) == (0, 200)  # line 16 was read, these blocks were not
    assert lines.missed(1, g, 100, 1, 60, 60) == (60, 60)
    assert lines.missed(0, g[8:], 100, 1, 60, 60) == (0, 0)  # a view of the same buffer
    lines.start(0)
    assert lines.missed(0, g, 100, 1, 60, 60) == (60, 60)


def test_random_reads_count_the_bytes_of_lines_and_blocks_the_core_had_not_read():
    """Random one-row and several-row reads on two cores against a model of the rule byte by byte: a read's missed
    bytes lie in 512 B lines the core had not read before it, its traffic in 32 B blocks the core had not read."""
    lines = CoreLines(get_target("ascend910b2"))
    rng = np.random.default_rng(11)
    g = np.zeros(1 << 16, np.uint8)
    seen: dict[int, tuple[set, set]] = {0: (set(), set()), 1: (set(), set())}
    for _ in range(3000):
        core = int(rng.integers(2))
        row_bytes = int(rng.integers(1, 1200))
        rows, stride = (1, row_bytes) if rng.random() < 0.7 else (int(rng.integers(2, 5)), int(rng.integers(1, 1500)))
        start = int(rng.integers(0, g.size - (rows - 1) * stride - row_bytes))
        read_lines, read_blocks = seen[core]
        spans = [range(start + r * stride, start + r * stride + row_bytes) for r in range(rows)]
        missed = sum(b // LINE not in read_lines for span in spans for b in span)
        traffic = sum(b // 32 not in read_blocks for span in spans for b in span)
        assert lines.missed(core, g, start, rows, row_bytes, stride) == (missed, traffic)
        for span in spans:
            read_lines.update(b // LINE for b in span)
            read_blocks.update(b // 32 for b in span)


def test_a_group_of_cores_agrees_or_diverges():
    from pyasc.runtime.batched import Diverged
    lines = CoreLines(get_target("ascend910b2"))
    g = np.zeros(1 << 20, np.uint8)
    cores = np.array([[0], [1], [2]])
    assert lines.missed(cores, g, np.array([[0], [4096], [8192]]), 2, 1024, 1024) == (2048, 2048)
    assert lines.missed(cores, g, np.array([[0], [4096], [8192]]), 2, 1024, 1024) == (0, 0)
    with pytest.raises(Diverged):  # core 0 read these lines before, core 1 did not
        lines.missed(cores[:2], g, np.array([[0], [1 << 16]]), 1, 1024, 1024)


def test_a_vector_kernel_reading_its_input_twice_pays_the_l2_rate_the_second_time():
    """``add`` of one array to itself: each core's copy of its tile of ``y`` reads the lines its copy of ``x``
    just read, so it runs at the L2 rate and adds no HBM traffic (against ``x + y`` of two arrays)."""
    from pyasc.runtime import Simulator, parse_module
    from pyasc.runtime.costs import dma_efficiency
    sim = Simulator(parse_module((FIXTURES / "add_flags.mlir").read_text()))
    spec = sim.spec
    x, y = (np.random.default_rng(s).standard_normal(4096).astype(np.float32) for s in (0, 1))
    z = np.zeros(4096, np.float32)
    (two,) = sim.run("add", [x, y, z]).launches
    np.testing.assert_array_equal(z, x + y)
    (one,) = sim.run("add", [x, x, z]).launches
    np.testing.assert_array_equal(z, x + x)
    eff = dma_efficiency(1024, spec.dma_full_efficiency_bytes)
    # 4 tiles per core, each a 1 KiB copy of x (from HBM) and one of y
    assert two.core_busy[0]["MTE2"] == pytest.approx(8 * 1024 / (spec.mte2_bytes_per_cycle * eff))
    assert one.core_busy[0]["MTE2"] == pytest.approx(
        4 * 1024 / (spec.mte2_bytes_per_cycle * eff) + 4 * 1024 / (spec.mte2_l2_bytes_per_cycle * eff))
    assert one.hbm_bound_cycles == pytest.approx(two.hbm_bound_cycles * 2 / 3)  # x and z, against x, y and z
