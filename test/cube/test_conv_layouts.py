"""The layout of a ResNet bottleneck's entrance: two 1x1 convolutions reading a max pool's NCHW output, whose
products reach a 3x3 implicit GEMM and a residual sum. One transpose of the pool's 64 channels to NHWC feeds both
(``conv_gemm._cheaper_input_transposes``) where each product used to be transposed after its kernel. Values
against PyTorch."""

from __future__ import annotations

import os
import re
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc
import pyasc.nn.functional as PF

from .gxx import assert_compiles


def _bottleneck(lib, x, w1, w2, w3, w5, w6):
    p = lib.max_pool2d(x, 3, 2, 1)
    a = lib.relu(lib.conv2d(p, w1))
    a = lib.relu(lib.conv2d(a, w3, padding=1))
    s = lib.relu(lib.conv2d(a, w5) + lib.conv2d(p, w2))
    return lib.conv2d(s, w6)


def _weights(dtype, rng):
    shapes = [(16, 64, 1, 1), (256, 64, 1, 1), (16, 16, 3, 3), (256, 16, 1, 1), (16, 256, 1, 1)]
    return [(rng.standard_normal(s) / np.sqrt(np.prod(s[1:]))).astype(dtype) for s in shapes]


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_bottleneck_entrance_like_torch(dtype):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 64, 16, 16)).astype(dtype)
    ws = _weights(dtype, rng)
    fn = pyasc.jit(lambda *a: _bottleneck(PF, *a))
    out = fn(*(pyasc.tensor(a) for a in (x, *ws))).numpy()
    ref = _bottleneck(F, *(torch.from_numpy(a.astype(np.float32)) for a in (x, *ws))).numpy()
    assert out.shape == ref.shape and out.dtype == dtype
    tol = 2e-2 if dtype == np.float16 else 1e-4
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_pool_output_is_transposed_once():
    """The only activation transpose is the pool's output to NHWC; no product goes back to NCHW."""
    rng = np.random.default_rng(6)
    args = [pyasc.tensor(a) for a in (rng.standard_normal((2, 64, 16, 16)).astype(np.float16),
                                      *_weights(np.float16, rng))]
    text = pyasc.jit(lambda *a: _bottleneck(PF, *a)).lower(*args).as_text("asctensor")
    host = text[text.index("func.func @lambda("):].splitlines()
    calls = [line for line in host if "func.call @lambda_k" in line]
    to_nhwc = [line for line in calls if "-> tensor<2x8x8x" in line]
    to_nchw = [line for line in calls if re.search(r"\) -> tensor<2x\d+x8x8x", line) and "max_pool" not in line
               and "(tensor<2x64x16x16x" not in line]
    assert len(to_nhwc) == 1 and "(tensor<2x64x8x8xf16>) -> tensor<2x8x8x64xf16>" in to_nhwc[0], "\n".join(calls)
    assert not to_nchw, "\n".join(calls)


POOLS = [(3, 2, 1), (2, 2, 0), (3, 1, 1), (3, 2, 0), (2, 1, 1)]  # kernel, stride, padding


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("kernel,stride,padding", POOLS)
def test_pool_between_convolutions_runs_channels_last_like_torch(kernel, stride, padding, dtype):
    """A max pool between two implicit GEMMs pools their NHWC values (no transpose around it), against PyTorch;
    the image's odd width makes the last output pixels' windows reach past it."""
    rng = np.random.default_rng(kernel * 10 + stride + padding)
    x = rng.standard_normal((2, 16, 13, 11)).astype(dtype)
    w1 = (rng.standard_normal((32, 16, 3, 3)) / 12).astype(dtype)
    w2 = (rng.standard_normal((16, 32, 3, 3)) / 17).astype(dtype)

    def program(lib, x, w1, w2):
        y = lib.relu(lib.conv2d(x, w1, padding=1))
        return lib.conv2d(lib.max_pool2d(y, kernel, stride, padding), w2, padding=1)

    fn = pyasc.jit(lambda *a: program(PF, *a), options={"conv": "implicit_gemm"})
    args = [pyasc.tensor(a) for a in (x, w1, w2)]
    assert "channels_last" in fn.lower(*args).as_text("asctensor")
    out = fn(*args).numpy()
    ref = program(F, *(torch.from_numpy(a.astype(np.float32)) for a in (x, w1, w2))).numpy()
    assert out.shape == ref.shape and out.dtype == dtype
    tol = 2e-2 if dtype == np.float16 else 1e-4
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_emitted_ascend_c_compiles():
    """The Ascend C of a stem-like convolution, its channels-last pool and the two 1x1 convolutions after it (the
    accumulator in two L0C slots, FixPipe taking its slot in its own scope) compiles against the stub headers."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 16, 32, 32)).astype(np.float16)
    ws = [(rng.standard_normal(s) / 8).astype(np.float16) for s in ((64, 16, 3, 3), (64, 64, 1, 1), (256, 64, 1, 1))]

    def program(lib, x, w0, w1, w2):
        p = lib.max_pool2d(lib.relu(lib.conv2d(x, w0, padding=1)), 3, 2, 1)
        return lib.relu(lib.conv2d(p, w1)) + lib.conv2d(p, w2)[:, :64]

    fn = pyasc.jit(lambda *a: program(PF, *a), options={"conv": "implicit_gemm"})
    lowered = fn.lower(*(pyasc.tensor(a) for a in (x, *ws)))
    assert "channels_last" in lowered.as_text("asctensor")
    src = lowered.compile().ascendc_source()
    assert "c_l0[" in src and "AscendC::Gather(" in src
    assert_compiles(src)


def test_pool_of_a_value_read_elsewhere_stays_nchw():
    """A pool whose input is also returned stays NCHW (its input's transpose could not move below it), and the
    convolution before it keeps its NCHW product; values against PyTorch."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 16, 12, 12)).astype(np.float16)
    w1 = (rng.standard_normal((32, 16, 3, 3)) / 12).astype(np.float16)
    w2 = (rng.standard_normal((16, 32, 3, 3)) / 17).astype(np.float16)

    def program(lib, x, w1, w2):
        y = lib.relu(lib.conv2d(x, w1, padding=1))
        return y, lib.conv2d(lib.max_pool2d(y, 3, 2, 1), w2, padding=1)

    fn = pyasc.jit(lambda *a: program(PF, *a), options={"conv": "implicit_gemm"})
    args = [pyasc.tensor(a) for a in (x, w1, w2)]
    text = fn.lower(*args).as_text("asctensor")
    host = text[text.index("func.func @lambda("):].splitlines()
    (first,) = [line for line in host if "func.call @lambda_mm0(" in line]
    # its product (after the NHWC workspace its AIVs fill, ``tile-conv-prologue``) is NCHW
    assert "channels_last" not in text and first.rstrip(")").endswith("tensor<2x32x12x12xf16>"), first
    refs = program(F, *(torch.from_numpy(a.astype(np.float32)) for a in (x, w1, w2)))
    for out, ref in zip(fn(*args), refs):
        ref = ref.numpy()
        np.testing.assert_allclose(out.numpy().astype(np.float32), ref, rtol=2e-2, atol=2e-2 * np.abs(ref).max())
