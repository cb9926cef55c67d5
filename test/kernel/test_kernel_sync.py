"""Automatic synchronisation (``@asc.jit(insert_sync=True)``, the ``ascendc-insert-sync`` pass) and the
static report of the user's own flags: missing and redundant synchronisation."""

import numpy as np
import pytest

import pyasc.kernel as asc
import pyasc.kernel.lib.runtime as rt
import pyasc.kernel.runtime.config as config
from pyasc.lowering.emit.syntax import syntax_check

TILE = 256


@asc.jit
def _add_body(x, y, z, block_length: int, redundant: asc.ConstExpr[bool]):
    """The double-buffered vector add of the official 01_add tutorial, without any flag."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset, block_length)
    y_gm.set_global_buffer(y + offset, block_length)
    z_gm.set_global_buffer(z + offset, block_length)
    size = 2 * TILE * 4
    x_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * TILE)
    y_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, size, 2 * TILE)
    z_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * size, 2 * TILE)
    if redundant:
        asc.set_flag(asc.HardEvent.MTE2_V, 3)  # nothing has run on MTE2 yet: orders nothing
        asc.wait_flag(asc.HardEvent.MTE2_V, 3)
    for i in range(block_length // TILE):
        b = i % 2
        asc.data_copy(x_ub[b * TILE:], x_gm[i * TILE:], TILE)
        asc.data_copy(y_ub[b * TILE:], y_gm[i * TILE:], TILE)
        asc.add(z_ub[b * TILE:], x_ub[b * TILE:], y_ub[b * TILE:], TILE)
        asc.data_copy(z_gm[i * TILE:], z_ub[b * TILE:], TILE)


@asc.jit
def add_no_flags(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    _add_body(x, y, z, block_length, False)


@asc.jit(insert_sync=True)
def add_auto_sync(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
    _add_body(x, y, z, block_length, False)


@asc.jit
def softmax_row_no_flags(x: asc.GlobalAddress, z: asc.GlobalAddress, cols: asc.ConstExpr[int]):
    """One row per block: the scalar unit reads the vector unit's max and sum (V -> S)."""
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + asc.get_block_idx() * cols)
    z_gm.set_global_buffer(z + asc.get_block_idx() * cols)
    x_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, cols)
    y_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, cols * 4, cols)
    stat = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2 * cols * 4, 8)
    work = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2 * cols * 4 + 32, cols)
    asc.data_copy(x_ub, x_gm, cols)
    asc.reduce_max(stat, x_ub, work, cols)
    row_max = stat.get_value(0)
    asc.adds(y_ub, x_ub, -row_max, cols)
    asc.exp(y_ub, y_ub, cols)
    asc.reduce_sum(stat, y_ub, work, cols)
    total = stat.get_value(0)
    asc.muls(y_ub, y_ub, 1.0 / total, cols)
    asc.data_copy(z_gm, y_ub, cols)


