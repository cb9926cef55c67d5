"""Fixpipe's float32 -> float16 conversion by bits (``kernel_ops_cube._f16_bits``) against NumPy's cast, bit for bit:
normal values, subnormals, signed zeros and the zeros of a ReLU, with and without the ReLU."""

from __future__ import annotations

import numpy as np
import pytest

from pyasc.runtime.kernel_ops_cube import _f16_bits

RNG = np.random.default_rng(7)


def _values(kind: str, n: int) -> np.ndarray:
    x = RNG.standard_normal(n).astype(np.float32)
    if kind == "subnormal":  # around float16's smallest normal, 2**-14
        return x * np.float32(2.0 ** -15)
    if kind == "zeros":
        x[RNG.random(n) < 0.5] = 0.0
        x[RNG.random(n) < 0.2] = -0.0
        return x
    if kind == "positive":
        return np.abs(x) * np.float32(100.0)
    return x * np.float32(1000.0)


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("kind", ["normal", "subnormal", "zeros", "positive"])
def test_conversion_by_bits_is_numpys_cast(kind, relu):
    for n in (1, 17, 4096, 20000):
        x = _values(kind, n)
        bits = _f16_bits(x, relu, np.empty(3 * n, np.int32))
        assert bits is not None
        expect = (np.maximum(x, 0) if relu else x).astype(np.float16).view(np.uint16)
        assert np.array_equal(bits.astype(np.uint16), expect)


def test_a_value_that_rounds_to_infinity_is_left_to_numpy():
    x = np.array([1.0, 65520.0], np.float32)
    assert _f16_bits(x, False, np.empty(6, np.int32)) is None
