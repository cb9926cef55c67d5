"""``blas.matmul_into``: a batch of small products split over two threads gives NumPy's products bit for
bit (each still on one BLAS thread), including in a process forked after the helper thread started."""

from __future__ import annotations

import multiprocessing as mp
import sys

import numpy as np
import pytest

from pyasc.runtime import blas
from pyasc.runtime.blas import matmul_into, single_thread

RNG = np.random.default_rng(5)
A = RNG.standard_normal((6, 48, 1024)).astype(np.float32)
B = RNG.standard_normal((6, 32, 1024)).astype(np.float32).transpose(0, 2, 1)  # B^T read in place, as chains do


def _reference() -> np.ndarray:
    with single_thread():
        return np.stack([A[i] @ B[i] for i in range(A.shape[0])])


def test_split_batch_matches_numpy_bit_for_bit():
    assert A.shape[1] * A.shape[2] * B.shape[2] * A.shape[0] >= blas.SPLIT_MACS  # the split path
    out = np.empty((6, 48, 32), np.float32)
    matmul_into(A, B, out)
    assert np.array_equal(out, _reference())


def _child(_):
    out = np.empty((6, 48, 32), np.float32)
    matmul_into(A, B, out)
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_split_batch_in_a_forked_child():
    matmul_into(A, B, np.empty((6, 48, 32), np.float32))  # the parent's helper thread is running
    with mp.get_context("fork").Pool(1) as pool:
        outs = pool.map_async(_child, range(2)).get(timeout=120)  # a stale helper thread would hang
    ref = _reference()
    assert all(np.array_equal(o, ref) for o in outs)


def test_transpose_into_is_numpys_transposed_copy(monkeypatch):
    """``blas.transpose_into`` (OpenBLAS's somatcopy) against NumPy's copy of the transposed view: random stacks,
    row strides wider than the rows, a broadcast leading axis; layouts it does not take are left to the caller."""
    monkeypatch.setattr(blas, "CALLED_TRANSPOSE", 0)  # small stacks through OpenBLAS too
    rng = np.random.default_rng(4)
    for _ in range(30):
        lead, rows, cols, pad = int(rng.integers(1, 5)), int(rng.integers(1, 200)), int(rng.integers(1, 300)), \
            int(rng.integers(0, 9))
        base = rng.standard_normal((lead, rows, cols + pad)).astype(np.float32)
        src = base[:, :, :cols].transpose(0, 2, 1)
        dst = np.full((lead, cols, rows), np.nan, np.float32)
        assert blas.transpose_into(src, dst)
        assert np.array_equal(dst, src)
    one = rng.standard_normal((7, 5)).astype(np.float32)
    src = np.broadcast_to(one.T, (3, 5, 7))
    dst = np.empty((3, 5, 7), np.float32)
    assert blas.transpose_into(src, dst) and np.array_equal(dst, src)
    assert not blas.transpose_into(one, np.empty((7, 5), np.float32))  # not a transposed view
    assert not blas.transpose_into(one.T.astype(np.float64), np.empty((5, 7)))


def test_transpose_into_takes_one_matrix_in_one_call(monkeypatch):
    """Transposes of one matrix's consecutive blocks of rows, into its transpose's consecutive blocks of columns
    (the cores' B's side by side), are one somatcopy, and equal NumPy's transposed copy; a small stack is left to
    NumPy's copy (False, nothing written)."""
    f, int_t = blas._omatcopy()
    calls = []
    monkeypatch.setattr(blas, "_omat", (lambda *args: calls.append(1) or f(*args), int_t))
    rng = np.random.default_rng(5)
    for _ in range(10):
        g1, g2 = (int(x) for x in rng.integers(1, 4, 2))
        rows, cols, pad = int(rng.integers(16, 80)), int(rng.integers(64, 200)), 3
        whole = rng.standard_normal((g1 * g2 * rows, cols + pad)).astype(np.float32)
        src = whole.reshape(g1, g2, rows, cols + pad)[..., :cols].swapaxes(2, 3)
        buf = np.full((cols, g1 * g2 * rows), np.nan, np.float32)
        dst = buf.reshape(cols, g1, g2, rows).transpose(1, 2, 0, 3)
        calls.clear()
        monkeypatch.setattr(blas, "CALLED_TRANSPOSE", 0)
        assert blas.transpose_into(src, dst)
        assert calls == [1] and np.array_equal(dst, src) and np.array_equal(buf, whole[:, :cols].T)
        apart = np.full((cols, g1 * g2 * 2 * rows), np.nan, np.float32)  # wide rows, the blocks a block apart
        dst = apart.reshape(cols, g1, g2, 2 * rows)[..., :rows].transpose(1, 2, 0, 3)
        calls.clear()
        assert blas.transpose_into(src, dst)
        assert len(calls) == g1 * g2 and np.array_equal(dst, src)
        monkeypatch.setattr(blas, "CALLED_TRANSPOSE", src.size + 1)
        buf[...] = np.nan
        assert not blas.transpose_into(src, dst) and np.isnan(buf).all()
