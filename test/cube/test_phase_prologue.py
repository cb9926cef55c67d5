"""A strided convolution over few channels, rewritten space to depth (``conv_fold.py``), whose vector cores build the
phase image (``analysis/phases.py``) while its cube computes: one MIX kernel instead of a phase kernel, a transpose
and a cube kernel. Results against PyTorch's conv2d in float64, and which convolutions take that path."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

from .test_conv_prologue import _inputs, _tol

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
    assert len(report.launches) == 2  # the weights' layout, then the MIX kernel
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
