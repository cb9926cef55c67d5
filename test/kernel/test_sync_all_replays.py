"""Replays of launches whose cores meet at SyncAll (``runtime.sync_all``): groups of cores with one data path,
tapes that end a round at each SyncAll, and a core's UB kept across a SyncAll exactly when another unit of the
launch runs on the same memory and the kernel may still read it. Every call runs on new data and is compared
with PyTorch or NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
import pyasc.kernel.lib.runtime as rt
from pyasc.runtime import Simulator, replay, sync_all, tape
from sync_all_kernels import uneven_halves

RNG = np.random.default_rng(19)

# programs that compile to one launch of a MIX_AIV_1_0 kernel (``ascendc-merge-launches``): its parts run on
# 48, 26 and 48, or on all and on fewer blocks, and each ends with TPipe Reset and SyncAll
PROGRAMS = {
    "softmax_long_row": (lambda x: pyasc.softmax(x, -1), (1, 1 << 17),
                         lambda x: torch.softmax(x, -1)),
    "log_softmax_two_rows": (lambda x: pyasc.log_softmax(x, -1), (2, 40001),
                             lambda x: torch.log_softmax(x, -1)),
    "layer_norm_long_rows": (lambda x: pyasc.layer_norm(x, (30000,)), (2, 30000),
                             lambda x: torch.nn.functional.layer_norm(x, (30000,))),
}


def _run(name: str, calls: int, rng=RNG):
    fn, shape, ref = PROGRAMS[name]
    compiled = pyasc.jit(fn).compile(pyasc.tensor(np.zeros(shape, np.float32)))
    sim = Simulator(compiled.module)
    outs = []
    for _ in range(calls):
        x = rng.standard_normal(shape).astype(np.float32) * 3
        out = np.full(shape, np.nan, np.float32)
        sim.run(compiled.name, [x, *compiled.constants, out])
        want = ref(torch.from_numpy(x).double()).numpy()
        np.testing.assert_allclose(out, want, rtol=2e-5, atol=2e-5 * np.abs(want).max())
        outs.append(out)
    return sim, outs


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_joined_replays_run_tapes_then_straight_code_and_match_torch(name, monkeypatch):
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    sim, _ = _run(name, 9)
    assert sim.joined, "the program is not one launch of cores meeting at SyncAll"
    assert set(sim.joined) <= sim.joined_fresh  # each SyncAll follows a TPipe Reset: no UB kept across it
    units = [u for traced in sim._traced.values() for u in traced.tapes.values()]
    assert units and all(type(u.tape) is tape.Tape for u in units)
    assert all(any(k < 0 for k, _ in u.tape.entries) for u in units)  # each tape ends rounds at SyncAll
    assert any(u.straight is not None and u.runs >= 2 for u in units), "no straight-line function ran"


def test_joined_tapes_off_and_on_give_the_same_bits(monkeypatch):
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    runs = {}
    for mode in ("off", "on"):
        monkeypatch.setattr(tape, "TAPE_MODE", mode)
        runs[mode] = _run("log_softmax_two_rows", 5, np.random.default_rng(5))[1]
    for off, on in zip(runs["off"], runs["on"]):
        np.testing.assert_array_equal(off, on)


def test_joined_tapes_pass_the_replay_check_against_traces(monkeypatch):
    """``PYASC_SIM_REPLAY=verify``: every replay, tapes and straight code included, is checked against a trace."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 1)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 1)
    monkeypatch.setattr(replay, "REPLAY_MODE", "verify")
    sim, _ = _run("softmax_long_row", 5)
    assert sim.stats["replays"] >= 4


def test_ub_held_across_sync_all_is_kept_for_cores_sharing_memory(monkeypatch):
    """``uneven_halves`` keeps its data in UB across the SyncAll. Cores 0 and 1 have their own data paths and run
    on the one UB of the machine, the other six as a group: each must find its own UB after the SyncAll."""
    monkeypatch.setattr(tape, "RECORD_AFTER", 2)
    monkeypatch.setattr(tape, "STRAIGHT_AFTER", 2)
    blocks, n, rounds = 8, 512, 2
    for _ in range(7):
        x = RNG.uniform(0.5, 1.5, blocks * n).astype(np.float32)
        z = np.full_like(x, np.nan)
        uneven_halves[blocks, rt.current_stream()](x, z, n, rounds, True)
        want = x.astype(np.float64)
        for _ in range(rounds):
            want = np.log(np.exp(want))
        np.testing.assert_allclose(z, want, rtol=1e-5)
    sim = uneven_halves.last_compiled.simulator
    (name,) = sim.joined
    assert name not in sim.joined_fresh
    (traced,) = sim._traced.values()
    assert traced.plan is not None and sorted(len(b) for _, b in traced.plan) == [1, 1, 6]


def test_forgets_ub_needs_a_reset_right_before_each_sync_all():
    fn, shape, _ = PROGRAMS["softmax_long_row"]
    compiled = pyasc.jit(fn).compile(pyasc.tensor(np.zeros(shape, np.float32)))
    sim = Simulator(compiled.module)
    (name,) = sim.joined
    assert sync_all.forgets_ub(sim.funcs[name])
    uneven_halves[8, rt.current_stream()](np.ones(8 * 64, np.float32), np.zeros(8 * 64, np.float32), 64, 1, True)
    dsl = uneven_halves.last_compiled.simulator
    assert not any(sync_all.forgets_ub(dsl.funcs[k]) for k in dsl.joined)
