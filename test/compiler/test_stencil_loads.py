"""Loads of a fused elementwise kernel: windows of one input that lie whole rows apart share one load
(``asctile.row_window`` of it), and one value per tile that every use takes as a scalar (a depthwise weight) is
read by the scalar unit. The programs' values are checked against NumPy and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc
import pyasc.nn.functional as F


def _stencil(x, taps):
    out = None
    for i, j, wt in taps:
        term = x[:, i:i + x.shape[1] - 2, j:j + x.shape[2] - 2] * wt
        out = term if out is None else out + term
    return out


@pytest.mark.parametrize("shape,dtype,shared", [
    ((3, 19, 70), np.float32, True), ((2, 34, 66), np.float16, True), ((1, 130, 40), np.float32, True),
    ((5, 7, 9), np.float16, False),  # tiles of one row (spread over the cores): each window is loaded alone
])
def test_row_shifted_windows_share_a_load_and_compute_like_numpy(shape, dtype, shared):
    rng = np.random.default_rng(sum(shape))
    taps = [(i, j, float(rng.uniform(-1, 1))) for i in range(3) for j in range(3) if (i + j) % 2 == 0]
    x = rng.standard_normal(shape).astype(dtype)
    fn = pyasc.jit(lambda t: _stencil(t, taps))
    tensors = [pyasc.tensor(x)]
    text = fn.lower(*tensors).as_text("asctile")
    assert ("asctile.row_window" in text) == shared
    out = fn(*tensors).numpy().astype(np.float64)
    ref = _stencil(x.astype(np.float64), taps)
    eps = 2 ** -11 if dtype == np.float16 else 2 ** -23
    # each product and sum rounds in the input's type
    np.testing.assert_allclose(out, ref, rtol=8 * eps, atol=8 * eps * np.abs(ref).max())


def test_depthwise_weights_are_scalars_of_each_tile():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 16, 30, 60)).astype(np.float16)
    w = rng.standard_normal((16, 1, 3, 3)).astype(np.float16)
    b = rng.standard_normal(16).astype(np.float16)
    tensors = [pyasc.tensor(a) for a in (x, w, b)]

    def f(x, w, b):
        return pyasc.clamp(F.conv2d(x, w, b, padding=1, groups=16), 0.0, 6.0)

    text = pyasc.jit(f).lower(*tensors).as_text("ascbuf")
    loop = text[text.index("scf.for"):]
    assert "ascbuf.load_scalar" in loop  # the weights and bias of the tile's channel
    assert "strides(0, 0)" not in loop  # no tile is filled with one value
    out = pyasc.jit(f)(*tensors).to(pyasc.float32).numpy().astype(np.float64)
    ref = torch.clamp(torch.nn.functional.conv2d(*(torch.from_numpy(a).double() for a in (x, w, b)), padding=1,
                                                 groups=16), 0, 6).numpy()
    np.testing.assert_allclose(out, ref, rtol=2 ** -10, atol=2 ** -10 * np.abs(ref).max())


@pytest.mark.parametrize("shape", [(3, 4), (9, 9), (17, 70)])
def test_a_compare_of_row_shifted_windows_reads_inside_its_load(shape):
    """Compare reads whole 256 B repeats from a window's first row: the shared load holds the rows they reach
    (a contract finding otherwise), and the values are NumPy's."""
    def f(m, t):
        x = t.reshape(1, 1, *shape)
        a, b, c, d = x[..., :-1, :-1], x[..., :-1, 1:], x[..., 1:, :-1], x[..., 1:, 1:]
        mx = m.maximum(m.maximum(a, b), c)
        return m.where(mx > d, mx, 0.0) + m.where(mx == d, 1.0, 0.0)

    x = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)
    x[0, 0] = x[1, 1]  # one tie
    fn = pyasc.jit(lambda t: f(pyasc, t))
    assert "asctile.row_window" in fn.lower(pyasc.tensor(x)).as_text("asctile")
    np.testing.assert_array_equal(fn(pyasc.tensor(x)).numpy(), f(np, x))
