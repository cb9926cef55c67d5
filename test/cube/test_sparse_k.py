"""Mmad chains whose A is zero in most K columns (a channel-padded feature map) multiply without those
columns: the products against NumPy and PyTorch, the infinities and NaNs of B that keep every column, and
which cores the shortcut groups together."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
import torch

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402
from pyasc.runtime import cube_mmad  # noqa: E402
from pyasc.runtime.cube_mmad import FP16, FP32, sparse_parts  # noqa: E402

RNG = np.random.default_rng(11)


def _sparse_a(m: int, k: int, used: int) -> np.ndarray:
    a = np.zeros((m, k), np.float32)
    cols = np.sort(RNG.choice(k, used, replace=False))
    a[:, cols] = RNG.standard_normal((m, used))
    return a


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_matmul_with_mostly_zero_k_columns_matches_numpy(dtype, monkeypatch):
    a = _sparse_a(96, 512, 40)
    b = RNG.standard_normal((512, 80)).astype(np.float32)
    ta, tb = pyasc.tensor(a).to(getattr(pyasc, dtype)), pyasc.tensor(b).to(getattr(pyasc, dtype))
    taken = []
    real = cube_mmad.Chain._multiply_parts
    monkeypatch.setattr(cube_mmad.Chain, "_multiply_parts", lambda self, parts: (taken.append(parts), real(self, parts)))
    out = pyasc.jit(lambda x, y: x @ y)(ta, tb).numpy().astype(np.float64)
    assert taken  # the products ran without the zero columns
    ref = ta.numpy().astype(np.float64) @ tb.numpy().astype(np.float64)
    tol = 2 ** -10 if dtype == "float16" else 2 ** -20
    assert np.abs(out - ref).max() <= tol * np.abs(ref).max() * 4


def test_infinity_of_b_in_a_zero_column_gives_nan_as_numpy():
    a = _sparse_a(32, 256, 16)
    zero_col = int(np.flatnonzero(~a.any(axis=0))[0])
    b = RNG.standard_normal((256, 32)).astype(np.float32)
    b[zero_col, 5] = np.inf
    ta, tb = pyasc.tensor(a).to(pyasc.float16), pyasc.tensor(b).to(pyasc.float16)
    out = pyasc.jit(lambda x, y: x @ y)(ta, tb).numpy()
    with np.errstate(invalid="ignore"):
        ref = ta.numpy().astype(np.float32) @ tb.numpy().astype(np.float32)
    assert np.isnan(ref[:, 5]).all()
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))


def test_three_channel_convolution_matches_torch():
    x = torch.randn(2, 3, 40, 40)
    w = torch.randn(16, 3, 7, 7)
    ref = torch.nn.functional.conv2d(x.half().float(), w.half().float(), stride=2, padding=3)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3))
    out = torch.from_numpy(fn(pyasc.tensor(x).to(pyasc.float16), pyasc.tensor(w).to(pyasc.float16)).numpy())
    torch.testing.assert_close(out.float(), ref, atol=2e-2 * ref.abs().max().item(), rtol=1e-2)


def _rows(a_cores: list[np.ndarray], b: np.ndarray) -> np.ndarray:
    """A chain's operand rows per core: A's rows, then B^T's (float32 values)."""
    return np.stack([np.concatenate([a, b.T]) for a in a_cores])


def test_sparse_parts_groups_cores_by_their_own_columns():
    b = RNG.standard_normal((128, 16)).astype(np.float32)
    one, other, dense = _sparse_a(16, 128, 20), _sparse_a(16, 128, 30), RNG.standard_normal((16, 128))
    parts = sparse_parts(FP32, _rows([one, other, one.copy(), dense.astype(np.float32)], b), 16)
    by_cores = {tuple(np.atleast_1d(np.arange(4)[c])): u for c, u in parts}
    assert set(by_cores) == {(0, 2), (1,), (3,)}
    np.testing.assert_array_equal(by_cores[(0, 2)], np.flatnonzero(one.any(axis=0)))
    np.testing.assert_array_equal(by_cores[(1,)], np.flatnonzero(other.any(axis=0)))
    assert by_cores[(3,)] == slice(None)


def test_sparse_parts_keeps_every_column_for_few_zeros_short_k_or_special_b():
    b = RNG.standard_normal((128, 16)).astype(np.float32)
    assert sparse_parts(FP32, _rows([RNG.standard_normal((16, 128)).astype(np.float32)], b), 16) is None
    assert sparse_parts(FP32, _rows([_sparse_a(16, 32, 4)], b[:32]), 16) is None  # K below SPARSE_MIN_K
    a = _sparse_a(16, 128, 8)
    b[int(np.flatnonzero(~a.any(axis=0))[0]), 3] = np.nan
    assert sparse_parts(FP32, _rows([a], b), 16) is None
    bits = _rows([_sparse_a(16, 128, 8)], RNG.standard_normal((128, 16)).astype(np.float32)).astype(np.float16)
    assert sparse_parts(FP16, bits.view(np.int16), 16) is not None
