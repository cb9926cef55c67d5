"""Graph optimisations on weights: a batch norm after a convolution or a linear layer folds into its
weight and bias (asctensor-fold-batch-norm), and what depends on weights only runs once, on the host
(asctensor-hoist-constants). Results against PyTorch CPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import pyasc
from pyasc import cache
from pyasc.dialects.asctensor import KERNEL_ATTR

R = np.random.default_rng(7)


def _f(*shape, low=-1.0, high=1.0, dtype=np.float32):
    return R.uniform(low, high, shape).astype(dtype)


def _bn_stats(c: int, dtype=np.float32):
    return _f(c, dtype=dtype), _f(c, low=0.5, high=2.0, dtype=dtype), _f(c, dtype=dtype), _f(c, dtype=dtype)


def _kernel_bodies(lowered) -> str:
    """The text of the kernels of the program (what runs on the device for each inference)."""
    return "\n".join(str(op) for op in lowered.module("asctensor").ops if KERNEL_ATTR in op.attributes)


@pytest.mark.parametrize("bias", [False, True])
def test_conv_then_batch_norm_matches_torch_and_folds(bias):
    dtype, tol = np.float32, 1e-4
    w, cb = _f(8, 4, 3, 3, dtype=dtype), _f(8, dtype=dtype) if bias else None
    mean, var, gamma, beta = _bn_stats(8, dtype)
    fn = pyasc.jit(lambda x: pyasc.batch_norm(pyasc.conv2d(x, pyasc.tensor(w), None if cb is None else pyasc.tensor(cb),
                                                           padding=(1, 1)),
                                              pyasc.tensor(mean), pyasc.tensor(var), pyasc.tensor(gamma),
                                              pyasc.tensor(beta), eps=1e-3))
    x = _f(2, 4, 10, 10, dtype=dtype)
    got = fn(pyasc.tensor(x)).numpy()
    t = [None if a is None else torch.from_numpy(a).float() for a in (x, w, cb, mean, var, gamma, beta)]
    ref = F.batch_norm(F.conv2d(t[0], t[1], t[2], padding=1), t[3], t[4], t[5], t[6], training=False, eps=1e-3)
    np.testing.assert_allclose(got.astype(np.float32), ref.numpy(), rtol=tol, atol=tol)
    kernels = _kernel_bodies(fn.lower(pyasc.tensor(x)))
    assert "asctensor.conv2d" in fn.lower(pyasc.tensor(x)).as_text("traced")
    assert "arith.mulf" not in kernels        # the scale went into the weight
    assert "arith.addf" in kernels            # the shift is the convolution's bias


def test_linear_then_batch_norm_matches_torch_and_folds():
    w, b = _f(16, 32), _f(16)
    mean, var, gamma, beta = _bn_stats(16)
    fn = pyasc.jit(lambda x: pyasc.batch_norm(pyasc.linear(x, pyasc.tensor(w), pyasc.tensor(b)), pyasc.tensor(mean),
                                              pyasc.tensor(var), pyasc.tensor(gamma), pyasc.tensor(beta)))
    x = _f(8, 32)
    got = fn(pyasc.tensor(x)).numpy()
    t = [torch.from_numpy(a) for a in (x, w, b, mean, var, gamma, beta)]
    ref = F.batch_norm(F.linear(t[0], t[1], t[2]), t[3], t[4], t[5], t[6], training=False)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)
    assert "arith.mulf" not in _kernel_bodies(fn.lower(pyasc.tensor(x)))


def test_a_conv_result_used_twice_does_not_fold():
    w = _f(4, 4, 1, 1)
    mean, var, gamma, beta = _bn_stats(4)

    def f(x):
        y = pyasc.conv2d(x, pyasc.tensor(w))
        return pyasc.batch_norm(y, pyasc.tensor(mean), pyasc.tensor(var), pyasc.tensor(gamma), pyasc.tensor(beta)) + y

    x = _f(1, 4, 6, 6)
    fn = pyasc.jit(f)
    got = fn(pyasc.tensor(x)).numpy()
    t = [torch.from_numpy(a) for a in (x, w, mean, var, gamma, beta)]
    y = F.conv2d(t[0], t[1])
    ref = F.batch_norm(y, t[2], t[3], t[4], t[5], training=False) + y
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)
    assert "arith.mulf" in _kernel_bodies(fn.lower(pyasc.tensor(x)))


def test_the_cube_layout_of_a_weight_is_computed_once_on_the_host():
    # the cube reads a convolution's weight in the patches' (kh, kw, c) order: the transpose of a constant
    # weight leaves the program
    w = _f(4, 3, 3, 3, dtype=np.float16)
    fn = pyasc.jit(lambda x: pyasc.conv2d(x, pyasc.tensor(w), stride=2, padding=1))
    x = _f(1, 3, 10, 10, dtype=np.float16)
    lowered = fn.lower(pyasc.tensor(x))
    assert "asctensor.transpose" not in lowered.as_text("asctensor")
    (weight,) = lowered.constants
    np.testing.assert_array_equal(weight, w.transpose(0, 2, 3, 1))
    ref = torch.nn.functional.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(), stride=2, padding=1)
    np.testing.assert_allclose(fn(pyasc.tensor(x)).numpy().astype(np.float64), ref.numpy(), rtol=2e-3, atol=2e-3)


def test_a_float16_weight_whose_k_is_not_whole_fractals_is_read_as_it_is():
    # K = 24: the cube reads B as K x N (the rows past K of its last fractal zeroed in L1), so the weight needs
    # no layout of its own
    w = _f(24, 16, dtype=np.float16)
    fn = pyasc.jit(lambda x: pyasc.matmul(x, pyasc.tensor(w)))
    x = _f(4, 24, dtype=np.float16)
    lowered = fn.lower(pyasc.tensor(x))
    assert "asctensor.transpose" not in lowered.as_text("asctensor")
    (weight,) = lowered.constants
    np.testing.assert_array_equal(weight, w)
    ref = torch.from_numpy(x).double() @ torch.from_numpy(w).double()
    np.testing.assert_allclose(fn(pyasc.tensor(x)).numpy().astype(np.float64), ref.numpy(), rtol=2e-3, atol=2e-3)


def test_a_program_from_the_disk_cache_folds_its_own_weights(tmp_path, monkeypatch):
    # two weight sets of one shape share the compiled program (the trace reads them as parameters):
    # the second, served from the disk cache, runs the cached constants function on its own weights
    monkeypatch.setenv("PYASC_CACHE_DIR", str(tmp_path))
    cache.clear()
    x = _f(1, 4, 6, 6)
    for _ in range(2):
        w = _f(8, 4, 3, 3)
        mean, var, gamma, beta = _bn_stats(8)

        def f(x):
            return pyasc.batch_norm(pyasc.conv2d(x, pyasc.tensor(w)), pyasc.tensor(mean), pyasc.tensor(var),
                                    pyasc.tensor(gamma), pyasc.tensor(beta))

        got = pyasc.jit(f)(pyasc.tensor(x)).numpy()
        t = [torch.from_numpy(a) for a in (x, w, mean, var, gamma, beta)]
        ref = F.batch_norm(F.conv2d(t[0], t[1]), t[2], t[3], t[4], t[5], training=False)
        np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-4)
    assert cache.stats()["hits"] == 1


def test_a_weight_cast_is_computed_once_on_the_host():
    w, b = _f(8, 16, dtype=np.float16), _f(8, dtype=np.float16)
    fn = pyasc.jit(lambda x: (x.to(pyasc.float16) @ pyasc.tensor(w).T).to(pyasc.float32) * pyasc.tensor(b))
    x = _f(4, 16)
    lowered = fn.lower(pyasc.tensor(x))
    assert "asctensor.cast" in lowered.as_text("traced")
    lowered.module("asctensor")        # compiling evaluates the constants function
    weight, scale = lowered.constants
    np.testing.assert_array_equal(weight, w.T)
    assert scale.dtype == np.float32
    np.testing.assert_array_equal(scale, b.astype(np.float32))
    ref = (torch.from_numpy(x).half() @ torch.from_numpy(w).T).float() * torch.from_numpy(b).float()
    np.testing.assert_allclose(fn(pyasc.tensor(x)).numpy(), ref.numpy(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("shape,kernel,stride,padding,dilation,groups", [
    ((2, 3, 9, 11), (2, 2), (2, 2), (3, 3), (1, 1), 1),
    ((1, 4, 8, 7), (3, 2), (1, 2), (1, 0), (2, 1), 2),
    ((2, 6, 7, 7), (3, 3), (2, 1), (1, 2), (1, 2), 3),
])
def test_the_host_im2col_is_torch_unfold_in_the_patches_order(shape, kernel, stride, padding, dilation, groups):
    """``im2col`` of a constant runs on the host: torch's unfold, per group, with the channels in (kh, kw, c) order."""
    from xdsl.dialects.builtin import TensorType, f32
    from xdsl.ir import Block

    from pyasc.dialects import asctensor
    from pyasc.dialects.asctensor.linalg import conv2d_output_shape
    from pyasc.lowering.const_eval import HOST_EVAL

    x = _f(*shape)
    n, c = shape[:2]
    oh, ow = conv2d_output_shape(shape, (groups, c // groups, *kernel), stride, padding, dilation, groups)[2:]
    arg = Block(arg_types=[TensorType(f32, list(shape))]).args[0]
    op = asctensor.Im2colOp(arg, TensorType(f32, [n, c * kernel[0] * kernel[1], oh * ow]), kernel, stride, padding,
                            dilation, groups)
    got = HOST_EVAL["asctensor.im2col"](op, [x])
    cg = c // groups
    want = [F.unfold(torch.from_numpy(x[:, g * cg:(g + 1) * cg]), kernel, dilation, padding, stride).numpy()
            .reshape(n, cg, kernel[0], kernel[1], oh * ow).transpose(0, 2, 3, 1, 4) for g in range(groups)]
    np.testing.assert_array_equal(got, np.stack(want, 1).reshape(got.shape))


def test_the_stem_weights_phases_are_computed_once_on_the_host():
    """ResNet's stem reads the 2x2 phases of its stride as channels (conv_fold's space to depth): the phases of a
    constant weight (an im2col of the weight) leave the program, and the result is torch's."""
    w = _f(64, 3, 7, 7, dtype=np.float16) / 8
    x = _f(8, 3, 224, 224, dtype=np.float16)
    fn = pyasc.jit(lambda x: pyasc.conv2d(x, pyasc.tensor(w), stride=2, padding=3))
    lowered = fn.lower(pyasc.tensor(x))
    kernels = _kernel_bodies(lowered)
    assert "kernel [2, 2] stride [2, 2] padding [4, 4]" in kernels  # the image's phases: a kernel
    assert "padding [1, 1]" not in kernels                          # the weight's: on the host
    ref = F.conv2d(torch.from_numpy(x).double(), torch.from_numpy(w).double(), stride=2, padding=3).numpy()
    out = fn(pyasc.tensor(x)).numpy().astype(np.float64)
    assert np.abs(out - ref).max() <= 2e-3 * np.abs(ref).max()
