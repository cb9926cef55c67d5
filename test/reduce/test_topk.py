"""``topk`` inside ``pyasc.jit``: compiled, simulated (no findings) and compared with a stable
NumPy ranking (torch.topk's semantics: best first, the lower index first among equal values)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import pyasc
from pyasc.errors import PyascError


def _reference(a: np.ndarray, k: int, dim: int, largest: bool):
    w = a.astype(np.float64)
    order = np.argsort(-w if largest else w, axis=dim, kind="stable")
    idx = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, idx, axis=dim), idx.astype(np.int32)


def _run(fn, *tensors):
    compiled = pyasc.jit(fn).lower(*tensors).compile()
    out, report = compiled.simulate(*tensors)
    assert report.findings == [], report.findings
    return tuple(np.asarray(o) for o in out), compiled


def _data(shape, dtype, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(-6, 6, size=shape) / 2 if ties else rng.standard_normal(shape)
    return pyasc.tensor(a.astype(np.float32), dtype=dtype)


def _check(x, k, dim=-1, largest=True):
    (v, i), compiled = _run(lambda x: pyasc.topk(x, k, dim=dim, largest=largest), x)
    want_v, want_i = _reference(x.numpy(), k, dim, largest)
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_array_equal(v, want_v)
    assert v.dtype == x.numpy().dtype and i.dtype == np.int32
    return compiled


@pytest.mark.parametrize("k", [1, 3, 8])
@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_topk_last_dim(k, dtype):
    _check(_data((24, 37), dtype, k), k)


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_take_the_lower_index_first(dtype, largest):
    _check(_data((19, 37), dtype, 1, ties=True), 8, largest=largest)


def test_topk_smallest():
    _check(_data((9, 40), pyasc.float32, 2), 3, largest=False)


def test_topk_long_odd_rows():
    _check(_data((6, 1000), pyasc.float32, 3), 8)


@pytest.mark.parametrize("dtype", [pyasc.float32, pyasc.float16])
def test_topk_dim0_of_2d(dtype):
    _check(_data((37, 12), dtype, 4), 3, dim=0)


def test_topk_1d_and_3d():
    _check(_data((37,), pyasc.float32, 5), 3)
    _check(_data((3, 5, 29), pyasc.float16, 6, ties=True), 3, dim=1, largest=False)


def test_topk_bfloat16():
    _check(_data((8, 33), pyasc.bfloat16, 7), 3)


def test_topk_infinities_and_extremes():
    a = np.array([[2.0, -np.inf, 1.0, -np.inf, 5.0],
                  [-np.inf, -np.inf, -np.inf, 0.5, -np.inf],
                  [np.inf, 3.0, np.inf, -1.0, 3.0]], dtype=np.float32)
    x = pyasc.tensor(a)
    _check(x, 5)
    _check(x, 5, largest=False)


def test_topk_fused_with_its_producer_and_consumer():
    x = _data((16, 45), pyasc.float32, 8)
    (v, i), _ = _run(lambda x: (lambda t: (t.values * 2, t.indices))(pyasc.topk(x * 3 - 1, 4)), x)
    want_v, want_i = _reference(x.numpy() * 3 - 1, 4, -1, True)
    np.testing.assert_array_equal(i, want_i)
    np.testing.assert_allclose(v, want_v * 2, rtol=1e-6)


def test_topk_over_the_last_dim_is_one_kernel():
    x = _data((64, 100), pyasc.float16)
    compiled = pyasc.jit(lambda x: pyasc.topk(x, 5)).lower(x).compile()
    assert len(compiled.kernels) == 1
    source = compiled.ascendc_source()
    assert "AscendC::CreateVecIndex" in source and "AscendC::ReduceMax" in source


def test_topk_errors_inside_jit():
    def big_k(x):
        return pyasc.topk(x, 65)  # the line

    with pytest.raises(PyascError, match="k = 65 is more than the 64") as e:
        pyasc.jit(big_k)(_data((2, 100), pyasc.float32))
    assert f"{big_k.__code__.co_firstlineno + 1}" in str(e.value)
    ints = np.array([5, -3, 2**31 - 1, 0, -2**31, 16777217], np.int32)   # int32 ranks exactly (by the sort)
    values, indices = pyasc.jit(lambda x: pyasc.topk(x, 2))(pyasc.tensor(ints))
    np.testing.assert_array_equal(values.numpy(), [2**31 - 1, 16777217])
    np.testing.assert_array_equal(indices.numpy(), [2, 5])
    long = _data((2, 100000), pyasc.float32)  # rows longer than UB: in stages, the values and indices torch's
    values, indices = pyasc.jit(lambda x: pyasc.topk(x, 2))(long)
    want = torch.topk(torch.tensor(long.numpy()), 2)
    np.testing.assert_array_equal(values.numpy(), want.values.numpy())
    np.testing.assert_array_equal(indices.numpy(), want.indices.numpy())
