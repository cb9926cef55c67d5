"""Comparisons, logical ops, isnan/isinf/isfinite and ``where`` compiled to the device, against NumPy.

Every program is compiled and simulated and the report must hold no findings; both sync styles.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyasc

DTYPES = {"float32": pyasc.float32, "float16": pyasc.float16, "bfloat16": pyasc.bfloat16, "int32": pyasc.int32}
PREDS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
         "ge": np.greater_equal}
STYLES = ["queue", "flags"]


def _run(fn, *tensors, sync_style="queue"):
    compiled = pyasc.jit(fn, options={"sync_style": sync_style}).lower(*tensors).compile()
    out, report = compiled.simulate(*tensors)
    assert report.findings == [], report.findings
    wrap = lambda o: pyasc.tensor(np.asarray(o))  # noqa: E731
    return (tuple(wrap(o) for o in out) if isinstance(out, tuple | list) else wrap(out)), compiled


def _data(shape, dtype, rng, nan=True):
    if dtype is pyasc.int32:
        return pyasc.tensor(rng.integers(-3, 4, size=shape).astype(np.int32))
    a = rng.integers(-3, 4, size=shape).astype(np.float32) / 2
    if nan:
        a.reshape(-1)[::7] = np.nan
    return pyasc.tensor(a).to(dtype)


@pytest.mark.parametrize("pred", list(PREDS))
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("style", STYLES)
def test_compare_tensors_and_scalars(pred, dtype, style):
    rng = np.random.default_rng(0)
    x, y = _data((3, 50), DTYPES[dtype], rng), _data((3, 50), DTYPES[dtype], rng)
    fn = getattr(pyasc, pred)
    (r1, r2, r3), _ = _run(lambda a, b: (fn(a, b), fn(a, 1), fn(0.5 if dtype != "int32" else 0, b)), x, y,
                           sync_style=style)
    xa, ya = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    scalar = 0.5 if dtype != "int32" else 0
    for got, want in ((r1, PREDS[pred](xa, ya)), (r2, PREDS[pred](xa, 1)), (r3, PREDS[pred](scalar, ya))):
        assert got.dtype is pyasc.bool
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("pred", list(PREDS))
def test_compare_broadcasts_and_eager(pred):
    rng = np.random.default_rng(1)
    x, y = _data((4, 1, 33), pyasc.float32, rng), _data((5, 33), pyasc.float32, rng)
    got = getattr(pyasc, pred)(x, y)  # eager: compiled and simulated
    np.testing.assert_array_equal(got.numpy(), PREDS[pred](x.numpy(), y.numpy()))
    assert got.shape == (4, 5, 33)


def test_nan_semantics():
    x = pyasc.tensor(np.array([np.nan, 1.0, np.nan, np.inf, -np.inf], np.float32))
    y = pyasc.tensor(np.array([np.nan, np.nan, 1.0, np.inf, 0.0], np.float32))
    for pred, f in PREDS.items():
        np.testing.assert_array_equal(getattr(pyasc, pred)(x, y).numpy(), f(x.numpy(), y.numpy()))


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_isnan_isinf_isfinite(dtype):
    a = np.array([[np.nan, np.inf, -np.inf, 0.0, -1.5, 65504.0, 3.0, np.nan]], np.float32)
    x = pyasc.tensor(a).to(DTYPES[dtype])
    (n, i, f), _ = _run(lambda t: (pyasc.isnan(t), pyasc.isinf(t), pyasc.isfinite(t)), x)
    xa = x.numpy().astype(np.float64)
    np.testing.assert_array_equal(n.numpy(), np.isnan(xa))
    np.testing.assert_array_equal(i.numpy(), np.isinf(xa))
    np.testing.assert_array_equal(f.numpy(), np.isfinite(xa))


@pytest.mark.parametrize("style", STYLES)
def test_logical_ops(style):
    rng = np.random.default_rng(2)
    a, b = rng.random((6, 40)) > 0.5, rng.random((6, 40)) > 0.5
    ta, tb = pyasc.tensor(a), pyasc.tensor(b)
    outs, _ = _run(lambda p, q: (pyasc.logical_not(p), pyasc.logical_and(p, q), pyasc.logical_or(p, q),
                                 pyasc.logical_xor(p, q)), ta, tb, sync_style=style)
    for got, want in zip(outs, (~a, a & b, a | b, a ^ b)):
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("style", STYLES)
def test_where_broadcasting(dtype, style):
    rng = np.random.default_rng(3)
    c = pyasc.tensor(rng.random((4, 1)) > 0.5)
    x, y = _data((4, 36), DTYPES[dtype], rng), _data((36,), DTYPES[dtype], rng)
    (r1, r2), _ = _run(lambda c, x, y: (pyasc.where(c, x, y), pyasc.where(x > y, x, 2)), c, x, y, sync_style=style)
    xa, ya = x.numpy().astype(np.float64), y.numpy().astype(np.float64)
    np.testing.assert_array_equal(r1.numpy().astype(np.float64), np.where(c.numpy(), xa, ya))
    np.testing.assert_array_equal(r2.numpy().astype(np.float64), np.where(xa > ya, xa, 2))


@pytest.mark.parametrize("style", STYLES)
def test_fused_into_one_kernel(style):
    rng = np.random.default_rng(4)
    x, y = _data((8, 300), pyasc.float16, rng, nan=False), _data((8, 300), pyasc.float16, rng, nan=False)

    def f(a, b):
        s = a * 2 + b
        return pyasc.where(s > 0, pyasc.exp(s * 0.1), s - 1), a <= b

    (o, m), compiled = _run(f, x, y, sync_style=style)
    assert len(compiled.kernels) == 1
    xa, ya = x.numpy().astype(np.float32), y.numpy().astype(np.float32)
    s = (xa * 2 + ya).astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(o.numpy().astype(np.float32), np.where(s > 0, np.exp(s * 0.1), s - 1), rtol=4e-3,
                               atol=1e-3)
    np.testing.assert_array_equal(m.numpy(), x.numpy() <= y.numpy())
    src = compiled.ascendc_source()
    assert "AscendC::Compare(" in src and "AscendC::Select(" in src and "AscendC::Compares(" in src


@pytest.mark.parametrize("scalar", [1.0, -2.5, 65504.0, 6e-8, 0.1, -0.0, 0.0, float("nan"), float("inf"),
                                    -float("inf")])
@pytest.mark.parametrize("mode", ["EQ", "NE"])
def test_float16_compares_with_a_scalar_on_every_bit_pattern(scalar, mode):
    """``Compares`` of float16 for (in)equality with a scalar, on each of the 65,536 float16 bit patterns, against the
    IEEE comparison in float64: NaN equals nothing, -0.0 equals 0.0, each other value has one pattern."""
    from pyasc.dialects.ascendc.compare import ComparesOp, pack_mask

    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16).reshape(256, 256)
    dst = np.zeros((256, 32), np.uint8)
    ComparesOp.numpy_operation(dst, every, np.float16(scalar), mode)
    with np.errstate(invalid="ignore"):
        expect = (np.equal if mode == "EQ" else np.not_equal)(every.astype(np.float64), float(np.float16(scalar)))
    np.testing.assert_array_equal(dst, pack_mask(expect))
