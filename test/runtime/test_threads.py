"""Compiled programs, eager ops and the runtime used from many threads at once, checked against NumPy."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import pyasc
from pyasc.runtime import Simulator

THREADS = 8
CALLS = 50


def _run_threads(work) -> list:
    """``work(thread, call)`` for every call of every thread, the threads running at once."""
    def thread(t):
        return [work(t, i) for i in range(CALLS)]

    with ThreadPoolExecutor(THREADS) as pool:
        return [r for rs in pool.map(thread, range(THREADS)) for r in rs]


def _data(t: int, i: int, shape, dtype=np.float32) -> np.ndarray:
    rng = np.random.default_rng(1000 * t + i)
    return rng.uniform(-1.0, 1.0, shape).astype(dtype)


def test_one_warm_jit_function_from_eight_threads():
    @pyasc.jit
    def f(a, b):
        return a * b + a

    shape = (64, 512)  # 32,768 elements on several cores: every call fills UB with its own data
    f(_data(99, 0, shape), _data(99, 1, shape))  # warm: compiled and simulated once

    def work(t, i):
        a, b = _data(t, 2 * i, shape), _data(t, 2 * i + 1, shape)
        out = f(a, b).numpy()
        return np.array_equal(out, a * b + a)

    ok = _run_threads(work)
    assert len(ok) == THREADS * CALLS
    assert all(ok), f"{ok.count(False)} of {len(ok)} outputs differ from NumPy"
    assert f.cache_size() == 1


def test_eager_ops_from_eight_threads():
    shape = (32, 256)
    ops = [
        (lambda a, b: pyasc.add(a, b), lambda a, b: a + b, 0.0),
        (lambda a, b: pyasc.exp(a), lambda a, b: np.exp(a), 1e-6),
        (lambda a, b: pyasc.maximum(a, b), lambda a, b: np.maximum(a, b), 0.0),
        (lambda a, b: pyasc.sum(a, dim=1), lambda a, b: a.sum(axis=1), 1e-5),
    ]

    def work(t, i):
        op, ref, tol = ops[(t + i) % len(ops)]
        a, b = _data(t, 2 * i, shape), _data(t, 2 * i + 1, shape)
        out = op(pyasc.from_numpy(a), pyasc.from_numpy(b)).numpy()
        want = ref(a, b)
        return out.shape == want.shape and np.allclose(out, want, rtol=tol, atol=tol)

    ok = _run_threads(work)
    assert all(ok), f"{ok.count(False)} of {len(ok)} outputs differ from NumPy"


def test_concurrent_runs_use_separate_machines():
    @pyasc.jit
    def g(a):
        return a + a

    x = _data(0, 0, (64, 512))
    c = g.compile(x)
    outs = _run_threads(lambda t, i: np.array_equal(c.simulate(_data(t, i, (64, 512)))[0],
                                                    2 * _data(t, i, (64, 512))) if i < 5 else True)
    assert all(outs)
    sim = c._sim()
    assert isinstance(sim, Simulator) and 1 <= sim.machines <= THREADS


def test_streams_and_memory_stats_from_threads():
    @pyasc.jit
    def h(a):
        return a * 2.0

    x0 = _data(1, 1, (16, 128))
    h(x0)

    def work(t, i):
        if i >= 10:
            return True
        s = pyasc.Stream()
        x = _data(t, i, (16, 128))
        with pyasc.stream(s):
            assert pyasc.current_stream() is s  # the current stream is per thread
            y = h(x)
        s.synchronize()
        return np.array_equal(y.numpy(), x * 2.0)

    assert all(_run_threads(work))
    assert pyasc.current_stream() is pyasc.default_stream()
    stats = pyasc.memory_stats()
    assert 0 <= stats["allocated"] <= stats["peak_allocated"]


def test_a_fresh_function_from_threads_compiles_once_and_is_correct(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))  # compiled here, not found on disk

    @pyasc.jit
    def k(a, b):
        return pyasc.maximum(a, b) - 0.5

    def work(t, i):
        if i >= 3:
            return True
        a, b = _data(t, i, (8, 256)), _data(t, i + 100, (8, 256))
        return np.allclose(k(a, b).numpy(), np.maximum(a, b) - 0.5, rtol=1e-6, atol=1e-6)

    from pyasc import cache

    before = cache.stats()["stores"]
    assert all(_run_threads(work))
    assert k.cache_size() == 1
    assert cache.stats()["stores"] - before == 1  # compiled once: every other thread waited for it


def test_the_profiler_records_every_launch_of_every_thread():
    @pyasc.jit
    def p(a):
        return a * 3.0

    p(_data(0, 0, (16, 128)))
    with pyasc.profiler() as prof:
        ok = _run_threads(lambda t, i: np.allclose(p(_data(t, i, (16, 128))).numpy(), 3.0 * _data(t, i, (16, 128)),
                                                   rtol=1e-6) if i < 5 else True)
    assert all(ok)
    assert len(prof.records) == len(prof.ops) == THREADS * 5
    assert all(r.kernel == "p_k0" for r in prof.records)


def test_a_trace_belongs_to_the_thread_that_records_it():
    """While one thread traces a function, another thread is outside any trace: its jit calls are
    compiled and run, not inlined into the first thread's trace."""
    import threading

    from pyasc.tracing import current_trace

    tracing, release = threading.Event(), threading.Event()

    @pyasc.jit
    def slow(a):
        tracing.set()
        release.wait(60)  # the trace stays open until the other thread has looked
        return a + 1.0

    seen = {}
    pyasc.exp(_data(4, 4, (4, 64)))  # compiled before, so that running it needs no compile lock

    def other():
        tracing.wait(60)
        seen["trace"] = current_trace()
        x = _data(5, 5, (4, 64))
        seen["ok"] = np.allclose(pyasc.exp(x).numpy(), np.exp(x), rtol=1e-5)  # run eagerly, not traced
        release.set()

    t = threading.Thread(target=other)
    t.start()
    x = _data(6, 6, (4, 64))
    out = slow(x).numpy()
    t.join(120)
    assert seen == {"trace": None, "ok": True}
    np.testing.assert_allclose(out, x + 1.0, rtol=1e-6)


def test_jit_results_from_threads_are_counted_and_given_back_exactly():
    import gc

    @pyasc.jit
    def h(a, b):
        return a + b, a * b

    x, y = pyasc.tensor(_data(0, 0, (3, 100))), pyasc.tensor(_data(0, 1, (3, 100)))
    h(x, y)
    gc.collect()
    base = pyasc.memory_stats()["allocated"]
    held = []

    def work(t, i):
        s, p = h(x, y)
        if i % 10 == 0:
            held.append(s)  # some results stay alive: each counts 1200 B rounded up to 1536 B
        return np.array_equal(s.numpy(), x.numpy() + y.numpy()) and np.array_equal(p.numpy(), x.numpy() * y.numpy())

    assert all(_run_threads(work))
    gc.collect()
    assert pyasc.memory_stats()["allocated"] - base == len(held) * 1536 == THREADS * CALLS // 10 * 1536
    held.clear()
    gc.collect()
    assert pyasc.memory_stats()["allocated"] == base
