"""Random programs of data movement along rows (shifts made of two slices and a concat, halves swapped, flips,
rolls, a shifted running maximum, masks by position) over float32 integers, inside ``pyasc.jit`` and eagerly,
against PyTorch CPU exactly. Their kernels often share one shape and differ only in their slices' sizes, which
``asctensor-merge-kernels`` must keep apart. The default run checks 6 programs; ``--random-long`` runs 300."""

from __future__ import annotations

import numpy as np
import torch

import pyasc

FAST, LONG = 6, 300
STEPS = ("shift", "flip", "running_max", "transpose_twice", "swap_halves", "add_shifted", "negate_first", "roll",
         "scale")


def _step(m, x, step: str, k: int):
    n = x.shape[1]
    s = k % n or 1

    def shifted(t):
        return m.cat([t[:, :s], t[:, :n - s]], 1)

    if step == "shift":
        return shifted(x)
    if step == "flip":
        return x.flip(k % 2)
    if step == "running_max":
        return m.maximum(x, shifted(x))
    if step == "transpose_twice":
        return x.t().contiguous().t() + 0
    if step == "swap_halves":
        return m.cat([x[:, n // 2:], x[:, :n // 2]], 1)
    if step == "add_shifted":
        return x + m.cat([x[:, s:], x[:, :s] * 2], 1)
    if step == "negate_first":
        return m.where(m.tensor(np.arange(n).reshape(1, n)) < k, x, x * -1)
    if step == "roll":
        return x.roll(k, 1)
    return x * float(k - 2)


def make_program(seed: int):
    """(the steps, the input): 2-6 steps, an input of 1-4 rows of 6-19 small integers."""
    rng = np.random.default_rng(seed)
    steps = [(STEPS[int(rng.integers(len(STEPS)))], int(rng.integers(1, 6))) for _ in range(int(rng.integers(2, 7)))]
    x = rng.integers(-5, 6, (int(rng.integers(1, 5)), int(rng.integers(6, 20)))).astype(np.float32)
    return steps, x


def pytest_generate_tests(metafunc):
    if "seed" in metafunc.fixturenames:
        n = LONG if metafunc.config.getoption("--random-long") else FAST
        metafunc.parametrize("seed", range(n))


def test_random_movement_program_matches_torch(seed):
    steps, x = make_program(seed)

    def program(m, t):
        for step, k in steps:
            t = _step(m, t, step, k)
        return t

    want = program(torch, torch.tensor(x)).numpy()
    np.testing.assert_array_equal(pyasc.jit(lambda t: program(pyasc, t))(pyasc.tensor(x)).numpy(), want,
                                  err_msg=f"seed {seed}: {steps} on {x.shape}, inside jit")
    np.testing.assert_array_equal(program(pyasc, pyasc.tensor(x)).numpy(), want,
                                  err_msg=f"seed {seed}: {steps} on {x.shape}, eagerly")
