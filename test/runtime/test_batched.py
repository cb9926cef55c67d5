"""Cores run in groups (``runtime.batched``): the same outputs, traces and reports as core by core.

Every program runs three times on one simulator in "verify" mode: the first run is core by core and
records the groups, the next ones run each group in one call and then core by core again, and the
simulator raises if outputs or traces differ. The outputs are also compared with NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc
from pyasc.runtime import Simulator
from pyasc.runtime import batched
from pyasc.runtime import simulator as sim_mod


@pytest.fixture
def verify(monkeypatch):
    monkeypatch.setattr(sim_mod, "BATCH_MODE", "verify")


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


RNG = np.random.default_rng(7)
PROGRAMS = {
    "add": (lambda x, y: x + y * 2.0, [(37, 1000), (37, 1000)], lambda x, y: x + y * 2.0),
    "softmax_rows": (lambda x: pyasc.softmax(x, -1), [(96, 300)], _softmax),
    "softmax_long_row": (lambda x: pyasc.softmax(x, -1), [(1, 1 << 16)], _softmax),
    "layer_norm": (lambda x: pyasc.layer_norm(x, (256,)), [(64, 256)],
                   lambda x: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)),
    "sum_axis0": (lambda x: pyasc.sum(x, 0), [(300, 96)], lambda x: x.sum(0)),
    "argmax_axis0": (lambda x: pyasc.argmax(x, 0), [(50, 400)], lambda x: x.argmax(0)),
    "where": (lambda x, y: pyasc.where(x > y, x, y * 0.5), [(40, 500), (40, 500)],
              lambda x, y: np.where(x > y, x, y * 0.5)),
    "strided": (lambda x: x[:, ::3] * 2.0, [(64, 600)], lambda x: x[:, ::3] * 2.0),
    "transpose": (lambda x: x.T + 1.0, [(96, 160)], lambda x: x.T + 1.0),
    "int8": (lambda x: (x * 40.0).to(pyasc.int8), [(64, 512)],
             lambda x: np.trunc((x * np.float32(40.0)).astype(np.float64)).astype(np.int64).astype(np.int8)),
    "topk": (lambda x: pyasc.topk(x, 3, -1)[0], [(96, 64)], lambda x: -np.sort(-x, -1)[:, :3]),
    # float32 B is transposed by a movement kernel (the cores read interleaved columns) into a host buffer
    "matmul_f32": (lambda a, b: a @ b, [(8, 256), (256, 200)], lambda a, b: a.astype(np.float64) @ b),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_groups_match_core_by_core_and_numpy(name, verify):
    fn, shapes, ref = PROGRAMS[name]
    arrays = [RNG.standard_normal(s).astype(np.float32) for s in shapes]
    # each kernel launched on its own: the cores of a launch that meets at SyncAll run round by round, never in groups
    compiled = pyasc.jit(fn, options={"launches": "separate"}).compile(*[pyasc.tensor(a) for a in arrays])
    sim = Simulator(compiled.module, hazards="ignore")
    outs = [np.zeros(o.shape, o.dtype.np_dtype) for o in compiled.outputs]
    reports = [sim.run(compiled.name, [*arrays, *getattr(compiled, "constants", ()), *outs]) for _ in range(3)]
    assert [r.cycles for r in reports] == [reports[0].cycles] * 3
    assert [len(r.findings) for r in reports] == [len(reports[0].findings)] * 3
    np.testing.assert_allclose(outs[0].astype(np.float64), ref(*arrays), rtol=2e-5, atol=2e-5)
    if name in ("add", "softmax_rows", "softmax_long_row", "layer_norm"):
        assert sim._plans, "the cores of these launches share traces: they should run in groups"
        assert not sim._failures


def test_a_group_whose_trace_differs_runs_core_by_core_again(monkeypatch):
    x = RNG.standard_normal((37, 1000)).astype(np.float32)
    compiled = pyasc.jit(lambda x: x * 3.0).compile(pyasc.tensor(x))
    sim = Simulator(compiled.module, hazards="ignore")
    out = np.zeros_like(x)
    sim.run(compiled.name, [x, out])
    ((kernel, cores, check), plan), = sim._plans.items()
    sim._plans[(kernel, cores, check)] = [((k[0], k[1], k[2][:-1]), bids) for k, bids in plan]  # a wrong trace
    out[...] = 0
    sim.run(compiled.name, [x, out])
    np.testing.assert_array_equal(out, x * np.float32(3.0))
    assert sim._failures == {kernel: 1}
    assert (kernel, cores, check) in sim._plans  # planned again from the core-by-core run


def test_weak_vectors_follow_python_number_promotion():
    v = batched.weak([1.1, 2.2, 3.3])  # Python floats (float64), one per core
    f32 = np.float32(0.1)
    got = v * f32  # a Python float meeting a float32 becomes float32 first (NEP 50)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.reshape(-1), [np.float32(x) * f32 for x in (1.1, 2.2, 3.3)])
    assert (v * 2.0).dtype == np.float64 and isinstance(v * 2.0, batched.WeakVec)
    view = np.zeros((3, 4), np.float16)
    np.add(view, v, out=view)
    np.testing.assert_array_equal(view[:, 0], np.float16([1.1, 2.2, 3.3]))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("ufunc", [np.add, np.multiply, np.maximum, np.minimum])
def test_a_vector_op_with_a_per_core_scalar_computes_each_core_as_numpy_does_with_its_number(dtype, ufunc):
    values = [1.7, -2.25, 3e3] if np.dtype(dtype).kind == "f" else [3, -7, 2 ** 20]
    src = (np.arange(12).reshape(3, 4) - 5).astype(dtype)
    dst = np.empty_like(src)
    ufunc(src, batched.weak(values), out=dst)  # Adds/Muls/Maxs/Mins(dst, src, scalar) on a group of three cores
    for core, value in enumerate(values):  # one core: the ufunc with its Python number (NEP 50)
        np.testing.assert_array_equal(dst[core], ufunc(src[core], value))


def test_a_negated_weak_vector_is_each_cores_negated_number():
    values = [1.5, -0.0, 3e300]
    got = -batched.weak(values)
    assert isinstance(got, batched.WeakVec)
    assert [float(x) for x in got.reshape(-1)] == [-x for x in values]
    assert np.signbit(got.reshape(-1)[1]) != np.signbit(values[1])
    same = -batched.weak([2.5, 2.5])
    assert type(same) is float and same == -2.5  # the cores agree: a Python number, as on one core


def test_weak_vectors_give_one_value_only_when_the_cores_agree():
    same, differ = batched.weak([4, 4, 4]), batched.weak([4, 5, 4])
    assert list(range(same)) == [0, 1, 2, 3] and bool(same > 3) and int(same) == 4
    for use in (lambda: range(differ), lambda: bool(differ > 4), lambda: int(differ)):
        with pytest.raises(batched.Diverged):
            use()


def test_gm_rows_of_a_group_gather_and_scatter_like_core_by_core():
    g = np.arange(100, dtype=np.float32)
    gm = batched.BatchedGM(g, 3)
    even, uneven = batched.weak([0, 10, 20]), batched.weak([0, 7, 30])
    np.testing.assert_array_equal(gm[even:even + 4], [g[0:4], g[10:14], g[20:24]])
    np.testing.assert_array_equal(gm[uneven:uneven + 4], [g[0:4], g[7:11], g[30:34]])
    rows = -np.arange(12, dtype=np.float32).reshape(3, 4)
    gm[batched.weak([0, 2, 4]):batched.weak([0, 2, 4]) + 4] = rows  # overlapping: later cores win
    expect = np.arange(100, dtype=np.float32)
    for c, s in enumerate((0, 2, 4)):
        expect[s:s + 4] = rows[c]
    np.testing.assert_array_equal(g, expect)


def test_per_core_numbers_the_cores_agree_on_become_python_numbers():
    v = batched.weak([3, 5, 7])
    zero, half = v - v, v * 0 + 2.5
    assert type(zero) is int and zero == 0
    assert type(half) is float and half == 2.5
    assert (v >= 0) is True
    assert isinstance(v + 1, batched.WeakVec)
    signs = batched.weak([0.0, -0.0]) * 1.0  # equal but not the same number: kept per core
    assert isinstance(signs, batched.WeakVec) and np.signbit(signs.view(np.ndarray)).reshape(-1).tolist() == [False, True]


def test_uneven_small_rows_scatter_by_one_index_like_core_by_core():
    g = np.zeros(64, np.float32)
    gm = batched.BatchedGM(g, 3)
    starts = batched.weak([0, 7, 30])  # disjoint, not evenly spaced
    rows = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    gm[starts:starts + 4] = rows
    expect = np.zeros(64, np.float32)
    for c, s in enumerate((0, 7, 30)):
        expect[s:s + 4] = rows[c]
    np.testing.assert_array_equal(g, expect)


def test_schedules_are_reused_across_calls_and_the_cache_stays_bounded(monkeypatch):
    x = RNG.standard_normal((96, 300)).astype(np.float32)
    compiled = pyasc.jit(lambda x: pyasc.softmax(x, -1) * 2.0 + 1.0).compile(pyasc.tensor(x))
    sim = Simulator(compiled.module, hazards="ignore")
    out = np.zeros(compiled.outputs[0].shape, np.float32)
    first = sim.run(compiled.name, [x, out])
    scheduled = sim.stats["schedules"]
    again = sim.run(compiled.name, [x, out])
    assert sim.stats["schedules"] == scheduled and again.cycles == first.cycles     # every schedule reused
    np.testing.assert_allclose(out, _softmax(x) * 2.0 + 1.0, rtol=2e-5, atol=2e-5)
    monkeypatch.setattr(Simulator, "CACHE_RECORDS", 1)                               # room for one key
    small = Simulator(compiled.module, hazards="ignore")
    assert small.run(compiled.name, [x, out]).cycles == first.cycles
    assert len(small._timing_cache) <= 1
    assert small._cached_records == sum(small._trace_records(k) for k in small._timing_cache)


def test_host_buffers_are_kept_and_zeroed_for_the_next_run():
    """A program's intermediate GM buffer (the doubled A, made by a vector kernel for the cube) is kept by the
    simulator for the next run, zeroed again: runs on other data still give NumPy's products."""
    compiled = pyasc.jit(lambda a, b: (a * 2) @ b).compile(pyasc.tensor(np.zeros((8, 88), np.float16)),
                                                           pyasc.tensor(np.zeros((88, 40), np.float16)))
    sim = Simulator(compiled.module, hazards="ignore")
    for _ in range(2):
        a, b = RNG.standard_normal((8, 88)).astype(np.float16), RNG.standard_normal((88, 40)).astype(np.float16)
        out = np.zeros((8, 40), np.float16)
        sim.run(compiled.name, [a, b, out])
        ref = (a.astype(np.float64) * 2) @ b.astype(np.float64)
        np.testing.assert_allclose(out.astype(np.float64), ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())
    assert any(m.allocs for m in sim._idle), "the doubled A should be kept for the next run"
