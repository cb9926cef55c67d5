"""A convolution over few channels with its stride or its kernel columns folded into its channels
(``lowering/conv_fold.py``): the ResNet stem (float32 and float16), which takes the space to depth form by itself, a
stride-1 convolution that folds its kernel columns, and both forms of small convolutions of every stride, padding
and dilation they take (forced, then lowered as an implicit GEMM), against PyTorch."""

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
from pyasc.lowering.conv_fold import fold, space_to_depth, worth_folding, worth_space_to_depth
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
def test_the_stem_takes_the_space_to_depth_form_like_torch(dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3, 224, 224)).astype(dtype)
    w = (rng.standard_normal((64, 3, 7, 7)) / 12).astype(dtype)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=2, padding=3))
    args = pyasc.tensor(x), pyasc.tensor(w)
    text = fn.lower(*args).as_text("asctensor")
    # 2x2 phases of the image padded by 3 + 1 (the kernel shifted by one), the weights' phases padded by 1 (for
    # float16 weights, that layout is a row_gather in the convolution's kernel: asctensor-fuse-conv-weights),
    # a 4x4 convolution of 12 channels over the 115 x 115 phases an output reads
    assert "kernel [2, 2] stride [2, 2] padding [4, 4]" in text
    if dtype == np.float16:
        assert "asctensor.row_gather" in text and "tensor<64x147xf16>, tensor<1x256xi32> -> tensor<64x256xf16>" in text
    else:
        assert "kernel [2, 2] stride [2, 2] padding [1, 1]" in text
    assert "kernel [4, 4] stride [1, 1] padding [0, 0]" in text and "tensor<8x115x115x12x" in text
    # the phases are picked by GatherMask (patterns 1 and 2: the even and the odd columns)
    source = fn.lower(*args).compile().ascendc_source()
    assert "static_cast<uint8_t>(1), true" in source and "static_cast<uint8_t>(2), true" in source
    _check(fn(*args).numpy(), _reference(x, w, None, 2, 3, 1), dtype)


def test_a_stride_1_convolution_folds_its_kernel_columns_like_torch():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 3, 64, 64)).astype(np.float16)
    w = (rng.standard_normal((32, 3, 7, 7)) / 12).astype(np.float16)
    fn = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=1, padding=3))
    args = pyasc.tensor(x), pyasc.tensor(w)
    assert "kernel [1, 7] stride [1, 1] padding [0, 3]" in fn.lower(*args).as_text("asctensor")
    _check(fn(*args).numpy(), _reference(x, w, None, 1, 3, 1), np.float16)


@pytest.mark.parametrize("xs,ws,stride,taken", [
    ((8, 3, 224, 224), (64, 3, 7, 7), 2, True),     # the stem: 16 x 16 padded products per output against 16 x 49
    ((8, 8, 112, 112), (64, 8, 5, 5), 2, True),     # 32 x 9 against 16 x 25
    ((8, 3, 224, 224), (32, 3, 3, 3), 2, False),    # a kernel less than twice its stride
    ((8, 16, 112, 112), (64, 16, 3, 3), 2, False),  # no padding to save
    ((8, 3, 64, 64), (32, 3, 7, 7), 1, False),      # no stride
])
def test_which_convolutions_take_space_to_depth(xs, ws, stride, taken):
    x, w = pyasc.tensor(np.zeros(xs, np.float16)), pyasc.tensor(np.zeros(ws, np.float16))
    module = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=ws[2] // 2)).lower(x, w).module("traced")
    (op,) = [o for o in module.walk() if isinstance(o, asctensor.Conv2dOp)]
    assert worth_space_to_depth(op) == taken


CASES = [  # x, w, stride, padding, dilation
    ((2, 3, 20, 20), (8, 3, 7, 7), (2, 2), (3, 3), (1, 1)),
    ((1, 1, 16, 18), (4, 1, 5, 5), (1, 1), (2, 2), (1, 1)),
    ((2, 3, 17, 19), (8, 3, 3, 5), (1, 2), (1, 2), (1, 1)),
    ((1, 2, 15, 15), (16, 2, 3, 3), (2, 1), (0, 1), (1, 2)),
    ((1, 3, 12, 13), (4, 3, 3, 4), (1, 3), (2, 0), (2, 1)),
]


def _rewritten_like_torch(xs, ws, stride, padding, dilation, dtype, bias, rewrite, marker: str) -> None:
    """The convolution with random data, rewritten by ``rewrite(op, target, "implicit_gemm")`` (whose asctensor
    level shows ``marker``), lowered as an implicit GEMM and simulated, against PyTorch."""
    rng = np.random.default_rng(sum(xs) + sum(ws) + len(marker))
    x = rng.standard_normal(xs).astype(dtype)
    w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype) if bias else None
    args = [pyasc.tensor(a) for a in (x, w, b) if a is not None]
    conv = (lambda x, w, b: pyasc.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation)) if bias else \
        (lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding, dilation=dilation))
    module = pyasc.jit(conv).lower(*args).module("traced").clone()
    (op,) = [o for o in module.walk() if isinstance(o, asctensor.Conv2dOp)]
    assert rewrite(op, module_target(module), "implicit_gemm")
    options = make_options({"conv": "implicit_gemm"})
    for level in LEVELS:
        module = run_stage(module, level, options)
        if level == "asctensor":
            assert marker in str(module)
    assert "ascendc.load_data_3dv2" in str(module)  # the rewritten convolution runs as an implicit GEMM
    out = simulate(module, *(a.numpy() for a in args), raise_errors=True)[0][len(args)]
    _check(out, _reference(x, w, b, stride, padding, dilation), dtype)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("xs,ws,stride,padding,dilation", CASES)
def test_folded_form_like_torch(xs, ws, stride, padding, dilation, dtype, bias):
    x = np.zeros(xs, dtype)
    module = pyasc.jit(lambda x, w: pyasc.conv2d(x, w, stride=stride, padding=padding, dilation=dilation)).lower(
        pyasc.tensor(x), pyasc.tensor(np.zeros(ws, dtype))).module("traced")
    (op,) = [o for o in module.walk() if isinstance(o, asctensor.Conv2dOp)]
    assert worth_folding(op)
    _rewritten_like_torch(xs, ws, stride, padding, dilation, dtype, bias, fold, f"kernel [1, {ws[3]}]")


DEPTH_CASES = [  # x, w, stride, padding
    ((2, 3, 20, 20), (8, 3, 7, 7), (2, 2), (3, 3)),
    ((1, 2, 17, 19), (4, 2, 5, 5), (2, 2), (2, 1)),
    ((2, 3, 21, 18), (8, 3, 6, 7), (3, 2), (1, 3)),
    ((1, 4, 16, 16), (16, 4, 4, 4), (2, 2), (0, 0)),
    ((1, 1, 24, 25), (4, 1, 9, 5), (3, 1), (4, 0)),
]


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("xs,ws,stride,padding", DEPTH_CASES)
def test_space_to_depth_form_like_torch(xs, ws, stride, padding, dtype, bias):
    _rewritten_like_torch(xs, ws, stride, padding, (1, 1), dtype, bias, space_to_depth,
                          f"kernel [{stride[0]}, {stride[1]}] stride [{stride[0]}, {stride[1]}]")
