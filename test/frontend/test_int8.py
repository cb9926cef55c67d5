"""int8 conversions compiled to the device, in ``pyasc.jit`` and eagerly, against NumPy.

float -> int8 truncates toward zero and keeps the value modulo 256 (NumPy's and PyTorch's result on
the host), int32 -> int8 keeps the low byte, int8 -> any dtype is exact.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc


def wrap_int8(a: np.ndarray) -> np.ndarray:
    """The int8 NumPy/PyTorch give for ``a`` (float: truncated first), computed in int64."""
    t = np.trunc(a.astype(np.float64)).astype(np.int64) if a.dtype.kind == "f" or a.dtype.name == "bfloat16" \
        else a.astype(np.int64)
    return (((t + 128) % 256) - 128).astype(np.int8)


EDGES = [0.0, 0.5, -0.5, 0.99, -0.99, 1.7, -2.9, 126.9, 127.0, 127.99, 128.0, -128.0, -128.99, -129.0,
         255.5, 256.0, -256.0, 300.7, -300.7, 1000.25, -1000.25, 4096.0, 65000.0, -65000.0]


def _floats(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 300).astype(np.float32)
    flat = a.reshape(-1)
    flat[:len(EDGES)] = EDGES
    return pyasc.tensor(a, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_float_to_int8_in_jit(dtype):
    x = _floats(pyasc.get_dtype(dtype), (3, 37))
    out = pyasc.jit(lambda x: x.to(pyasc.int8))(x)
    assert out.dtype is pyasc.int8 and out.shape == (3, 37)
    np.testing.assert_array_equal(out.numpy(), wrap_int8(x.numpy()))
    inside = np.abs(np.trunc(x.numpy().astype(np.float64))) <= 127  # where NumPy's own cast is defined
    np.testing.assert_array_equal(out.numpy()[inside], x.numpy()[inside].astype(np.int8))


def test_int32_to_int8_keeps_the_low_byte():
    rng = np.random.default_rng(1)
    a = rng.integers(-(2 ** 31), 2 ** 31, size=(4, 50), dtype=np.int64).astype(np.int32)
    a.reshape(-1)[:8] = [2 ** 31 - 1, -(2 ** 31), 127, 128, -128, -129, 255, 256]
    x = pyasc.tensor(a)
    out = pyasc.jit(lambda x: x.to(pyasc.int8))(x)
    np.testing.assert_array_equal(out.numpy(), a.astype(np.int8))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32"])
def test_int8_to_any_dtype_is_exact(dtype):
    a = np.arange(-128, 128, dtype=np.int8).reshape(8, 32)
    x = pyasc.tensor(a)
    d = pyasc.get_dtype(dtype)
    out = pyasc.jit(lambda x: x.to(d) * 2)(x)
    assert out.dtype is d
    np.testing.assert_array_equal(out.numpy().astype(np.float64), a.astype(np.float64) * 2)


def test_eager_int8_casts_match_jit():
    x = _floats(pyasc.float32, (5, 33), seed=3)
    q = x.to(pyasc.int8)
    np.testing.assert_array_equal(q.numpy(), wrap_int8(x.numpy()))
    back = q.to(pyasc.float16)
    np.testing.assert_array_equal(back.numpy(), q.numpy().astype(np.float16))
    np.testing.assert_array_equal(pyasc.tensor(np.array([70000, -129], np.int32)).to(pyasc.int8).numpy(),
                                  [np.int8(112), np.int8(127)])


def test_quantize_dequantize_in_one_program():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 96)).astype(np.float32)
    scale = 127 / np.abs(a).max()

    def qdq(x):
        q = pyasc.clamp(x * scale, -128.0, 127.0).to(pyasc.int8)
        return q, q.to(pyasc.float32) / scale

    q, y = pyasc.jit(qdq)(pyasc.tensor(a))
    ref_q = np.trunc(np.clip(a.astype(np.float64) * np.float32(scale), -128, 127)).astype(np.int8)
    np.testing.assert_array_equal(q.numpy(), ref_q)
    np.testing.assert_allclose(y.numpy(), ref_q.astype(np.float64) / np.float32(scale), rtol=1e-6)


def test_bool_and_int8_in_jit():
    a = np.array([[-3, 0, 1, 0, 127, -128, 0, 5]] * 4, np.int8)
    x = pyasc.tensor(a)
    mask = pyasc.jit(lambda x: x.to(pyasc.bool))(x)
    np.testing.assert_array_equal(mask.numpy(), a != 0)
    back = pyasc.jit(lambda x: (x > 0).to(pyasc.int8))(x.to(pyasc.float32))
    np.testing.assert_array_equal(back.numpy(), (a > 0).astype(np.int8))


def test_int8_matmul_of_values_quantized_in_jit():
    rng = np.random.default_rng(5)
    a = rng.integers(-100, 100, (32, 64)).astype(np.float32) + 0.5
    b = rng.integers(-100, 100, (64, 48)).astype(np.float32) - 0.25

    out = pyasc.jit(lambda a, b: a.to(pyasc.int8) @ b.to(pyasc.int8))(pyasc.tensor(a), pyasc.tensor(b))
    assert out.dtype is pyasc.int32
    ref = np.trunc(a).astype(np.int64) @ np.trunc(b).astype(np.int64)
    np.testing.assert_array_equal(out.numpy(), ref)


MOVES = {
    "transpose": lambda x: x.T,
    "strided": lambda x: x[1::2, ::3],
    "reversed": lambda x: x[:, ::-1],
    "reshape": lambda x: x.reshape(15, 8),
    "swap": lambda x: x.reshape(2, 4, 15).transpose(2, 0) if isinstance(x, pyasc.Tensor)
    else x.reshape(2, 4, 15).swapaxes(2, 0),
    "unchanged": lambda x: x,
}


@pytest.mark.parametrize("move", list(MOVES))
@pytest.mark.parametrize("dtype", ["int8", "bool"])
def test_storage_dtypes_move_in_jit(move, dtype):
    a = np.arange(-60, 60).reshape(8, 15)
    a = a.astype(np.int8) if dtype == "int8" else (a % 3 == 0)
    out = pyasc.jit(MOVES[move])(pyasc.tensor(a))
    assert out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), MOVES[move](a))


def test_storage_dtypes_join_in_jit():
    a = np.array([[1, 0, 3], [0, 0, 2]], np.float32)
    b = np.array([[0, 5, -1]], np.float32)
    masks = pyasc.jit(lambda x, y: pyasc.cat([x > 0, y > 0], 0))(pyasc.tensor(a), pyasc.tensor(b))
    np.testing.assert_array_equal(masks.numpy(), np.concatenate([a > 0, b > 0]))
    q = pyasc.jit(lambda x, y: pyasc.stack([x.to(pyasc.int8), y.to(pyasc.int8)], 1))(
        pyasc.tensor(a), pyasc.tensor(a * 50))
    np.testing.assert_array_equal(q.numpy(), np.stack([a.astype(np.int8), wrap_int8(a * 50)], 1))
