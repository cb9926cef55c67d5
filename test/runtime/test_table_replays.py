"""Replays of a kernel whose gathers read an offset table copied from a GM argument (the stem's weights laid out by
``Gatherb`` in its MIX kernel): the table's bytes join the launch signature (``replay.trace_tables``), so calls
replay while the table stays the same, and a changed table is traced and checked again."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
from pyasc.runtime import Simulator
from pyasc.runtime.errors import SimulationError

RNG = np.random.default_rng(3)


def _stem():
    x = np.zeros((2, 3, 64, 64), np.float16)
    w = np.zeros((32, 3, 7, 7), np.float16)
    return pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3)).compile(pyasc.tensor(x), pyasc.tensor(w))


def _call(sim, compiled, table):
    x = RNG.standard_normal((2, 3, 64, 64)).astype(np.float16)
    w = RNG.standard_normal((32, 3, 7, 7)).astype(np.float16)
    out = np.full(compiled.outputs[0].shape, np.nan, np.float16)
    report = sim.run(compiled.name, [x, w, table, out])
    ref = F.conv2d(torch.from_numpy(x).float(), torch.from_numpy(w).float(), stride=2, padding=3).numpy()
    assert report.findings == []
    assert np.abs(out.astype(np.float32) - ref).max() <= 2e-3 * np.abs(ref).max()


def test_calls_with_the_same_table_replay_and_match_torch():
    compiled = _stem()
    (table,) = compiled.constants
    sim = Simulator(compiled.module)
    assert [sorted(t) for t in sim.trace_tables.values()] == [[2]]  # the MIX kernel's third argument
    for _ in range(6):
        _call(sim, compiled, table)
    assert sim.stats["replays"] >= 4


def test_a_changed_table_is_traced_and_checked_again():
    compiled = _stem()
    (table,) = compiled.constants
    sim = Simulator(compiled.module)
    for _ in range(6):
        _call(sim, compiled, table)
    bad = table.copy()
    bad[0, 0] = 1 << 20  # past the end of UB
    x = np.zeros((2, 3, 64, 64), np.float16)
    w = np.zeros((32, 3, 7, 7), np.float16)
    with pytest.raises(SimulationError, match="Gatherb: an offset is negative, not a multiple of 32 or past"):
        sim.run(compiled.name, [x, w, bad, np.zeros(compiled.outputs[0].shape, np.float16)])
    replays = sim.stats["replays"]
    _call(sim, compiled, table)  # the first table again: traced once more, then replayed
    _call(sim, compiled, table)
    assert sim.stats["replays"] > replays
