"""A batch of A's times one B: the batch folds into M (``matmul_tiler.foldable_batch``), in the cube kernel and in a
MIX kernel whose epilogue inputs run on across the batch; an epilogue input with a row per batch keeps the batches
apart. Each program is compared with PyTorch in float64, and the kernels' core counts show which way it ran."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.dialects.target import DEFAULT_TARGET, get_target
from pyasc.lowering.analysis.matmul import plan_matmul

RNG = np.random.default_rng(11)
TOL = {np.float32: 2e-5, np.float16: 2e-2}


def _t(shape, dtype):
    return pyasc.tensor(RNG.standard_normal(shape).astype(np.float32).astype(dtype))


def _check(out, ref, dtype):
    got = np.asarray(out.numpy(), np.float64)
    want = ref.numpy()
    scale = max(1.0, float(np.abs(want).max()))
    assert got.shape == want.shape
    assert float(np.abs(got - want).max()) <= TOL[dtype] * scale


def _matmul_cores(fn, *args) -> int:
    """The core count of the program's one matmul (or MIX) kernel."""
    _, report = pyasc.jit(fn).compile(*args).simulate(*args)
    (cores,) = [launch.block_dim for launch in report.launches if "_mm" in launch.kernel]
    return cores


def _planned(batch, M, N, K, dtype) -> int:
    """The cores of the cube plan of ``batch`` products of ``M x K`` by ``K x N``."""
    in_type = "f32" if dtype == np.float32 else "f16"
    return plan_matmul("t", get_target(DEFAULT_TARGET), batch, M, N, K, in_type).block_dim


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("lead", [(2,), (3, 5), (4,)])
def test_batched_linear_with_bias_and_residual(dtype, lead):
    x, w, b = _t((*lead, 7, 48), dtype), _t((48, 40), dtype), _t((40,), dtype)
    r = _t((*lead, 7, 40), dtype)

    def fn(x, w, b, r):
        return pyasc.relu(x @ w + b) + r

    out = pyasc.jit(fn)(x, w, b, r)
    d = lambda t: torch.from_numpy(np.asarray(t.numpy(), np.float64))  # noqa: E731
    _check(out, torch.relu(d(x) @ d(w) + d(b)) + d(r), dtype)
    batch = int(np.prod(lead))
    assert _matmul_cores(fn, x, w, b, r) == _planned(1, batch * 7, 40, 48, dtype)  # one (batch * 7) x 48 product


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_plain_batched_product(dtype):
    x, w = _t((3, 7, 32), dtype), _t((32, 24), dtype)
    out = pyasc.jit(lambda x, w: x @ w)(x, w)
    d = lambda t: torch.from_numpy(np.asarray(t.numpy(), np.float64))  # noqa: E731
    _check(out, d(x) @ d(w), dtype)
    folded = _planned(1, 21, 24, 32, dtype)
    assert _matmul_cores(lambda x, w: x @ w, x, w) == folded < _planned(3, 7, 24, 32, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_row_per_batch_keeps_the_batches_apart(dtype):
    x, w, s = _t((2, 7, 32), dtype), _t((32, 24), dtype), _t((2, 1, 24), dtype)

    def fn(x, w, s):
        return x @ w + s

    out = pyasc.jit(fn)(x, w, s)
    d = lambda t: torch.from_numpy(np.asarray(t.numpy(), np.float64))  # noqa: E731
    _check(out, d(x) @ d(w) + d(s), dtype)
    assert _matmul_cores(fn, x, w, s) == _planned(2, 7, 24, 32, dtype) > _planned(1, 14, 24, 32, dtype)


def test_heads_moved_apart_then_back():
    """The attention heads' transposes (the movement tiles of two rows) against PyTorch."""
    x = _t((2, 7, 32), np.float32)

    def fn(x):
        h = x.reshape(2, 7, 4, 8).permute(0, 2, 1, 3)
        return (h * 2.0).permute(0, 2, 1, 3).reshape(2, 7, 32)

    out = pyasc.jit(fn)(x)
    np.testing.assert_array_equal(out.numpy(), x.numpy() * 2.0)
