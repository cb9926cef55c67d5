"""Random depthwise convolutions (groups = channels) against PyTorch: every form ``asctensor-decompose`` picks
(shifted slices of the padded input at stride 1, slices of its four phases at stride 2, the gathered windows with
the weights written out per position on small images, or per row on larger ones), with bias and ReLU, in
float16 and float32. ``--random-long`` runs 200 cases instead of 16."""

from __future__ import annotations

import numpy as np
import pytest

import pyasc
from pyasc.lowering.depthwise_decompose import PHASED_MIN_COLS, SHIFTED_MIN_COLS


def _random_depthwise(count: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        c = int(rng.integers(2, 40))
        kh, kw = (int(k) for k in rng.choice([1, 3, 3, 5], 2))
        stride = (1, 1) if rng.random() < 0.4 else (2, 2) if rng.random() < 0.6 else tuple(
            int(s) for s in rng.integers(1, 4, 2))
        dilation = (1, 1) if rng.random() < 0.7 else tuple(int(d) for d in rng.integers(1, 3, 2))
        padding = tuple(int(p) for p in rng.integers(0, 3, 2))
        wide = rng.random() < 0.5  # rows long enough for the slice forms
        h = int(rng.integers(3, 30))
        w = int(rng.integers(SHIFTED_MIN_COLS * stride[1], 70)) if wide else int(rng.integers(3, 30))
        if h + 2 * padding[0] < dilation[0] * (kh - 1) + 1 or w + 2 * padding[1] < dilation[1] * (kw - 1) + 1:
            continue
        dtype = np.float16 if rng.random() < 0.5 else np.float32
        out.append(((int(rng.integers(1, 3)), c, h, w), (kh, kw), stride, padding, dilation, dtype,
                    bool(rng.random() < 0.7)))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_random_depthwise_conv2d_like_torch":
        count = 200 if metafunc.config.getoption("--random-long") else 16
        metafunc.parametrize("xs,k,stride,padding,dilation,dtype,bias", _random_depthwise(count, 46))


def test_random_depthwise_conv2d_like_torch(xs, k, stride, padding, dilation, dtype, bias):
    torch = pytest.importorskip("torch")
    c = xs[1]
    rng = np.random.default_rng(sum(xs))
    arrays = [rng.standard_normal(s).astype(dtype) for s in (xs, (c, 1, *k), (c,))]

    def f(x, w, b):
        return pyasc.relu(pyasc.conv2d(x, w, b if bias else None, stride, padding, dilation, c))

    out = pyasc.jit(f)(*(pyasc.tensor(a) for a in arrays)).numpy().astype(np.float64)
    x, w, b = (torch.from_numpy(a.astype(np.float64)) for a in arrays)
    ref = torch.relu(torch.nn.functional.conv2d(x, w, b if bias else None, stride, padding, dilation, c)).numpy()
    assert out.shape == ref.shape
    eps = 2 ** -11 if dtype == np.float16 else 2 ** -24
    # the sum is float32 and rounds once to the output type
    np.testing.assert_allclose(out, ref, rtol=2 * eps, atol=2 * eps + k[0] * k[1] * 2 ** -22 * np.abs(ref).max())


def test_the_random_cases_reach_every_form():
    cases = _random_depthwise(200, 46)
    ow = [(xs[3] + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1 for xs, k, s, p, d, *_ in cases]
    assert any(s == (1, 1) and o >= SHIFTED_MIN_COLS for (_, _, s, *_), o in zip(cases, ow))
    assert any(s == (2, 2) and d == (1, 1) and o >= PHASED_MIN_COLS for (_, _, s, _, d, *_), o in zip(cases, ow))
    assert any(o < SHIFTED_MIN_COLS for o in ow)
