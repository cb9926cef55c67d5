"""Cores of one launch that write the same GM bytes: a race unless they write the same values.

The cores of a launch run in no fixed order on the chip. ``DataCopy`` moves whole 32 B blocks, so a core whose
slice is not whole blocks and goes out with ``DataCopy`` rounded up writes past its end into the next core's
elements (the Ascend C programming guide, "non-aligned scenarios": the extra elements of the block are written
with whatever UB holds). Which value survives depends on which core writes last. ``DataCopyPad`` moves the exact
bytes. Values are checked against NumPy.
"""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
from asc_cube_kernels import aic_rows_product, aiv_half_rows, rows_product
from pyasc.runtime import core_order

BLOCK = 100  # float32 elements per core: 400 B, not whole 32 B blocks
CORES = 4


@asc.jit
def shifted_copy(x: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int, copy_length: asc.ConstExpr[int],
                 padded: asc.ConstExpr[int]):
    """z[i] = x[i] + the core's index over each core's ``block_length`` elements; the result goes out with
    ``DataCopy`` of ``copy_length`` elements (``padded`` 0) or with ``DataCopyPad`` of the exact bytes."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, copy_length)
    z_gm.set_global_buffer(z + offset, copy_length)
    x_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, copy_length)
    z_ub = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 4096, copy_length)
    asc.data_copy(x_ub, x_gm, copy_length)
    asc.set_flag(asc.HardEvent.MTE2_V, 0)
    asc.wait_flag(asc.HardEvent.MTE2_V, 0)
    asc.adds(z_ub, x_ub, asc.get_block_idx() * 1.0, copy_length)
    asc.set_flag(asc.HardEvent.V_MTE3, 0)
    asc.wait_flag(asc.HardEvent.V_MTE3, 0)
    if padded:
        asc.data_copy_pad(z_gm, z_ub, asc.DataCopyExtParams(1, block_length * 4, 0, 0, 0))
    else:
        asc.data_copy(z_gm, z_ub, copy_length)


@asc.jit
def common_header(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Every core copies the same 8 elements of x to the start of z: the same bytes, the same values."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x, 8)
    z_gm.set_global_buffer(z, 8)
    ub = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, 8)
    asc.data_copy(ub, x_gm, 8)
    asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
    asc.data_copy(z_gm, ub, 8)


@asc.jit
def mix_halves(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, ws: asc.GlobalAddress,
               m: asc.ConstExpr[int], k: asc.ConstExpr[int], n: asc.ConstExpr[int], spill: asc.ConstExpr[int]):
    """MIX, one AI Core: the AIC computes A @ B into the workspace; each AIV writes its half of the rows plus its
    index, and ``spill`` elements more (into the other AIV's half)."""
    if asc.ascend_is_aic():
        aic_rows_product(a, b, ws, m, k, n)
    if asc.ascend_is_aiv():
        aiv_half_rows(c, ws, m, n, spill, 0)


@asc.jit
def rows_product_at(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                    k: asc.ConstExpr[int], n: asc.ConstExpr[int], step: asc.ConstExpr[int]):
    """Each core's m rows of A @ B (A's rows of its block) go out with Fixpipe to C from row ``step`` x its index:
    ``step`` = m, each core its own rows; less, a core's last rows are the next core's first."""
    rows_product(a, b, c, m, k, n, asc.get_block_idx() * step)


def _rows_product(step: int, monkeypatch) -> tuple:
    """(C, A @ B by NumPy, how many launches ran again in another order) of ``rows_product_at`` on 4 cores."""
    m, k, n = 32, 32, 32
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 4, (CORES * m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    c = np.zeros((CORES * m, n), np.float32)
    again = []
    real = core_order.check_launch
    monkeypatch.setattr(core_order, "check_launch", lambda *args: again.append(1) or real(*args))
    rows_product_at[CORES, rt.current_stream()](a, b, c, m, k, n, step)
    return c, a.astype(np.float32) @ b.astype(np.float32), len(again)


def test_cores_whose_fixpipes_write_their_own_rows_run_once(monkeypatch):
    """A kernel whose GM only Fixpipe writes, each core its own rows: the cores end alike in any order, so the
    launch does not run again (``core_order.disjoint_cores``); C is A @ B."""
    c, ref, again = _rows_product(32, monkeypatch)
    np.testing.assert_array_equal(c, ref)
    assert again == 0 and rows_product_at.last_report.findings == []


def test_fixpipes_of_two_cores_writing_the_same_rows_are_a_race(monkeypatch):
    """Each core's last 16 rows are the next core's first, with other values: the launch runs again in the
    reverse order and the rows end differently, a race."""
    with pytest.raises(asc.KernelHazardError, match=r"cross-core-gm-sync.*two cores write the same bytes of GM "
                                                    r"argument c"):
        _rows_product(16, monkeypatch)


def test_rows_of_two_cores_overlap_only_when_their_bytes_do():
    """``disjoint_cores`` against the byte sets of the rows, on random rows of three cores (long rows too, over the
    short rows of their own core and others)."""
    rng = np.random.default_rng(6)
    for _ in range(300):
        rows = [(int(rng.integers(3)), int(rng.integers(0, 200)), int(rng.integers(1, 4)), int(rng.integers(8, 40)),
                 int(rng.integers(1, 80))) for _ in range(int(rng.integers(1, 7)))]
        owners: dict = {}
        for core, first, count, stride, width in rows:
            for r in range(count):
                for byte in range(first + r * stride, first + r * stride + width):
                    owners.setdefault(byte, set()).add(core)
        assert core_order.disjoint_cores(rows) == all(len(c) == 1 for c in owners.values()), rows


def _expected(x):
    return x[:CORES * BLOCK] + np.repeat(np.arange(CORES, dtype=np.float32), BLOCK)


def test_a_tail_rounded_up_into_the_next_core_is_a_race():
    x = np.arange(CORES * BLOCK + 8, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.raises(asc.KernelHazardError) as err:
        shifted_copy[CORES, rt.current_stream()](x, z, BLOCK, BLOCK + 4, 0)
    text = str(err.value)
    assert "cross-core-gm-sync" in text and "two cores write the same bytes of GM argument z" in text
    assert f"first at byte {BLOCK * 4}" in text or f"first at byte {BLOCK * 4 + 2}" in text
    line = next(i for i, src in enumerate(open(__file__), 1) if "asc.data_copy(z_gm, z_ub, copy_length)" in src)
    assert "ascendc.data_copy %z_gm" in text and f"test_core_writes.py:{line}" in text


def test_the_exact_tail_with_data_copy_pad_has_no_race():
    x = np.random.default_rng(0).standard_normal(CORES * BLOCK + 8).astype(np.float32)
    z = np.zeros_like(x)
    shifted_copy[CORES, rt.current_stream()](x, z, BLOCK, BLOCK + 4, 1)
    assert shifted_copy.last_report.findings == []
    np.testing.assert_array_equal(z[:CORES * BLOCK], _expected(x))
    assert not z[CORES * BLOCK:].any()


@pytest.mark.parametrize("block, copy_length, padded", [(60, 64, 1), (96, 96, 0), (96, 96, 1)])
def test_copies_of_cores_writing_their_own_bytes_run_once(block, copy_length, padded, monkeypatch):
    """Each core's copy out of UB (DataCopyPad of the exact bytes, or DataCopy of whole 32 B blocks) writes its own
    bytes: the cores end alike in any order, so the launch (order-checked: a size no other test runs) does not run
    again; z is x plus the core's index."""
    checked, again = [], []
    disjoint, rerun = core_order.disjoint_cores, core_order.check_launch
    monkeypatch.setattr(core_order, "disjoint_cores", lambda rows: checked.append(disjoint(rows)) or checked[-1])
    monkeypatch.setattr(core_order, "check_launch", lambda *args: again.append(1) or rerun(*args))
    x = np.random.default_rng(4).standard_normal(CORES * block + 8).astype(np.float32)
    z = np.zeros_like(x)
    shifted_copy[CORES, rt.current_stream()](x, z, block, copy_length, padded)
    assert shifted_copy.last_report.findings == []
    assert checked == [True] and again == []
    np.testing.assert_array_equal(z[:CORES * block], x[:CORES * block]
                                  + np.repeat(np.arange(CORES, dtype=np.float32), block))
    assert not z[CORES * block:].any()


def test_cores_writing_the_same_values_agree():
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    z = np.zeros_like(x)
    common_header[CORES, rt.current_stream()](x, z)
    assert common_header.last_report.findings == []
    np.testing.assert_array_equal(z[:8], x[:8])
    assert not z[8:].any()


@pytest.mark.parametrize("spill", [0, 8])
def test_the_two_aivs_of_an_ai_core_writing_the_same_bytes(spill):
    """The AIVs of one AI Core run in no fixed order either: the first AIV's rows spilling into the second's are a
    race; without the spill the result is A @ B plus each AIV's index."""
    m, k, n = 32, 32, 32
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    ref = a.astype(np.float32) @ b.astype(np.float32) + np.repeat([0.0, 1.0], m // 2)[:, None].astype(np.float32)
    c = np.zeros((m + 8, n), np.float32)
    ws = np.zeros((m + 8, n), np.float32)
    if spill:
        with pytest.raises(asc.KernelHazardError, match=r"cross-core-gm-sync.*two cores write the same bytes of GM "
                                                        r"argument c"):
            mix_halves[1, rt.current_stream()](a, b, c, ws, m, k, n, spill)
        return
    mix_halves[1, rt.current_stream()](a, b, c, ws, m, k, n, spill)
    assert mix_halves.last_compiled.kernel_type == "mix_aic_1_2" and mix_halves.last_report.findings == []
    np.testing.assert_array_equal(c[:m], ref)
