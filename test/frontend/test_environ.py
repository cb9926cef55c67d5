"""The environment variables read on every call follow changes made while the process runs."""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import pyasc
from pyasc.device import as_device, default_target, get_device_count
from pyasc.environ import getenv


@pytest.mark.parametrize("value", ["", "x", "ascend910b3", "é ü"])
def test_getenv_matches_os_environ(monkeypatch, value):
    name = "PYASC_TEST_ENVIRON_VALUE"
    monkeypatch.delenv(name, raising=False)
    assert getenv(name) is None and getenv(name, "d") == "d" == os.environ.get(name, "d")
    monkeypatch.setenv(name, value)
    assert getenv(name) == os.environ.get(name) == value
    assert getenv(name, "d") == value
    monkeypatch.delenv(name)
    assert getenv(name, "gone") == "gone"


def test_target_and_device_count_follow_the_environment(monkeypatch):
    monkeypatch.setenv("PYASC_TARGET", "ascend910b3")
    assert default_target() == "ascend910b3"
    monkeypatch.setenv("PYASC_TARGET", "ascend910b1")
    assert default_target() == "ascend910b1"
    monkeypatch.setenv("PYASC_DEVICE_COUNT", "2")
    assert get_device_count() == 2
    with pytest.raises(pyasc.PyascError, match="out of range"):
        as_device(2)


def test_a_cached_call_follows_a_target_change(monkeypatch):
    """The jit fast path and the outputs' fit check are keyed by the target read on each call."""
    @pyasc.jit
    def add(x, y):
        return x + y

    a = pyasc.tensor(np.arange(4, dtype=np.float32))
    monkeypatch.setenv("PYASC_TARGET", "ascend910b2")
    add(a, a)
    monkeypatch.setenv("PYASC_TARGET", "ascend910b3")
    np.testing.assert_array_equal(add(a, a).numpy(), 2 * np.arange(4, dtype=np.float32))
    assert add.cache_size() == 2


def test_results_are_released_when_collected():
    pyasc.synchronize()
    gc.collect()
    before = pyasc.memory_allocated()
    a = pyasc.tensor(np.ones(1 << 16, np.float32))
    c = a + a
    assert pyasc.memory_allocated() >= before + 2 * a.nbytes
    del a, c
    gc.collect()
    assert pyasc.memory_allocated() == before
