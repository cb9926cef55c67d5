"""float32 matmuls whose B is stored K x N: one cube kernel (B reaches L0B through LoadDataWithTranspose, no
transpose kernel first), against NumPy's float64 product at float32 tolerance, with no simulator finding."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("PYASC_CACHE_DIR", tempfile.mkdtemp(prefix="pyasc-test-cache-"))

import pyasc  # noqa: E402
from pyasc.ops_linalg import reference_conv2d  # noqa: E402

from .gxx import assert_compiles  # noqa: E402

RNG = np.random.default_rng(11)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _check(out, ref, k: int):
    """float32 output against a float64 reference: fp32 accumulation over ``k`` plus one rounding."""
    tol = (2 ** -23 + k * 2 ** -24 * 4) * (np.abs(ref).max() + 1e-30) * 2
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=0, atol=tol)


def _run(fn, *arrays):
    xs = [pyasc.tensor(a) for a in arrays]
    compiled = pyasc.jit(fn).lower(*xs).compile()
    out, report = compiled.simulate(*xs)
    assert report.findings == []
    return compiled, out


def _no_transpose(compiled) -> None:
    """One kernel (the cube's) whose B goes through LoadDataWithTranspose."""
    assert len(compiled.kernels) == 1, [k for k in compiled.kernels]
    assert "ascendc.load_data_with_transpose" in compiled.as_text()


@pytest.mark.parametrize("m,k,n", [(16, 16, 16), (64, 64, 64), (256, 256, 256), (512, 512, 512), (1024, 1024, 1024),
                                   (333, 777, 555), (40, 37, 50), (17, 9, 24), (30, 100, 1), (1, 300, 70),
                                   (1, 4096, 4096), (5, 20, 4100), (247, 284, 75)])
def test_f32_matmul_b_k_by_n(m, k, n):
    """Whole and partial blocks, K not a multiple of 8 or 16 (the zeroed K tail), an odd number of 8-column
    blocks (the zeroed half square), N = 1, the GEMV, and N > 4095 (16 rows of B further apart than ND2NZ's
    srcNdMatrixStride reaches: a loop of ND2NZs); 247 x 284 x 75: blocks narrower than the tile (the loads
    read only the squares the copies wrote)."""
    a, b = _f32(m, k), _f32(k, n)
    compiled, out = _run(lambda x, y: x @ y, a, b)
    _no_transpose(compiled)
    _check(out, a.astype(np.float64) @ b.astype(np.float64), k)


def test_f32_batched():
    a, b, w = _f32(3, 40, 24), _f32(3, 24, 56), _f32(24, 56)
    compiled, out = _run(lambda x, y: x @ y, a, b)
    _no_transpose(compiled)
    _check(out, a.astype(np.float64) @ b.astype(np.float64), 24)
    compiled, out = _run(lambda x, y: x @ y, a, w)  # a 2-D B shared by every batch
    _no_transpose(compiled)
    _check(out, a.astype(np.float64) @ w.astype(np.float64), 24)


def test_f32_bias_relu():
    x, w, bias = _f32(100, 70), _f32(70, 90), _f32(90)
    compiled, out = _run(lambda x, w, bias: pyasc.relu(x @ w + bias), x, w, bias)
    assert len(compiled.kernels) == 1  # one MIX kernel, no transpose kernel
    assert "ascendc.load_data_with_transpose" in compiled.as_text()
    ref = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + bias, 0)
    _check(out, ref, 70)


@pytest.mark.parametrize("m,k,n", [(30, 45, 50), (33, 17, 9), (2, 3, 5), (300, 700, 200), (5, 5000, 7)])
def test_f32_transposed_operands(m, k, n):
    """``x.T @ b`` reads x (K x M) in place as A^T next to a K x N B (both through LoadDataWithTranspose),
    ``a @ y.T`` reads y as B^T (plain LoadData): one kernel each; ``x.T @ y.T`` transposes x first."""
    x, b, a, y = _f32(k, m), _f32(k, n), _f32(m, k), _f32(n, k)
    compiled, out = _run(lambda x, b: x.T @ b, x, b)
    _no_transpose(compiled)
    _check(out, x.T.astype(np.float64) @ b.astype(np.float64), k)
    compiled, out = _run(lambda a, y: a @ y.T, a, y)
    assert len(compiled.kernels) == 1 and "load_data_with_transpose" not in compiled.as_text()
    _check(out, a.astype(np.float64) @ y.T.astype(np.float64), k)
    compiled, out = _run(lambda x, y: x.T @ y.T, x, y)
    assert len(compiled.kernels) == 2
    _check(out, x.T.astype(np.float64) @ y.T.astype(np.float64), k)


def test_f32_conv2d_patches_in_place():
    """A convolution's patches (K x N per image) are read in place by the matmul: the gather, the weight's
    transpose to the patches' (kh, kw, c) order and the cube, no transpose of the patches."""
    x, w = _f32(2, 5, 12, 11), _f32(8, 5, 3, 3)
    compiled, out = _run(lambda x, w: pyasc.conv2d(x, w, padding=1), x, w)
    assert len(compiled.kernels) == 2  # the gather and the weight's transpose launched as one, then the cube
    assert "ascendc.load_data_with_transpose" in compiled.as_text()
    ref = reference_conv2d(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1), (1, 1), 1)
    _check(out, ref, 45)


def test_f32_emitted_kernel_compiles():
    a, b = pyasc.tensor(_f32(40, 37)), pyasc.tensor(_f32(37, 4100))
    src = pyasc.jit(lambda a, b: a @ b).lower(a, b).compile().ascendc_source()
    assert "AscendC::LoadDataWithTranspose" in src and "AscendC::LoadData2dTransposeParams" in src
    assert_compiles(src)
