"""``dot``, ``vdot``, ``mv``, ``baddbmm``, ``cross``, ``dist``, ``kron``, ``nansum``, ``nanmean``, ``median``,
``cummax``, ``cummin``, ``logcumsumexp``, ``take``, ``xlogy``, ``t`` and ``numel`` against PyTorch CPU, eagerly and
inside ``pyasc.jit``, with gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

RNG = np.random.default_rng(29)
V = RNG.standard_normal(6).astype(np.float32)
M = RNG.standard_normal((4, 6)).astype(np.float32)
B = RNG.standard_normal((2, 3, 4)).astype(np.float32)
N = M.copy()
N[0, 1], N[2, :] = np.nan, np.nan

CASES = {
    "dot_mv": (lambda m, v, a, b: (m.dot(v, v), m.vdot(v, v * 2), m.mv(a, v))),
    "baddbmm": (lambda m, v, a, b: (m.baddbmm(m.ones(2, 3, 3), b, b.transpose(1, 2), beta=0.5, alpha=2),
                                    m.baddbmm(b[:, :, :3], b, b.transpose(1, 2), beta=0))),
    "cross": (lambda m, v, a, b: (m.cross(b[..., :3], b[..., 1:], dim=-1), m.cross(b[:, :, 0], b[:, :, 1]))),
    "dist_kron": (lambda m, v, a, b: (m.dist(a, a.flip(0)), m.dist(a, a * 0.5, p=1), m.kron(a[:2, :3], a[2:, :2]),
                                      m.kron(a[0], a[1, :3]))),
    "median": (lambda m, v, a, b: (m.median(a), *m.median(a, dim=1), *m.median(a, dim=0, keepdim=True))),
    "take_xlogy_t": (lambda m, v, a, b: (m.take(a, m.tensor(np.array([[0, 23], [-1, 5]]))),
                                         m.xlogy(a.abs() * (a > 0).float(), a.abs()), m.xlogy(2.0, a.abs()),
                                         m.t(a), a * m.numel(a))),
}


def _same(got, want, tol=2e-5):
    for g, w in zip(got, want, strict=True):
        w = w.detach().numpy()
        assert g.shape == w.shape and (g.numpy().dtype == w.dtype or w.dtype == np.int64)
        np.testing.assert_allclose(g.numpy(), w, rtol=tol, atol=tol)


@pytest.mark.parametrize("mode", ["eager", "jit"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_like_torch(name, mode):
    fn = CASES[name]
    args = [pyasc.tensor(a) for a in (V, M, B)]
    got = (pyasc.jit(lambda *a: fn(pyasc, *a)) if mode == "jit" else lambda *a: fn(pyasc, *a))(*args)
    _same(got, fn(torch, *[torch.tensor(a) for a in (V, M, B)]))


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_nan_reductions_like_torch(mode):
    def fn(m, a):
        return m.nansum(a), m.nansum(a, dim=1), m.nanmean(a, dim=0), m.nanmean(a[:2]), m.nanmean(a[2])

    got = (pyasc.jit(lambda a: fn(pyasc, a)) if mode == "jit" else lambda a: fn(pyasc, a))(pyasc.tensor(N))
    _same(got, fn(torch, torch.tensor(N)))


def test_gradients_and_errors_like_torch():
    def fn(m, a, b):
        return (m.cross(b[..., :3], b[..., 1:], dim=-1) ** 2).sum() + m.dist(a, a.flip(0)) + m.kron(a[:2], a[2:]).sum()

    ours = [pyasc.tensor(x, requires_grad=True) for x in (M, B)]
    theirs = [torch.tensor(x, requires_grad=True) for x in (M, B)]
    fn(pyasc, *ours).backward()
    fn(torch, *theirs).backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(pyasc.PyascError, match="dot.*1D tensors expected"):
        pyasc.dot(pyasc.tensor(M), pyasc.tensor(V))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        torch.dot(torch.tensor(M), torch.tensor(V))
    with pytest.raises(pyasc.PyascError, match="cross.*size 3"):
        pyasc.cross(pyasc.tensor(M), pyasc.tensor(M), dim=1)


@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_running_extremes_and_logcumsumexp_like_torch(mode):
    """Scans in log2(n) steps; the ties go to the later position and a NaN, once met, stays (at the last NaN). Inside
    jit each step's shifts are kernels of one shape that differ only in their slices' sizes: they stay apart."""
    x = RNG.integers(-3, 4, (3, 11)).astype(np.float32)
    x[1, 4] = x[1, 7] = np.nan
    x[2, 0] = -np.inf
    y = (RNG.standard_normal((3, 13)) * 30).astype(np.float32)

    def fn(m, a, b):
        return (*m.cummax(a, 1), *m.cummin(a, 0), m.logcumsumexp(b, 1))

    args = [pyasc.tensor(a) for a in (x, y)]
    got = pyasc.jit(lambda *a: fn(pyasc, *a))(*args) if mode == "jit" else fn(pyasc, *args)
    want = fn(torch, torch.tensor(x), torch.tensor(y))
    for g, w in zip(got[:4], want[:4], strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_allclose(got[4].numpy(), want[4].numpy(), rtol=1e-6, atol=1e-5)
    ints = RNG.integers(-3, 4, (3, 9)).astype(np.int32)
    for g, w in zip(pyasc.cummax(pyasc.tensor(ints), 1), torch.cummax(torch.tensor(ints), 1), strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
