"""Tensor metadata, NumPy interop and the operator/method/function API, run eagerly with the
NumPy reference backend (the simulator backend is covered in test_numerics.py)."""

import ml_dtypes
import numpy as np
import pytest

import pyasc
from pyasc import ops
from pyasc.opdef import COMPARE, ELEMENTWISE

pytestmark = pytest.mark.usefixtures("reference_eager")


def test_metadata():
    x = pyasc.zeros(2, 3, 4, dtype=pyasc.float16)
    assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4) and x.size(1) == 3
    assert x.ndim == 3 == x.dim() and x.numel() == 24 and len(x) == 2
    assert x.nbytes == 48 and x.itemsize == 2 and not x.is_traced


def test_numpy_interop():
    x = pyasc.tensor([[1.0, 2.0]], dtype=pyasc.bfloat16)
    assert x.numpy().dtype == ml_dtypes.bfloat16
    assert np.asarray(x).dtype == ml_dtypes.bfloat16
    assert np.asarray(x, dtype=np.float32).tolist() == [[1.0, 2.0]]
    assert x.tolist() == [[1.0, 2.0]]
    assert pyasc.tensor([3]).item() == 3 and isinstance(pyasc.tensor([3]).item(), int)
    assert pyasc.tensor(2.5, dtype="bfloat16").item() == 2.5


def test_repr():
    assert repr(pyasc.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(pyasc.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(pyasc.tensor([1.5], dtype=pyasc.float16)) == "tensor([1.5], dtype=pyasc.float16)"
    assert repr(pyasc.tensor([1.5], dtype=pyasc.bfloat16)) == "tensor([1.5], dtype=pyasc.bfloat16)"


def test_operators_and_reflected_forms():
    x = pyasc.tensor([1.0, 2.0, 4.0], dtype=pyasc.float16)
    cases = {
        "x + 1": (x + 1, [2, 3, 5]), "1 + x": (1 + x, [2, 3, 5]),
        "x - 1": (x - 1, [0, 1, 3]), "1 - x": (1 - x, [0, -1, -3]),
        "x * 2": (x * 2, [2, 4, 8]), "2 * x": (2 * x, [2, 4, 8]),
        "x / 2": (x / 2, [0.5, 1, 2]), "2 / x": (2 / x, [2, 1, 0.5]),
        "x ** 2": (x ** 2, [1, 4, 16]), "2 ** x": (2 ** x, [2, 4, 16]),
        "-x": (-x, [-1, -2, -4]), "+x": (+x, [1, 2, 4]), "abs(-x)": (abs(-x), [1, 2, 4]),
    }
    for text, (r, expected) in cases.items():
        assert r.dtype is pyasc.float16, text
        np.testing.assert_array_equal(r.numpy().astype(np.float64), expected, err_msg=text)


def test_numpy_array_operands_defer_to_tensor():
    x = pyasc.tensor([1.0, 2.0])
    r = np.array([10.0, 20.0], np.float32) + x
    assert isinstance(r, pyasc.Tensor)
    np.testing.assert_array_equal(r.numpy(), [11, 22])


def test_promotion_in_eager_results():
    i = pyasc.tensor([1, 2, 3])
    h = pyasc.tensor([1, 2, 3], dtype=pyasc.float16)
    b = pyasc.tensor([1, 2, 3], dtype=pyasc.bfloat16)
    assert (i + i).dtype is pyasc.int32
    assert (i / i).dtype is pyasc.float32
    assert (i + 0.5).dtype is pyasc.float32
    assert (h + b).dtype is pyasc.float32
    assert (h + i).dtype is pyasc.float16
    assert (h * 2.5).dtype is pyasc.float16
    np.testing.assert_array_equal((i / 2).numpy(), [0.5, 1, 1.5])
    assert (-i).dtype is pyasc.int32 and (-i).tolist() == [-1, -2, -3]


def test_broadcasting_in_eager():
    r = pyasc.ones(3, 1) + pyasc.arange(4)
    assert r.shape == (3, 4) and r.dtype is pyasc.float32
    np.testing.assert_array_equal(r.numpy(), np.ones((3, 1)) + np.arange(4))


def test_methods_and_functions_cover_the_op_table():
    floats = pyasc.rand(8) + 0.5
    ints = pyasc.tensor([3, -1, 0, 7, 12, -5, 2, 9])
    for name, op in ops.OPS.items():
        if op.kind not in (ELEMENTWISE, COMPARE) or name == "cast" or op.arity > 2:
            continue
        x = floats if pyasc.float32 in op.dtypes else ints     # the bitwise ops take integers only
        fn = getattr(pyasc, name)
        args = (x,) if op.arity == 1 else (x, x)
        expected = ops.reference(name, *args)
        np.testing.assert_array_equal(fn(*args).numpy(), expected)
        np.testing.assert_array_equal(getattr(x, name)(*args[1:]).numpy(), expected)


def test_reference_semantics():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0], np.float32)
    np.testing.assert_allclose(ops.reference("gelu", x), 0.5 * x * (1 + np.vectorize(__import__("math").erf)(x / np.sqrt(2))), rtol=1e-6)
    np.testing.assert_allclose(ops.reference("gelu", x, approximate="tanh"),
                               0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), rtol=1e-6)
    np.testing.assert_allclose(ops.reference("sigmoid", x), 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_array_equal(ops.reference("relu", x), np.maximum(x, 0))
    assert ops.reference("relu", np.array([np.nan], np.float32))[0] != 0
    assert ops.reference("add", np.array([2 ** 31 - 1], np.int32), 1)[0] == -(2 ** 31)  # int32 wraps
    assert ops.reference("cast", np.array([-1.7, 2.9], np.float32), dtype="int32").tolist() == [-1, 2]
    r = ops.reference("div", np.array([1], np.int32), np.array([3], np.int32))
    assert r.dtype == np.float32 and r[0] == np.float32(1 / 3)
    # computed in float64 and rounded once to the result dtype
    h = np.array([0.1], np.float16)
    assert ops.reference("mul", h, 3.0)[0] == np.float16(np.float64(np.float16(0.1)) * 3.0)


def test_cast_methods():
    x = pyasc.tensor([1.7, -2.2])
    assert x.to("float32") is x
    assert x.half().dtype is pyasc.float16
    assert x.bfloat16().dtype is pyasc.bfloat16
    assert x.int().tolist() == [1, -2]
    assert x.float() is x


def test_bool_of_tensor():
    assert bool(pyasc.tensor([1.0]))
    with pytest.raises(pyasc.PyascError, match="ambiguous"):
        bool(pyasc.ones(2))


def test_backend_switch_validates():
    with pytest.raises(ValueError, match="unknown eager backend"):
        pyasc.set_eager_backend("gpu")
