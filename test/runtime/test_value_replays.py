"""Replays of kernels whose scalar reads (``GetValue``) only write values back (``SetValue``): argmax's and topk's
indices. Their traces do not depend on the values, so calls on new data replay; every call against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.runtime import Simulator

RNG = np.random.default_rng(9)

PROGRAMS = {
    "argmax": (lambda x: pyasc.argmax(x, -1), lambda x: torch.argmax(x, -1)),
    "topk_values": (lambda x: pyasc.topk(x, 4)[0], lambda x: torch.topk(x, 4)[0]),
    "topk_indices": (lambda x: pyasc.topk(x, 4)[1], lambda x: torch.topk(x, 4)[1]),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_calls_on_new_data_replay_and_match_torch(name):
    fn, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(pyasc.tensor(np.zeros((8, 64), np.float32)))
    sim = Simulator(compiled.module)
    assert sim.replayable == set(sim.kernels)
    for _ in range(5):
        x = RNG.permutation(8 * 64).reshape(8, 64).astype(np.float32)  # distinct values: one right index
        out = np.zeros(compiled.outputs[0].shape, compiled.outputs[0].dtype.np_dtype)
        sim.run(compiled.name, [x, *compiled.constants, out])
        np.testing.assert_array_equal(out, ref(torch.from_numpy(x)).numpy())
    assert sim.stats["replays"] >= 3

