"""The dtype table and PyTorch's promotion rules."""

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects.builtin import bf16, f16, f32, i32

import pyasc
from pyasc import dtypes as dt

TABLE = [
    (pyasc.float32, "float32", "f32", np.float32, f32, 4, True),
    (pyasc.float16, "float16", "f16", np.float16, f16, 2, True),
    (pyasc.bfloat16, "bfloat16", "bf16", ml_dtypes.bfloat16, bf16, 2, True),
    (pyasc.int32, "int32", "i32", np.int32, i32, 4, False),
]


@pytest.mark.parametrize("d,name,short,npd,mlir,size,is_float", TABLE)
def test_dtype_table(d, name, short, npd, mlir, size, is_float):
    assert d.name == name and str(d) == name and repr(d) == f"pyasc.{name}"
    assert d.short == short
    assert d.np_dtype == np.dtype(npd)
    assert d.mlir == mlir
    assert d.itemsize == size == np.dtype(npd).itemsize
    assert d.is_floating_point is is_float
    for spec in (d, name, short, np.dtype(npd), npd, mlir):
        assert pyasc.get_dtype(spec) is d


def test_aliases_and_unknown():
    assert pyasc.get_dtype("half") is pyasc.float16 is pyasc.half
    assert pyasc.get_dtype("float") is pyasc.float32 is pyasc.float
    with pytest.raises(TypeError, match="unknown dtype 'float64'"):
        pyasc.get_dtype("float64")
    with pytest.raises(TypeError, match="unsupported dtype float64"):
        pyasc.get_dtype(np.float64)


def test_tolerances_grow_with_coarser_types():
    rtols = {d.name: pyasc.tolerance(d)[0] for d in dt.ALL_DTYPES}
    assert rtols["int32"] == 0
    assert rtols["float32"] < rtols["float16"] < rtols["bfloat16"]
    # a tolerance is at least one ulp of the type
    assert pyasc.tolerance("float16")[0] >= np.finfo(np.float16).eps
    assert pyasc.tolerance("bfloat16")[0] >= float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)


F32, F16, BF16, I32 = pyasc.float32, pyasc.float16, pyasc.bfloat16, pyasc.int32


@pytest.mark.parametrize("a,b,out", [
    (F16, F16, F16), (F16, F32, F32), (F32, F16, F32), (BF16, F16, F32), (F16, BF16, F32),
    (BF16, F32, F32), (BF16, BF16, BF16), (I32, F16, F16), (BF16, I32, BF16), (I32, F32, F32),
    (I32, I32, I32),
])
def test_promote_tensor_tensor(a, b, out):
    assert pyasc.promote_types(a, b) is out
    assert pyasc.result_type(a, b) is out


@pytest.mark.parametrize("t,scalar,out", [
    (F16, 2.5, F16), (BF16, 2, BF16), (F32, True, F32), (I32, 3, I32), (I32, 2.5, F32), (I32, True, I32),
])
def test_promote_tensor_scalar(t, scalar, out):
    """A Python scalar does not promote a tensor of its category or a higher one."""
    assert pyasc.result_type(t, scalar) is out
    assert pyasc.result_type(scalar, t) is out


def test_from_numpy_dtype_maps_64_bit_types():
    assert dt.from_numpy_dtype(np.float64) is F32
    assert dt.from_numpy_dtype(np.int64) is I32
    assert dt.from_numpy_dtype(np.bool_) is pyasc.bool
    assert dt.from_numpy_dtype(np.int8) is pyasc.int8
    assert dt.from_numpy_dtype(np.uint8) is I32
    assert dt.from_numpy_dtype(np.complex64) is None
