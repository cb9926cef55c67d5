"""Streams, events, device memory accounting and the profiler."""

import builtins
import gc
import json

import numpy as np
import pytest

import pyasc
from pyasc import runtime_api as rt


def _prog():
    @pyasc.jit
    def f(a, b):
        return pyasc.exp(a * b) + a

    return f


def test_stream_launch_is_deferred_and_in_order():
    f = _prog()
    x = pyasc.from_numpy(np.full((64, 512), 0.5, np.float32))
    ref = f(x, x).numpy()
    s = pyasc.Stream()
    with pyasc.stream(s):
        assert pyasc.current_stream() is s
        y = f(x, x)
        z = f(y, x)  # reads y: must run after the first launch
        assert not s.query()
    assert pyasc.current_stream() is pyasc.default_stream()
    s.synchronize()
    assert s.query()
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(z.numpy(), f(pyasc.from_numpy(ref), x).numpy(), rtol=1e-6)


def test_events_measure_simulated_time():
    f = _prog()
    x = pyasc.randn(128, 1024, dtype=pyasc.float16)
    s = pyasc.Stream()
    e0, e1, e2 = pyasc.Event(), pyasc.Event(), pyasc.Event()
    with pyasc.stream(s):
        e0.record()
        f(x, x)
        e1.record()
        f(x, x)
        f(x, x)
        e2.record()
    assert not e2.query()
    with pytest.raises(pyasc.PyascError, match="not completed"):
        e0.elapsed_time(e2)
    e2.synchronize()
    one = e0.elapsed_time(e1)
    assert one > 0.003 * 0.999  # at least the 3 us launch overhead, in ms
    assert e1.elapsed_time(e2) == pytest.approx(2 * one)
    c = f.compile(x, x)
    _, report = c.simulate(x, x)
    assert one == pytest.approx(report.seconds * 1e3)


def test_default_stream_runs_at_once():
    x = pyasc.ones(1024)
    e0, e1 = pyasc.Event(), pyasc.Event()
    e0.record()
    y = pyasc.exp(x)
    e1.record()
    assert e1.query() and e0.elapsed_time(e1) > 0
    np.testing.assert_allclose(y.numpy(), np.e, rtol=1e-6)


def test_wait_event_across_streams():
    f = _prog()
    x = pyasc.ones(4096)
    a, b = pyasc.Stream(), pyasc.Stream()
    done = pyasc.Event()
    with pyasc.stream(a):
        for _ in range(3):
            f(x, x)
        done.record()
    b.wait_event(done)
    after = pyasc.Event()
    after.record(b)
    after.synchronize()
    assert done.query() and after.elapsed_time(done) == pytest.approx(0.0, abs=1e-12) or after._time >= done._time
    pyasc.synchronize()


def test_memory_stats_and_peak():
    gc.collect()
    base = pyasc.memory_stats()["allocated"]
    pyasc.reset_peak_memory_stats()
    x = pyasc.ones(1 << 20)  # 4 MiB
    y = pyasc.exp(x)  # x is uploaded, y allocated
    st = pyasc.memory_stats()
    assert st["allocated"] - base == 2 * 4 * 2**20
    assert st["peak_allocated"] >= st["allocated"]
    assert st["reserved"] >= st["allocated"] and st["reserved"] % (2 * 2**20) == 0
    del x, y
    gc.collect()
    st2 = pyasc.memory_stats()
    assert st2["allocated"] == base and st2["peak_allocated"] == st["peak_allocated"]
    assert st2["reserved"] >= st["reserved"]  # the cache keeps the segments
    pyasc.empty_cache()
    pyasc.reset_peak_memory_stats()
    assert pyasc.memory_stats()["peak_allocated"] == base


def test_device_out_of_memory_is_a_clear_error():
    from pyasc.dialects.target import get_target

    assert get_target("ascend910b2").hbm_capacity_bytes == 64 * 2**30
    assert get_target("ascend910b4").hbm_capacity_bytes == 32 * 2**30
    gc.collect()
    rt.set_memory_capacity(pyasc.memory_stats()["allocated"] + 10 * 2**20)
    try:
        x = pyasc.ones(1 << 20)
        y = pyasc.exp(x)  # noqa: F841 - keeps 8 MiB alive
        with pytest.raises(pyasc.PyascError, match="device out of memory: tried to allocate 4.00 MiB"):
            pyasc.exp(x)
    finally:
        rt.set_memory_capacity(None)


def test_profiler_summary_trace_and_plot(tmp_path, capsys):
    f = _prog()
    x = pyasc.randn(64, 1024, dtype=pyasc.float16)
    path = tmp_path / "trace.json"
    with pyasc.profiler(path) as prof:
        f(x, x)
        f(x, x)
        pyasc.exp(x)
    f(x, x)  # not recorded
    assert [r.kernel for r in prof.records] == ["f_k0", "f_k0", "eager_exp_k0"]
    text = str(prof.summary())
    assert "f_k0" in capsys.readouterr().out
    row = next(line for line in text.splitlines() if line.startswith("f_k0"))
    assert row.split()[1] == "2"
    assert "MTE2 %" in text and "bound" in text
    ev = json.loads(path.read_text())["traceEvents"]
    tracks = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "X"}
    assert ("core 0", "V") in tracks and ("core 0", "MTE2") in tracks and ("core 47", "MTE3") in tracks
    starts = [e["ts"] for e in ev if e["pid"] == "launches"]
    assert starts == sorted(starts) and len(starts) == 3
    pytest.importorskip("matplotlib")
    prof.plot(tmp_path / "t.png")
    assert (tmp_path / "t.png").stat().st_size > 1000


def test_plot_without_matplotlib(monkeypatch, tmp_path):
    real = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(pyasc.PyascError, match="matplotlib is not installed"):
        rt.Profiler().plot(tmp_path / "x.png")