@asc.jit
def mmad_no_flags(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, m: asc.ConstExpr[int],
                  k: asc.ConstExpr[int], n: asc.ConstExpr[int]):
    a_gm = asc.GlobalTensor()
    b_gm = asc.GlobalTensor()
    c_gm = asc.GlobalTensor()
    a_gm.set_global_buffer(a)
    b_gm.set_global_buffer(b)
    c_gm.set_global_buffer(c)
    a1 = asc.LocalTensor(asc.float16, asc.TPosition.A1, 0, m * k)
    b1 = asc.LocalTensor(asc.float16, asc.TPosition.B1, m * k * 2, k * n)
    a2 = asc.LocalTensor(asc.float16, asc.TPosition.A2, 0, m * k)
    b2 = asc.LocalTensor(asc.float16, asc.TPosition.B2, 0, k * n)
    c1 = asc.LocalTensor(asc.float32, asc.TPosition.CO1, 0, m * n)
    asc.data_copy(a1, a_gm, asc.Nd2NzParams(1, m, k, 0, k, m, 1, 0))
    asc.data_copy(b1, b_gm, asc.Nd2NzParams(1, k, n, 0, n, k, 1, 0))
    for i in range(k // 16):
        asc.load_data(a2[i * 256:], a1, asc.LoadData2DParams(i * (m // 16), m // 16, 1, 0, k // 16 - 1))
        asc.load_data(b2[i * (n // 16) * 256:], b1, asc.LoadData2DParams(i, n // 16, k // 16, 0, 0, True))
    asc.mmad(c1, a2, b2, asc.MmadParams(m, n, k))
    asc.fixpipe(c_gm, c1, asc.FixpipeParamsV220(n, m, m, n))


def _xy(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def _kinds(report, kind):
    return [f for f in report.findings if f.kind == kind]


def test_omitted_flags_are_reported_and_raise():
    x, y = _xy(4 * 1024)
    z = np.zeros_like(x)
    add_no_flags[4, rt.current_stream()](x, y, z, 1024, hazards="ignore")
    report = add_no_flags.last_report
    missing = _kinds(report, "missing-sync")
    assert {f.message.split("HardEvent::")[-1].rstrip(">)") for f in missing if "HardEvent" in f.message} == {
        "MTE2_V", "V_MTE3", "V_MTE2", "MTE3_V"}
    assert all(f.loc and f.loc.startswith("test_kernel_sync.py:") for f in missing)
    assert report.errors, "the simulator's hazard checker sees the races too"
    with pytest.raises(asc.KernelHazardError):
        add_no_flags[4, rt.current_stream()](x, y, np.zeros_like(x), 1024)
    with pytest.raises(asc.KernelError, match=r"(?s)verify_sync: \d+ missing .*test_kernel_sync\.py:"):
        add_no_flags.compile(4, x, y, np.zeros_like(x), 1024, verify_sync=True)


def test_insert_sync_adds_the_flags():
    x, y = _xy(4 * 1024, seed=1)
    z = np.zeros_like(x)
    add_auto_sync[4, rt.current_stream()](x, y, z, 1024)
    np.testing.assert_array_equal(z, x + y)
    report = add_auto_sync.last_report
    assert report.findings == [], str(report)
    src = add_auto_sync.last_compiled.kernel_source()
    for ev in ("MTE2_V", "V_MTE3", "V_MTE2", "MTE3_V"):
        assert f"AscendC::SetFlag<AscendC::HardEvent::{ev}>" in src, ev
    res = syntax_check(src)
    assert res.skipped or res.ok, res.diagnostics
    config.set_platform(config.Backend.CPU)
    z_cpu = np.zeros_like(x)
    add_auto_sync[4, rt.current_stream()](x, y, z_cpu, 1024)
    np.testing.assert_array_equal(z_cpu, x + y)


def test_insert_sync_scalar_reads_and_vector_barriers():
    cols, rows = 256, 4
    x = np.random.default_rng(2).standard_normal((rows, cols)).astype(np.float32)
    z = np.zeros_like(x)
    softmax_row_no_flags[rows, rt.current_stream()](x, z, cols, insert_sync=True)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(z, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    assert softmax_row_no_flags.last_report.findings == []
    src = softmax_row_no_flags.last_compiled.kernel_source()
    assert "AscendC::HardEvent::V_S" in src and "PipeBarrier<PIPE_V>" in src


def test_insert_sync_cube():
    m, k, n = 32, 64, 48
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 4, (m, k)).astype(np.float16)
    b = rng.integers(-4, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    mmad_no_flags[1, rt.current_stream()](a, b, c, m, k, n, hazards="ignore")
    assert _kinds(mmad_no_flags.last_report, "missing-sync") and mmad_no_flags.last_report.errors
    c = np.zeros((m, n), np.float32)
    mmad_no_flags[1, rt.current_stream()](a, b, c, m, k, n, insert_sync=True)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert mmad_no_flags.last_report.findings == []
    src = mmad_no_flags.last_compiled.kernel_source()
    assert all(f"HardEvent::{ev}>" in src for ev in ("MTE2_MTE1", "MTE1_M", "M_FIX"))


def test_insert_sync_keeps_complete_kernels():
    from asc_kernels import add_flags_kernel

    x, y = _xy(2 * 1024)
    plain = add_flags_kernel.compile(2, x, y, np.zeros_like(x), 1024, 256)
    auto = add_flags_kernel.compile(2, x, y, np.zeros_like(x), 1024, 256, insert_sync=True)
    assert str(plain.module) == str(auto.module)


def test_redundant_pair_is_reported():
    @asc.jit
    def add_redundant(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int):
        _add_body(x, y, z, block_length, True)

    x, y = _xy(2 * 1024)
    add_redundant[2, rt.current_stream()](x, y, np.zeros_like(x), 1024, insert_sync=True)
    redundant = _kinds(add_redundant.last_report, "redundant-sync")
    assert len(redundant) == 1 and "MTE2_V" in redundant[0].message
    assert redundant[0].loc.startswith("test_kernel_sync.py:")


@asc.jit
def add_runtime_tile(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, block_length: int,
                     tile: int):
    """Double buffered with rotating flags, the tile a run-time argument (the kernel is specialised for it,
    since the local tensors' sizes need it)."""
    offset = asc.get_block_idx() * block_length
    x_gm = asc.GlobalTensor()
    y_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + offset)
    y_gm.set_global_buffer(y + offset)
    z_gm.set_global_buffer(z + offset)
    x_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * tile)
    y_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 8 * tile, 2 * tile)
    z_ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 16 * tile, 2 * tile)
    asc.set_flag(asc.HardEvent.V_MTE2, 0)
    asc.set_flag(asc.HardEvent.V_MTE2, 1)
    asc.set_flag(asc.HardEvent.MTE3_V, 0)
    asc.set_flag(asc.HardEvent.MTE3_V, 1)
    for i in range(block_length // tile):
        b = i % 2
        asc.wait_flag(asc.HardEvent.V_MTE2, b)
        asc.data_copy(x_ub[b * tile:], x_gm[i * tile:], tile)
        asc.data_copy(y_ub[b * tile:], y_gm[i * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE2_V, b)
        asc.wait_flag(asc.HardEvent.MTE3_V, b)
        asc.add(z_ub[b * tile:], x_ub[b * tile:], y_ub[b * tile:], tile)
        asc.set_flag(asc.HardEvent.V_MTE2, b)
        asc.set_flag(asc.HardEvent.V_MTE3, b)
        asc.wait_flag(asc.HardEvent.V_MTE3, b)
        asc.data_copy(z_gm[i * tile:], z_ub[b * tile:], tile)
        asc.set_flag(asc.HardEvent.MTE3_V, b)
    asc.wait_flag(asc.HardEvent.V_MTE2, 0)
    asc.wait_flag(asc.HardEvent.V_MTE2, 1)
    asc.wait_flag(asc.HardEvent.MTE3_V, 0)
    asc.wait_flag(asc.HardEvent.MTE3_V, 1)


def test_run_time_sizes_are_analysed_with_the_launch_values():
    x, y = _xy(2 * 2048, seed=4)
    z = np.zeros_like(x)
    add_runtime_tile[2, rt.current_stream()](x, y, z, 2048, 256)
    np.testing.assert_array_equal(z, x + y)
    assert add_runtime_tile.last_compiled.pinned
    assert add_runtime_tile.last_report.findings == [], str(add_runtime_tile.last_report)
    # the double-buffered flags stay as written
    auto = add_runtime_tile.compile(2, x, y, z, 2048, 256, insert_sync=True)
    assert str(auto.module) == str(add_runtime_tile.last_compiled.module)


@asc.jit(insert_sync=True)
def _branches_auto_sync(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
    """Core 0 and core 1 take different run-time branches between the copy in and the copy out."""
    idx = asc.get_block_idx()
    x_gm = asc.GlobalTensor()
    z_gm = asc.GlobalTensor()
    x_gm.set_global_buffer(x + idx * n, n)
    z_gm.set_global_buffer(z + idx * n, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    asc.data_copy(a, x_gm, n)
    if idx == 0:
        asc.exp(a, a, n)
        asc.ln(a, a, n)
    if idx == 1:
        asc.muls(a, a, 2.0, n)
    asc.data_copy(z_gm, a, n)


def test_insert_sync_orders_each_run_time_branch_on_its_own():
    """A flag added inside one branch orders nothing on the path that skips it: each path gets what it needs (the
    simulator, which runs each core's own path, finds no race)."""
    n = 2048
    x = np.random.default_rng(4).uniform(0.5, 1.5, 4 * n).astype(np.float32)
    z = np.zeros_like(x)
    _branches_auto_sync[4, rt.current_stream()](x, z, n)
    ref = x.astype(np.float64)
    ref[n:2 * n] *= 2
    np.testing.assert_allclose(z, ref, rtol=1e-6)
    assert _branches_auto_sync.last_report.findings == []
