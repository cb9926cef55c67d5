"""``atan``, ``atan2``, ``asin``, ``acos`` and ``erfc`` against PyTorch CPU, measured in float32 ulp, eagerly and
inside ``pyasc.jit``, with their special values, dtypes and gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

RNG = np.random.default_rng(17)
SPECIAL = [0, 1, -1, 1e-8, -1e-8, 1e8, -1e8, np.inf, -np.inf, np.nan, 0.4142135, 2.4142137, 0.5, 5, 9.5, -3]
X = np.concatenate([RNG.standard_normal(300) * 3, RNG.uniform(-1, 1, 300), SPECIAL]).astype(np.float32)
Y = RNG.standard_normal(X.shape).astype(np.float32)
ULPS = {"atan": 2, "asin": 2, "acos": 2, "atan2": 2, "erfc": 32}


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest distance in float32 ulp of ``want`` (NaN where PyTorch has NaN, infinities equal)."""
    assert np.array_equal(np.isnan(got), np.isnan(want))
    g, w = got.astype(np.float64), want.astype(np.float64)
    same = (g == w) | np.isnan(w)
    step = np.spacing(np.abs(want)).astype(np.float64)
    return float(np.max(np.where(same, 0.0, np.abs(g - w) / np.maximum(step, 1e-45))))


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", ["atan", "asin", "acos", "erfc", "atan2"])
def test_float32_within_a_few_ulp_of_torch(name, mode):
    args = (Y, X) if name == "atan2" else (X,)
    fn = getattr(pyasc, name)
    tensors = [pyasc.tensor(a) for a in args]
    got = (pyasc.jit(fn) if mode == "jit" else fn)(*tensors).numpy()
    want = getattr(torch, name)(*[torch.tensor(a) for a in args]).numpy()
    assert got.dtype == want.dtype
    assert _ulps(got, want) <= ULPS[name]


def test_atan_within_one_and_a_half_ulp_of_the_correctly_rounded_value():
    """Against NumPy's float64 ``arctan`` rounded to float32 (PyTorch's own float32 atan differs by CPU: its
    AVX-512 build is within half an ulp, so the comparison above allows the two errors together)."""
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.standard_normal(20_000) * 3, rng.uniform(-1, 1, 20_000),
                        np.exp(rng.uniform(-40, 40, 20_000)), [1, -1, 3e38, 1e-38]]).astype(np.float32)
    got = pyasc.atan(pyasc.tensor(x)).numpy().astype(np.float64)
    exact = np.arctan(x.astype(np.float64))
    step = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    assert np.max(np.abs(got - exact) / step) <= 1.5


def test_quadrants_axes_dtypes_and_aliases_like_torch():
    ys, xs = np.array([0, 1, 0, 0, -2, 0, -1, 3], np.float32), np.array([0, 0, -1, 1, 0, 2, -1, -4], np.float32)
    np.testing.assert_allclose(pyasc.atan2(pyasc.tensor(ys), pyasc.tensor(xs)).numpy(),
                               torch.atan2(torch.tensor(ys), torch.tensor(xs)).numpy(), rtol=3e-7)
    ints = pyasc.atan(pyasc.tensor(np.array([1, 2], np.int32)))
    assert ints.dtype is pyasc.float32 and str(torch.atan(torch.tensor([1, 2])).dtype) == "torch.float32"
    h = X[np.isfinite(X) & (np.abs(X) < 6e4)].astype(np.float16)
    for name in ("atan", "asin", "erfc"):
        got, want = getattr(pyasc, name)(pyasc.tensor(h)).numpy(), getattr(torch, name)(torch.tensor(h)).numpy()
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(pyasc.tensor(X).arctan().numpy(), pyasc.atan(pyasc.tensor(X)).numpy())


@pytest.mark.parametrize("name", ["atan", "asin", "acos", "erfc", "atan2"])
def test_gradients_like_torch(name):
    x = RNG.uniform(-0.9, 0.9, (5, 7)).astype(np.float32)
    y = RNG.standard_normal((5, 7)).astype(np.float32)
    args = (y, x) if name == "atan2" else (x,)
    ours = [pyasc.tensor(a, requires_grad=True) for a in args]
    theirs = [torch.tensor(a, requires_grad=True) for a in args]
    (getattr(pyasc, name)(*ours) ** 2).sum().backward()
    (getattr(torch, name)(*theirs) ** 2).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)
