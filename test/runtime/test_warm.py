"""Host runs repeated from a recorded run (``runtime.warm``): every call on new data matches PyTorch, reports
what the checked run reported, and any change that could change a launch's trace (buffers sharing memory,
another hazard policy, a launch traced again) takes the full path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator, replay
from pyasc.runtime import simulator as simulator_module
from pyasc.runtime.simulator import parse_module

# a recorded host run is repeated only with replays on (``PYASC_SIM_REPLAY=verify`` traces every launch again)
pytestmark = pytest.mark.skipif(replay.REPLAY_MODE != "on", reason="PYASC_SIM_REPLAY is not on: no warm runs")

RNG = np.random.default_rng(5)

PROGRAMS = {
    "add": (lambda x, y: x + y, [(4,), (4,)], np.float32, lambda x, y: x + y),
    "add_relu_rows": (lambda x, y: pyasc.relu(x + y * 2.0), [(37, 1000), (37, 1000)], np.float32,
                      lambda x, y: torch.relu(x + y * 2.0)),
    "softmax": (lambda x: pyasc.softmax(x, -1), [(64, 3000)], np.float32, lambda x: torch.softmax(x, -1)),
    "matmul_f16_bias_gelu": (lambda a, b, c: pyasc.gelu(a @ b + c), [(256, 128), (128, 192), (192,)], np.float16,
                             lambda a, b, c: torch.nn.functional.gelu(
                                 (a.float() @ b.float()).half().float() + c.float()).half()),
    "conv2d": (lambda x, w: pyasc.conv2d(x, w, stride=1, padding=1), [(2, 8, 12, 12), (16, 8, 3, 3)],
               np.float32, lambda x, w: torch.nn.functional.conv2d(x, w, stride=1, padding=1)),
}


def _compile(name):
    fn, shapes, dtype, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(*[pyasc.tensor(np.zeros(s, dtype)) for s in shapes])
    return compiled, shapes, dtype, ref


def _inputs(shapes, dtype):
    return [RNG.standard_normal(s).astype(dtype) for s in shapes]


def _check(out, ref, arrays, dtype):
    expect = ref(*[torch.from_numpy(a) for a in arrays]).numpy().astype(np.float64)
    tol = 2e-5 if dtype == np.float32 else 2e-2
    np.testing.assert_allclose(out.astype(np.float64), expect, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_repeated_calls_match_torch_and_report_the_checked_run(name):
    compiled, shapes, dtype, ref = _compile(name)
    sim = Simulator(compiled.module)
    reports = []
    for _ in range(4):
        arrays = _inputs(shapes, dtype)
        outs = [np.full(o.shape, np.nan, o.dtype.np_dtype) for o in compiled.outputs]
        reports.append(sim.run(compiled.name, [*arrays, *compiled.constants, *outs]))
        _check(outs[0], ref, arrays, dtype)
    assert sim.stats["warm"] >= 2, sim.stats
    first = reports[0]
    for r in reports[1:]:
        assert r.ok and not r.findings
        assert (r.seconds, r.cycles, r.pipe_busy) == (first.seconds, first.cycles, first.pipe_busy)
        assert [(lr.kernel, lr.cycles) for lr in r.launches] == [(lr.kernel, lr.cycles) for lr in first.launches]


def test_buffers_sharing_memory_take_the_full_path():
    compiled, shapes, dtype, ref = _compile("add_relu_rows")
    sim = Simulator(compiled.module)
    out = np.zeros((37, 1000), np.float32)
    for _ in range(3):
        x, y = _inputs(shapes, dtype)
        sim.run(compiled.name, [x, y, out])
    warm = sim.stats["warm"]
    x = _inputs(shapes, dtype)[0]
    sim.run(compiled.name, [x, x, out])            # one array passed twice
    _check(out, ref, [x, x], dtype)
    both = np.zeros((2, 37, 1000), np.float32)
    both[0] = x
    sim.run(compiled.name, [both[0], both[1], out])  # two views of one array
    _check(out, ref, [x, np.zeros_like(x)], dtype)
    assert sim.stats["warm"] == warm


def test_another_hazard_policy_takes_the_full_path():
    compiled, shapes, dtype, ref = _compile("softmax")
    sim = Simulator(compiled.module)
    out = np.zeros((64, 3000), np.float32)
    for _ in range(3):
        sim.run(compiled.name, [*_inputs(shapes, dtype), out])
    warm = sim.stats["warm"]
    sim.hazards = "off"                               # no race check: other trace keys
    arrays = _inputs(shapes, dtype)
    sim.run(compiled.name, [*arrays, out])
    _check(out, ref, arrays, dtype)
    assert sim.stats["warm"] == warm
    for _ in range(3):
        sim.run(compiled.name, [*_inputs(shapes, dtype), out])
    assert sim.stats["warm"] > warm                   # recorded again under the new policy


def test_listeners_hear_of_repeated_calls():
    compiled, shapes, dtype, _ = _compile("add")
    sim = Simulator(compiled.module)
    heard = []

    def listener(s, host, report):
        heard.append((host, report.cycles))

    simulator_module.add_listener(listener)
    try:
        for _ in range(3):
            sim.run(compiled.name, [*_inputs(shapes, dtype), np.zeros(4, np.float32)])
    finally:
        simulator_module.remove_listener(listener)
    assert sim.stats["warm"] >= 1 and len(heard) == 3 and len({c for _, c in heard}) == 1


def test_a_run_that_reported_something_is_never_repeated():
    """A DataCopy of 250 floats moves 992 B and reports so (the Ascend C floor to 32 B): each call reports
    it again, so none is repeated from a record."""
    from test_contract import COPY, _module

    text = _module(COPY.replace("%n = arith.constant 256 : index", "%n = arith.constant 250 : index"))
    sim = Simulator(parse_module(text), hazards="ignore", initcheck=False)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal(256).astype(np.float32)
        out = np.zeros(256, np.float32)
        report = sim.run("host", [x, out], raise_errors=False)
        assert any(f.rule == "datacopy-count-32b-floor" for f in report.findings)
        np.testing.assert_array_equal(out[:248], x[:248])
    assert sim.stats["warm"] == 0 and sim.stats["replays"] >= 2


def test_jit_calls_repeat_from_the_record():
    a, b = pyasc.tensor(RNG.standard_normal(4).astype(np.float32)), pyasc.tensor(np.ones(4, np.float32))
    add = pyasc.jit(lambda x, y: x + y)
    for _ in range(3):
        np.testing.assert_array_equal(add(a, b).numpy(), a.numpy() + b.numpy())
    sim = add.compile(a, b)._sim()
    assert sim.stats["warm"] >= 1
    np.testing.assert_array_equal(add(a, a).numpy(), a.numpy() * 2)


def test_replay_turned_off_traces_every_call(monkeypatch):
    from pyasc.runtime import replay

    compiled, shapes, dtype, ref = _compile("add_relu_rows")
    sim = Simulator(compiled.module)
    out = np.zeros((37, 1000), np.float32)
    for _ in range(3):
        sim.run(compiled.name, [*_inputs(shapes, dtype), out])
    warm, replays = sim.stats["warm"], sim.stats["replays"]
    monkeypatch.setattr(replay, "REPLAY_MODE", "off")
    arrays = _inputs(shapes, dtype)
    sim.run(compiled.name, [*arrays, out])
    _check(out, ref, arrays, dtype)
    assert (sim.stats["warm"], sim.stats["replays"]) == (warm, replays)


def test_an_input_written_in_place_between_calls_is_read_again():
    """A small input passed call after call keeps its flat bytes on the machine (``Machine.flat``): values
    written into the same array in between are what the next call reads."""
    x_np, y_np = np.zeros(4, np.float32), np.ones(4, np.float32)
    x, y = pyasc.tensor(x_np), pyasc.tensor(y_np)
    add = pyasc.jit(lambda a, b: a * 3.0 + b)
    for i in range(6):
        x.numpy()[...] = RNG.standard_normal(4).astype(np.float32)
        expect = torch.from_numpy(x.numpy()) * 3.0 + torch.from_numpy(y.numpy())
        np.testing.assert_allclose(add(x, y).numpy(), expect.numpy(), rtol=1e-6, atol=1e-6)
    assert add.compile(x, y)._sim().stats["warm"] >= 3


def test_warm_runs_of_several_threads_are_all_counted():
    from concurrent.futures import ThreadPoolExecutor

    compiled, shapes, dtype, ref = _compile("add")
    sim = Simulator(compiled.module)
    calls = 40

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(calls):
            arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
            out = np.zeros(4, np.float32)
            sim.run(compiled.name, [*arrays, out])
            _check(out, ref, arrays, dtype)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    stats = sim.stats
    assert stats["cores"] == 4 * calls              # one core per run, whether traced, replayed or warm
    # a host run is recorded after a run that replayed its launch: at most a trace and a replay per machine before
    assert stats["warm"] >= 4 * calls - 2 * sim.machines, (stats, sim.machines)
    assert stats["replays"] >= stats["warm"]        # a warm run replays its launch


def test_a_machine_keeps_the_bytes_of_small_arrays_only():
    """``Machine.flat`` keeps a small array's flat bytes (made once), but not those of a small view of a large
    array: holding them would keep the large array alive."""
    import gc
    import weakref

    compiled, _, _, _ = _compile("add")
    m = Simulator(compiled.module)._acquire()
    small = np.arange(4, dtype=np.float32)
    assert m.flat(small) is m.flat(small)
    np.testing.assert_array_equal(m.flat(small).view(np.float32), small)
    big = np.arange(1 << 16, dtype=np.float32)
    gone = weakref.ref(big)
    view = big[8:12]
    np.testing.assert_array_equal(m.flat(view).view(np.float32), [8, 9, 10, 11])
    del big, view
    gc.collect()
    assert gone() is None
