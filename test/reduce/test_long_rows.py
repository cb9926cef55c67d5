"""softmax / log_softmax over rows longer than UB, against PyTorch CPU in float64.

A trailing row that does not fit in UB takes two launches: the pieces' statistics, then the result
(the pieces combined in the second kernel's row prologue). Lengths that split evenly, odd lengths
(a tail beside the pieces), several rows, several lead dims, a 1-D input and float16 storage; a long
dim that is not the last goes through the tree reductions. Every run's report has no findings
(races, flags, UB overflow).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc

DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16}
# computed in float32 on the device, rounded once to the storage dtype; log_softmax values reach
# about -20, so their absolute tolerance is a few units of the dtype at that magnitude
TOL = {("float32", False): (2e-5, 1e-9), ("float32", True): (1e-5, 2e-5),
       ("float16", False): (1e-2, 1e-6), ("float16", True): (2e-3, 2e-2)}


def _check(shape, dtype_name, log, dim=-1, max_kernels=None, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-8.0, 8.0, size=shape).astype(np.float32)
    t = pyasc.tensor(a).to(DTYPES[dtype_name])
    fn = pyasc.log_softmax if log else pyasc.softmax
    compiled = pyasc.jit(lambda x: fn(x, dim)).lower(t).compile()
    got, report = compiled.simulate(t)
    assert report.findings == [], report.findings
    ref = torch.from_numpy(t.numpy().astype(np.float64))
    want = (torch.log_softmax if log else torch.softmax)(ref, dim).numpy()
    assert got.shape == want.shape and got.dtype == t.numpy().dtype
    rtol, atol = TOL[(dtype_name, log)]
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)
    if max_kernels is not None:
        assert len(compiled.kernels) <= max_kernels, compiled.kernels
    return compiled


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", [(1, 1 << 20), (1, (1 << 18) + 3), (3, 262147), (2, 2, 131075), ((1 << 18) + 1,)])
def test_long_rows_float32_in_two_launches(shape, log):
    _check(shape, "float32", log, max_kernels=2)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape", [(1, 1 << 18), (2, 300001)])
def test_long_rows_float16_in_two_launches(shape, log):
    _check(shape, "float16", log, max_kernels=2)


@pytest.mark.parametrize("log", [False, True])
def test_long_dim_not_last(log):
    _check((65537, 3), "float32", log, dim=0)


def test_large_values_do_not_overflow():
    """Pieces with very different maxima: each piece's sum is rescaled to the row max, none overflows."""
    rng = np.random.default_rng(5)
    a = rng.normal(size=(2, 262144)).astype(np.float32)
    a[0, :1000] += 80.0  # only the first pieces hold the row max
    a[1, -7:] += 90.0  # the row max in the last piece
    t = pyasc.tensor(a)
    got, report = pyasc.jit(lambda x: pyasc.softmax(x, -1)).lower(t).compile().simulate(t)
    assert report.findings == []
    want = torch.softmax(torch.from_numpy(a.astype(np.float64)), -1).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-12)


@pytest.mark.parametrize("rows", [1, 3])
def test_row_prologue_of_a_user_program(rows):
    """A row sum of short rows scaling long rows: one kernel (the sums are its row prologue), against NumPy."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    z = rng.standard_normal((rows, 65536 + 5)).astype(np.float32)
    tx, tz = pyasc.tensor(x), pyasc.tensor(z)
    compiled = pyasc.jit(lambda x, z: z * x.sum(1, keepdim=True) - x.amax(1, keepdim=True)).lower(tx, tz).compile()
    got, report = compiled.simulate(tx, tz)
    assert report.findings == [], report.findings
    assert len(compiled.kernels) == 1, compiled.kernels
    a, b = x.astype(np.float64), z.astype(np.float64)
    np.testing.assert_allclose(got, b * a.sum(1, keepdims=True) - a.max(1, keepdims=True), rtol=1e-5, atol=1e-4)
