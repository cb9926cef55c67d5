"""Cube kernels whose cores replay their data path in groups (``runtime.replay.data_groups``).

A cube core's trace counts the HBM bytes of its GM reads, which depend on the L2 lines the cores before it
read, so cube kernels are traced core by core. Cores whose traces differ only there run the same ops on the
same local addresses: a replay runs each such group in one call of the kernel's data path, with one row of
L1/L0A/L0B/L0C per core. Every program here runs five times with new inputs and is compared with PyTorch in
float64 each time; the groups are checked against core by core on their first use, and in "verify" mode every
replay is traced again core by core and must give the same bytes.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator, batched, replay, simulator
from pyasc.runtime.batched import BatchedGM, gm_cores, weak

RNG = np.random.default_rng(5)
F = torch.nn.functional

PROGRAMS = {
    "matmul_f32": (lambda a, b: a @ b, [(200, 520), (520, 260)], np.float32, lambda a, b: a @ b),
    "matmul_f16": (lambda a, b: a @ b, [(300, 128), (128, 200)], np.float16, lambda a, b: a @ b),
    "matmul_int8": (lambda a, b: a @ b, [(90, 200), (200, 300)], np.int8, lambda a, b: a @ b),
    "matmul_bf16": (lambda a, b: a @ b, [(160, 96), (96, 300)], "bfloat16", lambda a, b: a @ b),
    # products of 2^20 multiply-adds and more per core: cores sharing A or B multiply as one grid (``shared_grid``)
    "matmul_shared_grid_f16": (lambda a, b: a @ b, [(512, 1024), (1024, 1024)], np.float16, lambda a, b: a @ b),
    "matmul_shared_grid_f32": (lambda a, b: a @ b, [(256, 1024), (1024, 768)], np.float32, lambda a, b: a @ b),
    "matmul_shared_grid_512_f16": (lambda a, b: a @ b, [(512, 512), (512, 512)], np.float16, lambda a, b: a @ b),
    "conv2d_f32": (lambda x, w: pyasc.conv2d(x, w, stride=1, padding=1), [(2, 16, 20, 20), (48, 16, 3, 3)],
                   np.float32, lambda x, w: F.conv2d(x, w, stride=1, padding=1)),
    "conv2d_stride2_f16": (lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3), [(2, 3, 40, 40), (32, 3, 7, 7)],
                           np.float16, lambda x, w: F.conv2d(x, w, stride=2, padding=3)),
    # MIX kernels: the AICs of a group run together, then their first AIVs, then their second ones
    # a bias per row (a column broadcast): a vector epilogue (BiasTable holds a bias per column)
    "mix_row_bias_relu_f16": (lambda a, b, c: pyasc.relu(a @ b + c), [(300, 128), (128, 200), (300, 1)], np.float16,
                              lambda a, b, c: F.relu(a @ b + c)),
    "mix_conv_affine_relu_f32": (lambda x, w, s, t: pyasc.relu(pyasc.conv2d(x, w, stride=1, padding=1) * s + t),
                                 [(2, 16, 20, 20), (48, 16, 3, 3), (1, 48, 1, 1), (1, 48, 1, 1)], np.float32,
                                 lambda x, w, s, t: F.relu(F.conv2d(x, w, stride=1, padding=1) * s + t)),
    # 13 rows: an AI Core's AIVs take 8 and 5 of them, so their copies move different block counts
    "mix_linear_gelu_13_rows_f16": (lambda x, w, b: pyasc.nn.functional.gelu(pyasc.nn.functional.linear(x, w, b)),
                                    [(13, 32), (32, 32), (32,)], np.float16,
                                    lambda x, w, b: F.gelu(F.linear(x, w, b))),
}
MIX_PROGRAMS = [name for name in PROGRAMS if name.startswith("mix_")]
TOL = {np.float32: 2e-5, np.float16: 2e-2, "bfloat16": 2e-2, np.int8: 0}


def _inputs(shapes, dtype):
    if dtype == np.int8:
        return [pyasc.tensor(RNG.integers(-128, 128, s).astype(np.int8)) for s in shapes]
    xs = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    if dtype == "bfloat16":
        return [pyasc.tensor(x).to(pyasc.bfloat16) for x in xs]
    return [pyasc.tensor(x.astype(dtype)) for x in xs]


def _run(name, times=5):
    fn, shapes, dtype, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(*_inputs(shapes, dtype))
    sim = Simulator(compiled.module, hazards="ignore")
    outs = [np.zeros(o.shape, o.dtype.np_dtype) for o in compiled.outputs]
    for _ in range(times):
        xs = _inputs(shapes, dtype)
        arrays = [x.numpy() for x in xs]
        report = sim.run(compiled.name, [*arrays, *getattr(compiled, "constants", ()), *outs])
        assert report.error is None and not report.errors
        expect = ref(*[torch.from_numpy(x.to(pyasc.float32).numpy()).double() for x in xs]).numpy()
        got = outs[0].astype(np.float32) if dtype == "bfloat16" else outs[0]
        if dtype == "bfloat16":
            got = pyasc.tensor(outs[0]).to(pyasc.float32).numpy() if outs[0].dtype.kind == "V" else got
        # the sums' rounding grows with their terms: the absolute tolerance is relative to the largest output
        tol = TOL[dtype]
        np.testing.assert_allclose(np.asarray(got, np.float64), expect, rtol=tol, atol=tol * np.abs(expect).max())
    return sim


@pytest.fixture(autouse=True)
def grouping_on(monkeypatch):
    """Groups of cores allowed whatever ``PYASC_SIM_BATCH`` says."""
    monkeypatch.setattr(simulator, "BATCH_MODE", "on")


@pytest.fixture
def verify(monkeypatch):
    monkeypatch.setattr(replay, "REPLAY_MODE", "verify")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_grouped_cube_cores_compute_like_torch(name, verify):
    sim = _run(name)
    assert sim.data_batchable, "no cube kernel runs its data path in groups"
    assert sim.stats["grouped"] > 0
    groups = [len(bids) for (k, _, _), t in sim._traced.items() if k in sim.data_batchable and t.plan
              for _, bids in t.plan]
    assert max(groups) > 1


def test_groups_that_disagree_are_dropped_and_the_outputs_stay_right(monkeypatch):
    """Every core put in one group, tiles of other shapes included: the first replay finds the groups wrong
    (or unable to run) against core by core and drops them; every run still matches PyTorch."""
    monkeypatch.setattr(replay, "data_groups", lambda keys, mix=False: [(None, list(range(len(keys))))])
    sim = _run("matmul_f32")  # 200 x 260 in 128 x 128-ish tiles: edge tiles differ from the inner ones
    assert not sim.data_batchable
    assert sim.stats["grouped"] == 0


def test_data_groups_ignore_costs_and_auxiliary_counts():
    rec = lambda hbm, addr: (7, 0.0, 10.0, hbm, addr, 512)  # noqa: E731 - (sid, clock, cost, aux, region)
    keys = [("k", True, (rec(512 * i, 0),)) for i in range(7)] + [("k", True, (rec(0, 1024),))]
    assert replay.data_groups(keys) == [(((7, 0, 512),), list(range(7))), (((7, 1024, 512),), [7])]
    assert replay.data_groups(keys[5:]) is None  # groups of 1.5 cores on average: core by core


def test_gm_cores_views_per_core():
    g = np.arange(100, dtype=np.float32)
    one = gm_cores(g, 8, (2, 3), (16, 4), g.dtype)  # a common start: one view, broadcast to the cores
    assert len(one) == 1 and one[0][0].shape == (1, 2, 3) and one[0][0][0, 1, 2] == 8
    even = gm_cores(BatchedGM(g, 3), weak([0, 40, 80]), (2,), (4,), g.dtype)  # evenly spaced: one strided view
    assert len(even) == 1 and even[0][0].tolist() == [[0, 1], [10, 11], [20, 21]]
    uneven = gm_cores(BatchedGM(g, 3), weak([0, 8, 80]), (2,), (4,), g.dtype)
    assert [v.tolist() for v, _ in uneven] == [[[0, 1]], [[2, 3]], [[20, 21]]]
    assert [rows for _, rows in uneven] == [slice(0, 1), slice(1, 2), slice(2, 3)]
    # written: rows closer than the extent overlap, so each core writes in core order
    assert len(gm_cores(BatchedGM(g, 3), weak([0, 4, 8]), (2,), (4,), g.dtype, extent=16)) == 3
    # a common start written by every core: the last core's row, as core by core
    (view, rows), = gm_cores(BatchedGM(g, 3), 8, (2,), (4,), g.dtype, extent=8)
    assert rows == slice(-1, None)


@pytest.mark.parametrize("name", MIX_PROGRAMS)
def test_mix_kernels_run_their_ai_cores_in_groups(name, verify):
    sim = _run(name)
    grouped = [k for (k, _, _), t in sim._traced.items() if k in sim.mix and t.plan and
               max(len(bids) for _, bids in t.plan) > 1]
    assert grouped, "no MIX kernel ran its AI Cores in groups"


def test_mix_groups_that_disagree_are_dropped_and_the_outputs_stay_right(monkeypatch):
    monkeypatch.setattr(replay, "data_groups", lambda keys, mix=False: [(None, list(range(len(keys))))])
    sim = _run("mix_row_bias_relu_f16")  # edge tiles of 300 x 200 differ from the inner ones
    assert not sim.data_batchable & sim.mix


def test_mix_data_groups_compare_all_three_traces():
    rec = lambda hbm, addr: (7, 0.0, 10.0, hbm, addr, 512)  # noqa: E731 - (sid, clock, cost, aux, region)
    core = lambda hbm, aiv: ("k", True, ((rec(hbm, 0),), (rec(0, aiv),), (rec(0, aiv + 32),)))  # noqa: E731
    keys = [core(512 * i, 0) for i in range(4)] + [core(0, 64)] * 4
    groups = replay.data_groups(keys, mix=True)
    assert [bids for _, bids in groups] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert replay.data_groups([core(0, 64 * i) for i in range(4)], mix=True) is None  # every AIV differs


def _together(sim) -> list:
    """The MIX kernels with a group whose two AIVs of each AI Core ran as one unit, and whose groups were kept (found
    to give the bytes of the cores run one by one)."""
    return [k for (k, _, _), t in sim._traced.items() if k in sim.mix and t.plan and any(
        unit[0] == "group" and unit[3] == replay.SUBS_TOGETHER and unit[1] not in t.apart for _, unit in t.tapes)]


@pytest.mark.parametrize("name", MIX_PROGRAMS)
def test_mix_aivs_with_alike_traces_run_as_one_unit(name, verify):
    """Where an AI Core's two AIVs hold the same data path (same ops on the same local addresses), a group's AIVs of
    both indices run in one call, with ``GetSubBlockIdx`` per core; every run is compared with PyTorch (``_run``)
    and, in verify mode, with the cores traced one by one."""
    sim = _run(name, times=8)
    assert _together(sim), "no MIX kernel ran both AIVs of its AI Cores together"


def test_mix_aivs_that_their_code_tells_apart_run_apart(monkeypatch):
    """A group whose AIVs diverge when run as one unit (their code branches on the AIV index) runs them again one
    index at a time, and keeps doing so; the outputs stay PyTorch's."""
    run_group = replay._run_group

    def diverging(m, ck, name, n, args, traced, i, cores, ct, sub, taping):
        if sub == replay.SUBS_TOGETHER:
            raise batched.Diverged
        run_group(m, ck, name, n, args, traced, i, cores, ct, sub, taping)

    monkeypatch.setattr(replay, "_run_group", diverging)
    sim = _run("mix_row_bias_relu_f16", times=8)
    apart = [t for (k, _, _), t in sim._traced.items() if k in sim.mix and t.apart]
    assert apart and sim.data_batchable & sim.mix and not _together(sim)
    assert all(unit[3] in (0, 1) for t in apart for _, unit in t.tapes if unit[0] == "group" and unit[2] == 1)


