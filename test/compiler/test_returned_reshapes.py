"""A program that returns a reshape of a kernel's result: the kernel writes the output, viewed with its own shape
(``host-to-gm``), instead of a copy kernel writing it; a convolution's epilogue whose last value the program
returns stays in the convolution's MIX kernel. Results against PyTorch in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

F = torch.nn.functional
RNG = np.random.default_rng(23)


def _run(fn, *arrays):
    args = [pyasc.tensor(a) for a in arrays]
    out, report = pyasc.jit(fn).lower(*args).compile().simulate(*args)
    assert not report.findings
    return out, report


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("xs,ws,stride,padding", [((2, 16, 12, 10), (8, 16, 3, 3), 1, 1),
                                                  ((2, 3, 32, 64), (16, 3, 7, 7), 2, 3)])
def test_convolution_bias_relu_returned_is_one_mix_kernel(xs, ws, stride, padding, dtype):
    """conv2d + bias + ReLU as a program's result: the ReLU runs in the MIX kernel's epilogue (two launches: the
    weights' layout and the convolution), not in an elementwise kernel of its own after it."""
    x = RNG.standard_normal(xs).astype(dtype)
    w = (RNG.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    b = RNG.standard_normal(ws[0]).astype(dtype)
    out, report = _run(lambda x, w, b: pyasc.relu(pyasc.conv2d(x, w, b, stride=stride, padding=padding)), x, w, b)
    assert len(report.launches) == 2
    ref = F.relu(F.conv2d(*(torch.from_numpy(a.astype(np.float64)) for a in (x, w, b)), stride=stride,
                          padding=padding)).numpy()
    eps = 2 ** -10 if dtype == np.float16 else 2 ** -22
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=(eps + int(np.prod(ws[1:])) * 2 ** -24) * np.abs(ref).max())


def test_reshapes_of_results_returned():
    """A reshape of a matmul's, a reduction's or an elementwise kernel's result; one value returned in two shapes
    (one of them a copy, as each output is a buffer of its own)."""
    a = RNG.standard_normal((6, 8)).astype(np.float32)
    t = torch.from_numpy(a.astype(np.float64))
    out, report = _run(lambda a: ((a @ a.T).reshape(36), a.sum(1).reshape(2, 3), (a * 2 + 1).reshape(4, 12),
                                  (a - 1).reshape(48), (a - 1).reshape(2, 24)), a)
    refs = [(t @ t.T).reshape(36), t.sum(1).reshape(2, 3), (t * 2 + 1).reshape(4, 12), (t - 1).reshape(48),
            (t - 1).reshape(2, 24)]
    for o, r in zip(out, refs):
        assert o.shape == tuple(r.shape)
        np.testing.assert_allclose(np.asarray(o, np.float64), r.numpy(), rtol=1e-5, atol=1e-5)
