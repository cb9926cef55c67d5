"""The emitted projects' CPU run implements the documented A2 semantics (Compare computes whole 256 B
repeats only, int32 Compare tests equality whatever the mode; ND2NZ zero-pads rows): the kernels
the compiler emits for matmuls of every dtype with M, K and N not multiples of 16, topk, ``where``
with odd lengths and a sum over dim 0 give, on the CPU, the simulator's results, and both agree
with NumPy."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import pyasc
from pyasc.lowering.emit.cpu import cpu_run_project

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed: CPU runs skipped")

RNG = np.random.default_rng(11)
# NumPy tolerance (rtol = atol) of the result's dtype
TOL = {"float32": 1e-4, "float16": 2e-2, "bfloat16": 8e-2, "int8": 0}


def _tensor(shape, dtype, scale=2.0):
    if dtype == "int8":
        return pyasc.tensor(RNG.integers(-8, 8, shape).astype(np.int8))
    return pyasc.tensor(RNG.uniform(-scale, scale, shape).astype(np.float32)).to(pyasc.get_dtype(dtype))


def _check(fn, inputs, want, tol, tmp_path, style="queue"):
    compiled = pyasc.jit(fn, options={"sync_style": style}).compile(*inputs)
    out = tmp_path / "proj"
    compiled.write_project(out, inputs=inputs)
    ok, summary = cpu_run_project(out, compiled, inputs)
    assert ok and "MISMATCH" not in summary, summary
    got, _ = compiled.simulate(*inputs)
    got = np.asarray(got.numpy() if hasattr(got, "numpy") else got, np.float64)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8"])
def test_matmul_with_odd_m_k_n(dtype, tmp_path):
    a, b = _tensor((37, 45), dtype), _tensor((45, 29), dtype)
    want = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    if dtype in ("float16", "bfloat16"):  # the result is rounded to the storage dtype once
        want = want.astype(np.float32)
    _check(lambda x, y: x @ y, [a, b], want, TOL[dtype] * max(1.0, np.abs(want).max() / 10), tmp_path)


@pytest.mark.parametrize("style", ["queue", "flags"])
def test_topk(style, tmp_path):
    x = _tensor((33, 100), "float16")
    want = -np.sort(-x.numpy().astype(np.float64), -1)[:, :5]
    _check(lambda t: pyasc.topk(t, 5)[0], [x], want, 0, tmp_path, style)


def test_where_with_odd_lengths(tmp_path):
    x, y = _tensor((7, 1001), "float32"), _tensor((7, 1001), "float32")
    xn, yn = x.numpy(), y.numpy()
    _check(lambda a, b: pyasc.where(a > b, a, b * 0.5), [x, y], np.where(xn > yn, xn, yn * 0.5), 0, tmp_path)


def test_sum_over_dim_0(tmp_path):
    x = _tensor((33, 100), "float32")
    _check(lambda t: pyasc.sum(t, 0), [x], x.numpy().astype(np.float64).sum(0), 1e-5, tmp_path)
