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
        bits = _f16_bits(x, relu, np.empty(4 * n, np.int32))
        assert bits is not None
        expect = (np.maximum(x, 0) if relu else x).astype(np.float16).view(np.uint16)
        assert np.array_equal(bits.astype(np.uint16), expect)


def test_a_value_that_rounds_to_infinity_is_left_to_numpy():
    x = np.array([1.0, 65520.0], np.float32)
    assert _f16_bits(x, False, np.empty(8, np.int32)) is None


def test_conversion_by_bits_over_the_float32_range():
    """Every 1021st float32 bit pattern below 65520 and every pattern near float16's smallest normal (2**-14) and
    near half its smallest subnormal (2**-25), of both signs: NumPy's cast, bit for bit."""
    patterns = np.concatenate([np.arange(0, 0x477FF000, 1021), np.arange(0x387F0000, 0x38810000),
                               np.arange(0x32FF0000, 0x33010000)]).astype(np.int32)
    x = np.concatenate([patterns, patterns | np.int32(-0x80000000)]).view(np.float32)
    for relu in (False, True):
        bits = _f16_bits(x, relu, np.empty(4 * x.size, np.int32))
        expect = (np.maximum(x, 0) if relu else x).astype(np.float16).view(np.uint16)
        assert np.array_equal(bits.astype(np.uint16), expect)
