"""Custom ops (one op in the traced IR, eager and jit,
backward) and mixed precision (autocast, precision_scope, PYASC_MODE)."""

import subprocess
import sys

import numpy as np
import pytest
import torch

import pyasc

from .conftest import requires_backend


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


@pytest.fixture(scope="module")
def swish():
    @pyasc.register_op("test_swish", replace=True,
                       backward=lambda g, x, beta=1.0: g * (pyasc.sigmoid(x * beta) * (1 + x * beta * (1 - pyasc.sigmoid(x * beta)))))
    def swish(x, beta=1.0):
        """x * sigmoid(beta * x)"""
        return x * pyasc.sigmoid(x * beta)

    return swish


# ----------------------------------------------------------------------------- custom ops

@requires_backend
def test_custom_op_eager_and_jit(swish):
    a = np.random.default_rng(0).standard_normal((4, 33)).astype(np.float32)
    x = pyasc.from_numpy(a)
    np.testing.assert_allclose(swish(x).numpy(), a * _sig(a), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(swish(x, 2.0).numpy(), a * _sig(2 * a), rtol=1e-5, atol=1e-6)
    f = pyasc.jit(lambda x: swish(x) * 2 + 1)
    np.testing.assert_allclose(f(x).numpy(), 2 * a * _sig(a) + 1, rtol=1e-5, atol=1e-5)
    assert pyasc.get_custom_op("test_swish") is swish and swish.__doc__ == "x * sigmoid(beta * x)"


def test_custom_op_is_one_op_in_the_traced_ir_until_decomposed(swish):
    lowered = pyasc.jit(lambda x: swish(x) + swish(x) + swish(x, 3.0)).lower(pyasc.ones(8))
    main = str(lowered.traced).split("func.func private")[0]
    assert main.count('func.call @test_swish_') == 3 and "asctensor.sigmoid" not in main
    assert main.count('pyasc.custom_op = "test_swish"') == 3
    assert str(lowered.traced).count("func.func private") == 2          # one body per distinct signature
    decomposed = lowered.as_text("asctensor")
    assert "test_swish" not in decomposed and "func.func private" not in decomposed


@requires_backend
def test_custom_op_backward_against_finite_differences(swish):
    a = np.linspace(-3, 3, 64).astype(np.float32)
    (g,) = swish.vjp(pyasc.from_numpy(a))
    h = 1e-3
    numeric = ((a + h) * _sig(a + h) - (a - h) * _sig(a - h)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-3, atol=1e-3)
    grad_fn = pyasc.jit(lambda x, go: swish.vjp(x, grad_output=go)[0])
    np.testing.assert_allclose(grad_fn(a, np.full(64, 2.0, np.float32)).numpy(), 2 * numeric, rtol=1e-3, atol=2e-3)


def test_custom_op_with_comparisons_runs_eagerly_and_inside_jit():
    @pyasc.register_op("test_pos_mask", replace=True)
    def pos_mask(x):
        return pyasc.where(x > 0, x, 0.0)

    x = pyasc.tensor([-1.0, 2.0, 0.5])
    np.testing.assert_array_equal(pos_mask(x).numpy(), [0.0, 2.0, 0.5])
    np.testing.assert_array_equal(pyasc.jit(lambda x: pos_mask(x))(x).numpy(), [0.0, 2.0, 0.5])


def test_register_op_errors(swish):
    with pytest.raises(pyasc.PyascError, match="already registered"):
        pyasc.register_op("test_swish")(lambda x: x)
    with pytest.raises(pyasc.PyascError, match="already registered"):
        pyasc.register_op("add")(lambda x: x)
    with pytest.raises(pyasc.PyascError, match="must be an identifier"):
        pyasc.register_op("not valid")
    with pytest.raises(pyasc.PyascError, match="has no backward"):
        pyasc.register_op("test_nobwd", replace=True)(lambda x: x * 2).vjp(pyasc.ones(2))
    with pytest.raises(pyasc.PyascError, match="must return a tensor"):
        pyasc.jit(pyasc.register_op("test_bad", replace=True)(lambda x: 3)).lower(pyasc.ones(2))


# ----------------------------------------------------------------------------- mixed precision

def test_autocast_casts_by_op_category():
    g = pyasc.jit(lambda x, y: (pyasc.exp(x), x + y, x * y, x.prod(), x @ y.reshape(8, 1)))
    f = pyasc.jit(lambda x, y: (pyasc.exp(x), x + y, x * y))
    x16, y32 = pyasc.ones(8, dtype=pyasc.float16), pyasc.ones(8)
    with pyasc.amp.autocast(pyasc.float16):
        lowered = g.lower(x16, y32)
    tx, ty = torch.ones(8, dtype=torch.float16), torch.ones(8)
    with torch.autocast("cpu", dtype=torch.float16):   # PyTorch's CPU lists decide
        expected = [t.dtype for t in (torch.exp(tx), tx + ty, tx * ty, tx.prod(), tx @ ty.reshape(8, 1))]
    got = [s.dtype.name for s in lowered.outputs]
    assert got == [str(d).removeprefix("torch.") for d in expected] == \
        ["float16", "float32", "float32", "float32", "float16"]
    pyasc.amp.register("mul", "lower")
    try:
        with pyasc.amp.autocast(pyasc.bfloat16):
            assert f.lower(x16, y32).outputs[2].dtype is pyasc.bfloat16
    finally:
        pyasc.amp.LOWER_PRECISION_OPS.discard("mul")
    assert f.lower(x16, y32).outputs[0].dtype is pyasc.float16       # outside: no policy


def test_precision_scope_and_cache_key():
    f = pyasc.jit(lambda x, y: x * y + 1.0)
    x, y = pyasc.ones(16), pyasc.ones(16)
    assert f.compile(x, y).outputs[0].dtype is pyasc.float32
    with pyasc.precision_scope(pyasc.float16):
        assert f.compile(x, y).outputs[0].dtype is pyasc.float16
        with pyasc.precision_scope("bf16"):
            assert f.compile(x, y).outputs[0].dtype is pyasc.bfloat16
    assert f.compile(x, y).outputs[0].dtype is pyasc.float32 and f.cache_size() == 3
    with pyasc.precision_scope(pyasc.float16):
        i = pyasc.tensor([1, 2])
        assert f.lower(i, i).outputs[0].dtype is pyasc.float32           # ints untouched; + 1.0 promotes
    with pytest.raises(pyasc.PyascError, match="needs a floating point dtype"):
        pyasc.precision_scope(pyasc.int32).__enter__()


@requires_backend
def test_precision_scope_eager():
    x = pyasc.tensor([1.0, 2.0, 3.0])
    with pyasc.precision_scope(pyasc.float16):
        y = x * x
    assert y.dtype is pyasc.float16 and y.tolist() == [1.0, 4.0, 9.0]


def test_pyasc_mode_environment_variable():
    code = ("import pyasc; f = pyasc.jit(lambda x: x * 2); "
            "print(pyasc.amp.get_mode(), f.lower(pyasc.ones(4)).outputs[0].dtype.name)")
    for mode, expected in (("FP16", "FP16 float16"), ("BF16", "BF16 bfloat16"), ("FP32", "FP32 float32")):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**__import__("os").environ, "PYASC_MODE": mode}, check=True)
        assert out.stdout.strip() == expected
    pyasc.amp.set_mode("fp16")
    try:
        assert pyasc.jit(lambda x: x * 2).lower(pyasc.ones(4)).outputs[0].dtype is pyasc.float16
    finally:
        pyasc.amp.set_mode(None)
    with pytest.raises(pyasc.PyascError, match="unknown precision mode"):
        pyasc.amp.set_mode("FP8")
