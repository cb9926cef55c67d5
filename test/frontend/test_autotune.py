"""pyasc.autotune: every configuration of the space is compiled and simulated, the fastest is kept
in the disk cache and used by jit; the backends agree; the outputs are checked against NumPy."""

import importlib.util

import numpy as np
import pytest

import pyasc
from pyasc.autotune import configurations

SPACE = {"tile_size": [1024, 8192], "buffers": [1, 2]}


def scaled_sigmoid(x, y):
    return pyasc.sigmoid(x * y) * 3.0 + 1.0


def reference(x, y):
    return 3.0 / (1.0 + np.exp(-(x.astype(np.float64) * y))) + 1.0


@pytest.fixture
def disk(tmp_path, monkeypatch):
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def _examples():
    rng = np.random.default_rng(3)
    return [rng.standard_normal((64, 1000)).astype(np.float32) for _ in range(2)]


def test_serial_search_keeps_the_fastest_and_jit_uses_it(disk):
    x, y = _examples()
    result = pyasc.autotune(scaled_sigmoid, x, y, space=SPACE, backend="serial")
    assert len(result.trials) == 5 and result.analytic.options == {}          # the defaults + 4 configurations
    times = {tuple(sorted(t.options.items())): t for t in result.trials}
    too_big = times[(("buffers", 2), ("tile_size", 8192))]                  # 2 x 8192-element tiles x 3 > UB
    assert too_big.seconds is None and "UB overflow" in too_big.error
    ran = [t for t in result.trials if t.seconds is not None]
    assert len(ran) == 4 and all(t.seconds > 0 for t in ran), result.table()
    assert result.best.seconds == min(t.seconds for t in ran) and result.speedup >= 1.0
    assert len({t.seconds for t in ran}) > 1                                 # the options change the kernel
    text = result.table()
    assert "simulated us" in text and "analytic" in text and "failed" in text and len(text.splitlines()) == 7
    png = result.plot(disk / "tuning.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    f = pyasc.jit(scaled_sigmoid)
    out = f(pyasc.tensor(x), pyasc.tensor(y))
    compiled = f.compile(pyasc.tensor(x), pyasc.tensor(y))
    for name, value in result.best.options.items():
        assert getattr(compiled.options, name) == value
    np.testing.assert_allclose(out.numpy(), reference(x, y), rtol=1e-5, atol=1e-5)
    explicit = pyasc.jit(scaled_sigmoid, options={"buffers": 1, "tile_size": 1024})   # explicit options win
    assert explicit.compile(pyasc.tensor(x), pyasc.tensor(y)).options.tile_size == 1024


def test_process_pool_gives_the_serial_times(disk):
    x, y = _examples()
    serial = pyasc.autotune(scaled_sigmoid, x, y, space={"tile_size": [2048, 4096]}, backend="serial")
    pooled = pyasc.autotune(scaled_sigmoid, x, y, space={"tile_size": [2048, 4096]}, backend="process", workers=2)
    assert [(t.options, t.seconds) for t in pooled.trials] == [(t.options, t.seconds) for t in serial.trials]


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="the ray extra is not installed")
def test_ray_backend_on_a_local_cluster_gives_the_serial_times(disk):
    import ray

    x, y = _examples()
    serial = pyasc.autotune(scaled_sigmoid, x, y, space={"tile_size": [2048, 4096]}, backend="serial")
    import sys

    # the workers cannot import this test module: its functions travel by value, like a script's
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = pyasc.autotune(scaled_sigmoid, x, y, space={"tile_size": [2048, 4096]}, backend="ray")
    finally:
        ray.shutdown()
    assert [(t.options, t.seconds) for t in remote.trials] == [(t.options, t.seconds) for t in serial.trials]


@pytest.mark.parametrize("space, message", [
    ({"tile": [1]}, "unknown or untunable option 'tile'"),
    ({"target": ["ascend910b2"]}, "untunable option 'target'"),
    ({"buffers": [9]}, "space['buffers']: option 'buffers' must be an integer in 1..4; got 9"),
    ({"cores": []}, "non-empty list"),
    ({}, "non-empty dict"),
])
def test_bad_spaces_are_clear_errors(space, message):
    x, y = _examples()
    with pytest.raises(pyasc.PyascError, match=message.replace("[", r"\[").replace("]", r"\]")):
        pyasc.autotune(scaled_sigmoid, x, y, space=space)


def test_max_trials_samples_the_space_reproducibly():
    space = {"tile_size": [1024, 2048, 4096, 8192], "buffers": [1, 2, 3]}
    a = configurations(space, 5, seed=1)
    assert len(a) == 5 and a == configurations(space, 5, seed=1)
    assert len(configurations(space, None, 0)) == 12