@pytest.mark.parametrize("name", ["matmul_shared_grid_f16", "matmul_shared_grid_f32", "matmul_shared_grid_512_f16"])
def test_cores_sharing_operands_multiply_as_one_grid(name, monkeypatch):
    """Each distinct A and B is multiplied once, in one GEMM of the grid; every run matches PyTorch, and the
    groups that multiply so still agree bit for bit with their cores run one by one (their first use)."""
    from pyasc.runtime import cube_mmad

    grids = []
    multiply_grid = cube_mmad.Chain._multiply_grid

    def spy(chain, rows, a_reps, a_of, b_reps, b_of):
        grids.append((chain.cores, len(a_reps), len(b_reps)))
        return multiply_grid(chain, rows, a_reps, a_of, b_reps, b_of)

    monkeypatch.setattr(cube_mmad.Chain, "_multiply_grid", spy)
    sim = _run(name, times=3)
    assert sim.stats["grouped"] > 0
    assert grids and all(p * q <= cube_mmad.GRID_WASTE * cores and p < cores for cores, p, q in grids), grids


def test_a_grid_gemm_gives_each_block_the_bits_of_its_own_gemm():
    """What ``shared_grid`` relies on (``blas.grid_into``): for products of at least ``DIRECT_MACS`` multiply-adds,
    each block of the GEMM of the stacked A's times the B's side by side (B^T's rows) has the bits of that block's
    own product as ``matmul_into`` computes it; random grids and sizes, K up to 2048, on either side of
    ``THREADED_MACS``."""
    from pyasc.runtime import blas, cube_direct

    rng = np.random.default_rng(9)
    tried = 0
    while tried < 40:
        m16, n16, k = 16 * int(rng.integers(1, 17)), 16 * int(rng.integers(1, 33)), int(rng.integers(32, 2049))
        if m16 * n16 * k < cube_direct.DIRECT_MACS:
            continue
        tried += 1
        ga, gb = (int(x) for x in rng.integers(1, 6, 2))
        a = rng.standard_normal((ga * m16, k)).astype(np.float32)
        bt = rng.standard_normal((gb * n16, k)).astype(np.float32)
        grid = blas.grid_into(a, bt.T, np.empty((ga * m16, gb * n16), np.float32), m16, m16 * n16 * k)
        for i in range(ga):
            for j in range(gb):
                own = blas.matmul_into(a[i * m16:(i + 1) * m16], bt[j * n16:(j + 1) * n16].T,
                                       np.empty((m16, n16), np.float32))
                block = grid[i * m16:(i + 1) * m16, j * n16:(j + 1) * n16]
                assert np.array_equal(own.view(np.int32), block.view(np.int32)), (m16, n16, k, ga, gb)


