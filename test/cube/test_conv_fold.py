"""A convolution over few channels with its kernel columns folded into its channels (``lowering/conv_fold.py``):
the ResNet stem (float32 and float16), which takes the folded form by itself, and the folded form of small convolutions of
every stride, padding and dilation (forced, then lowered as an implicit GEMM), against PyTorch."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest
import torch
import torch.nn.functional as F

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc
from pyasc.dialects import asctensor
from pyasc.dialects.target import module_target
from pyasc.jit import make_options
from pyasc.lowering.conv_fold import fold, worth_folding
from pyasc.lowering.pipeline import LEVELS, run_stage
from pyasc.runtime.simulator import simulate

TOLERANCE = {np.float16: 2e-3, np.float32: 2e-6}


def _reference(x, w, b, stride, padding, dilation):
    t = [None if a is None else torch.from_numpy(a.astype(np.float32)) for a in (x, w, b)]
    return F.conv2d(*t, stride=stride, padding=padding, dilation=dilation).numpy()


def _check(out, ref, dtype):
    assert out.shape == ref.shape
    err = np.abs(out.astype(np.float32) - ref).max() / np.abs(ref).max()
    assert err <= TOLERANCE[dtype], err


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_the_stem_takes_the_folded_form_like_torch(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3, 224, 224)).astype(dtype)
    w = (rng.standard_normal((64, 3, 7, 7)) / 12).astype(dtype)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3))
    args = pyasc.tensor(x), pyasc.tensor(w)
    assert "kernel [1, 7] stride [1, 2] padding [0, 3]" in fn.lower(*args).as_text("asctensor")
    _check(fn(*args).numpy(), _reference(x, w, None, 2, 3, 1), dtype)


CASES = [  # x, w, stride, padding, dilation
    ((2, 3, 20, 20), (8, 3, 7, 7), (2, 2), (3, 3), (1, 1)),
    ((1, 1, 16, 18), (4, 1, 5, 5), (1, 1), (2, 2), (1, 1)),
    ((2, 3, 17, 19), (8, 3, 3, 5), (1, 2), (1, 2), (1, 1)),
    ((1, 2, 15, 15), (16, 2, 3, 3), (2, 1), (0, 1), (1, 2)),
    ((1, 3, 12, 13), (4, 3, 3, 4), (1, 3), (2, 0), (2, 1)),
]


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("xs,ws,stride,padding,dilation", CASES)
def test_folded_form_like_torch(xs, ws, stride, padding, dilation, dtype, bias):
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x = rng.standard_normal(xs).astype(dtype)
    w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype) if bias else None
    args = [pyasc.tensor(a) for a in (x, w, b) if a is not None]
    conv = (lambda x, w, b: pyasc.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation)) if bias else \
        (lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding, dilation=dilation))
    module = pyasc.jit(conv).lower(*args).module("traced").clone()
    (op,) = [o for o in module.walk() if isinstance(o, asctensor.Conv2dOp)]
    assert worth_folding(op)
    assert fold(op, module_target(module), "implicit_gemm")
    options = make_options({"conv": "implicit_gemm"})
    for level in LEVELS:
        module = run_stage(module, level, options)
        if level == "asctensor":
            assert f"kernel [1, {ws[3]}]" in str(module)
    assert "ascendc.load_data_3dv2" in str(module)  # the folded convolution runs as an implicit GEMM
    out = simulate(module, *(a.numpy() for a in args), raise_errors=True)[0][len(args)]
    _check(out, _reference(x, w, b, stride, padding, dilation), dtype)
