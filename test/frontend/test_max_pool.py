"""``max_pool2d`` against torch's, value for value: float16/float32 pools in one ``pool`` kernel (``tile-pool``:
clamped row loads, their maximum, one gather per kernel column), the others through their gathered windows
(``pool_windows``: one im2col kernel whose padding reads -inf, then the maxima in one elementwise kernel)."""

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
    ((1, 3, 4, 5), (2, 2, 1), {}),                          # a gather would repeat a column outside its window
    ((2, 3, 13, 14), (3, 3, 1), {}),
    ((1, 2, 9, 17), ((5, 3), (1, 2), (2, 1)), {}),
    ((1, 3, 1, 9), ((1, 3), (1, 1), (0, 1)), {}),
    ((2, 3, 7, 1), ((3, 1), (2, 1), (1, 0)), {}),
    ((1, 2, 5, 40), (4, 4, 2), {}),
    ((1, 700, 4, 130), (3, 2, 1), {}),                     # more channels than one tile holds
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


def _kinds(dtype, *args):
    x = pyasc.tensor(np.zeros((8, 64, 112, 112), np.float32)).to(dtype)
    lowered = pyasc.jit(lambda a: F.max_pool2d(a, *args)).lower(x)
    return [f.attributes["asctensor.kernel"].data for f in lowered.module("asctensor").ops
            if "asctensor.kernel" in f.attributes], lowered


def test_a_float16_pool_is_one_pool_kernel():
    kinds, lowered = _kinds(pyasc.float16, 3, 2, 1)
    assert kinds == ["pool"]
    assert "asctensor.max_pool2d" in lowered.as_text("asctensor")
    text = lowered.as_text("asctile")
    # kernel column 0 reads left of the input for output column 0: a Gather whose table repeats column 0 there;
    # columns 1 and 2 read inside it everywhere: GatherMask picks of the even and the odd columns
    assert text.count("asctile.gather ") == 1 and "first -1" in text
    assert text.count("asctile.pick_columns") == 2 and "start 0 stride 2" in text and "start 1 stride 2" in text


@pytest.mark.parametrize("dtype, args", [("bfloat16", (3, 2, 1)), ("float16", (2, 2, 1))])
def test_other_pools_are_a_gather_kernel_and_an_elementwise_one(dtype, args):
    kinds, lowered = _kinds(getattr(pyasc, dtype), *args)
    assert kinds == ["im2col", "elementwise"]
    assert "pad_value" in lowered.as_text("asctensor")


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


def test_the_gather_form_of_columns_matches_torch_wherever_it_is_taken():
    """``analysis.pool.pool_columns`` over every small geometry: where it gives tables, gathering with them (the
    semantics of ``gather_offsets`` with ``first``) and taking the maximum over the kernel columns is torch's
    1-D max pool; it refuses only where some repeated column would leave its window."""
    from pyasc.lowering.analysis.pool import pool_columns

    rng = np.random.default_rng(3)
    taken = refused = 0
    for w in range(1, 13):
        for k in range(1, 6):
            for s in range(1, 4):
                for p in range(k // 2 + 1):
                    ow = (w + 2 * p - k) // s + 1
                    if ow < 1:
                        continue
                    taps = pool_columns(w, ow, k, s, p)
                    if taps is None:
                        refused += 1
                        continue
                    taken += 1
                    x = rng.standard_normal((3, w)).astype(np.float32)
                    got = np.full((3, ow), -np.inf, np.float32)
                    for first, cols, start in taps:  # table column c reads min(max(c + first, 0), cols - 1) steps
                        c = np.minimum(np.maximum(np.arange(ow) + first, 0), cols - 1)
                        got = np.maximum(got, x[:, start + c * s])
                    ref = TF.max_pool1d(torch.from_numpy(x)[None], k, s, p)[0].numpy()
                    np.testing.assert_array_equal(got, ref, err_msg=f"w={w} k={k} s={s} p={p}")
    assert taken > 200 and refused > 0
