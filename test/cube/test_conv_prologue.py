"""A convolution of an NCHW input whose vector cores lay the input out as NHWC while its cube computes
(``asctensor-fuse-conv-prologue``, ``tile-conv-prologue``): one MIX kernel instead of a transpose kernel and a cube
kernel. Results against PyTorch's conv2d in float64, and which convolutions take that path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

RNG = np.random.default_rng(11)
F = torch.nn.functional


def _inputs(xs, ws, dtype):
    x = RNG.standard_normal(xs).astype(np.float32).astype(dtype)
    w = (RNG.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32).astype(dtype)
    return x, w


def _tol(ref, k, dtype):
    eps = {np.float16: 2 ** -11, np.float32: 2 ** -22}[dtype]
    return (2 * eps + k * 2 ** -24) * np.abs(ref).max()


def _kinds(fn, args) -> list[str]:
    mod = fn.lower(*args).module("asctile")
    return [getattr(op.attributes["asctile.kernel"], "data", "vector") for op in mod.ops
            if "asctile.kernel" in op.attributes]


@pytest.mark.parametrize("xs,ws,stride,padding,dilation", [
    ((2, 32, 12, 10), (24, 32, 3, 3), 1, 1, 1),
    ((3, 64, 15, 13), (40, 64, 3, 3), 2, 1, 1),      # three images over the cores: ranges that start mid-image
    ((1, 512, 16, 16), (64, 512, 3, 3), 1, 1, 1),    # several L1 stages of channels
    ((2, 16, 20, 17), (16, 16, 3, 3), 1, 2, 2),      # dilation, an odd output width
    ((1, 48, 30, 30), (32, 48, 5, 5), 1, 2, 1),      # windows of many input rows, blocks sharing rows
])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_prologue_conv_matches_torch(xs, ws, stride, padding, dilation, dtype):
    x, w = _inputs(xs, ws, dtype)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding, dilation=dilation))
    args = [pyasc.tensor(x), pyasc.tensor(w)]
    assert sorted(_kinds(fn, args)) == ["mix", "vector"]  # the weights' layout, and the MIX kernel
    compiled = fn.lower(*args).compile()
    assert "AscendC::TransDataTo5HD<" in compiled.ascendc_source()
    out, report = compiled.simulate(*args)
    assert not report.findings
    assert len(report.launches) == 2  # the weights' layout, then the MIX kernel
    ref = F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), None, stride,
                   padding, dilation).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=_tol(ref, ws[1] * ws[2] * ws[3], dtype))


def test_prologue_conv_feeding_a_conv_takes_patches_as_a():
    """A convolution whose output reaches another one directly computes its product NHWC (its patches in L0A);
    its NCHW input is still laid out by its AIVs."""
    x, w1 = _inputs((2, 32, 14, 14), (48, 32, 3, 3), np.float16)
    _, w2 = _inputs((1, 48, 1, 1), (16, 48, 3, 3), np.float16)

    def program(lib, x, w1, w2):
        return lib.conv2d(lib.conv2d(x, w1, padding=1), w2, padding=1)

    fn = pyasc.jit(lambda *a: program(pyasc, *a))
    args = [pyasc.tensor(a) for a in (x, w1, w2)]
    text = fn.lower(*args).as_text("asctensor")
    assert 'asctensor.kernel = "conv_prologue"' in text
    out, report = fn.lower(*args).compile().simulate(*args)
    assert not report.findings
    ref = program(F, *(torch.from_numpy(a.astype(np.float64)) for a in (x, w1, w2))).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0, atol=4e-3 * np.abs(ref).max())


@pytest.mark.parametrize("xs,ws,dtype", [
    ((2, 3, 30, 28), (16, 3, 7, 7), np.float16),     # 3 channels, padded to 16 on the cube
    ((2, 32, 12, 10), (24, 32, 3, 3), "bfloat16"),   # a type TransDataTo5HD does not take
])
def test_prologue_needs_whole_channel_groups_and_its_types(xs, ws, dtype):
    import ml_dtypes

    dt = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    x, w = (RNG.standard_normal(s).astype(np.float32).astype(dt) for s in (xs, ws))
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3), options={"conv": "implicit_gemm"})
    args = [pyasc.tensor(x), pyasc.tensor(w)]
    assert 'asctensor.kernel = "conv_prologue"' not in fn.lower(*args).as_text("asctensor")
    out, report = fn.lower(*args).compile().simulate(*args)
    assert not report.findings
    ref = F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), None, 2, 3).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0, atol=2 ** -6 * np.abs(ref).max())


def _random_prologue_convs(count: int, seed: int) -> list[tuple]:
    """Convolutions of whole 16-channel groups with random geometry, batch and type: (x shape, w shape, stride,
    padding, dilation, dtype)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        c, oc = 16 * int(rng.integers(1, 9)), int(rng.integers(1, 80))
        kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        stride = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
        padding = (int(rng.integers(0, 3)), int(rng.integers(0, 3)))
        h, w = int(rng.integers(3, 40)), int(rng.integers(3, 40))
        if (kh, kw, *stride, *padding) == (1, 1, 1, 1, 0, 0):
            continue
        if h + 2 * padding[0] < dilation[0] * (kh - 1) + 1 or w + 2 * padding[1] < dilation[1] * (kw - 1) + 1:
            continue
        dtype = [np.float16, np.float32][int(rng.integers(0, 2))]
        out.append(((int(rng.integers(1, 5)), c, h, w), (oc, c, kh, kw), stride, padding, dilation, dtype))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_random_prologue_conv_like_torch":  # --random-long: 200 cases
        count = 200 if metafunc.config.getoption("--random-long") else 10
        metafunc.parametrize("xs,ws,stride,padding,dilation,dtype", _random_prologue_convs(count, 2027))


def test_random_prologue_conv_like_torch(xs, ws, stride, padding, dilation, dtype):
    """Random geometry against PyTorch in float64; where the convolution runs as an implicit GEMM its NCHW input
    is laid out by the AIVs of its kernel (the other geometries go through im2col)."""
    x, w = _inputs(xs, ws, dtype)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding, dilation=dilation))
    args = [pyasc.tensor(x), pyasc.tensor(w)]
    out, report = fn.lower(*args).compile().simulate(*args)
    assert not report.findings
    ref = F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), None, stride,
                   padding, dilation).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=_tol(ref, ws[1] * ws[2] * ws[3], dtype))
