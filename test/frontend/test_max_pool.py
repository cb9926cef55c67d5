"""``max_pool2d`` through its gathered windows (``pool_windows``: one im2col kernel whose padding reads -inf, then
the maxima in one elementwise kernel) against torch's, value for value."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

F, TF = pyasc.nn.functional, torch.nn.functional
CASES = [  # (input shape, args, kwargs)
    ((2, 3, 11, 12), (3, 2, 1), {}),
    ((2, 3, 11, 12), (2,), {}),
    ((1, 4, 9, 9), ((3, 2), (2, 1), (1, 0)), {}),
    ((2, 2, 10, 7), (5, 1, 2), {}),
    ((1, 3, 8, 8), (1,), {}),
    ((2, 3, 12, 11), (3, 1, 1), {"dilation": 2}),
    ((3, 9, 10), (3, 2, 1), {}),                           # CHW
    ((2, 3, 11, 12), (3, 2, 1), {"ceil_mode": True}),      # extra windows: the padded slices
]


def _data(shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::17] = np.nan
    flat[5::23] = -np.inf
    flat[9::29] = np.inf
    return x


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_max_pool2d_matches_torch(case, dtype):
    shape, args, kwargs = CASES[case]
    x = torch.from_numpy(_data(shape, case)).to(getattr(torch, dtype))
    ref = TF.max_pool2d(x, *args, **kwargs).float().numpy()
    t = pyasc.tensor(x)
    jit = pyasc.jit(lambda a: F.max_pool2d(a, *args, **kwargs))(t)
    eager = F.max_pool2d(t, *args, **kwargs)
    for got in (jit, eager):
        assert got.shape == ref.shape and got.dtype == t.dtype
        np.testing.assert_array_equal(torch.from_numpy(got.numpy()).float().numpy() if dtype != "bfloat16"
                                      else got.float().numpy(), ref)


def test_a_pool_is_a_gather_kernel_and_an_elementwise_one():
    x = pyasc.tensor(np.zeros((8, 64, 112, 112), np.float16))
    lowered = pyasc.jit(lambda a: F.max_pool2d(a, 3, 2, 1)).lower(x)
    kinds = [f.attributes["asctensor.kernel"].data for f in lowered.module("asctensor").ops
             if "asctensor.kernel" in f.attributes]
    assert kinds == ["im2col", "elementwise"]
    assert "pad_value 0xfc00 : f16" in lowered.as_text("asctensor")


@pytest.mark.parametrize("reduce", ["sum", "amax", "row"])
def test_a_reduction_of_a_pool_matches_torch(reduce):
    """A reduction of the maxima reads them once they are stored: a window of the gathered patches is not one
    run of a row of the whole tensor."""
    x = np.random.default_rng(1).standard_normal((2, 3, 9, 10)).astype(np.float32)

    def fn(m, a):
        p = (F if m is pyasc else TF).max_pool2d(a, 3, 2, 1)
        return p.sum() if reduce == "sum" else (p.amax() if reduce == "amax" else p.sum(-1))

    got = pyasc.jit(lambda a: fn(pyasc, a))(pyasc.tensor(x)).numpy()
    np.testing.assert_allclose(got, fn(torch, torch.from_numpy(x)).numpy(), rtol=1e-6, atol=1e-6)
