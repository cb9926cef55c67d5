"""Random programs against PyTorch CPU, inside ``pyasc.jit`` and eagerly:

* data movement along rows (shifts made of two slices and a concat, halves swapped, flips, rolls, a shifted
  running maximum, masks by position) over float32 integers, compared exactly: their kernels often share one
  shape and differ only in their slices' sizes, which ``asctensor-merge-kernels`` must keep apart;
* mixed steps over 1-3 dims (reductions kept and broadcast back, slices of one operand against the whole,
  transposes, reshapes, casts through float16 and bfloat16, softmax, cumulative sums), at float32's tolerance or
  the narrow type's: eagerly both operands of a step may view one array.

The default run checks 6 programs of each; ``--random-long`` runs 300.
"""

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


def _check(seed: int, apply, steps, x: np.ndarray, tol: float) -> None:
    """The steps applied by ``apply(m, t, step, k)`` to ``x`` inside jit and eagerly, against PyTorch (exactly when
    ``tol`` is 0)."""
    def program(m, t):
        for step, k in steps:
            t = apply(m, t, step, k)
        return t

    want = program(torch, torch.tensor(x)).numpy()
    for mode, got in (("inside jit", pyasc.jit(lambda t: program(pyasc, t))(pyasc.tensor(x))),
                      ("eagerly", program(pyasc, pyasc.tensor(x)))):
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol, err_msg=f"seed {seed}: {steps} {mode}")


def test_random_movement_program_matches_torch(seed):
    steps, x = make_program(seed)
    _check(seed, _step, steps, x, 0.0)


MIXED = ("sum_kept", "max_kept", "mean_kept", "minus_first", "transpose", "reshape", "where", "through_float16",
         "through_bfloat16", "softmax", "exp", "cat_cut", "drop_first", "flip", "scale_columns", "cumsum", "sqrt",
         "max_flipped")


def _mixed(m, x, step: str, k: int):
    d = k % x.ndim
    lead = tuple(slice(None) for _ in range(d))
    if step == "sum_kept":
        return x.sum(d, keepdim=True) * 0.1 + x
    if step == "max_kept":
        return x - x.amax(d, keepdim=True)
    if step == "mean_kept":
        return x - x.mean(d, keepdim=True)
    if step == "minus_first":
        return x - x[lead + (slice(0, 1),)]
    if step == "transpose":
        return x.transpose(0, x.ndim - 1)
    if step == "reshape":
        return x.reshape(*reversed(x.shape))
    if step == "where":
        return m.where(x > 0, x, x * 0.5)
    if step in ("through_float16", "through_bfloat16"):
        return x.to(m.float16 if step == "through_float16" else m.bfloat16).to(m.float32)
    if step == "softmax":
        return m.softmax(x, d)
    if step == "exp":
        return (x * 0.1).exp()
    if step == "cat_cut":
        return m.cat([x, x * 2], d)[lead + (slice(0, x.shape[d]),)]
    if step == "drop_first":
        return x[lead + (slice(1, None),)] if x.shape[d] > 2 else x
    if step == "flip":
        return x.flip(d)
    if step == "scale_columns":
        return x * m.arange(x.shape[-1]).float()
    if step == "cumsum":
        return x.cumsum(d) * 0.1
    if step == "sqrt":
        return (x.abs() + 1).sqrt()
    return m.maximum(x, x.flip(d))


def make_mixed_program(seed: int):
    """(the steps, the input): 2-6 steps over a float32 input of 1-3 dims of 1-8 elements."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(v) for v in rng.integers(1, 9, int(rng.integers(1, 4))))
    steps = [(MIXED[int(rng.integers(len(MIXED)))], int(rng.integers(0, 5))) for _ in range(int(rng.integers(2, 7)))]
    return steps, rng.standard_normal(shape).astype(np.float32)


def test_random_mixed_program_matches_torch(seed):
    steps, x = make_mixed_program(seed)
    _check(seed, _mixed, steps, x, 2e-2 if any(step.startswith("through") for step, _ in steps) else 2e-4)