def test_shared_grid_compares_operands_bit_for_bit():
    from pyasc.runtime import cube_mmad

    rng = np.random.default_rng(0)
    m16, n16, k = 16, 32, 64
    a = rng.standard_normal((2, m16, k)).astype(np.float32)
    b = rng.standard_normal((3, n16, k)).astype(np.float32)
    a[1, 5, 7] = np.nan
    rows = np.stack([np.concatenate([a[i], b[j]]) for i in range(2) for j in range(3)])  # 6 cores, a 2 x 3 grid
    a_reps, a_of, b_reps, b_of = cube_mmad.shared_grid(cube_mmad.FP32, rows, m16)
    assert (a_reps, list(a_of), b_reps, list(b_of)) == ([0, 3], [0, 0, 0, 1, 1, 1], [0, 1, 2], [0, 1, 2, 0, 1, 2])
    signed = rows[:, :m16].copy()
    signed[3:, 3, 2] = 0.0
    signed[5, 3, 2] = -0.0  # equal to 0.0 as a number, not as bits: core 5's A is an operand of its own
    reps, of = cube_mmad._distinct(signed.view(np.int32))
    assert (reps, list(of)) == ([0, 3, 5], [0, 0, 0, 1, 1, 2])
    distinct = np.stack([np.concatenate([a[0] + i, b[0] + i]) for i in range(6)])  # nothing shared
    assert cube_mmad.shared_grid(cube_mmad.FP32, distinct, m16) is None
