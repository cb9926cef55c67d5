"""A strided convolution over few channels, rewritten space to depth (``conv_fold.py``), whose vector cores build the
phase image (``analysis/phases.py``) while its cube computes: one MIX kernel instead of a phase kernel, a transpose
and a cube kernel. Results against PyTorch's conv2d in float64, and which convolutions take that path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

from .test_conv_prologue import RNG, _inputs, _tol

F = torch.nn.functional


def _reference(x, w, stride, padding):
    return F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), None, stride,
                    padding).numpy()


def _prologue_kernel(text: str) -> str:
    """The asctensor text of the ``conv_prologue`` kernel, or empty."""
    for part in text.split("func.func @")[1:]:
        if 'asctensor.kernel = "conv_prologue"' in part.split("\n", 1)[0]:
            return part
    return ""


@pytest.mark.parametrize("xs,ws,stride,padding", [
    ((2, 3, 64, 64), (16, 3, 7, 7), 2, 3),      # the ResNet stem's geometry on a smaller image
    ((3, 3, 40, 64), (24, 3, 7, 7), 2, 3),      # three images over the cores, a wide image
    ((1, 4, 64, 96), (8, 4, 7, 7), 2, 3),       # 4 channels: 16 phase channels, no padding channel
    ((2, 5, 34, 32), (32, 5, 4, 4), 2, 0),      # 5 channels: 20 phase channels, two groups of 16 per pixel
    ((1, 3, 224, 224), (64, 3, 7, 7), 2, 3),    # the stem
])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_phase_prologue_conv_matches_torch(xs, ws, stride, padding, dtype):
    x, w = _inputs(xs, ws, dtype)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding))
    args = [pyasc.tensor(x), pyasc.tensor(w)]
    kernel = _prologue_kernel(fn.lower(*args).as_text("asctensor"))
    assert "asctensor.im2col" in kernel and "asctensor.im2col_nhwc" in kernel
    compiled = fn.lower(*args).compile()
    source = compiled.ascendc_source()
    assert "AscendC::GatherMask<" in source and "AscendC::TransDataTo5HD<" in source
    out, report = compiled.simulate(*args)
    assert not report.findings
    # the weights' layout, then the MIX kernel; float16 rows that end inside a 32 B block, a multiple of 32 of
    # them, are laid out by the MIX kernel's AIVs (asctensor-fuse-conv-weights)
    fused = dtype == np.float16 and ws[0] % 32 == 0 and ws[1] * ws[2] * ws[3] * 2 % 32
    assert len(report.launches) == (1 if fused else 2)
    ref = _reference(x, w, stride, padding)
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=_tol(ref, ws[1] * ws[2] * ws[3], dtype))


@pytest.mark.parametrize("xs,ws,stride,padding", [
    ((2, 3, 30, 64), (16, 3, 7, 7), 2, 2),      # padding not whole windows: zeros inside the phase rows
    ((2, 3, 63, 64), (16, 3, 7, 7), 2, 3),      # an odd height: the last window half outside
    ((2, 3, 64, 40), (16, 3, 7, 7), 2, 3),      # 20 pixels a phase row: not whole 32 B blocks of float16
])
def test_other_phase_layouts_keep_their_kernels(xs, ws, stride, padding):
    """Where the padding or the image is not whole windows, or a phase row not whole 32 B blocks, the phase image
    is computed by its own kernels as before, with the same results."""
    x, w = _inputs(xs, ws, np.float16)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding))
    args = [pyasc.tensor(x), pyasc.tensor(w)]
    assert "asctensor.im2col " not in _prologue_kernel(fn.lower(*args).as_text("asctensor"))
    out, report = fn.lower(*args).compile().simulate(*args)
    assert not report.findings
    ref = _reference(x, w, stride, padding)
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=_tol(ref, ws[1] * ws[2] * ws[3], np.float16))


def _random_phase_convs(count: int, seed: int) -> list[tuple]:
    """Stride-2 convolutions over 1 to 5 channels whose image rows are whole 32 B blocks of phases, with random
    batch, kernel (4 to 8), padding, height, bias, ReLU and type: (x shape, w shape, padding, bias, relu, dtype).
    Whether each takes the phase prologue is ``conv=auto``'s choice (about half of them do)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        dtype = [np.float16, np.float32][int(rng.integers(0, 2))]
        per = 16 if dtype == np.float16 else 8
        c, n, oc, k, p = (int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 40)),
                          int(rng.integers(4, 9)), int(rng.integers(0, 5)))
        h, w = 2 * per * int(rng.integers(1, 4)) + 2 * int(rng.integers(0, 3)), 2 * per * int(rng.integers(1, 4))
        if h + 2 * p >= k and w + 2 * p >= k:
            out.append(((n, c, h, w), (oc, c, k, k), p, bool(rng.integers(0, 2)), bool(rng.integers(0, 2)), dtype))
    return out


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ == "test_random_phase_conv_like_torch":  # --random-long: 200 cases
        count = 200 if metafunc.config.getoption("--random-long") else 6
        metafunc.parametrize("xs,ws,padding,bias,relu,dtype", _random_phase_convs(count, 2031))


def test_random_phase_conv_like_torch(xs, ws, padding, bias, relu, dtype):
    """Random stride-2 convolutions of few channels (with a bias and a ReLU or not) against PyTorch in float64,
    with no finding of the simulator."""
    x, w = _inputs(xs, ws, dtype)
    b = RNG.standard_normal(ws[0]).astype(dtype) if bias else None

    def program(lib, x, w, *b):
        y = lib.conv2d(x, w, *b, stride=2, padding=padding)
        return lib.relu(y) if relu else y

    arrays = [x, w] + ([b] if bias else [])
    args = [pyasc.tensor(a) for a in arrays]
    out, report = pyasc.jit(lambda *a: program(pyasc, *a)).lower(*args).compile().simulate(*args)
    assert not report.findings
    ref = program(F, *(torch.from_numpy(a.astype(np.float64)) for a in arrays)).numpy()
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0,
                               atol=_tol(ref, ws[1] * ws[2] * ws[3], dtype))
