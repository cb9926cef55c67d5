"""Creation functions against NumPy and PyTorch's documented semantics (PyTorch's int64/bool
become int32, float64 becomes float32)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc
from pyasc import PyascError


def check(t, shape, dtype, values=None):
    assert isinstance(t, pyasc.Tensor)
    assert t.shape == shape and t.dtype is dtype
    assert t.numpy().dtype == dtype.np_dtype and t.numpy().shape == shape
    if values is not None:
        np.testing.assert_array_equal(t.numpy().astype(np.float64), np.asarray(values, dtype=np.float64))


@pytest.mark.parametrize("data,dtype,shape", [
    ([1.0, 2.0], pyasc.float32, (2,)),
    ([1, 2, 3], pyasc.int32, (3,)),
    ([[1, 2.5]], pyasc.float32, (1, 2)),
    ([True, False], pyasc.bool, (2,)),
    (3.5, pyasc.float32, ()),
    (7, pyasc.int32, ()),
    (np.zeros((2, 2), np.float64), pyasc.float32, (2, 2)),
    (np.zeros(3, np.float16), pyasc.float16, (3,)),
    (np.zeros(3, ml_dtypes.bfloat16), pyasc.bfloat16, (3,)),
    (np.zeros(3, np.int64), pyasc.int32, (3,)),
])
def test_tensor_infers_dtype(data, dtype, shape):
    check(pyasc.tensor(data), shape, dtype, np.asarray(data, dtype=np.float64))


def test_tensor_explicit_dtype_copies():
    a = np.array([1.5, -2.25], np.float32)
    t = pyasc.tensor(a, dtype="bfloat16")
    check(t, (2,), pyasc.bfloat16, [1.5, -2.25])
    b = np.array([1.0, 2.0], np.float32)
    t2 = pyasc.tensor(b)
    b[0] = 9
    assert t2.numpy()[0] == 1.0
    check(pyasc.tensor([1.9, -1.9], dtype=pyasc.int32), (2,), pyasc.int32, [1, -1])


def test_tensor_rejects_int32_overflow():
    with pytest.raises(PyascError, match="do not fit in int32"):
        pyasc.tensor([2 ** 40])


def test_from_numpy_shares_memory():
    a = np.arange(6, dtype=np.float16).reshape(2, 3)
    t = pyasc.from_numpy(a)
    check(t, (2, 3), pyasc.float16)
    a[0, 0] = 42
    assert t.numpy()[0, 0] == 42
    assert np.shares_memory(t.numpy(), a)
    check(pyasc.from_numpy(np.ones(2)), (2,), pyasc.float32, [1, 1])
    with pytest.raises(PyascError, match="expected a numpy.ndarray"):
        pyasc.from_numpy([1, 2])


@pytest.mark.parametrize("fn,fill", [(pyasc.zeros, 0), (pyasc.ones, 1), (pyasc.empty, None)])
def test_zeros_ones_empty(fn, fill):
    for args in [(2, 3), ((2, 3),), ([2, 3],)]:
        t = fn(*args)
        check(t, (2, 3), pyasc.float32, None if fill is None else np.full((2, 3), fill))
    check(fn(4, dtype=pyasc.int32), (4,), pyasc.int32)
    check(fn(dtype=pyasc.float16), (), pyasc.float16)
    with pytest.raises(PyascError, match="negative dimension"):
        fn(2, -1)
    with pytest.raises(PyascError, match="size must be a sequence of integers"):
        fn(2.5)


def test_full_infers_dtype_from_value():
    check(pyasc.full((2, 2), 7), (2, 2), pyasc.int32, np.full((2, 2), 7))
    check(pyasc.full((3,), 1.5), (3,), pyasc.float32, [1.5] * 3)
    check(pyasc.full(3, 1.5, dtype=pyasc.float16), (3,), pyasc.float16, [1.5] * 3)
    check(pyasc.full((1,), True), (1,), pyasc.bool, [1])


def test_eye():
    check(pyasc.eye(3), (3, 3), pyasc.float32, np.eye(3))
    check(pyasc.eye(2, 4, dtype=pyasc.int32), (2, 4), pyasc.int32, np.eye(2, 4))


def test_rand_randn_seeded_and_float_only():
    pyasc.manual_seed(0)
    a = pyasc.randn(1000, dtype=pyasc.float16)
    pyasc.manual_seed(0)
    b = pyasc.randn(1000, dtype=pyasc.float16)
    check(a, (1000,), pyasc.float16, b.numpy())
    assert abs(a.numpy().astype(np.float64).mean()) < 0.2 and 0.8 < a.numpy().astype(np.float64).std() < 1.2
    u = pyasc.rand(2, 500)
    check(u, (2, 500), pyasc.float32)
    assert u.numpy().min() >= 0 and u.numpy().max() < 1
    with pytest.raises(PyascError, match="pyasc.randn: is only defined for floating point dtypes, got int32"):
        pyasc.randn(3, dtype=pyasc.int32)


@pytest.mark.parametrize("args,kw,dtype,values", [
    ((5,), {}, pyasc.int32, [0, 1, 2, 3, 4]),
    ((1, 4), {}, pyasc.int32, [1, 2, 3]),
    ((0, 10, 3), {}, pyasc.int32, [0, 3, 6, 9]),
    ((5, 0, -2), {}, pyasc.int32, [5, 3, 1]),
    ((0, 1, 0.25), {}, pyasc.float32, [0, 0.25, 0.5, 0.75]),
    ((2.5,), {}, pyasc.float32, [0, 1, 2]),
    ((0, 1, 0.1), {}, pyasc.float32, np.arange(0, 1, 0.1)),
    ((3,), {"dtype": pyasc.float16}, pyasc.float16, [0, 1, 2]),
    ((0,), {}, pyasc.int32, []),
])
def test_arange_torch_semantics(args, kw, dtype, values):
    t = pyasc.arange(*args, **kw)
    check(t, (len(values),), dtype, np.asarray(values, dtype=dtype.np_dtype))


def test_arange_errors():
    with pytest.raises(PyascError, match="step must be nonzero"):
        pyasc.arange(0, 3, 0)
    with pytest.raises(PyascError, match="inconsistent with step sign"):
        pyasc.arange(0, 3, -1)


def test_like_functions():
    x = pyasc.ones(2, 3, dtype=pyasc.bfloat16)
    check(pyasc.zeros_like(x), (2, 3), pyasc.bfloat16, np.zeros((2, 3)))
    check(pyasc.ones_like(x, dtype=pyasc.int32), (2, 3), pyasc.int32, np.ones((2, 3)))
    check(pyasc.full_like(x, 4), (2, 3), pyasc.bfloat16, np.full((2, 3), 4))
    check(pyasc.empty_like(x), (2, 3), pyasc.bfloat16)
    check(pyasc.rand_like(x), (2, 3), pyasc.bfloat16)
    check(pyasc.randn_like(x), (2, 3), pyasc.bfloat16)
